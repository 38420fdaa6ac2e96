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
