"""Symbol index, go to definition, references and highlights (core)."""

from __future__ import annotations

import pytest

from language_support import analysis_of, load, offset, span_of, texts
from pack_lsp.core.base.text import Span
from pack_lsp.core.ide import navigation
from pack_lsp.core.ide.index import Kind, Role, SymbolId, index_for, name_span

TEXT = load("support.promptpack.yaml")


@pytest.fixture(scope="module")
def analysis():  # type: ignore[no-untyped-def]
    return analysis_of(TEXT)


def test_name_span_strips_quotes_only_when_they_surround_the_value() -> None:
    text = 'a: "x_y" b: \'q\' c: plain d: "esc\\u0041"'
    assert name_span(text, span_of(text, '"x_y"'), "x_y") == (span_of(text, "x_y"), True)
    assert name_span(text, span_of(text, "'q'"), "q") == (span_of(text, "q"), True)
    assert name_span(text, span_of(text, "plain"), "plain") == (span_of(text, "plain"), True)
    whole = span_of(text, '"esc\\u0041"')
    assert name_span(text, whole, "escA") == (whole, False)


def test_every_definition_kind_is_indexed(analysis) -> None:  # type: ignore[no-untyped-def]
    index = index_for(analysis)
    assert index.defined(Kind.PROMPT) == {"triage", "billing", "tech"}
    assert index.defined(Kind.TOOL) == {"lookup_order", "refund"}
    assert index.defined(Kind.FRAGMENT) == {"greeting", "signoff"}
    assert index.defined(Kind.STATE) == {"intake", "billing_desk", "tech_desk", "closed"}
    assert index.defined(Kind.VARIABLE, "triage") == {"customer", "company"}
    assert index.defined(Kind.VARIABLE, "billing") == {"company"}


def test_tool_item_goes_to_the_tool_key(analysis) -> None:  # type: ignore[no-untyped-def]
    at = offset(TEXT, "lookup_order, billing", delta=3)
    key = offset(TEXT, "  lookup_order:\n") + 2
    assert navigation.definition(analysis, at) == [Span(key, key + len("lookup_order"))]


def test_tool_item_naming_a_member_goes_to_the_prompt(analysis) -> None:  # type: ignore[no-untyped-def]
    at = offset(TEXT, 'billing, "a2a', delta=2)
    (target,) = navigation.definition(analysis, at)
    assert TEXT[target.start : target.end] == "billing"
    assert target.start == offset(TEXT, "  billing:\n") + 2


def test_a2a_tool_goes_to_the_member_prompt_and_covers_only_the_name(analysis) -> None:  # type: ignore[no-untyped-def]
    at = offset(TEXT, "a2a__tech", delta=6)
    (target,) = navigation.definition(analysis, at)
    assert target.start == offset(TEXT, "  tech:\n") + 2
    refs = navigation.references(analysis, at, include_declaration=False)
    a2a = offset(TEXT, "a2a__tech") + 5
    assert Span(a2a, a2a + 4) in refs
    # The prefix itself is not part of the name.
    assert navigation.definition(analysis, offset(TEXT, "a2a__tech", delta=1)) == []


def test_references_of_a_prompt_cover_every_place(analysis) -> None:  # type: ignore[no-untyped-def]
    at = offset(TEXT, "  triage:\n", delta=4)
    refs = navigation.references(analysis, at)
    lines = sorted({analysis.lines.position(s.start).line for s in refs})
    found = [analysis.lines.line_text(line).strip() for line in lines]
    assert found == [
        "triage:",
        "id: triage",
        "prompt_task: triage",
        "prompt_task: triage",
        "entry: triage",
        "triage:",
    ]
    assert all(TEXT[s.start : s.end] == "triage" for s in refs)
    without = navigation.references(analysis, at, include_declaration=False)
    assert len(without) == len(refs) - 1


