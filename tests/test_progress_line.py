"""``pack-lsp --check DIR`` shows a progress line on a terminal, and only there."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "support.promptpack.yaml"

pty = pytest.importorskip("pty", reason="pseudo-terminals are POSIX only")


def _folder(tmp_path: Path, files: int) -> Path:
    for n in range(files):
        shutil.copyfile(EXAMPLE, tmp_path / f"p{n}.promptpack.yaml")
    return tmp_path


def _stderr_on_a_terminal(folder: Path, **env: str) -> bytes:
    master, slave = pty.openpty()
    environ = {k: v for k, v in os.environ.items() if k != "CI"} | {"TERM": "xterm", **env}
    proc = subprocess.Popen(
        [sys.executable, "-m", "pack_lsp", "--check", str(folder)],
        stdout=subprocess.DEVNULL,
        stderr=slave,
        env=environ,
    )
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the other end is closed
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    proc.wait(60)
    return out


def test_a_terminal_sees_the_progress_then_the_summary(tmp_path: Path) -> None:
    out = _stderr_on_a_terminal(_folder(tmp_path, 25))
    assert b"\rChecked 25 / 25 files" in out
    progress, _, summary = out.rpartition(b"\r\x1b[K")  # the line is cleared
    assert progress.startswith(b"\rChecked ")
    assert summary.startswith(b"Checked 25 files:")


def test_no_progress_in_a_ci_log_nor_in_a_pipe_nor_for_a_few_files(tmp_path: Path) -> None:
    folder = _folder(tmp_path, 25)
    assert b" / 25 files" not in _stderr_on_a_terminal(folder, CI="true")
    piped = subprocess.run(
        [sys.executable, "-m", "pack_lsp", "--check", str(folder)],
        capture_output=True,
        check=False,
    )
    assert b"/ 25 files" not in piped.stderr and b"\r" not in piped.stderr
    (tmp_path / "few").mkdir()
    few = _folder(tmp_path / "few", 3)
    assert b" / 3 files" not in _stderr_on_a_terminal(few)
