"""Completion, hover and semantic tokens: thin handlers over the pure core."""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types

from pack_lsp.core.language import completion as core_completion
from pack_lsp.core.language import hover as core_hover
from pack_lsp.core.language import semantic_tokens as core_tokens
from pack_lsp.core.language.completion import CompletionKind
from pack_lsp.server import manifests
from pack_lsp.server.app import DocumentContext, PackServer

#: Every kind has an entry (a test checks it). Composition, provider, step, eval,
#: validator and extension ids have no closer LSP kind than plain text.
_KINDS: dict[CompletionKind, types.CompletionItemKind] = {
    CompletionKind.PROPERTY: types.CompletionItemKind.Property,
    CompletionKind.VALUE: types.CompletionItemKind.Value,
    CompletionKind.PROMPT: types.CompletionItemKind.Class,
    CompletionKind.TOOL: types.CompletionItemKind.Function,
    CompletionKind.MEMBER: types.CompletionItemKind.Interface,
    CompletionKind.STATE: types.CompletionItemKind.EnumMember,
    CompletionKind.VARIABLE: types.CompletionItemKind.Variable,
    CompletionKind.FRAGMENT: types.CompletionItemKind.Module,
    CompletionKind.ARTIFACT: types.CompletionItemKind.File,
    CompletionKind.SNIPPET: types.CompletionItemKind.Snippet,
    CompletionKind.COMPOSITION: types.CompletionItemKind.Text,
    CompletionKind.PROVIDER: types.CompletionItemKind.Text,
    CompletionKind.STEP: types.CompletionItemKind.Text,
    CompletionKind.EVAL: types.CompletionItemKind.Text,
    CompletionKind.VALIDATOR: types.CompletionItemKind.Text,
    CompletionKind.EXTENSION: types.CompletionItemKind.Text,
}

LEGEND = types.SemanticTokensLegend(
    token_types=list(core_tokens.TOKEN_TYPES), token_modifiers=list(core_tokens.TOKEN_MODIFIERS)
)


def _snippets_supported(ls: PackServer) -> bool:
    td = ls.client_capabilities.text_document
    item = td.completion.completion_item if td and td.completion else None
    return bool(item and item.snippet_support)


def _markdown_supported(ls: PackServer, formats: Sequence[types.MarkupKind] | None) -> bool:
    return formats is None or types.MarkupKind.Markdown in formats


def _doc(
    ls: PackServer, text: str, formats: Sequence[types.MarkupKind] | None
) -> types.MarkupContent | None:
    if not text:
        return None
    kind = (
        types.MarkupKind.Markdown
        if _markdown_supported(ls, formats)
        else types.MarkupKind.PlainText
    )
    return types.MarkupContent(kind=kind, value=text)


def register(server: PackServer) -> None:
    @server.feature(
        types.TEXT_DOCUMENT_COMPLETION,
        types.CompletionOptions(trigger_characters=["{", ".", ":", " ", "-", '"', "["]),
    )
    async def completion(ls: PackServer, params: types.CompletionParams) -> types.CompletionList:
        snippets = _snippets_supported(ls)
        td = ls.client_capabilities.text_document
        item_caps = td.completion.completion_item if td and td.completion else None
        formats = item_caps.documentation_format if item_caps else None

        def compute(doc: DocumentContext) -> types.CompletionList:
            items: list[types.CompletionItem] = []
            offset = doc.offset(params.position)
            found = (
                manifests.complete(doc, offset)
                if manifests.is_manifest(doc)
                else core_completion.complete(doc.analysis, offset)
            )
            for c in found:
                if c.snippet and not snippets:
                    continue
                new_text = c.insert_text if c.insert_text is not None else c.label
                edit = (
                    types.TextEdit(range=doc.range(c.replace), new_text=new_text)
                    if c.replace is not None
                    else None
                )
                items.append(
                    types.CompletionItem(
                        label=c.label,
                        kind=_KINDS.get(c.kind, types.CompletionItemKind.Text),
                        detail=c.detail or None,
                        documentation=_doc(ls, c.documentation, formats),
                        sort_text=c.sort or None,
                        filter_text=c.label if c.replace is not None else None,
                        text_edit=edit,
                        insert_text=None if edit is not None else new_text,
                        insert_text_format=types.InsertTextFormat.Snippet if c.snippet else None,
                        insert_text_mode=types.InsertTextMode.AsIs if c.snippet else None,
                    )
                )
            return types.CompletionList(is_incomplete=False, items=items)

        return await ls.answer(
            params.text_document.uri,
            compute,
            types.CompletionList(is_incomplete=False, items=[]),
            feature="completion",
            at=params.position,
        )

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: PackServer, params: types.HoverParams) -> types.Hover | None:
        td = ls.client_capabilities.text_document
        formats = td.hover.content_format if td and td.hover else None

        def compute(doc: DocumentContext) -> types.Hover | None:
            if manifests.is_manifest(doc):
                markdown = manifests.hover(doc, doc.offset(params.position))
                text = _doc(ls, markdown or "", formats)
                return types.Hover(contents=text) if text is not None else None
            found = core_hover.hover(doc.analysis, doc.offset(params.position))
            if found is None:
                return None
            content = _doc(ls, found.markdown, formats)
            if content is None:
                return None
            return types.Hover(contents=content, range=doc.range(found.span))

        return await ls.answer(
            params.text_document.uri, compute, None, feature="hover", at=params.position
        )

    @server.feature(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, LEGEND)
    async def semantic_tokens(
        ls: PackServer, params: types.SemanticTokensParams
    ) -> types.SemanticTokens:
        def compute(doc: DocumentContext) -> types.SemanticTokens:
            data: list[int] = []
            prev_line = 0
            prev_start = 0
            lines = doc.analysis.lines
            for tok in core_tokens.tokens(doc.analysis):
                line_start = lines.line_start(tok.line)
                start = doc.converter.to_lsp(lines, line_start + tok.start).character
                end = doc.converter.to_lsp(lines, line_start + tok.start + tok.length).character
                delta_line = tok.line - prev_line
                delta_start = start - prev_start if delta_line == 0 else start
                data += [delta_line, delta_start, end - start, tok.type, tok.modifiers]
                prev_line, prev_start = tok.line, start
            return types.SemanticTokens(data=data)

        return await ls.answer(
            params.text_document.uri,
            compute,
            types.SemanticTokens(data=[]),
            feature="semantic tokens",
        )
