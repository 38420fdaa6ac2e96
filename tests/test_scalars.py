"""Value index → document offset mapping for every scalar style."""

from __future__ import annotations

import io
import json
import random
import zlib

import pytest
from ruamel.yaml import YAML
from ruamel.yaml.scalarstring import (
    DoubleQuotedScalarString,
    FoldedScalarString,
    LiteralScalarString,
    SingleQuotedScalarString,
)

from pack_lsp.core.base.text import Span
from pack_lsp.core.syntax.scalars import ScalarMap, scalar_map, value_offsets
from pack_lsp.core.syntax.yamltree import MappingNode, Node, ScalarNode, SequenceNode, deref, parse

_SIMPLE_ESCAPES = {
    "0": "\0",
    "a": "\x07",
    "b": "\x08",
    "t": "\t",
    "\t": "\t",
    "n": "\n",
    "v": "\x0b",
    "f": "\x0c",
    "r": "\r",
    "e": "\x1b",
    " ": " ",
    '"': '"',
    "/": "/",
    "\\": "\\",
    "N": "\x85",
    "_": "\xa0",
    "L": "\u2028",
    "P": "\u2029",
}
_LINE_BREAKS = ("\n", "\r\n", "\r", "\x85")


def _decodes_to(piece: str, ch: str) -> bool:
    """Whether the source text ``piece`` can have produced the value character ``ch``."""
    if piece == ch:
        return True
    if piece == "''":
        return ch == "'"
    if piece in _LINE_BREAKS:
        return ch in (" ", "\n")
    if len(piece) >= 2 and piece[0] == "\\":
        kind = piece[1]
        if len(piece) == 2 and kind in _SIMPLE_ESCAPES:
            return _SIMPLE_ESCAPES[kind] == ch
        if kind in "xuU":
            return chr(int(piece[2:], 16)) == ch
    return False


def _scalars(node: Node | None) -> list[ScalarNode]:
    node = deref(node)
    if isinstance(node, ScalarNode):
        return [node]
    out: list[ScalarNode] = []
    if isinstance(node, MappingNode):
        for pair in node.pairs:
            out.extend(_scalars(pair.key))
            out.extend(_scalars(pair.value))
    elif isinstance(node, SequenceNode):
        for item in node.items:
            out.extend(_scalars(item))
    return out


def _check_exact(source: str) -> list[ScalarMap]:
    parsed = parse(source)
    assert not parsed.syntax_error, source
    maps = []
    for node in _scalars(parsed.root):
        if not isinstance(node.value, str):
            continue
        m = scalar_map(node, source)
        assert m.exact, (node.style, node.text, source)
        assert len(m.starts) == len(node.text)
        previous = -1
        for i, ch in enumerate(node.text):
            piece = source[m.starts[i] : m.ends[i]]
            assert _decodes_to(piece, ch), (i, ch, piece, node.style, source)
            assert node.span.start <= m.starts[i] and m.ends[i] <= node.span.end
            assert m.starts[i] >= previous
            previous = m.ends[i]
        maps.append(m)
    return maps


_ALPHABET = "abcdefghij klmnop  xyz \t\t\n\n\n'\"\\{}#:-,[]&*!|>%@`😀é\u00a0\u4e2d\U0001f680{{ }}. "


def _style_of(m: ScalarMap) -> str:
    return m.style


