"""The workspace scan: off the event loop, with progress.

Three things need every file of the workspace folders: the agent-extension manifests'
index (``server.manifests``), the arena projects (``server.arena``) and the workspace
symbol index (``core.ide.symbols.SymbolIndex``). On a large repository, reading them
takes seconds; this module does it in a background thread, so that:

- the event loop keeps answering, and a pack opened meanwhile gets its diagnostics
  without waiting for the scan (its analysis needs no other file; both scans step
  aside, file by file, while such an analysis runs);
- the session's scan (``start``, at ``initialized``) goes through the server's
  ``Workspace`` (``server.workspace``), the one owner of the manifests' indexes and
  the arena projects: ``begin`` on the event loop, ``scan_folders`` in the thread,
  ``install`` on the event loop; a manifest or an arena document, whose diagnostics
  depend on the other files, has its analysis wait for it, so that it is never
  published from half an index, and the open ones are checked again once it is
  installed (``server.workspace_problems`` then checks every pack file of the
  workspace when the ``workspaceDiagnostics`` setting asks);
- the client shows work-done progress ("Indexing 1,240 / 10,000 files") when it
  supports it (``window.workDoneProgress``);
- the symbol index is built by the session's first ``workspace/symbol``, which waits
  for it (a session that never searches never parses every pack, nor keeps the memory
  that takes); later searches answer from it, kept current by file events
  (``workspace/didChangeWatchedFiles``, registered when the client can) and saves,
  and rebuilt in the background, for a search, when it is older than ``RESCAN_AFTER``
  and the client sends no file events.

What runs in the thread touches no server state and sends nothing: the folders'
configurations are read on the event loop before, and the results are put in place
on the event loop after.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import time
import uuid
import weakref
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from pack_lsp.core.ide.symbols import SymbolIndex
from pack_lsp.core.model.config import Config
from pack_lsp.server.memory import trim
from pack_lsp.server.workspace import scan_folders

if TYPE_CHECKING:
    from pack_lsp.server.app import PackServer

log = logging.getLogger(__name__)

#: Seconds between two scans for the symbol index when the client sends no file events.
RESCAN_AFTER = 60.0
#: Longest wait (seconds) of a scan for the analyses of open documents.
WAIT_LIMIT = 30.0
#: Longest wait (seconds) for the client to accept a progress token.
CREATE_WAIT = 5.0
#: Least time (seconds) between two progress reports.
REPORT_EVERY = 0.2
_WATCH_ID = "pack-lsp-workspace-files"


@dataclass(eq=False)
class WorkspaceScan:
    """The scan's state, one per server."""

    symbols: SymbolIndex = field(default_factory=SymbolIndex)
    #: The session's scan (``start``; done when the workspace is read).
    session: asyncio.Task[None] | None = None
    #: Builds the symbol index (``symbols_index``).
    symbols_task: asyncio.Task[None] | None = None
    scanned_at: float = 0.0
    #: The client sends ``workspace/didChangeWatchedFiles`` (registered by the server).
    watching: bool = False


#: Each server's scan.
_SCANS: weakref.WeakKeyDictionary[object, WorkspaceScan] = weakref.WeakKeyDictionary()


def scan_of(ls: PackServer) -> WorkspaceScan:
    found = _SCANS.get(ls)
    if found is None:
        found = _SCANS[ls] = WorkspaceScan()
    return found


def _capabilities(ls: PackServer) -> types.ClientCapabilities | None:
    """The client's capabilities (None before ``initialize``)."""
    try:
        return ls.client_capabilities
    except AttributeError:
        return None


def _step_aside(ls: PackServer, until: float) -> None:
    """In a scan's thread: wait while an analysis runs (at most until ``until``)."""
    ls.workspace_index.step_aside(until)


