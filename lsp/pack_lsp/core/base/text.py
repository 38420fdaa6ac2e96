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
from array import array
from dataclasses import FrozenInstanceError, dataclass
from itertools import accumulate
from typing import TYPE_CHECKING

_BREAK = re.compile(r"\r\n|\r|\n")
_BREAK_CHAR = re.compile(r"[\r\n]")


@dataclass(frozen=True, slots=True, order=True)
class Position:
    """A 0-based line and a 0-based character offset (code points) in that line."""

    line: int
    character: int


class Span:
    """A half-open range ``[start, end)`` of code-point offsets into a document.

    Immutable, compared and hashed as the pair ``(start, end)``, ordered by it.
    A plain slotted class rather than a frozen dataclass: the tree of a large
    pack holds a span per node, and a frozen dataclass sets its fields through
    ``object.__setattr__``, which made building spans a tenth of the parse time.
    Here the slots are written once through their descriptors, and assignment
    is refused as for a frozen dataclass.
    """

    __slots__ = ("end", "start")
    __match_args__ = ("start", "end")

    if TYPE_CHECKING:  # read-only for the type checker too, as a frozen dataclass is

        @property
        def start(self) -> int: ...
        @property
        def end(self) -> int: ...

    def __init__(self, start: int, end: int) -> None:
        if end < start:
            raise ValueError(f"span end {end} before start {start}")
        _set_start(self, start)
        _set_end(self, end)

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __reduce__(self) -> tuple[type[Span], tuple[int, int]]:
        # Spans travel through pickle (results of worker processes); the default
        # would restore the slots by assignment, which is refused.
        return (Span, (self.start, self.end))

    def __repr__(self) -> str:
        return f"Span(start={self.start!r}, end={self.end!r})"

    def __eq__(self, other: object) -> bool:
        if type(other) is Span:
            return self.start == other.start and self.end == other.end
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.start, self.end))

    def __lt__(self, other: Span) -> bool:
        if type(other) is Span:
            return (self.start, self.end) < (other.start, other.end)
        return NotImplemented

    def __le__(self, other: Span) -> bool:
        if type(other) is Span:
            return (self.start, self.end) <= (other.start, other.end)
        return NotImplemented

    def __gt__(self, other: Span) -> bool:
        if type(other) is Span:
            return (self.start, self.end) > (other.start, other.end)
        return NotImplemented

    def __ge__(self, other: Span) -> bool:
        if type(other) is Span:
            return (self.start, self.end) >= (other.start, other.end)
        return NotImplemented

    def contains(self, offset: int) -> bool:
        """True when ``offset`` lies inside the span or on its end boundary."""
        return self.start <= offset <= self.end

    def covers(self, other: Span) -> bool:
        return self.start <= other.start and other.end <= self.end

    def shifted(self, delta: int) -> Span:
        # Moving a valid span keeps it valid: built without ``__init__``'s check
        # (incremental analysis shifts every span after an edit).
        span = _new(Span)
        _set_start(span, self.start + delta)
        _set_end(span, self.end + delta)
        return span

    @property
    def length(self) -> int:
        return self.end - self.start


_new = object.__new__
_set_start = vars(Span)["start"].__set__
_set_end = vars(Span)["end"].__set__

#: Writers of a ``Span``'s two slots, for code that builds many spans known to be
#: valid (such as copies of a tree moved by an edit) without ``Span.__init__``:
#: ``span = object.__new__(Span); SET_START(span, start); SET_END(span, end)``.
#: Only for ``start <= end``; the span must not be used before both are set.
SET_START = _set_start
SET_END = _set_end


@dataclass(frozen=True, slots=True)
class Range:
    """A span resolved to line/character positions."""

    start: Position
    end: Position


class LineIndex:
    """Maps code-point offsets to ``Position`` and back for one text.

    Built once per document version in O(n); each lookup is O(log lines). The
    line starts are kept in an ``array`` of machine integers: a list would hold a
    36-byte integer object per line (2.5 MB for a 70,000-line pack instead of 0.6).
    """

    __slots__ = ("_starts", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._starts = _line_starts(text)

    @classmethod
    def _of(cls, text: str, starts: array[int]) -> LineIndex:
        index = cls.__new__(cls)
        index._text = text
        index._starts = starts
        return index

    def spliced(self, text: str, start: int, old_end: int, new_end: int) -> LineIndex:
        """The index of ``text``: this index's text with ``[start, old_end)`` replaced
        by ``text[start:new_end]`` (the rest is the same), equal to ``LineIndex(text)``.

        Whether offset ``s`` starts a line depends only on the characters at
        ``s - 1`` and ``s`` (after ``\\n``; after ``\\r`` unless ``\\n`` follows), so
        the starts before ``start`` are kept, those after the replaced text are moved
        by the change in length, and only the replaced text is scanned: an edit in a
        large document does not read it all again. This index is not modified.
        """
        old = self._starts
        delta = len(text) - len(self._text)
        if not 0 <= start <= old_end <= len(self._text) or new_end - old_end != delta:
            raise ValueError("not the replacement of one range")
        keep = bisect.bisect_left(old, start)  # starts before ``start``
        starts = old[:keep]
        if keep == 0:
            starts.append(0)
        # The starts from ``start`` to ``new_end``: after a break character at
        # ``start - 1`` up to ``new_end - 1``.
        for match in _BREAK_CHAR.finditer(text, max(start - 1, 0), new_end):
            i = match.start()
            if text[i] == "\n" or text[i + 1 : i + 2] != "\n":
                starts.append(i + 1)
        tail = bisect.bisect_right(old, old_end)  # starts after the replaced text
        if delta:
            starts.fromlist([s + delta for s in old[tail:]])
        else:
            starts.extend(old[tail:])
        return LineIndex._of(text, starts)

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


def _line_starts(text: str) -> array[int]:
    """Offsets where the lines of ``text`` start.

    ``str.splitlines`` breaks lines at ``\\n``, ``\\r\\n`` and ``\\r`` as we do, and
    at a few other characters (form feed, vertical tab, file/group/record
    separators, NEL, line and paragraph separators); when none of those is in the
    text, the line starts are the running sums of its lines' lengths, with no
    Python-level step per line (a loop of ``str.find`` took about 20 ms on a
    70,000-line text). Otherwise the breaks are found with a regular expression.
    """
    starts = array("q", [0])
    if not any(c in text for c in _OTHER_BREAKS):  # ``in``: a fast search per character
        ends = list(accumulate(map(len, text.splitlines(True))))
        if ends and text[-1] not in "\r\n":
            ends.pop()  # the end of a last line without a break starts no line
        starts.fromlist(ends)
    else:
        starts.fromlist([m.end() for m in _BREAK.finditer(text)])
    return starts


#: The characters other than ``\\n`` and ``\\r`` that ``str.splitlines`` breaks at.
_OTHER_BREAKS = "\v\f\x1c\x1d\x1e\x85\u2028\u2029"
