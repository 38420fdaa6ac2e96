"""The `pack-lsp --check` contract: output formats, discovery and exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pack_lsp import __version__
from samples import MINIMAL_PACK

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "support.promptpack.yaml"

GOOD = MINIMAL_PACK


def run(
    *args: str, cwd: Path | None = None, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pack_lsp", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        input=stdin,
        timeout=120,
        env={**os.environ, "PYTHONIOENCODING": "utf-8", **(env or {})},
    )


def test_version() -> None:
    proc = run("--version")
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"pack-lsp {__version__}"


def test_bundled_example_is_clean() -> None:
    proc = run("--check", str(EXAMPLE))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout == ""


def test_text_format_is_one_based(tmp_path: Path) -> None:
    pack = tmp_path / "a.promptpack.yaml"
    pack.write_text(GOOD.replace("name: Demo", "name: Demo\nagent: {}"), encoding="utf-8")
    proc = run("--check", str(pack))
    assert proc.returncode == 1
    assert proc.stdout.splitlines() == [
        f"{pack}:3:1: error PP102 Unknown property `agent` in the pack root; did you mean `agents`?"
    ]


def test_json_format_contract(tmp_path: Path) -> None:
    pack = tmp_path / "emoji.promptpack.yaml"
    # The emoji is one code point: the bad value starts at character 13 (0-based).
    pack.write_text(
        GOOD.replace("system_template: Hi}", "system_template: Hi, tools: [t]}")
        + 'tools:\n  t: {name: "😀 x", description: d}\n',
        encoding="utf-8",
    )
    proc = run("--check", "--format", "json", str(pack))
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    assert set(doc) == {"files", "summary"}
    assert doc["summary"] == {"files": 1, "errors": 1, "warnings": 0, "information": 0, "hints": 0}
    (entry,) = doc["files"]
    assert entry["path"] == str(pack)
    (diag,) = entry["diagnostics"]
    assert diag == {
        "range": {"start": {"line": 7, "character": 12}, "end": {"line": 7, "character": 17}},
        "severity": "error",
        "code": "PP105",
        "message": diag["message"],
        "source": "pack-lsp",
        "related": [],
    }
    assert "letters, digits and underscores" in diag["message"]


def test_json_related_locations(tmp_path: Path) -> None:
    pack = tmp_path / "dup.promptpack.yaml"
    tools = "tools:\n  t: {name: t, description: a}\n  t: {name: t, description: b}\n"
    pack.write_text(GOOD + tools, encoding="utf-8")
    doc = json.loads(run("--check", "--format", "json", str(pack)).stdout)
    diags = [d for d in doc["files"][0]["diagnostics"] if d["code"] == "PP005"]
    assert len(diags) == 2
    assert diags[1]["related"] == [
        {
            "path": str(pack),
            "range": {"start": {"line": 7, "character": 2}, "end": {"line": 7, "character": 3}},
            "message": "`t` first defined here",
        }
    ]


def test_warnings_pass_unless_strict(tmp_path: Path) -> None:
    pack = tmp_path / "w.promptpack.yaml"
    pack.write_text(GOOD, encoding="utf-8")
    cfg = tmp_path / ".pack-lsp.toml"
    cfg.write_text('[severity]\nPP102 = "warning"\n', encoding="utf-8")
    pack.write_text(GOOD + "agent: {}\n", encoding="utf-8")
    proc = run("--check", str(pack))
    assert proc.returncode == 0
    assert ": warning PP102 " in proc.stdout
    assert run("--check", "--strict", str(pack)).returncode == 1


def test_missing_path_exits_2(tmp_path: Path) -> None:
    proc = run("--check", str(tmp_path / "nope.yaml"))
    assert proc.returncode == 2
    assert "no such file or directory" in proc.stderr


def test_unreadable_path_exits_2(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root can read any file")
    pack = tmp_path / "secret.promptpack.yaml"
    pack.write_text(GOOD, encoding="utf-8")
    pack.chmod(0)
    proc = run("--check", str(pack))
    assert proc.returncode == 2
    assert "cannot read" in proc.stderr


def test_unreadable_directory_entry_exits_2(tmp_path: Path) -> None:
    # A directory given as a file path that cannot be read as a pack: a FIFO.
    fifo = tmp_path / "pipe.promptpack.yaml"
    os.mkfifo(fifo)
    proc = run("--check", str(fifo))
    assert proc.returncode == 2
    assert "not a regular file" in proc.stderr


def test_usage_error_exits_2() -> None:
    proc = run("--check", "x", "--format", "xml")
    assert proc.returncode == 2
    assert "invalid choice" in proc.stderr


def test_directory_discovery(tmp_path: Path) -> None:
    (tmp_path / "a.promptpack.yaml").write_text(GOOD, encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "promptpack.yml").write_text(GOOD, encoding="utf-8")
    (tmp_path / "sub" / "b.pack.json").write_text(
        json.dumps(
            {
                "id": "b",
                "name": "B",
                "version": "1.0.0",
                "template_engine": {"version": "v1", "syntax": "{{variable}}"},
                "prompts": {
                    "p": {"id": "p", "name": "P", "version": "1.0.0", "system_template": "Hi"}
                },
            }
        ),
        encoding="utf-8",
    )
    (tmp_path / "sub" / "sniffed.yaml").write_text(GOOD, encoding="utf-8")
    (tmp_path / "sub" / "schema-only.json").write_text(
        '{"$schema": "https://promptpack.org/schema/latest/promptpack.schema.json"}',
        encoding="utf-8",
    )
    (tmp_path / "other.yaml").write_text("kind: Deployment\nspec: {}\n", encoding="utf-8")
    (tmp_path / "readme.txt").write_text(GOOD, encoding="utf-8")
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / "x.promptpack.yaml").write_text("broken: [", encoding="utf-8")
    doc = json.loads(run("--check", "--format", "json", str(tmp_path)).stdout)
    names = sorted(Path(f["path"]).name for f in doc["files"])
    assert names == [
        "a.promptpack.yaml",
        "b.pack.json",
        "promptpack.yml",
        "schema-only.json",
        "sniffed.yaml",
    ]
    assert doc["summary"]["files"] == 5


def test_virtual_environments_are_skipped_whatever_their_name(tmp_path: Path) -> None:
    """A folder with a ``pyvenv.cfg`` is a virtual environment (``venv``, virtualenv,
    tox, nox): the packs its installed packages ship are not the project's."""
    for folder in ("myenv", ".tox/py311", "env/lib/python3.12/site-packages/pkg"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "myenv" / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")
    (tmp_path / "env" / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")
    (tmp_path / "myenv" / "vendored.promptpack.yaml").write_text("broken: [", encoding="utf-8")
    (tmp_path / ".tox" / "py311" / "pyvenv.cfg").write_text("", encoding="utf-8")
    (tmp_path / ".tox" / "py311" / "x.promptpack.yaml").write_text("broken: [", encoding="utf-8")
    (tmp_path / "env" / "lib" / "python3.12" / "site-packages" / "pkg" / "x.pack.json").write_text(
        "{", encoding="utf-8"
    )
    # The same folder without `pyvenv.cfg` is an ordinary folder: searched.
    (tmp_path / "myproject").mkdir()
    (tmp_path / "myproject" / "a.promptpack.yaml").write_text(GOOD, encoding="utf-8")
    proc = run("--check", "--format", "json", str(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [f["path"] for f in json.loads(proc.stdout)["files"]] == [
        str(tmp_path / "myproject" / "a.promptpack.yaml")
    ]
    # Named as a PATH, a virtual environment is searched: it was asked for.
    proc = run("--check", str(tmp_path / "myenv"))
    assert proc.returncode == 1 and "vendored.promptpack.yaml" in proc.stdout


def test_explicit_file_is_checked_whatever_its_name(tmp_path: Path) -> None:
    pack = tmp_path / "anything.txt"
    pack.write_text("id: demo\n", encoding="utf-8")
    proc = run("--check", str(pack))
    assert proc.returncode == 1
    assert "PP101" in proc.stdout


def test_bad_config_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / ".pack-lsp.toml").write_text('profile = "nonsense"\n', encoding="utf-8")
    pack = tmp_path / "a.promptpack.yaml"
    pack.write_text(GOOD, encoding="utf-8")
    proc = run("--check", str(pack))
    assert proc.returncode == 2
    assert "invalid pack-lsp configuration" in proc.stderr
    assert "profile" in proc.stderr


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        (
            ".pack-lsp.toml",
            'select = ["XX9"]\n',
            "select: unknown code `XX9` (codes begin with `PA`, `PK`, `PM`, `PP` or `PT`)",
        ),
        (
            ".pack-lsp.toml",
            'ignore = ["PP3O1"]\n',
            "ignore: unknown code `PP3O1` (did you mean `PP301`?)",
        ),
        (
            ".pack-lsp.toml",
            '[severity]\nPP3O7 = "error"\n',
            "severity: unknown code `PP3O7` (did you mean `PP307`?)",
        ),
        (
            "pyproject.toml",
            '[tool.pack-lsp]\nignore = ["PP3O1"]\n',
            "ignore: unknown code `PP3O1` (did you mean `PP301`?)",
        ),
    ],
)
def test_an_unknown_code_in_the_configuration_exits_2(
    name: str, text: str, message: str, tmp_path: Path
) -> None:
    """A typo'd code would silently turn rules off: it is refused, as on the command line."""
    (tmp_path / name).write_text(text, encoding="utf-8")
    for pack in ("a.promptpack.yaml", "b.promptpack.yaml"):
        (tmp_path / pack).write_text(GOOD, encoding="utf-8")
    proc = run("--check", str(tmp_path))
    assert proc.returncode == 2
    expected = f"pack-lsp: error: invalid pack-lsp configuration in {tmp_path / name}: {message}\n"
    # Named once, though each file below the configuration file reports it.
    assert proc.stderr.count("pack-lsp: error:") == 1
    assert proc.stderr.startswith(expected)


def test_an_unknown_code_in_the_configuration_is_reported_for_standard_input(
    tmp_path: Path,
) -> None:
    (tmp_path / ".pack-lsp.toml").write_text('select = ["PP1", "XX9"]\n', encoding="utf-8")
    proc = run("--check", "-", cwd=tmp_path, stdin=GOOD)
    assert proc.returncode == 2
    assert "select: unknown code `XX9`" in proc.stderr


NOTHING_FOUND = "no PromptPack file or agent-extension manifest found"


def test_a_directory_with_nothing_to_check_exits_2(tmp_path: Path) -> None:
    """A wrong path in a CI job must not pass having checked nothing."""
    (tmp_path / "empty").mkdir()
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "notes.yaml").write_text("title: notes\n", encoding="utf-8")
    (tmp_path / "packs").mkdir()
    (tmp_path / "packs" / "a.promptpack.yaml").write_text(GOOD + "agent: {}\n", encoding="utf-8")
    proc = run("--check", "empty/", "packs", "docs", cwd=tmp_path)
    assert proc.returncode == 2
    # The packs found are still checked and reported.
    assert proc.stdout.startswith("packs/a.promptpack.yaml:") and " PP102 " in proc.stdout
    errors = [line for line in proc.stderr.splitlines() if line.startswith("pack-lsp: error:")]
    assert errors == [
        f"pack-lsp: error: {name}: {NOTHING_FOUND} (files are recognised by their name, such "
        "as *.promptpack.yaml, *.pack.json or manifest.yaml, or by their content; see the "
        "README); --allow-empty accepts an empty result"
        for name in ("empty/", "docs")
    ]
    assert proc.stderr.endswith(
        "Checked 1 file: 1 error, 0 warnings, 0 information, 0 hints\n"
        "1 problem fixable with `--fix`\n"
    )


