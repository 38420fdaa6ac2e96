"""Rename: prompt, tool, fragment, variable and state names in a PromptPack; extension
ids in every manifest of the workspace that names them.

A name that cannot be renamed is answered with LSP ``RequestFailed`` and the reason.
"""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.uris import from_fs_path, to_fs_path

from pack_lsp.core.base.text import LineIndex
from pack_lsp.core.ide import manifest_features, rename
from pack_lsp.server import arena, manifests
from pack_lsp.server.app import PackServer
from pack_lsp.server.edits import workspace_edit
from pack_lsp.server.snapshot import ByKind, DocumentSnapshot


class RequestFailed(JsonRpcException):
    """LSP ``RequestFailed``: the request was valid but cannot be done (with a reason)."""

    CODE = -32803


def _pack_prepare(
    snap: DocumentSnapshot, params: types.PrepareRenameParams
) -> types.PrepareRenamePlaceholder | str:
    try:
        target = rename.prepare_rename(snap.analysis, snap.offset(params.position))
    except rename.RenameError as exc:
        return str(exc)
    return types.PrepareRenamePlaceholder(range=snap.range(target.span), placeholder=target.name)


def _manifest_prepare(
    snap: DocumentSnapshot, params: types.PrepareRenameParams
) -> types.PrepareRenamePlaceholder | str:
    """The id under the position and its range, or the reason it cannot be renamed."""
    offset = snap.offset(params.position)
    try:
        edits = manifest_features.rename(snap.analysis, offset, "_", manifests.index_of(snap))
    except ValueError as exc:
        return str(exc)
    own = to_fs_path(snap.uri)
    for file_edits in edits:
        if file_edits.path is not None and file_edits.path != own:
            continue
        for edit in file_edits.edits:
            if edit.span.start <= offset <= edit.span.end:
                name = snap.analysis.text[edit.span.start : edit.span.end]
                return types.PrepareRenamePlaceholder(range=snap.range(edit.span), placeholder=name)
    return "no extension id here"


def _pack_rename(snap: DocumentSnapshot, params: types.RenameParams) -> types.WorkspaceEdit | str:
    try:
        edits = rename.rename(snap.analysis, snap.offset(params.position), params.new_name)
    except rename.RenameError as exc:
        return str(exc)
    return workspace_edit(snap, edits)


def _arena_prepare(
    snap: DocumentSnapshot, params: types.PrepareRenameParams
) -> types.PrepareRenamePlaceholder | str:
    across = arena.prepare_rename(snap, snap.offset(params.position))
    if across is not None:  # a name that crosses the files of an arena project
        return across
    return _pack_prepare(snap, params)


def _arena_rename(snap: DocumentSnapshot, params: types.RenameParams) -> types.WorkspaceEdit | str:
    across = arena.rename(snap, snap.offset(params.position), params.new_name)
    if across is not None:
        return across
    return _pack_rename(snap, params)


def _manifest_rename(
    snap: DocumentSnapshot, params: types.RenameParams
) -> types.WorkspaceEdit | str:
    """A workspace edit renaming the id under the position in every manifest naming it."""
    try:
        found = manifest_features.rename(
            snap.analysis,
            snap.offset(params.position),
            params.new_name,
            manifests.index_of(snap),
        )
    except ValueError as exc:
        return str(exc)
    own = to_fs_path(snap.uri)
    changes: dict[str, list[types.TextEdit]] = {}
    versions: dict[str, int | None] = {}
    for file_edits in found:
        if file_edits.path is None or file_edits.path == own:
            uri, lines = snap.uri, snap.lines
        else:
            text = snap.workspace.read(file_edits.path) if snap.workspace is not None else None
            if text is None:
                return f"cannot read {file_edits.path}"
            uri = from_fs_path(file_edits.path) or Path(file_edits.path).as_uri()
            lines = LineIndex(text)
        versions[uri] = snap.workspace.version_of(uri) if snap.workspace is not None else None
        changes.setdefault(uri, []).extend(
            types.TextEdit(range=snap.converter.range(lines, e.span), new_text=e.text)
            for e in file_edits.edits
        )
    if not snap.client.document_changes:
        return types.WorkspaceEdit(changes=changes)
    return types.WorkspaceEdit(
        document_changes=[
            types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(
                    uri=uri, version=versions[uri]
                ),
                edits=list[types.TextEdit | types.AnnotatedTextEdit | types.SnippetTextEdit](edits),
            )
            for uri, edits in changes.items()
        ]
    )


#: A handler answers the reason as a string when the name cannot be renamed.
PREPARE_RENAME: ByKind[types.PrepareRenameParams, types.PrepareRenamePlaceholder | str | None] = (
    ByKind(pack=_pack_prepare, manifest=_manifest_prepare, arena=_arena_prepare)
)
RENAME: ByKind[types.RenameParams, types.WorkspaceEdit | str | None] = ByKind(
    pack=_pack_rename, manifest=_manifest_rename, arena=_arena_rename
)


async def prepare_rename(
    ls: PackServer, params: types.PrepareRenameParams
) -> types.PrepareRenamePlaceholder | None:
    result = await ls.answer(
        params.text_document.uri,
        PREPARE_RENAME,
        params,
        None,
        feature="prepareRename",
        at=params.position,
    )
    if isinstance(result, str):
        raise RequestFailed(result)
    return result


async def do_rename(ls: PackServer, params: types.RenameParams) -> types.WorkspaceEdit | None:
    result = await ls.answer(
        params.text_document.uri, RENAME, params, None, feature="rename", at=params.position
    )
    if isinstance(result, str):
        raise RequestFailed(result)
    return result


def register(server: PackServer) -> None:
    server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)(prepare_rename)
    server.feature(types.TEXT_DOCUMENT_RENAME)(do_rename)
