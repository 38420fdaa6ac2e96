"""The event sources of the composer: libyaml through ruamel.yaml's C extension, and
ruamel.yaml's pure-Python parser, which conforms to YAML 1.2 where the bundled
libyaml does not (docs/decisions.md, D26), with the marks libyaml gives."""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Callable
from typing import Any


class YamlSyntaxError(Exception):
    """A syntax error at an offset of the user's text, from a parser or the composer."""

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
        # Found by the composer's own checks of YAML 1.2 (its ``_check_*`` methods), which
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


class EventSource:
    """libyaml's events for one text, one call at a time.

    ``next()`` returns the next event, or None after the stream's end; ``error``
    turns what it raised into a ``YamlSyntaxError`` at offsets of the user's text;
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

    def error(self, exc: Exception) -> YamlSyntaxError:
        """The syntax error for what libyaml raised (ruamel's MarkedYAMLError and
        friends)."""
        character = getattr(exc, "character", None)
        if isinstance(character, int) and not hasattr(exc, "problem_mark"):
            # A reader error (a control character such as NUL): its position is not
            # a mark and its text names libyaml's input buffer; locate it ourselves.
            found = self.original.find(chr(character))
            return YamlSyntaxError(
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
        return YamlSyntaxError(
            fix(mark.index) if mark is not None else 0,
            str(problem),
            getattr(exc, "context", None),
            fix(ctx_mark.index) if ctx_mark is not None else None,
            located=mark is not None,
        )


def event_source(text: str, conforming: bool = False) -> EventSource:
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

    return EventSource(get, close, original, remap)


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
