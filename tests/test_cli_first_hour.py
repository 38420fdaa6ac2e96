"""The command line as a newcomer meets it: code frames and colour, the flags linters
have, one-line usage errors, every path accounted for, a configured baseline that
applies wherever the command runs, fixes that write what they say, and an interrupt
that ends with one line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from samples import MINIMAL_PACK

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "support.promptpack.yaml"
BROKEN = MINIMAL_PACK.replace("name: Demo", "name: Demo\nagent: {}")
PLAIN_ENV = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}


def run(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pack_lsp", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        env={**PLAIN_ENV, "PYTHONIOENCODING": "utf-8", **(env or {})},
    )


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# ------------------------------------------------------------------ usage errors


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--check", "--format", "xml", "a.yaml"], "argument --format: invalid choice: 'xml'"),
        (["--fix", "a.yaml"], "--fix is used with --check"),
        (["--check", "--bogus", "a.yaml"], "unrecognized arguments: --bogus"),
        (["--check", "--select", "PPX", "a.yaml"], "--select: unknown code `PPX`"),
        (["--check", "--output-format", "fancy", "a.yaml"], "invalid choice: 'fancy'"),
    ],
)
def test_a_usage_error_is_one_line_with_a_pointer_to_help(argv: list[str], message: str) -> None:
    proc = run(*argv)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert message in proc.stderr and "usage:" not in proc.stderr
    assert proc.stderr.rstrip().endswith("(run `pack-lsp --help` for the options)")
    assert "Checked" not in proc.stderr


def test_a_run_that_checked_nothing_prints_no_summary(tmp_path: Path) -> None:
    proc = run("--check", "nosuchfile.yaml", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr == "pack-lsp: error: nosuchfile.yaml: no such file or directory\n"


# ------------------------------------------------------------------ every path


@pytest.mark.parametrize("mode", ["--card", "--topology", "--governance", "--compile"])
def test_a_one_file_mode_refuses_extra_paths(mode: str) -> None:
    proc = run(mode, str(EXAMPLE), "nosuchfile.yaml")
    assert proc.returncode == 2
    assert f"{mode} reads one file" in proc.stderr and "`nosuchfile.yaml`" in proc.stderr
    assert proc.stdout == ""


@pytest.mark.parametrize("mode", ["--card", "--topology", "--governance"])
def test_a_one_file_mode_reports_a_missing_path(mode: str) -> None:
    proc = run(mode, "nosuchfile.yaml")
    assert proc.returncode == 2
    assert "nosuchfile.yaml" in proc.stderr and "Traceback" not in proc.stderr


def test_render_of_a_broken_file_says_it_is_broken(tmp_path: Path) -> None:
    pack = write(tmp_path / "a.promptpack.yaml", MINIMAL_PACK + "  helper: [\n")
    proc = run("--render", str(pack), "--prompt", "helper")
    assert proc.returncode == 2
    assert "has a YAML syntax error" in proc.stderr and "system_template" not in proc.stderr


@pytest.mark.parametrize(
    ("name", "text", "what"),
    [
        ("docker-compose.yml", "services:\n  web:\n    image: nginx\n", "Docker Compose"),
        (
            ".github/workflows/ci.yml",
            "name: CI\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n",
            "GitHub Actions workflow",
        ),
    ],
)
def test_another_kind_of_yaml_named_on_the_command_line_is_one_line(
    tmp_path: Path, name: str, text: str, what: str
) -> None:
    write(tmp_path / name, text)
    proc = run("--check", name, cwd=tmp_path)
    assert proc.returncode == 0
    (line,) = proc.stdout.splitlines()
    assert " information PP014 Not a PromptPack: " in line and what in line


# ------------------------------------------------------------------ subcommands


def test_check_subcommand_is_the_check_option(tmp_path: Path) -> None:
    pack = write(tmp_path / "a.promptpack.yaml", BROKEN)
    assert run("check", str(pack)).stdout == run("--check", str(pack)).stdout != ""


def test_rule_prints_a_rules_documentation() -> None:
    proc = run("rule", "pp102")
    assert proc.returncode == 0
    assert proc.stdout.startswith("PP102 (unknown-property)\n")
    assert "did you mean `agents`?" in proc.stdout and "Fix: " in proc.stdout
    assert run("rule", "unknown-property").stdout == proc.stdout
    listed = run("rule", "PP3").stdout.splitlines()
    assert listed and all(line.startswith("PP3") for line in listed)
    wrong = run("rule", "PP3O1")
    assert wrong.returncode == 2 and "did you mean `PP301`" in wrong.stderr


# ------------------------------------------------------------------ flags


def test_statistics_count_each_code(tmp_path: Path) -> None:
    write(tmp_path / "a.promptpack.yaml", BROKEN + "zz: 1\n")
    write(tmp_path / "b.promptpack.yaml", BROKEN)
    proc = run("--check", "--statistics", ".", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stdout.splitlines() == ["3  PP102  [*] unknown-property"]
    data = json.loads(run("check", "--statistics", "--format", "json", ".", cwd=tmp_path).stdout)
    assert data == [{"code": "PP102", "name": "unknown-property", "count": 3, "fixable": 2}]
    assert run("check", "--statistics", "--format", "sarif", ".", cwd=tmp_path).returncode == 2


def test_quiet_exit_zero_and_fixable_hint(tmp_path: Path) -> None:
    write(tmp_path / "a.promptpack.yaml", BROKEN)
    loud = run("--check", ".", cwd=tmp_path)
    assert loud.returncode == 1
    assert loud.stderr.splitlines()[-1] == "1 problem fixable with `--fix`"
    quiet = run("--check", "--quiet", ".", cwd=tmp_path)
    assert (quiet.stdout, quiet.stderr) == (loud.stdout, "")
    assert run("--check", "--exit-zero", ".", cwd=tmp_path).returncode == 0
    # A path problem still fails the job.
    assert run("--check", "--exit-zero", ".", "nosuch", cwd=tmp_path).returncode == 2


def test_config_option_replaces_the_configuration_found(tmp_path: Path) -> None:
    pack = write(tmp_path / "packs" / "a.promptpack.yaml", BROKEN)
    write(tmp_path / "packs" / ".pack-lsp.toml", 'select = ["PP2"]\n')
    write(tmp_path / "ci" / "pack-lsp.toml", 'ignore = ["PP2"]\n')
    assert run("--check", str(pack)).returncode == 0  # the configuration beside it
    proc = run("--check", "--config", str(tmp_path / "ci" / "pack-lsp.toml"), str(pack))
    assert proc.returncode == 1 and " PP102 " in proc.stdout
    pyproject = write(tmp_path / "pyproject.toml", '[tool.pack-lsp]\nignore = ["PP102"]\n')
    assert run("--check", "--config", str(pyproject), str(pack)).returncode == 0
    missing = run("--check", "--config", str(tmp_path / "none.toml"), str(pack))
    assert missing.returncode == 2 and missing.stderr.startswith("pack-lsp: error: --config: ")


# ------------------------------------------------------------------ full output


def test_full_output_shows_the_source_a_caret_and_the_fix(tmp_path: Path) -> None:
    write(tmp_path / "a.promptpack.yaml", BROKEN)
    proc = run("--check", "--output-format", "full", "a.promptpack.yaml", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stdout.splitlines() == [
        "error[PP102]: Unknown property `agent` in the pack root; did you mean `agents`?",
        " --> a.promptpack.yaml:3:1",
        "  |",
        "2 | name: Demo",
        "3 | agent: {}",
        "  | ^^^^^",
        "4 | version: 1.0.0",
        "  |",
        "  = fix: Replace with `agents` (`--fix` applies it)",
    ]
    concise = run("--check", "--output-format", "concise", "a.promptpack.yaml", cwd=tmp_path)
    assert concise.stdout == run("--check", "a.promptpack.yaml", cwd=tmp_path).stdout
    assert concise.stdout.count("\n") == 1
    both = run("--check", "--output-format", "full", "--format", "json", ".", cwd=tmp_path)
    assert both.returncode == 2


def test_full_output_of_a_long_line_is_a_window(tmp_path: Path) -> None:
    data = json.loads(json.dumps({"id": "demo", "description": "x" * 300}))
    data.update({"name": "Demo", "version": "1.0.0", "agent": {}})
    data["template_engine"] = {"version": "v1", "syntax": "{{variable}}"}
    data["prompts"] = {"p": {"id": "p", "name": "P", "version": "1.0.0", "system_template": "Hi"}}
    write(tmp_path / "a.pack.json", json.dumps(data))
    out = run("--check", "--output-format", "full", "a.pack.json", cwd=tmp_path).stdout
    source = next(line for line in out.splitlines() if line.startswith("1 | "))
    caret = next(line for line in out.splitlines() if "^" in line)
    assert len(source) < 140 and "…" in source
    start = caret.index("^")
    assert source[start : start + len('"agent"')] == '"agent"'


@pytest.mark.parametrize(
    ("env", "coloured"),
    [({}, False), ({"FORCE_COLOR": "1"}, True), ({"FORCE_COLOR": "1", "NO_COLOR": "1"}, True)],
)
def test_colour_only_when_asked_in_a_pipe(
    tmp_path: Path, env: dict[str, str], coloured: bool
) -> None:
    write(tmp_path / "a.promptpack.yaml", BROKEN)
    proc = run("--check", "--output-format", "full", ".", cwd=tmp_path, env=env)
    assert ("\x1b[" in proc.stdout) is coloured


def test_colour_wanted_follows_the_conventions(monkeypatch: pytest.MonkeyPatch) -> None:
    from pack_lsp.render.style import colour_wanted

    class Tty:
        def isatty(self) -> bool:
            return True

    tty = Tty()
    for name in ("NO_COLOR", "FORCE_COLOR", "TERM"):
        monkeypatch.delenv(name, raising=False)
    assert colour_wanted(tty)  # type: ignore[arg-type]
    monkeypatch.setenv("NO_COLOR", "1")
    assert not colour_wanted(tty)  # type: ignore[arg-type]
    monkeypatch.setenv("FORCE_COLOR", "0")
    assert not colour_wanted(tty)  # type: ignore[arg-type]
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("TERM", "dumb")
    assert not colour_wanted(tty)  # type: ignore[arg-type]


# ------------------------------------------------------------------ baseline

PACK = """\
id: desk
name: Desk
version: 1.0.0
template_engine: {version: v1, syntax: "{{variable}}"}
prompts:
  router:
    id: router
    name: Router
    version: 1.0.0
    system_template: Route.
    tools: [lookup_order, refund]
