"""Per-prompt rule results and the interface fingerprint that guards their reuse.

After an edit inside one block, incremental analysis reuses the per-prompt rule
results of the other prompts while the fingerprint of what those parts read outside
their prompt (``prompt_interface`` of each rule module) is unchanged. These tests
check that the fingerprint sees every kind of change the per-prompt parts depend on,
ignores what they do not read, and that results pointing into the edited block are
computed again; ``test_incremental.py`` compares random edits with full analyses.
"""

from __future__ import annotations

from types import MappingProxyType

import pytest

from pack_lsp.core.analysis import RULES_REUSED, RULES_REUSED_PACK, Analysis, analyze
from pack_lsp.core.context import RuleEdit, RuleUnits
from pack_lsp.core.diagnostics import Diagnostic, Related, Severity
from pack_lsp.core.incremental import INCREMENTAL, reanalyze
from pack_lsp.core.registry import MODULE_CHECKS, PROMPT_CHECKS
from pack_lsp.core.text import Span

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


def _interface(text: str) -> dict[str, object]:
    units = analyze(text).rule_units
    assert units is not None
    return {
        m.name.rsplit(".", 1)[1]: value
        for m, value in zip(PROMPT_CHECKS, units.interface, strict=True)
    }


def test_every_module_with_a_prompt_part_has_an_interface() -> None:
    names = {m.name.rsplit(".", 1)[1] for m in PROMPT_CHECKS}
    assert {"tools", "agents", "pack", "templates"} <= names
    assert all(m.interface is not None for m in PROMPT_CHECKS)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("description: Routes requests.", "description: Routes every request."),
        ("Billing for {{company}}.", "Billing for {{company}} and {{fragments.tone}}."),
        ("tools: [lookup]\n  helper:", "tools: [lookup, nothing]\n  helper:"),
        ("description: Look something up.", "description: Look it up."),
        ("triage: {description: Routes.}", "triage: {description: Sends.}"),
        ("on_event: {Done: end}", "on_event: {Finished: end}"),
    ],
)
def test_interface_ignores_what_no_other_prompt_reads(old: str, new: str) -> None:
    assert old in PACK
    assert _interface(PACK) == _interface(PACK.replace(old, new, 1))


@pytest.mark.parametrize(
    ("old", "new", "changed"),
    [
        ("  lookup:\n    name: lookup", "  find:\n    name: lookup", {"tools", "agents"}),
        ("    name: lookup\n", "    name: search\n", {"tools", "agents"}),
        ("    billing: {}\n", "    billing: {}\n    helper: {}\n", {"tools", "agents"}),
        ("  helper:\n    id: helper", "  helpers:\n    id: helper", {"tools", "agents"}),
        ("Be brief with {{customer}}.", "Be brief with {{client}}.", {"templates"}),
        ("  tone: Be", "  voice: Be", {"templates"}),
        ("syntax: '{{variable}}'", "syntax: '${variable}'", {"templates"}),
        ("prompt_task: billing", "prompt_task: helper", {"templates"}),
    ],
)
def test_interface_changes_with_what_prompts_read(old: str, new: str, changed: set[str]) -> None:
    assert old in PACK
    before, after = _interface(PACK), _interface(PACK.replace(old, new, 1))
    assert {k for k in before if before[k] != after[k]} == changed


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


def test_an_edit_that_changes_the_interface_checks_every_prompt() -> None:
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
    its placeholders leaves the interface as it was, but that prompt's result
    points into the edited block, so it is computed again (the others are reused)."""
    previous = analyze(PACK)
    assert any(
        d.code == "PP502" and PACK[d.span.start : d.span.end] == "customer"
        for d in previous.diagnostics
    )
    got = _edit(previous, "Be brief with", "Be very brief with")
    assert got.timings[RULES_REUSED] == 2


PACK_PARTS = {m.name.rsplit(".", 1)[1] for m in MODULE_CHECKS if m.pack_interface is not None}


@pytest.mark.parametrize(
    ("old", "new", "reused"),
    [
        # `helper` is neither an agent nor run by a state
        ("Help with {{topic}}.", "Help with {{topic}} now.", 2),
        ("description: Helps.", "description: Helps a lot.", 2),
        # `billing` is an agent and run by a state: its template is not on its card,
        # but the workflow reads it (artifacts)
        ("Billing for {{company}}.", "Billing for {{company}} now.", 1),
        # a name is on the card of `triage`, which a state runs
        ("name: Triage\n", "name: Router\n", 0),
        # a tool's description: neither reads it
        ("Look something up.", "Look it up.", 2),
        # the agents section: the cards read it, the workflow does not
        ("billing: {}", "billing: {tags: [x]}", 1),
        # the workflow: routes between agents, and the workflow's own check
        ("on_event: {Done: end}", "on_event: {Done: start}", 0),
        # a fragment: what states run may include it
        ("Be brief with", "Be very brief with", 1),
    ],
)
def test_pack_wide_results_are_reused_while_what_they_read_is_unchanged(
    old: str, new: str, reused: int
) -> None:
    assert {"cards", "workflow"} == PACK_PARTS
    assert old in PACK
    got = _edit(analyze(PACK), old, new)
    assert got.timings[RULES_REUSED_PACK] == reused


def _diagnostic(span: Span, related: tuple[Related, ...] = (), **data: object) -> Diagnostic:
    return Diagnostic("PP301", Severity.ERROR, "m", span, related, (), MappingProxyType(dict(data)))


def test_moving_results_shifts_what_follows_and_refuses_the_edited_block() -> None:
    edit = RuleEdit(RuleUnits((), {}), "p", start=10, end=20, delta=5)
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