def _random_strings(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        length = rng.randint(0, 60)
        text = "".join(rng.choice(_ALPHABET) for _ in range(length))
        out.append(text)
    return out


def _dump(data: object, width: int = 20) -> str:
    yaml = YAML()
    yaml.width = width
    yaml.allow_unicode = True
    buf = io.StringIO()
    yaml.dump(data, buf)
    return buf.getvalue()


STYLES = {
    "plain": str,
    "double": DoubleQuotedScalarString,
    "single": SingleQuotedScalarString,
    "literal": LiteralScalarString,
    "folded": FoldedScalarString,
}


@pytest.mark.parametrize("style", list(STYLES))
@pytest.mark.parametrize("crlf", [False, True], ids=["lf", "crlf"])
def test_round_trip_generated_strings(style: str, crlf: bool) -> None:
    wrap = STYLES[style]
    strings = _random_strings(zlib.crc32(f"{style}{crlf}".encode()), 150)
    checked = 0
    styles: set[str] = set()
    for text in strings:
        if style in ("literal", "folded") and (
            text.strip(" \t\n") != text.strip("\n") or "\t" in text
        ):
            # Leading/trailing blanks and tabs force ruamel into another style.
            text = text.strip(" \t").replace("\t", " ")
        source = _dump({"prompt": {"system_template": wrap(text)}, "list": [wrap(text)]})
        if crlf:
            source = source.replace("\n", "\r\n")
        parsed = parse(source)
        if parsed.syntax_error:
            continue  # ruamel emitted something libyaml rejects: not our concern here
        maps = _check_exact(source)
        assert maps
        styles.update(_style_of(m) for m in maps)
        checked += 1
    assert checked > 100
    expected = {"plain": "", "double": '"', "single": "'", "literal": "|", "folded": ">"}[style]
    assert expected in styles


def test_round_trip_json_strings() -> None:
    for ensure_ascii in (True, False):
        for text in _random_strings(7 + ensure_ascii, 200):
            text = text.replace("\U0001f680", "").replace("😀", "") if ensure_ascii else text
            source = json.dumps(
                {"system_template": text, "xs": [text, "{{a}}"]},
                ensure_ascii=ensure_ascii,
                indent=2,
            )
            maps = _check_exact(source)
            assert any(m.value == text for m in maps)


def test_folding_widths() -> None:
    """Narrow widths make ruamel fold long plain, quoted and folded scalars."""
    words = "alpha beta  gamma\tdelta {{name}} epsilon 😀 zeta eta theta iota kappa"
    for width in (10, 15, 30):
        for wrap in STYLES.values():
            _check_exact(_dump({"k": wrap(words), "s": [wrap(words + " lambda")]}, width))


def _single(source: str, key: str = "a") -> tuple[ScalarNode, ScalarMap]:
    parsed = parse(source)
    assert not parsed.syntax_error
    assert isinstance(parsed.root, MappingNode)
    node = parsed.root.get(key)
    assert isinstance(node, ScalarNode)
    return node, scalar_map(node, source)


def _pieces(source: str, m: ScalarMap) -> list[str]:
    return [source[s:e] for s, e in zip(m.starts, m.ends, strict=True)]


def test_double_quoted_escapes_and_escaped_line_break() -> None:
    source = 'a: "x\\n\\t\\"\\\\\\x41\\u00e9\\U0001F600 \\/ \\\n    tail"\n'
    node, m = _single(source)
    assert node.text == 'x\n\t"\\Aé😀 / tail'
    assert _pieces(source, m) == [
        "x",
        "\\n",
        "\\t",
        '\\"',
        "\\\\",
        "\\x41",
        "\\u00e9",
        "\\U0001F600",
        " ",
        "\\/",
        " ",
        "t",
        "a",
        "i",
        "l",
    ]
    assert m.exact


def test_quoted_folding_with_blank_lines() -> None:
    source = "a: 'one  \n\n\n   two\n  three'\n"
    node, m = _single(source)
    assert node.text == "one\n\ntwo three"
    assert _pieces(source, m) == [
        "o",
        "n",
        "e",
        "\n",
        "\n",
        "t",
        "w",
        "o",
        "\n",
        "t",
        "h",
        "r",
        "e",
        "e",
    ]


def test_block_scalar_indicators_and_comments() -> None:
    source = "a: |2+ # note\n    x\n   y\n\n\nb: 1\n"
    node, m = _single(source)
    assert node.text == "  x\n y\n\n\n"
    assert m.exact
    assert source[m.starts[0]] == " " and m.starts[0] == source.index("    x") + 2
    strip = "a: >-\n\n  one\n  two\n\n   more\n  end\n\n"
    node, m = _single(strip)
    assert node.text == "\none two\n\n more\nend"
    assert m.exact


def test_properties_before_the_scalar() -> None:
    source = "a: &anchor !!str # comment\n  'x{{y}}'\nb: *anchor\n"
    _node, m = _single(source)
    assert m.span_of(1, 6) == Span(source.index("{{"), source.index("}}") + 2)


def test_tabs_and_emoji_offsets() -> None:
    source = 'a: "😀\t{{ name }}"\n'
    node, m = _single(source)
    open_ = node.text.index("{{")
    assert m.offset(open_) == source.index("{{")
    # code points, not UTF-16 units: the emoji is one offset
    assert m.offset(0) == 4 and m.offset(1) == 5


def test_span_of_and_index_at() -> None:
    source = 'a: "ab\\u00e9cd"\n'
    node, m = _single(source)
    assert node.text == "abécd"
    assert m.span_of(2, 3) == Span(6, 12)
    assert m.span_of(0, 5) == Span(4, 14)
    assert m.span_of(3, 3) == Span(12, 12)
    assert m.offset(5) == 14
    assert m.index_at(4) == 0
    assert m.index_at(8) == 2  # inside the escape
    assert m.index_at(14) == 5
    assert value_offsets(node, source) == [4, 5, 6, 12, 13, 14]


def test_empty_values() -> None:
    for source in ('a: ""\n', "a: ''\n", "a: |\nb: 1\n", "a: >-\n\nb: 1\n"):
        node, m = _single(source)
        assert node.text == ""
        assert m.exact
        assert m.span_of(0, 0).length == 0
        assert value_offsets(node, source) == [m.offset(0)]


def test_fallback_never_fails() -> None:
    source = 'a: "abc"\n'
    node, _ = _single(source)
    # A node whose value no longer matches the source (e.g. a stale tree).
    stale = ScalarNode(node.span, "zzab", "zzab", '"')
    m = scalar_map(stale, source)
    assert not m.exact
    assert len(m.starts) == 4
    assert source[m.starts[2] : m.ends[2]] == "a"
    assert all(node.span.start <= s <= node.span.end for s in m.starts)


def test_crlf_and_cr_line_breaks() -> None:
    for brk in ("\r\n", "\r"):
        source = f"a: |{brk}  one{brk}  two{brk}b: plain{brk}  folded{brk}"
        node, m = _single(source)
        assert node.text == "one\ntwo\n"
        assert _pieces(source, m)[3] == brk
        node, m = _single(source, "b")
        assert node.text == "plain folded"
        assert _pieces(source, m)[5] == brk


def test_every_string_in_the_corpus_maps_exactly() -> None:
    from paths import SHARED

    files = sorted((SHARED / "corpus").rglob("*.json")) + sorted(
        (SHARED / "corpus").rglob("*.yaml")
    )
    if not files:
        pytest.skip("corpus not available")
    checked = 0
    for path in files:
        source = path.read_text(encoding="utf-8")
        if parse(source).syntax_error:
            continue
        checked += len(_check_exact(source))
    assert checked > 1000
