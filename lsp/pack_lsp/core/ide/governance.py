"""A preview of the governance in force for the pack and for each agent.

RFC 0013: a member's ``governance`` replaces the pack's ``metadata.governance`` field
by field (a field the member declares replaces the pack's whole, with no merge inside
it; a field it does not declare is the pack's). This is the reading of
``rules/governance.py``'s ``EffectiveGovernance``, applied to the plain data so the
preview shows every field as written, ``extensions`` included.
"""

from __future__ import annotations

from typing import Any

from pack_lsp.core.checks.analysis import Analysis


class GovernanceError(ValueError):
    """The preview cannot be made (not a pack, unknown agent)."""


def _mapping(value: Any) -> dict[str, Any] | None:
    return value if isinstance(value, dict) else None


def _pack_block(data: Any) -> dict[str, Any] | None:
    metadata = _mapping(data.get("metadata")) if isinstance(data, dict) else None
    return _mapping(metadata.get("governance")) if metadata is not None else None


def _members(data: Any) -> dict[str, Any]:
    agents = _mapping(data.get("agents")) if isinstance(data, dict) else None
    members = _mapping(agents.get("members")) if agents is not None else None
    return members or {}


def effective(pack_block: dict[str, Any] | None, own: dict[str, Any] | None) -> dict[str, Any]:
    """The effective object and, per field, where it comes from (``member``/``pack``)."""
    merged: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for key, value in (pack_block or {}).items():
        merged[key] = value
        sources[key] = "pack"
    for key, value in (own or {}).items():
        merged[key] = value
        sources[key] = "member"
    replaced = sorted(k for k in (own or {}) if k in (pack_block or {}))
    return {"governance": merged, "sources": sources, "replaced": replaced}


def governance_preview(analysis: Analysis, agent: str | None = None) -> dict[str, Any]:
    """``{"pack": the pack's block or None, "agents": {key: {"governance", "sources",
    "replaced", "own"}}}``; with ``agent``, that agent only.

    Raises ``GovernanceError`` for a document without a pack or an unknown agent.
    """
    if analysis.pack is None:
        raise GovernanceError("the document is not a PromptPack")
    data = analysis.data
    pack_block = _pack_block(data)
    members = _members(data)
    if agent is not None and agent not in members:
        known = ", ".join(members) or "none"
        raise GovernanceError(f"`{agent}` is not an agent of this pack (agents: {known})")
    agents: dict[str, Any] = {}
    for key, member in members.items():
        if agent is not None and key != agent:
            continue
        own = _mapping(member.get("governance")) if isinstance(member, dict) else None
        entry = effective(pack_block, own)
        entry["own"] = own is not None
        agents[key] = entry
    return {"pack": pack_block, "agents": agents}
