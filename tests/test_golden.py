"""Every golden case produces exactly its expected file (format: golden_support)."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from golden_support import (
    UPDATE,
    Row,
    case_id,
    cases,
    codes_in,
    fix_snippet,
    render_case,
    run_case,
    snippet,
)
from pack_lsp.core.base.text import LineIndex, Span
from pack_lsp.core.ide.rename import Edit


@pytest.mark.parametrize("path", cases(), ids=case_id)
def test_golden_case(path: Path) -> None:
    expected_file = path.with_suffix(".expected")
    actual = render_case(path, run_case(path))
    if UPDATE:
        expected_file.write_text(actual, encoding="utf-8", newline="\n")
    if not expected_file.is_file():
        pytest.fail(f"missing {expected_file.name}; regenerate (see golden_support)")
    expected = expected_file.read_text(encoding="utf-8")
    if actual != expected:
        diff = difflib.unified_diff(
            expected.splitlines(keepends=True),
            actual.splitlines(keepends=True),
            fromfile=f"{case_id(path)} expected",
            tofile=f"{case_id(path)} actual",
        )
        pytest.fail(
            "golden file differs (regenerate with PACK_LSP_UPDATE_GOLDEN=1 if intended):\n"
            + "".join(diff),
            pytrace=False,
        )


def test_every_code_has_a_golden_case() -> None:
    from pack_lsp.core.checks.registry import REGISTRY

    covered: set[str] = set()
    for path in cases():
        expected = path.with_suffix(".expected")
        if expected.is_file():
            covered |= codes_in(expected.read_text(encoding="utf-8"))
    # PP000 (internal error) cannot be triggered on purpose; PP199 only fires for
    # schema keywords the PromptPack schema does not use (see test_schema_diagnostics).
    missing = sorted(set(REGISTRY) - covered - {"PP000", "PP199"})
    assert not missing, f"codes without a golden case: {missing}"


# ------------------------------------------------------------------ the format itself


def shown(rows: list[Row]) -> str:
    return "\n".join(line for row in rows for line in row.render(3)) + "\n"


def test_markers_count_code_points_and_keep_tabs_and_wide_characters_aligned() -> None:
    text = "key:\t\U0001f600 é value\n"
    lines = LineIndex(text)
    start = text.index("value")
    assert shown(snippet(lines, [Span(start, start + 5)], "^")) == (
        "  1 | key:\t\U0001f600 é value\n    |     \t\u3000   ^^^^^\n"
    )
    # A flagged wide character gets one marker: one code point.
    emoji = text.index("\U0001f600")
    assert shown(snippet(lines, [Span(emoji, emoji + 1)], "^")).endswith("|     \t^\n")


def test_zero_width_and_line_break_ranges_get_one_marker_at_their_start() -> None:
    lines = LineIndex("ab\ncd\n")
    assert shown(snippet(lines, [Span(1, 1)], "^")) == "  1 | ab\n    |  ^\n"
    # Only the line break: the marker sits just after the line's last character.
    assert shown(snippet(lines, [Span(2, 3)], "^")) == "  1 | ab\n    |   ^\n"
    # Empty file.
    assert shown(snippet(LineIndex(""), [Span(0, 0)], "^")) == "  1 |\n    | ^\n"


def test_a_multi_line_range_marks_each_line_and_long_ones_are_elided() -> None:
    text = "".join(f"line {n}\n" for n in range(1, 13))
    lines = LineIndex(text)
    # From the middle of line 2 to the line break ending line 4: line 5 is not shown.
    assert shown(snippet(lines, [Span(text.index("e 2"), text.index("line 5"))], "^")) == (
        "  2 | line 2\n    |    ^^^\n  3 | line 3\n    | ^^^^^^\n  4 | line 4\n    | ^^^^^^\n"
    )
    rows = snippet(lines, [Span(text.index("line 2"), text.index(" 12"))], "^")
    assert [row.number for row in rows] == [2, 3, 4, 0, 10, 11, 12]
    assert shown(rows).splitlines()[6:] == [
        "...",
        " 10 | line 10",
        "    | ^^^^^^^",
        " 11 | line 11",
        "    | ^^^^^^^",
        " 12 | line 12",
        "    | ^^^^",
    ]


def test_control_characters_are_shown_as_visible_symbols() -> None:
    text = "a\x00b\x7fc: x\n"
    x = text.index("x")
    assert shown(snippet(LineIndex(text), [Span(x, x + 1)], "^")) == (
        "  1 | a\u2400b\u2421c: x\n    |        ^\n"
    )


def test_fix_snippet_shows_fixed_lines_with_inserted_and_deleted_text_marked() -> None:
    text = "tools: [lookup_ordr]\n" + "".join(f"# {n}\n" for n in range(5)) + "end: true  # no\n"
    ordr = text.index("ordr")
    comment = text.index("  # no")
    edits = [
        Edit(Span(comment, comment + 6), ""),
        Edit(Span(ordr, ordr + 4), "order"),
    ]
    assert shown(fix_snippet(text, edits)) == (
        "  1 | tools: [lookup_order]\n"
        "    |                +++++\n"
        "...\n"
        "  7 | end: true\n"
        "    |          -\n"
    )


def test_trailing_whitespace_of_a_source_line_is_visible() -> None:
    text = "key: value \t\n"
    end = text.index("\n")
    assert shown(snippet(LineIndex(text), [Span(end, end)], "^")) == (
        "  1 | key: value\u00b7\u2192\n    |             ^\n"
    )
