"""The install instructions, run as a new user would run them.

pack-lsp is not on PyPI yet, so every install instruction installs from a checkout or from the
repository's git URL. The ones that run without reaching the repository's host run here, as
written: the README's quick start (in this checkout, with a temporary environment instead of
``.venv``) and the ``pack-lsp: install`` block of docs/editors.md (this checkout standing in for
its ``git clone``, a temporary folder for the environment). Dependencies come from the package
index, as they would for the user. The instructions that name a git URL are checked for that
URL, the one the package and the extension declare.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from pack_lsp import __version__
from paths import ROOT

REPOSITORY = "https://github.com/pack-lsp/pack-lsp"
README = ROOT / "README.md"
EDITORS = ROOT / "docs" / "editors.md"
CI = ROOT / "docs" / "ci.md"


def doc_block(path: Path, marker: str) -> str:
    """The code block of ``path`` whose first line carries ``pack-lsp: <marker>``."""
    for match in re.finditer(r"```\w*\n(.*?)```", path.read_text(encoding="utf-8"), re.S):
        body = match.group(1)
        if body and f"pack-lsp: {marker}" in body.splitlines()[0]:
            return body
    raise AssertionError(f"{path.name} has no code block marked 'pack-lsp: {marker}'")


def run(command: str, cwd: Path) -> str:
    proc = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", command],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert proc.returncode == 0, f"{command}\nexit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout + proc.stderr


@pytest.mark.slow
def test_readme_quick_start_runs(tmp_path: Path) -> None:
    text = README.read_text(encoding="utf-8")
    (line,) = [ln for ln in text.splitlines() if ln.startswith("python3 -m venv .venv")]
    env = tmp_path / "venv"
    out = run(line.replace(".venv", str(env)), ROOT)
    assert "Checked 1 file: 0 errors, 0 warnings" in out, out


@pytest.mark.slow
def test_editors_install_block_runs(tmp_path: Path) -> None:
    lines = []
    for raw in doc_block(EDITORS, "install").splitlines()[1:]:
        command = raw.split("  #")[0].strip()
        if not command or command.startswith(f"git clone {REPOSITORY}"):
            continue  # the checkout is this one
        lines.append(command)
    env = tmp_path / "share" / "pack-lsp"
    script = "\n".join(lines)
    assert "./pack-lsp" in script and "~/.local/share/pack-lsp" in script
    script = script.replace("~/.local/share/pack-lsp", str(env)).replace("./pack-lsp", str(ROOT))
    out = run(script, tmp_path)
    assert f"pack-lsp {__version__}" in out.splitlines(), out


def test_no_instruction_installs_from_pypi() -> None:
    """`pip install pack-lsp` fails until the package is published: no doc may say to run it
    except as what changes once it is."""
    docs = [README, EDITORS, CI, ROOT / "vscode-client" / "README.md"]
    for doc in docs:
        for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"pip install pack-lsp\b(?![-\w])", line):
                assert re.search(r"once (it is|pack-lsp is) published", line, re.I), (
                    f"{doc.name}:{number}: {line.strip()}"
                )


def test_git_url_is_the_declared_repository() -> None:
    package = json.loads((ROOT / "vscode-client" / "package.json").read_text(encoding="utf-8"))
    assert package["repository"]["url"] == REPOSITORY
    for doc in (README, EDITORS, CI):
        urls = set(re.findall(r"git\+(https://[^\"\s`]+)", doc.read_text(encoding="utf-8")))
        assert urls <= {REPOSITORY}, (doc.name, urls)


def test_precommit_rev_exists_without_tags() -> None:
    """The pre-commit snippet names a revision the repository has: its `main` branch (no tags)."""
    block = re.search(
        r"- repo: https://github.com/pack-lsp/pack-lsp\n\s+rev: (\S+)", CI.read_text()
    )
    assert block is not None
    assert block.group(1) == "main"


def test_license_is_mit_everywhere() -> None:
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License")
    assert (ROOT / "vscode-client" / "LICENSE").read_text(encoding="utf-8") == text
    assert 'license = "MIT"' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
