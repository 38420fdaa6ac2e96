"""Per-prompt rule results, the pack summary that guards their reuse, and pack-wide
results reused while what they read is unchanged.

After an edit inside one block, incremental analysis reuses the per-prompt rule
results of the other prompts while the pack's summary (``core.summary``: all that a
per-prompt part can read outside its prompt) is the same after the edit, and the
results of a pack-wide part while what it read (recorded by ``core.recording``) is
unchanged. These tests check that the summary sees every kind of change the
per-prompt parts depend on and ignores what they do not read, which pack-wide parts
are reused, that results pointing into the edited block are computed again, and that
a check reading something new stays correct without declaring anything;
``test_incremental.py`` compares random edits with full analyses.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Iterable
from types import MappingProxyType

import pytest

from pack_lsp.core.base.diagnostics import Diagnostic, Related, Severity
from pack_lsp.core.base.text import Span
from pack_lsp.core.checks import analysis
from pack_lsp.core.checks.analysis import RULES_REUSED, RULES_REUSED_PACK, Analysis, analyze
from pack_lsp.core.checks.incremental import INCREMENTAL, common_prefix, common_suffix, reanalyze
from pack_lsp.core.checks.registry import MODULE_CHECKS
from pack_lsp.core.model.config import Config
from pack_lsp.core.model.context import CheckContext, RuleEdit, RuleUnits
from pack_lsp.core.model.pack import Pack, build_pack
from pack_lsp.core.model.recording import ENTRIES, SECTIONS
from pack_lsp.core.model.summary import PackSummary, PromptContext, same_after
from pack_lsp.core.syntax import reuse
from pack_lsp.core.syntax.yamltree import parse

PACK = """id: units
name: Units
version: 1.0.0
template_engine:
  version: v1
  syntax: '{{variable}}'
  features: [basic_substitution, fragments]
fragments:
  tone: Be brief with {{customer}}.
prompts:
  triage:
    id: triage
    name: Triage
    version: 1.0.0
    description: Routes requests.
    system_template: |
      Route requests for {{company}}. {{fragments.tone}}
    variables:
      - {name: company, type: string, required: true}
    tools: [billing, lookup, helper]
  billing:
    id: billing
    name: Billing
    version: 1.0.0
    description: Answers billing questions.
    system_template: |
      Billing for {{company}}.
    variables:
      - {name: company, type: string, required: true}
    tools: [lookup]
  helper:
    id: helper
    name: Helper
    version: 1.0.0
    description: Helps.
    system_template: Help with {{topic}}.
    variables:
      - {name: topic, type: string, required: true}
tools:
  lookup:
    name: lookup
    description: Look something up.
workflow:
  version: 1
  entry: start
  states:
    start:
      prompt_task: triage
      on_event: {Done: end}
    end:
      prompt_task: billing
      terminal: true
agents:
  entry: triage
  members:
    triage: {description: Routes.}
    billing: {}
