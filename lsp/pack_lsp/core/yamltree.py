"""YAML/JSON text → a tree of nodes with exact spans.

The tree is composed by us from the event stream of libyaml (through ruamel.yaml's
C extension), never by a YAML constructor: no tag ever builds an object, aliases
are kept as references with a bounded expansion budget, merge keys (``<<``) are
resolved into each mapping's *effective* entries while the merged pairs keep the
spans of the place they were written, and duplicate keys are reported with both
locations.

Scalars are resolved with the YAML 1.2 core schema (``yes``/``no`` are strings),
which is also right for JSON.
"""

from __future__ import annotations

import bisect
import functools
import math
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, cast

from pack_lsp.core.diagnostics import Diagnostic, Related, make
from pack_lsp.core.rules.document import (
    ALIAS_EXPANSION_LIMIT,
    COMPLEX_KEY,
    DUPLICATE_KEY,
    EMPTY_DOCUMENT,
    INVALID_ENCODING,
    INVALID_MERGE,
    MULTIPLE_DOCUMENTS,
    NESTING_TOO_DEEP,
    RECURSIVE_ALIAS,
    UNDEFINED_ALIAS,
    UNSUPPORTED_TAG,
    YAML_SYNTAX,
)
from pack_lsp.core.text import SET_END, SET_START, LineIndex, Span

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


# ------------------------------------------------------------------- scalar resolution

_INT_RE = re.compile(r"[-+]?[0-9]+\Z")
_OCT_RE = re.compile(r"0o[0-7]+\Z")
_HEX_RE = re.compile(r"0x[0-9a-fA-F]+\Z")
_FLOAT_RE = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?\Z")
_NULLS = frozenset({"", "~", "null", "Null", "NULL"})
_TRUES = frozenset({"true", "True", "TRUE"})
_FALSES = frozenset({"false", "False", "FALSE"})
_SPECIAL_START = frozenset("-+.0123456789nNtTfF~")
#: Longest integer literal read as an exact ``int``. Python refuses to convert
#: longer decimal strings (its 4,300-digit limit against quadratic conversion),
#: and a longer hex literal could not be printed in a message; such a literal is
#: read as an infinite float instead, which a typed field then reports as out of
#: range or of the wrong type.
MAX_INT_CHARS = 1000

TAG_PREFIX = "tag:yaml.org,2002:"
_KNOWN_TAGS = frozenset(
    TAG_PREFIX + t for t in ("str", "int", "float", "bool", "null", "map", "seq")
)


def resolve_plain(text: str) -> Scalar:
    """Resolve an untagged plain scalar with the YAML 1.2 core schema."""
    if text and text[0] not in _SPECIAL_START:
        return text
    if text in _NULLS:
        return None
    if text in _TRUES:
        return True
    if text in _FALSES:
        return False
    if len(text) > MAX_INT_CHARS and (
        _INT_RE.match(text) or _OCT_RE.match(text) or _HEX_RE.match(text)
    ):
        return -math.inf if text.startswith("-") else math.inf
    if _INT_RE.match(text):
        return int(text)
    if _OCT_RE.match(text):
        return int(text[2:], 8)
    if _HEX_RE.match(text):
        return int(text[2:], 16)
    if _FLOAT_RE.match(text):
        return float(text)
    lowered = text.lower()
    if lowered in (".inf", "+.inf"):
        return math.inf
    if lowered == "-.inf":
        return -math.inf
    if lowered == ".nan":
        return math.nan
    return text


def _resolve_tagged(text: str, tag: str) -> Scalar | _Bad:
    kind = tag[len(TAG_PREFIX) :]
    if kind == "str":
        return text
    value = resolve_plain(text)
    if kind == "null":
        return None if value is None else _Bad("null")
    if kind == "bool":
        return value if isinstance(value, bool) else _Bad("boolean")
    if kind == "int":
        return value if isinstance(value, int) and not isinstance(value, bool) else _Bad("integer")
    if kind == "float":
        if isinstance(value, bool) or not isinstance(value, int | float):
            return _Bad("number")
        return float(value)
    return _Bad(kind)


@dataclass(frozen=True, slots=True)
class _Bad:
    expected: str


# --------------------------------------------------------------------------- parsing

#: Total number of nodes that aliases may add to the document when expanded.
ALIAS_EXPANSION_BUDGET = 100_000
#: Deepest nesting of collections that is read; deeper content is cut off.
MAX_DEPTH = 64
#: How often a syntax error is stepped over to recover the rest of the tree.
MAX_RECOVERIES = 8


@dataclass(slots=True)
class ParseResult:
    root: Node | None
    diagnostics: list[Diagnostic]
    syntax_error: bool
    lines: LineIndex
    text: str


class _Frame:
    """An open collection while its events arrive."""

    __slots__ = ("children", "end", "key", "node", "seq", "start")

    def __init__(
        self,
        node: MappingNode | SequenceNode,
        children: list[Any],
        seq: bool,
        start: int,
        end: int,
    ) -> None:
        self.node = node
        self.seq = seq  # node is a SequenceNode
        # The list the children go to (items of a sequence, pairs of a mapping).
        self.children = children
        self.start = start  # where the collection starts
        # Where its start event ends (never before it starts): the span of an empty
        # block collection.
        self.end = end if end > start else start
        self.key: Node | None = None  # pending key while in a mapping


#: The span an open collection's node holds until its end event gives the real one.
_OPEN = Span(0, 0)

# A span built by the composer: `_new_span(Span)`, then both slots written through
# their descriptors, as `Span.__init__` does after checking the order, which the
# composer ensures itself (a third of the cost of a span: one per node).
_new_span = Span.__new__
_set_span_start = vars(Span)["start"].__set__
_set_span_end = vars(Span)["end"].__set__

#: Scalars up to this many characters are shared: one ``str`` for every equal
#: scalar of a document (keys such as ``description`` repeat thousands of times
#: in a large pack), and for plain ones one resolved value too.
_SHARE_LIMIT = 64


