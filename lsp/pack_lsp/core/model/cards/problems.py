"""Validation of derived cards, with each problem traced back to the pack.

Every card is validated against pack-lsp's own A2A schema for the selected
version (``schemas/a2a-0.3.0.agentcard.schema.json`` or
``schemas/a2a-1.0.agentcard.schema.json``), and a few faults the schemas cannot
see are checked directly. Each problem carries the code it is reported under and
the span of the pack text that caused it (found through ``Card.origins``).

Some faults are already reported by the agents rules, under their own code; the
problem is still returned here (so a card preview can explain itself) with that
code, and the PP7xx rules leave it out (see ``REPORTED_BY_AGENTS_RULES``):

- no description on the member nor on its prompt: PP209
- an input/output mode that is not a media type: PP206
- an agent calling itself: PP204 (not a card problem; left out of the topology)

A skill id is the member key, so two cards with the same skill id can only come
from a member key written twice, which the YAML rules report (PP005); a missing
or empty version is the schema rules' error on the prompt or pack.

Problems that come from configuration rather than from the pack (a security
requirement naming no scheme, invalid extension params, a configured value the
schema refuses) are reported on the pack's ``agents`` key, and those tied to one
agent's configuration on that member's key: the pack is what the cards are
derived from, and a TOML file has no positions to point at.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

from pack_lsp.core.base.diagnostics import Related
from pack_lsp.core.base.problemdata import (
    EmptyTags,
    ProblemData,
    UnknownAgent,
    UnknownCardSkill,
    UnknownScheme,
)
from pack_lsp.core.base.resources import load_schema
from pack_lsp.core.base.suggest import did_you_mean, hint_for, suggestions
from pack_lsp.core.base.text import Span
from pack_lsp.core.model.cards.derive import Card, CardSet
from pack_lsp.core.model.cards.extensions import check_params, check_skills, short
from pack_lsp.core.model.cards.settings import CardsSettings
from pack_lsp.core.model.pack import Pack

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

SCHEMAS = {
    "0.3.0": "a2a-0.3.0.agentcard.schema.json",
    "1.0": "a2a-1.0.agentcard.schema.json",
}
REPORTED_BY_AGENTS_RULES = frozenset({"PP204", "PP206", "PP209"})
MEDIA_TYPE = re.compile(r"^(\*|[A-Za-z0-9][\w!#$&^.+-]*)/(\*|[A-Za-z0-9][\w!#$&^.+-]*)$")
_REQUIRED = re.compile(r"^'(.*)' is a required property$")


@dataclass(frozen=True, slots=True)
class CardProblem:
    """A problem of a derived agent card, reported as a diagnostic."""

    code: str
    message: str
    span: Span
    agent: str | None = None
    pointer: str | None = None
    related: tuple[Related, ...] = ()
    data: ProblemData | None = None


@functools.cache
def card_validator(version: str) -> Draft202012Validator:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(load_schema(SCHEMAS[version]))


@functools.cache
def _fast_card_validator(version: str) -> Any:
    """A compiled ``jsonschema_rs`` validator of the card schema, or ``None``.

    A card it finds valid has no schema error (``jsonschema`` checks no formats
    either); any other card goes through ``jsonschema``, whose errors the messages
    are made of. Most cards are valid, so ``jsonschema`` is usually not even imported.
    """
    try:
        import jsonschema_rs

        return jsonschema_rs.Draft202012Validator(
            load_schema(SCHEMAS[version]), validate_formats=False
        )
    except Exception:  # not installed, or a schema it cannot compile
        return None


def _surely_valid(document: Any, version: str) -> bool:
    fast = _fast_card_validator(version)
    if fast is None:
        return False
    try:
        return bool(fast.is_valid(document))
    except Exception:  # a value it cannot take: the full validation decides
        return False


def schema_errors(document: Any, version: str) -> list[tuple[str, str]]:
    """(JSON pointer, message) for every schema error of ``document``."""
    out: list[tuple[str, str]] = []
    if _surely_valid(document, version):
        return out
    for err in sorted(
        card_validator(version).iter_errors(document),
        key=lambda e: [str(p) for p in e.absolute_path],
    ):
        out.extend(_describe(err))
    return out


def _pointer(path: Iterable[Any]) -> str:
    return "".join(f"/{p}" for p in path)


def _describe(err: ValidationError) -> Iterator[tuple[str, str]]:
    base = _pointer(err.absolute_path)
    if err.validator == "required":
        m = _REQUIRED.match(err.message)
        name = m.group(1) if m else "?"
        yield base + "/" + name, f"`{name}` is required"
    elif err.validator in ("minItems", "minLength"):
        yield base, "must not be empty"
    elif err.validator == "additionalProperties":
        yield base, err.message.replace("Additional properties are not allowed", "unknown member")
    else:
        yield base, err.message


def _covered(pointer: str, handled: set[str]) -> bool:
    return any(pointer == h or pointer.startswith(h + "/") for h in handled)


def config_name(settings: CardsSettings) -> str:
    """How messages name the configuration: its file name, not a machine's path."""
    return PurePath(settings.source).name if settings.source else "the cards configuration"