tools:
  lookup_order:
    name: lookup_order
    description: Look up.
"""


def test_a_configured_baseline_applies_wherever_the_command_runs(tmp_path: Path) -> None:
    packs = tmp_path / "packs"
    pack = write(packs / "a.promptpack.yaml", PACK)
    write(packs / ".pack-lsp.toml", 'baseline = "baseline.json"\n')
    assert run("--check", "--write-baseline", "baseline.json", ".", cwd=packs).returncode == 0
    assert run("--check", ".", cwd=packs).returncode == 0
    from_root = run("--check", "packs", cwd=tmp_path)  # the repository root
    assert (from_root.returncode, from_root.stdout) == (0, "")
    # An entry added to the same line: the recorded problem is still recorded.
    pack.write_text(PACK.replace("refund]", "refund, zap]"), encoding="utf-8")
    proc = run("--check", "packs", cwd=tmp_path)
    assert proc.returncode == 1
    assert [line.split(" ")[2] for line in proc.stdout.splitlines()] == ["PP301"]
    assert "`zap`" in proc.stdout and "`refund`" not in proc.stdout
    assert "no longer occur" not in proc.stderr
    # A fixed problem is listed once, in the singular.
    pack.write_text(PACK.replace(", refund]", "]"), encoding="utf-8")
    err = run("--check", "packs", cwd=tmp_path).stderr
    assert "1 baseline entry in " in err and "no longer occurs" in err


def test_a_format_1_baseline_still_matches(tmp_path: Path) -> None:
    from pack_lsp.core.checks.analysis import analyze
    from pack_lsp.core.ide.baseline import Entry, Matcher, dumps, fingerprints, loads

    analysis = analyze(PACK, path=str(tmp_path / "a.promptpack.yaml"))
    old = fingerprints(analysis.diagnostics, analysis.lines, 1)
    assert old != fingerprints(analysis.diagnostics, analysis.lines)
    text = dumps(
        Entry("a.promptpack.yaml", d.code, fp, d.message)
        for d, fp in zip(analysis.diagnostics, old, strict=True)
    ).replace('"version": 2', '"version": 1')
    matcher = Matcher(loads(text))
    assert matcher.new(analysis.path or "", analysis.diagnostics, analysis.lines, tmp_path) == [
        False
    ] * len(analysis.diagnostics)


# ------------------------------------------------------------------ fixes

CHAIN = """\
id: demo
name: Demo
version: 1.0.0
template_engine: {version: v1, syntax: "{{variable}}"}
prompts:
  router: {id: router, name: Router, version: 1.0.0, description: Routes, system_template: Hi, tools: [billing]}
  billings: {id: billings, name: Billing, version: 1.0.0, description: Bills, system_template: Hi}
