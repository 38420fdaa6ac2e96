"""Deriving the cards of a pack under a configuration, and describing them.

The entry points :mod:`pack_lsp.core.model.cards` exports; kept apart from the package
file so that naming a small module of the package (``names``) does not load them.
"""

from __future__ import annotations

import json
from typing import Any

from pack_lsp.core.model.cards.derive import CardSet, derive
from pack_lsp.core.model.cards.names import A2A_VERSIONS
from pack_lsp.core.model.cards.settings import CardsConfigError, CardsSettings, parse_settings
from pack_lsp.core.model.config import Config, Profile
from pack_lsp.core.model.pack import Pack


def settings_for(config: Config) -> CardsSettings:
    """The validated ``cards`` settings of ``config`` (raises :class:`CardsConfigError`)."""
    return parse_settings(config.cards, config.source)


def cards_for(
    pack: Pack,
    config: Config | None = None,
    *,
    version: str | None = None,
    profile: Profile | str | None = None,
) -> CardSet:
    """The cards of ``pack`` under ``config`` (its ``cards`` table and ``profile``).

    ``version`` ("0.3.0" or "1.0") and ``profile`` override the configuration;
    ``profile`` may be given in its external spelling (``"spec"``, ``"promptkit"``).
    Raises :class:`CardsConfigError` when the ``cards`` table cannot be used.
    """
    config = config or Config()
    if version is not None and version not in A2A_VERSIONS:
        raise CardsConfigError(
            f"unknown A2A version {version!r}; expected one of {', '.join(A2A_VERSIONS)}"
        )
    chosen = Profile(profile) if profile else config.profile
    return derive(pack, settings_for(config), profile=chosen, version=version)


def describe(cards: CardSet) -> dict[str, Any]:
    """What a client is shown: the cards, the entry, and what is not derived.

    ``configured`` lists, per agent, the JSON pointers of fields taken from the
    configuration (or the local default address) rather than from the pack.
    """
    return {
        "entry": cards.entry,
        "a2aVersion": cards.version,
        "profile": cards.profile,
        "discoveryPath": cards.discovery_path,
        "localDefault": not cards.settings.configured,
        "cards": cards.documents(),
        "configured": {k: list(c.configured) for k, c in cards.cards.items()},
    }


def card_markdown(pack: Pack, key: str, config: Config | None = None) -> str | None:
    """Markdown describing the Agent Card ``key`` would publish, for hover.

    For use by the hover provider on an ``agents.members`` key or the
    ``agents.entry`` value: returns ``None`` when ``key`` is not an agent of
    ``pack`` (so the caller falls back to its own text), and a short note instead
    of a card when the ``cards`` configuration is invalid. Pure: no I/O beyond
    the configuration object it is given.
    """
    config = config or Config()
    try:
        cards = cards_for(pack, config)
    except CardsConfigError as exc:
        return (
            f"**Agent Card** for `{key}` unavailable: {exc}"
            if pack.agents and (key in pack.agents.members)
            else None
        )
    card = cards.cards.get(key)
    if card is None:
        return None
    doc = card.document
    skill = (doc.get("skills") or [{}])[0]
    title = "Agent Card (entry agent)" if card.entry else "Agent Card"
    lines = [
        f"**{title}** `{key}` — A2A {cards.version}, published at `{cards.discovery_path}`",
        "",
    ]
    lines.append(f"- **name**: {doc.get('name', '')}")
    lines.append(f"- **description**: {doc.get('description', '*(none)*')}")
    lines.append(f"- **version**: {doc.get('version', '*(none)*')}")
    lines.append(
        f"- **skill**: `{skill.get('id', key)}` — tags: "
        + (", ".join(f"`{t}`" for t in skill.get("tags", [])) or "*(none)*")
    )
    lines.append(
        "- **modes**: in "
        + ", ".join(f"`{m}`" for m in skill.get("inputModes", []))
        + "; out "
        + ", ".join(f"`{m}`" for m in skill.get("outputModes", []))
    )
    address = doc.get("url") or (doc.get("supportedInterfaces") or [{}])[0].get("url")
    note = (
        " (local default: configure `[tool.pack-lsp.cards] url`)"
        if card.local_default
        else " (from configuration)"
    )
    lines.append(f"- **url**: `{address}`{note}")
    lines += ["", "```json", json.dumps(doc, indent=2, ensure_ascii=False), "```"]
    return "\n".join(lines)
