"""``shifted_copy`` and ``shifted_pairs``: copies of a tree moved by an offset.

The oracle is the parser itself: a text parsed after ``k`` blank lines gives the
same tree with every span ``k`` further, which is what a copy moved by ``k`` must
be — node for node, with no node shared with the original and the original
unchanged.
"""

from __future__ import annotations

import pytest

from pack_lsp.core.base.text import Span
from pack_lsp.core.syntax.yamltree import MappingNode, parse, shifted_copy, shifted_pairs, walk
from tree_facts import tree_facts as _tree

_TEXTS = [
    "a: 1\nb: [x, 'y', {c: d}]\nlist:\n  - p: q\n    r: |\n      block\n  - plain\n",
    '{"json": [1, 2.5, true, null, "s"], "k": {"n": {}}}\n',
    "seq:\n- - nested\n  - deeper: [1, [2, [3]]]\n- >-\n  folded\n  text\n",
    # A duplicate key: the mapping's effective entries are not its pairs one for one.
    "a: 1\nb: 2\na: 3\nc:\n  d: 1\n  d: 2\n",
    # Tags and resolved values of every kind are copied as they are.
    "t: !!str 12\nu: !!int '7'\nv: ~\nw: 0x1F\n",
    'top: é😀 text\nnext: "esc\\taped"\n',
]


@pytest.mark.parametrize("text", _TEXTS)
@pytest.mark.parametrize("delta", [0, 3, 17])
def test_a_shifted_copy_is_the_tree_parsed_further_on(text: str, delta: int) -> None:
    original = parse(text).root
    before = _tree(original)
    moved = parse("\n" * delta + text).root
    copy = shifted_copy(original, delta)  # type: ignore[arg-type]
    assert _tree(copy) == _tree(moved)
    assert _tree(original) == before
    originals = {id(n) for n in walk(original)}
    spans = {id(n.span) for n in walk(original)}
    for node in walk(copy):
        assert id(node) not in originals and id(node.span) not in spans
        assert type(node.span) is Span and node.span.start <= node.span.end


@pytest.mark.parametrize("text", _TEXTS)
def test_shifted_pairs_copy_each_pair(text: str) -> None:
    original = parse(text).root
    moved = parse("\n\n" + text).root
    if not isinstance(original, MappingNode) or not isinstance(moved, MappingNode):
        pytest.skip("not a mapping")
    pairs = shifted_pairs(original.pairs[1:], 2)
    assert [p.key_text for p in pairs] == [p.key_text for p in moved.pairs[1:]]
    for got, want in zip(pairs, moved.pairs[1:], strict=True):
        assert got.span == want.span
        assert _tree(got.key) == _tree(want.key)
        assert _tree(got.value) == _tree(want.value)


@pytest.mark.parametrize(
    "text",
    [
        "a: &x 1\nb: *x\n",  # an alias: its target could not be remapped
        "base: &b {k: 1}\nother:\n  <<: *b\n  j: 2\n",  # merged entries, via an alias
        "- &s [1]\n- *s\n",
    ],
)
def test_aliases_and_merged_entries_are_refused(text: str) -> None:
    root = parse(text).root
    assert root is not None
    with pytest.raises(ValueError):
        shifted_copy(root, 1)
