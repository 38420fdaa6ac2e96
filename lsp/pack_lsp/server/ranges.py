"""Folding ranges and selection ranges."""

from __future__ import annotations

from lsprotocol import types

from pack_lsp.core.ide import ranges
from pack_lsp.server.app import PackServer
from pack_lsp.server.snapshot import ByKind, DocumentSnapshot

_FOLD_KINDS = {
    ranges.FoldKind.REGION: types.FoldingRangeKind.Region,
    ranges.FoldKind.COMMENT: types.FoldingRangeKind.Comment,
}


def _folds(snap: DocumentSnapshot, params: types.FoldingRangeParams) -> list[types.FoldingRange]:
    return [
        types.FoldingRange(start_line=f.start_line, end_line=f.end_line, kind=_FOLD_KINDS[f.kind])
        for f in ranges.folding_ranges(snap.analysis)
    ]


def _selections(
    snap: DocumentSnapshot, params: types.SelectionRangeParams
) -> list[types.SelectionRange]:
    out: list[types.SelectionRange] = []
    for position in params.positions:
        chain = ranges.selection_ranges(snap.analysis, snap.offset(position))
        parent: types.SelectionRange | None = None
        for span in reversed(chain):
            parent = types.SelectionRange(range=snap.range(span), parent=parent)
        if parent is not None:
            out.append(parent)
    return out


FOLDING_RANGES = ByKind(pack=_folds)
SELECTION_RANGES = ByKind(pack=_selections)


async def folding_range(
    ls: PackServer, params: types.FoldingRangeParams
) -> list[types.FoldingRange]:
    return await ls.answer(
        params.text_document.uri, FOLDING_RANGES, params, [], feature="foldingRange"
    )


async def selection_range(
    ls: PackServer, params: types.SelectionRangeParams
) -> list[types.SelectionRange]:
    return await ls.answer(
        params.text_document.uri, SELECTION_RANGES, params, [], feature="selectionRange"
    )


def register(server: PackServer) -> None:
    server.feature(types.TEXT_DOCUMENT_FOLDING_RANGE)(folding_range)
    server.feature(types.TEXT_DOCUMENT_SELECTION_RANGE)(selection_range)
