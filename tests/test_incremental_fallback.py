"""Why ``reanalyze`` analyses an edit in full: the reason is logged at debug level."""

from __future__ import annotations

import logging

import pytest

from pack_lsp.core.checks.analysis import analyze
from pack_lsp.core.checks.incremental import INCREMENTAL, Fallback, reanalyze

LOGGER = "pack_lsp.core.checks.incremental"
BASE = "id: a\nprompts:\n  p:\n    x: 1\n"


def _reasons(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == LOGGER]


@pytest.mark.parametrize(
    ("old", "new", "reason"),
    [
        # A prompt gains a sibling at its key's column: the block is not the prompt alone.
        (BASE, BASE + "  q: 1\n", Fallback.BLOCK),
        (BASE, BASE + "    x: 2\n", Fallback.BLOCK),  # a duplicate key in the block
        (BASE, BASE.replace("x: 1", "x: [1"), Fallback.BLOCK),  # a syntax error in it
        (BASE, BASE.replace("x: 1", "x: !!str 1"), Fallback.BLOCK),  # a tag in it
        (BASE, "# note\n" + BASE, Fallback.NOT_IN_ONE_BLOCK),  # before the first key
        (BASE, BASE.replace("a\nprompts:\n  p", "b\nprompts:\n  q"), Fallback.NOT_IN_ONE_BLOCK),
        (BASE.replace("x: 1", "x: [1"), BASE, Fallback.PREVIOUS_VERSION),
        (
            "id: a\nb: &x 1\nprompts:\n  p:\n    x: 1\n",
            "id: a\nb: &x 1\nprompts:\n  p:\n    x: 2\n",
            Fallback.PREVIOUS_TREE,
        ),
    ],
)
def test_the_reason_for_a_full_analysis_is_logged(
    caplog: pytest.LogCaptureFixture, old: str, new: str, reason: Fallback
) -> None:
    previous = analyze(old)
    with caplog.at_level(logging.DEBUG, logger=LOGGER):
        got = reanalyze(previous, new)
    assert INCREMENTAL not in got.timings
    assert _reasons(caplog) == [f"full analysis: {reason.value}"]
    assert got.diagnostics == analyze(new).diagnostics


def test_another_file_is_analysed_in_full(caplog: pytest.LogCaptureFixture) -> None:
    previous = analyze(BASE, path="a.promptpack.yaml")
    new = BASE.replace("x: 1", "x: 2")
    with caplog.at_level(logging.DEBUG, logger=LOGGER):
        got = reanalyze(previous, new, path="b.promptpack.yaml")
    assert INCREMENTAL not in got.timings
    assert _reasons(caplog) == [f"full analysis: {Fallback.INELIGIBLE.value}"]


def test_the_fast_path_logs_nothing(caplog: pytest.LogCaptureFixture) -> None:
    previous = analyze(BASE)
    with caplog.at_level(logging.DEBUG, logger=LOGGER):
        got = reanalyze(previous, BASE.replace("x: 1", "x: 2"))
    assert INCREMENTAL in got.timings
    assert _reasons(caplog) == []
