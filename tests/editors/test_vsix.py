"""The packaged extension: what the .vsix holds, and its manifest against the server.

The manifest must contribute every setting the server reads (names, enums and defaults taken
from the server's own configuration model, not repeated here) and nothing from
``node_modules``: the bundle already contains the language client.
"""

from __future__ import annotations

import dataclasses
import json
import re
import typing
import zipfile
from pathlib import Path
from typing import Any

import pytest

from pack_lsp import __version__
from pack_lsp.core.model.config import Config
from pack_lsp.server.app import SERVER_SETTINGS, SETTINGS_SECTION

pytestmark = pytest.mark.editor


def manifest(vsix: Path) -> dict[str, Any]:
    with zipfile.ZipFile(vsix) as z:
        data: dict[str, Any] = json.loads(z.read("extension/package.json"))
    return data


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def test_vsix_lists_only_what_the_extension_needs(vsix: Path) -> None:
    with zipfile.ZipFile(vsix) as z:
        names = set(z.namelist())
    ours = {n for n in names if n.startswith("extension/")}
    assert "extension/dist/extension.js" in ours
    assert "extension/package.json" in ours
    assert "extension/readme.md" in {n.lower() for n in ours}
    assert not [n for n in ours if "node_modules" in n]
    assert not [n for n in ours if n.endswith((".ts", ".map")) or "/src/" in n or "/test/" in n]
    allowed = (
        "extension/dist/",
        "extension/media/",
        "extension/languages/",
        "extension/syntaxes/",
        "extension/server/",
    )
    top = {n for n in ours if n.count("/") == 1}
    assert {n.lower() for n in top} == {
        "extension/package.json",
        "extension/readme.md",
        "extension/changelog.md",
        "extension/license.txt",
    }
    assert all(n in top or n.startswith(allowed) for n in ours)
    # The one wheel the extension installs when it finds no server: this checkout's pack-lsp.
    wheels = [n for n in ours if n.startswith("extension/server/")]
    assert wheels == [f"extension/server/pack_lsp-{__version__}-py3-none-any.whl"]
    # Everything the manifest points at ships.
    pkg = manifest(vsix)
    contributes = pkg["contributes"]
    referenced = [pkg["icon"]]
    referenced += [lang["configuration"] for lang in contributes["languages"]]
    referenced += [g["path"] for g in contributes["grammars"]]
    for walkthrough in contributes["walkthroughs"]:
        for step in walkthrough["steps"]:
            media = step["media"]
            referenced.append(media.get("image") or media["markdown"])
    for ref in referenced:
        assert "extension/" + ref.removeprefix("./") in ours, f"{ref} is not in the .vsix"
    # The bundle carries the language client it needs.
    with zipfile.ZipFile(vsix) as z:
        bundle = z.read("extension/dist/extension.js").decode("utf-8")
    assert "vscode-languageclient" in bundle or "LanguageClient" in bundle


def test_engine_and_activation(vsix: Path) -> None:
    pkg = manifest(vsix)
    engine = pkg["engines"]["vscode"].lstrip("^~>=")
    major, minor = (int(x) for x in engine.split(".")[:2])
    assert (major, minor) <= (1, 100)
    events = " ".join(pkg["activationEvents"])
    for pattern in ("*.promptpack.{yaml,yml,json}", "promptpack.{yaml,yml}", "*.pack.json"):
        assert pattern in events
    commands = {c["command"] for c in pkg["contributes"]["commands"]}
    assert commands == {
        "packLsp.restartServer",
        "packLsp.showOutput",
        "packLsp.previewAgentCards",
        "packLsp.showTopology",
        "packLsp.installServer",
        "packLsp.openExample",
        "packLsp.showRenderedPrompt",
        "packLsp.previewGovernance",
    }


def test_marketplace_fields(vsix: Path) -> None:
    pkg = manifest(vsix)
    for field in ("publisher", "displayName", "description", "license", "homepage", "icon"):
        assert pkg.get(field), field
    assert pkg["repository"]["url"].startswith("https://")
    assert pkg["bugs"]["url"].startswith("https://")
    with zipfile.ZipFile(vsix) as z:
        readme = z.read("extension/readme.md").decode("utf-8")
        icon = z.read("extension/" + pkg["icon"])
    assert icon.startswith(b"\x89PNG")
    # The README's images ship in the .vsix (vsce rewrites no links: --no-rewrite-relative-links).
    with zipfile.ZipFile(vsix) as z:
        names = set(z.namelist())
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", readme)
    assert len(images) >= 4, images
    for image in images:
        assert f"extension/{image}" in names, image


def test_every_server_setting_is_contributed(vsix: Path) -> None:
    props = manifest(vsix)["contributes"]["configuration"]["properties"]
    hints = typing.get_type_hints(Config)
    fields = {f.name: (hints[f.name], f.default) for f in dataclasses.fields(Config)}
    config_keys = [camel(name) for name in fields if name != "source"]
    for key in [*config_keys, *SERVER_SETTINGS]:
        prop = props.get(f"{SETTINGS_SECTION}.{key}")
        assert prop is not None, f"{SETTINGS_SECTION}.{key} is not contributed"
        assert prop.get("description") or prop.get("markdownDescription")
        assert "type" in prop and "default" in prop
    for name, (annotation, default) in fields.items():
        prop = props.get(f"{SETTINGS_SECTION}.{camel(name)}")
        if prop is None:
            continue
        if typing.get_origin(annotation) is typing.Literal:
            assert prop["enum"] == list(typing.get_args(annotation))
            assert prop["default"] == default
        elif isinstance(default, tuple):
            assert prop["default"] == list(default)
    # Settings that are not the server's must not look like they are.
    extra = {
        k
        for k in props
        if not k.startswith(("packLsp.server.", "packLsp.trace.", "packLsp.cardsPreview."))
    }
    assert extra == {f"{SETTINGS_SECTION}.{k}" for k in [*config_keys, *SERVER_SETTINGS]}
