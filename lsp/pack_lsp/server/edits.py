"""Edits of the document a request was made on, as an LSP workspace edit."""

from __future__ import annotations

from lsprotocol import types
from pygls.uris import from_fs_path

from pack_lsp.core.base.text import LineIndex
from pack_lsp.core.ide.codeactions import OtherFile
from pack_lsp.core.ide.rename import Edit
from pack_lsp.server.snapshot import DocumentSnapshot


def text_edits(snap: DocumentSnapshot, edits: list[Edit]) -> list[types.TextEdit]:
    return [types.TextEdit(range=snap.range(e.span), new_text=e.text) for e in edits]


def workspace_edit(snap: DocumentSnapshot, edits: list[Edit]) -> types.WorkspaceEdit:
    """A versioned document change, or plain ``changes`` for clients without them."""
    if not snap.client.document_changes:
        return types.WorkspaceEdit(changes={snap.uri: text_edits(snap, edits)})
    changed: list[types.TextEdit | types.AnnotatedTextEdit | types.SnippetTextEdit] = list(
        text_edits(snap, edits)
    )
    return types.WorkspaceEdit(
        document_changes=[
            types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(
                    uri=snap.uri, version=snap.version
                ),
                edits=changed,
            )
        ]
    )


def file_edit(snap: DocumentSnapshot, file: OtherFile, edits: list[Edit]) -> types.WorkspaceEdit:
    """Edits of another file (the configuration), unversioned: its text on disk."""
    lines = LineIndex(file.text)
    uri = from_fs_path(file.path) or file.path
    plain = [
        types.TextEdit(range=snap.converter.range(lines, e.span), new_text=e.text) for e in edits
    ]
    if not snap.client.document_changes:
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
