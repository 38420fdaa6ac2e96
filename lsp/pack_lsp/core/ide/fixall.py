"""Apply every applicable quick fix of a document at once (``pack-lsp --check --fix``).

The edits are those of the editor's quick fixes (``codeactions.quick_fixes``): one
fix per diagnostic, the preferred one, taken when it is safe
(``core/ide/fixsafety.py``) or when unsafe fixes are asked for. Fixes whose
edits touch each other are not applied together: the later ones wait for the next
pass, which analyses the fixed text again and offers them anew at their new
positions. Passes repeat until nothing is left to apply (at most ``MAX_PASSES``).

A later pass applies only fixes the first analysis offered: the same rule, the same
title and the same edits of the same text (``signature``). A fix that appears only
once another fix has changed the text (a did-you-mean whose candidates another fix
renamed, a problem another fix uncovered) was never shown to the user and is not
applied: ``--fix`` writes exactly what the reported problems said it would, and a
safe fix cannot chain into a change of meaning. It is reported by the check that
follows, with its own fix.

Fixes of another file (the configuration's ``RenameConfigKey``) are left to the
editor: the run re-checks only the document it fixes.

The result is refused (``FixRun.refused``) when the fixed text has a syntax error
the original did not have: a file is written only when it could be fully
re-checked afterwards.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pack_lsp.core.base.text import Span
from pack_lsp.core.checks.analysis import Analysis
from pack_lsp.core.ide.codeactions import Fix, quick_fixes, shared_documents
from pack_lsp.core.ide.textedits import Edit, apply_edits

MAX_PASSES = 10
SYNTAX = frozenset({"PP001", "PP013"})


@dataclass(frozen=True, slots=True)
class FixRun:
    """What applying the fixes of one document gave."""

    original: str
    text: str
    """The fixed text (``original`` when nothing was applied or the result was refused)."""
    analysis: Analysis
    """The analysis of ``text``."""
    applied: tuple[Fix, ...]
    refused: str | None = None
    """Why the fixed text was not kept, if it was not."""

    @property
    def changed(self) -> bool:
        return self.text != self.original


#: What identifies a fix across passes: its rule, its title and each edit's
#: replaced text and new text (not positions, which earlier fixes shift).
Signature = tuple[str, str, tuple[tuple[str, str], ...]]


def signature(analysis: Analysis, fix: Fix) -> Signature:
    text = analysis.text
    return (
        fix.diagnostic.code,
        fix.title,
        tuple((text[e.span.start : e.span.end], e.text) for e in fix.edits),
    )


def candidates(analysis: Analysis, *, unsafe: bool = False) -> list[Fix]:
    """For each diagnostic of ``analysis``, the fix ``--fix`` would take for it (its
    preferred fix of this file, when safe or ``unsafe``)."""
    out: list[Fix] = []
    with shared_documents():
        for diag in analysis.diagnostics:
            fixes = [f for f in quick_fixes(analysis, diag) if f.file is None and f.edits]
            if not fixes:
                continue
            fix = next((f for f in fixes if f.preferred), fixes[0])
            if fix.safe or unsafe:
                out.append(fix)
    return out


def chosen(
    analysis: Analysis, *, unsafe: bool = False, allowed: Counter[Signature] | None = None
) -> list[Fix]:
    """The fixes ``--fix`` would apply to ``analysis`` now, their edits disjoint;
    with ``allowed``, only fixes of these signatures (each used up once taken)."""
    taken: list[Fix] = []
    spans: list[Span] = []
    seen: set[tuple[Edit, ...]] = set()
    for fix in candidates(analysis, unsafe=unsafe):
        if fix.edits in seen:  # two diagnostics asking for the same edit
            continue
        if any(_touch(e.span, s) for e in fix.edits for s in spans):
            continue
        if allowed is not None:
            key = signature(analysis, fix)
            if allowed[key] <= 0:
                continue  # not offered by the first analysis: not shown, not applied
            allowed[key] -= 1
        seen.add(fix.edits)
        spans.extend(e.span for e in fix.edits)
        taken.append(fix)
    return taken


def _touch(a: Span, b: Span) -> bool:
    return a.start <= b.end and b.start <= a.end


def _syntax_errors(analysis: Analysis) -> int:
    return sum(1 for d in analysis.diagnostics if d.code in SYNTAX)


def fix_document(
    analysis: Analysis, reanalyse: Callable[[str], Analysis], *, unsafe: bool = False
) -> FixRun:
    """Apply the fixes of ``analysis`` pass after pass; ``reanalyse(text)`` analyses a
    fixed text as the original was analysed (same path, configuration, kind)."""
    original = analysis.text
    before = _syntax_errors(analysis)
    current = analysis
    applied: list[Fix] = []
    # The fixes the first analysis offers: the only ones any pass applies.
    allowed = Counter(signature(analysis, f) for f in candidates(analysis, unsafe=unsafe))
    for _ in range(MAX_PASSES):
        fixes = chosen(current, unsafe=unsafe, allowed=allowed)
        if not fixes:
            break
        edits: Sequence[Edit] = [e for f in fixes for e in f.edits]
        text = apply_edits(current.text, edits)
        if text == current.text:
            break
        current = reanalyse(text)
        applied.extend(fixes)
    if current.text != original and _syntax_errors(current) > before:
        return FixRun(
            original,
            original,
            analysis,
            (),
            refused="the fixed text would not parse; nothing was changed",
        )
    return FixRun(original, current.text, current, tuple(applied))
