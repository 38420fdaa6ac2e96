"""Arena projects in the server: the projects of the workspace, kept with the editor's text.

At the session's start the arena configs below each workspace folder are found and
their projects checked (``ArenaWorkspace``, reading open buffers first, else the
files on disk). A PromptKit document of no known project, opened when the client's
root holds no config naming it (eglot's root may be the file's own folder), brings
in the projects of the arena configs above it that name it. When a document is
opened, changed, saved or closed, the projects naming it (or its own, for a config)
are checked again before the document itself is analysed; every other file whose
project problems changed is re-analysed and published (push) or refreshed (pull),
open in the editor or not. A document's analysis takes its project problems as
problems found before parsing, so the configuration, the profile and suppression
comments apply to them (``DocumentStore._analyze``).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from pack_lsp.core.base import kinds
from pack_lsp.core.base.diagnostics import Diagnostic
from pack_lsp.core.base.text import LineIndex, Span
from pack_lsp.core.checks.analysis import Analysis, analyze
from pack_lsp.core.checks.arena.check import ProjectCheck
from pack_lsp.core.checks.arena.workspace import ArenaWorkspace, find_configs
from pack_lsp.core.checks.rules.arena_project import complete
from pack_lsp.core.ide.arena import navigation
from pack_lsp.core.model.arena.project import Project, norm
from pack_lsp.core.model.config import Config
from pack_lsp.server.app import PackServer
from pack_lsp.server.rechecks import recheck, text_of
from pack_lsp.server.snapshot import DocumentSnapshot

log = logging.getLogger(__name__)


@dataclass(slots=True)
class ServerArena:
    """The server's hooks into the arena projects (``base.ArenaSupport``)."""

    server: PackServer
    workspace: ArenaWorkspace = field(init=False)

    def __post_init__(self) -> None:
        self.workspace = ArenaWorkspace(read=self._read, config_for=self._config_of)

    def _config_of(self, config_path: str) -> Config:
        """The configuration a project is checked with: that of its arena config's
        location (``.pack-lsp.toml`` and the editor's settings)."""
        return self.server.config_for(from_fs_path(config_path) or "")

    def _read(self, path: str) -> str | None:
        return text_of(self.server, path)

    def start(self) -> None:
        """Load the arena projects of the workspace folders on the calling thread."""
        for folder in self.server.workspace_folders():
            try:
                config = self.server.config_for(from_fs_path(str(Path(folder) / "_")) or "")
                self.install(list(find_configs(folder, config.exclude)))
            except Exception as exc:
                log.exception("cannot load the arena projects of %s", folder)
                self.server.log_message(
                    f"pack-lsp: cannot load the arena projects of {folder}: {exc}",
                    types.MessageType.Warning,
                )

    def install(self, configs: Sequence[str]) -> None:
        for config_path in configs:
            try:
                self.workspace.add_config(config_path)
            except Exception as exc:
                log.exception("cannot load the arena project of %s", config_path)
                self.server.log_message(
                    f"pack-lsp: cannot load the arena project of {config_path}: {exc}",
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
        if Path(path).name in (".pack-lsp.toml", "pyproject.toml"):
            # A configuration file: the projects below it may be checked differently.
            self.settings_changed()
            return
        found = self._find_projects(uri, path)
        affected = (self.workspace.changed(path) | found) - {norm(path)}
        if affected:
            recheck(self.server, affected, self._analyse)

    def _find_projects(self, uri: str, path: str) -> set[str]:
        """An open PromptKit document of no known project (its arena config is outside
        the workspace folders, as when the client's root is the file's own folder): load
        the projects of the arena configs above it that name it; their files."""
        doc = self.server.documents.get(uri)
        if doc is None or self.workspace.projects_of(path):
            return set()
        if self.server.kind_of(uri, doc.text) != kinds.ARENA:
            return set()
        return self.workspace.find_projects(path)

    def settings_changed(self) -> None:
        """The settings changed: re-check the projects with their new configuration and
        re-publish the files whose project problems changed (open files are analysed
        again by ``recheck_all``)."""
        affected = self.workspace.refresh()
        if affected:
            recheck(self.server, affected, self._analyse)

    def _analyse(self, text: str, path: str, uri: str) -> Analysis:
        """The analysis of a file of the projects that is not open."""
        return analyze(
            text,
            path=path,
            config=self.server.config_for(uri),
            pre_diagnostics=list(self.workspace.diagnostics_for(path)),
        )


def register(server: PackServer) -> None:
    """Hook the arena projects into the server; ``initialized`` loads them."""
    server.arena = ServerArena(server)


# ------------------------------------------------------------------ requests
# What the requests on a document of an arena project read, from its snapshot
# (``WorkspaceSnapshot.arena_checks``): the feature modules' ``arena`` handlers.


def _projects(snap: DocumentSnapshot) -> list[Project]:
    if snap.workspace is None:
        return []
    return [c.project for c in snap.workspace.arena_checks(snap.uri)]


def _compiled(snap: DocumentSnapshot) -> ProjectCheck | None:
    """The check of the first project of the file of ``snap`` that has a compiled pack."""
    if snap.workspace is None:
        return None
    for checked in snap.workspace.arena_checks(snap.uri):
        project = checked.project
        if checked.compiled_analysis.pack is not None and complete(project) and project.prompts:
            return checked
    return None


def compiled_snapshot(snap: DocumentSnapshot) -> DocumentSnapshot:
    """The snapshot the cards preview and the topology read: for a file of an arena
    project, the compiled pack of its project (the document's own uri and version);
    for any other document, ``snap`` itself."""
    if snap.analysis.pack is not None:
        return snap
    checked = _compiled(snap)
    if checked is None:
        return snap
    return snap.with_analysis(checked.compiled_analysis)


def member_keys(snap: DocumentSnapshot) -> list[tuple[str, types.Range]]:
    """The ``agents.members`` keys of the compiled pack written in this file (an arena
    config), with their ranges in it: where the cards' code lenses go."""
    if snap.analysis.pack is not None:
        return []
    checked = _compiled(snap)
    pack = checked.compiled_analysis.pack if checked is not None else None
    if checked is None or pack is None or pack.agents is None:
        return []
    path = norm(to_fs_path(snap.uri) or "")
    out = []
    for key, member in pack.agents.members.items():
        mark = checked.source_map.find(member.key_span)
        if mark is not None and mark.origin.path == path:
            out.append((key, snap.range(mark.origin.span)))
    return out


def _location(snap: DocumentSnapshot, project: Project, path: str, span: Span) -> types.Location:
    if path == norm(to_fs_path(snap.uri) or ""):
        return snap.location(span)
    text = project.files[path].text
    uri = from_fs_path(path) or Path(path).as_uri()
    return types.Location(uri=uri, range=snap.converter.range(LineIndex(text), span))


def definition(snap: DocumentSnapshot, offset: int) -> list[types.Location] | None:
    """Where the name at ``offset`` of an arena file is defined (None: not an arena file
    or no cross-file name there)."""
    path = to_fs_path(snap.uri) or ""
    for project in _projects(snap):
        if navigation.at(project, path, offset) is not None:
            found = navigation.definition(project, path, offset)
            return [_location(snap, project, o.path, o.span) for o in found]
    return None


def references(
    snap: DocumentSnapshot, offset: int, include_declaration: bool
) -> list[types.Location] | None:
    """Every occurrence of the name at ``offset`` in the projects of the file."""
    path = to_fs_path(snap.uri) or ""
    out: list[types.Location] = []
    seen: set[tuple[str, int, int]] = set()
    found_any = False
    for project in _projects(snap):
        if navigation.at(project, path, offset) is None:
            continue
        found_any = True
        for occ in navigation.references(project, path, offset, include_declaration):
            if (occ.path, occ.span.start, occ.span.end) not in seen:
                seen.add((occ.path, occ.span.start, occ.span.end))
                out.append(_location(snap, project, occ.path, occ.span))
    return out if found_any else None


def prepare_rename(snap: DocumentSnapshot, offset: int) -> types.PrepareRenamePlaceholder | None:
    path = to_fs_path(snap.uri) or ""
    for project in _projects(snap):
        occ = navigation.at(project, path, offset)
        if occ is not None:
            return types.PrepareRenamePlaceholder(range=snap.range(occ.span), placeholder=occ.name)
    return None


def rename(snap: DocumentSnapshot, offset: int, new_name: str) -> types.WorkspaceEdit | str | None:
    """The edit renaming the name at ``offset`` in every file of the file's project
    (the first project naming the file, when several do)."""
    path = to_fs_path(snap.uri) or ""
    for project in _projects(snap):
        if navigation.at(project, path, offset) is None:
            continue
        try:
            edits = navigation.rename(project, path, offset, new_name)
        except navigation.RenameError as exc:
            return str(exc)
        changes: dict[str, list[types.TextEdit]] = {}
        for file_path, file_edits in edits.items():
            uri = from_fs_path(file_path) or Path(file_path).as_uri()
            lines = LineIndex(project.files[file_path].text)
            changes[uri] = [
                types.TextEdit(range=snap.converter.range(lines, e.span), new_text=e.text)
                for e in file_edits
            ]
        return types.WorkspaceEdit(changes=changes)
    return None
