"""The extension's first minute, as a new user meets it, next to the YAML and JSON extensions they
already have.

A real VS Code (code-server) with a fresh profile, no ``packLsp.server.command`` and no pack-lsp
on ``PATH``. A plain ``package.json`` opened first gets no offer and no status-bar item; the
first pack opened gets the offer, a status-bar "Install pack-lsp" action and a "not running"
notice in the Problems panel. The offer is then lost the ways a user loses it (Escape, Restart
Server) and comes back whenever a pack is opened; the topology says the server is not running
instead of opening a blank panel. The install, started from the status bar, shows pip's progress
while pip runs, compiles nothing, and starts the server: a virtual environment made with
``python3``, the wheel shipped in the ``.vsix``, its dependencies as wheels from the package
index. Then the walkthrough's example pack is opened and its screenshots (the extension's README
and walkthrough pictures) are taken of it. Red Hat's yaml-language-server runs as the
``yaml`` language's server (a small host extension written by the test starts it) and VS Code's
own JSON features are on. Packs that declare the PromptPack ``$schema`` (by file name, by content,
in JSON) list each of pack-lsp's problems once and nothing from the other two servers, while a
plain YAML file and a plain JSON file that declare a schema of their own are still validated by
them.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import urllib.request
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_vscode import CHROMIUM, CODE_SERVER, SCREENSHOTS, TIMEOUT, free_port, palette, wait_for

from conftest import (
    CLIENT,
    PACK_FIXTURE,
    TOOLS,
    expected_problems,
    package_test_extension,
    require,
)
from pack_lsp import __version__

pytestmark = pytest.mark.editor

YAML_LS = TOOLS / "yaml-language-server" / "node_modules" / "yaml-language-server"
EXAMPLE = CLIENT / "media" / "walkthrough" / "example.promptpack.yaml"
#: The pictures of the extension's README and walkthrough, all of the walkthrough's example
#: pack, copied into vscode-client/media/ when PACK_LSP_UPDATE_SCREENSHOTS=1.
README_SCREENSHOTS = {
    "vscode-example-problems.png": "screenshot-problems.png",
    "vscode-example-completion.png": "screenshot-completion.png",
    "vscode-example-cards.png": "screenshot-cards.png",
    "vscode-example-topology.png": "screenshot-topology.png",
}
PACK_SCHEMA = "https://promptpack.org/schema/latest/promptpack.schema.json"
#: How long the extension may take to create its environment and pip-install the server.
INSTALL_TIMEOUT = 900.0

#: The host extension of yaml-language-server: what Red Hat's YAML extension does, reduced to
#: starting the server for the `yaml` language.
YAML_HOST_JS = """\
const { LanguageClient, TransportKind } = require(%(client)s);
let client;
exports.activate = async () => {
  client = new LanguageClient(
    "yamlLsTest",
    "YAML (yaml-language-server)",
    { module: %(server)s, transport: TransportKind.ipc },
    { documentSelector: [{ language: "yaml" }] },
  );
  await client.start();
};
exports.deactivate = () => client && client.stop();
"""


def yaml_host_vsix(base: Path) -> Path:
    """Package the host extension of yaml-language-server with the extension's own vsce."""
    client = CLIENT / "node_modules" / "vscode-languageclient" / "node"
    server = YAML_LS / "out" / "server" / "src" / "server.js"
    return package_test_extension(
        base / "yaml-host",
        "yaml-ls-test",
        "Starts yaml-language-server for the tests.",
        ["onLanguage:yaml"],
        YAML_HOST_JS % {"client": json.dumps(str(client)), "server": json.dumps(str(server))},
    )


def path_without_pack_lsp() -> str:
    """PATH less every folder with a ``pack-lsp`` in it; python3 must still be found."""
    dirs = [d for d in os.environ.get("PATH", "").split(os.pathsep) if d]
    kept = [d for d in dirs if not (Path(d) / "pack-lsp").exists()]
    path = os.pathsep.join(kept)
    assert shutil.which("python3", path=path), f"no python3 on PATH without pack-lsp: {path}"
    return path