class Progress:
    """Work-done progress of one scan, sent from the event loop (a no-op when the client
    does not support it)."""

    def __init__(self, ls: PackServer, loop: asyncio.AbstractEventLoop) -> None:
        self.ls = ls
        self.loop = loop
        self.token: str | None = None
        self.sent = 0.0

    async def begin(self, title: str) -> None:
        caps = _capabilities(self.ls)
        window = caps.window if caps is not None else None
        if window is None or not window.work_done_progress:
            return
        token = f"pack-lsp-scan-{uuid.uuid4().hex[:12]}"
        try:
            # A client that never answers must not hold the scan up.
            await asyncio.wait_for(self.ls.work_done_progress.create_async(token), CREATE_WAIT)
        except Exception:  # the client refused, failed or did not answer: no progress
            log.debug("work-done progress refused", exc_info=True)
            return
        self.token = token
        self.ls.work_done_progress.begin(
            token, types.WorkDoneProgressBegin(title=title, cancellable=False, percentage=0)
        )

    def report(self, message: str, percentage: int | None = None, *, force: bool = False) -> None:
        """From any thread; reports closer than ``REPORT_EVERY`` are dropped."""
        if self.token is None:
            return
        now = time.monotonic()
        if not force and now - self.sent < REPORT_EVERY:
            return
        self.sent = now
        value = types.WorkDoneProgressReport(message=message, percentage=percentage)
        token = self.token
        self.loop.call_soon_threadsafe(self._report, token, value)

    def _report(self, token: str, value: types.WorkDoneProgressReport) -> None:
        """On the event loop: send a report, unless the session is shutting down (a
        scan may still run then; the connection may be gone)."""
        if not getattr(self.ls.protocol, "_shutdown", False):
            self.ls.work_done_progress.report(token, value)

    def end(self, message: str) -> None:
        if self.token is not None:
            self.ls.work_done_progress.end(self.token, types.WorkDoneProgressEnd(message=message))
            self.token = None


@dataclass
class _Found:
    """What the symbol scan found: packs indexed, failures."""

    packs: int = 0
    failures: list[str] = field(default_factory=list)