class _SyntaxError(Exception):
    def __init__(
        self,
        index: int,
        problem: str,
        context: str | None,
        ctx_index: int | None,
        *,
        definite: bool = False,
        located: bool = True,
    ):
        super().__init__(problem)
        self.index = index
        self.problem = problem
        self.context = context
        self.ctx_index = ctx_index
        # Found by the composer's own checks of YAML 1.2 (``_SyntaxCheck``), which
        # every parser agrees with: no other parser is asked.
        self.definite = definite
        # False when the parser gave no position (``index`` is then 0).
        self.located = located


_SURROGATE_PAIR = re.compile(r"\\u([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2})")


class _Mark:
    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index


class _Remap:
    """JSON writes a character outside the BMP as a surrogate-pair escape
    (``\\ud83d\\ude00``), which libyaml rejects. The text handed to libyaml spells
    each pair as one ``\\U0001f600`` escape (two characters shorter); this maps the
    parser's offsets back to the user's text."""

    def __init__(self, text: str) -> None:
        self.ends: list[int] = []  # end offsets of replacements, in the parser's text
        pieces: list[str] = []
        last = 0
        shrink = 0
        for m in _SURROGATE_PAIR.finditer(text):
            high, low = int(m.group(1), 16), int(m.group(2), 16)
            code = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
            pieces.append(text[last : m.start()])
            pieces.append(f"\\U{code:08x}")
            last = m.end()
            shrink += 2
            self.ends.append(m.end() - shrink)
        pieces.append(text[last:])
        self.text = "".join(pieces)

    def __call__(self, index: int) -> int:
        return index + 2 * bisect.bisect_right(self.ends, index)


class _EventSource:
    """libyaml's events for one text, one call at a time.

    ``next()`` returns the next event, or None after the stream's end; ``error``
    turns what it raised into a ``_SyntaxError`` at offsets of the user's text;
    ``close()`` frees the parser. The composer calls ``next`` in its own loop: a
    generator in between cost a resumption per event (about 10 ms at 70k lines).
    """

    __slots__ = ("close", "next", "original", "remap")

    def __init__(
        self,
        next: Callable[[], Any],
        close: Callable[[], None],
        original: str,
        remap: _Remap | None,
    ) -> None:
        self.next = next
        self.close = close
        self.original = original
        self.remap = remap

    def error(self, exc: Exception) -> _SyntaxError:
        """The syntax error for what libyaml raised (ruamel's MarkedYAMLError and
        friends)."""
        character = getattr(exc, "character", None)
        if isinstance(character, int) and not hasattr(exc, "problem_mark"):
            # A reader error (a control character such as NUL): its position is not
            # a mark and its text names libyaml's input buffer; locate it ourselves.
            found = self.original.find(chr(character))
            return _SyntaxError(
                max(found, 0),
                f"the character U+{character:04X} is not allowed in YAML "
                "(control characters other than tab and line breaks cannot appear)",
                None,
                None,
            )
        mark = getattr(exc, "problem_mark", None)
        ctx_mark = getattr(exc, "context_mark", None)
        problem = getattr(exc, "problem", None) or str(exc)
        fix = self.remap or (lambda i: i)
        return _SyntaxError(
            fix(mark.index) if mark is not None else 0,
            str(problem),
            getattr(exc, "context", None),
            fix(ctx_mark.index) if ctx_mark is not None else None,
            located=mark is not None,
        )


def _events(text: str, conforming: bool = False) -> _EventSource:
    """The events of ``text`` from libyaml, or with ``conforming`` from ruamel.yaml's
    pure-Python parser (same event classes, marks with code-point ``index``)."""
    original = text
    remap: _Remap | None = None
    if "\\u" in text and text.lstrip()[:1] in ("{", "[") and _SURROGATE_PAIR.search(text):
        remap = _Remap(text)
        text = remap.text
    get: Callable[[], Any]
    close: Callable[[], None]
    if conforming:
        get, close = _conforming_parser(text)
    else:
        from ruamel.yaml.cyaml import CParser  # type: ignore[attr-defined]

        parser = CParser(text)
        get, close = parser.get_event, parser.dispose
    if remap is not None:
        plain_get = get
        fix = remap

        def get() -> Any:
            event = plain_get()
            if event is not None:
                event.start_mark = _Mark(fix(event.start_mark.index))
                event.end_mark = _Mark(fix(event.end_mark.index))
            return event

    return _EventSource(get, close, original, remap)


def _conforming_parser(text: str) -> tuple[Callable[[], Any], Callable[[], None]]:
    """``get_event`` and ``close`` of ruamel.yaml's pure-Python parser for ``text``.

    It accepts YAML 1.2 that the bundled libyaml rejects (a ``:`` followed by a
    non-space in a plain scalar of a flow collection, as in ``[dpv:Health]``; see
    docs/decisions.md, D26), in 6-9 times libyaml's time. A new parser per
    text: the objects keep per-stream state, and analyses run in several threads.
    """
    from ruamel.yaml import YAML

    yaml = YAML(typ="safe", pure=True)
    yaml.Parser = _conforming_parser_class()
    events = yaml.parse(text)

    def get() -> Any:
        event = next(events, None)
        if event is not None and getattr(event, "ctag", None) and getattr(event, "anchor", None):
            # A node's start is its first property; ruamel.yaml starts a node
            # written `!tag &anchor` at the anchor.
            event.start_mark = _Mark(_tag_before(text, event.start_mark.index))
        return event

    return get, events.close


_TAG_AT_END = re.compile(r"![^ \t\r\n\[\]{},]*\Z")


def _tag_before(text: str, start: int) -> int:
    """Where the tag written before the anchor at ``start`` begins (``start`` if
    no tag comes before it)."""
    if not text.startswith("&", start):
        return start
    end = start
    while end > 0 and text[end - 1] in " \t\r\n":
        end -= 1
    begin = end
    while begin > 0 and text[begin - 1] not in " \t\r\n":
        begin -= 1
    tag = _TAG_AT_END.search(text, begin, end)
    return tag.start() if tag is not None and end < start else start


