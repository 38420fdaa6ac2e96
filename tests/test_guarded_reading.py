"""Every way pack-lsp reads a file refuses what is not a regular file of a sane size.

A repository a user opens or checks may hold a symbolic link to ``/dev/zero``, a
FIFO, a link loop, a directory or a huge file where a pack, a baseline, a compare
input or an arena file is expected. Each entry point below meets each of them and
must answer with one clear line (exit status 2 on the command line, a tool error in
MCP, a message in the server), never a traceback, never a hang, never a read that
exhausts memory (the one guarded reader, ``core/base/source.py``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from samples import MINIMAL_PACK

TIMEOUT = 60
#: The size limit the oversized file is over (``PACK_LSP_MAX_FILE_SIZE``).
LIMIT = "2000"
#: What is said of each kind of hostile path.
KINDS = {
    "zero": "a device, not a regular file",
    "fifo": "a named pipe (FIFO), not a regular file",
    "loop": "symbolic link loop",
    "directory": "a directory, not a regular file",
    "oversized": "file too large",
}

pytestmark = pytest.mark.skipif(
    not (hasattr(os, "mkfifo") and Path("/dev/zero").exists()),
    reason="needs FIFOs and /dev/zero (a POSIX system)",
)


def hostile(folder: Path, kind: str, name: str = "bad.promptpack.yaml") -> Path:
    """A path named ``name`` in ``folder`` that is the hostile ``kind``."""
    path = folder / name
    if kind == "zero":
        path.symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "loop":
        other = folder / f"loop-{name}"
        path.symlink_to(other)
        other.symlink_to(path)
    elif kind == "directory":
        path.mkdir()
    else:
        path.write_text(MINIMAL_PACK + "# " + "x" * 4000 + "\n", encoding="utf-8")
    return path


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pack_lsp", *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        cwd=cwd,
        env={**os.environ, "PACK_LSP_MAX_FILE_SIZE": LIMIT},
    )


def _arena(folder: Path, bad: Path) -> None:
    (folder / "config.arena.yaml").write_text(
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: Arena\nmetadata: {name: a}\n"
        f"spec:\n  prompt_configs:\n    - id: support\n      file: {bad.name}\n",
        encoding="utf-8",
    )


#: name → (arguments given the hostile path and a good pack, set-up of the folder).
MODES: dict[str, tuple[Callable[[str, str], list[str]], Callable[[Path, Path], None] | None]] = {
    "--check": (lambda bad, good: ["--check", bad], None),
    "--card": (lambda bad, good: ["--card", bad], None),
    "--governance": (lambda bad, good: ["--governance", bad], None),
    "--topology": (lambda bad, good: ["--topology", bad], None),
    "--render": (lambda bad, good: ["--render", bad, "--prompt", "support"], None),
    "--compare BAD GOOD": (lambda bad, good: ["--compare", bad, good], None),
    "--compare GOOD BAD": (lambda bad, good: ["--compare", good, bad], None),
    "--baseline": (lambda bad, good: ["--check", good, "--baseline", bad], None),
    "configured baseline": (
        lambda bad, good: ["--check", good],
        lambda folder, bad: (folder / ".pack-lsp.toml").write_text(
            f'baseline = "{bad.name}"\n', encoding="utf-8"
        ),
    ),
    "arena file:": (lambda bad, good: ["--check", "config.arena.yaml"], _arena),
    "--compile": (lambda bad, good: ["--compile", "config.arena.yaml"], _arena),
}


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("mode", sorted(MODES))
def test_command_line(tmp_path: Path, mode: str, kind: str) -> None:
    if kind == "directory" and mode in ("--topology", "--compare BAD GOOD"):
        pytest.skip(f"{mode} takes a directory (manifests, a git revision): not hostile")
    args, setup = MODES[mode]
    good = tmp_path / "good.promptpack.yaml"
    good.write_text(MINIMAL_PACK, encoding="utf-8")
    bad = hostile(tmp_path, kind)
    if setup is not None:
        setup(tmp_path, bad)
    done = run(*args(bad.name, good.name), cwd=tmp_path)
    said = done.stdout + done.stderr
    assert "Traceback" not in said, said
    expected = KINDS[kind]
    if mode == "--check" and kind == "directory":
        expected = "a directory, not a pack file"
    arena = mode in ("arena file:", "--compile")
    if mode == "configured baseline" and kind == "zero":
        # The link leads out of the repository: not even looked at.
        assert done.returncode == 2 and "outside the project's root" in said, said
        return
    if arena and kind == "zero":
        # The link leads out of the repository: not even looked at (PA120).
        assert "PA120" in said and "outside the project's root" in said, said
        return
    assert expected in said, said
    if arena:
        # A diagnostic of the arena config (PA101, an error), as for a missing file.
        assert done.returncode == 1 and "PA101" in said, said
    else:
        assert done.returncode == 2, (done.returncode, said)


def _in_time(work: Callable[[], Any]) -> Any:
    """``work()`` in a thread, failing the test (instead of hanging it) after TIMEOUT."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(work).result(timeout=TIMEOUT)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_server_baseline(tmp_path: Path, kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The editor reads the configured baseline: a message, never a hang or a read
    of /dev/zero on the event loop."""
    from pack_lsp.core.ide.baseline import BaselineError
    from pack_lsp.server import baseline

    monkeypatch.setenv("PACK_LSP_MAX_FILE_SIZE", LIMIT)
    bad = hostile(tmp_path, kind)
    found = _in_time(lambda: baseline._entries(bad))
    assert isinstance(found, BaselineError) and KINDS[kind] in str(found), found


def _mcp_calls() -> dict[str, Callable[[str], Any]]:
    from pack_lsp.cli import mcpserver

    return {
        "check": lambda p: mcpserver.check(path=p),
        "fix": lambda p: mcpserver.fix(path=p),
        "cards": lambda p: mcpserver.cards(path=p),
        "topology": lambda p: mcpserver.topology(path=p),
        "render_prompt": lambda p: mcpserver.render_prompt("support", path=p),
        "compare base_path": lambda p: mcpserver.compare(base_path=p, head_text=MINIMAL_PACK),
        "compare head_path": lambda p: mcpserver.compare(base_text=MINIMAL_PACK, head_path=p),
    }


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize(
    "tool",
    [
        "check",
        "fix",
        "cards",
        "topology",
        "render_prompt",
        "compare base_path",
        "compare head_path",
    ],
)
def test_mcp_tools(tmp_path: Path, kind: str, tool: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each MCP tool taking a path refuses it with one sentence (the ``OSError`` or
    ``ValueError`` its wrapper turns into the tool's error)."""
    monkeypatch.setenv("PACK_LSP_MAX_FILE_SIZE", LIMIT)
    monkeypatch.chdir(tmp_path)  # the server's root when the client declares none
    bad = hostile(tmp_path, kind)
    call = _mcp_calls()[tool]
    with pytest.raises((OSError, ValueError)) as raised:
        _in_time(lambda: call(str(bad)))
    said = raised.value.strerror if isinstance(raised.value, OSError) else str(raised.value)
    if kind == "zero":  # the link leads out of the folder: refused before any read
        assert "outside the folders this server works in" in str(said)
    else:
        assert KINDS[kind] in str(said), said