def _origin_of(card: Card, pointer: str) -> tuple[Span, str] | None:
    p = pointer
    while True:
        origin = card.origins.get(p)
        if origin is not None and p:
            return origin.span, origin.what
        if not p:
            return None
        p = p.rsplit("/", 1)[0]


def _configured(card: Card, pointer: str) -> bool:
    return any(pointer == c or pointer.startswith(c + "/") for c in card.configured)


def validate(cards: CardSet, pack: Pack) -> list[CardProblem]:
    """Every problem of every card of ``cards`` (derived from ``pack``)."""
    if pack.agents is None:
        return []
    agents_key = pack.agents.key_span
    problems: list[CardProblem] = []
    for card in cards.cards.values():
        problems.extend(_card_problems(card, cards.version, agents_key))
    problems.extend(_security(cards, agents_key))
    problems.extend(_extensions(cards, pack))
    return _dedupe(problems)


def _card_problems(card: Card, version: str, agents_key: Span) -> list[CardProblem]:
    doc = card.document
    key = card.key
    handled: set[str] = set()
    out: list[CardProblem] = []
    description = doc.get("description")
    if not isinstance(description, str) or not description.strip():
        handled |= {"/description", "/skills/0/description"}
        out.append(
            CardProblem(
                "PP209",
                f"Agent `{key}` has no description: add one to the member or to prompt `{key}`",
                card.anchor,
                key,
                "/description",
            )
        )
    for which in ("input", "output"):
        for i, mode in enumerate(doc.get(f"default{which.capitalize()}Modes", [])):
            if isinstance(mode, str) and not MEDIA_TYPE.match(mode):
                pointer = f"/skills/0/{which}Modes/{i}"
                origin = _origin_of(card, pointer)
                out.append(
                    CardProblem(
                        "PP206",
                        f"`{mode}` in `{which}_modes` of agent `{key}` is not a media type",
                        origin[0] if origin else card.anchor,
                        key,
                        pointer,
                    )
                )
    if version == "1.0" and (card.member is None or not card.member.tags):
        handled.add("/skills/0/tags")
        has_list = card.member is not None and card.member.tags_span is not None
        span = card.member.tags_span if card.member is not None and has_list else None
        out.append(
            CardProblem(
                "PP702",
                f"Agent `{key}` has no tags; an A2A 1.0 card needs at least one, so the preview "
                f"uses `{key}`" + ("" if has_list else " (add `tags` to the member)"),
                span or card.anchor,
                key,
                "/skills/0/tags",
                data=EmptyTags(member=key),
            )
        )
    if not doc.get("version"):
        # A missing or empty version is the schema rules' error on the prompt or pack.
        handled.add("/version")
    for pointer, message in schema_errors(doc, version):
        if _covered(pointer, handled):
            continue
        if _configured(card, pointer):
            out.append(
                CardProblem(
                    "PP707",
                    f"The cards configuration makes an invalid A2A {version} card: "
                    f"`{pointer or '/'}` {message}",
                    agents_key,
                    None,
                    pointer,
                )
            )
            continue
        origin = _origin_of(card, pointer)
        span, what = origin if origin is not None else (card.anchor, f"agent {key}")
        out.append(
            CardProblem(
                "PP707",
                f"The Agent Card of `{key}` is not valid A2A {version}: `{pointer or '/'}` "
                f"(from {what}) {message}",
                span,
                key,
                pointer,
            )
        )
    return out


