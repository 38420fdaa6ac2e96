"""An arena project in a real VS Code (code-server with the packaged extension, Playwright and
Debian's Chromium, offline), as its author opens it.

Opening a PromptConfig file of the project lists in the Problems panel its schema problem,
its project problem and the compiled pack's problems that come from it, each once on its line
and column, as ``pack-lsp --check`` reports the project; go to definition (F12) on a
scenario's ``task_type`` opens the prompt config's file at its ``task_type``.
"""

from __future__ import annotations

import contextlib
import re
import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_vscode import (
    CHROMIUM,
    SCREENSHOTS,
    TIMEOUT,
    problem_rows,
    running_code_server,
    wait_for,
)

from conftest import ARENA_FIXTURE, ARENA_OPENED, ARENA_SCENARIO, ARENA_TARGET, expected_problems

pytestmark = pytest.mark.editor


@pytest.fixture(scope="module")
def arena_code_server(
    vsix: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Any]]:
    base = tmp_path_factory.mktemp("code-server-arena")
    workspace = base / "helpdesk"
    shutil.copytree(ARENA_FIXTURE, workspace)
    (workspace / ".pack-lsp.toml").write_text("# pack-lsp defaults\n", encoding="utf-8")
    with running_code_server(vsix, base, workspace) as cs:
        yield cs


def quick_open(page: Any, relative: str) -> None:
    """Open a file of the workspace through Quick Open, as a user would."""
    page.keyboard.press("Control+P")
    page.locator(".quick-input-widget input").fill(relative)
    name = Path(relative).name
    page.locator(".quick-input-list .monaco-list-row", has_text=name).first.wait_for(
        timeout=TIMEOUT * 1000
    )
    page.keyboard.press("Enter")
    page.locator(".tab.active", has_text=name).wait_for(timeout=TIMEOUT * 1000)


def go_to(page: Any, line: int, column: int) -> None:
    """Put the cursor at a 1-based line and column of the active editor."""
    page.locator(".editor-group-container.active .monaco-editor .view-lines").first.click()
    page.keyboard.press("Control+G")
    page.locator(".quick-input-widget input").fill(f":{line}:{column}")
    page.keyboard.press("Enter")
    page.locator(".statusbar-item", has_text=f"Ln {line}, Col {column}").first.wait_for(
        timeout=TIMEOUT * 1000
    )


def test_vscode_arena_project(arena_code_server: dict[str, Any]) -> None:
    from playwright.sync_api import sync_playwright

    SCREENSHOTS.mkdir(exist_ok=True)
    root: Path = arena_code_server["workspace"]
    opened = root / ARENA_OPENED
    text = opened.read_text(encoding="utf-8")
    # VS Code's Problems panel lists errors, warnings and information, not hints.
    problems = [p for p in expected_problems(opened, within=root) if p.severity != "hint"]
    # Schema, project and compiled-pack problems of the file.
    assert {p.code for p in problems} >= {"PP102", "PA109", "PP301", "PP104"}
    want = sorted((p.code, p.line, p.column(text, "utf-16")) for p in problems)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1500, "height": 950})
        try:
            page.goto(arena_code_server["url"])
            page.locator(".monaco-workbench").wait_for(timeout=TIMEOUT * 2000)
            page.locator(
                ".explorer-folders-view .monaco-list-row", has_text="config.arena.yaml"
            ).first.wait_for(timeout=TIMEOUT * 1000)
            quick_open(page, ARENA_OPENED)
            page.keyboard.press("Control+Shift+M")

            def rows_found() -> list[tuple[str, int, int]]:
                found = []
                for row in problem_rows(page):
                    m = re.search(r"\b(P[AP]\d{3})\b.*\[Ln (\d+), Col (\d+)\]", row, re.S)
                    assert m, row
                    found.append((m.group(1), int(m.group(2)) - 1, int(m.group(3)) - 1))
                return sorted(found)

            with contextlib.suppress(AssertionError):  # the assertions below say what differs
                wait_for("the Problems rows", lambda: rows_found() == want)
            page.screenshot(path=str(SCREENSHOTS / "vscode-arena-problems.png"))
            rows = problem_rows(page)
            found = rows_found()
            duplicates = [k for k, n in Counter(found).items() if n > 1]
            assert not duplicates, f"listed more than once: {duplicates}\n{rows}"
            assert found == want, rows
            for problem in problems:
                assert any(
                    problem.message.replace("`", "") in row.replace("`", "") for row in rows
                ), problem

            # Go to definition from a scenario's task_type opens the prompt config.
            scenario = (root / ARENA_SCENARIO).read_text(encoding="utf-8").splitlines()
            line = next(i for i, row in enumerate(scenario) if "task_type: " in row)
            column = scenario[line].index("task_type: ") + len("task_type: ") + 2
            quick_open(page, ARENA_SCENARIO)
            go_to(page, line + 1, column + 1)
            page.keyboard.press("F12")
            target = root / ARENA_TARGET
            page.locator(".tab.active", has_text=target.name).wait_for(timeout=TIMEOUT * 1000)
            lines = target.read_text(encoding="utf-8").splitlines()
            at = next(i for i, row in enumerate(lines) if "task_type: " in row)
            col = lines[at].index("task_type: ") + len("task_type: ")
            page.locator(".statusbar-item", has_text=f"Ln {at + 1}, Col {col + 1}").first.wait_for(
                timeout=TIMEOUT * 1000
            )
            page.screenshot(path=str(SCREENSHOTS / "vscode-arena-definition.png"))
        finally:
            page.screenshot(path=str(SCREENSHOTS / "vscode-arena-last.png"))
            browser.close()