def write_workspace(workspace: Path) -> dict[str, Path]:
    """Three packs naming the PromptPack schema; two plain files with a schema of their own;
    a project's ``package.json``, which is not a pack."""
    body = PACK_FIXTURE.read_text(encoding="utf-8")
    pack_yaml = f"$schema: {PACK_SCHEMA}\n{body}"
    files = {
        "named": workspace / "support.promptpack.yaml",  # a pack by its name
        "content": workspace / "desk.yaml",  # a pack by its $schema only
        "json": workspace / "support.pack.json",
        "plain_yaml": workspace / "limits.yaml",
        "plain_json": workspace / "limits.json",
        "package": workspace / "package.json",
    }
    files["package"].write_text(
        json.dumps({"name": "desk", "version": "1.0.0", "scripts": {"test": "true"}}, indent=2),
        encoding="utf-8",
    )
    files["named"].write_text(pack_yaml, encoding="utf-8")
    files["content"].write_text(pack_yaml, encoding="utf-8")
    from ruamel.yaml import YAML

    data = YAML(typ="safe").load(pack_yaml)
    files["json"].write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {"retries": {"type": "integer"}},
    }
    (workspace / "limits.schema.json").write_text(json.dumps(schema), encoding="utf-8")
    files["plain_yaml"].write_text(
        "$schema: ./limits.schema.json\nretries: many\n", encoding="utf-8"
    )
    files["plain_json"].write_text(
        '{\n  "$schema": "./limits.schema.json",\n  "retries": "many"\n}\n', encoding="utf-8"
    )
    (workspace / ".pack-lsp.toml").write_text("# pack-lsp defaults\n", encoding="utf-8")
    return files


