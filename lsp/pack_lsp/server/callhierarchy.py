"""Call hierarchy: ``textDocument/prepareCallHierarchy`` and the incoming and outgoing
calls of an item, over the pack's call graph (``core.language.callhierarchy``).

An item's ``data`` holds the symbol (``kind``, ``name``, ``scope``), so the follow-up
requests find it again in the document's current analysis; an item whose definition
is gone since answers no calls. In the files of an arena project the items and calls
are those of its compiled pack, in the project's files (``server.arena_calls``).
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from pack_lsp.core.ide import callhierarchy as core
from pack_lsp.core.ide.index import Kind
from pack_lsp.server import arena_calls
from pack_lsp.server.app import PackServer
from pack_lsp.server.snapshot import ByKind, DocumentSnapshot

_SYMBOL_KINDS = {
    Kind.PROMPT: types.SymbolKind.Function,
    Kind.TOOL: types.SymbolKind.Method,
    Kind.STATE: types.SymbolKind.EnumMember,
    Kind.COMPOSITION: types.SymbolKind.Module,
    Kind.STEP: types.SymbolKind.Event,
}


def _item(snap: DocumentSnapshot, item: core.CallItem) -> types.CallHierarchyItem:
    symbol = item.symbol
    return types.CallHierarchyItem(
        name=symbol.name,
        kind=_SYMBOL_KINDS.get(symbol.kind, types.SymbolKind.Object),
        uri=snap.uri,
        range=snap.range(item.span),
        selection_range=snap.range(item.selection),
        detail=item.detail,
        data={"kind": symbol.kind.value, "name": symbol.name, "scope": symbol.scope},
    )


def _symbol_of(snap: DocumentSnapshot, item: types.CallHierarchyItem) -> core.CallItem | None:
    data: Any = item.data
    if not isinstance(data, dict):
        return None
    kind, name, scope = data.get("kind"), data.get("name"), data.get("scope")
    if not isinstance(kind, str) or not isinstance(name, str):
        return None
    if scope is not None and not isinstance(scope, str):
        return None
    return core.item_for(snap.analysis, kind, name, scope)


def _prepare(
    snap: DocumentSnapshot, params: types.CallHierarchyPrepareParams
) -> list[types.CallHierarchyItem] | None:
    found = core.prepare(snap.analysis, snap.offset(params.position))
    return [_item(snap, i) for i in found] or None


def _calls(
    snap: DocumentSnapshot, asked: types.CallHierarchyItem, outgoing: bool
) -> list[tuple[types.CallHierarchyItem, list[types.Range]]]:
    """The items calling ``asked`` (or called by it), each with the call sites."""
    item = _symbol_of(snap, asked)
    if item is None:
        return []
    find = core.outgoing if outgoing else core.incoming
    return [
        (_item(snap, call.item), [snap.range(s) for s in call.sites])
        for call in find(snap.analysis, item.symbol)
    ]


def _incoming(
    snap: DocumentSnapshot, params: types.CallHierarchyIncomingCallsParams
) -> list[types.CallHierarchyIncomingCall]:
    return [
        types.CallHierarchyIncomingCall(from_=caller, from_ranges=sites)
        for caller, sites in _calls(snap, params.item, outgoing=False)
    ]


def _outgoing(
    snap: DocumentSnapshot, params: types.CallHierarchyOutgoingCallsParams
) -> list[types.CallHierarchyOutgoingCall]:
    return [
        types.CallHierarchyOutgoingCall(to=callee, from_ranges=sites)
        for callee, sites in _calls(snap, params.item, outgoing=True)
    ]


def _arena_prepare(
    snap: DocumentSnapshot, params: types.CallHierarchyPrepareParams
) -> list[types.CallHierarchyItem] | None:
    """A file of an arena project: the items of its project's compiled pack."""
    if snap.analysis.pack is not None:
        return _prepare(snap, params)
    return arena_calls.prepare(snap, snap.offset(params.position)) or None


PREPARE = ByKind(pack=_prepare, arena=_arena_prepare)
INCOMING = ByKind(pack=_incoming)
OUTGOING = ByKind(pack=_outgoing)


async def prepare(
    ls: PackServer, params: types.CallHierarchyPrepareParams
) -> list[types.CallHierarchyItem] | None:
    uri = params.text_document.uri
    return await ls.answer(uri, PREPARE, params, None, feature="call hierarchy", at=params.position)


async def incoming(
    ls: PackServer, params: types.CallHierarchyIncomingCallsParams
) -> list[types.CallHierarchyIncomingCall]:
    if arena_calls.is_arena_item(params.item):  # answered from its project
        return ls.answer_workspace(
            arena_calls.incoming, params, [], feature="incoming calls", uri=params.item.uri
        )
    uri = params.item.uri
    return await ls.answer(
        uri, INCOMING, params, [], feature="incoming calls", at=params.item.selection_range.start
    )


async def outgoing(
    ls: PackServer, params: types.CallHierarchyOutgoingCallsParams
) -> list[types.CallHierarchyOutgoingCall]:
    if arena_calls.is_arena_item(params.item):
        return ls.answer_workspace(
            arena_calls.outgoing, params, [], feature="outgoing calls", uri=params.item.uri
        )
    uri = params.item.uri
    return await ls.answer(
        uri, OUTGOING, params, [], feature="outgoing calls", at=params.item.selection_range.start
    )


def register(server: PackServer) -> None:
    server.feature(types.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY)(prepare)
    server.feature(types.CALL_HIERARCHY_INCOMING_CALLS)(incoming)
    server.feature(types.CALL_HIERARCHY_OUTGOING_CALLS)(outgoing)