def test_member_key_and_entry_go_to_the_prompt(analysis) -> None:  # type: ignore[no-untyped-def]
    prompt_key = offset(TEXT, "  billing:\n") + 2
    member = offset(TEXT, "    billing: {}") + 4
    assert navigation.definition(analysis, member + 1) == [Span(prompt_key, prompt_key + 7)]
    entry = offset(TEXT, "entry: triage") + 7
    triage = offset(TEXT, "  triage:\n") + 2
    assert navigation.definition(analysis, entry) == [Span(triage, triage + 6)]


def test_workflow_references_resolve_to_states(analysis) -> None:  # type: ignore[no-untyped-def]
    closed_def = offset(TEXT, "    closed:\n") + 4
    for needle in ("Done: closed", "on_max_visits: closed"):
        at = offset(TEXT, needle) + len(needle) - 2
        assert navigation.definition(analysis, at) == [Span(closed_def, closed_def + 6)]
    entry = offset(TEXT, "entry: intake") + 8
    intake = offset(TEXT, "    intake:") + 4
    assert navigation.definition(analysis, entry) == [Span(intake, intake + 6)]
    refs = texts(TEXT, navigation.references(analysis, closed_def))
    assert refs == ["closed"] * 4  # definition + two targets + on_max_visits


def test_prompt_task_goes_to_the_prompt(analysis) -> None:  # type: ignore[no-untyped-def]
    at = offset(TEXT, "prompt_task: tech") + 14
    tech = offset(TEXT, "  tech:\n") + 2
    assert navigation.definition(analysis, at) == [Span(tech, tech + 4)]


def test_blocklist_item_is_a_tool_reference(analysis) -> None:  # type: ignore[no-untyped-def]
    at = offset(TEXT, "blocklist: [lookup_order]") + 13
    index = index_for(analysis)
    (occ,) = index.at(at)
    assert occ.role is Role.BLOCKLIST and occ.symbol == SymbolId(Kind.TOOL, "lookup_order")


def test_quoted_items_point_inside_the_quotes(analysis) -> None:  # type: ignore[no-untyped-def]
    at = offset(TEXT, "'refund'", delta=2)
    refs = navigation.references(analysis, at)
    assert texts(TEXT, refs) == ["refund", "refund", "refund"]  # item, key, name
    assert Span(offset(TEXT, "'refund'") + 1, offset(TEXT, "'refund'") + 7) in refs


def test_highlights_mark_definitions_as_writes(analysis) -> None:  # type: ignore[no-untyped-def]
    at = offset(TEXT, "  refund:\n") + 2
    marks = navigation.highlights(analysis, at)
    assert [(TEXT[h.span.start : h.span.end], h.kind.value) for h in marks] == [
        ("refund", "read"),
        ("refund", "write"),
        ("refund", "read"),
    ]
    assert marks[1].span == Span(at, at + 6)


def test_nothing_under_the_cursor(analysis) -> None:  # type: ignore[no-untyped-def]
    at = offset(TEXT, "Support pack")
    assert navigation.definition(analysis, at) == []
    assert navigation.references(analysis, at) == []
    assert navigation.highlights(analysis, at) == []


def test_undefined_tool_still_has_references() -> None:
    text = TEXT.replace("tools: [lookup_order, billing", "tools: [lookup_ordr, billing")
    analysis = analysis_of(text)
    at = offset(text, "lookup_ordr", delta=2)
    assert navigation.definition(analysis, at) == []
    assert texts(text, navigation.references(analysis, at)) == ["lookup_ordr"]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "just a string",
        "- a\n- b\n",
        "prompts: [1, 2]",
        "prompts:\n  a: 3\n",
        "tools: {x: 1}\nprompts:\n  p:\n    tools: [x, {y: 1}, null]\n",
        "agents: {entry: [1], members: [a]}\nworkflow: {states: {a: 1}, entry: {}}\n",
        "prompts:\n  p: {tools: [a\n",
    ],
)
def test_broken_documents_do_not_crash(text: str) -> None:
    analysis = analysis_of(text)
    for at in range(len(text) + 1):
        navigation.definition(analysis, at)
        navigation.references(analysis, at)
        navigation.highlights(analysis, at)


