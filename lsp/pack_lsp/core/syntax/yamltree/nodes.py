"""The nodes of a YAML tree: scalars, mappings (with their pairs as written and their
effective entries after merges), sequences and aliases, each with its exact span."""

from __future__ import annotations

from collections.abc import Iterator

from pack_lsp.core.base.text import Span

Scalar = str | int | float | bool | None
PathItem = str | int
Path = tuple[PathItem, ...]

# ----------------------------------------------------------------------------- nodes


class Node:
    __slots__ = ("anchor", "size", "span", "tag")

    def __init__(self, span: Span, anchor: str | None = None, tag: str | None = None) -> None:
        self.span = span
        self.anchor = anchor
        self.tag = tag
        self.size = 1  # nodes in the full expansion, aliases counted through


class ScalarNode(Node):
    __slots__ = ("style", "text", "value")

    def __init__(
        self,
        span: Span,
        text: str,
        value: Scalar,
        style: str,
        anchor: str | None = None,
        tag: str | None = None,
    ) -> None:
        # The base class's fields are set here, not through super().__init__():
        # a large pack has a scalar per line, and the extra call showed in the parse.
        self.span = span
        self.anchor = anchor
        self.tag = tag
        self.size = 1
        self.text = text  # the scalar's content after YAML unescaping/folding
        self.value = value  # resolved value (str, int, float, bool or None)
        self.style = style  # '' plain, "'", '"', '|', '>'

    @property
    def is_plain(self) -> bool:
        return self.style == ""

    def __repr__(self) -> str:
        return f"ScalarNode({self.value!r}@{self.span.start})"


class Pair:
    """A key/value entry of a mapping. ``key_text`` is None for a non-scalar key."""

    __slots__ = ("key", "key_text", "value")

    def __init__(self, key: Node, key_text: str | None, value: Node) -> None:
        self.key = key
        self.key_text = key_text
        self.value = value

    @property
    def span(self) -> Span:
        return Span(self.key.span.start, max(self.key.span.end, self.value.span.end))


class MappingNode(Node):
    __slots__ = ("effective", "flow", "pairs")

    def __init__(
        self, span: Span, flow: bool, anchor: str | None = None, tag: str | None = None
    ) -> None:
        self.span = span
        self.anchor = anchor
        self.tag = tag
        self.size = 1
        self.flow = flow
        self.pairs: list[Pair] = []  # as written, merge-key pairs included
        self.effective: dict[str, Pair] = {}  # string key → pair, merges applied

    def get(self, key: str) -> Node | None:
        pair = self.effective.get(key)
        return deref(pair.value) if pair is not None else None

    def pair(self, key: str) -> Pair | None:
        return self.effective.get(key)

    def items(self) -> Iterator[tuple[str, Pair]]:
        return iter(self.effective.items())

    def __repr__(self) -> str:
        return f"MappingNode({list(self.effective)}@{self.span.start})"


class SequenceNode(Node):
    __slots__ = ("flow", "items")

    def __init__(
        self, span: Span, flow: bool, anchor: str | None = None, tag: str | None = None
    ) -> None:
        self.span = span
        self.anchor = anchor
        self.tag = tag
        self.size = 1
        self.flow = flow
        self.items: list[Node] = []

    def values(self) -> Iterator[Node]:
        for item in self.items:
            target = deref(item)
            if target is not None:
                yield target


class AliasNode(Node):
    """``*name``: refers to the anchored node; ``target`` is None when broken."""

    __slots__ = ("name", "target")

    def __init__(self, span: Span, name: str, target: Node | None) -> None:
        super().__init__(span)
        self.name = name
        self.target = target


def deref(node: Node | None) -> Node | None:
    """Follow an alias to its target (None for a broken alias)."""
    if isinstance(node, AliasNode):
        return node.target
    return node
