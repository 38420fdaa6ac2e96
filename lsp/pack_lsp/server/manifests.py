"""Agent-extension manifests in the server: the workspace index and cross-file features.

Manifests name each other by extension id, so a manifest's analysis needs the other
manifests of its workspace. This module keeps one ``ManifestIndex`` per workspace
folder (built from the files on disk when the session starts, then kept up to date
with the open buffers), and:

- gives ``PackServer`` the index a manifest is analysed with (``workspace_for``);
- after a manifest is opened, changed, saved or closed, puts its text into the
  index first and re-checks the manifests whose diagnostics depend on it, opened
  or not (published for push clients, a refresh request for pull clients);
- gives the feature handlers (completion, hover, navigation, rename) the index a
  manifest's ids are looked up in (``index_of``) and converts spans of *other*
  files with those files' own text, so that a location in another manifest lands
  right (``located``), both from the request's snapshot
  (``server.workspace.WorkspaceSnapshot``).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from pack_lsp.core.base import kinds
from pack_lsp.core.base.text import Span
from pack_lsp.core.checks.analysis import Analysis, analyze
from pack_lsp.core.checks.manifest.check import update_index
from pack_lsp.core.model.discover import find_packs
from pack_lsp.core.model.manifest.files import index_files
from pack_lsp.core.model.manifest.workspace import ManifestIndex
from pack_lsp.core.model.recognize import detect
from pack_lsp.server.app import PackServer
from pack_lsp.server.rechecks import recheck, text_of
from pack_lsp.server.snapshot import DocumentSnapshot

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
        """Index the manifests of the workspace folders on the calling thread."""
        self.workspaces.build(self.server, self.server.workspace_folders())

    def install(self, indexes: Mapping[str, ManifestIndex]) -> None:
        self.workspaces.folders.update(indexes)
        # The open manifests are in the index as they are in the editor.
        for uri, doc in list(self.server.documents.items()):
            if self.server.kind_of(uri, doc.text) == kinds.MANIFEST:
                manifest_changed(self.server, uri, doc.text)

    def workspace_for(self, uri: str) -> ManifestIndex | None:
        return workspace_for(self.server, uri)

    def changed(self, uri: str, text: str | None) -> None:
        manifest_changed(self.server, uri, text)


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
        on_disk = text_of(server, path)
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

    def analyse(text: str, path: str, uri: str) -> Analysis:
        config = server.config_for(uri)
        return analyze(text, path=path, config=config, kind=kinds.MANIFEST, workspace=index)

    recheck(server, to_recheck, analyse)


# ------------------------------------------------------------------ features


def index_of(snap: DocumentSnapshot) -> ManifestIndex:
    """The index the features of the manifest ``snap`` look ids up in."""
    if snap.workspace is None:
        return ManifestIndex()
    return snap.workspace.manifest_index(snap.uri)


def located(snap: DocumentSnapshot, path: str | None, span: Span) -> types.Location:
    """The location of ``span`` in the manifest ``path`` (None: the snapshot's own)."""
    if path is None or path == to_fs_path(snap.uri) or snap.workspace is None:
        return snap.location(span)
    return snap.workspace.location(path, span)


def register(server: PackServer) -> None:
    """Hook the manifest index into the server; ``initialized`` fills it (see lifecycle.py)."""
    server.manifests = ServerManifests(server)
