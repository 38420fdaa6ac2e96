"""Semantic tokens for placeholders (core, no server), built on core.templates."""

from __future__ import annotations

from typing import Literal

import pytest

from pack_lsp.core.checks.analysis import Analysis, analyze
from pack_lsp.core.ide import templates_for
from pack_lsp.core.ide.semantic_tokens import (
    TOKEN_TYPES,
    Token,
    placeholder_at,
    resolved_placeholders,
    tokens,
)
from pack_lsp.core.model.config import Config

HEAD = (
    'id: demo\nname: Demo\nversion: 1.0.0\ntemplate_engine: {version: v1, syntax: "{{variable}}"}\n'
)

DialectSetting = Literal["auto", "spec", "promptkit", "python"]


def _analysis(body: str, dialect: DialectSetting = "auto") -> Analysis:
    return analyze(HEAD + body, kind="promptpack", config=Config(fragment_dialect=dialect))


def _seen(analysis: Analysis) -> list[tuple[str, str, bool]]:
    """(text covered, token type, undefined) for each token, in order."""
    lines = analysis.text.splitlines()
    return [
        (lines[t.line][t.start : t.start + t.length], TOKEN_TYPES[t.type], bool(t.modifiers))
        for t in tokens(analysis)
    ]


def _token_at(analysis: Analysis, needle: str, delta: int = 0) -> Token:
    """The token starting at ``needle`` (+ ``delta``), checked by line and column."""
    offset = analysis.text.index(needle) + delta
    line = analysis.text.count("\n", 0, offset)
    column = offset - (analysis.text.rfind("\n", 0, offset) + 1)
    found = [t for t in tokens(analysis) if (t.line, t.start) == (line, column)]
    assert found, (needle, line, column, tokens(analysis))
    return found[0]


# --------------------------------------------------------------------- dialects

BARE_AND_EXPLICIT = (
    "fragments: {tone: Be kind.}\n"
    "prompts:\n  p:\n    variables: [{name: who}]\n"
    '    system_template: "{{who}} {{tone}} {{fragments.tone}} {{fragment:tone}}"\n'
)


def test_spec_dialect_bare_name_is_a_variable() -> None:
    assert _seen(_analysis(BARE_AND_EXPLICIT, "spec")) == [
        ("who", "variable", False),
        ("tone", "variable", True),  # not declared: a fragment must be written fragments.x
        ("fragments.tone", "macro", False),
        ("fragment:tone", "macro", False),
    ]


def test_promptkit_dialect_bare_name_of_a_fragment_is_a_fragment() -> None:
    assert _seen(_analysis(BARE_AND_EXPLICIT, "promptkit")) == [
        ("who", "variable", False),
        ("tone", "macro", False),
        ("fragments.tone", "macro", False),
        ("fragment:tone", "macro", False),
    ]


def test_python_dialect() -> None:
    analysis = _analysis(
        "fragments: {tone: Be kind.}\n"
        "prompts:\n  p:\n    variables: [{name: who}]\n"
        '    system_template: "{{ fragment:tone }} {{tone}} {{fragment:gone}} {{who}}"\n',
        "python",
    )
    assert _seen(analysis) == [
        ("fragment:tone", "macro", False),
        ("tone", "variable", True),
        ("fragment:gone", "macro", True),
        ("who", "variable", False),
    ]


@pytest.mark.parametrize(
    ("explicit", "bare_kind"),
    [
        ("{{fragment:tone}}", "variable"),  # python
        ("{{fragments.tone}}", "variable"),  # spec
        ("", "macro"),  # only a bare name of a fragment: promptkit
    ],
)
def test_auto_dialect_follows_the_pack(explicit: str, bare_kind: str) -> None:
    analysis = _analysis(
        "fragments: {tone: Be kind.}\n"
        f'prompts:\n  p:\n    system_template: "{{{{tone}}}} {explicit}"\n'
    )
    seen = _seen(analysis)
    assert seen[0] == ("tone", bare_kind, bare_kind == "variable")
    assert all(kind == "macro" for _, kind, _ in seen[1:])


# ---------------------------------------------------------------- block helpers


def test_block_helper_argument_is_a_variable_and_closing_tags_are_not() -> None:
    analysis = _analysis(
        "prompts:\n  p:\n    variables: [{name: vip}, {name: items}]\n"
        '    system_template: "{{#if vip}}Hi{{else}}Hello{{/if}} {{#unless nope}}x{{/unless}}'
        ' {{#each items}}{{this}} {{label}} {{@index}}{{/each}}"\n'
    )
    assert _seen(analysis) == [
        ("vip", "variable", False),
        ("nope", "variable", True),
        ("items", "variable", False),
        ("label", "variable", False),  # inside {{#each}}: may be a field of the item
    ]
    token = _token_at(analysis, "vip}}")
    assert (token.length, token.modifiers) == (3, 0)


# -------------------------------------------------------- variables and artifacts


def test_undefined_variable_gets_the_modifier() -> None:
    analysis = _analysis(
        "prompts:\n  p:\n    variables: [{name: who}]\n"
        '    system_template: "{{who}} {{whom}} {{who.first}} {{ shout | upper }}"\n'
    )
    assert _seen(analysis) == [
        ("who", "variable", False),
        ("whom", "variable", True),
        ("who", "variable", False),
        ("shout", "variable", True),
    ]
    assert _token_at(analysis, "whom").modifiers == 1


