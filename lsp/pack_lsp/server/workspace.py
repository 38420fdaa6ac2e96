"""The workspace beyond one document: one object owns the cross-file indexes.

Two kinds of documents depend on other files: agent-extension manifests name each
other by id (``server.manifests`` keeps a ``ManifestIndex`` per workspace folder),
and the documents of an arena project name each other's prompts, tools and
providers (``server.arena`` keeps the projects, ``core.arena.workspace``).
``Workspace`` owns both behind one interface, and the rest of the server talks to
it only:

- the workspace scan (``scan_folders``, in a background thread started at
  ``initialized`` by ``server.indexing``) lists the pack files of each folder, builds
  its manifests' index and finds its arena configs; ``begin`` (before) and
  ``install`` (after, on the event loop) put what it found in place, and ``start``
  does all three at once on the calling thread;
- while the scan runs (``scanning``), the analysis of a manifest or of an arena
  document waits for it (``wait_scanned`` on the event loop, ``wait_ready`` in a
  worker thread), so that its diagnostics never come from half an index; the scan
  steps aside, file by file, while any other analysis runs (``analysing``);
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

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from pack_lsp.core.base import kinds
from pack_lsp.core.base.diagnostics import Diagnostic
from pack_lsp.core.base.text import LineIndex, Span
from pack_lsp.core.checks.arena.check import ProjectCheck
from pack_lsp.core.checks.arena.workspace import ArenaWorkspace, find_configs
from pack_lsp.core.model.config import Config
from pack_lsp.core.model.discover import candidates, is_pack_file
from pack_lsp.core.model.manifest.files import index_files
from pack_lsp.core.model.manifest.workspace import ManifestIndex
from pack_lsp.server.base import ArenaSupport, ManifestSupport, ProblemsSupport
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


#: Longest wait (seconds) of a manifest's or an arena document's analysis for the scan,
#: and of the scan for the other analyses (it steps aside while one runs).
WAIT_LIMIT = 30.0
#: Progress of the scan: (files looked at, files to look at).
Each = Callable[[int, int], None]


@dataclass(frozen=True, slots=True)
class FolderFiles:
    """What the scan found in one workspace folder."""

    folder: str
    #: Its pack files: packs, manifests, Kubernetes manifests carrying packs, and files
    #: named like packs (``core.model.discover.is_pack_file``), sorted.
    packs: tuple[Path, ...] = ()
    #: Its manifests' index (None: not asked for).
    manifests: ManifestIndex | None = None
    arena_configs: tuple[str, ...] = ()
    failures: tuple[str, ...] = ()


def scan_folders(
    folders: Mapping[str, Config],
    *,
    manifests: bool = True,
    arena: bool = True,
    each: Each | None = None,
    step_aside: Callable[[], None] | None = None,
) -> list[FolderFiles]:
    """Read the workspace folders (each with its configuration): list the files a
    directory scan looks at, tell the pack files among them (``each(done, total)``
    after each file, ``step_aside()`` before it), index the manifests and find the
    arena configs. Reads files only through the core's guarded readers and changes
    nothing: safe in any thread."""
    listed: dict[str, list[Path]] = {}
    failures: dict[str, list[str]] = {folder: [] for folder in folders}
    for folder, config in folders.items():
        try:
            listed[folder] = list(candidates(Path(folder), config.exclude))
        except OSError as exc:
            failures[folder].append(f"cannot list the files of {folder}: {exc}")
            listed[folder] = []
    total = sum(len(paths) for paths in listed.values())
    done = 0
    out: list[FolderFiles] = []
    for folder, config in folders.items():
        packs: list[Path] = []
        for path in listed[folder]:
            if step_aside is not None:
                step_aside()
            if is_pack_file(path, config.manifests):
                packs.append(path)
            done += 1
            if each is not None:
                each(done, total)
        index = None
        if manifests:
            try:
                index = index_files(packs, config.manifests)
            except Exception as exc:
                log.exception("cannot index the manifests of %s", folder)
                failures[folder].append(f"cannot index the manifests of {folder}: {exc}")
                index = ManifestIndex()
        configs: tuple[str, ...] = ()
        if arena:
            try:
                configs = tuple(find_configs(folder, config.exclude))
            except Exception as exc:
                log.exception("cannot find the arena projects of %s", folder)
                failures[folder].append(f"cannot load the arena projects of {folder}: {exc}")
        out.append(FolderFiles(folder, tuple(packs), index, configs, tuple(failures[folder])))
    return out


def _set_event() -> threading.Event:
    ready = threading.Event()
    ready.set()
    return ready


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
    #: The workspace diagnostics (``server.workspace_problems``).
    problems: ProblemsSupport | None = None
    #: Set when no scan runs (read by analyses in worker threads: ``wait_ready``).
    ready: threading.Event = field(default_factory=_set_event)
    #: Set when the running scan is installed (``wait_scanned``, on the event loop).
    scanned: asyncio.Event | None = None
    #: The pack files of each workspace folder, as the last scan found them.
    files: dict[str, tuple[Path, ...]] = field(default_factory=dict)
    _busy: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self, folders: Mapping[str, Config]) -> list[FolderFiles]:
        """Scan ``folders`` on the calling thread and put what was found in place."""
        self.begin(folders)
        found = scan_folders(
            folders, manifests=self.manifests is not None, arena=self.arena is not None
        )
        self.install(found)
        return found

    @property
    def scanning(self) -> bool:
        return not self.ready.is_set()

    def begin(self, folders: Mapping[str, Config]) -> None:
        """A scan of ``folders`` starts (event loop): analyses of manifests and arena
        documents wait for it from now on; each folder has an (empty) manifests' index,
        so that a manifest opened meanwhile goes to its folder's index."""
        self.ready.clear()
        with contextlib.suppress(RuntimeError):  # no running loop: ``start``
            asyncio.get_running_loop()
            self.scanned = asyncio.Event()
        if self.manifests is not None:
            self.manifests.install({folder: ManifestIndex() for folder in folders})

    def install(self, found: Sequence[FolderFiles]) -> None:
        """Put what the scan found in place (event loop) and end the scan."""
        try:
            for folder in found:
                for failure in folder.failures:
                    self.report(f"pack-lsp: {failure}", types.MessageType.Warning)
            indexes = {f.folder: f.manifests for f in found if f.manifests is not None}
            if self.manifests is not None and indexes:
                self.manifests.install(indexes)
            if self.arena is not None:
                self.arena.install([c for f in found for c in f.arena_configs])
            self.files = {f.folder: f.packs for f in found}
        finally:
            self.end()

    def end(self) -> None:
        """No scan runs any more (also after a failed one)."""
        self.ready.set()
        if self.scanned is not None:
            self.scanned.set()

    def depends_on_scan(self, kind: str | None) -> bool:
        """Whether an analysis of ``kind`` reads what the scan finds."""
        return kind in (kinds.MANIFEST, kinds.ARENA)

    async def wait_scanned(self, limit: float = WAIT_LIMIT) -> None:
        """On the event loop: until the running scan is installed (at most ``limit``)."""
        scanned = self.scanned
        if scanned is None or not self.scanning:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(scanned.wait(), limit)

    def wait_ready(self, kind: str | None, limit: float = WAIT_LIMIT) -> None:
        """In a worker thread: an analysis of a manifest or an arena document waits
        until the running scan is installed (at most ``limit``); others never wait."""
        if self.depends_on_scan(kind):
            self.ready.wait(limit)

    @contextlib.contextmanager
    def analysing(self) -> Iterator[None]:
        """Around an analysis that does not wait for the scan: the scan steps aside."""
        with self._lock:
            self._busy += 1
        try:
            yield
        finally:
            with self._lock:
                self._busy -= 1

    def step_aside(self, until: float) -> None:
        """In the scan's thread: wait while an analysis runs (at most until ``until``)."""
        while self._busy and time.monotonic() < until:
            time.sleep(0.005)

    def pack_files(self) -> list[Path]:
        """Every pack file the last scan found, sorted."""
        return sorted({p for paths in self.files.values() for p in paths})

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
        if self.problems is not None:
            self.problems.changed(uri, text)
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
        """The settings changed: re-check the projects with their new configuration,
        and start or stop the workspace diagnostics."""
        if self.arena is not None:
            self.arena.settings_changed()
        if self.problems is not None:
            self.problems.settings_changed()

    def files_changed(self, changed: Sequence[Path], removed: Sequence[Path]) -> None:
        """Files changed or were deleted on disk (file events)."""
        if self.problems is not None:
            self.problems.files_changed(changed, removed)

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
