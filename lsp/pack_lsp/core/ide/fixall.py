"""Apply every applicable quick fix of a document at once (``pack-lsp --check --fix``).

The edits are those of the editor's quick fixes (``codeactions.quick_fixes``): one
fix per diagnostic, the preferred one, taken when it is safe
(``core/ide/fixsafety.py``) or when unsafe fixes are asked for. Fixes whose
edits touch each other are not applied together: the later ones wait for the next
pass, which analyses the fixed text again and offers them anew at their new
positions. Passes repeat until nothing is left to apply (at most ``MAX_PASSES``).

Fixes of another file (the configuration's ``RenameConfigKey``) are left to the
editor: the run re-checks only the document it fixes.

The result is refused (``FixRun.refused``) when the fixed text has a syntax error
the original did not have: a file is written only when it could be fully
re-checked afterwards.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pack_lsp.core.base.text import Span
from pack_lsp.core.checks.analysis import Analysis
from pack_lsp.core.ide.codeactions import Fix, quick_fixes
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


def chosen(analysis: Analysis, *, unsafe: bool = False) -> list[Fix]:
    """The fixes ``--fix`` would apply to ``analysis`` now, their edits disjoint."""
    taken: list[Fix] = []
    spans: list[Span] = []
    seen: set[tuple[Edit, ...]] = set()
    for diag in analysis.diagnostics:
        fixes = [f for f in quick_fixes(analysis, diag) if f.file is None and f.edits]
        if not fixes:
            continue
        fix = next((f for f in fixes if f.preferred), fixes[0])
        if not (fix.safe or unsafe):
            continue
        if fix.edits in seen:  # two diagnostics asking for the same edit
            continue
        if any(_touch(e.span, s) for e in fix.edits for s in spans):
            continue
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
    for _ in range(MAX_PASSES):
        fixes = chosen(current, unsafe=unsafe)
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