# ------------------------------------------------------------------- placeholders


def test_variable_placeholder_goes_to_its_declaration(analysis) -> None:  # type: ignore[no-untyped-def]
    at = offset(TEXT, "request of {{customer}}", delta=14)
    decl = offset(TEXT, "- name: customer") + 8
    assert navigation.definition(analysis, at) == [Span(decl, decl + 8)]
    # From the braces too.
    assert navigation.definition(analysis, offset(TEXT, "{{customer}} to", delta=1)) == [
        Span(decl, decl + 8)
    ]


def test_fragment_placeholder_goes_to_the_fragment(analysis) -> None:  # type: ignore[no-untyped-def]
    at = offset(TEXT, "{{fragments.greeting}}", delta=14)
    key = offset(TEXT, "  greeting:") + 2
    assert navigation.definition(analysis, at) == [Span(key, key + 8)]
    refs = navigation.references(analysis, key + 1)
    assert texts(TEXT, refs) == ["greeting", "greeting"]


def test_placeholder_in_a_fragment_belongs_to_the_prompts_including_it(analysis) -> None:  # type: ignore[no-untyped-def]
    # `greeting` is included by triage only; `signoff` by billing only.
    in_greeting = offset(TEXT, "welcome to {{company}}", delta=13)
    triage_decl = offset(TEXT, "- name: company") + 8
    assert navigation.definition(analysis, in_greeting) == [Span(triage_decl, triage_decl + 7)]
    in_signoff = offset(TEXT, "contacting {{company}}", delta=13)
    billing_decl = offset(TEXT, "- name: company", nth=1) + 8
    assert navigation.definition(analysis, in_signoff) == [Span(billing_decl, billing_decl + 7)]
    refs = texts(TEXT, navigation.references(analysis, billing_decl + 1))
    assert refs == ["company"] * 3  # the fragment, the declaration, the system template


def test_placeholder_spans_are_exact_in_every_scalar_style() -> None:
    text = TEXT.replace(
        'system_template: "You handle invoices for {{company}}. {{fragments.signoff}}"',
        'system_template: "You handle\\tinvoices \\u00e9 for {{company}}.\\n{{fragments.signoff}}"',
    )
    analysis = analysis_of(text)
    at = offset(text, "for {{company}}", delta=7)
    refs = navigation.references(analysis, at)
    assert texts(text, refs) == ["company"] * 3


def test_fragment_dialects() -> None:
    base = TEXT.replace("{{fragments.greeting}}", "{{greeting}}").replace(
        "{{fragments.signoff}}", "{{signoff}}"
    )
    analysis = analysis_of(base)  # auto: a bare fragment name → promptkit dialect
    key = offset(base, "  greeting:") + 2
    at = offset(base, "{{greeting}}", delta=3)
    assert navigation.definition(analysis, at) == [Span(key, key + 8)]
    python = TEXT.replace("{{fragments.greeting}}", "{{fragment:greeting}}").replace(
        "{{fragments.signoff}}", "{{fragment:signoff}}"
    )
    analysis = analysis_of(python)
    at = offset(python, "{{fragment:greeting}}", delta=12)
    assert navigation.definition(analysis, at) == [Span(key, key + 8)]


def test_artifact_placeholder_goes_to_the_state_artifact() -> None:
    text = TEXT.replace(
        "      max_visits: 3\n",
        "      max_visits: 3\n      artifacts:\n        ticket: {type: text/plain}\n",
    ).replace("You handle invoices", "Ticket {{artifacts.ticket}}. You handle invoices")
    analysis = analysis_of(text)
    at = offset(text, "{{artifacts.ticket}}", delta=13)
    key = offset(text, "ticket: {type")
    assert navigation.definition(analysis, at) == [Span(key, key + 6)]
