"""Navigation, rename, outline, folding/selection ranges and quick fixes.

Thin handlers over ``pack_lsp.core.language``: each resolves the document's cached
analysis through ``PackServer.answer``, calls the core and converts spans with the
document's position encoding.
"""

from __future__ import annotations

import os
from pathlib import Path

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.uris import from_fs_path, to_fs_path

from pack_lsp.core.language import codeactions, navigation, ranges, rename, symbols
from pack_lsp.core.text import LineIndex, Span
from pack_lsp.server import manifests
from pack_lsp.server.app import DocumentContext, PackServer

_SYMBOL_KINDS = {
    symbols.SymbolKind.SECTION: types.SymbolKind.Namespace,
    symbols.SymbolKind.PROMPT: types.SymbolKind.Class,
    symbols.SymbolKind.VARIABLE: types.SymbolKind.Variable,
    symbols.SymbolKind.TOOL: types.SymbolKind.Function,
    symbols.SymbolKind.FRAGMENT: types.SymbolKind.String,
    symbols.SymbolKind.WORKFLOW: types.SymbolKind.Module,
    symbols.SymbolKind.STATE: types.SymbolKind.EnumMember,
    symbols.SymbolKind.ARTIFACT: types.SymbolKind.Field,
    symbols.SymbolKind.AGENTS: types.SymbolKind.Module,
    symbols.SymbolKind.MEMBER: types.SymbolKind.Interface,
    symbols.SymbolKind.COMPOSITION: types.SymbolKind.Module,
    symbols.SymbolKind.STEP: types.SymbolKind.Event,
}

_FOLD_KINDS = {
    ranges.FoldKind.REGION: types.FoldingRangeKind.Region,
    ranges.FoldKind.COMMENT: types.FoldingRangeKind.Comment,
}


class RequestFailed(JsonRpcException):
    """LSP ``RequestFailed``: the request was valid but cannot be done (with a reason)."""

    CODE = -32803


def _document_symbol(doc: DocumentContext, sym: symbols.DocumentSymbol) -> types.DocumentSymbol:
    return types.DocumentSymbol(
        name=sym.name,
        detail=sym.detail or None,
        kind=_SYMBOL_KINDS[sym.kind],
        range=doc.range(sym.span),
        selection_range=doc.range(sym.selection),
        children=[_document_symbol(doc, c) for c in sym.children],
    )


def _text_edits(doc: DocumentContext, edits: list[rename.Edit]) -> list[types.TextEdit]:
    return [types.TextEdit(range=doc.range(e.span), new_text=e.text) for e in edits]


def _document_changes(ls: PackServer) -> bool:
    caps = ls.client_capabilities.workspace
    edit = caps.workspace_edit if caps is not None else None
    return bool(edit is not None and edit.document_changes)


def _workspace_edit(doc: DocumentContext, edits: list[rename.Edit]) -> types.WorkspaceEdit:
    """A versioned document change, or plain ``changes`` for clients without them."""
    if not _document_changes(doc.server):
        return types.WorkspaceEdit(changes={doc.uri: _text_edits(doc, edits)})
    text_edits: list[types.TextEdit | types.AnnotatedTextEdit | types.SnippetTextEdit] = list(
        _text_edits(doc, edits)
    )
    return types.WorkspaceEdit(
        document_changes=[
            types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(
                    uri=doc.uri, version=doc.version
                ),
                edits=text_edits,
            )
        ]
    )


def _file_edit(
    doc: DocumentContext, file: codeactions.OtherFile, edits: list[rename.Edit]
) -> types.WorkspaceEdit:
    """Edits of another file (the configuration), unversioned: its text on disk."""
    lines = LineIndex(file.text)
    uri = from_fs_path(file.path) or file.path
    plain = [
        types.TextEdit(range=doc.converter.range(lines, e.span), new_text=e.text) for e in edits
    ]
    if not _document_changes(doc.server):
        return types.WorkspaceEdit(changes={uri: plain})
    text_edits: list[types.TextEdit | types.AnnotatedTextEdit | types.SnippetTextEdit] = list(plain)
    return types.WorkspaceEdit(
        document_changes=[
            types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=None),
                edits=text_edits,
            )
        ]
    )


