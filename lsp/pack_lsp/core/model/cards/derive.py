"""Deriving A2A Agent Cards from a pack's ``agents`` section (RFC 0007).

One card per ``agents.members`` key. Under the ``spec`` profile the entry agent
also gets a card when it is not listed as a member (the RFC's proposal that the
entry is implicitly an agent); under ``promptkit`` only members do, as in the
reference runtime.

Fields from the pack (RFC 0007 mapping):

- ``name`` ← the prompt's ``name`` (the member key when the prompt has none)
- ``description`` and the skill's ``description`` ← the member's ``description``,
  else the prompt's
- ``version`` ← the prompt's ``version``, else the pack's (``spec``); the pack's
  ``version`` (``promptkit``, as its generator does)
- one skill: ``id`` ← the member key, ``name`` ← the prompt's name, ``tags`` ← the
  member's tags, ``inputModes``/``outputModes`` ← the member's modes or
  ``["text/plain"]``; the card's ``defaultInputModes``/``defaultOutputModes`` are
  the same lists.

Every other field (address, transport, capabilities, security, provider,
extensions) is a deployment choice taken from :mod:`.settings` and listed in
``Card.configured``; without configuration the address is the labelled local
default ``http://localhost:8080/{agent}``. A2A 1.0 requires a tag on every
skill: when the member has none, the preview uses the member key as the only tag
(also listed in ``Card.configured``) and rule PP702 asks for real tags. A
``description`` under ``agents.<key>`` in the settings is used only when neither
the member nor the prompt has one.

Each card keeps ``origins``: the pack location every derived value came from,
keyed by JSON pointer, so that problems found in the card are reported on the
pack text that caused them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pack_lsp.core.base.text import Span
from pack_lsp.core.model.cards.settings import (
    LOCAL_URL,
    AgentSettings,
    CardsSettings,
    Extension,
    SecurityScheme,
)
from pack_lsp.core.model.config import Profile
from pack_lsp.core.model.pack import Located, Member, Pack, Prompt

DEFAULT_MODES: tuple[str, ...] = ("text/plain",)
DISCOVERY_PATH = "/.well-known/agent-card.json"  # from A2A 0.3.0 on (0.2.x: agent.json)
PROTOCOL_VERSION = {"0.3.0": "0.3.0", "1.0": "1.0"}


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a card value came from in the pack."""

    span: Span
    what: str  # e.g. "prompts.researcher.description"


@dataclass(frozen=True, slots=True)
class Card:
    """The agent card derived for one agent, with where each field came from."""

    key: str
    entry: bool
    document: dict[str, Any]
    origins: Mapping[str, Origin]
    configured: tuple[str, ...]  # JSON pointers of fields set by configuration
    local_default: bool  # the address is the local placeholder, not configured
    member: Member | None
    prompt: Prompt | None

    @property
    def anchor(self) -> Span:
        """The place in the pack that makes this an agent (member key or entry)."""
        return self.origins[""].span

    def skill_ids(self) -> list[str]:
        return [
            s["id"]
            for s in self.document.get("skills", [])
            if isinstance(s, dict) and isinstance(s.get("id"), str)
        ]


@dataclass(frozen=True, slots=True)
class CardSet:
    """The agent cards of a pack, for one A2A version and profile."""

    version: str
    profile: Profile
    settings: CardsSettings
    entry: str | None
    cards: dict[str, Card] = field(default_factory=dict)

    @property
    def discovery_path(self) -> str:
        return DISCOVERY_PATH

    def documents(self) -> dict[str, dict[str, Any]]:
        return {k: c.document for k, c in self.cards.items()}


def _text(loc: Located | None) -> str | None:
    return loc.value if loc is not None and isinstance(loc.value, str) else None


