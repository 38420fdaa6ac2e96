"""Agent-extension manifests in the server: the workspace index and cross-file features.

Manifests name each other by extension id, so a manifest's analysis needs the other
manifests of its workspace. This module keeps one ``ManifestIndex`` per workspace
folder (built from the files on disk when the session starts, then kept up to date
with the open buffers), and:

- gives ``PackServer`` the index a manifest is analysed with (``workspace_for``);
- after a manifest is opened, changed, saved or closed, puts its text into the
  index first and re-checks the manifests whose diagnostics depend on it, opened
  or not (published for push clients, a refresh request for pull clients);
- answers completion, definition, references, hover and rename for manifests with
  ``core.language.manifest_features``, converting spans of *other* files with
  those files' own text, so that a location in another manifest lands right.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from pack_lsp.core import kinds
from pack_lsp.core.analysis import analyze
from pack_lsp.core.discover import find_packs
from pack_lsp.core.language import manifest_features as features
from pack_lsp.core.language.completion import Completion
from pack_lsp.core.manifest.check import update_index
from pack_lsp.core.manifest.files import index_files
from pack_lsp.core.manifest.workspace import ManifestIndex
from pack_lsp.core.recognize import detect
from pack_lsp.core.source import decode, read_source, strip_bom
from pack_lsp.core.text import LineIndex, Span
from pack_lsp.server.app import DocumentContext, PackServer

log = logging.getLogger(__name__)


@dataclass(slots=True)
class ManifestWorkspaces:
    """One index per workspace folder, plus one for manifests outside every folder."""

    folders: dict[str, ManifestIndex] = field(default_factory=dict)
    loose: ManifestIndex = field(default_factory=ManifestIndex)

    def build(self, server: PackServer, folders: list[Path]) -> None:
        """Index the manifests on disk below each folder (the session's start)."""
        for folder in folders:
            key = os.path.abspath(folder)
            try:
                config = server.config_for(from_fs_path(str(Path(key) / "_")) or "")
                paths = find_packs(Path(key), config.exclude, config.manifests)
                self.folders[key] = index_files(paths, config.manifests)
            except Exception as exc:
                log.exception("cannot index the manifests of %s", key)
                server.log_message(
                    f"pack-lsp: cannot index the manifests of {key}: {exc}",
                    types.MessageType.Warning,
                )
                self.folders[key] = ManifestIndex()

    def index_for(self, path: str) -> ManifestIndex:
        """The index of the innermost workspace folder holding ``path``."""
        best: str | None = None
        for folder in self.folders:
            if (path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)) and (
                best is None or len(folder) > len(best)
            ):
                best = folder
        return self.folders[best] if best is not None else self.loose


@dataclass(slots=True)
class ServerManifests:
    """The server's hooks into this module (``base.ManifestSupport``)."""

    server: PackServer
    workspaces: ManifestWorkspaces = field(default_factory=ManifestWorkspaces)

    def start(self) -> None:
        self.workspaces.build(self.server, self.server.workspace_folders())

    def workspace_for(self, uri: str) -> ManifestIndex | None:
        return workspace_for(self.server, uri)

    def changed(self, uri: str, text: str | None) -> None:
        manifest_changed(self.server, uri, text)

    def location(self, path: str, span: Span) -> types.Location:
        return location(self.server, path, span)


def workspaces(server: PackServer) -> ManifestWorkspaces:
    found = server.manifests
    if not isinstance(found, ServerManifests):
        found = ServerManifests(server)
        server.manifests = found
    return found.workspaces


def workspace_for(server: PackServer, uri: str) -> ManifestIndex | None:
    """The index a manifest at ``uri`` is analysed with (``None`` without a path)."""
    path = to_fs_path(uri)
    return workspaces(server).index_for(path) if path else None


# ------------------------------------------------------------------ re-checks


def _text_of(server: PackServer, path: str) -> str | None:
    """The open buffer of ``path``, else the file on disk (read safely), else None."""
    uri = from_fs_path(path) or Path(path).as_uri()
    doc = server.documents.get(uri)
    if doc is not None:
        return strip_bom(doc.text)
    try:
        return decode(read_source(path))[0]
    except OSError:
        return None


def manifest_changed(server: PackServer, uri: str, text: str | None) -> None:
    """A manifest's text changed (``None``: closed, back to the file on disk).

    The index is updated before the document itself is analysed (``analyze``
    updates only its own entry), then the manifests that depend on it are
    re-checked: open ones re-analysed and published (push) or refreshed (pull),
    unopened ones analysed from disk and published (push).
    """
    path = to_fs_path(uri)
    if not path:
        return
    index = workspaces(server).index_for(path)
    if text is None and index.get(path) is None:
        return  # not a manifest of the index
    if text is None:
        on_disk = _text_of(server, path)
        if on_disk is None or detect(path, on_disk) != kinds.MANIFEST:
            to_recheck = index.remove(path)
        else:
            to_recheck = update_index(index, on_disk, path)
    else:
        if server.kind_of(uri, text) != kinds.MANIFEST:
            return
        to_recheck = update_index(index, text, path)
    if not to_recheck:
        return
    for other in sorted(to_recheck):
        other_uri = from_fs_path(other) or Path(other).as_uri()
        if other_uri in server.documents:
            server.document_changed(other_uri, reuse=False, at_once=not server.pull_diagnostics)
        elif not server.pull_diagnostics:
            _publish_unopened(server, other_uri, other, index)
    server.refresh_diagnostics()