@functools.cache
def _conforming_parser_class() -> type:
    """ruamel.yaml's parser, with the marks of empty values that libyaml gives.

    A value left empty (``key:``, ``{a: , b}``) is an empty scalar event at no
    width; ruamel.yaml places it at the next token (block mappings) or right
    after the ``:`` (flow collections), libyaml after the ``:`` and at the next
    token respectively. Both parsers must build the same tree for the same text
    (incremental analysis may parse an edited block with one and the whole file
    with the other), so these three states follow libyaml here.
    """
    from ruamel.yaml.parser import Parser
    from ruamel.yaml.tokens import (
        BlockEndToken,
        FlowEntryToken,
        FlowMappingEndToken,
        FlowSequenceEndToken,
        KeyToken,
        ValueToken,
    )

    class LibyamlMarksParser(Parser):
        def parse_block_mapping_value(self) -> Any:
            scanner = self.scanner
            if scanner.check_token(ValueToken):
                token = scanner.get_token()
                if not scanner.check_token(KeyToken, ValueToken, BlockEndToken):
                    self.states.append(self.parse_block_mapping_key)
                    return self.parse_block_node_or_indentless_sequence()
                self.state = self.parse_block_mapping_key
                return self.process_empty_scalar(token.end_mark)
            self.state = self.parse_block_mapping_key
            return self.process_empty_scalar(scanner.peek_token().start_mark)

        def parse_flow_mapping_value(self) -> Any:
            return self._flow_value(FlowMappingEndToken, self.parse_flow_mapping_key)

        def parse_flow_sequence_entry_mapping_value(self) -> Any:
            return self._flow_value(
                FlowSequenceEndToken, self.parse_flow_sequence_entry_mapping_end
            )

        def _flow_value(self, end: type, after: Callable[[], Any]) -> Any:
            scanner = self.scanner
            if scanner.check_token(ValueToken):
                scanner.get_token()
                if not scanner.check_token(FlowEntryToken, end):
                    self.states.append(after)
                    return self.parse_flow_node()
            self.state = after
            return self.process_empty_scalar(scanner.peek_token().start_mark)

    return LibyamlMarksParser


def _compose(composer: _Composer, text: str, conforming: bool = False) -> None:
    """Compose the events of ``text`` (raises ``_SyntaxError``)."""
    source = _events(text, conforming)
    try:
        composer.feed(source)
    finally:
        source.close()