def agent_keys(pack: Pack, profile: Profile) -> list[str]:
    """Keys that get a card, in document order: the members, in both profiles.

    RFC 0007 leaves open whether an entry prompt missing from ``members`` is an agent
    (its "Unresolved Questions"); PromptKit derives one card per member and rejects
    such an entry. pack-lsp reads it as PromptKit does, so that cards, the topology
    (only members are called) and the diagnostics agree: PP202 says the entry gets
    no card, PP205 that a prompt naming it as a tool does not call an agent.
    """
    if pack.agents is None:
        return []
    return list(pack.agents.members)


def derive(
    pack: Pack,
    settings: CardsSettings | None = None,
    *,
    profile: Profile = Profile.SPEC,
    version: str | None = None,
) -> CardSet:
    """All cards of ``pack`` for A2A ``version`` (default: the configured one)."""
    settings = settings or CardsSettings()
    version = version or settings.a2a_version
    entry = _text(pack.agents.entry) if pack.agents is not None else None
    cards = {
        key: _card(pack, key, key == entry, settings, profile, version)
        for key in agent_keys(pack, profile)
    }
    return CardSet(version=version, profile=profile, settings=settings, entry=entry, cards=cards)


def _modes(member: Member | None, which: str) -> tuple[list[str], Span | None, list[Located]]:
    if member is None:
        return list(DEFAULT_MODES), None, []
    items: list[Located] = getattr(member, f"{which}_modes")
    span: Span | None = getattr(member, f"{which}_modes_span")
    if items:
        return [i.value for i in items], span, items
    return list(DEFAULT_MODES), None, []


@dataclass(slots=True)
class _Draft:
    """What one card is made of, gathered from the pack before it is written out.

    ``origins`` maps JSON pointers of the card to the pack locations they came
    from; ``configured`` lists the pointers set from the configuration instead.
    """

    key: str
    anchor: Span
    origins: dict[str, Origin]
    configured: list[str]
    name: str = ""
    description: str | None = None
    version: str | None = None
    in_modes: list[str] = field(default_factory=list)
    out_modes: list[str] = field(default_factory=list)


def _card(
    pack: Pack,
    key: str,
    is_entry: bool,
    settings: CardsSettings,
    profile: Profile,
    version: str,
) -> Card:
    assert pack.agents is not None
    member = pack.agents.members.get(key)
    prompt = pack.prompts.get(key)
    own = settings.agents.get(key)
    anchor = (
        member.key_span
        if member is not None
        else (pack.agents.entry.span if pack.agents.entry is not None else pack.agents.key_span)
    )
    draft = _Draft(
        key,
        anchor,
        {"": Origin(anchor, f"agents.members.{key}" if member else "agents.entry")},
        [],
    )
    _name(draft, prompt)
    description_configured = _description(draft, member, prompt, own)
    _version(draft, pack, prompt, profile)
    skill = _skill(draft, member, version, description_configured)
    url = settings.url_for(key, _text(pack.id))
    local_default = not settings.configured and not (own is not None and own.url is not None)
    extensions = _extensions(settings, key)
    if version == "1.0":
        doc = _document_v1(draft, settings, skill, url, extensions)
    else:
        doc = _document_v03(draft, settings, skill, url, extensions)
    return Card(
        key=key,
        entry=is_entry,
        document=doc,
        origins=draft.origins,
        configured=tuple(draft.configured),
        local_default=local_default,
        member=member,
        prompt=prompt,
    )


def _name(draft: _Draft, prompt: Prompt | None) -> None:
    """The prompt's ``name``, else the member key."""
    name = _text(prompt.name) if prompt is not None else None
    if name:
        assert prompt is not None and prompt.name is not None
        draft.origins["/name"] = Origin(prompt.name.span, f"prompts.{draft.key}.name")
    else:
        name = draft.key
        draft.origins["/name"] = Origin(draft.anchor, f"the member key {draft.key}")
    draft.name = name


