"""What two parse trees must agree on, node by node, for the tests that compare them
(incremental analysis against a full one, shifted copies against a re-parse)."""

from __future__ import annotations

from pack_lsp.core.yamltree import AliasNode, MappingNode, Node, ScalarNode, SequenceNode, walk


def node_facts(node: Node) -> tuple[object, ...]:
    """Everything observable of ``node`` itself: its kind, span, anchor, tag, size and
    content (the children are compared as their own entries of ``tree_facts``)."""
    facts: tuple[object, ...] = (type(node).__name__, node.span, node.anchor, node.tag, node.size)
    if isinstance(node, ScalarNode):
        return (*facts, node.text, repr(node.value), node.style)
    if isinstance(node, MappingNode):
        return (
            *facts,
            node.flow,
            tuple(p.key_text for p in node.pairs),
            tuple(node.effective),
            # Effective entries are pairs of the same mapping, in their own order, or
            # (-1) pairs merged from another mapping (``<<``), told apart by their spans.
            tuple(node.pairs.index(p) if p in node.pairs else -1 for p in node.effective.values()),
            tuple((p.key.span, p.value.span) for p in node.effective.values()),
        )
    if isinstance(node, SequenceNode):
        return (*facts, node.flow, len(node.items))
    assert isinstance(node, AliasNode)
    return (*facts, node.name)


def tree_facts(root: Node | None) -> list[tuple[object, ...]]:
    """``node_facts`` of every node of the tree, in ``walk`` order."""
    return [node_facts(n) for n in walk(root)]
