"""The plain JSON-like data of a tree."""

from __future__ import annotations

from typing import Any, cast

from pack_lsp.core.syntax.yamltree.nodes import (
    AliasNode,
    MappingNode,
    Node,
    ScalarNode,
    SequenceNode,
)


def to_data(node: Node | None) -> Any:
    """Plain JSON-like data of a node, merges applied and aliases expanded.

    Anchored subtrees convert once and are shared, so the cost is bounded by the
    alias budget enforced while composing.
    """
    return _plain(node, {})


def _plain(n: Node | None, memo: dict[int, Any]) -> Any:
    # A module-level function rather than a recursive closure: a closure that
    # calls itself is a reference cycle, left for the cyclic collector on every
    # call, and an analysis should leave nothing for it (the server freezes
    # analyses out of its reach instead of walking them).
    # Dispatch on the exact class (no subclasses exist), and scalar children,
    # most of the nodes, are read inline rather than through a call each.
    cls = type(n)
    if cls is AliasNode:
        n = cast(AliasNode, n).target
        cls = type(n)
    if cls is ScalarNode:
        return cast(ScalarNode, n).value
    if n is None:
        return None
    key = id(n)
    if n.anchor and key in memo:
        return memo[key]
    out: Any
    if cls is MappingNode:
        out = {}
        for k, p in cast(MappingNode, n).effective.items():
            v = p.value
            out[k] = v.value if type(v) is ScalarNode else _plain(v, memo)
    elif cls is SequenceNode:
        out = [
            i.value if type(i) is ScalarNode else _plain(i, memo)
            for i in cast(SequenceNode, n).items
        ]
    else:  # pragma: no cover - exhaustive
        out = None
    if n.anchor:
        memo[key] = out
    return out
