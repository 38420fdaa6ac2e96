"""A real VS Code (code-server 4.100.3 = VS Code 1.100.3) with the packaged extension, driven
through its web UI by Playwright and Debian's Chromium, everything offline.

Asserted from what the workbench shows: the Problems panel rows (code, message, ``[Ln, Col]``,
each problem once, the column right after emoji), the code lenses, the
server version in the status bar, the Agent Cards preview, the topology webview (non-blank,
node labels, a click opens the prompt), the call hierarchy view, the inlay hints and the
rendered-prompt document. Screenshots go to ``tests/editors/screenshots/``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import time
import urllib.request
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from conftest import HERE, PACK_FIXTURE, SERVER_ARGV, TOOLS, expected_problems, require
from pack_lsp import __version__

pytestmark = pytest.mark.editor

SCREENSHOTS = HERE / "screenshots"
CODE_SERVER = TOOLS / "code-server" / "node_modules" / ".bin" / "code-server"
CHROMIUM = "/usr/bin/chromium"
TIMEOUT = 60.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_for(what: str, predicate: Callable[[], Any], timeout: float = TIMEOUT) -> Any:
    """Poll ``predicate`` until it returns something truthy; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        last = predicate()
        if last:
            return last
        time.sleep(0.2)  # polling interval of a condition wait, not a fixed delay
    raise AssertionError(f"timed out waiting for {what} (last: {last!r})")


@contextlib.contextmanager
def running_code_server(
    vsix: Path, base: Path, workspace: Path, extras: Sequence[Path] = ()
) -> Iterator[dict[str, Any]]:
    """code-server with the packaged extension (and the ``extras`` extensions) and a fresh
    profile in ``base``, opened on ``workspace``; yields its URL (the folder opened), the
    workspace and the log folder."""
    exe = require(str(CODE_SERVER), "code-server")
    require(CHROMIUM if Path(CHROMIUM).exists() else None, "Chromium (Debian)")
    try:
        import playwright  # noqa: F401
    except ImportError:
        require(None, "playwright (Python)")
    data, extensions = base / "data", base / "extensions"
    (data / "User").mkdir(parents=True)
    (data / "User" / "settings.json").write_text(
        json.dumps(
            {
                "packLsp.server.command": SERVER_ARGV,
                "security.workspace.trust.enabled": False,
                "workbench.startupEditor": "none",
                "workbench.tips.enabled": False,
                "telemetry.telemetryLevel": "off",
                "extensions.autoCheckUpdates": False,
                "extensions.autoUpdate": False,
                "update.mode": "none",
                "editor.codeLens": True,
                "editor.minimap.enabled": False,
                "workbench.colorTheme": "Default Dark Modern",
            }
        ),
        encoding="utf-8",
    )
    port = free_port()
    config = base / "config.yaml"
    config.write_text(f"bind-addr: 127.0.0.1:{port}\nauth: none\ncert: false\n", encoding="utf-8")
    common = [exe, "--config", str(config), "--user-data-dir", str(data)]
    common += ["--extensions-dir", str(extensions)]
    env = {**os.environ, "HOME": str(base)}
    installs = [arg for ext in (vsix, *extras) for arg in ("--install-extension", str(ext))]
    install = subprocess.run(
        [*common, *installs],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
        check=False,
    )
    assert install.returncode == 0, install.stdout + install.stderr
    log = (base / "code-server.log").open("w")
    proc = subprocess.Popen(
        [
            *common,
            "--auth",
            "none",
            "--bind-addr",
            f"127.0.0.1:{port}",
            "--disable-telemetry",
            "--disable-update-check",
            "--disable-workspace-trust",
            str(workspace),
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
    )
    url = f"http://127.0.0.1:{port}/"

    def up() -> bool:
        try:
            with urllib.request.urlopen(url + "healthz", timeout=2) as r:
                return bool(r.status == 200)
        except OSError:
            return proc.poll() is not None  # ends the wait at once when the process died

    try:
        wait_for("code-server to listen", up)
        assert proc.poll() is None, (base / "code-server.log").read_text()
        yield {"url": f"{url}?folder={workspace}", "workspace": workspace, "log": base}
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@pytest.fixture(scope="module")
def code_server(vsix: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    base = tmp_path_factory.mktemp("code-server")
    workspace = base / "workspace"
    workspace.mkdir()
    shutil.copy(PACK_FIXTURE, workspace / PACK_FIXTURE.name)
    (workspace / ".pack-lsp.toml").write_text("# pack-lsp defaults\n", encoding="utf-8")
    with running_code_server(vsix, base, workspace) as cs:
        yield cs


def test_vscode_workbench(code_server: dict[str, Any]) -> None:
    from playwright.sync_api import sync_playwright

    SCREENSHOTS.mkdir(exist_ok=True)
    workspace: Path = code_server["workspace"]
    pack = workspace / PACK_FIXTURE.name
    text = pack.read_text(encoding="utf-8")
    # VS Code's Problems panel lists errors, warnings and information, not hints.
    problems = [p for p in expected_problems(pack) if p.severity != "hint"]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1500, "height": 950})
        try:
            run_workbench(page, code_server, pack, text, problems)
        finally:
            page.screenshot(path=str(SCREENSHOTS / "vscode-last.png"))
            browser.close()


