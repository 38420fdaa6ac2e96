"""prepareRename and rename (core)."""

from __future__ import annotations

import re

import pytest

from language_support import analysis_of, load, offset
from pack_lsp.core.base.text import Span
from pack_lsp.core.checks.analysis import Analysis
from pack_lsp.core.ide.rename import Edit, RenameError, apply_edits, prepare_rename, rename

TEXT = load("support.promptpack.yaml")


def renamed(text: str, at: int, new: str) -> str:
    return apply_edits(text, rename(analysis_of(text), at, new))


def diagnostics(analysis: Analysis, old: str, new: str) -> list[tuple[str, str]]:
    """Codes and messages, with the new name written back as the old one."""
    return sorted(
        (d.code, re.sub(rf"\b{re.escape(new)}\b", old, d.message)) for d in analysis.diagnostics
    )


def test_apply_edits_rejects_overlaps() -> None:
    assert apply_edits("abcdef", [Edit(Span(4, 5), "E"), Edit(Span(0, 1), "A")]) == "AbcdEf"
    with pytest.raises(ValueError):
        apply_edits("abcdef", [Edit(Span(0, 3), "x"), Edit(Span(2, 4), "y")])


def test_prepare_rename_gives_the_name_span() -> None:
    analysis = analysis_of(TEXT)
    at = offset(TEXT, "'refund'", delta=3)
    target = prepare_rename(analysis, at)
    assert target.name == "refund"
    assert TEXT[target.span.start : target.span.end] == "refund"
    assert target.span.start == offset(TEXT, "'refund'") + 1


@pytest.mark.parametrize(
    ("needle", "message"),
    [
        ("Support pack", "no prompt, tool, fragment, variable or state name"),
        ("Billing: billing_desk", "no prompt, tool"),  # an event name
    ],
)
def test_prepare_rename_refuses_other_places(needle: str, message: str) -> None:
    with pytest.raises(RenameError, match=message):
        prepare_rename(analysis_of(TEXT), offset(TEXT, needle, delta=1))


def test_prepare_rename_refuses_an_undefined_name() -> None:
    text = TEXT.replace("prompt_task: tech", "prompt_task: techie")
    with pytest.raises(RenameError, match="`techie` is not defined"):
        prepare_rename(analysis_of(text), offset(text, "techie", delta=1))


def test_rename_tool_changes_key_name_items_and_blocklist() -> None:
    at = offset(TEXT, "  lookup_order:\n", delta=3)
    out = renamed(TEXT, at, "find_order")
    assert "lookup_order" not in out
    assert out.count("find_order") == 5
    assert 'tools: [find_order, billing, "a2a__tech"]' in out
    assert "blocklist: [find_order]" in out
    assert "      - find_order\n" in out
    assert "    name: find_order\n" in out


def test_rename_prompt_changes_every_reference_and_keeps_quotes() -> None:
    at = offset(TEXT, "  tech:\n", delta=3)
    out = renamed(TEXT, at, "engineering")
    assert '"a2a__engineering"' in out
    assert "  engineering:\n    id: engineering\n" in out
    assert "prompt_task: engineering" in out
    assert "    engineering:\n      tags: [support]" in out
    assert re.search(r"\btech\b:", out) is None


def test_rename_prompt_keeps_the_diagnostics() -> None:
    before = analysis_of(TEXT)
    at = offset(TEXT, "  billing:\n", delta=3)
    out = renamed(TEXT, at, "accounts")
    after = analysis_of(out)
    assert diagnostics(after, "billing", "accounts") == diagnostics(before, "billing", "accounts")
    assert before.diagnostics  # the fixture has a PP305 that must survive the rename


def test_rename_state_changes_entry_targets_and_on_max_visits() -> None:
    at = offset(TEXT, "    closed:\n", delta=5)
    out = renamed(TEXT, at, "finished")
    assert out.count("finished") == 4 and "closed" not in out
    at = offset(TEXT, "entry: intake", delta=8)
    out = renamed(TEXT, at, "start")
    assert "entry: start" in out and "    start:\n      prompt_task: triage" in out


def test_rename_state_quotes_a_name_that_needs_it() -> None:
    at = offset(TEXT, "    closed:\n", delta=5)
    out = renamed(TEXT, at, "all done: yes")
    assert '    "all done: yes":\n' in out
    assert 'on_max_visits: "all done: yes"' in out
    assert not analysis_of(out).syntax_error


def test_rename_in_json_keeps_json() -> None:
    text = (
        '{"prompts": {"a": {"id": "a", "name": "A", "version": "1.0.0",\n'
        ' "system_template": "x", "tools": ["t"]}},\n'
        ' "tools": {"t": {"name": "t", "description": "d"}},\n'
        ' "id": "p", "name": "P", "version": "1.0.0",\n'
        ' "template_engine": {"version": "v1", "syntax": "{{x}}"}}\n'
    )
    at = offset(text, '"t"', delta=1)
    out = renamed(text, at, "search")
    assert out.count('"search"') == 3 and '"t"' not in out


