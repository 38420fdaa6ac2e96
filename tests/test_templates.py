"""Placeholder extraction, dialects and pack-level look-ups."""

from __future__ import annotations

import json

import pytest

from pack_lsp.core.model import Pack, Template, build_pack
from pack_lsp.core.templates import (
    delimiters,
    dialect_for,
    pack_templates,
    placeholders,
    scan,
    unbalanced,
)
from pack_lsp.core.yamltree import parse

HEAD = (
    'id: demo\nname: Demo\nversion: 1.0.0\ntemplate_engine: {version: v1, syntax: "{{variable}}"}\n'
)


def _pack(body: str) -> tuple[Pack, str]:
    source = HEAD + body
    parsed = parse(source)
    pack = build_pack(parsed.root)
    assert pack is not None
    return pack, source


def _template(pack: Pack, key: str = "p") -> Template:
    t = pack.prompts[key].system_template
    assert t is not None
    return t


def test_kinds_names_and_spans() -> None:
    pack, source = _pack(
        "fragments: {tone: x}\n"
        "prompts:\n  p:\n    system_template: "
        '"{{a}} {{ b.c }} {{fragments.tone}} {{fragment:tone}} {{artifacts.sha}} '
        '{{x | upper}} {{{raw}}} {{this}}"\n'
    )
    got = placeholders(_template(pack), source, "spec", set(pack.fragments))
    assert [(p.kind, p.name, p.syntax) for p in got] == [
        ("variable", "a", "bare"),
        ("variable", "b", "path"),
        ("fragment", "tone", "fragments."),
        ("fragment", "tone", "fragment:"),
        ("artifact", "sha", "artifacts."),
        ("variable", "x", "bare"),
        ("variable", "raw", "bare"),
        ("unknown", "this", "expression"),
    ]
    for p in got:
        assert source[p.span.start : p.span.start + 2] == "{{"
        assert source[p.span.end - 2 : p.span.end] == "}}"
        assert source[p.name_span.start : p.name_span.end] == p.name


def test_promptkit_dialect_bare_fragment() -> None:
    pack, source = _pack(
        'fragments: {tone: Be nice}\nprompts:\n  p:\n    system_template: "{{tone}} {{user}}"\n'
    )
    assert dialect_for(pack, "auto") == "promptkit"
    got = placeholders(_template(pack), source, "promptkit", {"tone"})
    assert [(p.kind, p.name) for p in got] == [("fragment", "tone"), ("variable", "user")]
    spec = placeholders(_template(pack), source, "spec", {"tone"})
    assert [(p.kind, p.name) for p in spec] == [("variable", "tone"), ("variable", "user")]


def test_dialect_detection() -> None:
    python, _ = _pack(
        'fragments: {tone: x}\nprompts:\n  p:\n    system_template: "{{ fragment:tone }}"\n'
    )
    assert dialect_for(python) == "python"
    spec, _ = _pack(
        'fragments: {tone: x}\nprompts:\n  p:\n    system_template: "{{fragments.tone}}"\n'
    )
    assert dialect_for(spec) == "spec"
    none, _ = _pack('prompts:\n  p:\n    system_template: "{{a}}"\n')
    assert dialect_for(none) == "spec"
    assert dialect_for(none, "python") == "python"
    assert dialect_for(none, "promptkit") == "promptkit"


def test_control_tags_are_not_placeholders() -> None:
    pack, source = _pack(
        'prompts:\n  p:\n    system_template: "{{#if vip}}A{{else}}B{{/if}}{{! note }}'
        '{{> partial}}{{#each items}}{{name}}{{@index}}{{/each}}{{^empty}}x{{/empty}}"\n'
    )
    got = placeholders(_template(pack), source)
    assert [(p.kind, p.name, p.syntax, p.scoped) for p in got] == [
        ("variable", "vip", "block", False),
        ("variable", "items", "block", False),
        ("variable", "name", "bare", True),
        ("unknown", "@index", "expression", True),
        ("variable", "empty", "block", False),
    ]
    for p in got:
        assert source[p.name_span.start : p.name_span.end] == p.name


def test_unbalanced_braces() -> None:
    regions, problems = scan('a {{b c {{d}} e {f}} {"j": {"k": 1}} {{g')
    assert [(r.start, r.end) for r in regions] == [(8, 13)]
    assert problems == [("{{", 2, ""), ("}}", 18, "f"), ("{{", 37, "")]
    pack, source = _pack("prompts:\n  p:\n    system_template: 'x {{y'\n")
    found = unbalanced(_template(pack), source)
    assert len(found) == 1
    assert source[found[0].span.start : found[0].span.end] == "{{"


def test_multiline_block_template_spans() -> None:
    pack, source = _pack(
        "prompts:\n  p:\n    system_template: >\n      first line\n      second {{ who }}\n\n"
        "      third {{fragments.f}}\n"
    )
    got = placeholders(_template(pack), source)
    assert [source[p.name_span.start : p.name_span.end] for p in got] == ["who", "f"]


def test_pack_templates_lookups() -> None:
    pack, source = _pack(
        'fragments:\n  outer: "{{fragments.inner}} {{a}}"\n  inner: "{{b}}"\n'
        "  lonely: none\n"
        'prompts:\n  p:\n    system_template: "{{fragments.outer}} {{c}}"\n'
        '    model_overrides:\n      gpt-4: {system_template_suffix: "{{d}}"}\n'
    )
    info = pack_templates(pack, source)
    assert info.dialect == "spec"
    assert info.fragments_included_by("p") == ["outer", "inner"]
    assert info.variables_used_by("p") == {"a", "b", "c", "d"}
    uses = info.fragment_uses("inner")
    assert len(uses) == 1 and uses[0][0].key == "outer"
    offset = source.index("{{c}}") + 3
    hit = info.at(offset)
    assert hit is not None and hit[1].name == "c" and hit[0].owner == "prompt"
    assert info.at(source.index("lonely")) is None
    assert info.template_at(source.index("none")) is not None


def test_fragment_cycle_terminates() -> None:
    pack, source = _pack(
        'fragments:\n  a: "{{fragments.b}}"\n  b: "{{fragments.a}} {{v}}"\n'
        'prompts:\n  p:\n    system_template: "{{fragments.a}}"\n'
    )
    info = pack_templates(pack, source)
    assert set(info.fragments_included_by("p")) == {"a", "b"}
    assert info.variables_used_by("p") == {"v"}


@pytest.mark.parametrize(
    ("syntax", "expected"),
    [
        ("{{variable}}", ("{{", "}}")),
        ("${variable}", ("${", "}")),
        ("<%= name %>", ("<%=", "%>")),
        ("[[ variable ]]", ("[[", "]]")),
        ("variable", ("{{", "}}")),  # no delimiters: the default
        ("", ("{{", "}}")),
    ],
)
def test_delimiters_follow_template_engine_syntax(syntax: str, expected: tuple[str, str]) -> None:
    text = f"template_engine: {{version: v1, syntax: {json.dumps(syntax)}}}\n"
    pack = build_pack(parse(text).root)
    assert pack is not None and delimiters(pack) == expected
