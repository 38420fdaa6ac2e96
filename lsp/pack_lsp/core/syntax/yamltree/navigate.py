"""Finding nodes: by path, by offset, and all of them in document order."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from pack_lsp.core.syntax.yamltree.nodes import (
    AliasNode,
    MappingNode,
    Node,
    Pair,
    PathItem,
    SequenceNode,
    deref,
)


def resolve(root: Node | None, path: Sequence[PathItem]) -> tuple[Node | None, Pair | None]:
    """The node at ``path`` and, when its last step is a mapping key, that pair."""
    node = deref(root)
    pair: Pair | None = None
    for step in path:
        if isinstance(node, MappingNode):
            pair = node.effective.get(str(step))
            if pair is None:
                return None, None
            node = deref(pair.value)
        elif isinstance(node, SequenceNode) and isinstance(step, int):
            if step >= len(node.items):
                return None, None
            node = deref(node.items[step])
            pair = None
        else:
            return None, None
    return node, pair


def through_broken_alias(root: Node | None, path: Sequence[PathItem]) -> bool:
    """True when ``path`` ends at or passes through an alias that could not be expanded."""
    node: Node | None = root
    for step in (*path, None):
        if isinstance(node, AliasNode) and node.target is None:
            return True
        node = deref(node)
        if step is None:
            break
        if isinstance(node, MappingNode):
            pair = node.effective.get(str(step))
            node = pair.value if pair is not None else None
        elif isinstance(node, SequenceNode) and isinstance(step, int) and step < len(node.items):
            node = node.items[step]
        else:
            return False
    return False


def walk(node: Node | None) -> Iterator[Node]:
    """Every node as written (aliases not followed), depth first."""
    if node is None:
        return
    stack: list[Node] = [node]
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, MappingNode):
            for p in reversed(n.pairs):
                stack.append(p.value)
                stack.append(p.key)
        elif isinstance(n, SequenceNode):
            stack.extend(reversed(n.items))


def node_path_at(root: Node | None, offset: int) -> list[tuple[PathItem | None, Node]]:
    """The chain of (step, node) from the root to the innermost node at ``offset``.

    Each step is the mapping key or sequence index leading to the node. When the
    offset is on a mapping key, the last element is ``(key, key_node)`` with the
    key node itself.
    """
    chain: list[tuple[PathItem | None, Node]] = []
    node = root
    step: PathItem | None = None
    while node is not None:
        chain.append((step, node))
        nxt: Node | None = None
        if isinstance(node, MappingNode):
            for p in node.pairs:
                if p.key.span.contains(offset) and p.key.span.length > 0:
                    chain.append((p.key_text, p.key))
                    return chain
                if p.value.span.contains(offset) and not isinstance(p.value, AliasNode):
                    nxt, step = p.value, p.key_text
                    if p.value.span.length > 0:
                        break
        elif isinstance(node, SequenceNode):
            for i, item in enumerate(node.items):
                if item.span.contains(offset) and not isinstance(item, AliasNode):
                    nxt, step = item, i
                    break
        node = nxt
    return chain