"""


def _summary(text: str) -> PackSummary:
    units = analyze(text).rule_units
    assert units is not None and units.summary is not None
    return units.summary


def _same_summary(old: str, new: str) -> bool:
    """Whether the summaries of ``old`` and ``new`` are the same across the edit that
    turns one into the other (spans moved by the common prefix and suffix)."""
    start = common_prefix(old, new)
    end = len(old) - common_suffix(old, new, min(len(old), len(new)) - start)
    return same_after(_summary(old), _summary(new), start, end, len(new) - len(old))


def test_the_modules_with_a_prompt_part() -> None:
    names = {m.name.rsplit(".", 1)[1] for m in MODULE_CHECKS if m.check_prompt is not None}
    assert {"tools", "agents", "pack", "templates"} <= names


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("description: Routes requests.", "description: Routes every request."),
        ("Billing for {{company}}.", "Billing for {{company}} and {{fragments.tone}}."),
        ("tools: [lookup]\n  helper:", "tools: [lookup, nothing]\n  helper:"),
        ("description: Look something up.", "description: Look it up."),
        ("triage: {description: Routes.}", "triage: {description: Sends.}"),
        ("on_event: {Done: end}", "on_event: {Finished: end}"),
        ("Be brief with", "Be very brief with"),  # placeholders moved, not changed
    ],
)
def test_summary_ignores_what_no_other_prompt_reads(old: str, new: str) -> None:
    assert old in PACK
    assert _same_summary(PACK, PACK.replace(old, new, 1))


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("  lookup:\n    name: lookup", "  find:\n    name: lookup"),
        ("    name: lookup\n", "    name: search\n"),
        ("    billing: {}\n", "    billing: {}\n    helper: {}\n"),
        ("  helper:\n    id: helper", "  helpers:\n    id: helper"),
        ("Be brief with {{customer}}.", "Be brief with {{client}}."),
        ("Be brief with {{customer}}.", "Be brief with {{ customer}}."),  # a span changed
        ("  tone: Be", "  voice: Be"),
        ("syntax: '{{variable}}'", "syntax: '${variable}'"),
        ("prompt_task: billing", "prompt_task: helper"),
    ],
)
def test_summary_changes_with_what_prompts_read(old: str, new: str) -> None:
    assert old in PACK
    assert not _same_summary(PACK, PACK.replace(old, new, 1))


_PLAIN_TYPES = (str, int, bool, type(None), Span, Config)


def _plain(hint: object) -> bool:
    """Whether values of type ``hint`` can only be plain, comparable values."""
    origin = typing.get_origin(hint)
    if origin is None:
        if hint in _PLAIN_TYPES or hint is object:
            return hint is not object
        return dataclasses.is_dataclass(hint) and _plain_dataclass(hint)
    if origin is typing.Literal:
        return True
    if origin in (tuple, frozenset, typing.Union, types.UnionType):
        return all(_plain(arg) for arg in typing.get_args(hint) if arg is not Ellipsis)
    return False


def _plain_dataclass(cls: object) -> bool:
    assert isinstance(cls, type)
    hints = typing.get_type_hints(cls)
    return all(
        _plain(hints[f.name]) or (f.name == "template_context")
        for f in dataclasses.fields(cls)
        if f.compare
    )


def test_the_summary_holds_plain_values_only() -> None:
    """No pack, tree, model object or mutable mapping can hide in the summary (the
    template context is a tuple of plain values: ``PackTemplates.context``)."""
    assert _plain_dataclass(PackSummary)
    assert {f.name for f in dataclasses.fields(PromptContext)} == {"summary", "templates"}
    for forbidden in ("pack", "data", "root", "text", "derived"):
        assert not hasattr(PromptContext, forbidden)


def test_sections_name_where_each_pack_attribute_comes_from() -> None:
    """Each attribute of ``Pack`` changes only with the sections ``recording`` says it
    is built from: a pack built from one section at a time has only those attributes
    set (the others keep their defaults)."""
    document = json.loads(json.dumps(_rich_data()))
    empty = build_pack(parse("{}").root)
    assert empty is not None
    attributes = {f.name for f in dataclasses.fields(Pack)} - {"span"}
    assert attributes <= set(SECTIONS) | set(ENTRIES)
    for section, value in document.items():
        pack = build_pack(parse(json.dumps({section: value})).root)
        assert pack is not None
        changed = {a for a in attributes if getattr(pack, a) != getattr(empty, a)}
        allowed = {a for a, s in SECTIONS.items() if section in s}
        allowed |= {a for a, s in ENTRIES.items() if s == section}
        assert changed, section
        assert changed <= allowed, section


def _rich_data() -> dict[str, object]:
    return {
        "id": "p",
        "name": "P",
        "version": "1.0.0",
        "description": "d",
        "template_engine": {"version": "v1", "syntax": "{{variable}}"},
        "prompts": {"a": {"id": "a", "system_template": "x"}},
        "fragments": {"f": "x"},
        "tools": {"t": {"name": "t", "description": "d"}},
        "workflow": {"version": 1, "entry": "s", "states": {"s": {"prompt_task": "a"}}},
        "agents": {
            "entry": "a",
            "members": {"a": {"governance": {"obligations": [{"id": "o"}]}}},
        },
        "skills": ["./skills/x"],
        "evals": [{"id": "e", "type": "llm_judge"}],
        "compositions": {"c": {"steps": [{"id": "s1", "tool": "t"}]}},
        "requires": {"providers": ["openai"]},
        "metadata": {"governance": {"obligations": [{"id": "o"}]}},
    }


def _edit(previous: Analysis, old: str, new: str) -> Analysis:
    assert old in previous.text
    text = previous.text.replace(old, new, 1)
    got = reanalyze(previous, text)
    assert INCREMENTAL in got.timings
    assert got.diagnostics == analyze(text).diagnostics
    return got


def test_an_edit_inside_one_prompt_checks_only_that_prompt() -> None:
    got = _edit(analyze(PACK), "Billing for {{company}}.", "Billing for {{company}} {{x}}.")
    assert got.timings[RULES_REUSED] == 2
    assert any(d.code == "PP502" for d in got.diagnostics)  # `x` is not declared


def test_an_edit_that_changes_the_summary_checks_every_prompt() -> None:
    got = _edit(analyze(PACK), "    name: lookup\n", "    name: search\n")
    assert got.timings[RULES_REUSED] == 0


def test_an_edit_elsewhere_reuses_every_prompt_after_it() -> None:
    previous = analyze(PACK)
    got = _edit(previous, "description: Look something up.", "description: Look it up now.")
    assert got.timings[RULES_REUSED] == 3
    # the prompts' diagnostics lie before the edit; the agents' and workflow's after it
    got = _edit(got, "Routes requests.", "Routes all requests.")
    assert got.timings[RULES_REUSED] == 2


def test_results_pointing_into_the_edited_block_are_computed_again() -> None:
    """`customer` is used in fragment `tone` and declared by no prompt: the prompt
    that includes the fragment reports it there. An edit of the fragment that keeps
    its placeholders leaves the summary as it was, but that prompt's result
    points into the edited block, so it is computed again (the others are reused)."""
    previous = analyze(PACK)
    assert any(
        d.code == "PP502" and PACK[d.span.start : d.span.end] == "customer"
        for d in previous.diagnostics
    )
    got = _edit(previous, "Be brief with", "Be very brief with")
    assert got.timings[RULES_REUSED] == 2


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How often each module's pack-wide part ran (by module name)."""
    counts: dict[str, int] = {}
    wrapped = []
    for m in MODULE_CHECKS:
        if m.check is None:
            wrapped.append(m)
            continue
        name = m.name.rsplit(".", 1)[1]

        def counting(
            ctx: CheckContext, check: typing.Any = m.check, name: str = name
        ) -> Iterable[Diagnostic]:
            counts[name] = counts.get(name, 0) + 1
            return list(check(ctx))

        wrapped.append(dataclasses.replace(m, check=counting))
    monkeypatch.setattr(analysis, "MODULE_CHECKS", tuple(wrapped))
    return counts


