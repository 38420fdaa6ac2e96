"""Call hierarchy in arena projects (``core.arena.callhierarchy``), for
``server.callhierarchy``.

An item may be written in a file the editor has not opened (a tool file, the arena
config), so an item's ``data`` names its project (``config``, the arena config's
path) besides the symbol, and the follow-up requests are answered from that
project's check, not from a document snapshot. Ranges are computed on the texts the
project read (the editor's text for open files). They are answered from the
workspace snapshot (``PackServer.answer_workspace``), which logs a failure.
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
from pack_lsp.server.positions import PositionConverter
from pack_lsp.server.snapshot import DocumentSnapshot
from pack_lsp.server.workspace import WorkspaceSnapshot

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

    def __init__(self, converter: PositionConverter, check: ProjectCheck) -> None:
        self.converter = converter
        self.check = check
        self.lines: dict[str, LineIndex] = {}

    def range(self, path: str, span: Span) -> types.Range:
        lines = self.lines.get(path)
        if lines is None:
            file = self.check.project.files.get(path)
            lines = self.lines[path] = LineIndex(file.text if file is not None else "")
        return self.converter.range(lines, span)

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


def prepare(snap: DocumentSnapshot, offset: int) -> list[types.CallHierarchyItem]:
    """The items at ``offset`` of a file of an arena project (the first of its
    projects that compiles and has an item there)."""
    path = to_fs_path(snap.uri)
    if snap.workspace is None or not path:
        return []
    for check in snap.workspace.arena_checks(snap.uri):
        found = core.prepare(check, path, offset)
        if found:
            ranges = _Ranges(snap.converter, check)
            return [ranges.item(i) for i in found]
    return []


def is_arena_item(item: types.CallHierarchyItem) -> bool:
    """Whether ``item`` was made by ``prepare`` here (its data names a project)."""
    data: Any = item.data
    return isinstance(data, dict) and isinstance(data.get("config"), str)


def _symbol(
    workspace: WorkspaceSnapshot, item: types.CallHierarchyItem
) -> tuple[ProjectCheck, SymbolId] | None:
    data: Any = item.data
    if not isinstance(data, dict):
        return None
    kind, name, scope = data.get("kind"), data.get("name"), data.get("scope")
    config = data.get("config")
    if not isinstance(kind, str) or not isinstance(name, str) or not isinstance(config, str):
        return None
    if scope is not None and not isinstance(scope, str):
        return None
    check = workspace.arena_check(config)
    try:
        symbol = SymbolId(Kind(kind), name, scope)
    except ValueError:
        return None
    return (check, symbol) if check is not None else None


def _calls(
    workspace: WorkspaceSnapshot, item: types.CallHierarchyItem, outgoing: bool
) -> list[tuple[types.CallHierarchyItem, list[types.Range]]]:
    found = _symbol(workspace, item)
    if found is None:
        return []
    check, symbol = found
    calls = core.outgoing(check, symbol) if outgoing else core.incoming(check, symbol)
    ranges = _Ranges(workspace.converter, check)
    return [
        (ranges.item(call.item), [ranges.range(call.path, s) for s in call.sites]) for call in calls
    ]


def incoming(
    workspace: WorkspaceSnapshot, params: types.CallHierarchyIncomingCallsParams
) -> list[types.CallHierarchyIncomingCall]:
    """The callers of an item ``prepare`` made, from its project's check."""
    return [
        types.CallHierarchyIncomingCall(from_=caller, from_ranges=sites)
        for caller, sites in _calls(workspace, params.item, outgoing=False)
    ]


def outgoing(
    workspace: WorkspaceSnapshot, params: types.CallHierarchyOutgoingCallsParams
) -> list[types.CallHierarchyOutgoingCall]:
    """What an item ``prepare`` made calls, from its project's check."""
    return [
        types.CallHierarchyOutgoingCall(to=callee, from_ranges=sites)
        for callee, sites in _calls(workspace, params.item, outgoing=True)
    ]