@pytest.mark.parametrize(
    ("needle", "new", "message"),
    [
        ("  lookup_order:\n", "find order", "not a valid tool name"),
        ("  lookup_order:\n", "refund", "already has a tool named `refund`"),
        ("  lookup_order:\n", "tech", "is a prompt key"),
        ("  tech:\n", "Tech", "its `id` follows the key"),
        ("  tech:\n", "billing", "already has a prompt named `billing`"),
        ("    closed:\n", "intake", "already has a state named `intake`"),
        ("    closed:\n", "", "empty"),
        ("    closed:\n", " padded", "surrounding spaces"),
        ("  greeting:", "2nd", "not a usable fragment name"),
        ("      - name: customer", "1st", "not a valid variable name"),
        ("      - name: customer", "company", "already declares a variable named `company`"),
    ],
)
def test_rename_refuses_bad_names(needle: str, new: str, message: str) -> None:
    at = offset(TEXT, needle, delta=len(needle) - len(needle.lstrip()) + 1)
    if needle.startswith("      - name:"):
        at = offset(TEXT, needle, delta=len(needle) - 3)
    with pytest.raises(RenameError, match=re.escape(message)):
        rename(analysis_of(TEXT), at, new)


def test_rename_to_the_same_name_is_no_edit() -> None:
    at = offset(TEXT, "  tech:\n", delta=3)
    assert rename(analysis_of(TEXT), at, "tech") == []


def test_rename_refused_with_a_syntax_error() -> None:
    text = TEXT + "broken: [\n"
    with pytest.raises(RenameError, match="syntax error"):
        rename(analysis_of(text), offset(text, "  tech:\n", delta=3), "x")


# ------------------------------------------------------------------- placeholders


def test_rename_variable_changes_declaration_and_placeholders() -> None:
    at = offset(TEXT, "{{customer}} to", delta=4)
    out = renamed(TEXT, at, "client")
    assert "- name: client" in out
    assert "Route the request of {{client}} to" in out
    assert "Hello {{client}}, welcome" in out  # in the fragment triage includes
    assert "customer" not in out


def test_rename_variable_of_one_prompt_leaves_the_others() -> None:
    # billing's `company` is used by billing's template and the `signoff` fragment.
    at = offset(TEXT, "for {{company}}", delta=7)
    out = renamed(TEXT, at, "brand")
    assert "You handle invoices for {{brand}}." in out
    assert "Thanks for contacting {{brand}}." in out
    assert "welcome to {{company}}" in out  # triage's variable, through `greeting`
    assert out.count("- name: company") == 1 and out.count("- name: brand") == 1


def test_rename_variable_shared_through_a_fragment_renames_it_everywhere() -> None:
    text = TEXT.replace(
        "You handle invoices for {{company}}. {{fragments.signoff}}",
        "{{fragments.greeting}} {{fragments.signoff}}",
    )
    # Now `greeting` ({{company}}) is included by triage and billing.
    at = offset(text, "welcome to {{company}}", delta=13)
    out = renamed(text, at, "brand")
    assert "company" not in out
    assert out.count("- name: brand") == 2


def test_rename_fragment_in_each_dialect() -> None:
    for written in ("{{fragments.greeting}}", "{{fragment:greeting}}", "{{ greeting }}"):
        text = TEXT.replace("{{fragments.greeting}}", written)
        if written == "{{ greeting }}":
            text = text.replace("{{fragments.signoff}}", "{{signoff}}")
        at = offset(text, "  greeting:", delta=3)
        out = renamed(text, at, "welcome")
        assert '  welcome: "Hello' in out
        assert written.replace("greeting", "welcome") in out, written
        assert "greeting" not in out


def test_rename_from_a_placeholder() -> None:
    at = offset(TEXT, "{{fragments.signoff}}", delta=14)
    target = prepare_rename(analysis_of(TEXT), at)
    assert (target.name, TEXT[target.span.start : target.span.end]) == ("signoff", "signoff")
    out = renamed(TEXT, at, "closing")
    assert "{{fragments.closing}}" in out and "  closing: |" in out


def test_rename_prompt_in_a_pack_with_agents_workflow_and_templates_keeps_diagnostics() -> None:
    text = TEXT.replace("tools: [lookup_order, billing", "tools: [lookup_ordr, billing")
    text = text.replace("Route the request", "Route {{unknown_var}} the request")
    before = analysis_of(text)
    assert {d.code for d in before.diagnostics} >= {"PP301", "PP305"}
    for prompt in ("triage", "billing", "tech"):
        at = offset(text, f"  {prompt}:\n", delta=3)
        new = f"{prompt}_v2"
        out = renamed(text, at, new)
        after = analysis_of(out)
        assert diagnostics(after, prompt, new) == diagnostics(before, prompt, new), prompt
