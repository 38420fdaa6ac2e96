"""Exact document positions for the characters of a scalar's value.

A scalar's *value* (``ScalarNode.text``) is what remains after YAML has removed the
quotes, resolved escapes (``\\n``, ``\\x41``, ``\\u00e9``, ``''``...), folded line
breaks into spaces, stripped indentation and applied block chomping. Features that
point *inside* a value — a ``{{placeholder}}`` in a template, a word in a
description — need to map an index in that value back to the document.

``scalar_map(node, source)`` returns a ``ScalarMap`` that does this for every
scalar style: plain (multi-line), single-quoted, double-quoted (and so JSON
strings), literal ``|`` and folded ``>`` block scalars with indentation
indicators, chomping indicators and header comments, with CRLF/CR/NEL line
breaks, tabs and characters outside the BMP. The source text is re-scanned with
the same folding rules libyaml applies; the result is checked against the value
libyaml produced, and when the two ever disagree a character-matching fallback is
used (``ScalarMap.exact`` is then False), so the mapping never fails.

For every value character ``i`` the map knows the source range that produced it:
a copied character maps to itself, an escape such as ``\\u00e9`` maps to the whole
escape, a space produced by folding maps to the line break it replaces, and a
``\\n`` maps to its line break (``\\r\\n`` counts as one).

- ``ScalarMap.offset(i)``: document offset where value character ``i`` starts
  (``i == len(value)`` gives the end of the content).
- ``ScalarMap.span_of(start, end)``: the document ``Span`` of value[start:end].
- ``ScalarMap.index_at(offset)``: the value index at a document offset (for a cursor).
- ``value_offsets(node, source)``: ``[offset(0), ..., offset(len(value))]``.

``source`` must be the text the tree was parsed from (BOM already removed).
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re
from collections.abc import Callable, Iterator, Sequence

from pack_lsp.core.base.text import Span
from pack_lsp.core.syntax.yamltree.nodes import ScalarNode

__all__ = ["ScalarMap", "scalar_map", "value_offsets"]

_BLANK = " \t"
_BREAKS = "\r\n\x85\u2028\u2029"
_ESCAPES = {
    "0": "\0",
    "a": "\x07",
    "b": "\x08",
    "t": "\t",
    "\t": "\t",
    "n": "\n",
    "v": "\x0b",
    "f": "\x0c",
    "r": "\r",
    "e": "\x1b",
    " ": " ",
    '"': '"',
    "/": "/",
    "\\": "\\",
    "N": "\x85",
    "_": "\xa0",
    "L": "\u2028",
    "P": "\u2029",
}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}
_HEX = frozenset("0123456789abcdefABCDEF")
_BREAK_RE = re.compile("[\r\n\x85\u2028\u2029]")
#: Widest block-scalar indentation tried when the automatic one does not match.
_MAX_INDENT = 200


class ScalarMap:
    """Value index → document offsets for one scalar (see the module docstring).

    The map is stored as *runs*, not per character: a run is either a stretch of
    value characters copied one for one from consecutive source characters (a line
    of a block scalar, a word of a quoted one) or a single character made from a
    different source stretch (an escape, a CRLF, a folded line break). A template of
    twenty lines is then about twenty runs found by bisection, where one list entry
    per character made building the maps most of the cost of scanning a pack's
    templates (and of its memory). Offsets are kept as scanned plus ``_delta``, so
    ``shifted`` moves the map of an unchanged scalar to a new position in constant
    time (see ``pack_lsp.core.model.templates``, which reuses scans across versions).
    """

    __slots__ = (
        "_delta",
        "_reach",
        "_se",
        "_ss",
        "_vs",
        "content",
        "exact",
        "style",
        "value",
    )

    def __init__(
        self,
        value: str,
        runs: tuple[list[int], list[int], list[int]],
        content: Span,
        exact: bool,
        style: str = "",
        *,
        reach: int = 0,
        delta: int = 0,
    ) -> None:
        self.value = value
        self.style = style
        # Per run: the value index it starts at, its first source offset (before
        # ``_delta``) and, for a single character, its source end (-1 for a run
        # copied one for one). Shared, never modified, by shifted copies.
        self._vs, self._ss, self._se = runs
        self._delta = delta
        self.content = content  # the region between quotes / after the block header
        self.exact = exact
        self._reach = reach

    def __len__(self) -> int:
        return len(self.value)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ScalarMap):
            return NotImplemented
        return (
            self.value == other.value
            and self.style == other.style
            and self.exact == other.exact
            and self.content == other.content
            and list(self.starts) == list(other.starts)
            and list(self.ends) == list(other.ends)
        )

    __hash__ = None  # type: ignore[assignment]  # mutable-looking value type, compared by content

    @property
    def reach(self) -> int:
        """Document offset after the last source character the map was derived from.

        At least the end of the node's span: the scanners read a character or two
        past it (the indentation of the next line ends a block scalar). A scalar
        whose source up to ``reach`` is unchanged maps the same way.
        """
        return self._reach + self._delta

    def shifted(self, delta: int, value: str | None = None) -> ScalarMap:
        """The same map for the scalar moved by ``delta`` characters.

        ``value`` replaces the stored value by an equal string (so that a map kept
        across versions does not keep an old document's strings alive).
        """
        return ScalarMap(
            self.value if value is None else value,
            (self._vs, self._ss, self._se),
            self.content.shifted(delta),
            self.exact,
            self.style,
            reach=self._reach,
            delta=self._delta + delta,
        )

    @property
    def starts(self) -> Sequence[int]:
        """Document offset where each value character starts (built on demand)."""
        return self._expand()[0]

    @property
    def ends(self) -> Sequence[int]:
        """Document offset where each value character ends (built on demand)."""
        return self._expand()[1]

    def _expand(self) -> tuple[Sequence[int], Sequence[int]]:
        vs, ss, se, d = self._vs, self._ss, self._se, self._delta
        n = len(self.value)
        if len(vs) == 1 and se[0] < 0:
            first = ss[0] + d
            return range(first, first + n), range(first + 1, first + n + 1)
        starts: list[int] = []
        ends: list[int] = []
        for r, v in enumerate(vs):
            stop = vs[r + 1] if r + 1 < len(vs) else n
            s = ss[r] + d
            if se[r] < 0:
                starts.extend(range(s, s + stop - v))
                ends.extend(range(s + 1, s + stop - v + 1))
            else:
                starts.append(s)
                ends.append(se[r] + d)
        return starts, ends

    def _start(self, index: int) -> int:
        r = bisect.bisect_right(self._vs, index) - 1
        s = self._ss[r]
        if self._se[r] < 0:
            s += index - self._vs[r]
        return s + self._delta

    def _end(self, index: int) -> int:
        r = bisect.bisect_right(self._vs, index) - 1
        e = self._se[r]
        if e < 0:
            e = self._ss[r] + index - self._vs[r] + 1
        return e + self._delta

    def offset(self, index: int) -> int:
        """Document offset of value character ``index`` (clamped; len → content end)."""
        n = len(self.value)
        if not n:
            return self.content.start
        if index <= 0:
            return self._start(0)
        if index >= n:
            return self._end(n - 1)
        return self._start(index)

    def end_offset(self, index: int) -> int:
        """Document offset just after value character ``index - 1``."""
        n = len(self.value)
        if not n or index <= 0:
            return self.offset(0)
        return self._end(min(index, n) - 1)

    def span_of(self, start: int, end: int) -> Span:
        """The document span of ``value[start:end]`` (an empty slice → empty span)."""
        n = len(self.value)
        if 0 <= start < end <= n:  # the usual case, without the clamping calls
            vs, ss, se = self._vs, self._ss, self._se
            r = bisect.bisect_right(vs, start) - 1
            first = ss[r] + start - vs[r] if se[r] < 0 else ss[r]
            last = end - 1
            r = bisect.bisect_right(vs, last, r) - 1
            after = ss[r] + last - vs[r] + 1 if se[r] < 0 else se[r]
            return Span(first + self._delta, max(first, after) + self._delta)
        start = max(0, min(start, n))
        end = max(start, min(end, n))
        first = self.offset(start)
        if end == start:
            return Span(first, first)
        return Span(first, max(first, self.end_offset(end)))

    def index_at(self, offset: int) -> int:
        """The value index of the character at (or first after) a document offset.

        An offset inside an escape or a folded line break gives that character's
        index; an offset past the content gives ``len(value)``.
        """
        n = len(self.value)
        if not n:
            return 0
        rel = offset - self._delta
        r = bisect.bisect_right(self._ss, rel) - 1
        if r < 0:
            return 0
        # the last character starting at or before ``offset`` (source offsets never
        # decrease along the value)
        i = self._vs[r]
        if self._se[r] < 0:
            stop = self._vs[r + 1] if r + 1 < len(self._vs) else n
            i += min(rel - self._ss[r], stop - i - 1)
        if offset < self._end(i) or offset == self._start(i):
            return i
        return i + 1


def value_offsets(node: ScalarNode, source: str) -> list[int]:
    """Document offset of each value character, plus the offset of the content end."""
    m = scalar_map(node, source)
    return [m.offset(i) for i in range(len(m.value) + 1)]


def scalar_map(node: ScalarNode, source: str) -> ScalarMap:
    """Map ``node``'s value back to ``source`` (the text the tree was parsed from)."""
    value = node.text
    span = node.span
    start = _skip_properties(source, span.start, span.end)
    style = node.style
    result: _Out | None = None
    content = Span(start, max(start, span.end))
    # How far the scanners read: the map depends on the source up to there.
    read = span.end
    try:
        if style in ('"', "'", "") and start < len(source):
            read = max(read, start + len(value) + 2)
            copied = _verbatim(value, source, start, span.end, style)
            if copied is not None:
                return ScalarMap(
                    value,
                    ([0], [copied], [-1]) if value else ([], [], []),
                    Span(copied, copied + len(value)) if style else content,
                    True,
                    style,
                    reach=read + 1,
                )
        if style in ('"', "'") and start < len(source) and source[start] == style:
            out = _Out()
            end = _scan_quoted(source, start + 1, out, style)
            read = max(span.end, end + 2)
            content = Span(start + 1, max(start + 1, end))
            result = out
        elif style in ("|", ">") and start < len(source) and source[start] == style:
            body, chomp, explicit, detected, read = _block_header(source, start + 1)
            content = Span(min(body, span.end), max(min(body, span.end), span.end))
            for indent in _indents(explicit, detected):
                out = _Out()
                if style == "|":
                    got = _scan_literal_lf(source, body, indent, chomp, out)
                else:
                    got = _scan_block_lf(source, body, indent, True, chomp, out)
                if got is None:  # a line break other than LF: the general scanner
                    out = _Out()
                    got = _scan_block(source, body, indent, style == ">", chomp, out)
                read = max(read, got)
                if out.text() == value:
                    result = out
                    break
        elif style == "":
            out = _Out()
            _scan_plain(source, start, span.end, out)
            read = max(read, span.end + 1)
            result = out
    except IndexError:  # malformed region: use the fallback
        result = None
        read = len(source)
    read = max(read, span.end) + 1
    if result is not None and result.text() == value:
        return ScalarMap(value, (result.vs, result.ss, result.se), content, True, style, reach=read)
    starts, ends = _fallback(value, source, content)
    runs: tuple[list[int], list[int], list[int]] = (list(range(len(starts))), starts, ends)
    return ScalarMap(value, runs, content, False, style, reach=read)


# --------------------------------------------------------------------------- scanning

_NOT_VERBATIM = frozenset(_BREAKS + "\\'\t")


def _verbatim(value: str, source: str, start: int, end: int, style: str) -> int | None:
    """Where ``value`` starts when it is written character for character.

    A one-line scalar without escapes, doubled quotes or tabs maps each value
    character to one source character: the map is then two ``range`` objects,
    built in constant time and memory instead of per character (a 5 MB string
    would otherwise take seconds and hundreds of megabytes).
    """
    first = start + 1 if style else start
    if style and source[start : start + 1] != style:
        return None
    if source[first : first + len(value)] != value:
        return None
    if style and source[first + len(value) : first + len(value) + 1] != style:
        return None
    if not style and first + len(value) != min(end, len(source)):
        return None
    if not _NOT_VERBATIM.isdisjoint(value):
        return None
    return first


class _Out:
    """The value being rebuilt, and its map as runs (see ``ScalarMap``)."""

    __slots__ = ("chars", "n", "next", "se", "ss", "vs")

    def __init__(self) -> None:
        self.chars: list[str] = []
        self.vs: list[int] = []
        self.ss: list[int] = []
        self.se: list[int] = []
        self.n = 0  # value characters so far
        self.next = -1  # the source offset that would continue the last copied run

    def add(self, ch: str, start: int, end: int) -> None:
        """Add one value character made from ``source[start:end]``."""
        self.chars.append(ch)
        if end == start + 1:
            if start != self.next:
                self.vs.append(self.n)
                self.ss.append(start)
                self.se.append(-1)
            self.next = end
        else:
            self.vs.append(self.n)
            self.ss.append(start)
            self.se.append(end)
            self.next = -1
        self.n += 1

    def copy(self, src: str, start: int, end: int) -> None:
        """Add ``src[start:end]``, each character mapping to itself.

        One call per line of a block scalar (per word of a quoted one) instead of
        one per character.
        """
        if end <= start:
            return
        self.chars.append(src[start:end])
        if start != self.next:
            self.vs.append(self.n)
            self.ss.append(start)
            self.se.append(-1)
        self.next = end
        self.n += end - start

    def text(self) -> str:
        return "".join(self.chars)


def _skip_properties(src: str, pos: int, end: int) -> int:
    """Skip anchors, tags, whitespace and comments before a scalar's content."""
    n = len(src)
    while pos < end and pos < n:
        c = src[pos]
        if c in "&!":
            if src.startswith("!<", pos):
                close = src.find(">", pos)
                pos = close + 1 if close >= 0 else end
                continue
            while pos < n and src[pos] not in _BLANK and src[pos] not in _BREAKS:
                pos += 1
        elif c in _BLANK or c in _BREAKS:
            pos += 1
        elif c == "#":
            while pos < n and src[pos] not in _BREAKS:
                pos += 1
        else:
            break
    return pos


def _break_at(src: str, pos: int) -> tuple[str, int]:
    """The normalised line break at ``pos`` and the offset after it."""
    c = src[pos]
    if c == "\r":
        if pos + 1 < len(src) and src[pos + 1] == "\n":
            return "\n", pos + 2
        return "\n", pos + 1
    if c in "\n\x85":
        return "\n", pos + 1
    return c, pos + 1  # LS / PS are kept as they are


class _Folder:
    """Whitespace and line-break folding shared by plain and quoted scalars."""

    __slots__ = ("escaped", "leading", "leading_blanks", "out", "trailing", "whitespace")

    def __init__(self, out: _Out) -> None:
        self.out = out
        self.whitespace: list[tuple[str, int]] = []
        self.leading: tuple[str, int, int] | None = None
        self.escaped = False
        self.leading_blanks = False
        self.trailing: list[tuple[str, int, int]] = []

    def blank(self, ch: str, pos: int) -> None:
        if not self.leading_blanks:
            self.whitespace.append((ch, pos))

    def line_break(self, src: str, pos: int) -> int:
        ch, nxt = _break_at(src, pos)
        if not self.leading_blanks:
            self.whitespace.clear()
            self.leading = (ch, pos, nxt)
            self.escaped = False
            self.leading_blanks = True
        else:
            self.trailing.append((ch, pos, nxt))
        return nxt

    def escaped_break(self) -> None:
        self.flush()
        self.leading = None
        self.escaped = True
        self.leading_blanks = True

    def flush(self) -> None:
        out = self.out
        if self.leading_blanks:
            lead = self.leading
            if lead is not None and lead[0] == "\n":
                if not self.trailing:
                    out.add(" ", lead[1], lead[2])
            elif lead is not None:
                out.add(*lead)
            for brk in self.trailing:
                out.add(*brk)
            self.leading_blanks = False
            self.leading = None
            self.escaped = False
            self.trailing.clear()
        else:
            for ch, p in self.whitespace:
                out.add(ch, p, p + 1)
        self.whitespace.clear()


# A stretch copied as it is: no line break, no blank at either end (blanks before a
# line break are folded away), none of the quoting characters.
_PLAIN_RUN = re.compile(r"[^ \t\r\n\x85\u2028\u2029]+(?:[ \t]+[^ \t\r\n\x85\u2028\u2029]+)*")
_QUOTED_RUN = {
    '"': re.compile(r'[^ \t\r\n\x85\u2028\u2029"\\]+(?:[ \t]+[^ \t\r\n\x85\u2028\u2029"\\]+)*'),
    "'": re.compile(r"[^ \t\r\n\x85\u2028\u2029']+(?:[ \t]+[^ \t\r\n\x85\u2028\u2029']+)*"),
}


def _scan_plain(src: str, pos: int, end: int, out: _Out) -> None:
    fold = _Folder(out)
    end = min(end, len(src))
    run = _PLAIN_RUN.match
    while pos < end:
        c = src[pos]
        if c in _BLANK:
            fold.blank(c, pos)
            pos += 1
        elif c in _BREAKS:
            pos = fold.line_break(src, pos)
        else:
            fold.flush()
            m = run(src, pos, end)
            stop = m.end() if m is not None else pos + 1
            out.copy(src, pos, stop)
            pos = stop


def _scan_quoted(src: str, pos: int, out: _Out, quote: str) -> int:
    """Scan a quoted scalar's body from ``pos``; returns the closing quote's offset."""
    fold = _Folder(out)
    n = len(src)
    run = _QUOTED_RUN[quote].match
    while pos < n:
        c = src[pos]
        if c == quote:
            if quote == "'" and pos + 1 < n and src[pos + 1] == "'":
                fold.flush()
                out.add("'", pos, pos + 2)
                pos += 2
                continue
            fold.flush()
            return pos
        if c in _BLANK:
            fold.blank(c, pos)
            pos += 1
        elif c in _BREAKS:
            pos = fold.line_break(src, pos)
        elif c == "\\" and quote == '"':
            nxt = src[pos + 1]
            if nxt in _BREAKS:
                fold.escaped_break()
                _, pos = _break_at(src, pos + 1)
                continue
            fold.flush()
            if nxt in _ESCAPES:
                out.add(_ESCAPES[nxt], pos, pos + 2)
                pos += 2
            elif nxt in _HEX_ESCAPES:
                width = _HEX_ESCAPES[nxt]
                digits = src[pos + 2 : pos + 2 + width]
                if len(digits) != width or not all(d in _HEX for d in digits):
                    raise IndexError("bad escape")
                out.add(chr(int(digits, 16)), pos, pos + 2 + width)
                pos += 2 + width
            else:
                raise IndexError("unknown escape")
        else:
            fold.flush()
            m = run(src, pos)
            stop = m.end() if m is not None else pos + 1
            out.copy(src, pos, stop)
            pos = stop
    return pos


def _block_header(src: str, pos: int) -> tuple[int, int, int, int, int]:
    """Read ``[digit][+-]`` and the rest of the header line.

    Returns the offset of the first content line, the chomping (-1 strip, 0 clip,
    1 keep), the explicit indentation (0 without), the detected one and the offset
    after the last character read.
    """
    n = len(src)
    chomp = 0
    explicit = 0
    while pos < n and src[pos] in "+-0123456789":
        if src[pos] == "+":
            chomp = 1
        elif src[pos] == "-":
            chomp = -1
        else:
            explicit = int(src[pos])
        pos += 1
    while pos < n and src[pos] not in _BREAKS:
        pos += 1
    if pos < n:
        _, pos = _break_at(src, pos)
    detected, read = _detect_indent(src, pos)
    return pos, chomp, explicit, detected, read


def _indents(explicit: int, detected: int) -> Iterator[int]:
    """The indentations to try, the detected one first (the others only when the
    value does not match: a header such as ``|2`` or a tab in the indentation)."""
    if detected >= 1:
        yield detected
    for i in range(max(explicit, 1), _MAX_INDENT):
        if i != detected:
            yield i


def _detect_indent(src: str, pos: int) -> tuple[int, int]:
    """The indentation libyaml would detect: the widest leading blank line or the first
    content line's indentation; and the offset after the last character read."""
    n = len(src)
    widest = 0
    while pos < n:
        start = pos
        while pos < n and src[pos] == " ":
            pos += 1
        width = pos - start
        widest = max(widest, width)
        if pos < n and src[pos] in _BREAKS:
            _, pos = _break_at(src, pos)
            continue
        return max(widest, 1), pos + 1
    return max(widest, 1), pos + 1


def _scan_block(src: str, pos: int, indent: int, folded: bool, chomp: int, out: _Out) -> int:
    """Scan a block scalar's lines from ``pos`` (a line start) with ``indent``.

    Returns the offset after the last character read: the first character of the
    line that ends the scalar.
    """
    n = len(src)
    trailing: list[tuple[str, int, int]] = []
    leading: tuple[str, int, int] | None = None
    pad = " " * indent
    search = _BREAK_RE.search

    def breaks(p: int) -> tuple[int, int]:
        """Skip empty lines from the line start ``p``; returns the position after the
        indentation of the next non-empty line and that indentation's width."""
        while True:
            q = p
            if src.startswith(pad, p):
                q = p + indent
            else:
                while q < n and src[q] == " " and q - p < indent:
                    q += 1
            if q < n and src[q] in _BREAKS:
                ch, nxt = _break_at(src, q)
                trailing.append((ch, q, nxt))
                p = nxt
                continue
            return q, q - p

    pos, width = breaks(pos)
    leading_blank = False
    add: Callable[[str, int, int], None] = out.add
    while pos < n and width == indent:
        trailing_blank = src[pos] in _BLANK
        if (
            folded
            and leading is not None
            and leading[0] == "\n"
            and not leading_blank
            and (not trailing_blank)
        ):
            if not trailing:
                add(" ", leading[1], leading[2])
        elif leading is not None:
            add(*leading)
        leading = None
        for brk in trailing:
            add(*brk)
        trailing.clear()
        leading_blank = trailing_blank
        found = search(src, pos)
        line_end = found.start() if found is not None else n
        out.copy(src, pos, line_end)
        pos = line_end
        if pos >= n:
            break
        ch, nxt = _break_at(src, pos)
        leading = (ch, pos, nxt)
        pos, width = breaks(nxt)
    if chomp != -1 and leading is not None:
        add(*leading)
    if chomp == 1:
        for brk in trailing:
            add(*brk)
    return min(pos, n) + 1


@functools.lru_cache(maxsize=64)
def _block_end(indent: int) -> re.Pattern[str]:
    """The LF before the first line that ends a block scalar indented by ``indent``:
    a line that is neither indented that much nor empty (at most ``indent`` spaces)."""
    return re.compile(rf"\n(?! {{{indent}}}| {{0,{indent}}}\n)")


def _scan_literal_lf(src: str, pos: int, indent: int, chomp: int, out: _Out) -> int | None:
    """A literal block (``|``) whose only line break is LF, from the line start ``pos``.

    Every line gives its text after the indentation and its LF, in source order, so
    the block is read as a whole (a regular expression for where it ends, list
    operations for the runs) instead of line by line; chomping then decides how
    much of the LFs after the last non-empty line is kept. ``None`` when the block
    holds another line break (the caller then runs ``_scan_block``).
    """
    n = len(src)
    if pos == 0 or pos >= n or src[pos - 1] != "\n":
        return None  # an empty block at the end of the text, or a CR before it
    found = _block_end(indent).search(src, pos - 1)
    end = found.start() + 1 if found is not None else src.rfind("\n", pos - 1) + 1
    # The line after the block's LF-terminated lines: the end of the text, a last
    # indented line without LF, or a less indented line (which ends the scalar).
    q = end
    while q < n and src[q] == " " and q - end < indent:
        q += 1
    last = q < n and q - end == indent  # an indented last line without LF
    read = n if last else q
    if _other_break(src, pos, read + 1):
        return None
    region = src[pos:end]
    lengths = [len(line) for line in region.split("\n")]
    lengths.pop()  # after the last LF
    # each line's value: what follows its indentation (nothing for an empty line), LF
    sizes = [(w - indent if w > indent else 0) + 1 for w in lengths]
    pad = " " * indent
    # Removing the indentation after every LF gives the lines' values at C speed,
    # unless an empty line has fewer spaces than the indentation (the total then
    # differs): those are rare, joined line by line.
    text = ("\n" + region).replace("\n" + pad, "\n")[1:]
    if len(text) != sum(sizes):
        text = "".join([line[indent:] + "\n" for line in region.split("\n")[:-1]])
    keep = len(lengths)
    if not last and chomp != 1:
        # drop the empty lines after the last non-empty one (all lines when none)
        while keep and lengths[keep - 1] <= indent:
            keep -= 1
        del lengths[keep:], sizes[keep:]
        text = text[: sum(sizes)]
    line_starts = itertools.accumulate(map(_PLUS_ONE, lengths), initial=pos)
    # (one line start more than lines: the start after the last one)
    starts = [
        at + (w if w < indent else indent) for at, w in zip(line_starts, lengths, strict=False)
    ]
    if last:
        starts.append(q)
        sizes.append(n - q)
        text += src[q:n]
    elif keep and chomp == -1:
        sizes[-1] -= 1  # without the LF of the last non-empty line
        text = text[:-1]
    out.vs.extend(itertools.accumulate(sizes[:-1], initial=0) if sizes else ())
    out.ss.extend(starts)
    out.se.extend([-1] * len(starts))
    out.chars.append(text)
    out.n = len(text)
    return read + 1


_PLUS_ONE = (1).__add__


def _other_break(src: str, start: int, end: int) -> bool:
    """Whether ``src[start:end]`` holds a line break other than LF (``str.find`` per
    character: much faster than a character class, and free for a character wider
    than any of the text's)."""
    return (
        src.find("\r", start, end) >= 0
        or src.find("\x85", start, end) >= 0
        or src.find("\u2028", start, end) >= 0
        or src.find("\u2029", start, end) >= 0
    )


def _scan_block_lf(
    src: str, pos: int, indent: int, folded: bool, chomp: int, out: _Out
) -> int | None:
    """``_scan_block`` for a block whose only line break is LF (nearly all of them).

    The same rules, a line at a time with ``str.find`` instead of a character at a
    time, every character copied one for one (so the runs are built here directly);
    ``None`` when the block holds another line break (the caller then runs
    ``_scan_block``).
    """
    n = len(src)
    pad = " " * indent
    chars, vs, ss, se = out.chars, out.vs, out.ss, out.se
    nv, nxt = out.n, out.next
    start = pos
    trailing: list[int] = []  # LFs of the empty lines since the last content line
    leading = -1  # the LF that ended the last content line
    leading_blank = False
    p = pos  # a line start
    while True:
        if src.startswith(pad, p):
            q = p + indent
        else:
            q = p
            while q < n and src[q] == " " and q - p < indent:
                q += 1
        if q >= n:
            break
        c = src[q]
        if c == "\n":
            trailing.append(q)
            p = q + 1
            continue
        if q - p != indent:
            break
        line_end = src.find("\n", q)
        if line_end < 0:
            line_end = n
        trailing_blank = c in _BLANK
        if leading >= 0:
            if folded and not leading_blank and not trailing_blank:
                # the LF folds into a space, or disappears before empty lines
                emit = not trailing
                ch = " "
            else:
                emit = True
                ch = "\n"
            if emit:
                if leading != nxt:
                    vs.append(nv)
                    ss.append(leading)
                    se.append(-1)
                chars.append(ch)
                nxt = leading + 1
                nv += 1
        if trailing:
            nv, nxt = _line_feeds(trailing, nv, nxt, out)
            trailing.clear()
        leading_blank = trailing_blank
        if q != nxt:
            vs.append(nv)
            ss.append(q)
            se.append(-1)
        chars.append(src[q:line_end])
        nv += line_end - q
        nxt = line_end
        if line_end >= n:
            leading = -1
            q = n
            break
        leading = line_end
        p = line_end + 1
    if _other_break(src, start, q + 1):
        return None
    tail = [leading] if chomp != -1 and leading >= 0 else []
    if chomp == 1:
        tail.extend(trailing)
    out.n, out.next = _line_feeds(tail, nv, nxt, out)
    return min(q, n) + 1


def _line_feeds(breaks: list[int], nv: int, nxt: int, out: _Out) -> tuple[int, int]:
    """Copy the LFs at source offsets ``breaks`` into ``out`` one for one, as value
    characters ``nv``, ``nv + 1``, …; ``nxt`` is the source offset that would extend
    the current run. Returns the new ``(nv, nxt)``."""
    for brk in breaks:
        if brk != nxt:
            out.vs.append(nv)
            out.ss.append(brk)
            out.se.append(-1)
        out.chars.append("\n")
        nxt = brk + 1
        nv += 1
    return nv, nxt


def _fallback(value: str, src: str, content: Span) -> tuple[list[int], list[int]]:
    """Match value characters to the next equal source character, in order."""
    starts: list[int] = []
    ends: list[int] = []
    pos = content.start
    limit = min(max(content.end, content.start), len(src))
    for ch in value:
        found = src.find(ch, pos, limit)
        if found < 0 and ch == "\n":
            found = _find_break(src, pos, limit)
        if found < 0:
            starts.append(pos)
            ends.append(pos)
            continue
        starts.append(found)
        pos = found + 1
        ends.append(pos)
    return starts, ends


def _find_break(src: str, pos: int, limit: int) -> int:
    best = -1
    for b in _BREAKS:
        i = src.find(b, pos, limit)
        if i >= 0 and (best < 0 or i < best):
            best = i
    return best
