"""The pure analysis core: no LSP types, no I/O beyond reading configuration.

``analyze()`` turns text into an ``Analysis`` (tree, model, diagnostics); the CLI and
the language server are two renderers of it.

The names below are loaded on first use (PEP 562): importing a small module such as
``pack_lsp.core.text`` runs this file first, and must not pull in the schema
validator, pydantic and every rule with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pack_lsp.core.lazy import lazy_exports

if TYPE_CHECKING:
    from pack_lsp.core.analysis import Analysis, analyze
    from pack_lsp.core.config import Config, ConfigError, load_for
    from pack_lsp.core.diagnostics import Diagnostic, Related, Rule, Severity
    from pack_lsp.core.registry import REGISTRY
    from pack_lsp.core.text import LineIndex, Position, Range, Span

_EXPORTS = {
    "Analysis": "analysis",
    "analyze": "analysis",
    "Config": "config",
    "ConfigError": "config",
    "load_for": "config",
    "Diagnostic": "diagnostics",
    "Related": "diagnostics",
    "Rule": "diagnostics",
    "Severity": "diagnostics",
    "REGISTRY": "registry",
    "LineIndex": "text",
    "Position": "text",
    "Range": "text",
    "Span": "text",
}

__all__ = [
    "REGISTRY",
    "Analysis",
    "Config",
    "ConfigError",
    "Diagnostic",
    "LineIndex",
    "Position",
    "Range",
    "Related",
    "Rule",
    "Severity",
    "Span",
    "analyze",
    "load_for",
]

__getattr__ = lazy_exports(__name__, _EXPORTS)
