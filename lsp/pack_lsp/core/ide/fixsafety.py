"""Which quick fixes ``pack-lsp --check --fix`` may apply without review.

A rule declares the kinds of its fixes that are safe (``Rule.safe_fixes``): they
correct how the pack is written without changing what it means (removing an inert
entry, writing ``text`` as the media type ``text/plain``). A did-you-mean
replacement is a guess, so even where its rule declares it safe it is applied only
when the guess is unique and close: one suggestion, at most a small edit away from
the name written (``custmer`` → ``customer``, not ``billing`` → ``billing_agent``).
"""

from __future__ import annotations

from pack_lsp.core.base.diagnostics import Diagnostic
from pack_lsp.core.base.fixes import FixData, ReplaceWithSuggestion
from pack_lsp.core.base.suggest import distance
from pack_lsp.core.checks.registry import REGISTRY


def close(written: str, suggestion: str) -> bool:
    """``suggestion`` is a small edit of ``written`` (ignoring case): at most one
    change in a name of up to 7 characters, two in a longer one."""
    a, b = written.strip("\"'").lower(), suggestion.lower()
    if not a or not b:
        return False
    budget = 1 if max(len(a), len(b)) < 8 else 2
    return distance(a, b, budget) <= budget


def is_safe(diag: Diagnostic, payload: FixData, text: str) -> bool:
    """Whether ``--fix`` applies ``payload`` (a fix of ``diag`` in ``text``) by default."""
    rule = REGISTRY.get(diag.code)
    if rule is None or payload.kind not in rule.safe_fixes:
        return False
    if isinstance(payload, ReplaceWithSuggestion):
        if len(payload.suggestions) != 1:
            return False
        written = text[payload.target.start : payload.target.end]
        return close(written, payload.suggestions[0])
    return True
