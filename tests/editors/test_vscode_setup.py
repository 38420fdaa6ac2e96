"""The extension as a new user meets it, next to the YAML and JSON extensions they already have.

A real VS Code (code-server) with a fresh profile, no ``packLsp.server.command`` and no pack-lsp
on ``PATH``: the extension offers to install pack-lsp into its storage; accepting it creates a
virtual environment with ``python3``, installs the wheel shipped in the ``.vsix`` (its
dependencies from the package index), and starts it. Red Hat's yaml-language-server runs as the
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

from conftest import CLIENT, PACK_FIXTURE, TOOLS, expected_problems, require
from pack_lsp import __version__

pytestmark = pytest.mark.editor

YAML_LS = TOOLS / "yaml-language-server" / "node_modules" / "yaml-language-server"
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
    host = base / "yaml-host"
    host.mkdir()
    manifest = {
        "name": "yaml-ls-test",
        "publisher": "pack-lsp-tests",
        "version": "0.0.1",
        "license": "MIT",
        "engines": {"vscode": "^1.90.0"},
        "main": "./extension.js",
        "activationEvents": ["onLanguage:yaml"],
    }
    (host / "package.json").write_text(json.dumps(manifest), encoding="utf-8")
    (host / "README.md").write_text("Starts yaml-language-server for the tests.\n")
    (host / "LICENSE").write_text("MIT\n")
    client = CLIENT / "node_modules" / "vscode-languageclient" / "node"
    server = YAML_LS / "out" / "server" / "src" / "server.js"
    (host / "extension.js").write_text(
        YAML_HOST_JS % {"client": json.dumps(str(client)), "server": json.dumps(str(server))},
        encoding="utf-8",
    )
    vsce = CLIENT / "node_modules" / ".bin" / "vsce"
    out = base / "yaml-ls-test.vsix"
    proc = subprocess.run(
        [str(vsce), "package", "--allow-missing-repository", "--out", str(out)],
        cwd=host,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out


def path_without_pack_lsp() -> str:
    """PATH less every folder with a ``pack-lsp`` in it; python3 must still be found."""
    dirs = [d for d in os.environ.get("PATH", "").split(os.pathsep) if d]
    kept = [d for d in dirs if not (Path(d) / "pack-lsp").exists()]
    path = os.pathsep.join(kept)
    assert shutil.which("python3", path=path), f"no python3 on PATH without pack-lsp: {path}"
    return path


def write_workspace(workspace: Path) -> dict[str, Path]:
    """Three packs naming the PromptPack schema; two plain files with a schema of their own."""
    body = PACK_FIXTURE.read_text(encoding="utf-8")
    pack_yaml = f"$schema: {PACK_SCHEMA}\n{body}"
    files = {
        "named": workspace / "support.promptpack.yaml",  # a pack by its name
        "content": workspace / "desk.yaml",  # a pack by its $schema only
        "json": workspace / "support.pack.json",
        "plain_yaml": workspace / "limits.yaml",
        "plain_json": workspace / "limits.json",
    }
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
    page.keyboard.press("Control+P")
    page.locator(".quick-input-widget input").fill(name)
    page.locator(".quick-input-list .monaco-list-row", has_text=name).first.wait_for()
    page.keyboard.press("Enter")
    page.locator(".tab.active", has_text=name).wait_for(timeout=TIMEOUT * 1000)


def test_fresh_profile_installs_and_shows_each_problem_once(
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


def run_fresh_profile(page: Any, cs: dict[str, Any]) -> None:
    files: dict[str, Path] = cs["files"]
    page.goto(cs["url"])
    page.locator(".monaco-workbench").wait_for(timeout=TIMEOUT * 2000)

    # The offer to install, made because nothing was configured or found.
    offer = page.locator(".notification-toast", has_text="pack-lsp language server was not found")
    offer.first.wait_for(timeout=TIMEOUT * 1000)
    page.screenshot(path=str(SCREENSHOTS / "vscode-install-offer.png"))
    offer.locator(".monaco-button", has_text="Install pack-lsp").first.click()
    page.locator(".statusbar-item", has_text=f"pack-lsp {__version__}").first.wait_for(
        timeout=INSTALL_TIMEOUT * 1000
    )
    storage: Path = cs["storage"]
    stamp = storage / "venv" / "pack-lsp-wheel.txt"
    assert stamp.read_text(encoding="utf-8").startswith(f"pack_lsp-{__version__}-"), stamp

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
