"""Editor features for the references of RFCs 0010–0017: compositions and their steps,
provider keys, state-bound members, validator and eval ids."""

from __future__ import annotations

import pytest

from language_support import analysis_of, offset, span_of, texts
from pack_lsp.core.ide import navigation
from pack_lsp.core.ide.completion import complete
from pack_lsp.core.ide.hover import hover
from pack_lsp.core.ide.index import Kind, SymbolId, index_for
from pack_lsp.core.ide.rename import RenameError, apply_edits, rename
from pack_lsp.core.ide.symbols import SymbolKind, document_symbols

PACK = """\
id: demo
name: Demo
version: 1.0.0
template_engine: {version: v1, syntax: "{{variable}}"}
requires:
  providers:
    - default
    - {key: triage, role: inference}
prompts:
  classify:
    id: classify
    name: Classify
    version: 1.0.0
    provider: triage
    system_template: Classify
    validators:
      - {id: pii-filter, type: banned_words}
    evals:
      - {id: tone, type: llm_judge, trigger: every_turn}
  review: {id: review, name: Review, version: 1.0.0, system_template: Review}
tools:
  lookup: {name: lookup, description: Look it up}
metadata:
  governance:
    obligations:
      - id: privacy
        obligation: "legal-eu-gdpr:Article22"
        controls: [{validator: pii-filter}, {eval: tone}]
workflow:
  version: 1
  entry: analyze
  states:
    analyze:
      orchestration: composition
      composition: handle
      on_event: {Done: finish}
    finish: {prompt_task: review, terminal: true}
agents:
  entry: review
  members:
    review: {state: finish, description: Reviews}
compositions:
  handle:
    version: 1
    output: answer
    steps:
      - {id: intent, kind: prompt, prompt_task: classify, provider: triage, output_schema: s.json}
      - id: gate
        kind: branch
        predicate: {path: "${intent.output.kind}", op: equals, value: x}
        then: answer
        else: lookup_step
      - {id: answer, kind: prompt, prompt_task: review}
      - {id: lookup_step, kind: tool, tool: lookup, depends_on: [gate]}
"""


@pytest.fixture(scope="module")
def analysis():  # type: ignore[no-untyped-def]
    return analysis_of(PACK)


def test_the_sample_pack_is_clean(analysis) -> None:  # type: ignore[no-untyped-def]
    assert [(d.code, d.message) for d in analysis.diagnostics if d.severity.value <= 2] == []


def test_new_definitions_are_indexed(analysis) -> None:  # type: ignore[no-untyped-def]
    index = index_for(analysis)
    assert index.defined(Kind.COMPOSITION) == {"handle"}
    assert index.defined(Kind.STEP, "handle") == {"intent", "gate", "answer", "lookup_step"}
    assert index.defined(Kind.PROVIDER) == {"default", "triage"}
    assert index.defined(Kind.VALIDATOR) == {"pii-filter"}
    assert index.defined(Kind.EVAL) == {"tone"}


@pytest.mark.parametrize(
    ("needle", "nth", "definition"),
    [
        ("composition: handle", 0, "handle:\n    version"),
        ("provider: triage", 0, "triage, role"),
        ("provider: triage", 1, "triage, role"),
        ("then: answer", 0, "answer, kind"),
        ("else: lookup_step", 0, "lookup_step, kind"),
        ("[gate]", 0, "gate\n"),
        ("output: answer", 0, "answer, kind"),
        ("${intent", 0, "intent, kind"),
        ("validator: pii-filter", 0, "pii-filter, type"),
        ("eval: tone", 0, "tone, type"),
        ("state: finish", 0, "finish: {prompt_task"),
        ("tool: lookup", 0, "lookup: {name"),
    ],
)
def test_go_to_definition(analysis, needle: str, nth: int, definition: str) -> None:  # type: ignore[no-untyped-def]
    # the cursor on the name after the field (or after `${` / `[`)
    start = offset(PACK, needle, nth)
    head = (
        needle.split(": ", 1)[0] + ": "
        if ": " in needle
        else needle[: 2 if needle[0] == "$" else 1]
    )
    at = start + len(head) + 1
    target = span_of(PACK, definition)
    name = definition.split(",")[0].split(":")[0].split("\n")[0]
    assert navigation.definition(analysis, at) == [
        type(target)(target.start, target.start + len(name))
    ]


def test_references_of_a_step_cover_then_depends_on_output_and_paths(analysis) -> None:  # type: ignore[no-untyped-def]
    spans = navigation.references(analysis, offset(PACK, "id: answer") + 4)
    assert texts(PACK, spans) == ["answer"] * 3  # output, its id, then
    spans = navigation.references(analysis, offset(PACK, "id: intent") + 4)
    assert texts(PACK, spans) == ["intent", "intent"]  # the id and `${intent.output.kind}`


