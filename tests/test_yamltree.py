"""Spans and structure of the YAML tree."""

from __future__ import annotations

import math

from pack_lsp.core.yamltree import (
    AliasNode,
    MappingNode,
    ScalarNode,
    SequenceNode,
    node_path_at,
    parse,
    resolve,
    resolve_plain,
    to_data,
)


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
