"""Context-aware completion, also while the document is mid-edit and invalid.

Candidates: schema keys not yet present (with descriptions), schema values (enums
and documented examples), references (prompt keys, tools, agent members, workflow
states, the names of RFCs 0010–0017), placeholders inside ``{{`` in templates, and
snippets for a new prompt, a new tool and an ``agents`` section.

- ``context``: where the cursor is (a key or a value, at which data path);
- ``schema_items``: the keys and values the schema documents at that place;
- ``snippets``: a new prompt, a new tool, an ``agents`` section;
- ``references``: the names a reference may take (asking ``core/model/resolve.py`` for tools);
- ``templates``: placeholders;
- ``summaries``: the markdown of prompts, tools and tool patterns, shared with hover;
- ``items``: the ``Completion`` item and its ``CompletionKind``, also returned by
  manifest completion.
"""

from __future__ import annotations

from pack_lsp.core.checks.analysis import Analysis
from pack_lsp.core.ide.completion.context import KEY, place_at
from pack_lsp.core.ide.completion.items import Completion, CompletionKind
from pack_lsp.core.ide.completion.references import reference_items
from pack_lsp.core.ide.completion.schema_items import key_items, value_items
from pack_lsp.core.ide.completion.templates import placeholder_items

__all__ = ["Completion", "CompletionKind", "complete"]


def complete(analysis: Analysis, offset: int) -> list[Completion]:
    """Completion candidates at ``offset`` (code points) in the analysed text."""
    text = analysis.text
    offset = max(0, min(offset, len(text)))
    line = analysis.lines.position(offset).line
    line_start = analysis.lines.line_start(line)
    before = text[line_start:offset]
    template = placeholder_items(analysis, offset, before)
    if template is not None:
        return template
    place = place_at(analysis, offset)
    if place is None:
        return []
    if place.what == KEY:
        return key_items(analysis, place)
    if analysis.pack is not None:
        found = reference_items(analysis, analysis.pack, place)
        if found is not None:
            return found
    return value_items(analysis, place)
