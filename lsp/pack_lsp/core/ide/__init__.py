"""Language features over an Analysis: pure functions returning core spans.

The server converts their results to LSP types (``pack_lsp.server``); nothing here
imports pygls or lsprotocol.

``templates_for(analysis)`` gives the pack's templates and placeholders
(``pack_lsp.core.model.templates``) in the configured fragment dialect, computed once per
analysis and shared by the rules and the features that read placeholders.
"""

from __future__ import annotations

from pack_lsp.core.checks.analysis import Analysis
from pack_lsp.core.model.templates import PackTemplates

__all__ = ["templates_for"]


def templates_for(analysis: Analysis) -> PackTemplates | None:
    """The templates of ``analysis.pack`` (``None`` without a pack), shared with the rules."""
    return analysis.derived.templates
