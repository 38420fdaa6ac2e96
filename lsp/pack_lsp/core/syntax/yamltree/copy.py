"""Copies of subtrees with every span moved: alias-free ones for incremental analysis
(``shifted_copy``, fast), whole documents with aliases for streams (``shifted_tree``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pack_lsp.core.base.text import SET_END, SET_START, Span
from pack_lsp.core.syntax.yamltree.nodes import (
    AliasNode,
    MappingNode,
    Node,
    Pair,
    ScalarNode,
    SequenceNode,
)


def shifted_copy(node: Node, delta: int) -> Node:
    """A copy of the alias-free subtree ``node`` with every span moved by ``delta``.

    Incremental analysis splices a re-parsed block into the previous tree: the
    nodes after the block are the same except for their offsets, and the previous
    tree is never modified (another thread may be reading it), so they are copied.
    Scalar values and texts are immutable and shared. Raises ``ValueError`` on an
    alias, whose target could not be remapped to the copy.
    """
    if type(node) is ScalarNode:
        return _shifted_scalar(node, delta)
    if type(node) is MappingNode or type(node) is SequenceNode:
        return _shifted_collection(node, delta)
    raise ValueError("an alias cannot be copied")


def shifted_pairs(pairs: Sequence[Pair], delta: int) -> list[Pair]:
    """Copies of ``pairs`` (alias-free) with every span moved by ``delta``: the
    pairs after an edit in a block mapping, as ``shifted_copy`` copies them."""
    return _shifted_pairs(pairs, delta)


# The copies above run on every node after an edit (tens of thousands in a large
# pack), so they are written for speed: nodes and spans are made with
# ``object.__new__`` and their slots set directly, skipping the constructors (the
# call into ``__init__`` and, for spans, the check that a moved valid span does not
# need); scalars, the most common node, are copied by one function that the loops
# bind once, as a default argument, like everything else they call (local
# variables, not global lookups; writing the copy out in each loop instead saved
# about 2% of a copy); and a mapping's effective entries are rebuilt with C-level
# operations when they are its pairs in order (every mapping without merge keys).
# The result is exactly what the constructors would build.
_new = object.__new__


def _shifted_scalar(
    node: ScalarNode,
    delta: int,
    new: Any = _new,
    span_type: type[Span] = Span,
    set_start: Any = SET_START,
    set_end: Any = SET_END,
    scalar_type: type[ScalarNode] = ScalarNode,
) -> ScalarNode:
    """The one copy of a scalar: scalars are most of the nodes."""
    old = node.span
    span = new(span_type)
    set_start(span, old.start + delta)
    set_end(span, old.end + delta)
    copy: ScalarNode = new(scalar_type)
    copy.span = span
    copy.anchor = node.anchor
    copy.tag = node.tag
    copy.size = node.size
    copy.text = node.text
    copy.value = node.value
    copy.style = node.style
    return copy


def _shifted_pairs(
    pairs: Sequence[Pair],
    delta: int,
    new: Any = _new,
    pair_type: type[Pair] = Pair,
    scalar_type: type[ScalarNode] = ScalarNode,
    scalar: Any = _shifted_scalar,
) -> list[Pair]:
    out: list[Pair] = []
    append = out.append
    for pair in pairs:
        copied = new(pair_type)
        node = pair.key
        if type(node) is scalar_type:
            copied.key = scalar(node, delta)
        else:
            copied.key = shifted_copy(node, delta)
        copied.key_text = pair.key_text
        node = pair.value
        if type(node) is scalar_type:
            copied.value = scalar(node, delta)
        elif type(node) is MappingNode or type(node) is SequenceNode:
            copied.value = _shifted_collection(node, delta)
        else:
            raise ValueError("an alias cannot be copied")
        append(copied)
    return out


def _shifted_collection(
    node: MappingNode | SequenceNode,
    delta: int,
    new: Any = _new,
    span_type: type[Span] = Span,
    set_start: Any = SET_START,
    set_end: Any = SET_END,
    scalar_type: type[ScalarNode] = ScalarNode,
    scalar: Any = _shifted_scalar,
) -> MappingNode | SequenceNode:
    old = node.span
    span = new(span_type)
    set_start(span, old.start + delta)
    set_end(span, old.end + delta)
    if type(node) is MappingNode:
        mapping: MappingNode = new(MappingNode)
        mapping.span = span
        mapping.anchor = node.anchor
        mapping.tag = node.tag
        mapping.size = node.size
        mapping.flow = node.flow
        pairs = node.pairs
        copies = _shifted_pairs(pairs, delta)
        mapping.pairs = copies
        effective = node.effective
        if len(effective) == len(pairs) and list(effective.values()) == pairs:
            # ``==`` on lists of pairs compares identities (``Pair`` has no ``__eq__``).
            mapping.effective = dict(zip(effective, copies, strict=True))
        else:
            by_id = {id(p): c for p, c in zip(pairs, copies, strict=True)}
            try:
                mapping.effective = {key: by_id[id(p)] for key, p in effective.items()}
            except KeyError:
                raise ValueError("a merged entry cannot be copied") from None
        return mapping
    assert type(node) is SequenceNode
    sequence: SequenceNode = new(SequenceNode)
    sequence.span = span
    sequence.anchor = node.anchor
    sequence.tag = node.tag
    sequence.size = node.size
    sequence.flow = node.flow
    items: list[Node] = []
    append = items.append
    for item in node.items:
        if type(item) is scalar_type:
            append(scalar(item, delta))
        elif type(item) is MappingNode or type(item) is SequenceNode:
            append(_shifted_collection(item, delta))
        else:
            raise ValueError("an alias cannot be copied")
    sequence.items = items
    return sequence


def _slot_names(cls: type) -> tuple[str, ...]:
    names: list[str] = []
    for klass in cls.__mro__:
        slots = klass.__dict__.get("__slots__", ())
        names.extend((slots,) if isinstance(slots, str) else slots)
    return tuple(names)


def shifted_tree(node: Node, delta: int) -> Node:
    """A copy of the whole document ``node`` with every span moved by ``delta``,
    aliases and merge keys included (``shifted_copy`` refuses them): an alias points
    to the copy of its target, a merged entry is the copy of its pair.

    For a document parsed on its own, to put it at its offset in a stream: linear in
    its size, where parsing it in a blanked copy of the whole stream costs the
    stream's length per document. Raises ``ValueError`` when an alias's target or a
    merged pair is not part of the tree (or the tree is too deep to walk).
    """
    nodes: dict[int, Node] = {}
    pairs: dict[int, Pair] = {}
    fields: dict[type, tuple[str, ...]] = {}

    def copy(old: Node) -> Node:
        known = nodes.get(id(old))
        if known is not None:
            return known
        cls = type(old)
        new: Node = _new(cls)
        nodes[id(old)] = new  # before the children: an alias may point to an ancestor
        names = fields.get(cls)
        if names is None:
            names = fields[cls] = _slot_names(cls)
        for name in names:
            setattr(new, name, getattr(old, name))
        new.span = Span(old.span.start + delta, old.span.end + delta)
        if isinstance(old, MappingNode):
            assert isinstance(new, MappingNode)
            new.pairs = [copy_pair(p) for p in old.pairs]
            try:
                new.effective = {key: pairs[id(p)] for key, p in old.effective.items()}
            except KeyError:
                raise ValueError("a merged entry from outside the tree") from None
        elif isinstance(old, SequenceNode):
            assert isinstance(new, SequenceNode)
            new.items = [copy(item) for item in old.items]
        elif isinstance(old, AliasNode):
            assert isinstance(new, AliasNode)
            target = old.target
            if target is not None:
                if id(target) not in nodes:
                    raise ValueError("an alias whose target is outside the tree")
                new.target = nodes[id(target)]
        return new

    def copy_pair(old: Pair) -> Pair:
        new: Pair = _new(Pair)
        new.key = copy(old.key)
        new.key_text = old.key_text
        new.value = copy(old.value)
        pairs[id(old)] = new
        return new

    try:
        return copy(node)
    except RecursionError:
        raise ValueError("too deep to copy") from None