def _description(
    draft: _Draft, member: Member | None, prompt: Prompt | None, own: AgentSettings | None
) -> bool:
    """The member's description, else the prompt's, else the configured one.

    Returns whether the configuration supplied it.
    """
    key = draft.key
    if member is not None and _text(member.description) is not None:
        assert member.description is not None
        draft.description = member.description.value
        draft.origins["/description"] = Origin(
            member.description.span, f"agents.members.{key}.description"
        )
    elif prompt is not None and _text(prompt.description) is not None:
        assert prompt.description is not None
        draft.description = prompt.description.value
        draft.origins["/description"] = Origin(
            prompt.description.span, f"prompts.{key}.description"
        )
    else:
        draft.origins["/description"] = Origin(draft.anchor, f"agents.members.{key}")
    if draft.description is None and own is not None and own.description:
        draft.description = own.description
        return True
    return False


def _version(draft: _Draft, pack: Pack, prompt: Prompt | None, profile: Profile) -> None:
    """The prompt's ``version`` (``spec`` profile only), else the pack's."""
    prompt_where = f"prompts.{draft.key}"
    if profile is Profile.SPEC and prompt is not None and _text(prompt.version):
        assert prompt.version is not None
        draft.version = prompt.version.value
        draft.origins["/version"] = Origin(prompt.version.span, f"{prompt_where}.version")
    elif _text(pack.version):
        assert pack.version is not None
        draft.version = pack.version.value
        draft.origins["/version"] = Origin(pack.version.span, "version")
    else:
        draft.origins["/version"] = Origin(
            prompt.key_span if prompt is not None else draft.anchor, prompt_where
        )


def _skill(
    draft: _Draft, member: Member | None, version: str, description_configured: bool
) -> dict[str, Any]:
    """The card's one skill (the agent itself), and the origins of its fields."""
    key = draft.key
    anchor = draft.anchor
    in_modes, in_span, in_items = _modes(member, "input")
    out_modes, out_span, out_items = _modes(member, "output")
    draft.in_modes, draft.out_modes = in_modes, out_modes
    tags = [t.value for t in member.tags] if member is not None else []
    if not tags and version == "1.0":
        # A2A 1.0 needs a tag; the preview stands in the key (PP702 asks for real ones).
        tags = [key]
        draft.configured.append("/skills/0/tags")
    if description_configured:
        draft.configured.append("/description")

    skill: dict[str, Any] = {"id": key, "name": draft.name}
    if draft.description is not None:
        skill["description"] = draft.description
    skill["tags"] = tags
    skill["inputModes"] = in_modes
    skill["outputModes"] = out_modes
    origins = {
        "/skills/0": Origin(anchor, f"agents.members.{key}"),
        "/skills/0/id": Origin(anchor, f"agents.members.{key}"),
        "/skills/0/name": draft.origins["/name"],
        "/skills/0/description": draft.origins["/description"],
        "/skills/0/tags": Origin(
            member.tags_span if member is not None and member.tags_span is not None else anchor,
            f"agents.members.{key}.tags",
        ),
    }
    for which, span, items in (("input", in_span, in_items), ("output", out_span, out_items)):
        pointer = f"/skills/0/{which}Modes"
        where = f"agents.members.{key}.{which}_modes"
        origins[pointer] = Origin(span or anchor, where)
        origins[f"/default{which.capitalize()}Modes"] = Origin(span or anchor, where)
        for i, item in enumerate(items):
            origins[f"{pointer}/{i}"] = Origin(item.span, f"{where}[{i}]")
            origins[f"/default{which.capitalize()}Modes/{i}"] = Origin(item.span, f"{where}[{i}]")
    for i, tag in enumerate(member.tags if member is not None else []):
        origins[f"/skills/0/tags/{i}"] = Origin(tag.span, f"agents.members.{key}.tags[{i}]")
    draft.origins.update(origins)
    return skill


