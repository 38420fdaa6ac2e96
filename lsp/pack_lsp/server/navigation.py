"""Go to definition, find references and document highlights.

PromptPacks answer from the symbol index of ``core.language.navigation``; agent-extension
manifests from ``core.language.manifest_features`` and the workspace's manifest index
(locations in other manifests are converted with those files' own text).
"""

from __future__ import annotations

from lsprotocol import types

from pack_lsp.core.ide import manifest_features, navigation
from pack_lsp.server import arena, manifests
from pack_lsp.server.app import PackServer
from pack_lsp.server.snapshot import ByKind, DocumentSnapshot


def _pack_definition(
    snap: DocumentSnapshot, params: types.DefinitionParams
) -> list[types.Location]:
    spans = navigation.definition(snap.analysis, snap.offset(params.position))
    return [snap.location(s) for s in spans]


def _manifest_definition(
    snap: DocumentSnapshot, params: types.DefinitionParams
) -> list[types.Location]:
    index = manifests.index_of(snap)
    found = manifest_features.definition(snap.analysis, snap.offset(params.position), index)
    return [manifests.located(snap, f.path, f.span) for f in found]


def _pack_references(snap: DocumentSnapshot, params: types.ReferenceParams) -> list[types.Location]:
    offset = snap.offset(params.position)
    spans = navigation.references(snap.analysis, offset, params.context.include_declaration)
    return [snap.location(s) for s in spans]


def _manifest_references(
    snap: DocumentSnapshot, params: types.ReferenceParams
) -> list[types.Location]:
    index = manifests.index_of(snap)
    offset = snap.offset(params.position)
    found = list(manifest_features.references(snap.analysis, offset, index))
    if params.context.include_declaration:
        found = manifest_features.definition(snap.analysis, offset, index) + found
    return [manifests.located(snap, f.path, f.span) for f in found]


def _arena_definition(
    snap: DocumentSnapshot, params: types.DefinitionParams
) -> list[types.Location]:
    across = arena.definition(snap, snap.offset(params.position))
    if across is not None:  # a name that crosses the files of an arena project
        return across
    return _pack_definition(snap, params)


def _arena_references(
    snap: DocumentSnapshot, params: types.ReferenceParams
) -> list[types.Location]:
    offset = snap.offset(params.position)
    across = arena.references(snap, offset, params.context.include_declaration)
    if across is not None:
        return across
    return _pack_references(snap, params)


def _highlights(
    snap: DocumentSnapshot, params: types.DocumentHighlightParams
) -> list[types.DocumentHighlight]:
    return [
        types.DocumentHighlight(
            range=snap.range(h.span),
            kind=types.DocumentHighlightKind.Write
            if h.kind is navigation.HighlightKind.WRITE
            else types.DocumentHighlightKind.Read,
        )
        for h in navigation.highlights(snap.analysis, snap.offset(params.position))
    ]


DEFINITION = ByKind(pack=_pack_definition, manifest=_manifest_definition, arena=_arena_definition)
REFERENCES = ByKind(pack=_pack_references, manifest=_manifest_references, arena=_arena_references)
HIGHLIGHTS = ByKind(pack=_highlights)


async def definition(ls: PackServer, params: types.DefinitionParams) -> list[types.Location]:
    return await ls.answer(
        params.text_document.uri, DEFINITION, params, [], feature="definition", at=params.position
    )


async def references(ls: PackServer, params: types.ReferenceParams) -> list[types.Location]:
    return await ls.answer(
        params.text_document.uri, REFERENCES, params, [], feature="references", at=params.position
    )


async def highlight(
    ls: PackServer, params: types.DocumentHighlightParams
) -> list[types.DocumentHighlight]:
    return await ls.answer(
        params.text_document.uri,
        HIGHLIGHTS,
        params,
        [],
        feature="documentHighlight",
        at=params.position,
    )


def register(server: PackServer) -> None:
    server.feature(types.TEXT_DOCUMENT_DEFINITION)(definition)
    server.feature(types.TEXT_DOCUMENT_REFERENCES)(references)
    server.feature(types.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT)(highlight)
