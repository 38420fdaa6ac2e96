"""Inlay hints: what a pack means where it does not say it.

Four kinds, each switchable (``KINDS``):

- ``provider``: after a prompt's key, or a composition step's ``prompt_task``, that
  does not write ``provider``: the provider it resolves to under RFC 0017's
  precedence (step → prompt → ``default``). Shown only in packs that use providers
  (``requires.providers`` or any ``provider`` field), so other packs stay quiet.
- ``card``: after an ``agents.members`` key, the derived Agent Card's A2A name and
  skill id when they differ from the key (``core/model/cards``).
- ``budget``: after a state's ``max_visits``, its share of
  ``engine.budget.max_total_visits`` (``3 of engine.budget 10``, or the cap when the
  state allows more than the budget); after ``on_max_visits``, when it is taken.
- ``placeholder``: after a variable placeholder in a prompt's template, the
  variable's ``default`` or else its ``example``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from pack_lsp.core.base.text import Span
from pack_lsp.core.checks.analysis import Analysis
from pack_lsp.core.ide.render import as_text, variable_values
from pack_lsp.core.model.cards import CardsConfigError, cards_for
from pack_lsp.core.model.pack import Located, Pack

PROVIDER = "provider"
CARD = "card"
BUDGET = "budget"
PLACEHOLDER = "placeholder"
KINDS = (PROVIDER, CARD, BUDGET, PLACEHOLDER)
#: Longest value shown after a placeholder (longer ones end with an ellipsis).
MAX_VALUE = 40


@dataclass(frozen=True, slots=True)
class Hint:
    offset: int
    label: str
    kind: str
    tooltip: str


def _text(loc: Located | None) -> str | None:
    return loc.value if loc is not None and isinstance(loc.value, str) else None


def _uses_providers(pack: Pack) -> bool:
    if pack.providers:
        return True
    if any(p.provider is not None for p in pack.prompts.values()):
        return True
    return any(s.provider is not None for c in pack.compositions.values() for s in c.all_steps())


def _providers(pack: Pack) -> Iterator[Hint]:
    if not _uses_providers(pack):
        return
    for key, prompt in pack.prompts.items():
        if prompt.provider is None:
            yield Hint(
                prompt.key_span.end,
                "(provider default)",
                PROVIDER,
                f"Prompt `{key}` writes no `provider`, so it uses `default` (RFC 0017).",
            )
    for ckey, comp in pack.compositions.items():
        for step in comp.all_steps():
            task = _text(step.prompt_task)
            if step.provider is not None or task is None or step.prompt_task is None:
                continue
            target = pack.prompts.get(task)
            if target is None:
                continue
            chosen = _text(target.provider)
            source = f"from prompt `{task}`" if chosen is not None else "the default"
            yield Hint(
                step.prompt_task.span.end,
                f"(provider {chosen or 'default'})",
                PROVIDER,
                f"This step of `{ckey}` writes no `provider`: it uses {source} "
                "(RFC 0017: step, then prompt, then `default`).",
            )


def _cards(analysis: Analysis, pack: Pack) -> Iterator[Hint]:
    if pack.agents is None or not pack.agents.members:
        return
    try:
        cards = cards_for(pack, analysis.config)
    except CardsConfigError:
        return
    for key, member in pack.agents.members.items():
        card = cards.cards.get(key)
        if card is None:
            continue
        doc = card.document
        parts = []
        name = doc.get("name")
        if isinstance(name, str) and name != key:
            parts.append(f'card name "{name}"')
        skills = doc.get("skills")
        if isinstance(skills, list) and skills and isinstance(skills[0], dict):
            skill = skills[0].get("id")
            if isinstance(skill, str) and skill != key:
                parts.append(f'skill "{skill}"')
        if parts:
            yield Hint(
                member.key_span.end,
                f"({', '.join(parts)})",
                CARD,
                f"The Agent Card derived for `{key}` (RFC 0007) publishes these names.",
            )


def _budget(pack: Pack) -> Iterator[Hint]:
    wf = pack.workflow
    if wf is None:
        return
    budget = wf.max_total_visits.value if wf.max_total_visits is not None else None
    if isinstance(budget, bool) or not isinstance(budget, int):
        budget = None
    for key, state in wf.states.items():
        visits = state.max_visits.value if state.max_visits is not None else None
        if isinstance(visits, bool) or not isinstance(visits, int):
            continue
        assert state.max_visits is not None
        if budget is not None:
            label = (
                f"{visits} of engine.budget {budget}"
                if visits <= budget
                else f"capped at engine.budget {budget}"
            )
            tip = (
                f"State `{key}` may run {min(visits, budget)} times; the whole workflow "
                f"may make {budget} visits (`engine.budget.max_total_visits`)."
            )
        else:
            label = f"{visits} visits, no engine.budget"
            tip = f"State `{key}` may run {visits} times; the workflow sets no total budget."
        yield Hint(state.max_visits.span.end, label, BUDGET, tip)
        target = _text(state.on_max_visits)
        if target is not None and state.on_max_visits is not None:
            yield Hint(
                state.on_max_visits.span.end,
                f"after visit {visits}",
                BUDGET,
                f"Taken when `{key}` is entered once more after {visits} visits.",
            )


def _short(value: str) -> str:
    value = value.replace("\n", "⏎")
    return value if len(value) <= MAX_VALUE else value[: MAX_VALUE - 1] + "…"


def _placeholders(analysis: Analysis, pack: Pack, within: Span) -> Iterator[Hint]:
    templates = analysis.derived.templates
    if templates is None:
        return
    for key in pack.prompts:
        infos = [
            t
            for t in templates.of_prompt(key)
            if t.template.span.start <= within.end and within.start <= t.template.span.end
        ]
        if not infos:
            continue
        values = variable_values(analysis, key)
        if not values:
            continue
        for info in infos:
            for p in info.placeholders:
                if p.kind != "variable" or p.name not in values:
                    continue
                if not within.start <= p.span.end <= within.end:
                    continue
                source, value = values[p.name]
                yield Hint(
                    p.span.end,
                    f"= {_short(as_text(value))}",
                    PLACEHOLDER,
                    f"`{p.name}`'s {source} (filled when no value is given).",
                )


def _all_hints(analysis: Analysis, kinds: frozenset[str]) -> list[Hint]:
    """Every hint of ``kinds``, in document order, computed once per analysis: an editor
    asks again for each range it scrolls to."""

    def build() -> list[Hint]:
        pack = analysis.pack
        if pack is None:
            return []
        found: list[Hint] = []
        if PROVIDER in kinds:
            found.extend(_providers(pack))
        if CARD in kinds:
            found.extend(_cards(analysis, pack))
        if BUDGET in kinds:
            found.extend(_budget(pack))
        if PLACEHOLDER in kinds:
            found.extend(_placeholders(analysis, pack, Span(0, len(analysis.text))))
        found.sort(key=lambda h: h.offset)
        return found

    return analysis.derived.memo((_all_hints, kinds), build)


def inlay_hints(
    analysis: Analysis, within: Span, kinds: frozenset[str] = frozenset(KINDS)
) -> list[Hint]:
    """The hints of the kinds asked for whose position lies in ``within``."""
    return [h for h in _all_hints(analysis, kinds) if within.start <= h.offset <= within.end]
