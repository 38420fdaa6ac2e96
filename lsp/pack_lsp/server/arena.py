"""Arena projects in the server: the projects of the workspace, kept with the editor's text.

At the session's start the arena configs below each workspace folder are found and
their projects checked (``ArenaWorkspace``, reading open buffers first, else the
files on disk). When a document is opened, changed, saved or closed, the projects
naming it (or its own, for a config) are checked again before the document itself
is analysed; every other file whose project problems changed is re-analysed and
published (push) or refreshed (pull), open in the editor or not. A document's
analysis takes its project problems as problems found before parsing, so the
configuration, the profile and suppression comments apply to them
(``DocumentStore._analyze``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from pack_lsp.core.analysis import analyze
from pack_lsp.core.arena.project import norm
from pack_lsp.core.arena.workspace import ArenaWorkspace, find_configs
from pack_lsp.core.diagnostics import Diagnostic
from pack_lsp.core.source import decode, read_source, strip_bom
from pack_lsp.server.app import PackServer

log = logging.getLogger(__name__)


@dataclass(slots=True)
class ServerArena:
    """The server's hooks into the arena projects (``base.ArenaSupport``)."""

    server: PackServer
    workspace: ArenaWorkspace = field(init=False)

    def __post_init__(self) -> None:
        self.workspace = ArenaWorkspace(read=self._read)

    def _read(self, path: str) -> str | None:
        uri = from_fs_path(path) or Path(path).as_uri()
        doc = self.server.documents.get(uri)
        if doc is not None:
            return strip_bom(doc.text)
        try:
            return decode(read_source(path))[0]
        except (OSError, ValueError):
            return None

    def start(self) -> None:
        for folder in self.server.workspace_folders():
            try:
                config = self.server.config_for(from_fs_path(str(Path(folder) / "_")) or "")
                for found in find_configs(folder, config.exclude):
                    self.workspace.add_config(found, config)
            except Exception as exc:
                log.exception("cannot load the arena projects of %s", folder)
                self.server.log_message(
                    f"pack-lsp: cannot load the arena projects of {folder}: {exc}",
                    types.MessageType.Warning,
                )

    def diagnostics_for(self, uri: str) -> tuple[Diagnostic, ...]:
        path = to_fs_path(uri)
        return self.workspace.diagnostics_for(path) if path else ()

    def member(self, uri: str) -> bool:
        path = to_fs_path(uri)
        return path is not None and bool(self.workspace.projects_of(path))

    def changed(self, uri: str) -> None:
        """``uri`` was opened, changed, saved or closed: re-check what depends on it."""
        path = to_fs_path(uri)
        if not path:
            return
        affected = self.workspace.changed(path) - {norm(path)}
        if not affected:
            return
        for other in sorted(affected):
            other_uri = from_fs_path(other) or Path(other).as_uri()
            if other_uri in self.server.documents:
                self.server.document_changed(
                    other_uri, reuse=False, at_once=not self.server.pull_diagnostics
                )
            elif not self.server.pull_diagnostics:
                self._publish_unopened(other_uri, other)
        self.server.refresh_diagnostics()

    def _publish_unopened(self, uri: str, path: str) -> None:
        text = self._read(path)
        if text is None:
            return
        try:
            result = analyze(
                text,
                path=path,
                config=self.server.config_for(uri),
                pre_diagnostics=list(self.workspace.diagnostics_for(path)),
            )
            self.server.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(
                    uri=uri, diagnostics=self.server.lsp_diagnostics(uri, result)
                )
            )
        except Exception as exc:
            log.exception("re-check failed for %s", uri)
            self.server.log_message(
                f"pack-lsp: re-check failed for {uri}: {exc}", types.MessageType.Error
            )


def register(server: PackServer) -> None:
    """Hook the arena projects into the server; ``initialized`` loads them."""
    server.arena = ServerArena(server)