def test_rename_a_provider_key_updates_every_provider_reference() -> None:
    analysis = analysis_of(PACK)
    out = apply_edits(PACK, rename(analysis, offset(PACK, "key: triage") + 6, "classifier"))
    assert out.count("key: classifier,") == 1
    assert out.count("provider: classifier") == 2
    assert "triage" not in out
    after = analysis_of(out)
    assert [d.code for d in after.diagnostics if d.severity.value <= 2] == []


def test_rename_a_state_updates_member_states() -> None:
    analysis = analysis_of(PACK)
    out = apply_edits(PACK, rename(analysis, offset(PACK, "finish: {prompt_task") + 1, "closing"))
    assert "state: closing" in out and "Done: closing" in out and "finish" not in out


def test_rename_a_step_updates_references_inside_strings() -> None:
    analysis = analysis_of(PACK)
    out = apply_edits(PACK, rename(analysis, offset(PACK, "id: intent") + 4, "classify_step"))
    assert '"${classify_step.output.kind}"' in out and "id: classify_step" in out
    assert [d.code for d in analysis_of(out).diagnostics if d.severity.value <= 2] == []


def test_rename_a_composition_updates_the_state() -> None:
    analysis = analysis_of(PACK)
    out = apply_edits(PACK, rename(analysis, offset(PACK, "composition: handle") + 14, "route"))
    assert "composition: route" in out and "  route:\n    version: 1" in out


def test_rename_refuses_a_step_name_that_is_taken_or_invalid() -> None:
    analysis = analysis_of(PACK)
    at = offset(PACK, "id: intent") + 4
    with pytest.raises(RenameError, match="already has a step named `gate`"):
        rename(analysis, at, "gate")
    with pytest.raises(RenameError, match="not a valid step name"):
        rename(analysis, at, "1st")
    with pytest.raises(RenameError, match="not a valid provider key"):
        rename(analysis, offset(PACK, "key: triage") + 6, "tri age")


def test_symbols_describe_steps_with_their_composition() -> None:
    assert SymbolId(Kind.STEP, "a", "handle").describe() == "step `a` of composition `handle`"


def labels_at(text: str, marker: str, replacement: str) -> list[str]:
    """Labels offered where ``marker`` is replaced by ``replacement`` (``|`` = cursor)."""
    assert marker in text
    edited = text.replace(marker, replacement, 1)
    at = edited.index("|")
    return [c.label for c in complete(analysis_of(edited.replace("|", "", 1)), at)]


@pytest.mark.parametrize(
    ("marker", "replacement", "expected"),
    [
        ("composition: handle", "composition: |", ["handle"]),
        ("    provider: triage\n", "    provider: |\n", ["default", "triage"]),
        ("provider: triage, output", "provider: |, output", ["default", "triage"]),
        ("then: answer", "then: |", ["intent", "gate", "answer", "lookup_step"]),
        ("[gate]", "[|]", ["intent", "gate", "answer", "lookup_step"]),
        ("output: answer", "output: |", ["intent", "gate", "answer", "lookup_step"]),
        ("state: finish", "state: |", ["analyze", "finish"]),
        ("{validator: pii-filter}", "{validator: |}", ["pii-filter"]),
        ("{eval: tone}", "{eval: |}", ["tone"]),
        ("tool: lookup,", "tool: |,", ["lookup"]),
        ("prompt_task: review}", "prompt_task: |}", ["classify", "review"]),
    ],
)
def test_completion_of_new_references(marker: str, replacement: str, expected: list[str]) -> None:
    assert labels_at(PACK, marker, replacement) == expected


@pytest.mark.parametrize(
    ("needle", "delta", "expected"),
    [
        ("composition: handle", 14, "**composition `handle`**"),
        ("    provider: triage", 15, "**provider `triage`** — role `inference`, required"),
        ("then: answer", 7, "**step `answer`** (prompt)"),
        ("state: finish", 8, "**state `finish`** (terminal)"),
    ],
)
def test_hover_on_new_references(analysis, needle: str, delta: int, expected: str) -> None:  # type: ignore[no-untyped-def]
    found = hover(analysis, offset(PACK, needle) + delta)
    assert found is not None and found.markdown.startswith(expected), found


def test_outline_lists_compositions_and_their_steps(analysis) -> None:  # type: ignore[no-untyped-def]
    found = document_symbols(analysis.pack, analysis.root)
    section = next(s for s in found if s.name == "compositions")
    (comp,) = section.children
    assert comp.kind is SymbolKind.COMPOSITION and comp.name == "handle"
    assert [(c.name, c.detail) for c in comp.children] == [
        ("intent", "prompt"),
        ("gate", "branch"),
        ("answer", "prompt"),
        ("lookup_step", "tool"),
    ]
    assert PACK[comp.children[0].selection.start : comp.children[0].selection.end] == "intent"
