"""The pure analysis core: no LSP types, no I/O beyond reading configuration.

``analyze()`` turns text into an ``Analysis`` (tree, model, diagnostics); the CLI and
the language server are two renderers of it.
"""

from pack_lsp.core.analysis import Analysis, analyze
from pack_lsp.core.config import Config, ConfigError, load_for
from pack_lsp.core.diagnostics import Diagnostic, Related, Rule, Severity
from pack_lsp.core.registry import REGISTRY
from pack_lsp.core.text import LineIndex, Position, Range, Span

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
