"""Document outline and workspace symbols."""

from __future__ import annotations

import asyncio
import logging
import os
import weakref
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from pack_lsp.core.ide import symbols
from pack_lsp.server import indexing
from pack_lsp.server.app import PackServer
from pack_lsp.server.snapshot import ByKind, DocumentSnapshot

log = logging.getLogger(__name__)

_SYMBOL_KINDS = {
    symbols.SymbolKind.SECTION: types.SymbolKind.Namespace,
    symbols.SymbolKind.PROMPT: types.SymbolKind.Class,
    symbols.SymbolKind.VARIABLE: types.SymbolKind.Variable,
    symbols.SymbolKind.TOOL: types.SymbolKind.Function,
    symbols.SymbolKind.FRAGMENT: types.SymbolKind.String,
    symbols.SymbolKind.WORKFLOW: types.SymbolKind.Module,
    symbols.SymbolKind.STATE: types.SymbolKind.EnumMember,
    symbols.SymbolKind.ARTIFACT: types.SymbolKind.Field,
    symbols.SymbolKind.AGENTS: types.SymbolKind.Module,
    symbols.SymbolKind.MEMBER: types.SymbolKind.Interface,
    symbols.SymbolKind.COMPOSITION: types.SymbolKind.Module,
    symbols.SymbolKind.STEP: types.SymbolKind.Event,
}

#: Each server's workspace symbol cache (the packs on disk, by modification time).
_WORKSPACES: weakref.WeakKeyDictionary[PackServer, symbols.WorkspaceSymbols] = (
    weakref.WeakKeyDictionary()
)


def _document_symbol(snap: DocumentSnapshot, sym: symbols.DocumentSymbol) -> types.DocumentSymbol:
    return types.DocumentSymbol(
        name=sym.name,
        detail=sym.detail or None,
        kind=_SYMBOL_KINDS[sym.kind],
        range=snap.range(sym.span),
        selection_range=snap.range(sym.selection),
        children=[_document_symbol(snap, c) for c in sym.children],
    )


def _outline(
    snap: DocumentSnapshot, params: types.DocumentSymbolParams
) -> list[types.DocumentSymbol]:
    found = symbols.document_symbols(snap.analysis.pack, snap.analysis.root)
    return [_document_symbol(snap, s) for s in found]


DOCUMENT_SYMBOLS = ByKind(pack=_outline)


async def document_symbol(
    ls: PackServer, params: types.DocumentSymbolParams
) -> list[types.DocumentSymbol]:
    return await ls.answer(
        params.text_document.uri, DOCUMENT_SYMBOLS, params, [], feature="documentSymbol"
    )


@dataclass(frozen=True)
class SymbolSearch:
    """What a workspace symbol search reads, taken from the server on the event loop:
    the workspace's symbol index (folders open) or the disk cache and the open
    documents' texts (no folder), and the open packs' symbols as they are in the
    editor."""

    index: symbols.SymbolIndex | None
    open_symbols: dict[Path, list[symbols.WorkspaceSymbol]]
    cache: symbols.WorkspaceSymbols | None = None
    folders: tuple[Path, ...] = ()
    open_texts: dict[Path, str] = field(default_factory=dict)


def _search(
    snap: SymbolSearch, params: types.WorkspaceSymbolParams
) -> list[symbols.WorkspaceSymbol]:
    """The handler: the symbols matching the query, from the snapshot alone."""
    if snap.index is not None:
        return snap.index.search(params.query, snap.open_symbols)
    assert snap.cache is not None
    return snap.cache.search(params.query, snap.folders, snap.open_texts)


async def _symbol_search(ls: PackServer) -> SymbolSearch:
    """The snapshot of a search; the first search of a session with folders waits for
    the symbol index to be built (``server.indexing``), with progress."""
    if ls.workspace_folders():
        task = indexing.symbols_index(ls)
        scan = indexing.scan_of(ls)
        if task is not None and not scan.symbols.ready:
            await asyncio.shield(task)
        return SymbolSearch(scan.symbols, _open_symbols(ls))
    open_texts: dict[Path, str] = {}
    for uri, doc in ls.documents.items():
        path = to_fs_path(uri)
        if path and ls.kind_of(uri, doc.text) is not None:
            open_texts[Path(os.path.abspath(path))] = doc.text
    cache = _WORKSPACES.get(ls)
    if cache is None:
        cache = _WORKSPACES[ls] = symbols.WorkspaceSymbols()
    return SymbolSearch(None, {}, cache, tuple(ls.workspace_folders()), open_texts)


async def workspace_symbol(
    ls: PackServer, params: types.WorkspaceSymbolParams
) -> list[types.SymbolInformation]:
    """The symbols matching the query in every pack of the workspace folders (open
    documents as they are in the editor), from the symbol index (``server.indexing``):
    the first search of a session waits for it to be built, with progress; later ones
    read no file. The entry takes the snapshot and converts; ``_search`` answers."""
    try:
        found = _search(await _symbol_search(ls), params)
        conv = ls.converter
        return [
            types.SymbolInformation(
                name=s.name,
                kind=_SYMBOL_KINDS[s.kind],
                location=types.Location(
                    uri=from_fs_path(str(s.path)) or s.path.as_uri(),
                    range=conv.range(s.lines, s.selection),
                ),
                container_name=s.container or None,
            )
            for s in found
        ]
    except Exception as exc:
        log.exception("workspace symbols failed")
        ls.log_message(
            f"pack-lsp: workspace symbols failed: {type(exc).__name__}: {exc}",
            types.MessageType.Error,
        )
        return []


def _open_symbols(ls: PackServer) -> dict[Path, list[symbols.WorkspaceSymbol]]:
    """The symbols of the open packs as they are in the editor: from the analysis of
    their current version when there is one, else from their text."""
    out: dict[Path, list[symbols.WorkspaceSymbol]] = {}
    for uri, doc in ls.documents.items():
        path = to_fs_path(uri)
        if not path or ls.kind_of(uri, doc.text) is None:
            continue
        where = Path(os.path.abspath(path))
        track = ls.tracks.get(uri)
        analysis = track.analysis if track is not None else None
        if analysis is not None and track is not None and track.version == doc.version:
            out[where] = symbols.symbols_of_pack(
                analysis.pack, analysis.root, analysis.lines, where
            )
        else:
            out[where] = symbols.symbols_of_text(doc.text, where)
    return out


def register(server: PackServer) -> None:
    server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)(document_symbol)
    server.feature(types.WORKSPACE_SYMBOL)(workspace_symbol)
