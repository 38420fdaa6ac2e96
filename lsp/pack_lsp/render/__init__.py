"""Renderers of check results: text, JSON, SARIF and GitHub workflow commands.

Each renderer is ``render(results) -> str`` over ``FileResult``s whose diagnostics
are already converted to 0-based lines and code-point characters.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pack_lsp.core.diagnostics import Diagnostic, Severity
from pack_lsp.core.text import LineIndex, Range


@dataclass(frozen=True, slots=True)
class FileResult:
    path: str
    diagnostics: tuple[Diagnostic, ...]
    lines: LineIndex

    def range(self, diagnostic: Diagnostic) -> Range:
        return self.lines.range(diagnostic.span)


@dataclass(frozen=True, slots=True)
class Summary:
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


Renderer = Callable[[Sequence[FileResult]], str]


def renderers() -> dict[str, Renderer]:
    from pack_lsp.render import github_format, json_format, sarif_format, text_format

    return {
        "text": text_format.render,
        "json": json_format.render,
        "sarif": sarif_format.render,
        "github": github_format.render,
    }
