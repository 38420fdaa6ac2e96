"""Check results as the renderers read them: one ``FileResult`` per file, and totals."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pack_lsp.core.base.diagnostics import Diagnostic, Severity
from pack_lsp.core.base.source import decode, read_source
from pack_lsp.core.base.text import LineIndex, Range


@dataclass(frozen=True, slots=True)
class TextEdit:
    """Replace ``range`` of the file ``path`` with ``new_text``."""

    path: str
    range: Range
    new_text: str


@dataclass(frozen=True, slots=True)
class FixText:
    """A quick fix as text edits, for machine-readable output."""

    title: str
    safe: bool
    edits: tuple[TextEdit, ...]
    preferred: bool = False
    """The fix ``--fix`` (and an editor's "fix all") picks among a problem's fixes."""


@dataclass(frozen=True, slots=True)
class FileResult:
    """One checked file: its path, diagnostics, lines and (JSON, SARIF) fixes."""

    path: str
    diagnostics: tuple[Diagnostic, ...]
    lines: LineIndex
    fixes: tuple[tuple[FixText, ...], ...] = ()
    """The fixes of each diagnostic, in the same order (empty: not computed)."""

    def range(self, diagnostic: Diagnostic) -> Range:
        return self.lines.range(diagnostic.span)

    def fixes_of(self, index: int) -> tuple[FixText, ...]:
        return self.fixes[index] if index < len(self.fixes) else ()


def chosen_fix(result: FileResult, index: int) -> FixText | None:
    """The fix ``--fix`` would apply for the diagnostic ``index`` of ``result`` (as
    ``core/ide/fixall.chosen`` picks it: the preferred one of the fixes that
    edit this file), or None."""
    here = [
        f for f in result.fixes_of(index) if f.edits and all(e.path == result.path for e in f.edits)
    ]
    if not here:
        return None
    return next((f for f in here if f.preferred), here[0])


def fixable(result: FileResult) -> tuple[int, int]:
    """(problems ``--fix`` fixes, problems only ``--fix --unsafe-fixes`` fixes) of one
    file's result; a fix two problems share counts once, as it is applied once."""
    safe = unsafe = 0
    seen: set[tuple[TextEdit, ...]] = set()
    for index in range(len(result.fixes)):
        fix = chosen_fix(result, index)
        if fix is None or fix.edits in seen:
            continue
        seen.add(fix.edits)
        if fix.safe:
            safe += 1
        else:
            unsafe += 1
    return safe, unsafe


@dataclass(frozen=True, slots=True)
class Summary:
    """The counts of a run: files checked and diagnostics by severity."""

    files: int
    errors: int
    warnings: int
    information: int
    hints: int


def summarize(results: Sequence[FileResult]) -> Summary:
    counts = dict.fromkeys(Severity, 0)
    for result in results:
        for d in result.diagnostics:
            counts[d.severity] += 1
    return Summary(
        files=len(results),
        errors=counts[Severity.ERROR],
        warnings=counts[Severity.WARNING],
        information=counts[Severity.INFORMATION],
        hints=counts[Severity.HINT],
    )


class OtherFiles:
    """Line indexes of the other files related locations point into, read once."""

    def __init__(self) -> None:
        self._cache: dict[str, LineIndex | None] = {}

    def lines(self, path: str) -> LineIndex | None:
        if path not in self._cache:
            try:
                self._cache[path] = LineIndex(decode(read_source(Path(path)))[0])
            except OSError:
                self._cache[path] = None
        return self._cache[path]
