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
import re
from collections.abc import Callable, Sequence

from pack_lsp.core.text import Span
from pack_lsp.core.yamltree import ScalarNode

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
    """Value index → document offsets for one scalar (see the module docstring)."""

    __slots__ = ("_starts", "content", "ends", "exact", "starts", "style", "value")

    def __init__(
        self,
        value: str,
        starts: Sequence[int],
        ends: Sequence[int],
        content: Span,
        exact: bool,
        style: str = "",
    ) -> None:
        self.value = value
        self.style = style
        self.starts = starts  # document offset where value[i] starts
        self.ends = ends  # document offset where value[i] ends
        self.content = content  # the region between quotes / after the block header
        self.exact = exact
        self._starts = starts

    def __len__(self) -> int:
        return len(self.value)

    def offset(self, index: int) -> int:
        """Document offset of value character ``index`` (clamped; len → content end)."""
        if not self.starts:
            return self.content.start
        if index <= 0:
            return self.starts[0]
        if index >= len(self.starts):
            return self.ends[-1]
        return self.starts[index]

    def end_offset(self, index: int) -> int:
        """Document offset just after value character ``index - 1``."""
        if not self.ends or index <= 0:
            return self.offset(0)
        return self.ends[min(index, len(self.ends)) - 1]

    def span_of(self, start: int, end: int) -> Span:
        """The document span of ``value[start:end]`` (an empty slice → empty span)."""
        start = max(0, min(start, len(self.value)))
        end = max(start, min(end, len(self.value)))
        first = self.offset(start)
        if end == start:
            return Span(first, first)
        return Span(first, max(first, self.end_offset(end)))

    def index_at(self, offset: int) -> int:
        """The value index of the character at (or first after) a document offset.

        An offset inside an escape or a folded line break gives that character's
        index; an offset past the content gives ``len(value)``.
        """
        if not self.starts:
            return 0
        i = bisect.bisect_right(self._starts, offset) - 1
        if i < 0:
            return 0
        if offset < self.ends[i] or offset == self._starts[i]:
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
    try:
        if style in ('"', "'", "") and start < len(source):
            copied = _verbatim(value, source, start, span.end, style)
            if copied is not None:
                return ScalarMap(
                    value,
                    range(copied, copied + len(value)),
                    range(copied + 1, copied + len(value) + 1),
                    Span(copied, copied + len(value)) if style else content,
                    True,
                    style,
                )
        if style in ('"', "'") and start < len(source) and source[start] == style:
            out = _Out()
            end = _scan_quoted(source, start + 1, out, style)
            content = Span(start + 1, max(start + 1, end))
            result = out
        elif style in ("|", ">") and start < len(source) and source[start] == style:
            body, chomp, indents = _block_header(source, start + 1)
            content = Span(min(body, span.end), max(min(body, span.end), span.end))
            for indent in indents:
                out = _Out()
                _scan_block(source, body, indent, style == ">", chomp, out)
                if out.text() == value:
                    result = out
                    break
        elif style == "":
            out = _Out()
            _scan_plain(source, start, span.end, out)
            result = out
    except IndexError:  # malformed region: use the fallback
        result = None
    if result is not None and result.text() == value:
        return ScalarMap(value, result.starts, result.ends, content, True, style)
    starts, ends = _fallback(value, source, content)
    return ScalarMap(value, starts, ends, content, False, style)


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
    __slots__ = ("chars", "ends", "starts")

    def __init__(self) -> None:
        self.chars: list[str] = []
        self.starts: list[int] = []
        self.ends: list[int] = []

    def add(self, ch: str, start: int, end: int) -> None:
        self.chars.append(ch)
        self.starts.append(start)
        self.ends.append(end)

    def copy(self, src: str, start: int, end: int) -> None:
        """Add ``src[start:end]``, each character mapping to itself.

        One call per line of a block scalar instead of one per character: the
        per-character path was most of the time spent parsing large templates.
        """
        self.chars.append(src[start:end])
        self.starts.extend(range(start, end))
        self.ends.extend(range(start + 1, end + 1))

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


def _scan_plain(src: str, pos: int, end: int, out: _Out) -> None:
    fold = _Folder(out)
    end = min(end, len(src))
    while pos < end:
        c = src[pos]
        if c in _BLANK:
            fold.blank(c, pos)
            pos += 1
        elif c in _BREAKS:
            pos = fold.line_break(src, pos)
        else:
            fold.flush()
            out.add(c, pos, pos + 1)
            pos += 1


def _scan_quoted(src: str, pos: int, out: _Out, quote: str) -> int:
    """Scan a quoted scalar's body from ``pos``; returns the closing quote's offset."""
    fold = _Folder(out)
    n = len(src)
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
            out.add(c, pos, pos + 1)
            pos += 1
    return pos


def _block_header(src: str, pos: int) -> tuple[int, int, list[int]]:
    """Read ``[digit][+-]`` and the rest of the header line.

    Returns the offset of the first content line, the chomping (-1 strip, 0 clip,
    1 keep) and the indentations to try, the detected one first.
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
    detected = _detect_indent(src, pos)
    first = [detected] if detected >= 1 else []
    rest = [i for i in range(max(explicit, 1), _MAX_INDENT) if i != detected]
    return pos, chomp, first + rest


def _detect_indent(src: str, pos: int) -> int:
    """The indentation libyaml would detect: the widest leading blank line or the first
    content line's indentation."""
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
        return max(widest, 1)
    return max(widest, 1)


def _scan_block(src: str, pos: int, indent: int, folded: bool, chomp: int, out: _Out) -> None:
    n = len(src)
    trailing: list[tuple[str, int, int]] = []
    leading: tuple[str, int, int] | None = None

    def line_start(p: int) -> int:
        ls = p
        while ls > 0 and src[ls - 1] not in _BREAKS:
            ls -= 1
        return ls

    def breaks(p: int) -> int:
        while True:
            ls = line_start(p)
            while p < n and src[p] == " " and p - ls < indent:
                p += 1
            if p < n and src[p] in _BREAKS:
                ch, nxt = _break_at(src, p)
                trailing.append((ch, p, nxt))
                p = nxt
                continue
            return p

    pos = breaks(pos)
    leading_blank = False
    add: Callable[[str, int, int], None] = out.add
    while pos < n and pos - line_start(pos) == indent:
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
        leading_blank = src[pos] in _BLANK
        found = _BREAK_RE.search(src, pos)
        line_end = found.start() if found is not None else n
        out.copy(src, pos, line_end)
        pos = line_end
        if pos >= n:
            break
        ch, nxt = _break_at(src, pos)
        leading = (ch, pos, nxt)
        pos = breaks(nxt)
    if chomp != -1 and leading is not None:
        add(*leading)
    if chomp == 1:
        for brk in trailing:
            add(*brk)


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
