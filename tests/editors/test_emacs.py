"""Emacs 28 + eglot (Debian packages) in batch mode, configured as docs/editors.md says.

Flymake must hold each problem of the test pack once, at the right line and column (columns
are characters in Emacs: the emoji before the fault count one each), and completion at point in
a ``tools:`` list must offer the pack's tools.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from conftest import (
    ARENA_OPENED,
    ARENA_SCENARIO,
    ARENA_TARGET,
    PACK_FIXTURE,
    doc_block,
    elisp_with_test_server,
    emacs,
    expected_problems,
)

pytestmark = pytest.mark.editor

DRIVER = Path(__file__).with_name("emacs_driver.el")


def test_emacs_eglot_as_documented(workspace: Path) -> None:
    exe = emacs()
    pack = workspace / PACK_FIXTURE.name
    text = pack.read_text(encoding="utf-8")
    lines = text.splitlines()
    problems = expected_problems(pack)
    init = workspace / "init.el"
    init.write_text(elisp_with_test_server(doc_block("emacs-eglot")), encoding="utf-8")
    completion_line = next(i for i, line in enumerate(lines) if "lookup_ordr" in line)
    result = workspace / "result.json"
    env = {
        **os.environ,
        "HOME": str(workspace),
        "INIT_FILE": str(init),
        "PACK_FILE": str(pack),
        "RESULT_FILE": str(result),
        "EXPECTED_COUNT": str(len(problems)),
        "COMPLETION_LINE": str(completion_line + 1),
        "COMPLETION_COLUMN": str(lines[completion_line].index("lookup_ordr") + len("lookup_")),
    }
    proc = subprocess.run(
        [exe, "--batch", "-Q", "-l", str(DRIVER)],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=150,
        check=False,
    )
    assert result.is_file(), f"Emacs wrote no result:\n{proc.stdout}\n{proc.stderr}"
    data = json.loads(result.read_text(encoding="utf-8"))
    assert "error" not in data, f"{data['error']}\n{proc.stderr[-3000:]}"
    assert data["major_mode"] == "yaml-mode"
    assert data["server"] == "pack-lsp"

    seen = sorted((d["line"], d["character"]) for d in data["diagnostics"])
    duplicates = [k for k, n in Counter(seen).items() if n > 1]
    assert not duplicates, f"listed more than once: {duplicates}"
    assert seen == sorted((p.line, p.character) for p in problems)
    by_place = {(d["line"], d["character"]): d["text"] for d in data["diagnostics"]}
    for p in problems:
        assert p.message in by_place[(p.line, p.character)]
    emoji = next(p for p in problems if p.code == "PP502")
    assert lines[emoji.line][: emoji.character].count("😀") == 1  # a column past the emoji

    assert "lookup_order" in data["completion"]


ARENA_DRIVER = Path(__file__).with_name("emacs_arena_driver.el")


def test_emacs_eglot_arena_project(arena_workspace: Path) -> None:
    """An arena project as documented: Flymake holds the opened PromptConfig's schema,
    project and compiled-pack problems on their lines, and ``xref-find-definitions`` on a
    scenario's task_type opens the prompt config's file at its task_type."""
    exe = emacs()
    root = arena_workspace
    # No repository: eglot's workspace is the opened file's folder, below the arena config,
    # and the server finds the project from the file.
    opened = root / ARENA_OPENED
    problems = expected_problems(opened, within=root)
    assert {p.code for p in problems} >= {"PP102", "PA109", "PP301", "PP104"}
    init = root.parent / "init.el"
    init.write_text(elisp_with_test_server(doc_block("emacs-eglot")), encoding="utf-8")
    result = root.parent / "result.json"
    env = {
        **os.environ,
        "HOME": str(root.parent),
        "INIT_FILE": str(init),
        "OPENED_FILE": str(opened),
        "SCENARIO_FILE": str(root / ARENA_SCENARIO),
        "RESULT_FILE": str(result),
        "EXPECTED_COUNT": str(len(problems)),
    }
    proc = subprocess.run(
        [exe, "--batch", "-Q", "-l", str(ARENA_DRIVER)],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=150,
        check=False,
    )
    assert result.is_file(), f"Emacs wrote no result:\n{proc.stdout}\n{proc.stderr}"
    data = json.loads(result.read_text(encoding="utf-8"))
    assert "error" not in data, f"{data['error']}\n{proc.stderr[-3000:]}"
    seen = sorted((d["line"], d["character"]) for d in data["diagnostics"])
    assert seen == sorted((p.line, p.character) for p in problems)
    by_place = {(d["line"], d["character"]): d["text"] for d in data["diagnostics"]}
    for p in problems:
        assert p.message in by_place[(p.line, p.character)]
    target = root / ARENA_TARGET
    assert Path(data["landed_file"]).resolve() == target.resolve()
    lines = target.read_text(encoding="utf-8").splitlines()
    line = next(i for i, t in enumerate(lines) if "task_type: " in t)
    assert (data["landed_line"], data["landed_character"]) == (
        line,
        lines[line].index("task_type: ") + len("task_type: "),
    )