def _document_v1(
    draft: _Draft,
    settings: CardsSettings,
    skill: dict[str, Any],
    url: str,
    extensions: list[dict[str, Any]],
) -> dict[str, Any]:
    """The card as A2A 1.0 writes it (fields in the order of the specification)."""
    configured = draft.configured
    doc: dict[str, Any] = {"name": draft.name}
    if draft.description is not None:
        doc["description"] = draft.description
    doc["supportedInterfaces"] = [
        {"url": url, "protocolBinding": settings.transport, "protocolVersion": "1.0"}
    ]
    configured.append("/supportedInterfaces")
    if settings.provider is not None:
        doc["provider"] = {
            "url": settings.provider.url,
            "organization": settings.provider.organization,
        }
        configured.append("/provider")
    if draft.version is not None:
        doc["version"] = draft.version
    if settings.documentation_url:
        doc["documentationUrl"] = settings.documentation_url
        configured.append("/documentationUrl")
    caps: dict[str, Any] = {}
    c = settings.capabilities
    if c.streaming is not None:
        caps["streaming"] = c.streaming
    if c.push_notifications is not None:
        caps["pushNotifications"] = c.push_notifications
    if extensions:
        caps["extensions"] = extensions
    if settings.extended_card is not None:
        caps["extendedAgentCard"] = settings.extended_card
    doc["capabilities"] = caps
    configured.append("/capabilities")
    if settings.security_schemes:
        doc["securitySchemes"] = {n: scheme_v1(s) for n, s in settings.security_schemes.items()}
        configured.append("/securitySchemes")
    if settings.security:
        doc["securityRequirements"] = [
            {"schemes": {n: {"list": list(scopes)} for n, scopes in req.items()}}
            for req in settings.security
        ]
        configured.append("/securityRequirements")
    doc["defaultInputModes"] = list(draft.in_modes)
    doc["defaultOutputModes"] = list(draft.out_modes)
    doc["skills"] = [skill]
    if settings.icon_url:
        doc["iconUrl"] = settings.icon_url
        configured.append("/iconUrl")
    return doc


def _document_v03(
    draft: _Draft,
    settings: CardsSettings,
    skill: dict[str, Any],
    url: str,
    extensions: list[dict[str, Any]],
) -> dict[str, Any]:
    """The card as A2A 0.3.0 writes it."""
    configured = draft.configured
    doc: dict[str, Any] = {"protocolVersion": PROTOCOL_VERSION["0.3.0"], "name": draft.name}
    if draft.description is not None:
        doc["description"] = draft.description
    doc["url"] = url
    doc["preferredTransport"] = settings.transport
    configured += ["/protocolVersion", "/url", "/preferredTransport"]
    if settings.provider is not None:
        doc["provider"] = {
            "organization": settings.provider.organization,
            "url": settings.provider.url,
        }
        configured.append("/provider")
    if settings.icon_url:
        doc["iconUrl"] = settings.icon_url
        configured.append("/iconUrl")
    if draft.version is not None:
        doc["version"] = draft.version
    if settings.documentation_url:
        doc["documentationUrl"] = settings.documentation_url
        configured.append("/documentationUrl")
    caps: dict[str, Any] = {}
    c = settings.capabilities
    if c.streaming is not None:
        caps["streaming"] = c.streaming
    if c.push_notifications is not None:
        caps["pushNotifications"] = c.push_notifications
    if c.state_transition_history is not None:
        caps["stateTransitionHistory"] = c.state_transition_history
    if extensions:
        caps["extensions"] = extensions
    doc["capabilities"] = caps
    configured.append("/capabilities")
    if settings.security_schemes:
        doc["securitySchemes"] = {n: scheme_v03(s) for n, s in settings.security_schemes.items()}
        configured.append("/securitySchemes")
    if settings.security:
        doc["security"] = [
            {n: list(scopes) for n, scopes in req.items()} for req in settings.security
        ]
        configured.append("/security")
    doc["defaultInputModes"] = list(draft.in_modes)
    doc["defaultOutputModes"] = list(draft.out_modes)
    doc["skills"] = [skill]
    if settings.extended_card is not None:
        doc["supportsAuthenticatedExtendedCard"] = settings.extended_card
        configured.append("/supportsAuthenticatedExtendedCard")
    return doc


