"""The Helix recipe of docs/editors.md.

No Helix package is installable here (Debian 12 has none, and neither npm nor PyPI carries the
editor), so the editor part skips with that reason; the documented ``languages.toml`` is still
read as Helix reads it: valid TOML naming the ``pack-lsp`` command for YAML and JSON, next to the
languages' usual servers.
"""

from __future__ import annotations

import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from conftest import SERVER_ARGV, doc_block

NO_HELIX = (
    "Helix is not installed, and no Helix package exists in Debian 12, npm or PyPI to install "
    "it from; the documented languages.toml is checked by test_helix_recipe_is_valid"
)


def recipe() -> dict[str, object]:
    return tomllib.loads(doc_block("helix"))


def test_helix_recipe_is_valid() -> None:
    config = recipe()
    servers = config["language-server"]
    assert isinstance(servers, dict)
    assert servers["pack-lsp"] == {"command": "pack-lsp"}
    languages = {lang["name"]: lang["language-servers"] for lang in config["language"]}  # type: ignore[attr-defined]
    assert set(languages) == {"yaml", "json"}
    for name, names in languages.items():
        assert names[0] == "pack-lsp", name
        assert len(names) == 2, f"{name}: the language's own server is kept"


@pytest.mark.editor
def test_helix_finds_the_server(tmp_path: Path) -> None:
    hx = shutil.which("hx") or shutil.which("helix")
    if hx is None:
        pytest.skip(NO_HELIX)
    config_dir = tmp_path / "helix"
    config_dir.mkdir()
    text = doc_block("helix").replace(
        'command = "pack-lsp"',
        f"command = {SERVER_ARGV[0]!r}\nargs = {SERVER_ARGV[1:]!r}".replace("'", '"'),
    )
    (config_dir / "languages.toml").write_text(text, encoding="utf-8")
    out = subprocess.run(
        [hx, "--health", "yaml"],
        capture_output=True,
        text=True,
        timeout=60,
        env={"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert "pack-lsp" in out.stdout, out.stdout + out.stderr
    assert SERVER_ARGV[0] in out.stdout, out.stdout