def test_variables_in_fragments_resolve_through_the_including_prompts() -> None:
    analysis = _analysis(
        'fragments:\n  used: "{{a}} {{b}}"\n  unused: "{{b}} {{c}}"\n'
        "prompts:\n"
        '  p:\n    variables: [{name: a}]\n    system_template: "{{fragments.used}}"\n'
        '  q:\n    variables: [{name: b}]\n    system_template: "{{b}}"\n'
    )
    assert _seen(analysis) == [
        ("a", "variable", False),  # p includes `used` and declares a
        ("b", "variable", True),  # only q declares b, and q does not include `used`
        ("b", "variable", False),  # `unused` is included by no prompt: any prompt counts
        ("c", "variable", True),
        ("fragments.used", "macro", False),
        ("b", "variable", False),
    ]


def test_artifacts_defined_and_undefined() -> None:
    analysis = _analysis(
        'prompts:\n  p:\n    system_template: "{{artifacts.diff}} {{artifacts.gone}}"\n'
        "workflow:\n  version: 1\n  entry: s\n  states:\n    s:\n      prompt_task: p\n"
        "      artifacts:\n        diff: {type: text/plain}\n"
    )
    assert _seen(analysis) == [
        ("artifacts.diff", "property", False),
        ("artifacts.gone", "property", True),
    ]


def test_artifacts_without_a_workflow_are_undefined() -> None:
    analysis = _analysis('prompts:\n  p:\n    system_template: "{{artifacts.diff}}"\n')
    assert _seen(analysis) == [("artifacts.diff", "property", True)]


# ---------------------------------------------------------------- exact columns


def test_double_quoted_scalar_with_escapes() -> None:
    analysis = _analysis(
        "fragments: {tone: Be kind.}\n"
        "prompts:\n  p:\n    variables: [{name: who}]\n"
        '    system_template: "Say \\"hi\\" \\u00e9\\t{{who}} \\\\ {{fragments.tone}}"\n'
    )
    line = analysis.text.splitlines()[-1]
    assert '\\"hi\\"' in line  # the escapes are in the source
    got = [(t.start, t.length, t.type) for t in tokens(analysis)]
    assert got == [
        (line.index("who}}"), 3, 0),
        (line.index("fragments.tone"), len("fragments.tone"), 1),
    ]
    assert _seen(analysis) == [("who", "variable", False), ("fragments.tone", "macro", False)]


def test_folded_block_scalar() -> None:
    analysis = _analysis(
        "prompts:\n  p:\n    variables: [{name: who}, {name: topic}]\n"
        "    system_template: >-\n"
        "      Hello {{who}},\n"
        "\n"
        "        let us talk about\n"
        "      {{ topic }} and {{missing}}.\n"
    )
    lines = analysis.text.splitlines()
    hello = next(i for i, s in enumerate(lines) if "Hello" in s)
    topic = next(i for i, s in enumerate(lines) if "{{ topic }}" in s)
    got = [(t.line, t.start, t.length, t.modifiers) for t in tokens(analysis)]
    assert got == [
        (hello, lines[hello].index("who"), 3, 0),
        (topic, lines[topic].index("topic"), 5, 0),
        (topic, lines[topic].index("missing"), 7, 1),
    ]


def test_emoji_before_the_placeholder() -> None:
    analysis = _analysis(
        "fragments: {tone: Be kind.}\n"
        "prompts:\n  p:\n    variables: [{name: who}]\n"
        '    system_template: "😀 Héllo 👩‍💻 {{who}} {{fragments.tone}}"\n'
    )
    line = analysis.text.splitlines()[-1]
    who = _token_at(analysis, "who}}")
    assert who.start == line.index("who}}")  # code points; the server converts to UTF-16
    assert who.length == 3
    assert _token_at(analysis, "fragments.tone").start == line.index("fragments.tone")


# --------------------------------------------------------------- shared look-ups


def test_placeholder_at_covers_the_braces_and_skips_unknown() -> None:
    analysis = _analysis(
        "prompts:\n  p:\n    variables: [{name: who}]\n"
        '    system_template: "{{ who }} {{this}} {{/if}}"\n'
    )
    text = analysis.text
    found = placeholder_at(analysis, text.index("{{ who"))
    assert found is not None and found.kind == "variable" and found.defined
    assert text[found.span.start : found.span.end] == "who"
    assert found.prompts == ("p",)
    assert placeholder_at(analysis, text.index("this")) is None
    assert placeholder_at(analysis, text.index("/if")) is None
    assert placeholder_at(analysis, text.index("variables")) is None


def test_templates_are_computed_once_per_analysis() -> None:
    analysis = _analysis('prompts:\n  p:\n    system_template: "{{x}}"\n')
    first = templates_for(analysis)
    assert first is not None and templates_for(analysis) is first
    assert len(resolved_placeholders(analysis)) == 1
    assert templates_for(analysis) is first
    again = _analysis('prompts:\n  p:\n    system_template: "{{x}}"\n')
    assert templates_for(again) is not first


def test_no_pack_no_tokens() -> None:
    analysis = analyze("just: [text", kind="promptpack")
    assert tokens(analysis) == []
    assert placeholder_at(analysis, 0) is None


def test_runtime_bound_variables_are_defined_as_the_rules_say() -> None:
    # `input` is bound by the runtime everywhere; `workflow_context` only in prompts a
    # workflow state runs — the same exemption the undeclared-variable rule makes.
    analysis = _analysis(
        "prompts:\n"
        '  run: {system_template: "{{input}} {{workflow_context}}"}\n'
        '  free: {system_template: "{{input}} {{workflow_context}}"}\n'
        "workflow:\n  version: 1\n  entry: s\n"
        "  states: {s: {prompt_task: run, terminal: true}}\n"
    )
    assert _seen(analysis) == [
        ("input", "variable", False),
        ("workflow_context", "variable", False),
        ("input", "variable", False),
        ("workflow_context", "variable", True),
    ]
    codes = [
        (d.code, analysis.text[d.span.start : d.span.end])
        for d in analysis.diagnostics
        if d.code == "PP502"
    ]
    assert codes == [("PP502", "workflow_context")]