def _extensions(settings: CardsSettings, key: str) -> list[dict[str, Any]]:
    """Extensions on ``key``'s card: the shared ones, then the agent's own.

    A shared declaration of a known skill-keyed extension (see
    :mod:`.extensions`) keeps only this card's skill; when none is left it is
    not put on this card.
    """
    from pack_lsp.core.model.cards.extensions import SKILL_KEYED

    out: list[dict[str, Any]] = []
    for ext in settings.capabilities.extensions:
        doc = extension_document(ext)
        if ext.uri in SKILL_KEYED and isinstance(doc.get("params"), dict):
            skills = doc["params"].get("skills")
            if isinstance(skills, dict):
                mine = {k: v for k, v in skills.items() if k == key}
                if not mine:
                    continue
                doc["params"] = {**doc["params"], "skills": mine}
        out.append(doc)
    own = settings.agents.get(key)
    if own is not None:
        out.extend(extension_document(e) for e in own.extensions)
    return out


def extension_document(ext: Extension) -> dict[str, Any]:
    doc: dict[str, Any] = {"uri": ext.uri}
    if ext.description is not None:
        doc["description"] = ext.description
    if ext.required is not None:
        doc["required"] = ext.required
    if ext.params is not None:
        doc["params"] = ext.params
    return doc


def _flows(s: SecurityScheme, v1: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, flow in (s.flows or {}).items():
        parts = name.split("_")
        camel = parts[0] + "".join(p.capitalize() for p in parts[1:])
        f: dict[str, Any] = {}
        for attr, json_name in (
            ("authorization_url", "authorizationUrl"),
            ("device_authorization_url", "deviceAuthorizationUrl"),
            ("token_url", "tokenUrl"),
            ("refresh_url", "refreshUrl"),
        ):
            value = getattr(flow, attr)
            if value is not None:
                f[json_name] = value
        f["scopes"] = dict(flow.scopes)
        out[camel] = f
    return out


def scheme_v03(s: SecurityScheme) -> dict[str, Any]:
    """The OpenAPI-style scheme object of A2A 0.3."""
    doc: dict[str, Any] = {"type": s.type}
    if s.description is not None:
        doc["description"] = s.description
    if s.type == "apiKey":
        doc["name"] = s.name
        doc["in"] = s.in_
    elif s.type == "http":
        doc["scheme"] = s.scheme
        if s.bearer_format is not None:
            doc["bearerFormat"] = s.bearer_format
    elif s.type == "oauth2":
        doc["flows"] = _flows(s, v1=False)
        if s.oauth2_metadata_url is not None:
            doc["oauth2MetadataUrl"] = s.oauth2_metadata_url
    elif s.type == "openIdConnect":
        doc["openIdConnectUrl"] = s.open_id_connect_url
    return doc


def scheme_v1(s: SecurityScheme) -> dict[str, Any]:
    """The A2A 1.0 scheme: one member naming the kind, holding its fields."""
    body: dict[str, Any] = {}
    if s.description is not None:
        body["description"] = s.description
    if s.type == "apiKey":
        body["location"] = s.in_
        body["name"] = s.name
        return {"apiKeySecurityScheme": body}
    if s.type == "http":
        body["scheme"] = s.scheme
        if s.bearer_format is not None:
            body["bearerFormat"] = s.bearer_format
        return {"httpAuthSecurityScheme": body}
    if s.type == "oauth2":
        body["flows"] = _flows(s, v1=True)
        if s.oauth2_metadata_url is not None:
            body["oauth2MetadataUrl"] = s.oauth2_metadata_url
        return {"oauth2SecurityScheme": body}
    if s.type == "openIdConnect":
        body["openIdConnectUrl"] = s.open_id_connect_url
        return {"openIdConnectSecurityScheme": body}
    return {"mtlsSecurityScheme": body}


__all__ = [
    "DEFAULT_MODES",
    "DISCOVERY_PATH",
    "LOCAL_URL",
    "Card",
    "CardSet",
    "Origin",
    "Profile",
    "agent_keys",
    "derive",
]
