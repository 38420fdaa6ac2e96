"""Workspace diagnostics: the problems of every pack file of the workspace, open or not.

Off by default; the ``workspaceDiagnostics`` setting turns it on. Then, once the
session's workspace scan (``server.indexing``) has listed the pack files of the
workspace folders, each file that is not open is read (through the core's guarded
reader, within the size limit) and analysed once, in a worker thread, one file at a
time and stepping aside while an open document is analysed, with work-done progress
("Checking 120 / 1,000 files"). Its diagnostics are kept, converted to LSP, with a
result id that changes only when they do, and:

- a client that pulls diagnostics gets them from ``workspace/diagnostic`` (LSP
  3.17), when the server declared ``workspaceDiagnostics`` at ``initialize`` (the
  setting was on in ``initializationOptions``): a file whose result id is the one the
  client sent in ``previousResultIds`` is reported unchanged, and open documents are
  left to ``textDocument/diagnostic``;
- any other client gets them pushed (``textDocument/publishDiagnostics`` without a
  version), as it gets those of open documents;
- a pulling client that has not asked ``workspace/diagnostic`` by the time the files
  asked for are checked (Neovim 0.11 declares pull support and never asks) gets them
  pushed too, from then on; its first ``workspace/diagnostic`` clears what was pushed
  (an empty publication for each file) before it is answered, and every later report
  goes by pull only. A file opened in such a client has its pushed report cleared, as
  its problems are pulled as an open document's. No file is ever reported both ways.

Files changed on disk (``workspace/didChangeWatchedFiles``) and files closed in the
editor are checked again from disk; deleted ones are cleared. Turning the setting off
clears what was pushed and forgets the results; when it is off, nothing more than the
scan reads is ever read.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from lsprotocol.converters import get_converter
from pygls.uris import from_fs_path, to_fs_path

from pack_lsp.core.base import kinds
from pack_lsp.core.base.source import decode, read_source
from pack_lsp.core.checks.analysis import Analysis, analyze
from pack_lsp.core.model.config import Config
from pack_lsp.core.model.discover import is_pack_file
from pack_lsp.core.model.recognize import recognize
from pack_lsp.server.indexing import Progress
from pack_lsp.server.protocol import PackProtocol

if TYPE_CHECKING:
    from pack_lsp.server.app import PackServer

log = logging.getLogger(__name__)
_CONVERTER = get_converter()

#: Longest wait (seconds) of the check, before each file, for the open documents'
#: analyses.
STEP_ASIDE_LIMIT = 30.0


@dataclass(frozen=True, slots=True)
class FileReport:
    """The diagnostics of one file that is not open, as LSP JSON, and their result id."""

    result_id: str
    items: tuple[dict[str, Any], ...]


def analyse_file(path: str, config: Config, server: PackServer) -> Analysis | None:
    """The analysis of the pack file ``path`` read from disk (a worker thread): as
    ``--check`` analyses a file of a directory, with what the workspace gives a
    manifest or a file of an arena project. None when it cannot be read (a file over
    the size limit, a FIFO, ...; logged) or is no document pack-lsp checks."""
    try:
        raw = read_source(path)
    except OSError as exc:
        log.info("workspace diagnostics: %s not read: %s", path, exc)
        return None
    text, pre = decode(raw)
    recognition = recognize(path, text, config.manifests)
    kind = recognition.kind
    if kind is None:
        return None
    uri = from_fs_path(path) or Path(path).as_uri()
    inputs = server.workspace_index.inputs(uri, manifest=kind == kinds.MANIFEST)
    if inputs.project_problems is not None:
        pre = [*inputs.project_problems, *pre]
    return analyze(
        text,
        path=path,
        config=config,
        kind=kind,
        pre_diagnostics=pre,
        workspace=inputs.manifests,
        recognition=recognition,
    )


@dataclass(eq=False)
class WorkspaceProblems:
    """The workspace diagnostics of one server (module docstring)."""

    server: PackServer
    #: The reports of the files checked, by uri (never of an open document).
    reports: dict[str, FileReport] = field(default_factory=dict)
    #: The uris whose diagnostics were pushed (push clients, and pull clients that
    #: have not asked yet; ``push_fallback``).
    pushed: set[str] = field(default_factory=set)
    #: A pull client has asked ``workspace/diagnostic``: it is served by pull only.
    pulled: bool = False
    #: Every file was checked before a pull client asked: reports are pushed until it asks.
    push_fallback: bool = False
    #: Paths waiting to be checked, in order.
    queue: dict[str, None] = field(default_factory=dict)
    task: asyncio.Task[None] | None = None
    #: Set when every file asked for so far is checked.
    idle: asyncio.Event | None = None
    #: The scan of the session has listed the pack files.
    scan_done: bool = False
    _ids: Iterator[int] = field(default_factory=itertools.count)

    @property
    def on(self) -> bool:
        return bool(self.server.workspace_diagnostics)

    @property
    def pushing(self) -> bool:
        """Whether reports are pushed (rather than kept for ``workspace/diagnostic``)."""
        return not self.server.pull_diagnostics or self.push_fallback

    def _idle(self) -> asyncio.Event:
        if self.idle is None:
            self.idle = asyncio.Event()
            self.idle.set()
        return self.idle

    # ------------------------------------------------------------------ triggers

    def scanned(self) -> None:
        """The session's scan listed the pack files: check them all when on."""
        self.scan_done = True
        if self.on:
            self.check(str(p) for p in self.server.workspace_index.pack_files())

    def settings_changed(self) -> None:
        """Turned on: check every file; turned off: clear and forget."""
        if not self.on:
            self.clear()
        elif self.scan_done and not self.reports and not self.queue:
            self.check(str(p) for p in self.server.workspace_index.pack_files())

    def changed(self, uri: str, text: str | None) -> None:
        """A document was opened, changed, saved or closed (``text`` None): a file
        closed is checked again from disk (its buffer may have differed)."""
        if not self.on or text is not None:
            self.reports.pop(uri, None)  # an open document is reported as one
            if text is not None and self.server.pull_diagnostics and uri in self.pushed:
                # Its problems are pulled now: the pushed ones would show twice.
                self._forget(uri, opened=True)
            return
        path = to_fs_path(uri)
        if path and self._known(Path(path)):
            self.check([path])

    def files_changed(self, changed: Sequence[Path], removed: Sequence[Path]) -> None:
        """Files changed or were deleted on disk: check them again, or clear them."""
        if not self.on:
            return
        for path in removed:
            self._forget(from_fs_path(str(path)) or path.as_uri())
        self.check(str(p) for p in changed if self._known(p))

    def _known(self, path: Path) -> bool:
        """Whether ``path`` is a file of the workspace folders to report."""
        folders = self.server.workspace_index.files
        inside = any(path.is_relative_to(folder) for folder in folders)
        return inside and is_pack_file(path)

    def check(self, paths: Iterable[str]) -> None:
        """Check ``paths`` (in the background, one at a time)."""
        for path in paths:
            self.queue[path] = None
        if not self.queue:
            return
        self._idle().clear()
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._run())

    def clear(self) -> None:
        """Forget every report; clear what was pushed."""
        self.queue.clear()
        for uri in list(self.pushed):
            self._forget(uri)
        self.reports.clear()

    def _forget(self, uri: str, *, opened: bool = False) -> None:
        """Drop ``uri``'s report and clear it in the client if it was pushed (an open
        document's own push replaces it, unless the client pulls: ``opened``)."""
        self.reports.pop(uri, None)
        if uri in self.pushed and (opened or uri not in self.server.documents):
            self._publish(uri, [])
        self.pushed.discard(uri)

    # ------------------------------------------------------------------ checking

    async def _run(self) -> None:
        server = self.server
        loop = asyncio.get_running_loop()
        progress = Progress(server, loop)
        total, done = len(self.queue), 0
        await progress.begin("pack-lsp: checking the workspace")
        try:
            while self.queue and self.on:
                path = next(iter(self.queue))
                del self.queue[path]
                total = max(total, done + 1 + len(self.queue))
                await self._step_aside()
                await self._check_one(path)
                done += 1
                progress.report(f"Checking {done:,} / {total:,} files", done * 100 // total)
            if self.on:  # every file asked for is checked (no wait since the loop's test)
                self._fall_back_to_push()
        finally:
            progress.end(f"{done:,} files checked")
            self._idle().set()

    def _fall_back_to_push(self) -> None:
        """Every file asked for is checked and a pull client has not asked for the
        reports: push them (as to a push client), and push from now on until it asks."""
        if not self.server.pull_diagnostics or self.pulled or self.push_fallback:
            return
        self.push_fallback = True
        for uri, found in sorted(self.reports.items()):
            if uri not in self.server.documents:
                self._publish(uri, list(found.items))
                self.pushed.add(uri)

    async def _step_aside(self) -> None:
        """Wait while an open document's analysis is pending (it comes first)."""
        until = time.monotonic() + STEP_ASIDE_LIMIT
        while time.monotonic() < until and any(
            not t.closed and t.analysed < t.generation for t in self.server.tracks.values()
        ):
            await asyncio.sleep(0.01)

    async def _check_one(self, path: str) -> None:
        server = self.server
        uri = from_fs_path(path) or Path(path).as_uri()
        if uri in server.documents:
            self.reports.pop(uri, None)
            return
        try:
            config = server.config_for(uri)
            result = await asyncio.get_running_loop().run_in_executor(
                server.analysis_executor(), analyse_file, path, config, server
            )
        except Exception as exc:
            log.exception("workspace diagnostics: %s failed", path)
            server.log_message(
                f"pack-lsp: checking {uri} failed: {type(exc).__name__}: {exc}",
                types.MessageType.Error,
            )
            return
        if uri in server.documents or not self.on:
            return  # opened meanwhile: reported as an open document
        if result is None:
            self._forget(uri)
            return
        items = tuple(server.diagnostics_json(uri, result))
        server.forget_converted(uri)
        old = self.reports.get(uri)
        if old is not None and old.items == items:
            return
        self.reports[uri] = FileReport(str(next(self._ids)), items)
        if self.pushing:
            self._publish(uri, list(items))
            self.pushed.add(uri)

    def _forget_push(self, uri: str) -> None:
        """Clear ``uri``'s pushed report in the client, keeping the report itself (an
        open document's problems are pulled: its pushed ones go too)."""
        self._publish(uri, [])
        self.pushed.discard(uri)

    def _publish(self, uri: str, items: list[dict[str, Any]]) -> None:
        protocol = self.server.protocol
        assert isinstance(protocol, PackProtocol)
        protocol.notify_json(
            types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, {"uri": uri, "diagnostics": items}
        )

    # ------------------------------------------------------------------ the pull

    async def report(
        self, params: types.WorkspaceDiagnosticParams
    ) -> types.WorkspaceDiagnosticReport:
        """``workspace/diagnostic``: the reports of every file that is not open, once
        the files asked for so far are checked; unchanged ones as such.

        The first request ends the push fallback: what was pushed is cleared at once
        (before any wait, so that a check finishing meanwhile pushes nothing more), and
        the answer reports those files by pull."""
        if not self.pulled:
            self.pulled = True
            self.push_fallback = False
            for uri in sorted(self.pushed):
                self._forget_push(uri)
        if self.on:
            # The scan lists the files (their checks are queued as it is installed).
            await self.server.workspace_index.wait_scanned()
            await self._idle().wait()
        known = {p.uri: p.value for p in params.previous_result_ids}
        items: list[types.WorkspaceDocumentDiagnosticReport] = []
        for uri, found in sorted(self.reports.items()):
            if uri in self.server.documents:
                continue
            if known.get(uri) == found.result_id:
                items.append(
                    types.WorkspaceUnchangedDocumentDiagnosticReport(
                        uri=uri, version=None, result_id=found.result_id
                    )
                )
            else:
                diagnostics = [_CONVERTER.structure(d, types.Diagnostic) for d in found.items]
                items.append(
                    types.WorkspaceFullDocumentDiagnosticReport(
                        uri=uri, version=None, items=diagnostics, result_id=found.result_id
                    )
                )
        # A file reported before and gone since (deleted, or the setting turned off):
        # an empty report clears it in the client.
        for uri in sorted(set(known) - set(self.reports) - set(self.server.documents)):
            items.append(
                types.WorkspaceFullDocumentDiagnosticReport(uri=uri, version=None, items=[])
            )
        return types.WorkspaceDiagnosticReport(items=items)


def register(server: PackServer) -> None:
    """Hook the workspace diagnostics into the server's ``Workspace``."""
    server.workspace_index.problems = WorkspaceProblems(server)
