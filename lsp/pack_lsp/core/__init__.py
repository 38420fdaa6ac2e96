"""The pure analysis core: no LSP types, no I/O beyond reading configuration.

``analyze()`` turns text into an ``Analysis`` (tree, model, diagnostics); the CLI and
the language server are two renderers of it.

The names below are loaded on first use (PEP 562): importing a small module such as
``pack_lsp.core.text`` runs this file first, and must not pull in the schema
validator, pydantic and every rule with it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

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


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
