"""The part of ``PackServer`` every other part relies on: messages and positions.

``PackServer`` is composed of layers (``settings`` → ``documents`` →
``diagnostics``, plus ``lifecycle``) that all build on ``ServerBase``; the protocol
(``pack_lsp.server.protocol``) talks to the server through this class, so that it
does not import the module that assembles the server.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from pack_lsp.core.base.diagnostics import Diagnostic
from pack_lsp.core.checks.arena.workspace import ArenaWorkspace
from pack_lsp.core.model.manifest.workspace import ManifestIndex
from pack_lsp.server.positions import PositionConverter

if TYPE_CHECKING:
    from pack_lsp.server.workspace import Workspace

log = logging.getLogger(__name__)


class ManifestSupport(Protocol):
    """What the manifests feature module (``server.manifests``) gives the server.

    Manifests name each other across files; the module keeps the workspace index
    and is called at the hooks of the other parts (kept here as a protocol so that
    they do not import it).
    """

    def install(self, indexes: Mapping[str, ManifestIndex]) -> None:
        """The workspace scan indexed the manifests of these folders (by absolute
        path): they replace the folders' indexes, with the open manifests' texts."""

    def workspace_for(self, uri: str) -> ManifestIndex | None:
        """The index a manifest at ``uri`` is analysed with."""

    def changed(self, uri: str, text: str | None) -> None:
        """A document was opened, changed, saved or closed (``None``): update, re-check."""


class ArenaSupport(Protocol):
    """What the arena projects module (``server.arena``) gives the server."""

    #: The checked projects (read by requests through ``WorkspaceSnapshot``).
    workspace: ArenaWorkspace

    def install(self, configs: Sequence[str]) -> None:
        """The workspace scan found these arena configs: load and check their projects."""

    def diagnostics_for(self, uri: str) -> tuple[Diagnostic, ...]:
        """The project problems of the file at ``uri`` (every project it is part of)."""

    def member(self, uri: str) -> bool:
        """Whether the file at ``uri`` is part of an arena project."""

    def changed(self, uri: str) -> None:
        """A document was opened, changed, saved or closed: re-check its projects."""

    def settings_changed(self) -> None:
        """The settings changed: re-check the projects with their new configuration."""


class ProblemsSupport(Protocol):
    """The workspace diagnostics (``server.workspace_problems``): the problems of the
    pack files that are not open, when the ``workspaceDiagnostics`` setting asks."""

    def scanned(self) -> None:
        """The session's workspace scan listed the pack files."""

    def settings_changed(self) -> None:
        """The settings changed (the setting may have been turned on or off)."""

    def changed(self, uri: str, text: str | None) -> None:
        """A document was opened, changed, saved or closed (``None``)."""

    def files_changed(self, changed: Sequence[Path], removed: Sequence[Path]) -> None:
        """Files changed or were deleted on disk."""

    async def report(
        self, params: types.WorkspaceDiagnosticParams
    ) -> types.WorkspaceDiagnosticReport:
        """``workspace/diagnostic``."""


class ServerBase(LanguageServer):
    """Client messages and the negotiated position conversion."""

    _shown: set[str]
    #: The manifest indexes and arena projects of the workspace (``server.workspace``).
    workspace_index: Workspace

    @property
    def manifests(self) -> ManifestSupport | None:
        """Agent-extension manifest indexes per workspace folder (``server.manifests``)."""
        return self.workspace_index.manifests

    @manifests.setter
    def manifests(self, value: ManifestSupport | None) -> None:
        self.workspace_index.manifests = value

    @property
    def arena(self) -> ArenaSupport | None:
        """Arena projects of the workspace (``server.arena``)."""
        return self.workspace_index.arena

    @arena.setter
    def arena(self, value: ArenaSupport | None) -> None:
        self.workspace_index.arena = value

    # ----------------------------------------------------------------- conversion

    @property
    def converter(self) -> PositionConverter:
        return PositionConverter(self.workspace.position_encoding)

    def workspace_folders(self) -> list[Path]:
        """The client's workspace folders as paths (its root path when it names none)."""
        out: list[Path] = []
        for folder in self.workspace.folders.values():
            path = to_fs_path(folder.uri)
            if path:
                out.append(Path(path))
        if not out and self.workspace.root_path:
            out.append(Path(self.workspace.root_path))
        return out

    # ------------------------------------------------------------------ messages

    def log_message(self, message: str, kind: types.MessageType = types.MessageType.Log) -> None:
        """Send ``window/logMessage`` (never raises)."""
        try:
            self.window_log_message(types.LogMessageParams(type=kind, message=message))
        except Exception:  # the connection may be gone
            log.exception("cannot send a log message")

    def show_once(self, message: str, kind: types.MessageType = types.MessageType.Warning) -> None:
        """``window/showMessage``, each distinct message once per session."""
        if message in self._shown:
            return
        self._shown.add(message)
        try:
            self.window_show_message(types.ShowMessageParams(type=kind, message=message))
        except Exception:
            log.exception("cannot show a message")
