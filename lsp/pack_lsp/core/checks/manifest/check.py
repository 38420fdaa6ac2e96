"""Analysis of one manifest: schema diagnostics and the PM rules.

The schema is validated with the same machinery as packs (``core.schema``); only
the words naming the document differ, since its messages speak of "the pack".
"""

from __future__ import annotations

import functools
from typing import Any

from pack_lsp.core.base.diagnostics import Diagnostic
from pack_lsp.core.base.resources import load_schema
from pack_lsp.core.base.source import strip_bom
from pack_lsp.core.checks.rules.manifest import check_manifest
from pack_lsp.core.model.manifest.model import Manifest, build_manifest
from pack_lsp.core.model.manifest.workspace import ManifestIndex
from pack_lsp.core.model.schema import SchemaValidator
from pack_lsp.core.syntax.yamltree import Node, parse

MANIFEST_SCHEMA = "agent-extension-manifest.schema.json"

_WORDING = (
    ("in the pack root", "in the manifest"),
    ("in the pack", "in the manifest"),
    ("The pack root", "The manifest"),
    ("the pack root", "the manifest"),
)


@functools.cache
def manifest_validator() -> SchemaValidator:
    return SchemaValidator(load_schema(MANIFEST_SCHEMA), _WORDING)


def analyze_manifest(
    root: Node | None,
    data: Any,
    path: str | None,
    index: ManifestIndex | None,
    *,
    schema: bool = True,
) -> tuple[Manifest, list[Diagnostic]]:
    """The manifest model and its diagnostics (schema, then rules).

    ``index`` is the workspace the cross-file rules look ids up in; the manifest
    itself is looked up there by ``path``, so a stale entry for the same path is
    ignored in favour of this version of the text.
    """
    manifest = build_manifest(root, path)
    out: list[Diagnostic] = []
    if schema:
        out.extend(manifest_validator().validate(root, data))
    if index is not None and index.get(path or "") != manifest:
        index.put(manifest)
    out.extend(check_manifest(manifest, index))
    return manifest, out


def update_index(index: ManifestIndex, text: str, path: str) -> frozenset[str]:
    """Put the manifest ``text`` at ``path`` into ``index``; the other paths to re-check.

    An editor calls it when a manifest is opened, changed or saved (before
    ``analyze``, whose own update of the index then changes nothing), and then
    re-analyses the returned manifests, opened or not, so that their diagnostics
    follow the change.
    """
    return index.put(build_manifest(parse(strip_bom(text)).root, path))