def _publish_unopened(server: PackServer, uri: str, path: str, index: ManifestIndex) -> None:
    text = _text_of(server, path)
    if text is None:
        return
    try:
        result = analyze(
            text,
            path=path,
            config=server.config_for(uri),
            kind=kinds.MANIFEST,
            workspace=index,
        )
        server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=server.lsp_diagnostics(uri, result))
        )
    except Exception as exc:
        log.exception("re-check failed for %s", uri)
        server.log_message(f"pack-lsp: re-check failed for {uri}: {exc}", types.MessageType.Error)


# ------------------------------------------------------------- other files


def location(server: PackServer, path: str, span: Span) -> types.Location:
    """The location of ``span`` in the file ``path``, with that file's own lines.

    The text is the open buffer when there is one, else the file on disk.
    """
    uri = from_fs_path(path) or Path(path).as_uri()
    text = _text_of(server, path)
    if text is None:
        start = types.Position(line=0, character=0)
        return types.Location(uri=uri, range=types.Range(start=start, end=start))
    return types.Location(uri=uri, range=server.converter.range(LineIndex(text), span))


def _location(doc: DocumentContext, path: str | None, span: Span) -> types.Location:
    if path is None or path == to_fs_path(doc.uri):
        return doc.location(span)
    return location(doc.server, path, span)


# ------------------------------------------------------------------ features


def is_manifest(doc: DocumentContext) -> bool:
    return doc.analysis.kind == kinds.MANIFEST


def _index(doc: DocumentContext) -> ManifestIndex:
    found = workspace_for(doc.server, doc.uri)
    return found if found is not None else ManifestIndex()


def complete(doc: DocumentContext, offset: int) -> list[Completion]:
    return features.complete_ids(doc.analysis, offset, _index(doc))


def definition(doc: DocumentContext, offset: int) -> list[types.Location]:
    found = features.definition(doc.analysis, offset, _index(doc))
    return [_location(doc, f.path, f.span) for f in found]


def references(doc: DocumentContext, offset: int, declaration: bool) -> list[types.Location]:
    index = _index(doc)
    found = list(features.references(doc.analysis, offset, index))
    if declaration:
        found = features.definition(doc.analysis, offset, index) + found
    return [_location(doc, f.path, f.span) for f in found]


def hover(doc: DocumentContext, offset: int) -> str | None:
    return features.hover(doc.analysis, offset, _index(doc))


def prepare_rename(doc: DocumentContext, offset: int) -> types.PrepareRenamePlaceholder | str:
    """The id under ``offset`` and its range, or the reason it cannot be renamed."""
    try:
        edits = features.rename(doc.analysis, offset, "_", _index(doc))
    except ValueError as exc:
        return str(exc)
    own = to_fs_path(doc.uri)
    for file_edits in edits:
        if file_edits.path is not None and file_edits.path != own:
            continue
        for edit in file_edits.edits:
            if edit.span.start <= offset <= edit.span.end:
                name = doc.analysis.text[edit.span.start : edit.span.end]
                return types.PrepareRenamePlaceholder(range=doc.range(edit.span), placeholder=name)
    return "no extension id here"


def rename(doc: DocumentContext, offset: int, new_id: str) -> types.WorkspaceEdit | str:
    """A workspace edit renaming the id under ``offset`` in every manifest naming it."""
    try:
        found = features.rename(doc.analysis, offset, new_id, _index(doc))
    except ValueError as exc:
        return str(exc)
    server = doc.server
    own = to_fs_path(doc.uri)
    changes: dict[str, list[types.TextEdit]] = {}
    versions: dict[str, int | None] = {}
    for file_edits in found:
        if file_edits.path is None or file_edits.path == own:
            uri, lines = doc.uri, doc.lines
        else:
            text = _text_of(server, file_edits.path)
            if text is None:
                return f"cannot read {file_edits.path}"
            uri = from_fs_path(file_edits.path) or Path(file_edits.path).as_uri()
            lines = LineIndex(text)
        open_doc = server.documents.get(uri)
        versions[uri] = open_doc.version if open_doc is not None else None
        changes.setdefault(uri, []).extend(
            types.TextEdit(range=server.converter.range(lines, e.span), new_text=e.text)
            for e in file_edits.edits
        )
    caps = server.client_capabilities.workspace
    edit_caps = caps.workspace_edit if caps is not None else None
    if not (edit_caps is not None and edit_caps.document_changes):
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


def register(server: PackServer) -> None:
    """Hook the manifest index into the server; ``initialized`` fills it (see lifecycle.py)."""
    server.manifests = ServerManifests(server)