class _Composer:
    def __init__(self, text: str) -> None:
        self.text = text
        self.diags: list[Diagnostic] = []
        self.anchors: dict[str, Node] = {}
        self.open_anchors: set[str] = set()
        self.stack: list[_Frame] = []
        self.root: Node | None = None
        self.documents = 0
        self.alias_cost = 0
        self.alias_budget_reported = False
        self.node_count = 0
        self.skip = 0  # > 0 while inside a collection nested deeper than MAX_DEPTH
        self.skip_start = 0
        self.reported_first: set[tuple[int, int]] = set()  # key spans already reported
        # Short scalars seen so far (see _SHARE_LIMIT): plain text → (text, value),
        # and the text of the other styles. Needed only while composing.
        self.plain: dict[str, tuple[str, Scalar]] = {}
        self.strings: dict[str, str] = {}
        # Where the last document ended, and whether with ``...``.
        self.last_end = 0
        self.explicit_end = False

    # -- helpers ---------------------------------------------------------------------

    def _span(self, event: Any) -> Span:
        return Span(event.start_mark.index, max(event.start_mark.index, event.end_mark.index))

    def _check_tag(self, tag: str | None, span: Span, collection: str | None) -> str | None:
        if tag is None or tag == "!":
            return None
        if tag in _KNOWN_TAGS:
            if collection is not None and tag != TAG_PREFIX + collection:
                what = "mapping" if collection == "map" else "sequence"
                self.diags.append(
                    make(
                        UNSUPPORTED_TAG,
                        f"The tag `{_short_tag(tag)}` cannot be applied to a {what}",
                        span,
                    )
                )
                return None
            return tag
        self.diags.append(
            make(
                UNSUPPORTED_TAG,
                f"The YAML tag `{_short_tag(tag)}` is not supported in a PromptPack; "
                "it is ignored and the value is read as plain data",
                span,
                data={"tag": tag},
            )
        )
        return None

    def _add(self, node: Node) -> None:
        # `feed` has its own copy of this for the nodes of the event stream.
        self.node_count += 1
        if not self.stack:
            if self.root is None:
                self.root = node
            return
        frame = self.stack[-1]
        if frame.seq:
            frame.children.append(node)
            frame.node.size += node.size
            return
        if frame.key is None:
            frame.key = node
            return
        key, frame.key = frame.key, None
        self._add_pair(frame, key, node)

    def _add_pair(self, frame: _Frame, key: Node, value: Node) -> None:
        key_text: str | None = None
        if type(key) is ScalarNode:
            key_text = key.text
        else:
            key_target = deref(key)
            if isinstance(key_target, ScalarNode):
                key_text = key_target.text
        frame.children.append(Pair(key, key_text, value))
        frame.node.size += key.size + value.size
        if key_text is None:
            self.diags.append(
                make(
                    COMPLEX_KEY,
                    "Mapping keys must be plain strings; a complex key is ignored",
                    key.span,
                )
            )

    def _finish_mapping(self, mapping: MappingNode) -> None:
        pairs = mapping.pairs
        by_key = {pair.key_text: pair for pair in pairs}
        if len(by_key) == len(pairs) and None not in by_key and "<<" not in by_key:
            # The common case: string keys, each once, no merge key.
            mapping.effective = cast(dict[str, Pair], by_key)
            return
        own: dict[str, Pair] = {}
        merges: list[Pair] = []
        for pair in pairs:
            if pair.key_text is None:
                continue
            if (
                pair.key_text == "<<"
                and isinstance(pair.key, ScalarNode)
                and pair.key.is_plain
                and pair.key.tag is None
            ):
                merges.append(pair)
                continue
            first = own.get(pair.key_text)
            if first is not None:
                self.diags.append(
                    make(
                        DUPLICATE_KEY,
                        f"Duplicate key `{pair.key_text}`: a key may appear only once in a "
                        "mapping (the later value wins, the earlier one is lost)",
                        pair.key.span,
                        related=[Related(first.key.span, f"`{pair.key_text}` first defined here")],
                        data={"key": pair.key_text},
                    )
                )
                # The first occurrence is reported once, pointing at its first repeat
                # (a set, not a search of all diagnostics: 10,000 repeats stay linear).
                first_at = (first.key.span.start, first.key.span.end)
                if first_at not in self.reported_first:
                    self.reported_first.add(first_at)
                    self.diags.append(
                        make(
                            DUPLICATE_KEY,
                            f"Duplicate key `{pair.key_text}`: defined again later in this mapping",
                            first.key.span,
                            related=[
                                Related(pair.key.span, f"`{pair.key_text}` defined again here")
                            ],
                            data={"key": pair.key_text},
                        )
                    )
            own[pair.key_text] = pair
        effective: dict[str, Pair] = {}
        for merge in merges:
            for source in self._merge_sources(merge.value):
                for key, pair in source.effective.items():
                    if key not in effective:
                        effective[key] = pair
        effective.update(own)
        mapping.effective = effective

    def _merge_sources(self, value: Node) -> list[MappingNode]:
        target = deref(value)
        if isinstance(target, MappingNode):
            return [target]
        if isinstance(target, SequenceNode):
            out: list[MappingNode] = []
            for item in target.items:
                t = deref(item)
                if isinstance(t, MappingNode):
                    out.append(t)
                elif t is not None:
                    self._bad_merge(item)
            return out
        if target is not None:
            self._bad_merge(value)
        return []

    def _bad_merge(self, node: Node) -> None:
        self.diags.append(
            make(
                INVALID_MERGE,
                "A merge key `<<` takes a mapping, an alias of a mapping, or a list of them",
                node.span,
            )
        )

    # -- events ----------------------------------------------------------------------

    def feed(self, source: _EventSource) -> None:
        """Compose the nodes of the events of ``source``.

        This loop runs once per event of the document (about 1.7 per line of a
        pack), so the common events are handled inline with local variables: a
        scalar, a collection without tag or anchor, a collection's end, a pair;
        spans are built without ``Span.__init__`` (whose check the composer
        never needs: it orders start and end itself). Tags, anchors, aliases,
        depth limits, documents and unusual mappings go through methods.
        """
        from ruamel.yaml.events import (
            AliasEvent,
            DocumentEndEvent,
            DocumentStartEvent,
            MappingEndEvent,
            MappingStartEvent,
            ScalarEvent,
            SequenceEndEvent,
            SequenceStartEvent,
        )

        stack = self.stack
        # The innermost open collection, and its fields in local variables while it
        # is the innermost (`key` is written back to the frame when another opens).
        top = stack[-1] if stack else None
        key: Node | None = top.key if top is not None else None
        children: list[Any] = top.children if top is not None else []
        parent: MappingNode | SequenceNode | None = top.node if top is not None else None
        seq = top.seq if top is not None else False
        plain = self.plain
        strings = self.strings
        anchors = self.anchors
        count = self.node_count
        skip = self.skip
        get = source.next
        new_span = _new_span
        set_start = _set_span_start
        set_end = _set_span_end
        follows = self.text.startswith
        node: Node
        try:
            while True:
                try:
                    event = get()
                except Exception as exc:  # ruamel's MarkedYAMLError and friends
                    raise source.error(exc) from None
                if event is None:
                    return
                cls = type(event)
                if cls is ScalarEvent:
                    if skip:
                        continue
                    start = event.start_mark.index
                    end = event.end_mark.index
                    span = new_span(Span)
                    set_start(span, start)
                    set_end(span, end if end > start else start)
                    text: str = event.value
                    style = event.style
                    anchor = event.anchor
                    if event.ctag is not None:
                        node = self._tagged_scalar(event, span)
                    elif not style:
                        if len(text) <= _SHARE_LIMIT:
                            known = plain.get(text)
                            if known is None:
                                if text in _INDICATORS:
                                    # Never stored: each one is checked where it is.
                                    self._check_indicator(text, start, end)
                                    known = (text, text)
                                else:
                                    known = plain[text] = (text, resolve_plain(text))
                            text, value = known
                        elif text[0] not in _SPECIAL_START:
                            value = text
                        else:
                            value = resolve_plain(text)
                        node = ScalarNode(span, text, value, "", anchor)
                    else:
                        if style == '"' or style == "'":
                            if follows("#", end):
                                raise _comment_without_space(end)
                        else:
                            self._check_block_header(start)
                        if len(text) <= _SHARE_LIMIT:
                            text = strings.setdefault(text, text)
                        node = ScalarNode(span, text, text, style, anchor)
                    if anchor:
                        anchors[anchor] = node
                elif cls is MappingStartEvent or cls is SequenceStartEvent:
                    if skip:
                        skip += 1
                        continue
                    if len(stack) >= MAX_DEPTH:
                        self._nesting_too_deep(event)
                        skip = 1
                        continue
                    if top is not None:
                        top.key = key
                    if event.ctag is None and not event.anchor:
                        start = event.start_mark.index
                        end = event.end_mark.index
                        if cls is MappingStartEvent:
                            mapping = MappingNode(_OPEN, bool(event.flow_style))
                            top = _Frame(mapping, mapping.pairs, False, start, end)
                        else:
                            sequence = SequenceNode(_OPEN, bool(event.flow_style))
                            top = _Frame(sequence, sequence.items, True, start, end)
                    else:
                        top = self._open(event, cls is MappingStartEvent)
                    stack.append(top)
                    key = None
                    children = top.children
                    parent = top.node
                    seq = top.seq
                    continue
                elif cls is MappingEndEvent or cls is SequenceEndEvent:
                    if skip:
                        skip -= 1
                        if skip:
                            continue
                        # The cut-off collection counts as one empty value.
                        end = max(event.end_mark.index, self.skip_start)
                        node = ScalarNode(Span(self.skip_start, end), "", None, "")
                    else:
                        frame = stack.pop()
                        # What `_close` does, for the common collections.
                        collection = frame.node
                        start = frame.start
                        if collection.flow:
                            end = event.end_mark.index
                            if follows("#", end):
                                raise _comment_without_space(end)
                        elif not children:
                            end = frame.end
                        elif seq:
                            end = children[-1].span.end
                        else:
                            pair = children[-1]
                            end = pair.key.span.end
                            value_end = pair.value.span.end
                            if value_end > end:
                                end = value_end
                        span = new_span(Span)
                        set_start(span, start)
                        set_end(span, end if end > start else start)
                        collection.span = span
                        if not seq:
                            by_key = {pair.key_text: pair for pair in children}
                            if (
                                len(by_key) == len(children)
                                and None not in by_key
                                and "<<" not in by_key
                            ):
                                # String keys, each once, no merge key.
                                collection.effective = by_key  # type: ignore[union-attr]
                            else:
                                self._finish_mapping(collection)  # type: ignore[arg-type]
                        if collection.anchor:
                            self.open_anchors.discard(collection.anchor)
                            anchors[collection.anchor] = collection
                        node = collection
                        if stack:
                            top = stack[-1]
                            key = top.key
                            children = top.children
                            parent = top.node
                            seq = top.seq
                        else:
                            top = None
                            key = None
                elif cls is AliasEvent:
                    if skip:
                        continue
                    self.node_count = count
                    node = self._alias(event)
                elif cls is DocumentStartEvent:
                    if skip:
                        continue
                    if self._document(event):
                        # Later documents are not composed, but a syntax error in
                        # them is one of the file.
                        try:
                            while get() is not None:
                                pass
                        except Exception as exc:
                            raise source.error(exc) from None
                        return
                    continue
                elif cls is DocumentEndEvent:
                    self.last_end = event.end_mark.index
                    self.explicit_end = bool(event.explicit)
                    continue
                else:
                    continue
                # Add the node where it belongs, as `_add` does.
                count += 1
                if top is None:
                    if self.root is None:
                        self.root = node
                elif seq:
                    children.append(node)
                    parent.size += node.size  # type: ignore[union-attr]
                elif key is None:
                    key = node
                elif type(key) is ScalarNode:
                    children.append(Pair(key, key.text, node))
                    parent.size += 1 + node.size  # type: ignore[union-attr]
                    key = None
                else:
                    self._add_pair(top, key, node)
                    key = None
        finally:
            if top is not None:
                top.key = key
            self.node_count = count
            self.skip = skip

    def _document(self, event: Any) -> bool:
        """Count a document start; True when the rest of the stream is to be ignored."""
        if event.version is not None or event.tags:
            self._check_directives(event)
        self.documents += 1
        if self.documents == 2:
            span = self._span(event)
            if event.version is not None or event.tags:
                # From its first directive, where libyaml starts the event (the
                # conforming parser starts it at `---`).
                directive = _DIRECTIVE.search(self.text, self.last_end, span.end)
                if directive is not None and directive.start() < span.start:
                    span = Span(directive.start(), span.end)
            self.diags.append(
                make(
                    MULTIPLE_DOCUMENTS,
                    "A PromptPack file holds exactly one YAML document; this second "
                    "document (and any after it) is ignored",
                    span,
                )
            )
        # Later documents are not analysed.
        return self.documents >= 2

    def _check_directives(self, event: Any) -> None:
        """Two checks of YAML 1.2 that libyaml does not make, for a document with
        directives: a directive after a document needs the end marker ``...``
        between them, and a ``%YAML`` directive's comment a space before ``#``."""
        start = self.last_end if self.documents else 0
        end = max(event.end_mark.index, start)
        directive = _DIRECTIVE.search(self.text, start, end)
        if self.documents and not self.explicit_end and directive is not None:
            raise _SyntaxError(
                directive.start(),
                "a directive after a document needs the end marker `...` before it",
                None,
                None,
                definite=True,
            )
        if event.version is not None:
            comment = _VERSION_COMMENT.search(self.text, start, end)
            if comment is not None:
                raise _comment_without_space(comment.end() - 1)

    def _check_indicator(self, text: str, start: int, end: int) -> None:
        """A plain scalar that is one indicator (``-``, ``?``, ``:``) is valid only
        when a character that could continue a plain scalar follows it (``::`` is
        the key ``:``); libyaml also reads ``[-]`` and ``[-, -]`` as lists of ``-``."""
        after = self.text[end : end + 1]
        if not after or after in " \t\r\n,[]{}\ufeff\x85\u2028\u2029":
            raise _SyntaxError(
                start,
                f"`{text}` alone cannot be a plain scalar; quote it (`'{text}'`)",
                None,
                None,
                definite=True,
            )

    def _check_block_header(self, start: int) -> None:
        """A block scalar's header (``|``, ``>``, indicators, after the node's
        properties) must be followed by a space before a comment: libyaml reads
        ``>#`` as ``>`` and a comment."""
        header = _BLOCK_HEADER.match(self.text, start)
        if header is not None and self.text.startswith("#", header.end()):
            raise _comment_without_space(header.end())

    def _tagged_scalar(self, event: Any, span: Span) -> ScalarNode:
        style = event.style or ""
        if style == '"' or style == "'":
            if self.text.startswith("#", span.end):
                raise _comment_without_space(span.end)
        elif style:
            self._check_block_header(span.start)
        text: str = event.value
        tag = self._check_tag(str(event.ctag), span, None)
        value: Scalar
        if tag is not None:
            resolved = _resolve_tagged(text, tag)
            if isinstance(resolved, _Bad):
                self.diags.append(
                    make(UNSUPPORTED_TAG, f"`{text}` cannot be read as {resolved.expected}", span)
                )
                value = text
            else:
                value = resolved
        elif style == "":
            value = resolve_plain(text)
        else:
            value = text
        return ScalarNode(span, text, value, style, event.anchor, tag)

    def _nesting_too_deep(self, event: Any) -> None:
        span = self._span(event)
        self.diags.append(
            make(
                NESTING_TOO_DEEP,
                f"Collections are nested more than {MAX_DEPTH} levels deep here; the deeper "
                "content is not read",
                span,
            )
        )
        self.skip_start = span.start

    def _open(self, event: Any, mapping: bool) -> _Frame:
        start = event.start_mark.index
        end = event.end_mark.index
        if end < start:
            end = start
        tag: str | None = None
        if event.ctag is not None:
            tag = self._check_tag(str(event.ctag), Span(start, end), "map" if mapping else "seq")
        anchor = event.anchor
        flow = bool(event.flow_style)
        if anchor:
            self.open_anchors.add(anchor)
        if mapping:
            mapping_node = MappingNode(_OPEN, flow, anchor, tag)
            return _Frame(mapping_node, mapping_node.pairs, False, start, end)
        sequence_node = SequenceNode(_OPEN, flow, anchor, tag)
        return _Frame(sequence_node, sequence_node.items, True, start, end)

    def _close(self, frame: _Frame, end_index: int) -> None:
        node = frame.node
        start = frame.start
        if node.flow:
            end = max(end_index, start)
        else:
            children = frame.children
            if not children:
                last = frame.end
            elif frame.seq:
                last = children[-1].span.end
            else:
                pair = children[-1]
                last = max(pair.key.span.end, pair.value.span.end)
            end = max(last, start)
        node.span = Span(start, end)
        if isinstance(node, MappingNode):
            self._finish_mapping(node)
        if node.anchor:
            self.open_anchors.discard(node.anchor)
            self.anchors[node.anchor] = node

    def _alias(self, event: Any) -> AliasNode:
        span = self._span(event)
        name: str = event.anchor
        target: Node | None = None
        if name in self.open_anchors:
            self.diags.append(
                make(
                    RECURSIVE_ALIAS,
                    f"The alias `*{name}` refers to the node that contains it; "
                    "a recursive structure cannot be read",
                    span,
                )
            )
        else:
            target = self.anchors.get(name)
            if target is None:
                self.diags.append(
                    make(
                        UNDEFINED_ALIAS,
                        f"The alias `*{name}` has no anchor `&{name}` before it",
                        span,
                    )
                )
        node = AliasNode(span, name, target)
        if target is not None:
            self.alias_cost += target.size
            if self.alias_cost > max(ALIAS_EXPANSION_BUDGET, self.node_count):
                if not self.alias_budget_reported:
                    self.alias_budget_reported = True
                    self.diags.append(
                        make(
                            ALIAS_EXPANSION_LIMIT,
                            f"Aliases expand this document beyond {ALIAS_EXPANSION_BUDGET:,} "
                            f"nodes (`*{name}` crosses the limit); this and later oversized "
                            "aliases are not expanded",
                            span,
                        )
                    )
                node.target = None
            else:
                node.size = target.size
        return node

    def close_open(self, end_index: int) -> None:
        """Close collections left open by a syntax error so a partial tree remains."""
        while self.stack:
            frame = self.stack.pop()
            if frame.key is not None and not frame.seq:
                null = ScalarNode(Span(frame.key.span.end, frame.key.span.end), "", None, "")
                self._add_pair(frame, frame.key, null)
                frame.key = None
            self._close(frame, end_index)
            self._add(frame.node)


