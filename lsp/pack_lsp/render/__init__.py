"""Renderers of check results: text, JSON, SARIF and GitHub workflow commands.

Each renderer is ``render(results) -> str`` over ``FileResult``s whose diagnostics
are already converted to 0-based lines and code-point characters.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pack_lsp.render.result import FileResult, Summary, summarize

__all__ = ["FORMATS", "FileResult", "Renderer", "Summary", "renderers", "summarize"]

#: The output formats, named without importing their renderers (``--help`` lists them).
FORMATS = ("text", "json", "sarif", "github")


Renderer = Callable[[Sequence[FileResult]], str]


def renderers() -> dict[str, Renderer]:
    from pack_lsp.render import github_format, json_format, sarif_format, text_format

    return {
        "text": text_format.render,
        "json": json_format.render,
        "sarif": sarif_format.render,
        "github": github_format.render,
    }
