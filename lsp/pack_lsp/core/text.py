"""Source text, offsets and spans.

Everything in the core counts positions in Unicode code points: an *offset* is an
index into the document's ``str``; a ``(line, character)`` pair is 0-based with the
character counted in code points. Line breaks are ``\\n``, ``\\r\\n`` and ``\\r`` —
the same three the Language Server Protocol recognises — so a line number in the
core always matches the line number an editor shows.

Conversion to LSP positions in UTF-16 or UTF-8 code units happens in the server,
never here.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True, slots=True, order=True)
class Position:
    """A 0-based line and a 0-based character offset (code points) in that line."""

    line: int
    character: int


@dataclass(frozen=True, slots=True, order=True)
class Span:
    """A half-open range ``[start, end)`` of code-point offsets into a document."""

    start: int
    end: int

    def __post_init__(self) -> None:
        if self.end < self.start:
            raise ValueError(f"span end {self.end} before start {self.start}")

    def contains(self, offset: int) -> bool:
        """True when ``offset`` lies inside the span or on its end boundary."""
        return self.start <= offset <= self.end

    def covers(self, other: Span) -> bool:
        return self.start <= other.start and other.end <= self.end

    def shifted(self, delta: int) -> Span:
        return Span(self.start + delta, self.end + delta)

    @property
    def length(self) -> int:
        return self.end - self.start


@dataclass(frozen=True, slots=True)
class Range:
    """A span resolved to line/character positions."""

    start: Position
    end: Position


class LineIndex:
    """Maps code-point offsets to ``Position`` and back for one text.

    Built once per document version in O(n); each lookup is O(log lines).
    """

    __slots__ = ("_starts", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        starts = [0]
        if "\r" not in text:
            find = text.find
            i = find("\n")
            while i >= 0:
                starts.append(i + 1)
                i = find("\n", i + 1)
        else:
            starts.extend(m.end() for m in _BREAK.finditer(text))
        self._starts = starts

    @property
    def text(self) -> str:
        return self._text

    @property
    def line_count(self) -> int:
        return len(self._starts)

    def line_start(self, line: int) -> int:
        if line < 0:
            return 0
        if line >= len(self._starts):
            return len(self._text)
        return self._starts[line]

    def line_end(self, line: int) -> int:
        """Offset of the end of ``line``'s content (before its line break)."""
        if line + 1 < len(self._starts):
            end = self._starts[line + 1]
            text = self._text
            if end >= 2 and text[end - 2 : end] == "\r\n":
                return end - 2
            return end - 1
        return len(self._text)

    def line_text(self, line: int) -> str:
        return self._text[self.line_start(line) : self.line_end(line)]

    def position(self, offset: int) -> Position:
        offset = max(0, min(offset, len(self._text)))
        line = bisect.bisect_right(self._starts, offset) - 1
        return Position(line, offset - self._starts[line])

    def range(self, span: Span) -> Range:
        return Range(self.position(span.start), self.position(span.end))

    def offset(self, position: Position) -> int:
        """Offset of a position; characters past the line end clamp to it."""
        if position.line >= len(self._starts):
            return len(self._text)
        if position.line < 0:
            return 0
        start = self._starts[position.line]
        return min(start + max(position.character, 0), self.line_end(position.line))