#: Plain scalars that YAML 1.2 never allows: an indicator alone (``-``, ``?``, ``:``
#: start a plain scalar only when a character that could continue it follows).
#: libyaml reads ``[-]`` and ``[-, -]`` as sequences of ``-``.
_INDICATORS = frozenset("-?:")
#: A line of a directive, at its start.
_DIRECTIVE = re.compile(r"^%", re.MULTILINE)
#: A ``%YAML`` directive whose version runs into a ``#`` (libyaml stops at the ``#``).
_VERSION_COMMENT = re.compile(r"^%YAML[ \t]+[^ \t\r\n#]*#", re.MULTILINE)
#: A block scalar's header from the start of its node: properties (anchor, tag),
#: then the indicator and its modifiers.
_BLOCK_HEADER = re.compile(r"(?:[!&][^ \t\r\n]*[ \t]+)*[|>][0-9+-]*")


def _comment_without_space(index: int) -> _SyntaxError:
    return _SyntaxError(
        index,
        "a comment needs a space before `#`",
        None,
        None,
        definite=True,
    )


def _short_tag(tag: str) -> str:
    return "!!" + tag[len(TAG_PREFIX) :] if tag.startswith(TAG_PREFIX) else tag


def _syntax_message(text: str, err: _SyntaxError) -> str:
    ch = text[err.index] if 0 <= err.index < len(text) else ""
    if ch == "\t" and "cannot start any token" in err.problem:
        return "YAML syntax error: a tab cannot be used for indentation; use spaces"
    problem = err.problem.strip()
    message = f"YAML syntax error: {problem}"
    if err.context:
        message += f" ({err.context.strip()})"
    return message


