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
    diagnostic of a shadow analysis is reported, as many times. One difference is
    the point of analysing a pack in its own text: where a shadow's diagnostic lies
    outside its pack (an empty pack's at the file's start, an unclosed one's at its
    end), the pack's own text reports the same problem inside the pack. Returns how
    many diagnostics the packs report."""
    parts = [part for part in analysis.embedded if part.analysis is not None]
    exact: Counter[str] = Counter()
    elsewhere: Counter[tuple[str, str]] = Counter()
    for part in parts:
        shadow = part.analysis
        assert shadow is not None
        for d in shadow.diagnostics:
            if part.span.start <= d.span.start <= part.span.end:
                exact[_key(d)] += 1
            else:
                elsewhere[(d.code, d.message)] += 1
    found = Counter(_key(d) for d in analysis.diagnostics)
    found.subtract(Counter(_key(d) for d in pre))
    inside = [
        d
        for d in analysis.diagnostics
        if any(p.span.start <= d.span.start <= p.span.end for p in parts)
    ]
    extra = Counter(_key(d) for d in inside)
    extra.subtract(Counter(_key(d) for d in pre))
    extra.subtract(exact)
    moved_in = Counter((d.code, d.message) for d in inside if extra[_key(d)] > 0)
    assert not exact - +found, exact - +found
    assert moved_in == elsewhere, (moved_in, elsewhere)
    return sum(exact.values()) + sum(elsewhere.values())


def _key(diag: Diagnostic) -> str:
    """Everything a diagnostic says, as a value that can be counted."""
    return repr(replace(diag, data=dict(diag.data)))
