from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pack_lsp.core.base.text import LineIndex, Position, Span


def test_line_breaks_lf_crlf_cr() -> None:
    idx = LineIndex("a\nbc\r\nd\re")
    assert idx.line_count == 4
    assert [idx.line_text(i) for i in range(4)] == ["a", "bc", "d", "e"]
    assert idx.position(3) == Position(1, 1)
    assert idx.position(6) == Position(2, 0)
    assert idx.position(8) == Position(3, 0)


def test_code_points_not_utf16_units() -> None:
    idx = LineIndex("x: 😀é\ny")
    assert idx.position(5) == Position(0, 5)  # after 'é'; the emoji counts as one
    assert idx.offset(Position(0, 99)) == 5  # clamped to the line end
    assert idx.offset(Position(1, 0)) == 6


def test_unicode_line_separators_are_not_line_breaks() -> None:
    # LSP only breaks lines at \n, \r\n and \r; neither must the core.
    idx = LineIndex("a\u2028b\x85c\nd")
    assert idx.line_count == 2


def test_span_validation() -> None:
    with pytest.raises(ValueError):
        Span(3, 2)
    assert Span(1, 4).covers(Span(2, 4))
    assert Span(1, 4).contains(4)


def test_span_is_a_value() -> None:
    import copy
    import pickle
    from dataclasses import FrozenInstanceError

    span = Span(3, 7)
    assert span == Span(3, 7) and span != Span(3, 8) and span != (3, 7)
    assert hash(span) == hash(Span(3, 7))
    assert {span: 1}[Span(3, 7)] == 1
    assert sorted([Span(4, 5), Span(3, 9), Span(3, 7)]) == [Span(3, 7), Span(3, 9), Span(4, 5)]
    assert Span(1, 2) < Span(1, 3) <= Span(1, 3) and Span(2, 2) > Span(1, 9) >= Span(1, 9)
    assert repr(span) == "Span(start=3, end=7)"
    assert span.length == 4 and span.shifted(2) == Span(5, 9)
    # Results of worker processes travel through pickle.
    assert pickle.loads(pickle.dumps(span)) == span
    assert copy.deepcopy(span) == span and copy.copy(span) == span
    with pytest.raises(FrozenInstanceError):
        span.start = 0  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        del span.end
    assert (span.start, span.end) == (3, 7)
    match span:
        case Span(start, end):
            assert (start, end) == (3, 7)


def test_line_index_beyond_the_last_line() -> None:
    idx = LineIndex("ab\ncd\n")
    assert idx.line_count == 3
    assert idx.line_start(2) == 6 and idx.line_start(9) == 6 and idx.line_start(-1) == 0
    assert idx.position(99) == Position(2, 0)
    assert idx.offset(Position(1, 1)) == 4


def _scanned_starts(text: str) -> list[int]:
    """Line starts by the definition: offset 0, and after every ``\\r\\n``, lone
    ``\\r`` and lone ``\\n`` (one character at a time, no shortcut)."""
    starts = [0]
    i = 0
    while i < len(text):
        if text[i] == "\r" and text[i + 1 : i + 2] == "\n":
            i += 1
        if text[i] in "\r\n":
            starts.append(i + 1)
        i += 1
    return starts


def _starts(index: LineIndex) -> list[int]:
    return [index.line_start(line) for line in range(index.line_count)]


# Line breaks of the three kinds, characters str.splitlines would also break at
# (which must not count), and plain text.
_TEXT = st.text(alphabet="ab \r\n\x85\u2028\x0c\x0bé", max_size=14)


@given(_TEXT)
@settings(max_examples=400, deadline=None)
def test_line_index_matches_the_definition(text: str) -> None:
    assert _starts(LineIndex(text)) == _scanned_starts(text)


@given(_TEXT, _TEXT, st.data())
@settings(max_examples=600, deadline=None)
def test_spliced_line_index_equals_a_new_one(old: str, inserted: str, data: st.DataObject) -> None:
    """An index spliced from the previous text's is the index of the new text,
    whatever the edit does to line breaks: adds or removes them, joins a ``\\r``
    and a ``\\n`` into one break or splits a ``\\r\\n`` in two."""
    start = data.draw(st.integers(0, len(old)))
    end = data.draw(st.integers(start, len(old)))
    new = old[:start] + inserted + old[end:]
    before = LineIndex(old)
    kept = _starts(before)
    spliced = before.spliced(new, start, end, start + len(inserted))
    assert _starts(spliced) == _scanned_starts(new)
    assert spliced.text is new
    assert _starts(before) == kept and before.text is old  # not modified


@pytest.mark.parametrize(
    ("old", "start", "end", "inserted"),
    [
        ("a\r\nb", 2, 2, "x"),  # splits a CRLF into CR and LF
        ("a\rx\nb", 2, 3, ""),  # joins CR and LF into one break
        ("a\r", 2, 2, "\n"),  # completes a CRLF at the end
        ("a\r\n", 1, 2, ""),  # leaves a lone LF
        ("\n\n\n", 0, 3, "\r\r"),
        ("abc", 3, 3, "\r\n\r\n"),
        ("", 0, 0, "\n"),
    ],
)
def test_spliced_line_index_at_break_boundaries(
    old: str, start: int, end: int, inserted: str
) -> None:
    new = old[:start] + inserted + old[end:]
    spliced = LineIndex(old).spliced(new, start, end, start + len(inserted))
    assert _starts(spliced) == _scanned_starts(new) == _starts(LineIndex(new))


def test_spliced_line_index_refuses_what_is_not_one_replacement() -> None:
    index = LineIndex("ab\ncd")
    with pytest.raises(ValueError):
        index.spliced("ab\ncdx", 2, 3, 3)  # the lengths do not add up
    with pytest.raises(ValueError):
        index.spliced("ab\ncd", 4, 3, 3)