def _blank_line(text: str, index: int) -> str:
    """Replace the line holding ``index`` by spaces, keeping every offset."""
    start = max(text.rfind("\n", 0, index), text.rfind("\r", 0, index)) + 1
    end_n = text.find("\n", index)
    end_r = text.find("\r", index)
    ends = [e for e in (end_n, end_r) if e >= 0]
    end = min(ends) if ends else len(text)
    if end <= start:
        return text
    return text[:start] + " " * (end - start) + text[end:]


#: Flow collections (``[``/``{``) nested deeper than this are refused before libyaml
#: sees the text: its scanner spends time proportional to the nesting depth on every
#: token, so 100,000 ``[`` take tens of seconds before the first event arrives.
MAX_FLOW_DEPTH = 1000

_FLOW_TOKEN = re.compile(r"[\[\]{}\"'#]")
#: A token that starts a value outside flow collections: after an indicator or a line
#: break and at most 79 spaces or tabs (the scan's look-behind window is 80
#: characters: indicator included). The match starts at that indicator or break.
#: The blanks are matched possessively (``{0,79}+``): a token is never a blank, so
#: giving some back could not help, and the regular expression engine would try.
_VALUE_TOKEN = re.compile(r"[:\-?,\r\n][ \t]{0,79}+[\[\]{}\"'#]")
#: The same at the start of the text, where up to 80 spaces or tabs may come first.
_FIRST_TOKEN = re.compile(r"[ \t]{0,80}+[\[\]{}\"'#]")
_DOUBLE_QUOTED_END = re.compile(r'(?:[^"\\]|\\.)*"', re.DOTALL)


