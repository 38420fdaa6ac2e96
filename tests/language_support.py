"""Helpers for the language feature tests: load fixture packs, find offsets."""

from __future__ import annotations

from pathlib import Path

from pack_lsp.core.base import kinds
from pack_lsp.core.base.text import Span
from pack_lsp.core.checks.analysis import Analysis, analyze

FIXTURES = Path(__file__).parent / "fixtures" / "language"


def load(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def analysis_of(text: str, name: str = "test.promptpack.yaml") -> Analysis:
    return analyze(text, path=name, kind=kinds.PROMPTPACK)


def offset(text: str, needle: str, nth: int = 0, delta: int = 0) -> int:
    """Offset of the ``nth`` occurrence of ``needle`` (plus ``delta``)."""
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    return at + delta


def span_of(text: str, needle: str, nth: int = 0) -> Span:
    start = offset(text, needle, nth)
    return Span(start, start + len(needle))


def texts(text: str, spans: list[Span]) -> list[str]:
    return [text[s.start : s.end] for s in spans]
