"""``path:line:col: severity CODE message`` (1-based line and column)."""

from __future__ import annotations

from collections.abc import Sequence

from pack_lsp.render.result import FileResult


def render(results: Sequence[FileResult]) -> str:
    out: list[str] = []
    for result in results:
        for d in result.diagnostics:
            start = result.range(d).start
            message = d.message.replace("\r", " ").replace("\n", " ")
            out.append(
                f"{result.path}:{start.line + 1}:{start.character + 1}: "
                f"{d.severity.label} {d.code} {message}"
            )
    return "\n".join(out) + ("\n" if out else "")
