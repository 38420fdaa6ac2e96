"""Go to definition, find references and document highlight over the symbol index.

Whether a name is defined is the resolver's answer (``index.definitions_of``, which
asks ``core/model/resolve.py``); where it is written, the index's.

Every function takes an ``Analysis`` and a code-point offset and returns spans in
the same document (a pack is one file).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from pack_lsp.core.base.text import Span
from pack_lsp.core.checks.analysis import Analysis
from pack_lsp.core.ide.index import Occurrence, definitions_of, index_for


class HighlightKind(enum.StrEnum):
    READ = "read"
    WRITE = "write"


@dataclass(frozen=True, slots=True)
class Highlight:
    span: Span
    kind: HighlightKind


def _unique(spans: list[Span]) -> list[Span]:
    return sorted(dict.fromkeys(spans))


def definition(analysis: Analysis, offset: int) -> list[Span]:
    """Where the symbol under ``offset`` is defined (empty when it is not).

    On a definition itself the answer is that definition, so editors that ask for
    the definition of a key still get a location.
    """
    index = index_for(analysis)
    out: list[Span] = []
    for symbol in index.symbols_at(offset):
        out.extend(o.span for o in definitions_of(analysis, symbol))
    return _unique(out)


def references(analysis: Analysis, offset: int, include_declaration: bool = True) -> list[Span]:
    index = index_for(analysis)
    out: list[Span] = []
    for symbol in index.symbols_at(offset):
        for occ in index.all(symbol):
            if include_declaration or not occ.definition:
                out.append(occ.span)
    return _unique(out)


def occurrences(analysis: Analysis, offset: int) -> list[Occurrence]:
    index = index_for(analysis)
    out: list[Occurrence] = []
    for symbol in index.symbols_at(offset):
        out.extend(index.all(symbol))
    return out


def highlights(analysis: Analysis, offset: int) -> list[Highlight]:
    """Every occurrence of the symbol under ``offset``: definitions as writes."""
    seen: dict[Span, HighlightKind] = {}
    for occ in occurrences(analysis, offset):
        kind = HighlightKind.WRITE if occ.definition else HighlightKind.READ
        if seen.get(occ.span) is not HighlightKind.WRITE:
            seen[occ.span] = kind
    return [Highlight(span, kind) for span, kind in sorted(seen.items())]
