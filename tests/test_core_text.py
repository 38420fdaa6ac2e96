from __future__ import annotations

import pytest

from pack_lsp.core.text import LineIndex, Position, Span


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