def _scan_symbols(
    ls: PackServer, folders: dict[str, Config], progress: Progress, found: _Found
) -> None:
    scan = scan_of(ls)
    until = time.monotonic() + WAIT_LIMIT
    _step_aside(ls, until)

    def each(done: int, total: int) -> None:
        progress.report(f"{done:,} / {total:,} files", done * 100 // max(total, 1))
        _step_aside(ls, until)

    try:
        exclude = tuple(p for config in folders.values() for p in config.exclude)
        scan.symbols.exclude = exclude
        found.packs = scan.symbols.scan([Path(f) for f in folders], each)
    except Exception as exc:
        log.exception("cannot index the workspace symbols")
        found.failures.append(f"cannot index the workspace symbols: {exc}")
    # Every pack was parsed for its symbols and only the symbols are kept: give the
    # memory of the parses back to the system.
    trim()


def _folder_configs(ls: PackServer) -> dict[str, Config]:
    """Each workspace folder's configuration (on the event loop: it may show a message)."""
    out: dict[str, Config] = {}
    for folder in ls.workspace_folders():
        key = os.path.abspath(folder)  # the manifests' index keys (``server.manifests``)
        try:
            out[key] = ls.config_for(from_fs_path(str(Path(key) / "_")) or "")
        except Exception:
            log.exception("cannot read the configuration of %s", key)
            out[key] = Config()
    return out


async def run_scan(ls: PackServer, *, symbols: bool = False) -> None:
    """Build the symbol index (``symbols_index``), with progress."""
    scan = scan_of(ls)
    loop = asyncio.get_running_loop()
    progress = Progress(ls, loop)
    try:
        folders = _folder_configs(ls)
        if not folders:
            return
        await progress.begin("pack-lsp: indexing the workspace symbols")
        found = _Found()
        await asyncio.to_thread(_scan_symbols, ls, folders, progress, found)
        for failure in found.failures:
            ls.log_message(f"pack-lsp: {failure}", types.MessageType.Warning)
        progress.end(f"{found.packs:,} files indexed")
    except Exception:
        log.exception("the workspace scan failed")
        progress.end("the workspace scan failed")
    finally:
        scan.scanned_at = time.monotonic()


async def read_workspace(ls: PackServer, folders: dict[str, Config]) -> None:
    """The session's scan (``start``): the files of the workspace folders read in a
    thread, with progress, and put in place by the ``Workspace``; then the open
    manifests and arena documents are checked again (their analyses waited for it,
    or gave up waiting) and, with ``workspaceDiagnostics``, every pack file."""
    workspace = ls.workspace_index
    loop = asyncio.get_running_loop()
    progress = Progress(ls, loop)
    until = time.monotonic() + WAIT_LIMIT

    def each(done: int, total: int) -> None:
        progress.report(
            f"Indexing {done:,} / {total:,} files", done * 100 // max(total, 1), force=done == total
        )

    try:
        reading = loop.create_task(
            asyncio.to_thread(
                scan_folders,
                folders,
                manifests=ls.manifests is not None,
                arena=ls.arena is not None,
                each=each,
                step_aside=lambda: workspace.step_aside(until),
            )
        )
        await progress.begin("pack-lsp: indexing the workspace")
        found = await reading
        workspace.install(found)
        packs = sum(len(f.packs) for f in found)
        progress.end(f"{packs:,} pack files found")
    except Exception:
        log.exception("the workspace scan failed")
        progress.end("the workspace scan failed")
    finally:
        workspace.end()
    for uri in list(ls.tracks):
        if workspace.depends_on_scan(ls.recognized.get(uri)):
            ls.document_changed(uri, reuse=False, at_once=not ls.pull_diagnostics)
    ls.refresh_diagnostics()
    if workspace.problems is not None:
        workspace.problems.scanned()


def start(ls: PackServer) -> None:
    """Start the session's scan (``initialized``): returns at once; manifests and
    arena documents wait for it from now on."""
    folders = _folder_configs(ls)
    ls.workspace_index.begin(folders)
    scan_of(ls).session = _background(read_workspace(ls, folders))
    _background(_watch_files(ls))


#: Background tasks kept alive until done.
_TASKS: set[asyncio.Task[Any]] = set()


def _background(coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
    task = asyncio.get_running_loop().create_task(coro)
    _TASKS.add(task)
    task.add_done_callback(_TASKS.discard)
    return task


def symbols_index(ls: PackServer) -> asyncio.Task[None] | None:
    """The task that builds the symbol index, started by the first ``workspace/symbol``
    of the session (a session that never searches never reads every pack); later, a
    new one when the index is older than ``RESCAN_AFTER`` and the client sends no file
    events. None when the index is current."""
    scan = scan_of(ls)
    task = scan.symbols_task
    if task is not None and not task.done():
        return task
    stale = time.monotonic() - scan.scanned_at >= RESCAN_AFTER and not scan.watching
    if task is None or stale:
        scan.symbols_task = task = _background(run_scan(ls, symbols=True))
        return task
    return None


async def _watch_files(ls: PackServer) -> None:
    """Ask the client for file events of YAML and JSON files, when it can register them
    dynamically."""
    caps = _capabilities(ls)
    workspace = caps.workspace if caps is not None else None
    watched = workspace.did_change_watched_files if workspace is not None else None
    if watched is None or not watched.dynamic_registration:
        return
    options = types.DidChangeWatchedFilesRegistrationOptions(
        watchers=[types.FileSystemWatcher(glob_pattern="**/*.{yaml,yml,json}")]
    )
    registration = types.Registration(
        id=_WATCH_ID,
        method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
        register_options=options,
    )
    try:
        await ls.client_register_capability_async(
            types.RegistrationParams(registrations=[registration])
        )
    except Exception:
        log.debug("file events not registered", exc_info=True)
        return
    scan_of(ls).watching = True


def files_changed(ls: PackServer, params: types.DidChangeWatchedFilesParams) -> None:
    """File events: re-read the packs among the changed files, in the background."""
    changed: list[Path] = []
    removed: list[Path] = []
    for event in params.changes:
        path = to_fs_path(event.uri)
        if not path:
            continue
        (removed if event.type == types.FileChangeType.Deleted else changed).append(Path(path))
    if changed or removed:
        update_symbols(ls, changed, removed)
        ls.workspace_index.files_changed(changed, removed)


def update_symbols(ls: PackServer, changed: Sequence[Path], removed: Sequence[Path] = ()) -> None:
    """Update the symbol index for files changed or removed on disk (in a thread)."""
    scan = scan_of(ls)
    if not scan.symbols.ready:
        return  # the running scan reads them
    run = functools.partial(scan.symbols.update, list(changed), list(removed))
    _background(asyncio.to_thread(run))


def register(server: PackServer) -> None:
    server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)(files_changed)
