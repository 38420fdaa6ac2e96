"""What a Kubernetes manifest's embedded packs report as their shadows give it (D28),
for the tests that check the packs analysed in their own text report the same (D82)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import replace

from pack_lsp.core.base.diagnostics import Diagnostic
from pack_lsp.core.checks.analysis import Analysis


def assert_reported_as_shadows(analysis: Analysis, pre: Iterable[Diagnostic] = ()) -> int:
    """Every diagnostic of ``analysis`` inside an embedded pack is one its shadow
    analysis reports (or one of ``pre``, the file's decoding problems), and every
    diagnostic of a shadow analysis is reported, as many times (a shadow's may lie
    outside the pack: an empty pack's at the file's start, an unclosed one's at its
    end). Returns how many diagnostics the packs report."""
    shadows = [(part, part.analysis) for part in analysis.embedded]
    parts = [part for part, shadow in shadows if shadow is not None]
    expected = Counter(
        _key(d) for _, shadow in shadows if shadow is not None for d in shadow.diagnostics
    )
    found = Counter(_key(d) for d in analysis.diagnostics)
    found.subtract(Counter(_key(d) for d in pre))
    inside = Counter(
        _key(d)
        for d in analysis.diagnostics
        if any(p.span.start <= d.span.start <= p.span.end for p in parts)
    )
    inside.subtract(Counter(_key(d) for d in pre))
    assert not +inside - expected, +inside - expected
    assert not expected - +found, expected - +found
    return sum(expected.values())


def _key(diag: Diagnostic) -> str:
    """Everything a diagnostic says, as a value that can be counted."""
    return repr(replace(diag, data=dict(diag.data)))