def palette(page: Any, command: str) -> None:
    page.keyboard.press("F1")
    box = page.locator(".quick-input-widget input")
    box.wait_for(state="visible", timeout=TIMEOUT * 1000)
    box.fill(">" + command)
    page.locator(".quick-input-list .monaco-list-row", has_text=command).first.wait_for(
        timeout=TIMEOUT * 1000
    )
    page.keyboard.press("Enter")


def problem_rows(page: Any) -> list[str]:
    rows = page.locator(".markers-panel .monaco-list-row")
    return [r for r in rows.all_inner_texts() if re.search(r"\[Ln \d+, Col \d+\]", r)]


def run_workbench(
    page: Any, cs: dict[str, Any], pack: Path, text: str, problems: list[Any]
) -> None:
    page.goto(cs["url"])
    page.locator(".monaco-workbench").wait_for(timeout=TIMEOUT * 2000)
    # Open the pack through Quick Open, as a user would.
    page.locator(".explorer-folders-view .monaco-list-row", has_text=pack.name).first.wait_for(
        timeout=TIMEOUT * 1000
    )
    page.keyboard.press("Control+P")
    page.locator(".quick-input-widget input").fill(pack.name)
    page.locator(".quick-input-list .monaco-list-row", has_text=pack.name).first.wait_for()
    page.keyboard.press("Enter")
    page.locator(".tab.active", has_text=pack.name).wait_for(timeout=TIMEOUT * 1000)

    # The status bar names the running server's version.
    page.locator(".statusbar-item", has_text=f"pack-lsp {__version__}").first.wait_for(
        timeout=TIMEOUT * 1000
    )

    # The server's code lenses show above the agents.
    page.locator(".codelens-decoration", has_text="Agent Card · entry agent").first.wait_for(
        timeout=TIMEOUT * 1000
    )

    # Problems panel: one row per problem with code, message and [Ln, Col] (UTF-16, 1-based).
    page.keyboard.press("Control+Shift+M")
    wait_for("the Problems rows", lambda: len(problem_rows(page)) >= len(problems))

    page.screenshot(path=str(SCREENSHOTS / "vscode-problems-lenses.png"))

    # Completion in the `tools:` list, triggered by typing a new item as a user would.
    lines = text.splitlines()
    line = next(i for i, row in enumerate(lines) if "lookup_ordr" in row)
    col = lines[line].index("lookup_ordr") + len("lookup_ordr") + 1
    page.locator(".monaco-editor .view-lines").first.click()
    page.keyboard.press("Control+G")
    page.locator(".quick-input-widget input").fill(f":{line + 1}:{col}")
    page.keyboard.press("Enter")
    page.keyboard.type(", ")
    suggest = page.locator(".suggest-widget .monaco-list-row")
    wait_for("completion items", lambda: suggest.count() > 0)
    labels = suggest.all_inner_texts()
    page.screenshot(path=str(SCREENSHOTS / "vscode-completion.png"))
    page.keyboard.press("Escape")
    page.keyboard.press("Backspace")  # remove the ", " typed above
    page.keyboard.press("Backspace")
    wait_for(
        "the edit to be undone",
        lambda: "lookup_ordr]" in str(page.locator(".view-lines").first.inner_text()),
    )
    assert any("lookup_order" in label for label in labels), labels
    # `triage` is the prompt whose list this is: offering it would be a self-reference.
    assert not any(label.startswith("triage") for label in labels), labels

    # Agent Cards preview: all agents, the A2A version of the setting (not asked).
    palette(page, "PromptPack: Preview Agent Cards")
    page.locator(".quick-input-list .monaco-list-row", has_text="All agents").first.wait_for()
    page.keyboard.press("Enter")
    tab = page.locator(".tab", has_text="A2A 0.3.0")
    tab.first.wait_for(timeout=TIMEOUT * 1000)
    preview = page.locator(".editor-group-container.active .view-lines")

    def preview_text() -> str:
        return str(preview.inner_text()).replace("\u00a0", " ")

    wait_for("the cards preview text", lambda: '"entry": "triage"' in preview_text())
    shown = preview_text()
    assert '"cards": {' in shown
    assert '"triage": {' in shown
    page.screenshot(path=str(SCREENSHOTS / "vscode-agent-cards.png"))

    # Topology webview: drawn offline, one box per agent, a click opens the prompt.
    page.locator(".tab", has_text=pack.name).first.click()
    palette(page, "PromptPack: Show Agent Topology")
    frame = page.frame_locator("iframe.webview.ready").frame_locator("#active-frame")
    nodes = frame.locator("g.node")
    wait_for("topology nodes", lambda: nodes.count() == 2)
    assert sorted(frame.locator("g.node text").all_text_contents()) == ["billing", "triage"]
    box = frame.locator("svg").bounding_box()
    assert box is not None and box["width"] > 100 and box["height"] > 40
    assert frame.locator("path.edge").count() == 1
    page.screenshot(path=str(SCREENSHOTS / "vscode-topology.png"))
    frame.locator("g.node[data-id='billing']").click()
    billing_line = next(i for i, row in enumerate(lines) if row == "  billing:") + 1
    page.locator(".statusbar-item", has_text=f"Ln {billing_line},").first.wait_for(
        timeout=TIMEOUT * 1000
    )

    # Call hierarchy (Shift+Alt+H), from the `billing` prompt the click above put the cursor
    # on: the side bar lists its callers, `triage`, whose `tools` list names it.
    page.keyboard.press("Shift+Alt+H")
    sidebar = page.locator(".part.sidebar")
    wait_for(
        "the callers of billing",
        lambda: (
            "callers of" in str(sidebar.inner_text()).lower()
            and "triage" in str(sidebar.inner_text())
        ),
    )
    page.screenshot(path=str(SCREENSHOTS / "vscode-call-hierarchy.png"))

    # Inlay hints: after each member key, the name its Agent Card publishes.
    members = next(i for i, row in enumerate(lines) if row.startswith("    billing: "))
    page.locator(".editor-group-container.active .view-lines").first.click()
    page.keyboard.press("Control+G")
    page.locator(".quick-input-widget input").fill(f":{members + 1}:1")
    page.keyboard.press("Enter")
    view = page.locator(".editor-group-container.active .view-lines").first
    wait_for(
        "the inlay hints",
        lambda: '(card name "Billing")' in str(view.inner_text()).replace("\u00a0", " "),
    )
    page.screenshot(path=str(SCREENSHOTS / "vscode-inlay-hints.png"))

    # The rendered prompt: a read-only document beside the pack.
    palette(page, "PromptPack: Show Rendered Prompt")
    page.locator(".quick-input-list .monaco-list-row", has_text="triage").first.wait_for()
    page.keyboard.press("Enter")
    page.locator(".tab", has_text="(rendered)").first.wait_for(timeout=TIMEOUT * 1000)
    rendered = page.locator(".editor-group-container.active .view-lines").first
    wait_for(
        "the rendered prompt",
        lambda: "rendered by pack-lsp" in str(rendered.inner_text()).replace("\u00a0", " "),
    )
    shown = str(rendered.inner_text()).replace("\u00a0", " ")
    assert "Hello {{usr_name}}, how can I help?" in shown, shown
    assert "unfilled (left as written): usr_name" in shown, shown
    page.screenshot(path=str(SCREENSHOTS / "vscode-rendered-prompt.png"))

    # After all these round trips and the undone edit: each problem exactly once, as the CLI
    # reports it.
    want = sorted((p.code, p.line, p.column(text, "utf-16")) for p in problems)
    page.keyboard.press("Control+Shift+M")

    def rows_found() -> list[tuple[str, int, int]]:
        found = []
        for row in problem_rows(page):
            m = re.search(r"\b(PP\d{3})\b.*\[Ln (\d+), Col (\d+)\]", row, re.S)
            assert m, row
            found.append((m.group(1), int(m.group(2)) - 1, int(m.group(3)) - 1))
        return sorted(found)

    with contextlib.suppress(AssertionError):  # the assertions below say what differs
        wait_for("the Problems rows to settle", lambda: rows_found() == want)
    rows = problem_rows(page)
    page.screenshot(path=str(SCREENSHOTS / "vscode-problems.png"))
    found = rows_found()
    duplicates = [k for k, n in Counter(found).items() if n > 1]
    assert not duplicates, f"listed more than once: {duplicates}\n{rows}"
    assert found == want
    for p in problems:
        assert any(p.message.replace("`", "") in row.replace("`", "") for row in rows), p
