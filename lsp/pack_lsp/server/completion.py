"""Completion: PromptPack keys, values, references and placeholders; manifest ids."""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types

from pack_lsp.core.ide import completion as core_completion
from pack_lsp.core.ide import manifest_features, terms
from pack_lsp.core.ide.completion import CompletionKind
from pack_lsp.server import manifests
from pack_lsp.server.app import PackServer
from pack_lsp.server.markup import markup
from pack_lsp.server.snapshot import ByKind, DocumentSnapshot

TRIGGER_CHARACTERS = ["{", ".", ":", " ", "-", '"', "["]

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


def _items(
    snap: DocumentSnapshot, found: Sequence[core_completion.Completion]
) -> types.CompletionList:
    snippets = snap.client.snippets
    formats = snap.client.completion_formats
    items: list[types.CompletionItem] = []
    for c in found:
        if c.snippet and not snippets:
            continue
        new_text = c.insert_text if c.insert_text is not None else c.label
        edit = (
            types.TextEdit(range=snap.range(c.replace), new_text=new_text)
            if c.replace is not None
            else None
        )
        items.append(
            types.CompletionItem(
                label=c.label,
                kind=_KINDS[c.kind],
                detail=c.detail or None,
                documentation=markup(c.documentation, formats),
                sort_text=c.sort or None,
                filter_text=c.label if c.replace is not None else None,
                text_edit=edit,
                insert_text=None if edit is not None else new_text,
                insert_text_format=types.InsertTextFormat.Snippet if c.snippet else None,
                insert_text_mode=types.InsertTextMode.AsIs if c.snippet else None,
            )
        )
    return types.CompletionList(is_incomplete=False, items=items)


def _pack(snap: DocumentSnapshot, params: types.CompletionParams) -> types.CompletionList:
    offset = snap.offset(params.position)
    return _items(snap, terms.complete_with_terms(snap.analysis, offset))


def _manifest(snap: DocumentSnapshot, params: types.CompletionParams) -> types.CompletionList:
    index = manifests.index_of(snap)
    offset = snap.offset(params.position)
    return _items(snap, manifest_features.complete_ids(snap.analysis, offset, index))


COMPLETION = ByKind(pack=_pack, manifest=_manifest)


async def completion(ls: PackServer, params: types.CompletionParams) -> types.CompletionList:
    return await ls.answer(
        params.text_document.uri,
        COMPLETION,
        params,
        types.CompletionList(is_incomplete=False, items=[]),
        feature="completion",
        at=params.position,
    )


def register(server: PackServer) -> None:
    server.feature(
        types.TEXT_DOCUMENT_COMPLETION,
        types.CompletionOptions(trigger_characters=TRIGGER_CHARACTERS),
    )(completion)