def _too_deep(text: str) -> int | None:
    """Offset where flow collections first nest deeper than ``MAX_FLOW_DEPTH``.

    A cheap approximation of YAML's flow context, in linear time: outside flow
    collections a bracket or quote counts only where a value starts; inside them
    every bracket counts, quoted scalars and comments are skipped. It can only
    under-count (then libyaml and the composer's own limit still apply).

    Outside flow collections, most brackets and quotes are inside plain or block
    scalars (the ``{{ }}`` of templates, apostrophes in prose): ``_VALUE_TOKEN``
    finds only those that start a value, in one regular-expression search, without
    visiting the others. The character before ``pos`` is never a space, a tab or an
    indicator (it is a token or a closing quote, or ``pos`` is at a line break), so
    the indicator or break a token follows is never before ``pos``.
    """
    if text.count("[") + text.count("{") <= MAX_FLOW_DEPTH:
        return None
    depth = 0
    pos = 0
    search = _FLOW_TOKEN.search
    value_token = _VALUE_TOKEN.search
    first = _FIRST_TOKEN.match(text)
    while True:
        if depth:
            m = search(text, pos)
            if m is None:
                return None
            i = m.start()
        elif first is not None:
            i = first.end() - 1
            first = None
        else:
            m = value_token(text, pos)
            if m is None:
                return None
            i = m.end() - 1
        c = text[i]
        pos = i + 1
        if c in "[{":
            depth += 1
            if depth > MAX_FLOW_DEPTH:
                return i
        elif c in "]}":
            depth = max(depth - 1, 0)
        elif c == '"':
            end = _DOUBLE_QUOTED_END.match(text, pos)
            pos = end.end() if end is not None else len(text)
        elif c == "'":
            end_q = text.find("'", pos)
            pos = end_q + 1 if end_q >= 0 else len(text)
        elif i == 0 or text[i - 1] in " \t\r\n":  # a comment
            end_n = text.find("\n", pos)
            pos = end_n if end_n >= 0 else len(text)


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def parse(text: str) -> ParseResult:
    """Parse ``text`` (BOM already removed) into a tree with diagnostics."""
    pre: list[Diagnostic] = []
    # `isascii` is a flag of the string (no scan): most packs are ASCII.
    bad = None if text.isascii() else _LONE_SURROGATE.search(text)
    if bad is not None:
        # Possible in text sent by an editor (JSON-RPC allows `\ud800`), never in a
        # file: the parser cannot encode it. Replaced by U+FFFD, offsets unchanged.
        pre.append(
            make(
                INVALID_ENCODING,
                f"The text contains a lone surrogate U+{ord(bad.group()):04X}, which is not a "
                "character and cannot be saved as UTF-8; it is read as U+FFFD",
                Span(bad.start(), bad.end()),
            )
        )
        text = _LONE_SURROGATE.sub("\ufffd", text)
    lines = LineIndex(text)
    deep = _too_deep(text)
    if deep is not None:
        diag = make(
            NESTING_TOO_DEEP,
            f"Collections are nested more than {MAX_FLOW_DEPTH:,} levels deep here; "
            "the file is not read",
            Span(deep, deep + 1),
        )
        return ParseResult(None, [*pre, diag], True, lines, text)
    composer = _Composer(text)
    composer.diags.extend(pre)
    syntax_error: _SyntaxError | None = None
    conforming = False
    try:
        _compose(composer, text)
    except _SyntaxError as err:
        syntax_error = err
    if (
        syntax_error is not None
        and not syntax_error.definite
        and not _confirmed_locally(text, syntax_error)
    ):
        # libyaml rejects some YAML 1.2 (docs/decisions.md, D26): a conforming parser
        # confirms the error or reads the text. Nothing of this runs on a text libyaml
        # accepts.
        first = syntax_error
        second = _Composer(text)
        second.diags.extend(pre)
        try:
            _compose(second, text, conforming=True)
            composer, syntax_error, conforming = second, None, True
        except _SyntaxError as again:
            if again.located and again.index > first.index:
                # libyaml's error was none: the conforming parser read past it, so
                # its error is the first real one and its partial tree the larger.
                composer, syntax_error, conforming = second, again, True
    diags = composer.diags
    root = composer.root
    if syntax_error is not None:
        index = min(max(syntax_error.index, 0), len(text))
        at_eof = not text[index:].strip()
        if at_eof and syntax_error.ctx_index is not None:
            # "Reached the end of the file" is useless as a place: point at the
            # construct that was left open instead.
            index = min(max(syntax_error.ctx_index, 0), len(text))
            syntax_error.problem += " before the end of the file"
        end = index + 1 if index < len(text) and text[index] not in "\r\n" else index
        related = []
        if syntax_error.ctx_index is not None and syntax_error.ctx_index != index:
            ci = min(max(syntax_error.ctx_index, 0), len(text))
            related.append(
                Related(Span(ci, min(ci + 1, len(text))), syntax_error.context or "context")
            )
        diags = [
            make(
                YAML_SYNTAX, _syntax_message(text, syntax_error), Span(index, end), related=related
            )
        ] + [d for d in diags if d.code != "PP001"]
        root = _recover(text, syntax_error, composer, conforming)
    elif root is None or (isinstance(root, ScalarNode) and root.value is None and root.style == ""):
        diags.append(
            make(
                EMPTY_DOCUMENT,
                "The file is empty: a PromptPack needs at least a mapping "
                "with `id`, `name`, `version`, `template_engine` and `prompts`",
                Span(0, 0),
            )
        )
        root = None
    return ParseResult(root, diags, syntax_error is not None, lines, text)


#: Texts shorter than this are confirmed by the conforming parser as a whole.
LOCAL_CONFIRM_MIN = 20_000
_LINE_INDENT = re.compile(r"[ ]*")


