"""Hostile input: every case gets a clear diagnostic or error within bounds.

Each text is generated and analysed in a fresh subprocess, which reports the CPU
time of ``analyze`` (after one warm-up analysis) and the peak resident memory of
the whole process (the interpreter and pack-lsp included). The bounds are generous
guards (2 s of CPU, 300 MB), not benchmarks; docs/reliability.md lists the measured
worst cases.
``PACK_LSP_RELIABILITY_REPORT=FILE`` appends each measurement to FILE as JSON.
"""

from __future__ import annotations

import json
import os
import resource
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from samples import MINIMAL_PACK

ROOT = Path(__file__).resolve().parents[1]
CPU_SECONDS = 2.0
PEAK_MB = 300

HEAD = (
    'id: demo\nname: Demo\nversion: 1.0.0\ntemplate_engine: {version: v1, syntax: "{{variable}}"}\n'
)


def _prompt(template: str) -> str:
    return (
        HEAD + "prompts:\n  support:\n    id: support\n    name: Support\n"
        "    version: 1.0.0\n    system_template: " + template + "\n"
    )


def _alias_bomb() -> str:
    lines = ["a: &a [x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 12):
        prev, cur = chr(96 + i), chr(97 + i)
        lines.append(f"{cur}: &{cur} [" + ", ".join([f"*{prev}"] * 9) + "]")
    return HEAD + "\n".join(lines) + "\n"


def _prompts(count: int) -> str:
    body = "".join(
        f"  p{i}:\n    id: p{i}\n    name: P\n    version: 1.0.0\n"
        f"    system_template: Hi {{{{x}}}}\n"
        for i in range(count)
    )
    return HEAD + "prompts:\n" + body


#: name → (text generator, codes of which at least one must be reported)
CASES: dict[str, tuple[Callable[[], str], set[str]]] = {
    "alias bomb": (_alias_bomb, {"PP008"}),
    "100k-deep flow sequence": (lambda: "[" * 100_000, {"PP012"}),
    "100k-deep flow mapping": (lambda: "{a: " * 100_000, {"PP012"}),
    "1k-deep flow, closed": (lambda: HEAD + "x: " + "[" * 999 + "]" * 999 + "\n", {"PP012"}),
    "5 MB line": (lambda: _prompt('"' + "word " * 1_000_000 + '"'), set()),
    "5 MB plain line": (lambda: _prompt("word " * 1_000_000), set()),
    "10k duplicate keys": (
        lambda: _prompt("Hi") + "x:\n" + "  k: 1\n" * 10_000,
        {"PP005"},
    ),
    "6k prompts": (lambda: _prompts(6_000), {"PP502"}),
    "100k unclosed {{": (lambda: _prompt('"' + "{{" * 100_000 + '"'), {"PP508"}),
    "NUL byte": (lambda: _prompt('"Hi\x00"'), {"PP001"}),
    "lone surrogate": (lambda: _prompt('"Hi\ud800"'), {"PP002"}),
    "CRLF": (lambda: MINIMAL_PACK.replace("\n", "\r\n"), set()),
    "CR": (lambda: MINIMAL_PACK.replace("\n", "\r"), set()),
    "tags": (
        lambda: MINIMAL_PACK + 'description: !!python/object/apply:os.system ["ls"]\n',
        {"PP006"},
    ),
    "5000-digit decimal": (
        lambda: _prompt("Hi") + "workflow: {version: " + "9" * 5000 + "}\n",
        {"PP103"},
    ),
    "5000-digit hex": (
        lambda: _prompt("Hi") + "workflow: {version: 0x" + "f" * 5000 + "}\n",
        {"PP103"},
    ),
    "mapping keys": (lambda: MINIMAL_PACK + "? [a, b]\n: 1\n{c: d}: 2\n", {"PP010"}),
}

#: name → (bytes generator, message fragment of the first diagnostic)
BYTE_CASES: dict[str, tuple[Callable[[], bytes], str]] = {
    "invalid UTF-8": (lambda: MINIMAL_PACK.encode() + b"description: caf\xe9\n", "byte 0xe9"),
    "UTF-16 LE with BOM": (
        lambda: "\ufeff".join(["", MINIMAL_PACK]).encode("utf-16-le"),
        "UTF-16 LE",
    ),
    "UTF-16 BE with BOM": (lambda: ("\ufeff" + MINIMAL_PACK).encode("utf-16-be"), "UTF-16 BE"),
    "UTF-32 LE with BOM": (lambda: ("\ufeff" + MINIMAL_PACK).encode("utf-32-le"), "UTF-32 LE"),
    "UTF-32 BE with BOM": (lambda: ("\ufeff" + MINIMAL_PACK).encode("utf-32-be"), "UTF-32 BE"),
    "UTF-16 LE without BOM": (lambda: MINIMAL_PACK.encode("utf-16-le"), "UTF-16 LE"),
    "UTF-32 BE without BOM": (lambda: MINIMAL_PACK.encode("utf-32-be"), "UTF-32 BE"),
}


def _peak_mb() -> float:
    """This process's peak resident memory since it started its program.

    ``ru_maxrss`` is not that on Linux: a child spawned with ``vfork`` inherits the
    high-water mark of the parent's memory (here the whole pytest process) when it
    executes, so it measured what ran before in the test session. ``VmHWM`` belongs
    to the process's own address space, made new by ``exec``.
    """
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024  # kB
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def child(name: str) -> None:
    """Run one case in this process and print its measurement as JSON."""
    from pack_lsp.core.base.source import decode
    from pack_lsp.core.checks.analysis import analyze

    if name in CASES:
        text = CASES[name][0]()
        pre = None
    else:
        text, pre = decode(BYTE_CASES[name][0]())
    # One-time costs (schema validators, lazy imports) are not the input's.
    analyze(MINIMAL_PACK, path="warm-up.promptpack.yaml")
    start = _cpu()
    analysis = analyze(text, path="hostile.promptpack.yaml", pre_diagnostics=pre)
    seconds = _cpu() - start
    first = analysis.diagnostics[0].message if analysis.diagnostics else ""
    codes = sorted({d.code for d in analysis.diagnostics})
    result = {"seconds": seconds, "peak_mb": _peak_mb(), "codes": codes, "first": first}
    print(json.dumps(result))


def measure(name: str) -> dict[str, object]:
    proc = subprocess.run(
        [sys.executable, "-c", f"import test_reliability as t; t.child({name!r})"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(["lsp", "tests"])},
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    result: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    report = os.environ.get("PACK_LSP_RELIABILITY_REPORT")
    if report:
        with open(report, "a", encoding="utf-8") as out:
            out.write(json.dumps({"case": name, **result}) + "\n")
    return result


def _within_bounds(result: dict[str, object]) -> None:
    seconds = result["seconds"]
    peak = result["peak_mb"]
    assert isinstance(seconds, float) and isinstance(peak, float)
    assert seconds < CPU_SECONDS, f"{seconds:.2f} s of CPU"
    assert peak < PEAK_MB, f"{peak:.0f} MB peak"


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_text(name: str) -> None:
    result = measure(name)
    _within_bounds(result)
    expected = CASES[name][1]
    codes = result["codes"]
    assert isinstance(codes, list)
    if expected:
        assert expected & set(codes), codes
    assert "PP000" not in codes
    assert "<unicode string>" not in str(result["first"])


@pytest.mark.parametrize("name", sorted(BYTE_CASES))
def test_hostile_bytes(name: str) -> None:
    result = measure(name)
    _within_bounds(result)
    assert "PP002" in result["codes"]  # type: ignore[operator]
    assert BYTE_CASES[name][1] in str(result["first"])


def test_nul_is_located_where_it_is() -> None:
    from pack_lsp.core.checks.analysis import analyze

    text = _prompt('"Hi\x00"')
    (diag,) = analyze(text, path="x.promptpack.yaml").diagnostics
    assert diag.span.start == text.index("\x00")
    assert "U+0000" in diag.message and "position" not in diag.message


# ------------------------------------------------------------------ the command line


def check(*args: str, cwd: Path, env: dict[str, str] | None = None) -> tuple[int, str, float]:
    """Run ``pack-lsp --check``; (exit status, stderr, wall seconds). A hang fails."""
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "pack_lsp", "--check", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
        env={**os.environ, **(env or {})},
    )
    return proc.returncode, proc.stderr, time.perf_counter() - start


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
@pytest.mark.parametrize("name", ["x.pack.json", "x.yaml"])
def test_fifo_in_checked_directory(tmp_path: Path, name: str) -> None:
    (tmp_path / "good.promptpack.yaml").write_text(MINIMAL_PACK, encoding="utf-8")
    os.mkfifo(tmp_path / name)
    status, err, _ = check(str(tmp_path), cwd=tmp_path)
    assert status == 2
    assert f"{name}: cannot read: a named pipe (FIFO), not a regular file" in err
    assert "Checked 1 file" in err


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_symlink_to_a_device(tmp_path: Path) -> None:
    (tmp_path / "zero.promptpack.yaml").symlink_to("/dev/zero")
    status, err, seconds = check(str(tmp_path), cwd=tmp_path)
    assert status == 2
    assert "zero.promptpack.yaml: cannot read: a device, not a regular file" in err
    assert seconds < 30


def test_symlink_loop(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").symlink_to(tmp_path / "b.yaml")
    (tmp_path / "b.yaml").symlink_to(tmp_path / "a.yaml")
    status, err, _ = check(str(tmp_path), cwd=tmp_path)
    assert status == 2
    assert "a.yaml: cannot read: symbolic link loop" in err
    assert "Traceback" not in err
    status, err, _ = check(str(tmp_path / "a.yaml"), cwd=tmp_path)
    assert status == 2 and "symbolic link loop" in err and "Traceback" not in err


def test_directory_named_like_a_pack(tmp_path: Path) -> None:
    (tmp_path / "x.pack.json").mkdir()
    status, err, _ = check(str(tmp_path / "x.pack.json"), cwd=tmp_path)
    assert status == 2 and "x.pack.json: a directory, not a pack file" in err
    status, err, _ = check(str(tmp_path), cwd=tmp_path)
    assert status == 2 and "x.pack.json: cannot read: a directory, not a regular file" in err


def test_fifo_named_explicitly(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "p.promptpack.yaml")
    assert stat.S_ISFIFO(os.stat(tmp_path / "p.promptpack.yaml").st_mode)
    status, err, _ = check("p.promptpack.yaml", cwd=tmp_path)
    assert status == 2 and "a named pipe (FIFO), not a regular file" in err


def test_fifty_megabyte_pack_is_refused(tmp_path: Path) -> None:
    big = tmp_path / "big.promptpack.yaml"
    with big.open("w", encoding="utf-8") as out:
        out.write(HEAD + "prompts:\n")
        chunk = "".join(
            f"  p{i}:\n    id: p{i}\n    name: Prompt\n    version: 1.0.0\n"
            f"    system_template: {'lorem ipsum ' * 30}\n"
            for i in range(1000)
        )
        for n in range(50 * 1024 * 1024 // len(chunk) + 1):
            out.write(chunk.replace("  p", f"  b{n}p"))
    status, err, seconds = check(str(big), cwd=tmp_path)
    assert status == 2
    assert "file too large (5" in err and "PACK_LSP_MAX_FILE_SIZE" in err
    assert seconds < 30
    status, err, _ = check(str(big), cwd=tmp_path, env={"PACK_LSP_MAX_FILE_SIZE": "1000"})
    assert "the limit is 1,000 bytes" in err


def test_size_limit_is_configurable(tmp_path: Path) -> None:
    from pack_lsp.core.base.source import SourceError, read_source

    path = tmp_path / "p.promptpack.yaml"
    path.write_text(MINIMAL_PACK, encoding="utf-8")
    assert read_source(path) == MINIMAL_PACK.encode()
    with pytest.raises(SourceError, match="file too large"):
        read_source(path, limit=10)
    assert read_source(path, limit=0) == MINIMAL_PACK.encode()


# ------------------------------------------------------------------------ crashes


def test_skills_path_longer_than_the_file_system_allows(tmp_path: Path) -> None:
    from pack_lsp.core.checks.analysis import analyze

    text = MINIMAL_PACK + "skills:\n  - path: " + "a" * 5000 + "\n  - path: missing\n"
    analysis = analyze(text, path=tmp_path / "p.promptpack.yaml")
    codes = [d.code for d in analysis.diagnostics]
    assert "PP000" not in codes
    assert codes.count("PP604") == 2, [d.message for d in analysis.diagnostics]


@pytest.mark.parametrize("required", ["{q: 1}", "[{q: 1}, q]", "7"])
def test_hover_and_completion_with_any_required(required: str) -> None:
    from pack_lsp.core.checks.analysis import analyze
    from pack_lsp.core.ide.completion import complete
    from pack_lsp.core.ide.hover import hover

    text = (
        HEAD + "prompts:\n  support: {id: support, name: S, version: 1.0.0, "
        "system_template: Hi, tools: [lookup]}\n"
        "tools:\n  lookup:\n    name: lookup\n    description: Look up\n    parameters:\n"
        "      type: object\n      properties: {q: {type: string}}\n"
        f"      required: {required}\n"
    )
    analysis = analyze(text, path="x.promptpack.yaml")
    at = text.index("lookup]")
    shown = hover(analysis, at + 1)
    assert shown is not None and "lookup" in shown.markdown
    items = complete(analysis, at + 2)
    assert any(item.label == "lookup" for item in items)


ARENA_CONFIG = """\
apiVersion: promptkit.altairalabs.ai/v1alpha1
kind: Arena
metadata: {name: fifo}
spec:
  prompt_configs:
    - id: support
      file: prompts/support.yaml
  providers: []
  defaults: {}
"""


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_fifo_in_an_arena_project(tmp_path: Path) -> None:
    """A FIFO next to an arena config, and one named by it, never block the scan."""
    (tmp_path / "config.arena.yaml").write_text(ARENA_CONFIG, encoding="utf-8")
    (tmp_path / "prompts").mkdir()
    os.mkfifo(tmp_path / "prompts" / "support.yaml")
    os.mkfifo(tmp_path / "notes.yaml")
    status, err, _ = check(str(tmp_path), cwd=tmp_path)
    assert status == 2, err
    assert "notes.yaml: cannot read: a named pipe (FIFO), not a regular file" in err
    assert "prompts/support.yaml: cannot read: a named pipe (FIFO), not a regular file" in err
