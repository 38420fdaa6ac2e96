"""Checks for the protoLabs card extensions (declared under ``capabilities.extensions``).

The values accepted are those protoLabs' hub, Workstacean, accepts when it reads a
card (``src/plugins/skill-broker-plugin.ts`` at the commit docs/decisions.md D47
pins); it skips a skill's declaration it cannot read without a message, so each
value it would skip is reported. The skill-keyed extensions describe a card's skills
one by one: their ``params`` hold ``skills: {<skill id>: {...}}``.

- ``blast-v1``: each skill's ``radius`` is ``self``, ``project``, ``repo``,
  ``fleet`` or ``public``; an optional ``note`` is a string.
- ``hitl-mode-v1``: each skill's ``mode`` is ``autonomous``, ``notification``,
  ``veto``, ``gated`` or ``compound``; ``vetoTtlMs`` (the veto window) is a number
  of milliseconds, ``reviewer`` is ``operator`` (absent: the dispatching agent
  answers first), ``note`` a string.
- ``effect-domain-v1``: each skill has ``effects``, a list of objects with a
  ``domain`` and a ``path`` (non-empty strings), a numeric ``delta`` and a
  ``confidence`` between 0 and 1.

Every skill id they name must be a skill of the card they are on — with
PromptPack agents that is the member key, so renaming a prompt silently breaks
such a declaration; :func:`check_skills` reports it with a did-you-mean.

The other protoLabs extensions carry no params: ``cost-v1``, ``confidence-v1``,
``worldstate-delta-v1`` and ``tool-call-v1`` (the four Workstacean's own card
declares; protoLabs' agent template no longer declares ``confidence-v1``). They and
any unknown URI are passed through; only their shape as an A2A extension (``uri``,
``required``, ``params`` object) is checked, by the card schema.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from pack_lsp.core.base.suggest import did_you_mean

BASE = "https://proto-labs.ai/a2a/ext/"
BLAST = BASE + "blast-v1"
HITL = BASE + "hitl-mode-v1"
EFFECT_DOMAIN = BASE + "effect-domain-v1"
KNOWN = frozenset(
    {
        BASE + "cost-v1",
        BASE + "confidence-v1",
        BLAST,
        HITL,
        EFFECT_DOMAIN,
        BASE + "worldstate-delta-v1",
        BASE + "tool-call-v1",
    }
)
SKILL_KEYED = frozenset({BLAST, HITL, EFFECT_DOMAIN})


@dataclass(frozen=True, slots=True)
class ExtensionProblem:
    """A problem of a card extension: its parameters, or a skill it does not know."""

    kind: str  # "params" or "unknown-skill"
    message: str
    skill: str | None = None
    suggestions: tuple[str, ...] = ()


def short(uri: str) -> str:
    return uri.removeprefix(BASE) if uri.startswith(BASE) else uri


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


RADII = ("self", "project", "repo", "fleet", "public")
HITL_MODES = ("autonomous", "notification", "veto", "gated", "compound")
#: The one ``reviewer`` hitl-mode-v1 knows (absent: the dispatching agent first).
OPERATOR = "operator"


def _enum(field: str, allowed: tuple[str, ...]) -> Callable[[str, Any], list[str]]:
    def check(skill: str, entry: Any) -> list[str]:
        if not isinstance(entry, dict):
            return [f"skill {skill!r} must map to a table with {field!r}"]
        value = entry.get(field)
        if value is None:
            return [f"skill {skill!r} has no {field!r}; expected one of {', '.join(allowed)}"]
        out: list[str] = []
        if value not in allowed:
            hint = did_you_mean(str(value), allowed) if isinstance(value, str) else ""
            out.append(
                f"skill {skill!r}: {field} {value!r} is not one of {', '.join(allowed)}{hint}"
            )
        note = entry.get("note")
        if note is not None and not isinstance(note, str):
            out.append(f"skill {skill!r}: note must be a string, got {note!r}")
        return out

    return check


def _hitl(skill: str, entry: Any) -> list[str]:
    out = _enum("mode", HITL_MODES)(skill, entry)
    if not isinstance(entry, dict):
        return out
    ttl = entry.get("vetoTtlMs")
    if ttl is not None and not _is_number(ttl):
        out.append(f"skill {skill!r}: vetoTtlMs must be a number of milliseconds, got {ttl!r}")
    reviewer = entry.get("reviewer")
    if reviewer is not None and reviewer != OPERATOR:
        out.append(
            f"skill {skill!r}: reviewer {reviewer!r} is not {OPERATOR!r}, the only reviewer "
            "(leave it out for the dispatching agent to answer first)"
        )
    return out


def _effects(skill: str, entry: Any) -> list[str]:
    if not isinstance(entry, dict) or not isinstance(entry.get("effects"), list):
        return [f"skill {skill!r} must have 'effects', a list of effects"]
    out: list[str] = []
    for i, effect in enumerate(entry["effects"]):
        where = f"skill {skill!r} effect {i + 1}"
        if not isinstance(effect, dict):
            out.append(f"{where} must be a table with domain, path, delta and confidence")
            continue
        for name in ("domain", "path"):
            value = effect.get(name)
            if not isinstance(value, str) or not value.strip():
                out.append(f"{where} needs a non-empty {name}")
        if not _is_number(effect.get("delta")):
            out.append(f"{where}: delta must be a number, got {effect.get('delta')!r}")
        confidence = effect.get("confidence")
        if (
            not isinstance(confidence, int | float)
            or not _is_number(confidence)
            or not 0 <= confidence <= 1
        ):
            out.append(f"{where}: confidence must be a number from 0 to 1, got {confidence!r}")
    return out


_CHECKS: dict[str, Callable[[str, Any], list[str]]] = {
    BLAST: _enum("radius", RADII),
    HITL: _hitl,
    EFFECT_DOMAIN: _effects,
}


def skills_of(params: Any) -> dict[str, Any] | None:
    skills = params.get("skills") if isinstance(params, dict) else None
    return skills if isinstance(skills, dict) else None


def check_params(uri: str, params: Any) -> list[ExtensionProblem]:
    """Problems in the params of a known skill-keyed extension."""
    check = _CHECKS.get(uri)
    if check is None:
        return []
    skills = skills_of(params)
    if skills is None:
        return [
            ExtensionProblem(
                "params", f"{short(uri)} params need 'skills', a table of skill id to settings"
            )
        ]
    out: list[ExtensionProblem] = []
    for skill, entry in skills.items():
        out.extend(
            ExtensionProblem("params", f"{short(uri)}: {m}", skill)
            for m in check(str(skill), entry)
        )
    return out


def check_skills(
    uri: str, params: Any, card_skills: Iterable[str], all_skills: Iterable[str]
) -> list[ExtensionProblem]:
    """Skill ids named by a skill-keyed extension that are not in ``card_skills``."""
    if uri not in SKILL_KEYED:
        return []
    skills = skills_of(params)
    if skills is None:
        return []
    have = list(card_skills)
    candidates = list(dict.fromkeys([*have, *all_skills]))
    out: list[ExtensionProblem] = []
    for skill in skills:
        if skill in have:
            continue
        hint = did_you_mean(str(skill), candidates)
        out.append(
            ExtensionProblem(
                "unknown-skill",
                f"{short(uri)} names skill {skill!r}, which is not a skill of "
                + (f"the card of {have[0]!r}" if len(have) == 1 else "this card")
                + f"{hint}",
                str(skill),
                tuple(s for s in candidates if s != skill and s in hint),
            )
        )
    return out
