"""The document lifecycle and session notifications, and the client-process watch."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.uris import to_fs_path

from pack_lsp.server import indexing, warmup
from pack_lsp.server.base import ServerBase
from pack_lsp.server.diagnostics import choose_diagnostics_channel
from pack_lsp.server.settings import SETTINGS_SECTION

if TYPE_CHECKING:
    from pack_lsp.server.app import PackServer

log = logging.getLogger(__name__)

#: How often the client process named in ``initialize`` is checked.
PARENT_POLL_INTERVAL = 2.0


class ParentWatch(ServerBase):
    """Exit with the client (LSP ``processId``)."""

    parent_watch: asyncio.Task[None] | None

    async def watch_parent(self, pid: int) -> None:
        """Exit when the client process is gone (LSP ``processId``)."""
        while True:
            await asyncio.sleep(PARENT_POLL_INTERVAL)
            if not _process_alive(pid):
                log.warning("client process %s is gone; exiting", pid)
                os._exit(0)


def _process_alive(pid: int) -> bool:
    if pid <= 0:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return True
    try:  # a zombie (exited, not yet reaped) counts as gone
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            state = fh.read().rpartition(")")[2].split()
        return not (state and state[0] in ("Z", "X"))
    except OSError:
        return True


def _register_lifecycle(server: PackServer) -> None:
    @server.feature(types.INITIALIZE)
    def initialize(ls: PackServer, params: types.InitializeParams) -> None:
        ls.report_file_size_setting()
        if params.initialization_options is not None:
            ls.set_settings(params.initialization_options, initial=True)
        # After the settings: ``workspaceDiagnostics`` decides what the provider declares.
        choose_diagnostics_channel(ls, params.capabilities)
        if params.process_id:
            ls.parent_watch = asyncio.get_running_loop().create_task(
                ls.watch_parent(params.process_id)
            )
        warmup.start_soon()

    @server.feature(types.INITIALIZED)
    async def initialized(ls: PackServer, params: types.InitializedParams) -> None:
        # The manifests' index and the arena projects are read off the event loop, with
        # progress (``server.indexing``); a manifest's or an arena document's analysis
        # waits for them, a pack's does not. The symbol index is built by the session's
        # first workspace/symbol.
        indexing.start(ls)
        before = (ls.settings(), ls.workspace_diagnostics)
        await ls.pull_settings()
        if (ls.settings(), ls.workspace_diagnostics) != before:
            ls.workspace_index.settings_changed()
            ls.recheck_all()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(
        ls: PackServer, params: types.DidChangeConfigurationParams
    ) -> None:
        settings = params.settings
        if isinstance(settings, Mapping) and SETTINGS_SECTION in settings:
            ls.set_settings(settings)
        else:
            await ls.pull_settings()
        ls.workspace_index.settings_changed()
        ls.recheck_all()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: PackServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.open_document(params.text_document)
        _manifest_changed(ls, params.text_document.uri)
        ls.track_document(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: PackServer, params: types.DidChangeTextDocumentParams) -> None:
        if ls.change_document(params):
            _manifest_changed(ls, params.text_document.uri)
            ls.document_changed(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: PackServer, params: types.DidSaveTextDocumentParams) -> None:
        uri = params.text_document.uri
        if params.text is not None and uri in ls.documents:
            ls.documents[uri].text = params.text
        # Configuration files may have changed too: analyse again from scratch.
        ls.document_changed(uri, reuse=False, at_once=True)
        _manifest_changed(ls, uri)
        path = to_fs_path(uri)
        if path:
            indexing.update_symbols(ls, [Path(path)])
        ls.refresh_diagnostics()

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: PackServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        was_pack = uri in ls.published
        ls.close_document(uri)
        ls.untrack_document(uri)
        _manifest_changed(ls, uri)
        if was_pack and not ls.pull_diagnostics:
            ls.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
            )


def _manifest_changed(ls: PackServer, uri: str) -> None:
    """Keep the manifest index and the arena projects current, and re-check the
    documents depending on ``uri`` (``Workspace.changed``)."""
    doc = ls.documents.get(uri)
    ls.workspace_index.changed(uri, doc.text if doc is not None else None)