def _confirmed_locally(text: str, err: _SyntaxError) -> bool:
    """Whether the conforming parser confirms libyaml's error ``err`` from the block
    around it alone, so that a large file with a real syntax error (a quote left open
    while typing) is not read again whole by the slow parser (D26).

    The block starts at the nearest line at or before the error (for a construct
    left open to the end of the text, before where it opens) that is indented two
    spaces or less, and ends before the next
    such line after the error: a top-level entry or a prompt, which YAML reads the same
    alone. Confirmed only when the conforming parser fails on the very line libyaml
    did; any other outcome (it reads the block, or fails elsewhere, as it may when the
    block is not self-contained) leaves the decision to the whole text.
    """
    if len(text) < LOCAL_CONFIRM_MIN or not err.located:
        return False
    index = min(max(err.index, 0), len(text))
    # A construct left open to the end of the text (a quote, a bracket): its block
    # is the one where it opens, and the conforming parser must fail on it too.
    unclosed = not text[index:].strip() and err.ctx_index is not None
    anchor = min(max(err.ctx_index or 0, 0), len(text)) if unclosed else index
    start = text.rfind("\n", 0, anchor) + 1
    while start > 0 and not _opens_block(text, start):
        start = text.rfind("\n", 0, start - 1) + 1
    error_line_end = text.find("\n", anchor)
    end = len(text)
    at = error_line_end
    while 0 <= at < len(text):
        nxt = at + 1
        if _opens_block(text, nxt):
            end = nxt
            break
        at = text.find("\n", nxt)
    if end - start > len(text) // 2:
        return False
    block = text[start:end]
    try:
        _compose(_Composer(block), block, conforming=True)
    except _SyntaxError as again:
        if not again.located:
            return False
        if unclosed:
            return again.ctx_index is not None and again.ctx_index + start == err.ctx_index
        line = text.count("\n", 0, start) + block.count("\n", 0, max(again.index, 0))
        return line == text.count("\n", 0, index)
    return False


def _opens_block(text: str, start: int) -> bool:
    """A line (starting at ``start``) with content indented two spaces or less."""
    indent = _LINE_INDENT.match(text, start)
    width = indent.end() - start if indent is not None else 0
    char = text[start + width : start + width + 1]
    return width <= 2 and char not in ("", "\n", "\r", "#", "\t")


def _recover(
    text: str, first: _SyntaxError, partial: _Composer, conforming: bool = False
) -> Node | None:
    """Build the best tree we can around syntax errors.

    The offending line is blanked (offsets kept) and the text re-parsed, a few
    times; if that never succeeds the partial tree from before the first error is
    used. Diagnostics from recovery attempts are discarded (no cascades). The
    attempts use the parser that found ``first``: with ``conforming``, libyaml
    rejected something before it that is valid YAML, and would again.
    """
    attempt = text
    err: _SyntaxError | None = first
    for _ in range(MAX_RECOVERIES):
        if err is None:
            break
        previous: _SyntaxError = err
        attempt = _blank_line(attempt, min(previous.index, max(len(attempt) - 1, 0)))
        composer = _Composer(attempt)
        try:
            _compose(composer, attempt, conforming)
            err = None
            if composer.root is not None:
                return composer.root
        except _SyntaxError as again:
            if again.index == previous.index and attempt[previous.index : previous.index + 1] in (
                "",
                " ",
            ):
                # Blanking did not move the error forward: try the previous line too.
                again = _SyntaxError(
                    max(attempt.rfind("\n", 0, max(previous.index - 1, 0)) - 1, 0),
                    again.problem,
                    None,
                    None,
                )
            err = again
    partial.close_open(first.index)
    return partial.root


# ----------------------------------------------------------------- data & navigation


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
# need); scalars, the most common node, are copied inline by their parents; and a
# mapping's effective entries are rebuilt with C-level operations when they are its
# pairs in order (every mapping without merge keys). The result is exactly what the
# constructors would build.
_new = object.__new__


def _shifted_scalar(node: ScalarNode, delta: int) -> ScalarNode:
    old = node.span
    span = _new(Span)
    SET_START(span, old.start + delta)
    SET_END(span, old.end + delta)
    copy = _new(ScalarNode)
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
    span_type: type[Span] = Span,
    set_start: Any = SET_START,
    set_end: Any = SET_END,
    scalar_type: type[ScalarNode] = ScalarNode,
    pair_type: type[Pair] = Pair,
) -> list[Pair]:
    out: list[Pair] = []
    append = out.append
    for pair in pairs:
        copied = new(pair_type)
        node = pair.key
        if type(node) is scalar_type:
            old = node.span
            span = new(span_type)
            set_start(span, old.start + delta)
            set_end(span, old.end + delta)
            copy = new(scalar_type)
            copy.span = span
            copy.anchor = node.anchor
            copy.tag = node.tag
            copy.size = node.size
            copy.text = node.text
            copy.value = node.value
            copy.style = node.style
            copied.key = copy
        else:
            copied.key = shifted_copy(node, delta)
        copied.key_text = pair.key_text
        node = pair.value
        if type(node) is scalar_type:
            old = node.span
            span = new(span_type)
            set_start(span, old.start + delta)
            set_end(span, old.end + delta)
            copy = new(scalar_type)
            copy.span = span
            copy.anchor = node.anchor
            copy.tag = node.tag
            copy.size = node.size
            copy.text = node.text
            copy.value = node.value
            copy.style = node.style
            copied.value = copy
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
            old = item.span
            span = new(span_type)
            set_start(span, old.start + delta)
            set_end(span, old.end + delta)
            copy = new(scalar_type)
            copy.span = span
            copy.anchor = item.anchor
            copy.tag = item.tag
            copy.size = item.size
            copy.text = item.text
            copy.value = item.value
            copy.style = item.style
            append(copy)
        elif type(item) is MappingNode or type(item) is SequenceNode:
            append(_shifted_collection(item, delta))
        else:
            raise ValueError("an alias cannot be copied")
    sequence.items = items
    return sequence
