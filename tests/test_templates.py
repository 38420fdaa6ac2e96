"""Placeholder extraction, dialects and pack-level look-ups."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pack_lsp.core.model.pack import Pack, Template, build_pack
from pack_lsp.core.model.templates import (
    DEFAULT_DELIMITERS,
    _placeholders_in,
    delimiters,
    dialect_for,
    pack_templates,
    placeholders,
    scan,
    unbalanced,
)
from pack_lsp.core.syntax.yamltree import parse

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


# ---------------------------------------------------------------- the scan, any delimiters

#: Delimiter pairs of ``template_engine.syntax`` samples (``${variable}``, ...).
CUSTOM = [("${", "}"), ("<%=", "%>"), ("[[", "]]"), ("{%", "%}"), ("<<", ">>"), ("$(", ")")]


def test_custom_delimiters_scan_like_braces() -> None:
    regions, problems = scan("a ${b ${c} d $ {e} ${f\n} ${ g | h }", ("${", "}"))
    assert [(r.start, r.end, r.inner_start, r.inner_end) for r in regions] == [
        (6, 10, 8, 9),
        (25, 35, 27, 34),
    ]
    # Left open: another "${" before the "}", and a line break before it.
    assert problems == [("${", 2, ""), ("${", 19, "")]
    # Braces are plain text with another syntax: no stray "}}" is reported.
    assert scan("{a}} {{b", ("<%=", "%>")) == ([], [])


class _CountingText(str):
    """A text that counts the characters its ``find`` calls examine."""

    examined = 0

    def find(self, sub: Any, start: Any = None, end: Any = None) -> int:
        lo = 0 if start is None else start
        hi = len(self) if end is None else min(end, len(self))
        found = super().find(sub, lo, hi)
        # What a search examines: from where it starts to the end of the match,
        # or to the end of its range.
        _CountingText.examined += max(0, (found + len(sub) if found >= 0 else hi) - lo)
        return found


def _pathological(opening: str, closing: str, size: int) -> list[str]:
    """Inputs of about ``size`` characters on which a scan that searches again from
    every opening delimiter examines the rest of the text each time (quadratic)."""
    shapes = [
        (opening, ""),  # opening delimiters, never closed
        (opening + "a ", ""),  # ... with text between them, on one long line
        (opening + "a ", closing),  # ... closed at the end of that line
        (opening + "a\n", closing),  # one per line, a closing one on the last
        (closing + " ", ""),  # closing delimiters only
        (opening + " " + closing + closing, ""),  # closed, then a stray closing one
    ]
    if (opening, closing) == DEFAULT_DELIMITERS:
        shapes += [("{", "}}"), ("{{{ a", "}}}"), ("{a}}", ""), ("{{a {b", "}}")]
    return [shape * (size // len(shape)) + end for shape, end in shapes]


@pytest.mark.parametrize("delims", [DEFAULT_DELIMITERS, *CUSTOM])
def test_scan_examines_each_character_a_bounded_number_of_times(
    delims: tuple[str, str],
) -> None:
    """Linear without timing: the characters the scan's searches examine, counted,
    stay within a small multiple of the text's length on 50 KB inputs made to
    make a scan that searches again from every opening delimiter quadratic (such
    a scan examines thousands of times the length of these). The scan looks for
    delimiters and line breaks with ``find`` only and never slices the text."""
    for text in _pathological(*delims, 50_000):
        counting = _CountingText(text)
        _CountingText.examined = 0
        scan(counting, delims)
        assert _CountingText.examined <= 8 * len(text), (text[:12], _CountingText.examined)


#: Pieces of template text with no delimiter character in any of ``CUSTOM``.
_FILLER = st.sampled_from(["a", "name", "x.y", " ", "\n", "#each", "/each", "|", ":", "!", "-"])
_TOKENS = st.lists(st.one_of(st.sampled_from(["{{", "}}"]), _FILLER), max_size=40)


def _render(tokens: list[str], opening: str, closing: str) -> tuple[str, list[int]]:
    """The text of ``tokens`` with ``{{``/``}}`` written as ``opening``/``closing``, and
    the offset where each token starts (and the end). Two ``{{`` in a row get a space
    between them: ``{{{`` is brace syntax of its own."""
    out: list[str] = []
    starts: list[int] = []
    at = 0
    previous = ""
    for token in tokens:
        if token == previous == "{{":
            out.append(" ")
            at += 1
        piece = opening if token == "{{" else closing if token == "}}" else token
        starts.append(at)
        out.append(piece)
        at += len(piece)
        previous = token
    starts.append(at)
    return "".join(out), starts


@given(_TOKENS, st.sampled_from(CUSTOM))
@settings(max_examples=400, deadline=None)
def test_custom_delimiters_find_what_braces_find(
    tokens: list[str], delims: tuple[str, str]
) -> None:
    """A template written with ``{{ }}`` and the same template written with another
    pair: the same regions, the same unclosed openings, the same placeholders."""
    braces, at_braces = _render(tokens, *DEFAULT_DELIMITERS)
    custom, at_custom = _render(tokens, *delims)
    to_custom = dict(zip(at_braces, at_custom, strict=True))
    regions, problems = scan(braces)
    got_regions, got_problems = scan(custom, delims)
    assert [
        (to_custom[r.start], to_custom[r.end], to_custom[r.inner_start], to_custom[r.inner_end])
        for r in regions
    ] == [(r.start, r.end, r.inner_start, r.inner_end) for r in got_regions]
    assert [(delims[0], to_custom[i], name) for _, i, name in problems] == got_problems
    found = _placeholders_in(braces, "spec", (), DEFAULT_DELIMITERS)
    got = _placeholders_in(custom, "spec", (), delims)
    assert [(kind, name, syntax) for kind, name, syntax, *_ in found] == [
        (kind, name, syntax) for kind, name, syntax, *_ in got
    ]
