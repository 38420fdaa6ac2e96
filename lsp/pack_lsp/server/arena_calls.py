"""Call hierarchy in arena projects (``core.arena.callhierarchy``), for
``server.callhierarchy``.

An item may be written in a file the editor has not opened (a tool file, the arena
config), so an item's ``data`` names its project (``config``, the arena config's
path) besides the symbol, and the follow-up requests are answered from that
project's check, not from a document snapshot. Ranges are computed on the texts the
project read (the editor's text for open files).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from pack_lsp.core.base.text import LineIndex, Span
from pack_lsp.core.checks.arena.check import ProjectCheck
from pack_lsp.core.ide.arena import callhierarchy as core
from pack_lsp.core.ide.index import Kind, SymbolId
from pack_lsp.server.app import PackServer
from pack_lsp.server.arena import ServerArena
from pack_lsp.server.snapshot import DocumentSnapshot

log = logging.getLogger(__name__)

_SYMBOL_KINDS = {
    Kind.PROMPT: types.SymbolKind.Function,
    Kind.TOOL: types.SymbolKind.Method,
    Kind.STATE: types.SymbolKind.EnumMember,
    Kind.COMPOSITION: types.SymbolKind.Module,
    Kind.STEP: types.SymbolKind.Event,
}


class _Ranges:
    """LSP ranges of spans in the project's files (one line index per file)."""

    def __init__(self, ls: PackServer, check: ProjectCheck) -> None:
        self.ls = ls
        self.check = check
        self.lines: dict[str, LineIndex] = {}

    def range(self, path: str, span: Span) -> types.Range:
        lines = self.lines.get(path)
        if lines is None:
            file = self.check.project.files.get(path)
            lines = self.lines[path] = LineIndex(file.text if file is not None else "")
        return self.ls.converter.range(lines, span)

    def item(self, item: core.ArenaCallItem) -> types.CallHierarchyItem:
        symbol = item.symbol
        return types.CallHierarchyItem(
            name=symbol.name,
            kind=_SYMBOL_KINDS.get(symbol.kind, types.SymbolKind.Object),
            uri=from_fs_path(item.path) or Path(item.path).as_uri(),
            range=self.range(item.path, item.span),
            selection_range=self.range(item.path, item.selection),
            detail=item.detail,
            data={
                "kind": symbol.kind.value,
                "name": symbol.name,
                "scope": symbol.scope,
                "config": self.check.project.path,
            },
        )


def prepare(ls: PackServer, snap: DocumentSnapshot, offset: int) -> list[types.CallHierarchyItem]:
    """The items at ``offset`` of a file of an arena project (the first of its
    projects that compiles and has an item there)."""
    support = ls.arena
    path = to_fs_path(snap.uri)
    if not isinstance(support, ServerArena) or not path:
        return []
    for check in support.workspace.projects_of(path):
        found = core.prepare(check, path, offset)
        if found:
            ranges = _Ranges(ls, check)
            return [ranges.item(i) for i in found]
    return []


def is_arena_item(item: types.CallHierarchyItem) -> bool:
    """Whether ``item`` was made by ``prepare`` here (its data names a project)."""
    data: Any = item.data
    return isinstance(data, dict) and isinstance(data.get("config"), str)


def _symbol(ls: PackServer, item: types.CallHierarchyItem) -> tuple[ProjectCheck, SymbolId] | None:
    data: Any = item.data
    support = ls.arena
    if not isinstance(data, dict) or not isinstance(support, ServerArena):
        return None
    kind, name, scope = data.get("kind"), data.get("name"), data.get("scope")
    config = data.get("config")
    if not isinstance(kind, str) or not isinstance(name, str) or not isinstance(config, str):
        return None
    if scope is not None and not isinstance(scope, str):
        return None
    check = support.workspace.check(config)
    try:
        symbol = SymbolId(Kind(kind), name, scope)
    except ValueError:
        return None
    return (check, symbol) if check is not None else None


def _calls(
    ls: PackServer, item: types.CallHierarchyItem, outgoing: bool
) -> list[tuple[types.CallHierarchyItem, list[types.Range]]]:
    found = _symbol(ls, item)
    if found is None:
        return []
    check, symbol = found
    calls = core.outgoing(check, symbol) if outgoing else core.incoming(check, symbol)
    ranges = _Ranges(ls, check)
    return [
        (ranges.item(call.item), [ranges.range(call.path, s) for s in call.sites]) for call in calls
    ]


def _guarded(
    ls: PackServer, item: types.CallHierarchyItem, outgoing: bool
) -> list[tuple[types.CallHierarchyItem, list[types.Range]]]:
    feature = "outgoing calls" if outgoing else "incoming calls"
    try:
        return _calls(ls, item, outgoing)
    except Exception as exc:
        log.exception("%s failed for %s", feature, item.uri)
        ls.log_message(
            f"pack-lsp: {feature} failed for {item.uri}: {type(exc).__name__}: {exc}",
            types.MessageType.Error,
        )
        return []


def incoming(
    ls: PackServer, item: types.CallHierarchyItem
) -> list[types.CallHierarchyIncomingCall]:
    return [
        types.CallHierarchyIncomingCall(from_=caller, from_ranges=sites)
        for caller, sites in _guarded(ls, item, outgoing=False)
    ]


def outgoing(
    ls: PackServer, item: types.CallHierarchyItem
) -> list[types.CallHierarchyOutgoingCall]:
    return [
        types.CallHierarchyOutgoingCall(to=callee, from_ranges=sites)
        for callee, sites in _guarded(ls, item, outgoing=True)
    ]