@pytest.fixture(scope="module")
def fresh_code_server(
    vsix: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Any]]:
    exe = require(str(CODE_SERVER), "code-server")
    require(CHROMIUM if Path(CHROMIUM).exists() else None, "Chromium (Debian)")
    require(str(YAML_LS / "package.json"), "yaml-language-server (npm)")
    try:
        import playwright  # noqa: F401
    except ImportError:
        require(None, "playwright (Python)")
    base = tmp_path_factory.mktemp("code-server-fresh")
    workspace = base / "workspace"
    workspace.mkdir()
    files = write_workspace(workspace)
    data, extensions = base / "data", base / "extensions"
    (data / "User").mkdir(parents=True)
    # A new profile: nothing about pack-lsp, only what keeps the browser UI quiet.
    (data / "User" / "settings.json").write_text(
        json.dumps(
            {
                "security.workspace.trust.enabled": False,
                "workbench.startupEditor": "none",
                "workbench.tips.enabled": False,
                "telemetry.telemetryLevel": "off",
                "extensions.autoCheckUpdates": False,
                "extensions.autoUpdate": False,
                "update.mode": "none",
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
    # The user's pip cache stays where it was: HOME moves to the test folder.
    pip_cache = os.environ.get("PIP_CACHE_DIR") or str(Path.home() / ".cache" / "pip")
    env = {**os.environ, "HOME": str(base), "PATH": path_without_pack_lsp()}
    env["PIP_CACHE_DIR"] = pip_cache
    env.pop("VIRTUAL_ENV", None)
    for package in (vsix, yaml_host_vsix(base)):
        install = subprocess.run(
            [*common, "--install-extension", str(package)],
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
            return proc.poll() is not None

    try:
        wait_for("code-server to listen", up)
        assert proc.poll() is None, (base / "code-server.log").read_text()
        yield {
            "url": f"{url}?folder={workspace}",
            "workspace": workspace,
            "files": files,
            "storage": data / "User" / "globalStorage" / "pack-lsp.pack-lsp",
            "data": data,
        }
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def rows_by_file(page: Any) -> list[tuple[str, str]]:
    """The Problems panel as (file name, problem row) pairs, in the order shown."""
    out: list[tuple[str, str]] = []
    current = ""
    for row in page.locator(".markers-panel .monaco-list-row").all_inner_texts():
        if re.search(r"\[Ln \d+, Col \d+\]", row):
            out.append((current, row))
        else:
            current = row.split("\n")[0].strip()
    return out


def open_file(page: Any, name: str) -> None:
    editor = page.locator(".editor-group-container.active .view-lines")
    if editor.count() > 0:
        editor.first.click()  # the keyboard's focus back in the workbench (not a status item)
    page.keyboard.press("Control+P")
    page.locator(".quick-input-widget input").fill(name)
    row = page.locator(".quick-input-list .monaco-list-row", has_text=name).first
    row.wait_for()
    row.click()  # this row, not whichever the list has selected while it updates
    page.locator(".tab.active", has_text=name).wait_for(timeout=TIMEOUT * 1000)


def test_first_minute_offer_install_and_each_problem_once(
    fresh_code_server: dict[str, Any],
) -> None:
    from playwright.sync_api import sync_playwright

    SCREENSHOTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1500, "height": 950})
        try:
            run_fresh_profile(page, fresh_code_server)
        finally:
            page.screenshot(path=str(SCREENSHOTS / "vscode-setup-last.png"))
            browser.close()
    if os.environ.get("PACK_LSP_UPDATE_SCREENSHOTS") == "1":
        for shot, name in README_SCREENSHOTS.items():
            shutil.copyfile(SCREENSHOTS / shot, CLIENT / "media" / name)


def toasts(page: Any, text: str) -> Any:
    """The visible notification toasts that contain ``text``."""
    return page.locator(".notification-toast-container:visible", has_text=text)


def output_log(data: Path) -> str:
    """The PromptPack output channel as VS Code writes it to the window's log folder."""
    logs = sorted(data.glob("logs/**/output_logging_*/*-PromptPack.log"))
    return "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in logs)


OFFER = "pack-lsp language server was not found"
NOT_RUNNING = "pack-lsp is not running, so nothing checks this file"


def run_fresh_profile(page: Any, cs: dict[str, Any]) -> None:
    files: dict[str, Path] = cs["files"]
    data: Path = cs["data"]
    page.goto(cs["url"])
    page.locator(".monaco-workbench").wait_for(timeout=TIMEOUT * 2000)

    # A project's package.json: the extension starts (it activates on JSON) and finds no server,
    # but offers nothing, and shows nothing in the status bar: this is not a pack.
    open_file(page, files["package"].name)
    wait_for(
        "the extension to look for a server", lambda: "no language server found" in output_log(data)
    )
    assert toasts(page, OFFER).count() == 0
    status = page.locator(".statusbar-item", has_text="Install pack-lsp")
    assert status.count() == 0

    # The first pack opened: the offer, a persistent status-bar action, and a notice in the
    # Problems panel that nothing checks it.
    open_file(page, files["named"].name)
    toasts(page, OFFER).first.wait_for(timeout=TIMEOUT * 1000)
    status.first.wait_for(timeout=TIMEOUT * 1000)
    page.keyboard.press("Control+Shift+M")
    wait_for(
        "the not-running notice in the Problems panel",
        lambda: any(NOT_RUNNING in row for _, row in rows_by_file(page)),
    )
    page.screenshot(path=str(SCREENSHOTS / "vscode-install-offer.png"))

    # Lost: Escape hides the toast; Restart Server brings it back while a pack is open.
    page.locator(".monaco-editor .view-lines").first.click()
    page.keyboard.press("Escape")
    wait_for("the offer to hide", lambda: toasts(page, OFFER).count() == 0)
    palette(page, "PromptPack: Restart Server")
    toasts(page, OFFER).first.wait_for(timeout=TIMEOUT * 1000)
    page.keyboard.press("Escape")
    wait_for("the offer to hide again", lambda: toasts(page, OFFER).count() == 0)
    # Opening another pack offers again.
    open_file(page, files["content"].name)
    toasts(page, OFFER).first.wait_for(timeout=TIMEOUT * 1000)
    page.keyboard.press("Escape")
    wait_for("the third offer to hide", lambda: toasts(page, OFFER).count() == 0)

    # The topology without a server: a message with the install action, not a blank panel.
    palette(page, "PromptPack: Show Agent Topology")
    toasts(page, "so it cannot show the agent topology").first.wait_for(timeout=TIMEOUT * 1000)
    assert page.locator("iframe.webview").count() == 0
    page.keyboard.press("Escape")

    # Install from the status bar: pip's progress shows while pip runs.
    status.first.click()
    progress = page.locator(".notification-toast-container", has_text="Installing pack-lsp")
    progress.first.wait_for(timeout=TIMEOUT * 1000)
    pip_steps = re.compile(r"(resolving|downloading|reading|installing) \S")
    seen = wait_for(
        "pip's progress in the notification",
        lambda: [t for t in progress.all_inner_texts() if pip_steps.search(t)],
        timeout=INSTALL_TIMEOUT,
    )
    running = page.locator(".statusbar-item", has_text=f"pack-lsp {__version__}")
    assert running.count() == 0, f"progress seen only after the install ended: {seen}"
    running.first.wait_for(timeout=INSTALL_TIMEOUT * 1000)
    storage: Path = cs["storage"]
    stamp = storage / "venv" / "pack-lsp-wheel.txt"
    assert stamp.read_text(encoding="utf-8").startswith(f"pack_lsp-{__version__}-"), stamp
    log = output_log(data)
    assert "Collecting " in log or "Processing " in log, log[-3000:]
    assert "--only-binary :all:" in log, log[-3000:]
    assert "Building wheel" not in log, "a dependency was compiled:\n" + log[-3000:]
    # The notice goes with the server's arrival.
    wait_for(
        "the not-running notice to go",
        lambda: not any(NOT_RUNNING in row for _, row in rows_by_file(page)),
    )

    for key in ("named", "content", "json", "plain_yaml", "plain_json"):
        open_file(page, files[key].name)
    want: set[tuple[str, str, int, int]] = set()
    for key in ("named", "content", "json"):
        path = files[key]
        text = path.read_text(encoding="utf-8")
        for prob in expected_problems(path):
            if prob.severity != "hint":
                want.add((path.name, prob.code, prob.line, prob.column(text, "utf-16")))
    assert len(want) >= 6, want

    page.keyboard.press("Control+Shift+M")
    palette(page, "View: Toggle Maximized Panel")

    def pack_rows() -> list[tuple[str, str, int, int]]:
        found = []
        for name, row in rows_by_file(page):
            if name in {files[k].name for k in ("named", "content", "json")}:
                m = re.search(r"\b(PP\d{3})\b.*\[Ln (\d+), Col (\d+)\]", row, re.S)
                found.append(
                    (name, m.group(1), int(m.group(2)) - 1, int(m.group(3)) - 1)
                    if m
                    else (name, row, -1, -1)
                )
        return sorted(found)

    def others_validated() -> bool:
        names = [name for name, row in rows_by_file(page) if "Incorrect type" in row]
        return files["plain_yaml"].name in names and files["plain_json"].name in names

    with contextlib.suppress(AssertionError):  # the assertions below say what differs
        wait_for(
            "pack-lsp's problems and the other servers' ones",
            lambda: sorted(set(pack_rows())) == sorted(want) and others_validated(),
            timeout=TIMEOUT * 2,
        )
    page.screenshot(path=str(SCREENSHOTS / "vscode-next-to-yaml-json.png"))
    shown = rows_by_file(page)
    found = pack_rows()
    duplicates = [k for k, n in Counter(found).items() if n > 1]
    assert not duplicates, f"listed more than once: {duplicates}\n{shown}"
    assert found == sorted(want), shown
    # yaml-language-server and the JSON features still check the plain files.
    assert others_validated(), shown

    run_walkthrough_example(page, cs)
    # pygls' warning for a cancel of a request already answered no longer reaches the output.
    assert "Cancel notification for unknown message id" not in output_log(data)


def go_to(page: Any, line: int, column: int) -> None:
    """Put the cursor at a 1-based line and column of the active editor."""
    page.locator(".editor-group-container.active .view-lines").first.click()
    page.keyboard.press("Control+G")
    page.locator(".quick-input-widget input").fill(f":{line}:{column}")
    page.keyboard.press("Enter")


def clean_shot(page: Any, name: str) -> None:
    """A screenshot for the README: the pointer out of the way (no hover, no tooltip)."""
    page.mouse.move(1490, 470)
    page.screenshot(path=str(SCREENSHOTS / name))


def run_walkthrough_example(page: Any, cs: dict[str, Any]) -> None:
    """The walkthrough's example pack: its PP301 on `billing`, its cards and its topology, and the
    screenshots the README and the walkthrough show, taken of it alone."""
    palette(page, "View: Toggle Maximized Panel")  # the panel back to its size
    palette(page, "View: Close All Editors")
    palette(page, "View: Close Primary Side Bar")
    palette(page, "View: Toggle Breadcrumbs")
    palette(page, "PromptPack: Open Example Pack")
    name = "example.promptpack.yaml"
    page.locator(".tab.active", has_text=name).wait_for(timeout=TIMEOUT * 1000)
    page.keyboard.press("Control+Shift+M")

    def example_rows() -> list[str]:
        # The example's group row also shows its folder (it is outside the workspace).
        return [row for file, row in rows_by_file(page) if file.startswith(name)]

    wait_for("the example's PP301", lambda: any("PP301" in r for r in example_rows()))
    rows = example_rows()
    assert any("lookup_invoce" in r for r in rows), rows
    text = (EXAMPLE).read_text(encoding="utf-8")
    lines = text.splitlines()
    line = next(i for i, row in enumerate(lines) if "lookup_invoce" in row)
    col = lines[line].index("lookup_invoce") + len("lookup_invoce") + 1
    go_to(page, line + 1, col)
    clean_shot(page, "vscode-example-problems.png")

    # Completion in billing's tools list, where the walkthrough's mistake is.
    page.keyboard.type(", ")
    suggest = page.locator(".suggest-widget .monaco-list-row")
    wait_for("completion items", lambda: suggest.count() > 0)
    labels = suggest.all_inner_texts()
    assert any("lookup_invoice" in label for label in labels), labels
    # A label cut short ("lookup_invoi…", the focused row's detail taking its room): the text of
    # a row's label is wider than the box that shows it.
    page.locator(".suggest-widget .monaco-list-row.focused").first.wait_for()
    truncated = page.evaluate(
        """() => [...document.querySelectorAll(
                '.suggest-widget .monaco-list-row .monaco-icon-label-container')]
            .filter((box) => {
                const text = document.createRange();
                text.selectNodeContents(box);
                return text.getBoundingClientRect().width > box.getBoundingClientRect().width + 0.5;
            })
            .map((box) => box.textContent)"""
    )
    assert truncated == [], f"completion labels cut short: {truncated}"
    clean_shot(page, "vscode-example-completion.png")
    page.keyboard.press("Escape")
    page.keyboard.press("Backspace")  # remove the ", " typed above
    page.keyboard.press("Backspace")
    view = page.locator(".editor-group-container.active .view-lines").first
    wait_for(
        "the edit to be undone",
        lambda: "[lookup_invoce]" in str(view.inner_text()).replace("\u00a0", " "),
    )

    # The cards of the A2A version the setting names: only the agent is asked.
    palette(page, "PromptPack: Preview Agent Cards")
    page.locator(".quick-input-list .monaco-list-row", has_text="All agents").first.wait_for()
    page.keyboard.press("Enter")
    page.locator(".tab", has_text="A2A 0.3.0").first.wait_for(timeout=TIMEOUT * 1000)
    preview = page.locator(".editor-group-container.active .view-lines")
    wait_for(
        "the cards preview text",
        lambda: '"entry": "triage"' in str(preview.inner_text()).replace("\u00a0", " "),
    )
    clean_shot(page, "vscode-example-cards.png")

    # From the preview, which has the focus: the command runs on its pack.
    palette(page, "PromptPack: Preview Effective Governance")
    page.locator(".tab", has_text="(governance)").first.wait_for(timeout=TIMEOUT * 1000)
    governance = page.locator(".editor-group-container.active .view-lines").first
    wait_for(
        "the governance explanation",
        lambda: "no governance to show" in str(governance.inner_text()).replace("\u00a0", " "),
    )
    assert toasts(page, "Open a PromptPack file").count() == 0
    palette(page, "View: Close All Editors")  # the previews; the example opens again alone
    palette(page, "PromptPack: Open Example Pack")
    page.locator(".tab.active", has_text=name).wait_for(timeout=TIMEOUT * 1000)
    palette(page, "PromptPack: Show Agent Topology")
    frame = page.frame_locator("iframe.webview.ready").frame_locator("#active-frame")
    nodes = frame.locator("g.node")
    wait_for("topology nodes", lambda: nodes.count() == 3)
    clean_shot(page, "vscode-example-topology.png")
    # With the topology's webview focused, a command still knows the pack.
    frame.locator("svg").click()
    palette(page, "PromptPack: Preview Agent Cards")
    page.locator(".quick-input-list .monaco-list-row", has_text="All agents").first.wait_for()
    page.keyboard.press("Escape")
    assert toasts(page, "Open a PromptPack file").count() == 0