def register(server: PackServer) -> None:
    workspace_symbols = symbols.WorkspaceSymbols()

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    async def definition(ls: PackServer, params: types.DefinitionParams) -> list[types.Location]:
        def compute(doc: DocumentContext) -> list[types.Location]:
            if manifests.is_manifest(doc):
                return manifests.definition(doc, doc.offset(params.position))
            spans = navigation.definition(doc.analysis, doc.offset(params.position))
            return [doc.location(s) for s in spans]

        return await ls.answer(
            params.text_document.uri, compute, [], feature="definition", at=params.position
        )

    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    async def references(ls: PackServer, params: types.ReferenceParams) -> list[types.Location]:
        def compute(doc: DocumentContext) -> list[types.Location]:
            if manifests.is_manifest(doc):
                return manifests.references(
                    doc, doc.offset(params.position), params.context.include_declaration
                )
            spans = navigation.references(
                doc.analysis, doc.offset(params.position), params.context.include_declaration
            )
            return [doc.location(s) for s in spans]

        return await ls.answer(
            params.text_document.uri, compute, [], feature="references", at=params.position
        )

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT)
    async def highlight(
        ls: PackServer, params: types.DocumentHighlightParams
    ) -> list[types.DocumentHighlight]:
        def compute(doc: DocumentContext) -> list[types.DocumentHighlight]:
            return [
                types.DocumentHighlight(
                    range=doc.range(h.span),
                    kind=types.DocumentHighlightKind.Write
                    if h.kind is navigation.HighlightKind.WRITE
                    else types.DocumentHighlightKind.Read,
                )
                for h in navigation.highlights(doc.analysis, doc.offset(params.position))
            ]

        return await ls.answer(
            params.text_document.uri, compute, [], feature="documentHighlight", at=params.position
        )

    @server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
    async def prepare_rename(
        ls: PackServer, params: types.PrepareRenameParams
    ) -> types.PrepareRenamePlaceholder | None:
        def compute(doc: DocumentContext) -> types.PrepareRenamePlaceholder | str:
            if manifests.is_manifest(doc):
                return manifests.prepare_rename(doc, doc.offset(params.position))
            try:
                target = rename.prepare_rename(doc.analysis, doc.offset(params.position))
            except rename.RenameError as exc:
                return str(exc)
            return types.PrepareRenamePlaceholder(
                range=doc.range(target.span), placeholder=target.name
            )

        result = await ls.answer(
            params.text_document.uri, compute, None, feature="prepareRename", at=params.position
        )
        if isinstance(result, str):
            raise RequestFailed(result)
        return result

    @server.feature(types.TEXT_DOCUMENT_RENAME)
    async def do_rename(ls: PackServer, params: types.RenameParams) -> types.WorkspaceEdit | None:
        def compute(doc: DocumentContext) -> types.WorkspaceEdit | str:
            if manifests.is_manifest(doc):
                return manifests.rename(doc, doc.offset(params.position), params.new_name)
            try:
                edits = rename.rename(doc.analysis, doc.offset(params.position), params.new_name)
            except rename.RenameError as exc:
                return str(exc)
            return _workspace_edit(doc, edits)

        result = await ls.answer(
            params.text_document.uri, compute, None, feature="rename", at=params.position
        )
        if isinstance(result, str):
            raise RequestFailed(result)
        return result

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    async def document_symbol(
        ls: PackServer, params: types.DocumentSymbolParams
    ) -> list[types.DocumentSymbol]:
        def compute(doc: DocumentContext) -> list[types.DocumentSymbol]:
            found = symbols.document_symbols(doc.analysis.pack, doc.analysis.root)
            return [_document_symbol(doc, s) for s in found]

        return await ls.answer(params.text_document.uri, compute, [], feature="documentSymbol")

    @server.feature(types.WORKSPACE_SYMBOL)
    def workspace_symbol(
        ls: PackServer, params: types.WorkspaceSymbolParams
    ) -> list[types.SymbolInformation]:
        try:
            open_docs: dict[Path, str] = {}
            for uri, doc in ls.documents.items():
                path = to_fs_path(uri)
                if path and ls.kind_of(uri, doc.text) is not None:
                    open_docs[Path(os.path.abspath(path))] = doc.text
            found = workspace_symbols.search(params.query, ls.workspace_folders(), open_docs)
            conv = ls.converter
            return [
                types.SymbolInformation(
                    name=s.name,
                    kind=_SYMBOL_KINDS[s.kind],
                    location=types.Location(
                        uri=from_fs_path(str(s.path)) or s.path.as_uri(),
                        range=conv.range(s.lines, s.selection),
                    ),
                    container_name=s.container or None,
                )
                for s in found
            ]
        except Exception as exc:
            ls.log_message(
                f"pack-lsp: workspace symbols failed: {type(exc).__name__}: {exc}",
                types.MessageType.Error,
            )
            return []

    @server.feature(types.TEXT_DOCUMENT_FOLDING_RANGE)
    async def folding_range(
        ls: PackServer, params: types.FoldingRangeParams
    ) -> list[types.FoldingRange]:
        def compute(doc: DocumentContext) -> list[types.FoldingRange]:
            return [
                types.FoldingRange(
                    start_line=f.start_line, end_line=f.end_line, kind=_FOLD_KINDS[f.kind]
                )
                for f in ranges.folding_ranges(doc.analysis)
            ]

        return await ls.answer(params.text_document.uri, compute, [], feature="foldingRange")

    @server.feature(types.TEXT_DOCUMENT_SELECTION_RANGE)
    async def selection_range(
        ls: PackServer, params: types.SelectionRangeParams
    ) -> list[types.SelectionRange]:
        def compute(doc: DocumentContext) -> list[types.SelectionRange]:
            out: list[types.SelectionRange] = []
            for position in params.positions:
                chain = ranges.selection_ranges(doc.analysis, doc.offset(position))
                parent: types.SelectionRange | None = None
                for span in reversed(chain):
                    parent = types.SelectionRange(range=doc.range(span), parent=parent)
                if parent is not None:
                    out.append(parent)
            return out

        return await ls.answer(params.text_document.uri, compute, [], feature="selectionRange")

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
    )
    async def code_action(
        ls: PackServer, params: types.CodeActionParams
    ) -> list[types.CodeAction | types.Command]:
        only = params.context.only
        if only and not any(str(k).startswith("quickfix") or not str(k) for k in only):
            return []

        def compute(doc: DocumentContext) -> list[types.CodeAction | types.Command]:
            span = Span(*sorted((doc.offset(params.range.start), doc.offset(params.range.end))))
            # The context's diagnostics may come from an older version: clamp, no error.
            clamp = doc.converter.from_lsp
            sent = {
                (
                    str(d.code),
                    Span(*sorted((clamp(doc.lines, d.range.start), clamp(doc.lines, d.range.end)))),
                ): d
                for d in params.context.diagnostics
                if d.code is not None
            }
            fixes = codeactions.fixes_for(doc.analysis, span, list(sent) or None)
            if not fixes and sent:
                # The editor's diagnostics may be from an older version: match by range.
                fixes = codeactions.fixes_for(doc.analysis, span)
            out: list[types.CodeAction | types.Command] = []
            for fix in fixes:
                diag = sent.get((fix.diagnostic.code, fix.diagnostic.span))
                if diag is None:
                    diag = types.Diagnostic(
                        range=doc.range(fix.diagnostic.span),
                        message=fix.diagnostic.message,
                        code=fix.diagnostic.code,
                        source="pack-lsp",
                    )
                out.append(
                    types.CodeAction(
                        title=fix.title,
                        kind=types.CodeActionKind.QuickFix,
                        diagnostics=[diag],
                        is_preferred=fix.preferred or None,
                        edit=_workspace_edit(doc, list(fix.edits))
                        if fix.file is None
                        else _file_edit(doc, fix.file, list(fix.edits)),
                    )
                )
            return out

        return await ls.answer(
            params.text_document.uri, compute, [], feature="codeAction", diagnostics=True
        )
