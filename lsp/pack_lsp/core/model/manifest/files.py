"""Building a workspace index from manifest files on disk (for ``--check`` and tools)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pack_lsp.core.base import kinds
from pack_lsp.core.base.source import decode, read_source
from pack_lsp.core.model.manifest.model import Manifest, build_manifest
from pack_lsp.core.model.manifest.workspace import ManifestIndex
from pack_lsp.core.syntax.yamltree import parse


def read_manifest(path: Path, manifest_globs: tuple[str, ...] = ()) -> Manifest | None:
    """The manifest at ``path``, or ``None`` when the file is unreadable or not a manifest."""
    try:
        raw = read_source(path)  # never blocks on a FIFO or reads a device
    except OSError:
        return None
    text, _ = decode(raw)
    if kinds.kind_from_name(str(path)) or not kinds.is_manifest(str(path), text, manifest_globs):
        return None
    return build_manifest(parse(text).root, str(path))


def index_files(paths: Iterable[Path], manifest_globs: tuple[str, ...] = ()) -> ManifestIndex:
    """An index of the manifests among ``paths`` (other files are skipped)."""
    index = ManifestIndex()
    for path in paths:
        manifest = read_manifest(path, manifest_globs)
        if manifest is not None:
            index.put(manifest, track=False)
    return index