#: The pack-wide parts that read every prompt (through ``pack.prompts.values()``);
#: ``yaml11`` reads every top-level section but ``prompts`` (whose scalars it checks
#: per prompt), so it reruns for an edit anywhere else.
EVERY_PROMPT = {"pack", "tools", "templates", "compositions", "providers", "governance"}


@pytest.mark.parametrize(
    ("old", "new", "rerun"),
    [
        # `helper` is neither an agent nor run by a state
        ("Help with {{topic}}.", "Help with {{topic}} now.", EVERY_PROMPT),
        # `billing` is an agent, but its template is not on its card nor read by the
        # agents check; a state runs it (the workflow reads its artifact placeholders)
        ("Billing for {{company}}.", "Billing for {{company}} now.", EVERY_PROMPT | {"workflow"}),
        # a name on the card of `triage`, which a state runs
        ("name: Triage\n", "name: Router\n", EVERY_PROMPT | {"cards", "workflow"}),
        # a tool: the tools' own check and the cards (skills from tools)
        ("Look something up.", "Look it up.", {"tools", "cards", "yaml11"}),
        # the workflow: routes between agents, and the checks that read states
        (
            "on_event: {Done: end}",
            "on_event: {Done: start}",
            {"workflow", "cards", "compositions", "providers", "yaml11"},
        ),
        # a fragment: its check, and what states run may include it
        ("Be brief with", "Be very brief with", {"templates", "workflow", "yaml11"}),
    ],
)
def test_pack_wide_results_are_reused_while_what_they_read_is_unchanged(
    calls: dict[str, int], monkeypatch: pytest.MonkeyPatch, old: str, new: str, rerun: set[str]
) -> None:
    # Reuse without verification, so that a reused part does not run at all.
    monkeypatch.setenv(reuse.ENV, reuse.ON)
    assert old in PACK
    previous = analyze(PACK)
    calls.clear()
    text = PACK.replace(old, new, 1)
    got = reanalyze(previous, text)
    assert set(calls) == rerun
    assert INCREMENTAL in got.timings
    assert got.diagnostics == analyze(text).diagnostics
    assert got.timings[RULES_REUSED_PACK] == len(PACK_PARTS) - len(rerun)


PACK_PARTS = {m.name.rsplit(".", 1)[1] for m in MODULE_CHECKS if m.check is not None}


def _diagnostic(span: Span, related: tuple[Related, ...] = (), **data: object) -> Diagnostic:
    return Diagnostic("PP301", Severity.ERROR, "m", span, related, (), MappingProxyType(dict(data)))


def test_moving_results_shifts_what_follows_and_refuses_the_edited_block() -> None:
    edit = RuleEdit(RuleUnits(None, {}), "p", start=10, end=20, delta=5)
    before = _diagnostic(Span(2, 10), (Related(Span(0, 1), "r"),))
    after = _diagnostic(Span(20, 25), (Related(Span(3, 4), "r"), Related(Span(30, 31), "s")))
    moved = edit.moved(((before,), (after,)))
    assert moved is not None
    assert moved[0][0] is before  # untouched: the very same diagnostic
    assert moved[1][0].span == Span(25, 30)
    assert [r.span for r in moved[1][0].related] == [Span(3, 4), Span(35, 36)]
    assert [r.message for r in moved[1][0].related] == ["r", "s"]
    assert edit.moved(((_diagnostic(Span(9, 11)),),)) is None
    assert edit.moved(((_diagnostic(Span(0, 1), (Related(Span(15, 16), "r"),)),),)) is None
    assert edit.moved(((_diagnostic(Span(0, 1), at=Span(0, 1)),),)) is None
    assert edit.moved(((), ())) == ((), ())
