"""The pure analysis core: no LSP types, no I/O beyond reading configuration.

``analyze()`` turns text into an ``Analysis`` (tree, model, diagnostics); the CLI and
the language server are two renderers of it.

The names below are loaded on first use (PEP 562): importing a small module such as
``pack_lsp.core.base.text`` runs this file first, and must not pull in the schema
validator, pydantic and every rule with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pack_lsp.core.base import codecache
from pack_lsp.core.base.lazy import lazy_exports
from pack_lsp.core.base.moved import install_moved_aliases

if TYPE_CHECKING:
    from pack_lsp.core.base.diagnostics import Diagnostic, Related, Rule, Severity
    from pack_lsp.core.base.text import LineIndex, Position, Range, Span
    from pack_lsp.core.checks.analysis import Analysis, analyze
    from pack_lsp.core.checks.registry import REGISTRY
    from pack_lsp.core.model.config import Config, ConfigError, load_for

_EXPORTS = {
    "Analysis": "checks.analysis",
    "analyze": "checks.analysis",
    "Config": "model.config",
    "ConfigError": "model.config",
    "load_for": "model.config",
    "Diagnostic": "base.diagnostics",
    "Related": "base.diagnostics",
    "Rule": "base.diagnostics",
    "Severity": "base.diagnostics",
    "REGISTRY": "checks.registry",
    "LineIndex": "base.text",
    "Position": "base.text",
    "Range": "base.text",
    "Span": "base.text",
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

# The module paths from before the layer folders keep importing for one release.
install_moved_aliases()

# The methods ``dataclasses`` generates for the core's classes are compiled once and
# reused by later processes (``base.codecache``): before the first class is created.
codecache.route_dataclasses()
