"""Spans and structure of the YAML tree."""

from __future__ import annotations

import math
from typing import Any

import pytest

from pack_lsp.core.syntax.yamltree import (
    AliasNode,
    MappingNode,
    ScalarNode,
    SequenceNode,
    node_path_at,
    parse,
    parsing,
    resolve,
    resolve_plain,
    to_data,
)
from pack_lsp.core.syntax.yamltree.compose import Composer, compose
from tree_facts import tree_facts


def _text(src: str, node: object) -> str:
    assert isinstance(node, ScalarNode | MappingNode | SequenceNode | AliasNode)
    return src[node.span.start : node.span.end]


def test_scalar_styles_and_spans() -> None:
    src = "a: plain\nb: \"dq \\u00e9\"\nc: 'sq'\nd: |\n  one\n  two\ne: [x, {f: 1}]\n"
    root = parse(src).root
    assert isinstance(root, MappingNode)
    assert _text(src, root.get("a")) == "plain"
    b = root.get("b")
    assert isinstance(b, ScalarNode) and b.value == "dq é" and b.style == '"'
    assert _text(src, b) == '"dq \\u00e9"'
    assert _text(src, root.get("c")) == "'sq'"
    d = root.get("d")
    assert isinstance(d, ScalarNode) and d.value == "one\ntwo\n" and d.style == "|"
    e = root.get("e")
    assert isinstance(e, SequenceNode) and e.flow
    assert _text(src, e) == "[x, {f: 1}]"
    f_node, f_pair = resolve(root, ["e", 1, "f"])
    assert isinstance(f_node, ScalarNode) and f_node.value == 1
    assert f_pair is not None and _text(src, f_pair.key) == "f"


def test_json_document() -> None:
    src = '{"a": [1, 2.5, true, null], "b": {"c": "d"}}'
    result = parse(src)
    assert result.diagnostics == []
    assert to_data(result.root) == {"a": [1, 2.5, True, None], "b": {"c": "d"}}


def test_yaml_12_core_schema() -> None:
    assert resolve_plain("yes") == "yes"
    assert resolve_plain("on") == "on"
    assert resolve_plain("True") is True
    assert resolve_plain("~") is None
    assert resolve_plain("0x1F") == 31
    assert resolve_plain("0o17") == 15
    assert resolve_plain("1e3") == 1000.0
    assert resolve_plain("1.0.0") == "1.0.0"
    assert math.isinf(resolve_plain("-.inf"))  # type: ignore[arg-type]
    assert resolve_plain("012") == 12


def test_quoted_numbers_stay_strings() -> None:
    root = parse('v: "1.0"\nw: 1.0\n').root
    assert to_data(root) == {"v": "1.0", "w": 1.0}


def test_anchor_alias_and_merge() -> None:
    src = "base: &b {x: 1, y: 2}\nm:\n  <<: *b\n  y: 3\nl: [*b]\n"
    result = parse(src)
    assert result.diagnostics == []
    assert to_data(result.root) == {
        "base": {"x": 1, "y": 2},
        "m": {"x": 1, "y": 3},
        "l": [{"x": 1, "y": 2}],
    }
    # A merged value keeps the span where it was written (inside the anchor).
    x_node, _ = resolve(result.root, ["m", "x"])
    assert x_node is not None and src[x_node.span.start : x_node.span.end] == "1"
    assert x_node.span.start < src.index("m:")


def test_merge_list_order() -> None:
    src = "a: &a {k: 1}\nb: &b {k: 2, j: 3}\nc:\n  <<: [*a, *b]\n"
    assert to_data(parse(src).root)["c"] == {"k": 1, "j": 3}


def test_tags_never_construct_objects() -> None:
    src = "x: !!python/object/apply:os.system ['false']\n"
    result = parse(src)
    assert [d.code for d in result.diagnostics] == ["PP006"]
    assert to_data(result.root) == {"x": ["false"]}


def test_standard_tags() -> None:
    result = parse("a: !!str 12\nb: !!int '7'\nc: !!int nope\n")
    assert to_data(result.root) == {"a": "12", "b": 7, "c": "nope"}
    assert [d.code for d in result.diagnostics] == ["PP006"]


def test_syntax_error_keeps_a_partial_tree() -> None:
    src = "a: 1\nb: [1, 2\nc: 3\nd: 4\n"
    result = parse(src)
    assert result.syntax_error
    assert [d.code for d in result.diagnostics] == ["PP001"]
    assert isinstance(result.root, MappingNode)
    assert result.root.get("a") is not None


def test_recovery_reads_past_a_broken_line() -> None:
    src = "a: 1\nb: : :\n  - x\nc:\n  d: 2\n"
    result = parse(src)
    assert result.syntax_error
    assert isinstance(result.root, MappingNode)
    assert "c" in result.root.effective


