"""Neovim 0.7 (Debian) and 0.11 (PyPI), headless, configured exactly as docs/editors.md says.

Each run opens the test pack, waits for diagnostics, asks for completion in a ``tools:`` list,
runs the documented ``:PackCards`` command, reads the inlay hints (0.11, documented block),
edits the pack and waits for the diagnostics to follow. The driver (``nvim_driver.lua``)
records what Neovim holds; the CLI is the oracle.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import (
    ARENA_OPENED,
    ARENA_SCENARIO,
    ARENA_TARGET,
    PACK_FIXTURE,
    Problem,
    doc_block,
    expected_problems,
    lua_with_test_server,
    nvim_011,
    nvim_07,
)
from workspace_packs import workspace_pack

pytestmark = pytest.mark.editor

DRIVER = Path(__file__).with_name("nvim_driver.lua")

CONFIGS: dict[str, tuple[Callable[[], str], str, str]] = {
    # name: (editor, documented block, the encoding its client negotiates)
    "0.7": (nvim_07, "neovim-0.7", "utf-16"),
    "0.11": (nvim_011, "neovim-0.11", "utf-8"),
    "0.11 with the 0.8-0.10 setup": (nvim_011, "neovim-0.8", "utf-8"),
}


def run_nvim(nvim: str, block: str, workspace: Path) -> dict[str, object]:
    pack = workspace / PACK_FIXTURE.name
    text = pack.read_text(encoding="utf-8")
    init = workspace / "init.lua"
    extras = [doc_block("neovim-cards")]
    if block != "neovim-0.7":  # LspAttach and inlay hints: Neovim 0.10 and later
        extras.append(doc_block("neovim-inlay-hints"))
    init.write_text(
        lua_with_test_server(doc_block(block)) + "\n" + "\n".join(extras),
        encoding="utf-8",
    )
    lines = text.splitlines()
    completion_line = next(i for i, line in enumerate(lines) if "lookup_ordr" in line)
    edited = workspace / "edited.promptpack.yaml"
    edited.write_text(text.replace("usr_name", "user_name"), encoding="utf-8")
    result = workspace / "result.json"
    env = {
        **os.environ,
        "RESULT_FILE": str(result),
        "EXPECTED_COUNT": str(len(expected_problems(pack))),
        "EXPECTED_AFTER_EDIT": str(len(expected_problems(edited))),
        "COMPLETION_LINE": str(completion_line),
        "COMPLETION_CHAR": str(lines[completion_line].index("lookup_ordr")),
        "XDG_CONFIG_HOME": str(workspace / "xdg-config"),
        "XDG_DATA_HOME": str(workspace / "xdg-data"),
        "XDG_STATE_HOME": str(workspace / "xdg-state"),
        "XDG_CACHE_HOME": str(workspace / "xdg-cache"),
    }
    edited.unlink()
    proc = subprocess.run(
        [
            nvim,
            "--headless",
            "-n",
            "-i",
            "NONE",
            "-u",
            str(init),
            str(pack),
            "-c",
            f"luafile {DRIVER}",
        ],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=150,
        check=False,
    )
    assert result.is_file(), f"Neovim wrote no result:\n{proc.stdout}\n{proc.stderr}"
    data: dict[str, object] = json.loads(result.read_text(encoding="utf-8"))
    assert "error" not in data, f"{data['error']}\n{proc.stderr}"
    return data


def keyed(diags: object) -> list[tuple[str, int, int]]:
    assert isinstance(diags, list)
    return sorted((d["code"], d["lnum"], d["col"]) for d in diags)


@pytest.mark.parametrize("name", list(CONFIGS))
def test_neovim_as_documented(name: str, workspace: Path) -> None:
    editor, block, encoding = CONFIGS[name]
    nvim = editor()
    data = run_nvim(nvim, block, workspace)
    pack = workspace / PACK_FIXTURE.name
    text = pack.read_text(encoding="utf-8")
    problems = expected_problems(pack)
    assert data["client_name"] == "pack_lsp"
    assert data["offset_encoding"] == encoding

    # Each problem exactly once, at the right line and byte column (Neovim stores byte
    # columns whatever the negotiated encoding, so an emoji before the fault counts 4 bytes).
    want = sorted((p.code, p.line, p.column(text, "utf-8")) for p in problems)
    seen = keyed(data["diagnostics"])
    duplicates = [k for k, n in Counter(seen).items() if n > 1]
    assert not duplicates, f"listed more than once: {duplicates}"
    assert seen == want
    emoji = next(p for p in problems if p.code == "PP502")
    assert emoji.column(text, "utf-8") != emoji.character  # the line really has emoji before

    # Completion in a `tools:` list offers the pack's tools and agents.
    labels = data["completion"]
    assert isinstance(labels, list)
    assert "lookup_order" in labels

    # The documented :PackCards command shows every agent's card.
    cards = json.loads(str(data["cards_text"]))
    assert set(cards["cards"]) == {"triage", "billing"}
    assert cards["entry"] == "triage"
    assert data["cards_filetype"] == "json"
    assert data["topology_nodes"] == 2

    # Neovim 0.11 with the documented block: inlay hints on for the buffer, and the client
    # holds the Agent Card names right after the member keys (positions in UTF-8 columns).
    if editor is nvim_011:
        assert data["inlay_enabled"] is True
        hints = data["inlay_hints"]
        assert isinstance(hints, list)
        members = {
            key: i
            for i, row in enumerate(text.splitlines())
            for key in ("triage", "billing")
            if row.startswith(f"    {key}: ")
        }
        assert sorted((h["label"], h["line"], h["character"]) for h in hints) == [
            ('(card name "Billing")', members["billing"], len("    billing")),
            ('(card name "Triage")', members["triage"], len("    triage")),
        ]

    # After fixing the typo, the fixed problem is gone and nothing stale remains.
    edited = workspace / "edited.promptpack.yaml"
    edited.write_text(text.replace("usr_name", "user_name"), encoding="utf-8")
    after = [Problem(p.code, p.line, p.character, p.message) for p in expected_problems(edited)]
    assert keyed(data["after_edit"]) == sorted(
        (p.code, p.line, p.column(edited.read_text(encoding="utf-8"), "utf-8")) for p in after
    )


ARENA_DRIVER = Path(__file__).with_name("nvim_arena_driver.lua")


@pytest.mark.parametrize("name", list(CONFIGS))
def test_neovim_arena_project(name: str, arena_workspace: Path) -> None:
    """An arena project as documented: the opened PromptConfig shows its schema, project
    and compiled-pack problems on their lines, and go-to-definition on a scenario's
    task_type opens the prompt config's file at its task_type."""
    editor, block, _ = CONFIGS[name]
    nvim = editor()
    root = arena_workspace
    opened = root / ARENA_OPENED
    problems = expected_problems(opened, within=root)
    assert {p.code for p in problems} >= {"PP102", "PA109", "PP301", "PP104"}
    init = root.parent / "init.lua"
    init.write_text(lua_with_test_server(doc_block(block)), encoding="utf-8")
    result = root.parent / "result.json"
    env = {
        **os.environ,
        "RESULT_FILE": str(result),
        "EXPECTED_COUNT": str(len(problems)),
        "SCENARIO_FILE": str(root / ARENA_SCENARIO),
        "XDG_CONFIG_HOME": str(root.parent / "xdg-config"),
        "XDG_DATA_HOME": str(root.parent / "xdg-data"),
        "XDG_STATE_HOME": str(root.parent / "xdg-state"),
        "XDG_CACHE_HOME": str(root.parent / "xdg-cache"),
    }
    cmd = [nvim, "--headless", "-n", "-i", "NONE", "-u", str(init), str(opened)]
    proc = subprocess.run(
        [*cmd, "-c", f"luafile {ARENA_DRIVER}"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=150,
        check=False,
    )
    assert result.is_file(), f"Neovim wrote no result:\n{proc.stdout}\n{proc.stderr}"
    data = json.loads(result.read_text(encoding="utf-8"))
    assert "error" not in data, f"{data['error']}\n{proc.stderr}"
    assert data["client_name"] == "pack_lsp"
    text = opened.read_text(encoding="utf-8")
    assert keyed(data["diagnostics"]) == sorted(
        (p.code, p.line, p.column(text, "utf-8")) for p in problems
    )
    target = root / ARENA_TARGET
    assert Path(data["landed_file"]).resolve() == target.resolve()
    target_lines = target.read_text(encoding="utf-8").splitlines()
    line = next(i for i, t in enumerate(target_lines) if "task_type: " in t)
    assert (data["landed_line"], data["landed_col"]) == (
        line,
        target_lines[line].index("task_type: ") + len("task_type: "),
    )


WORKSPACE_DRIVER = Path(__file__).with_name("nvim_workspace_driver.lua")


@pytest.mark.parametrize("on", [True, False], ids=["setting-on", "setting-off"])
def test_neovim_07_workspace_diagnostics(on: bool, tmp_path: Path) -> None:
    """Neovim 0.7 (a push client) as documented, with ``workspaceDiagnostics`` in
    ``init_options``: once the server has checked the workspace, ``vim.diagnostic.get``
    holds the problems of the pack that is not open for its buffer (never loaded) as the
    CLI reports them, and none for the clean pack. Off: once the workspace is scanned, the
    closed packs have no buffer and no diagnostics."""
    _workspace_diagnostics(nvim_07(), "neovim-0.7", on, tmp_path)


def test_neovim_011_workspace_diagnostics(tmp_path: Path) -> None:
    """Neovim 0.11 as documented, with ``workspaceDiagnostics`` in ``init_options``: it
    declares pull diagnostics, so the server declares workspace diagnostics, but it never
    sends ``workspace/diagnostic``; the server pushes the closed packs' problems once they
    are checked, and ``vim.diagnostic.get`` holds them, once each, as the CLI reports them."""
    _workspace_diagnostics(nvim_011(), "neovim-0.11", True, tmp_path)


def _workspace_diagnostics(nvim: str, block: str, on: bool, tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / ".pack-lsp.toml").write_text("# pack-lsp defaults\n", encoding="utf-8")
    pack = workspace / PACK_FIXTURE.name
    shutil.copy(PACK_FIXTURE, pack)
    clean = workspace / "clean.promptpack.yaml"
    clean.write_text(workspace_pack("clean"), encoding="utf-8")
    broken = workspace / "broken.promptpack.yaml"
    broken.write_text(workspace_pack("broken", tool="lookup_ordr"), encoding="utf-8")
    broken_want = sorted((p.code, p.line, p.character) for p in expected_problems(broken))
    assert "PP301" in [code for code, _, _ in broken_want]
    assert expected_problems(clean) == []
    snippet = lua_with_test_server(doc_block(block))
    if on:  # the documented place of settings: `init_options`, next to `cmd`
        snippet, n = re.subn(
            r"^(\s*)(cmd = \{.*\},)$",
            r"\1\2\n\1init_options = { packLsp = { workspaceDiagnostics = true } },",
            snippet,
            flags=re.M,
        )
        assert n == 1, snippet
    init = tmp_path / "init.lua"
    init.write_text(snippet, encoding="utf-8")
    result = tmp_path / "result.json"
    env = {
        **os.environ,
        "RESULT_FILE": str(result),
        "EXPECTED_COUNT": str(len(expected_problems(pack))),
        "CLOSED_FILES": f"{broken}\n{clean}",
        "WORKSPACE_DIAGNOSTICS": "1" if on else "0",
        "XDG_CONFIG_HOME": str(tmp_path / "xdg-config"),
        "XDG_DATA_HOME": str(tmp_path / "xdg-data"),
        "XDG_STATE_HOME": str(tmp_path / "xdg-state"),
        "XDG_CACHE_HOME": str(tmp_path / "xdg-cache"),
    }
    cmd = [nvim, "--headless", "-n", "-i", "NONE", "-u", str(init), str(pack)]
    proc = subprocess.run(
        [*cmd, "-c", f"luafile {WORKSPACE_DRIVER}"],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=150,
        check=False,
    )
    assert result.is_file(), f"Neovim wrote no result:\n{proc.stdout}\n{proc.stderr}"
    data = json.loads(result.read_text(encoding="utf-8"))
    assert "error" not in data, f"{data['error']}\n{proc.stderr}"
    text = pack.read_text(encoding="utf-8")
    assert keyed(data["opened"]) == sorted(
        (p.code, p.line, p.column(text, "utf-8")) for p in expected_problems(pack)
    )
    closed = data["closed"]
    assert keyed(closed[str(clean)]) == []
    if on:
        # The three packs counted; the opened one is left to its document's diagnostics.
        assert data["progress"]["pack-lsp: checking the workspace"] == "3 files checked"
        assert keyed(closed[str(broken)]) == broken_want
        assert data["loaded"] is False  # the report made the buffer, did not load the file
    else:
        assert "pack-lsp: checking the workspace" not in data["progress"]
        assert data["buffers"] == {str(broken): False, str(clean): False}
