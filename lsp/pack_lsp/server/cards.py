"""Agent Cards and topology over LSP.

- ``promptpack/agentCards`` with ``{"textDocument": {"uri"}}`` (optionally
  ``"a2aVersion"`` and ``"profile"``) answers ``{"entry", "cards": {key: card},
  "a2aVersion", "profile", "discoveryPath", "localDefault", "configured"}`` (see
  ``pack_lsp.core.model.cards.describe``); with an unusable ``cards`` configuration,
  ``cards`` is empty and ``error`` says why.
- ``promptpack/topology`` with ``{"textDocument": {"uri"}}`` answers the call
  graph as JSON (``entry``, ``nodes``, ``edges``) plus its Mermaid and dot text.
- A code lens above every ``agents.members`` key ("Agent Card", "Agent Card ·
  entry agent") runs ``promptpack.showAgentCard`` with ``[uri, key]``, which
  answers that agent's card.

For a file of an arena project (its config, a PromptConfig...), each answers for the
pack the project compiles to (``server.arena.compiled_snapshot``); the lenses go
above the member keys written in the arena config.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from pack_lsp.core.model.cards import CardsConfigError, cards_for, describe
from pack_lsp.core.model.cards.topology import build, to_dot, to_mermaid
from pack_lsp.core.model.resolve import ToolSettings
from pack_lsp.server import arena
from pack_lsp.server.app import PackServer
from pack_lsp.server.snapshot import ByKind, DocumentSnapshot

AGENT_CARDS = "promptpack/agentCards"
TOPOLOGY = "promptpack/topology"
SHOW_CARD = "promptpack.showAgentCard"


def _get(obj: Any, *names: str) -> Any:
    """A field of request params, whether they arrive as a dict or an object."""
    for name in names:
        if obj is None:
            return None
        obj = obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)
    return obj


def _uri(params: Any) -> str | None:
    uri = _get(params, "textDocument", "uri")
    if uri is None:
        uri = _get(params, "text_document", "uri")
    return uri if isinstance(uri, str) else None


def agent_cards(
    snap: DocumentSnapshot, version: str | None = None, profile: str | None = None
) -> dict[str, Any]:
    pack = snap.analysis.pack
    if pack is None:
        return {"entry": None, "cards": {}}
    try:
        cards = cards_for(
            pack,
            snap.analysis.config,
            version=version,
            profile="promptkit"
            if profile == "promptkit"
            else "spec"
            if profile == "spec"
            else None,
        )
    except CardsConfigError as exc:
        entry = pack.agents.entry.value if pack.agents and pack.agents.entry else None
        return {"entry": entry, "cards": {}, "error": str(exc)}
    return describe(cards)


def topology(snap: DocumentSnapshot) -> dict[str, Any]:
    pack = snap.analysis.pack
    if pack is None:
        return {"entry": None, "nodes": [], "edges": []}
    config = snap.analysis.config
    topo = build(pack, include_entry=config.profile == "spec", settings=ToolSettings.of(config))
    out = topo.to_json()
    out["mermaid"] = to_mermaid(topo)
    out["dot"] = to_dot(topo)
    return out


def code_lenses(
    snap: DocumentSnapshot, keys: list[tuple[str, types.Range]] | None = None
) -> list[types.CodeLens]:
    """A lens above each member key: those of the pack, or ``keys`` (an arena config's
    members, read from its compiled pack ``snap``)."""
    pack = snap.analysis.pack
    if pack is None or pack.agents is None:
        return []
    entry = pack.agents.entry.value if pack.agents.entry is not None else None
    if keys is None:
        keys = [(key, snap.range(m.key_span)) for key, m in pack.agents.members.items()]
    lenses = []
    for key, where in keys:
        title = "Agent Card · entry agent" if key == entry else "Agent Card"
        lenses.append(
            types.CodeLens(
                range=where,
                command=types.Command(title=title, command=SHOW_CARD, arguments=[snap.uri, key]),
            )
        )
    return lenses


def _string(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _cards(snap: DocumentSnapshot, params: Any) -> dict[str, Any]:
    return agent_cards(snap, _string(_get(params, "a2aVersion")), _string(_get(params, "profile")))


def _card(snap: DocumentSnapshot, key: str) -> dict[str, Any] | None:
    card = agent_cards(snap)["cards"].get(key)
    return card if isinstance(card, dict) else None


def _topology(snap: DocumentSnapshot, params: Any) -> dict[str, Any]:
    return topology(snap)


def _lenses(snap: DocumentSnapshot, params: types.CodeLensParams) -> list[types.CodeLens]:
    return code_lenses(snap)


def _arena_cards(snap: DocumentSnapshot, params: Any) -> dict[str, Any]:
    return _cards(arena.compiled_snapshot(snap), params)


def _arena_card(snap: DocumentSnapshot, key: str) -> dict[str, Any] | None:
    return _card(arena.compiled_snapshot(snap), key)


def _arena_topology(snap: DocumentSnapshot, params: Any) -> dict[str, Any]:
    return _topology(arena.compiled_snapshot(snap), params)


def _arena_lenses(snap: DocumentSnapshot, params: types.CodeLensParams) -> list[types.CodeLens]:
    """An arena config: lenses above the members its compiled pack takes from it."""
    if snap.analysis.pack is not None:
        return code_lenses(snap)
    return code_lenses(arena.compiled_snapshot(snap), arena.member_keys(snap))


# A file of an arena project answers for the pack its project compiles to.
_CARDS = ByKind(pack=_cards, arena=_arena_cards)
_TOPOLOGY = ByKind(pack=_topology, arena=_arena_topology)
_LENSES = ByKind(pack=_lenses, arena=_arena_lenses)
_SHOW_CARD = ByKind(pack=_card, arena=_arena_card)


async def on_agent_cards(ls: PackServer, params: Any) -> dict[str, Any]:
    uri = _uri(params)
    empty: dict[str, Any] = {"entry": None, "cards": {}}
    if uri is None:
        return empty
    return await ls.answer(uri, _CARDS, params, empty, feature="agent cards")


async def on_topology(ls: PackServer, params: Any) -> dict[str, Any]:
    uri = _uri(params)
    empty: dict[str, Any] = {"entry": None, "nodes": [], "edges": []}
    if uri is None:
        return empty
    return await ls.answer(uri, _TOPOLOGY, params, empty, feature="topology")


async def on_code_lens(ls: PackServer, params: types.CodeLensParams) -> list[types.CodeLens]:
    return await ls.answer(params.text_document.uri, _LENSES, params, [], feature="code lens")


async def on_show_card(ls: PackServer, *args: Any) -> dict[str, Any] | None:
    if len(args) < 2 or not isinstance(args[0], str) or not isinstance(args[1], str):
        return None
    uri, key = args[0], args[1]
    return await ls.answer(uri, _SHOW_CARD, key, None, feature="show agent card")


def register(server: PackServer) -> None:
    server.feature(AGENT_CARDS)(on_agent_cards)
    server.feature(TOPOLOGY)(on_topology)
    server.feature(types.TEXT_DOCUMENT_CODE_LENS)(on_code_lens)
    server.command(SHOW_CARD)(on_show_card)
