"""Semantic tokens: the placeholders of a pack's templates."""

from __future__ import annotations

from lsprotocol import types

from pack_lsp.core.ide import semantic_tokens as core_tokens
from pack_lsp.server.app import PackServer
from pack_lsp.server.snapshot import ByKind, DocumentSnapshot

LEGEND = types.SemanticTokensLegend(
    token_types=list(core_tokens.TOKEN_TYPES), token_modifiers=list(core_tokens.TOKEN_MODIFIERS)
)


def _pack(snap: DocumentSnapshot, params: types.SemanticTokensParams) -> types.SemanticTokens:
    data: list[int] = []
    prev_line = 0
    prev_start = 0
    lines = snap.lines
    for tok in core_tokens.tokens(snap.analysis):
        line_start = lines.line_start(tok.line)
        start = snap.converter.to_lsp(lines, line_start + tok.start).character
        end = snap.converter.to_lsp(lines, line_start + tok.start + tok.length).character
        delta_line = tok.line - prev_line
        delta_start = start - prev_start if delta_line == 0 else start
        data += [delta_line, delta_start, end - start, tok.type, tok.modifiers]
        prev_line, prev_start = tok.line, start
    return types.SemanticTokens(data=data)


SEMANTIC_TOKENS = ByKind(pack=_pack)


async def semantic_tokens(
    ls: PackServer, params: types.SemanticTokensParams
) -> types.SemanticTokens:
    return await ls.answer(
        params.text_document.uri,
        SEMANTIC_TOKENS,
        params,
        types.SemanticTokens(data=[]),
        feature="semantic tokens",
    )


def register(server: PackServer) -> None:
    server.feature(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, LEGEND)(semantic_tokens)