agents:
  entry: router
  members:
    router: {}
    billing: {}
"""  # noqa: E501


def test_a_safe_fix_does_not_chain_into_another(tmp_path: Path) -> None:
    """Renaming the member `billing` to `billings` leaves the router's tool `billing`
    undefined; the next analysis would offer `billings` for it, which no reported
    problem said: the router would hand off to another agent. Not applied."""
    pack = write(tmp_path / "a.promptpack.yaml", CHAIN)
    reported = run("--check", str(pack)).stdout
    assert reported.count("\n") == 1 and "did you mean `billings`?" in reported
    proc = run("--check", "--fix", str(pack))
    fixed = pack.read_text(encoding="utf-8")
    assert fixed == CHAIN.replace("    billing: {}", "    billings: {}")
    assert "tools: [billing]}" in fixed
    assert "Fixed 1 problem in 1 file" in proc.stderr
    # What is left is reported, with its own fix.
    assert " PP301 " in proc.stdout and "did you mean `billings`?" in proc.stdout


def test_unsafe_fixes_do_not_chain_either(tmp_path: Path) -> None:
    pack = write(tmp_path / "a.promptpack.yaml", CHAIN.replace("billings", "billing_desk"))
    proc = run("--check", "--fix", "--unsafe-fixes", str(pack))
    assert "tools: [billing]}" in pack.read_text(encoding="utf-8")
    assert "Fixed 1 problem in 1 file" in proc.stderr


# ------------------------------------------------------------------ advice


def test_mcp_without_the_sdk_gives_a_command_that_works(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from pack_lsp.cli import mcpserver

    def missing() -> None:
        raise ImportError("No module named 'mcp'")

    monkeypatch.setattr(mcpserver, "build_server", missing)
    assert mcpserver.main([]) == 2
    err = capsys.readouterr().err
    assert f"{sys.executable} -m pip install 'mcp>=2,<3'" in err
    assert "pack-lsp[mcp]" not in err


def test_card_note_names_both_configuration_files(tmp_path: Path) -> None:
    proc = run("--card", str(EXAMPLE))
    assert "[cards] in .pack-lsp.toml" in proc.stderr
    assert "[tool.pack-lsp.cards] in pyproject.toml" in proc.stderr


def test_configuration_typos_get_a_did_you_mean(tmp_path: Path) -> None:
    write(tmp_path / "a.promptpack.yaml", MINIMAL_PACK)
    write(tmp_path / ".pack-lsp.toml", 'profle = "spec"\n')
    proc = run("--check", ".", cwd=tmp_path)
    assert proc.returncode == 2
    assert "unknown setting `profle`; did you mean `profile`?" in proc.stderr
    assert "Extra inputs" not in proc.stderr
    write(tmp_path / ".pack-lsp.toml", 'profile = "spec\n')
    proc = run("--check", ".", cwd=tmp_path)
    assert f"{tmp_path / '.pack-lsp.toml'}:1:16: not valid TOML: " in proc.stderr


# ------------------------------------------------------------------ interrupts


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def _interrupt_when(proc: subprocess.Popen[str], ready: object) -> None:
    """Send Ctrl-C (SIGINT to the process group, as a terminal does) once
    ``ready()`` holds, waiting for it at most 60 s."""
    deadline = time.monotonic() + 60
    while not ready() and proc.poll() is None:  # type: ignore[operator]
        if time.monotonic() > deadline:
            pytest.fail("the run never reached the point to interrupt")
        time.sleep(0.005)
    os.killpg(proc.pid, signal.SIGINT)


def _start(*args: str, cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "pack_lsp", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env={**PLAIN_ENV, "PYTHONIOENCODING": "utf-8"},
    )


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs /proc (Linux)")
def test_an_interrupted_check_ends_with_one_line(tmp_path: Path) -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    for i in range(300):
        write(tmp_path / f"p{i}.promptpack.yaml", text)
    proc = _start("--check", ".", cwd=tmp_path)
    workers: list[int] = []

    def started() -> bool:
        workers[:] = _children(proc.pid)
        return bool(workers) or not hasattr(os, "sched_getaffinity")

    _interrupt_when(proc, started)
    _, err = proc.communicate(timeout=60)
    if proc.returncode == 0:
        pytest.skip("the check ended before the interrupt arrived")
    assert (proc.returncode, err) == (130, "pack-lsp: interrupted\n")
    for pid in workers:  # the workers are stopped, not left running
        status = Path(f"/proc/{pid}/status")
        assert not status.exists() or "zombie" in status.read_text()


@pytest.mark.skipif(not hasattr(os, "killpg"), reason="needs process groups")
def test_an_interrupted_fix_leaves_whole_files(tmp_path: Path) -> None:
    files = [write(tmp_path / f"p{i:03}.promptpack.yaml", BROKEN) for i in range(150)]
    fixed = BROKEN.replace("agent: {}", "agents: {}")
    proc = _start("--check", "--fix", ".", cwd=tmp_path)
    _interrupt_when(proc, lambda: files[0].read_text(encoding="utf-8") != BROKEN)
    _, err = proc.communicate(timeout=60)
    if proc.returncode != 130:
        pytest.skip("the fix ended before the interrupt arrived")
    assert err.endswith("pack-lsp: interrupted\n") and "Traceback" not in err
    assert {f.read_text(encoding="utf-8") for f in files} <= {BROKEN, fixed}
    assert sorted(p.name for p in tmp_path.iterdir()) == [f.name for f in files]


# ------------------------------------------------------------------ the arena example


def test_the_arena_example_is_clean_and_compiles() -> None:
    proc = run("--check", "examples/arena", cwd=ROOT)
    assert (proc.returncode, proc.stdout) == (0, "")
    compiled = run("--compile", "examples/arena/config.arena.yaml", cwd=ROOT)
    assert compiled.returncode == 0, compiled.stderr
    pack = json.loads(compiled.stdout)
    assert set(pack["prompts"]) == {"triage", "billing"}
    assert pack["workflow"]["entry"] == "intake"


def test_the_readme_shows_the_full_output_as_printed() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    after = readme.split("On a terminal (or with `--output-format full`)", 1)[1]
    shown = after.split("```\n", 2)[1]
    proc = run("--check", "--output-format", "full", "examples/broken.yaml", cwd=ROOT)
    assert proc.stdout == shown


# ------------------------------------------------------------------ the test command


def test_the_test_command_says_first_what_the_editor_tests_would_install() -> None:
    plan = subprocess.run(
        ["bash", "scripts/test.sh", "--plan"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={k: v for k, v in os.environ.items() if k != "PACK_LSP_EDITORS"},
    )
    assert plan.returncode == 0, plan.stderr
    lines = plan.stdout.splitlines()
    assert lines[0].startswith("== scripts/test.sh: ")
    assert "editor tests left out" in plan.stdout
    assert "apt-get" in plan.stdout and "code-server" in plan.stdout
    assert lines[-1].strip() == "To include them: PACK_LSP_EDITORS=1 bash scripts/test.sh"
    script = (ROOT / "scripts" / "install-editors.sh").read_text(encoding="utf-8")
    packages = script.split("APT_PACKAGES=(", 1)[1].split(")", 1)[0].split()
    assert all(p in plan.stdout for p in packages)
    # CI runs the same command with the editors included.
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "exec env PACK_LSP_EDITORS=1 bash scripts/test.sh" in ci
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "PACK_LSP_EDITORS=1 bash\nscripts/test.sh" in readme or (
        "PACK_LSP_EDITORS=1 bash scripts/test.sh" in readme
    )
    assert readme.count("```sh\n") == 2  # the quick start and the test command
