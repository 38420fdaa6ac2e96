"""What changed for the callers of a pack's agents between two versions of it.

``compare(base, head)`` reads the public surface of both analyses — the derived
Agent Cards (RFC 0007), the tools' parameter schemas, ``agents.members`` and
``agents.entry``, the workflow's states and events, the required providers, the
required variables of the member prompts — and lists each difference as a
``Change``: its kind (``KINDS`` says which kinds break a caller), a message, and
the key path where it is written (in HEAD, or in BASE for what was removed).

A breaking change is excused when the pack's ``version`` got a major bump
(``major_bump``): callers were told.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from pack_lsp.core.base.text import Span
from pack_lsp.core.checks.analysis import Analysis
from pack_lsp.core.model.cards.api import cards_for
from pack_lsp.core.model.cards.settings import CardsConfigError
from pack_lsp.core.syntax.yamltree import resolve

Path = tuple[str | int, ...]

#: Each kind of change: whether it breaks a caller, and what it means.
KINDS: Mapping[str, tuple[bool, str]] = {
    "agent-removed": (True, "an agent was removed from `agents.members`"),
    "agent-added": (False, "an agent was added to `agents.members`"),
    "entry-changed": (True, "`agents.entry`, the agent callers reach first, changed"),
    "skill-renamed": (False, "a skill keeps its id under another name"),
    "modes-narrowed": (True, "an agent accepts or produces fewer media types"),
    "modes-widened": (False, "an agent accepts or produces more media types"),
    "required-input-added": (True, "an agent's prompt requires a variable it did not"),
    "tool-removed": (True, "a tool definition was removed"),
    "tool-added": (False, "a tool definition was added"),
    "parameter-removed": (True, "a tool parameter was removed"),
    "parameter-made-required": (True, "a tool parameter became required"),
    "parameter-type-narrowed": (True, "a tool parameter accepts fewer types"),
    "parameter-added": (False, "an optional tool parameter was added"),
    "state-removed": (True, "a workflow state was removed"),
    "event-removed": (True, "a workflow event is no longer handled"),
    "state-added": (False, "a workflow state was added"),
    "provider-required": (True, "the pack requires a provider it did not"),
    "provider-dropped": (False, "the pack no longer requires a provider"),
}


@dataclass(frozen=True, slots=True)
class Change:
    kind: str
    message: str
    path: Path
    """Where it is written: in HEAD, or in BASE when ``in_base``."""
    in_base: bool = False

    @property
    def breaking(self) -> bool:
        return KINDS[self.kind][0]


def _map(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _members(data: Mapping[str, Any]) -> dict[str, Any]:
    return _map(_map(data.get("agents")).get("members"))


def _cards(analysis: Analysis) -> dict[str, Any]:
    if analysis.pack is None or analysis.pack.agents is None:
        return {}
    try:
        return dict(cards_for(analysis.pack, analysis.config).documents())
    except CardsConfigError:
        return {}


def _modes(card: Mapping[str, Any], which: str) -> set[str]:
    modes = card.get(f"default{which}Modes")
    return {m for m in modes if isinstance(m, str)} if isinstance(modes, list) else set()


def _skills(card: Mapping[str, Any]) -> dict[str, str]:
    skills = card.get("skills")
    if not isinstance(skills, list):
        return {}
    return {
        str(s.get("id")): str(s.get("name", ""))
        for s in skills
        if isinstance(s, dict) and s.get("id") is not None
    }


def _required_variables(prompt: Any) -> set[str]:
    variables = _map(prompt).get("variables")
    if not isinstance(variables, list):
        return set()
    return {
        str(v["name"])
        for v in variables
        if isinstance(v, dict) and v.get("required") is True and "name" in v
    }


def _types(schema: Any) -> set[str] | None:
    """The JSON types a parameter schema accepts (None: any)."""
    declared = _map(schema).get("type")
    if isinstance(declared, str):
        return {"number", "integer"} if declared == "number" else {declared}
    if isinstance(declared, list):
        out = {t for t in declared if isinstance(t, str)}
        return out | ({"integer"} if "number" in out else set())
    return None


def _agents(base: Mapping[str, Any], head: Mapping[str, Any]) -> Iterator[Change]:
    old, new = _members(base), _members(head)
    for key in old.keys() - new.keys():
        yield Change(
            "agent-removed", f"Agent `{key}` was removed", ("agents", "members", key), True
        )
    for key in sorted(new.keys() - old.keys()):
        yield Change("agent-added", f"Agent `{key}` was added", ("agents", "members", key))
    old_entry = _map(base.get("agents")).get("entry")
    new_entry = _map(head.get("agents")).get("entry")
    if old_entry is not None and new_entry is not None and old_entry != new_entry:
        yield Change(
            "entry-changed",
            f"The entry agent changed from `{old_entry}` to `{new_entry}`",
            ("agents", "entry"),
        )
    prompts_old, prompts_new = _map(base.get("prompts")), _map(head.get("prompts"))
    for key in sorted(old.keys() & new.keys()):
        added = _required_variables(prompts_new.get(key)) - _required_variables(
            prompts_old.get(key)
        )
        for name in sorted(added):
            yield Change(
                "required-input-added",
                f"Agent `{key}` now requires variable `{name}`",
                ("prompts", key, "variables"),
            )


def _card_changes(base: Analysis, head: Analysis) -> Iterator[Change]:
    old_cards, new_cards = _cards(base), _cards(head)
    for key in sorted(old_cards.keys() & new_cards.keys()):
        old, new = old_cards[key], new_cards[key]
        where: Path = ("agents", "members", key)
        for which, field in (("Input", "input_modes"), ("Output", "output_modes")):
            lost = _modes(old, which) - _modes(new, which)
            gained = _modes(new, which) - _modes(old, which)
            if lost:
                yield Change(
                    "modes-narrowed",
                    f"Agent `{key}` no longer {'accepts' if which == 'Input' else 'produces'} "
                    + ", ".join(f"`{m}`" for m in sorted(lost)),
                    (*where, field),
                )
            elif gained:
                yield Change(
                    "modes-widened",
                    f"Agent `{key}` also {'accepts' if which == 'Input' else 'produces'} "
                    + ", ".join(f"`{m}`" for m in sorted(gained)),
                    (*where, field),
                )
        # One skill per agent (RFC 0007), its id the agent key: a skill comes and
        # goes with its agent; what changes on its own is its name.
        old_skills, new_skills = _skills(old), _skills(new)
        for sid in sorted(old_skills.keys() & new_skills.keys()):
            if old_skills[sid] != new_skills[sid]:
                yield Change(
                    "skill-renamed",
                    f"Skill `{sid}` of agent `{key}` is now named `{new_skills[sid]}` "
                    f"(was `{old_skills[sid]}`)",
                    ("prompts", key, "name"),
                )


def _tools(base: Mapping[str, Any], head: Mapping[str, Any]) -> Iterator[Change]:
    old, new = _map(base.get("tools")), _map(head.get("tools"))
    for name in sorted(old.keys() - new.keys()):
        yield Change("tool-removed", f"Tool `{name}` was removed", ("tools", name), True)
    for name in sorted(new.keys() - old.keys()):
        yield Change("tool-added", f"Tool `{name}` was added", ("tools", name))
    for name in sorted(old.keys() & new.keys()):
        old_params = _map(_map(old[name]).get("parameters"))
        new_params = _map(_map(new[name]).get("parameters"))
        old_props = _map(old_params.get("properties"))
        new_props = _map(new_params.get("properties"))
        old_req = {r for r in old_params.get("required") or [] if isinstance(r, str)}
        new_req = {r for r in new_params.get("required") or [] if isinstance(r, str)}
        where: Path = ("tools", name, "parameters")
        for p in sorted(old_props.keys() - new_props.keys()):
            yield Change(
                "parameter-removed",
                f"Parameter `{p}` of tool `{name}` was removed",
                (*where, "properties", p),
                True,
            )
        for p in sorted(new_req - old_req):
            if p in new_props or p in old_props:
                yield Change(
                    "parameter-made-required",
                    f"Parameter `{p}` of tool `{name}` is now required",
                    (*where, "required"),
                )
        for p in sorted(new_props.keys() - old_props.keys() - new_req):
            yield Change(
                "parameter-added",
                f"Tool `{name}` has a new optional parameter `{p}`",
                (*where, "properties", p),
            )
        for p in sorted(old_props.keys() & new_props.keys()):
            before, after = _types(old_props[p]), _types(new_props[p])
            if after is not None and (before is None or not before <= after):
                lost = "any type" if before is None else ", ".join(sorted(before - after))
                yield Change(
                    "parameter-type-narrowed",
                    f"Parameter `{p}` of tool `{name}` no longer accepts {lost}",
                    (*where, "properties", p, "type"),
                )


def _events(state: Any) -> set[str]:
    return {str(e) for e in _map(_map(state).get("on_event"))}


def _workflow(base: Mapping[str, Any], head: Mapping[str, Any]) -> Iterator[Change]:
    old = _map(_map(base.get("workflow")).get("states"))
    new = _map(_map(head.get("workflow")).get("states"))
    for key in sorted(old.keys() - new.keys()):
        yield Change(
            "state-removed",
            f"Workflow state `{key}` was removed",
            ("workflow", "states", key),
            True,
        )
    for key in sorted(new.keys() - old.keys()):
        yield Change(
            "state-added", f"Workflow state `{key}` was added", ("workflow", "states", key)
        )
    for key in sorted(old.keys() & new.keys()):
        for event in sorted(_events(old[key]) - _events(new[key])):
            yield Change(
                "event-removed",
                f"Workflow state `{key}` no longer handles event `{event}`",
                ("workflow", "states", key, "on_event", event),
                True,
            )


def _providers(data: Mapping[str, Any]) -> set[str]:
    listed = _map(data.get("requires")).get("providers")
    if not isinstance(listed, list):
        return set()
    return {
        str(p if isinstance(p, str) else p.get("key"))
        for p in listed
        if isinstance(p, str) or (isinstance(p, dict) and p.get("key") is not None)
    }


def _requirements(base: Mapping[str, Any], head: Mapping[str, Any]) -> Iterator[Change]:
    old, new = _providers(base), _providers(head)
    for key in sorted(new - old):
        yield Change(
            "provider-required",
            f"The pack now requires provider `{key}`",
            ("requires", "providers"),
        )
    for key in sorted(old - new):
        yield Change(
            "provider-dropped",
            f"The pack no longer requires provider `{key}`",
            ("requires", "providers"),
            True,
        )


def compare(base: Analysis, head: Analysis) -> list[Change]:
    """The changes of the public surface from ``base`` to ``head``."""
    old, new = _map(base.data), _map(head.data)
    changes = [
        *_agents(old, new),
        *_card_changes(base, head),
        *_tools(old, new),
        *_workflow(old, new),
        *_requirements(old, new),
    ]
    return changes


_MAJOR = re.compile(r"^v?(\d+)\.")


def major_bump(base: Analysis, head: Analysis) -> bool:
    """Whether the pack's ``version`` has a higher major number in ``head``."""
    old = _MAJOR.match(str(_map(base.data).get("version", "")))
    new = _MAJOR.match(str(_map(head.data).get("version", "")))
    return bool(old and new and int(new.group(1)) > int(old.group(1)))


def span_of(analysis: Analysis, path: Path) -> Span:
    """Where ``path`` is written: its key, or the nearest enclosing key that exists."""
    for n in range(len(path), 0, -1):
        node, pair = resolve(analysis.root, path[:n])
        if pair is not None:
            return pair.key.span
        if node is not None:
            return node.span
    return Span(0, 0)
