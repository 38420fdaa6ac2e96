"""Workspace diagnostics in a real VS Code (code-server with the packaged extension,
Playwright and Debian's Chromium, offline).

The workspace holds three packs: one clean, one whose prompt names an undefined tool
(PP301) and the editor tests' pack, which is the one file opened. With
``"packLsp.workspaceDiagnostics": true`` in the workspace settings, VS Code's language
client pulls ``workspace/diagnostic`` by itself and its diagnostics collection, read by a
small probe extension (``vscode.languages.getDiagnostics``), holds the closed broken
pack's problems as ``pack-lsp --check`` reports them, nothing for the clean pack and the
opened pack's problems once each; the Problems panel lists the closed file and its
problem. With the setting off (the default), once the opened pack's problems have
arrived, the closed files have none.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from test_vscode import CHROMIUM, SCREENSHOTS, TIMEOUT, running_code_server, wait_for

from conftest import PACK_FIXTURE, expected_problems, package_test_extension
from workspace_packs import workspace_pack

pytestmark = pytest.mark.editor

#: The probe extension: writes VS Code's diagnostics collection, every file's, as JSON each
#: time it changes (written whole, then renamed, so that a reader never sees half of it).
PROBE_JS = """\
const vscode = require("vscode");
const fs = require("fs");
const OUT = %(out)s;
function dump() {
  const all = {};
  for (const [uri, diagnostics] of vscode.languages.getDiagnostics()) {
    if (uri.scheme !== "file" || diagnostics.length === 0) {
      continue;
    }
    all[uri.fsPath] = diagnostics.map((d) => ({
      code: typeof d.code === "object" && d.code !== null ? String(d.code.value) : String(d.code),
      line: d.range.start.line,
      character: d.range.start.character,
      source: d.source ?? null,
      message: d.message,
    }));
  }
  fs.writeFileSync(OUT + ".tmp", JSON.stringify(all));
  fs.renameSync(OUT + ".tmp", OUT);
}
exports.activate = (context) => {
  context.subscriptions.push(vscode.languages.onDidChangeDiagnostics(dump));
  dump();
};
"""

Found = dict[str, list[tuple[str, int, int]]]


def probe_vsix(base: Path, out: Path) -> Path:
    """Package the probe extension with the extension's own vsce."""
    return package_test_extension(
        base / "probe",
        "diagnostics-probe",
        "Writes VS Code's diagnostics for the tests.",
        ["*"],
        PROBE_JS % {"out": json.dumps(str(out))},
    )


def collection(dump: Path) -> Found:
    """VS Code's diagnostics by file name: (code, line, column), as the probe last wrote."""
    if not dump.is_file():
        return {}
    data: dict[str, list[dict[str, Any]]] = json.loads(dump.read_text(encoding="utf-8"))
    return {
        Path(path).name: sorted((d["code"], d["line"], d["character"]) for d in items)
        for path, items in data.items()
    }


def cli_problems(path: Path) -> list[tuple[str, int, int]]:
    """What ``pack-lsp --check`` reports for ``path``, every severity (the collection holds
    hints too), as the collection lists them."""
    text = path.read_text(encoding="utf-8")
    return sorted((p.code, p.line, p.column(text, "utf-16")) for p in expected_problems(path))


@pytest.mark.parametrize("on", [True, False], ids=["setting-on", "setting-off"])
def test_vscode_workspace_diagnostics(on: bool, vsix: Path, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    SCREENSHOTS.mkdir(exist_ok=True)
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / ".pack-lsp.toml").write_text("# pack-lsp defaults\n", encoding="utf-8")
    clean = workspace / "clean.promptpack.yaml"
    clean.write_text(workspace_pack("clean"), encoding="utf-8")
    broken = workspace / "broken.promptpack.yaml"
    broken.write_text(workspace_pack("broken", tool="lookup_ordr"), encoding="utf-8")
    opened = workspace / PACK_FIXTURE.name
    shutil.copy(PACK_FIXTURE, opened)
    if on:
        (workspace / ".vscode").mkdir()
        (workspace / ".vscode" / "settings.json").write_text(
            json.dumps({"packLsp.workspaceDiagnostics": True}), encoding="utf-8"
        )
    assert cli_problems(clean) == []
    broken_want = cli_problems(broken)
    assert "PP301" in [code for code, _, _ in broken_want]
    opened_want = cli_problems(opened)
    assert opened_want

    dump = tmp_path / "diagnostics.json"
    probe = probe_vsix(tmp_path, dump)
    name = "on" if on else "off"
    with (
        running_code_server(vsix, tmp_path / "code-server", workspace, [probe]) as cs,
        sync_playwright() as p,
    ):
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1500, "height": 950})
        try:
            page.goto(cs["url"])
            page.locator(".monaco-workbench").wait_for(timeout=TIMEOUT * 2000)
            page.locator(
                ".explorer-folders-view .monaco-list-row", has_text=opened.name
            ).first.wait_for(timeout=TIMEOUT * 1000)
            # Open one pack through Quick Open, as a user would; the other two stay closed.
            page.keyboard.press("Control+P")
            page.locator(".quick-input-widget input").fill(opened.name)
            page.locator(".quick-input-list .monaco-list-row", has_text=opened.name).first.wait_for(
                timeout=TIMEOUT * 1000
            )
            page.keyboard.press("Enter")
            page.locator(".tab.active", has_text=opened.name).wait_for(timeout=TIMEOUT * 1000)

            if on:
                wait_for(
                    "the closed broken pack's problems in VS Code's diagnostics",
                    lambda: (
                        collection(dump).get(broken.name) == broken_want
                        and collection(dump).get(opened.name) == opened_want
                    ),
                )
            else:
                wait_for(
                    "the opened pack's problems in VS Code's diagnostics",
                    lambda: collection(dump).get(opened.name) == opened_want,
                )
            found = collection(dump)
            # The opened pack's problems once each (not again from the workspace report),
            # nothing for the clean pack, and nothing for a closed file when off.
            assert found.get(opened.name) == opened_want, found
            assert clean.name not in found, found
            if on:
                assert found.get(broken.name) == broken_want, found
            else:
                assert broken.name not in found, found
            assert set(found) <= {opened.name, broken.name}, found

            # What the user sees: the Problems panel.
            page.keyboard.press("Control+Shift+M")
            panel = page.locator(".markers-panel")
            message = expected_problems(broken)[0].message.replace("`", "")

            def panel_text() -> str:
                return re.sub(r"\s+", " ", str(panel.inner_text())).replace("`", "")

            wait_for("the Problems panel rows", lambda: opened.name in panel_text())
            if on:
                wait_for("the closed pack in the Problems panel", lambda: message in panel_text())
                assert broken.name in panel_text()
            else:
                assert broken.name not in panel_text()
                assert message not in panel_text()
            assert clean.name not in panel_text()
            page.screenshot(path=str(SCREENSHOTS / f"vscode-workspace-{name}.png"))
        finally:
            page.screenshot(path=str(SCREENSHOTS / f"vscode-workspace-{name}-last.png"))
            browser.close()