def test_billion_laughs_is_bounded() -> None:
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, 12):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    result = parse("\n".join(lines))
    assert [d.code for d in result.diagnostics] == ["PP008"]
    data = to_data(result.root)
    assert isinstance(data, dict)


def test_node_path_at() -> None:
    src = "prompts:\n  support:\n    tools: [search, lookup]\n"
    root = parse(src).root
    chain = node_path_at(root, src.index("lookup") + 2)
    steps = [step for step, _ in chain]
    assert steps == [None, "prompts", "support", "tools", 1]
    on_key = node_path_at(root, src.index("support") + 1)
    assert on_key[-1][0] == "support" and isinstance(on_key[-1][1], ScalarNode)


def test_hostile_inputs_do_not_crash() -> None:
    for src in [
        "",
        "\x00",
        "{",
        "]",
        "&a *a",
        "*x",
        "? ? ?",
        "- - - -",
        "a: !!binary x",
        "%YAML 1.1\n---\na: 1",
        "a: &x\n  b: *x",
        "\t\t",
        "'" * 3,
        "a:\n" + " " * 5000,
        "[" * 2000,
        "{a: " * 500,
    ]:
        parse(src)


def test_json_surrogate_pair_escapes() -> None:
    # json.dumps(ensure_ascii=True) writes emoji as surrogate pairs; libyaml alone rejects them.
    src = '{"a": "x\\ud83d\\ude00y", "b": ["\\ud83d\\ude01"], "c": 2}'
    result = parse(src)
    assert result.diagnostics == []
    assert to_data(result.root) == {"a": "x😀y", "b": ["😁"], "c": 2}
    c_node, _ = resolve(result.root, ["c"])
    assert c_node is not None and src[c_node.span.start : c_node.span.end] == "2"
    b_node, _ = resolve(result.root, ["b", 0])
    assert b_node is not None and src[b_node.span.start : b_node.span.end] == '"\\ud83d\\ude01"'
    bad = src.replace('"c": 2', '"c": 2,,')
    broken = parse(bad)
    assert broken.syntax_error
    # The error is placed in the user's text, after both (longer) escapes.
    assert broken.diagnostics[0].span.start >= bad.index(",,")


# ------------------------------------------------ YAML 1.2 that libyaml rejects (D26)

_CURIE_FLOW = (
    "tools:\n"
    "  t:\n"
    "    action_scope: {effect: read, data_classes: [dpv:HealthRecord, dpv:PersonalData]}\n"
    "contexts: [sector-finance:ConsumerCredit]\n"
    "empty:\n"
    "last: {a: , b: x}\n"
)


def test_curie_in_a_flow_collection_parses_with_exact_spans() -> None:
    result = parse(_CURIE_FLOW)
    assert result.diagnostics == [] and not result.syntax_error
    root = result.root
    classes, _ = resolve(root, ["tools", "t", "action_scope", "data_classes"])
    assert isinstance(classes, SequenceNode) and classes.flow
    assert _text(_CURIE_FLOW, classes) == "[dpv:HealthRecord, dpv:PersonalData]"
    assert [_text(_CURIE_FLOW, item) for item in classes.items] == [
        "dpv:HealthRecord",
        "dpv:PersonalData",
    ]
    scope, _ = resolve(root, ["tools", "t", "action_scope"])
    assert _text(_CURIE_FLOW, scope).startswith("{effect: read") and _text(
        _CURIE_FLOW, scope
    ).endswith("]}")
    context, _ = resolve(root, ["contexts", 0])
    assert isinstance(context, ScalarNode) and context.value == "sector-finance:ConsumerCredit"
    assert _text(_CURIE_FLOW, context) == "sector-finance:ConsumerCredit"
    # Empty values sit where libyaml puts them: after the `:` of a block mapping,
    # at the next token of a flow mapping.
    empty, _ = resolve(root, ["empty"])
    assert empty is not None and empty.span.start == _CURIE_FLOW.index("empty:") + len("empty:")
    a, _ = resolve(root, ["last", "a"])
    assert a is not None and a.span.start == _CURIE_FLOW.index(", b: x}")
    assert to_data(root)["last"] == {"a": None, "b": "x"}


def test_both_parsers_build_the_same_tree() -> None:
    src = (
        "a: !!str &x 1\nb:\n- [c, {d: }]\n- ? e\n  : f\n- &y {g: *x}\n"
        "h: >-\n  folded\n  text\ni: 'q'\nj:\n"
    )
    trees = []
    for conforming in (False, True):
        composer = Composer(src)
        compose(composer, src, conforming)
        trees.append(tree_facts(composer.root))
    assert trees[0] == trees[1]