def _security(cards: CardSet, agents_key: Span) -> Iterator[CardProblem]:
    settings = cards.settings
    schemes = list(settings.security_schemes)
    where = config_name(settings)
    for requirement in settings.security:
        for name in requirement:
            if name in settings.security_schemes:
                continue
            known = (
                f"; it defines {', '.join(f'`{s}`' for s in schemes)}"
                if schemes
                else "; it defines none"
            )
            found = suggestions(name, schemes)
            yield CardProblem(
                "PP703",
                f"A security requirement in {where} names scheme `{name}`, which "
                f"`security-schemes` does not define{hint_for(found) or known}",
                agents_key,
                None,
                None,
                data=UnknownScheme(name=name, suggestions=found),
            )


def _extensions(cards: CardSet, pack: Pack) -> Iterator[CardProblem]:
    assert pack.agents is not None
    agents_key = pack.agents.key_span
    settings = cards.settings
    where = config_name(settings)
    all_skills = [s for c in cards.cards.values() for s in c.skill_ids()]
    for ext in settings.capabilities.extensions:
        for p in check_params(ext.uri, ext.params):
            yield CardProblem("PP704", f"Extension in {where}: {p.message}", agents_key)
        for p in check_skills(ext.uri, ext.params, all_skills, all_skills):
            found = suggestions(p.skill or "", all_skills)
            yield CardProblem(
                "PP705",
                f"Extension {short(ext.uri)} in {where} names skill `{p.skill}`, which no "
                f"agent of this pack has{hint_for(found)}",
                agents_key,
                None,
                None,
                data=UnknownCardSkill(skill=p.skill, suggestions=found),
            )
    for key, own in settings.agents.items():
        card = cards.cards.get(key)
        if card is None:
            found = suggestions(key, cards.cards)
            yield CardProblem(
                "PP706",
                f"{where} configures the card of `{key}`, which is not an agent of this "
                f"pack{hint_for(found)}",
                agents_key,
                None,
                None,
                data=UnknownAgent(name=key, suggestions=found),
            )
            continue
        for ext in own.extensions:
            for p in check_params(ext.uri, ext.params):
                yield CardProblem(
                    "PP704",
                    f"Extension on the card of `{key}` in {where}: {p.message}",
                    card.anchor,
                    key,
                )
            for p in check_skills(ext.uri, ext.params, card.skill_ids(), all_skills):
                yield CardProblem(
                    "PP705",
                    f"Extension {short(ext.uri)} on the card of `{key}` in {where} names "
                    f"skill `{p.skill}`, but the card's only skill is `{key}`"
                    f"{did_you_mean(p.skill or '', [key])}",
                    card.anchor,
                    key,
                    None,
                    data=UnknownCardSkill(skill=p.skill, suggestions=[key]),
                )


def _dedupe(problems: list[CardProblem]) -> list[CardProblem]:
    seen: set[tuple[str, int, int, str]] = set()
    out: list[CardProblem] = []
    for p in problems:
        k = (p.code, p.span.start, p.span.end, p.message)
        if k not in seen:
            seen.add(k)
            out.append(p)
    return out
