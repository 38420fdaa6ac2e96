"""Hover: PromptPack keys, references and placeholders; manifest ids."""

from __future__ import annotations

from lsprotocol import types

from pack_lsp.core.ide import manifest_features, terms
from pack_lsp.server import manifests
from pack_lsp.server.app import PackServer
from pack_lsp.server.markup import markup
from pack_lsp.server.snapshot import ByKind, DocumentSnapshot


def _pack(snap: DocumentSnapshot, params: types.HoverParams) -> types.Hover | None:
    found = terms.hover_with_terms(snap.analysis, snap.offset(params.position))
    if found is None:
        return None
    content = markup(found.markdown, snap.client.hover_formats)
    if content is None:
        return None
    return types.Hover(contents=content, range=snap.range(found.span))


def _manifest(snap: DocumentSnapshot, params: types.HoverParams) -> types.Hover | None:
    index = manifests.index_of(snap)
    text = manifest_features.hover(snap.analysis, snap.offset(params.position), index)
    content = markup(text or "", snap.client.hover_formats)
    return types.Hover(contents=content) if content is not None else None


HOVER = ByKind(pack=_pack, manifest=_manifest)


async def hover(ls: PackServer, params: types.HoverParams) -> types.Hover | None:
    return await ls.answer(
        params.text_document.uri, HOVER, params, None, feature="hover", at=params.position
    )


def register(server: PackServer) -> None:
    server.feature(types.TEXT_DOCUMENT_HOVER)(hover)
