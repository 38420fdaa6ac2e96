"""Quick fixes for the diagnostics of a range (``core.language.codeactions``)."""

from __future__ import annotations

from lsprotocol import types

from pack_lsp.core.base.text import Span
from pack_lsp.core.ide import codeactions
from pack_lsp.server.app import PackServer
from pack_lsp.server.edits import file_edit, workspace_edit
from pack_lsp.server.snapshot import ByKind, DocumentSnapshot


def _quick_fixes(
    snap: DocumentSnapshot, params: types.CodeActionParams
) -> list[types.CodeAction | types.Command]:
    span = Span(*sorted((snap.offset(params.range.start), snap.offset(params.range.end))))
    # The context's diagnostics may come from an older version: clamp, no error.
    clamp = snap.converter.from_lsp
    sent = {
        (
            str(d.code),
            Span(*sorted((clamp(snap.lines, d.range.start), clamp(snap.lines, d.range.end)))),
        ): d
        for d in params.context.diagnostics
        if d.code is not None
    }
    fixes = codeactions.fixes_for(snap.analysis, span, list(sent) or None)
    if not fixes and sent:
        # The editor's diagnostics may be from an older version: match by range.
        fixes = codeactions.fixes_for(snap.analysis, span)
    out: list[types.CodeAction | types.Command] = []
    for fix in fixes:
        diag = sent.get((fix.diagnostic.code, fix.diagnostic.span))
        if diag is None:
            diag = types.Diagnostic(
                range=snap.range(fix.diagnostic.span),
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
                edit=workspace_edit(snap, list(fix.edits))
                if fix.file is None
                else file_edit(snap, fix.file, list(fix.edits)),
            )
        )
    return out


CODE_ACTIONS = ByKind(pack=_quick_fixes)


async def code_action(
    ls: PackServer, params: types.CodeActionParams
) -> list[types.CodeAction | types.Command]:
    only = params.context.only
    if only and not any(str(k).startswith("quickfix") or not str(k) for k in only):
        return []
    return await ls.answer(
        params.text_document.uri,
        CODE_ACTIONS,
        params,
        [],
        feature="codeAction",
        diagnostics=True,
    )


def register(server: PackServer) -> None:
    server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
    )(code_action)
