"""Analysis of one manifest: schema diagnostics and the PM rules.

The schema is validated with the same machinery as packs (``core.model.schema``);
only the words naming the document differ, since its messages speak of "the pack".
The data validated is the manifest as yodoca reads it (``model.manifest.reading``:
YAML 1.1, then pydantic's lax booleans and integers), and every schema error says
what yodoca does with such a manifest: it refuses it, and then loads no extension.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

from pack_lsp.core.base.diagnostics import Diagnostic, Severity
from pack_lsp.core.base.problems.document import DUPLICATE_KEY
from pack_lsp.core.base.resources import load_schema
from pack_lsp.core.base.source import strip_bom
from pack_lsp.core.checks.rules.manifest import LOADS_NOTHING, check_keys, check_manifest
from pack_lsp.core.model.manifest.model import Manifest, build_manifest
from pack_lsp.core.model.manifest.reading import lax, yaml11_data
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
_KEEPS_LATER = ": yodoca still loads the manifest, with the later value"
_REFUSED = f" (yodoca refuses this manifest, and {LOADS_NOTHING})"


@functools.cache
def manifest_validator() -> SchemaValidator:
    return SchemaValidator(load_schema(MANIFEST_SCHEMA), _WORDING)


def manifest_data(root: Node | None) -> Any:
    """The plain data yodoca's model validates for the manifest ``root``."""
    schema = load_schema(MANIFEST_SCHEMA)
    return lax(yaml11_data(root), schema, schema)


def as_yodoca_reads(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """The syntax diagnostics of a manifest, with a repeated key (PP005) a warning:
    yodoca reads manifests with PyYAML, whose mapping keeps the later value without a
    word (``yaml.safe_load``), so the manifest loads; what is lost is the earlier
    value."""
    out: list[Diagnostic] = []
    for diag in diagnostics:
        if diag.code == DUPLICATE_KEY.code and diag.severity is Severity.ERROR:
            diag = dataclasses.replace(
                diag.with_severity(Severity.WARNING),
                message=diag.message + _KEEPS_LATER,
            )
        out.append(diag)
    return out


def _refused(diag: Diagnostic) -> Diagnostic:
    if diag.severity is not Severity.ERROR:
        return diag
    return dataclasses.replace(diag, message=diag.message + _REFUSED)


def analyze_manifest(
    root: Node | None,
    data: Any,
    path: str | None,
    index: ManifestIndex | None,
    *,
    schema: bool = True,
) -> tuple[Manifest, list[Diagnostic]]:
    """The manifest model and its diagnostics (schema, then rules).

    ``data`` is the tree's data as pack-lsp reads YAML (1.2); the schema is validated
    against the data as yodoca reads it instead. ``index`` is the workspace the
    cross-file rules look ids up in; the manifest itself is looked up there by
    ``path``, so a stale entry for the same path is ignored in favour of this version
    of the text.
    """
    del data  # read again as yodoca reads it
    manifest = build_manifest(root, path)
    out: list[Diagnostic] = []
    if schema:
        found = manifest_validator().validate(root, manifest_data(root))
        out.extend(found if manifest.ignored else map(_refused, found))
        out.extend(check_keys(root, load_schema(MANIFEST_SCHEMA)))
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
