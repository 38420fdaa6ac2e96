"""The workspace beyond one document: one object owns the cross-file indexes.

Two kinds of documents depend on other files: agent-extension manifests name each
other by id (``server.manifests`` keeps a ``ManifestIndex`` per workspace folder),
and the documents of an arena project name each other's prompts, tools and
providers (``server.arena`` keeps the projects, ``core.arena.workspace``).
``Workspace`` owns both behind one interface, and the rest of the server talks to
it only:

- ``start()`` indexes the workspace folders (``initialized``);
- ``changed(uri, text)``: a document was opened, changed, saved or closed; the
  indexes take its text, and the files whose problems depend on it are re-checked,
  open or not;
- ``settings_changed()``: the projects are checked again with the new settings;
- ``inputs(uri)``: what the analysis of ``uri`` takes from other files;
- ``snapshot()``: what a request may read of the other files
  (``WorkspaceSnapshot``), given to its handler inside its ``DocumentSnapshot``.

The indexes change on the event loop only, between two messages; a handler runs on
the event loop without awaiting, so everything a snapshot reads during one request
is one state of the workspace.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from pack_lsp.core.base.diagnostics import Diagnostic
from pack_lsp.core.base.text import LineIndex, Span
from pack_lsp.core.checks.arena.check import ProjectCheck
from pack_lsp.core.checks.arena.workspace import ArenaWorkspace
from pack_lsp.core.model.manifest.workspace import ManifestIndex
from pack_lsp.server.base import ArenaSupport, ManifestSupport
from pack_lsp.server.positions import PositionConverter

log = logging.getLogger(__name__)

#: The text of a file: its open buffer, else the file on disk (None: unreadable).
Reader = Callable[[str], "str | None"]


@dataclass(frozen=True, slots=True)
class AnalysisInputs:
    """What the analysis of one document takes from other files."""

    #: The manifest index a manifest's ids are looked up in (None: not a manifest
    #: of an index, or no index).
    manifests: ManifestIndex | None = None
    #: The project problems of a file of an arena project (None: of no project).
    project_problems: tuple[Diagnostic, ...] | None = None


def _no_index(uri: str) -> ManifestIndex | None:
    return None


@dataclass(frozen=True, slots=True)
class WorkspaceSnapshot:
    """What a request reads beyond its own document (see the module docstring): the
    indexes of the core and readers of files, never the server's hooks."""

    converter: PositionConverter
    #: The manifest index of the workspace folder holding a uri.
    manifest_index_for: Callable[[str], ManifestIndex | None]
    arena: ArenaWorkspace | None
    read: Reader
    #: The version of an open document (None: not open, or unversioned).
    version_of: Callable[[str], int | None]

    def manifest_index(self, uri: str) -> ManifestIndex:
        """The index the features of the manifest at ``uri`` look ids up in."""
        found = self.manifest_index_for(uri)
        return found if found is not None else ManifestIndex()

    def location(self, path: str, span: Span) -> types.Location:
        """The location of ``span`` in the file ``path``, with that file's own lines
        (its open buffer when there is one, else the file on disk)."""
        uri = from_fs_path(path) or Path(path).as_uri()
        text = self.read(path)
        if text is None:
            start = types.Position(line=0, character=0)
            return types.Location(uri=uri, range=types.Range(start=start, end=start))
        return types.Location(uri=uri, range=self.converter.range(LineIndex(text), span))

    def arena_checks(self, uri: str) -> list[ProjectCheck]:
        """The checked arena projects the file at ``uri`` is part of."""
        path = to_fs_path(uri)
        if self.arena is None or not path:
            return []
        return self.arena.projects_of(path)

    def arena_check(self, config_path: str) -> ProjectCheck | None:
        """The checked project of the arena config at ``config_path``."""
        return self.arena.check(config_path) if self.arena is not None else None


@dataclass(slots=True)
class Workspace:
    """The manifest indexes and the arena projects of the session (module docstring).

    ``manifests`` and ``arena`` are set by their feature modules' ``register``
    (``server.manifests``, ``server.arena``); without one, its documents are
    analysed on their own.
    """

    read: Reader
    version_of: Callable[[str], int | None]
    converter: Callable[[], PositionConverter]
    #: Reports a failure to the client's log (``ServerBase.log_message``).
    report: Callable[[str, types.MessageType], None]
    manifests: ManifestSupport | None = None
    arena: ArenaSupport | None = None

    def start(self) -> None:
        """Index the manifests and load the arena projects of the workspace folders."""
        if self.manifests is not None:
            self.manifests.start()
        if self.arena is not None:
            self.arena.start()

    def changed(self, uri: str, text: str | None) -> None:
        """``uri`` was opened, changed, saved (``text``: its buffer) or closed
        (``None``): keep the indexes current and re-check the documents depending on
        it. A failure is logged and leaves the other index alone."""
        if self.arena is not None:
            try:
                self.arena.changed(uri)
            except Exception as exc:
                log.exception("arena project update failed for %s", uri)
                self.report(
                    f"pack-lsp: arena project update failed for {uri}: {exc}",
                    types.MessageType.Error,
                )
        if self.manifests is None:
            return
        try:
            self.manifests.changed(uri, text)
        except Exception as exc:
            log.exception("manifest index update failed for %s", uri)
            self.report(
                f"pack-lsp: manifest update failed for {uri}: {exc}", types.MessageType.Error
            )

    def settings_changed(self) -> None:
        """The settings changed: re-check the projects with their new configuration."""
        if self.arena is not None:
            self.arena.settings_changed()

    def inputs(self, uri: str, manifest: bool) -> AnalysisInputs:
        """What the analysis of ``uri`` takes from other files (``manifest``: the
        document is an agent-extension manifest)."""
        index = None
        if manifest and self.manifests is not None:  # cross-file rules
            index = self.manifests.workspace_for(uri)
        problems = None
        if self.arena is not None and self.arena.member(uri):
            problems = self.arena.diagnostics_for(uri)
        return AnalysisInputs(index, problems)

    def location(self, path: str, span: Span) -> types.Location:
        """A span of another file, converted with that file's own lines."""
        return self.snapshot().location(path, span)

    def snapshot(self) -> WorkspaceSnapshot:
        """What a request may read of the other files of the workspace."""
        return WorkspaceSnapshot(
            self.converter(),
            self.manifests.workspace_for if self.manifests is not None else _no_index,
            self.arena.workspace if self.arena is not None else None,
            self.read,
            self.version_of,
        )
