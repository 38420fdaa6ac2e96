"""Renderers of check results: text, JSON, SARIF and GitHub workflow commands.

Each renderer is ``render(results) -> str`` over ``FileResult``s whose diagnostics
are already converted to 0-based lines and code-point characters.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence

from pack_lsp.render.result import FileResult, Summary, summarize

__all__ = ["FORMATS", "FileResult", "Renderer", "Summary", "renderer", "renderers", "summarize"]

#: The output formats, named without importing their renderers (``--help`` lists them).
FORMATS = ("text", "json", "sarif", "github")


Renderer = Callable[[Sequence[FileResult]], str]


def renderer(name: str) -> Renderer:
    """The renderer of the format ``name`` (one of ``FORMATS``), its module imported
    now: a check imports only the format it prints."""
    if name not in FORMATS:
        raise KeyError(name)
    module = importlib.import_module(f"pack_lsp.render.{name}_format")
    render: Renderer = module.render
    return render


def renderers() -> dict[str, Renderer]:
    """Every renderer by format name (imports them all)."""
    return {name: renderer(name) for name in FORMATS}