def test_real_syntax_error_after_a_curie_is_reported_where_it_is() -> None:
    src = _CURIE_FLOW + "bad: [x\nz: 1\n"
    result = parse(src)
    assert result.syntax_error
    [error] = [d for d in result.diagnostics if d.code == "PP001"]
    # Not at the CURIE, which libyaml stops at: at the unclosed flow sequence.
    assert error.span.start >= src.index("bad:")
    # The recovered tree keeps what comes before the error, CURIEs included.
    classes, _ = resolve(result.root, ["tools", "t", "action_scope", "data_classes", 0])
    assert isinstance(classes, ScalarNode) and classes.value == "dpv:HealthRecord"


def test_syntax_error_without_curies_keeps_libyaml_message_and_place() -> None:
    src = "a: 1\nb: c: d\n"
    [error] = parse(src).diagnostics
    assert error.code == "PP001"
    assert error.message == "YAML syntax error: mapping values are not allowed in this context"
    assert error.span.start == src.index("c: d") + 1


def test_json_surrogate_pairs_with_a_curie_flow() -> None:
    src = '{"a": "x\\ud83d\\ude00y", "b": [dpv:PersonalData], "c": 2}'
    result = parse(src)
    assert result.diagnostics == []
    assert to_data(result.root) == {"a": "x😀y", "b": ["dpv:PersonalData"], "c": 2}
    c_node, _ = resolve(result.root, ["c"])
    assert c_node is not None and src[c_node.span.start : c_node.span.end] == "2"
    b_node, _ = resolve(result.root, ["b", 0])
    assert b_node is not None and _text(src, b_node) == "dpv:PersonalData"
    bad = src.replace('"c": 2', '"c": 2,,')
    broken = parse(bad)
    assert broken.syntax_error
    assert broken.diagnostics[0].span.start >= bad.index(",,")


@pytest.mark.parametrize(
    ("src", "at", "words"),
    [
        ('key: "value"# no space\n', "# no", "a comment needs a space"),
        ("list: [a, b]#x\n", "#x", "a comment needs a space"),
        ("block: >#x\n  text\n", "#x", "a comment needs a space"),
        ("list: [-, x]\n", "-,", "`-` alone cannot be a plain scalar"),
        ("a: 1\n%YAML 1.2\n---\nc: 3\n", "%YAML", "needs the end marker"),
        ("a: 1\n---\nb: [x, y: z: w]\n", "[x", ""),  # an error in a later document
    ],
)
def test_yaml_1_2_errors_that_libyaml_accepts(src: str, at: str, words: str) -> None:
    result = parse(src)
    errors = [d for d in result.diagnostics if d.code == "PP001"]
    assert len(errors) == 1 and words in errors[0].message
    line = result.lines.position(errors[0].span.start).line
    assert line == result.lines.position(src.index(at)).line


def test_indicator_followed_by_a_plain_character_is_a_scalar() -> None:
    # `::` is the key `:` (a `:` may start a plain scalar before a non-space).
    assert to_data(parse("::\n").root) == {":": None}
    assert to_data(parse("a: [-x, :z, -: y]\n").root) == {"a": ["-x", ":z", {"-": "y"}]}


def _big_pack(prompts: int = 600) -> str:
    lines = ["id: big", "template_engine: {version: v1}", "prompts:"]
    for i in range(prompts):
        lines += [f"  p{i}:", f"    id: p{i}", "    system_template: Answer the question", ""]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        ('    system_template: "never closed\n', "while scanning a quoted scalar"),
        ("    system_template: a: b\n", "mapping values are not allowed"),
        ("    tools: [one,\n   two\n", ""),
    ],
)
def test_a_syntax_error_in_a_large_file_is_confirmed_from_its_block(
    monkeypatch: pytest.MonkeyPatch, damage: str, message: str
) -> None:
    text = _big_pack()
    assert len(text) > parsing.LOCAL_CONFIRM_MIN
    at = text.index("  p300:\n") + len("  p300:\n")
    broken = text[:at] + damage + text[at:]
    read: list[int] = []

    def counting(composer: Any, source: str, conforming: bool = False) -> None:
        if conforming:
            read.append(len(source))
        compose(composer, source, conforming)

    monkeypatch.setattr(parsing, "compose", counting)
    result = parse(broken)
    assert [d.code for d in result.diagnostics] == ["PP001"]
    assert message in result.diagnostics[0].message
    # The conforming parser read the damaged prompt's block, not the whole text.
    assert read and max(read) < 200


def test_a_curie_in_a_large_file_is_still_read() -> None:
    text = _big_pack()
    at = text.index("  p300:\n") + len("  p300:\n")
    curie = text[:at] + "    tags: [dpv:PersonalData]\n" + text[at:]
    result = parse(curie)
    assert result.diagnostics == [] and not result.syntax_error
