"""Language features over an Analysis: pure functions returning core spans.

The server converts their results to LSP types (``pack_lsp.server``); nothing here
imports pygls or lsprotocol.

``templates_for(analysis)`` gives the pack's templates and placeholders
(``pack_lsp.core.templates``) in the configured fragment dialect, computed once per
analysis object and shared by the features that read placeholders.
"""

from __future__ import annotations

from pack_lsp.core.analysis import Analysis
from pack_lsp.core.templates import PackTemplates, pack_templates

__all__ = ["templates_for"]

# Analysis is a frozen, slotted dataclass holding a dict: neither hashable nor
# weak-referenceable, so the memo is a short list compared by identity (the server
# keeps one analysis per open document; a few recent ones are enough).
_TEMPLATES: list[tuple[Analysis, PackTemplates]] = []
_TEMPLATES_SIZE = 8


def templates_for(analysis: Analysis) -> PackTemplates | None:
    """The templates of ``analysis.pack`` (``None`` without a pack), memoised."""
    if analysis.pack is None:
        return None
    for cached, result in _TEMPLATES:
        if cached is analysis:
            return result
    result = pack_templates(analysis.pack, analysis.text, analysis.config.fragment_dialect)
    _TEMPLATES.append((analysis, result))
    del _TEMPLATES[:-_TEMPLATES_SIZE]
    return result