def test_an_exclusion_that_leaves_nothing_is_named(tmp_path: Path) -> None:
    (tmp_path / "a.promptpack.yaml").write_text(GOOD, encoding="utf-8")
    (tmp_path / "b.promptpack.yaml").write_text(GOOD, encoding="utf-8")
    (tmp_path / ".pack-lsp.toml").write_text('exclude = ["a.*"]\n', encoding="utf-8")
    proc = run("--check", ".", "--exclude", "b.*", cwd=tmp_path)
    assert proc.returncode == 2
    assert (
        f".: {NOTHING_FOUND} (the exclude patterns `a.*`, `b.*` leave out the 2 files found)"
        in proc.stderr
    )


def test_an_empty_result_can_be_allowed(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    proc = run("--check", "--allow-empty", "empty", cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (0, "")
    assert proc.stderr == "Checked 0 files: 0 errors, 0 warnings, 0 information, 0 hints\n"
    # The configuration of the directory may allow it too.
    (tmp_path / "empty" / ".pack-lsp.toml").write_text("allow-empty = true\n", encoding="utf-8")
    assert run("--check", "empty", cwd=tmp_path).returncode == 0
    (tmp_path / "empty" / ".pack-lsp.toml").write_text("allow-empty = false\n", encoding="utf-8")
    assert run("--check", "empty", cwd=tmp_path).returncode == 2
    assert "--allow-empty" in run("--help").stdout


def test_standard_input_is_never_empty(tmp_path: Path) -> None:
    proc = run("--check", "-", cwd=tmp_path, stdin="")
    assert NOTHING_FOUND not in proc.stderr
    assert "Checked 1 file" in proc.stderr


def test_a_path_given_twice_is_checked_once(tmp_path: Path) -> None:
    (tmp_path / "packs").mkdir()
    pack = tmp_path / "packs" / "a.promptpack.yaml"
    pack.write_text(GOOD + "agent: {}\n", encoding="utf-8")
    for paths in (["packs", "packs"], ["packs", "packs/a.promptpack.yaml"], [str(pack)] * 2):
        proc = run("--check", *paths, cwd=tmp_path)
        assert proc.returncode == 1, paths
        assert proc.stdout.count(" PP102 ") == 1, paths
        assert NOTHING_FOUND not in proc.stderr


@pytest.mark.parametrize("value", ["abc", "1.5MB", "-1", "10M", "1 MB extra"])
def test_a_file_size_limit_that_is_not_a_size_exits_2(value: str, tmp_path: Path) -> None:
    pack = tmp_path / "a.promptpack.yaml"
    pack.write_text(GOOD, encoding="utf-8")
    proc = run("--check", str(pack), env={"PACK_LSP_MAX_FILE_SIZE": value})
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (
        f"pack-lsp: error: PACK_LSP_MAX_FILE_SIZE: `{value}` is not a size: give a whole "
        "number of bytes (1048576), or a whole number with a unit: KB, MB, GB (powers of "
        "1000) or KiB, MiB, GiB (powers of 1024); 0 means no limit\n"
    )


@pytest.mark.parametrize(
    ("value", "limit"),
    [
        ("1024", "1,024 bytes"),
        ("1KiB", "1,024 bytes"),
        ("1 kb", "1,000 bytes"),
        ("1MB", "1,000,000 bytes"),
        ("1 MiB", "1,048,576 bytes"),
        ("2 mib", None),
        ("0", None),
        ("", None),
    ],
)
def test_the_file_size_limit_takes_bytes_or_a_unit(
    value: str, limit: str | None, tmp_path: Path
) -> None:
    pack = tmp_path / "a.promptpack.yaml"
    pack.write_text(GOOD + "# padding\n" * 110_000, encoding="utf-8")  # 1,100,000+ bytes
    size = pack.stat().st_size
    proc = run("--check", str(pack), env={"PACK_LSP_MAX_FILE_SIZE": value})
    if limit is None:  # larger than the file, or no limit
        assert proc.returncode == 0, proc.stderr
    else:
        assert proc.returncode == 2
        assert (
            f"{pack}: cannot read: file too large ({size:,} bytes; the limit is {limit}, "
            "set PACK_LSP_MAX_FILE_SIZE to change it)"
        ) in proc.stderr


def test_directory_output_is_the_serial_output(tmp_path: Path) -> None:
    """Files of a directory may be checked in parallel processes: the output is still
    that of checking each file alone, one after the other, in path order."""
    sources = sorted((ROOT / "tests" / "golden").rglob("*.yaml"))[:6]
    assert len(sources) == 6
    for i, source in enumerate(sources):
        (tmp_path / f"{i}-{source.stem}.promptpack.yaml").write_bytes(source.read_bytes())
    files = sorted(tmp_path.iterdir())
    whole = run("--check", str(tmp_path))
    alone = [run("--check", str(f)) for f in files]
    assert whole.stdout == "".join(r.stdout for r in alone)
    assert whole.stdout.count("\n") > len(files)  # the files do have diagnostics
    assert whole.returncode == max(r.returncode for r in alone)


def test_a_check_called_from_python_leaves_the_collector_as_it_was(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only the program freezes its results out of the collector's reach; a caller in
    Python keeps its objects collectable and its collector on."""
    import gc

    from pack_lsp.cli import main

    pack = tmp_path / "a.promptpack.yaml"
    pack.write_text(MINIMAL_PACK, encoding="utf-8")
    frozen = gc.get_freeze_count()
    assert gc.isenabled()
    assert main(["--check", str(pack), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["summary"]["files"] == 1
    assert gc.get_freeze_count() == frozen
    assert gc.isenabled()
