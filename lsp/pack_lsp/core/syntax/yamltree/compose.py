"""The composer: nodes with spans from a stream of events.

No tag ever builds an object, aliases are kept as references with a bounded
expansion budget, merge keys (``<<``) are resolved into each mapping's *effective*
entries while the merged pairs keep the spans of the place they were written, and
duplicate keys are reported with both locations. A few errors of YAML 1.2 that
libyaml accepts are caught here too.
"""

from __future__ import annotations

import re
from typing import Any, cast

from pack_lsp.core.base.diagnostics import Diagnostic, Related, make
from pack_lsp.core.base.problems.document import (
    ALIAS_EXPANSION_LIMIT,
    COMPLEX_KEY,
    DUPLICATE_KEY,
    INVALID_MERGE,
    MULTIPLE_DOCUMENTS,
    NESTING_TOO_DEEP,
    RECURSIVE_ALIAS,
    UNDEFINED_ALIAS,
    UNSUPPORTED_TAG,
)
from pack_lsp.core.base.text import Span
from pack_lsp.core.syntax.yamltree.events import EventSource, YamlSyntaxError, event_source
from pack_lsp.core.syntax.yamltree.guards import ALIAS_EXPANSION_BUDGET, MAX_DEPTH
from pack_lsp.core.syntax.yamltree.nodes import (
    AliasNode,
    MappingNode,
    Node,
    Pair,
    Scalar,
    ScalarNode,
    SequenceNode,
    deref,
)
from pack_lsp.core.syntax.yamltree.resolution import (
    KNOWN_TAGS,
    SPECIAL_START,
    TAG_PREFIX,
    BadValue,
    resolve_plain,
    resolve_tagged,
)


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


def compose(composer: Composer, text: str, conforming: bool = False) -> None:
    """Compose the events of ``text`` (raises ``YamlSyntaxError``)."""
    source = event_source(text, conforming)
    try:
        composer.feed(source)
    finally:
        source.close()


class Composer:
    """The tree of one text, built from the events ``feed`` is given; ``root`` and
    ``diags`` hold what was read so far, also after a syntax error."""

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
        if tag in KNOWN_TAGS:
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

    def feed(self, source: EventSource) -> None:
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
                        elif text[0] not in SPECIAL_START:
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
            raise YamlSyntaxError(
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
            raise YamlSyntaxError(
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
            resolved = resolve_tagged(text, tag)
            if isinstance(resolved, BadValue):
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


def _comment_without_space(index: int) -> YamlSyntaxError:
    return YamlSyntaxError(
        index,
        "a comment needs a space before `#`",
        None,
        None,
        definite=True,
    )


def _short_tag(tag: str) -> str:
    return "!!" + tag[len(TAG_PREFIX) :] if tag.startswith(TAG_PREFIX) else tag
