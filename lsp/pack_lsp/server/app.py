"""Server construction and the extension point for features.

Extension point
===============
Every feature lives in a module of ``pack_lsp.server`` that exposes
``register(server: PackServer) -> None``; the modules are listed once, in
``FEATURE_MODULES``, and ``create_server()`` calls each ``register``.

Handlers are module-level ``async`` functions, registered by ``register``. They stay
thin: ``PackServer.answer`` resolves the document, awaits the ``Analysis`` of its
current version, builds the request's ``DocumentSnapshot`` (``snapshot``) and calls
the feature's handler for the snapshot's kind (a ``ByKind``) with the snapshot and
the request's params: never with the server. The handler calls a pure function of
``pack_lsp.core`` and converts the result with the snapshot's position converter;
what the client takes and the other files of the workspace are in the snapshot too
(``snap.client``, ``snap.workspace``). An exception becomes a
``window/logMessage`` plus the empty result::

    def _hover(snap: DocumentSnapshot, params: types.HoverParams) -> types.Hover | None:
        found = core_hover(snap.analysis, snap.offset(params.position))
        if found is None:
            return None
        return types.Hover(contents=..., range=snap.range(found.span))

    HOVER = ByKind(pack=_hover, manifest=_manifest_hover)

    async def hover(ls: PackServer, params: types.HoverParams) -> types.Hover | None:
        uri = params.text_document.uri
        return await ls.answer(uri, HOVER, params, None, feature="hover", at=params.position)

    def register(server: PackServer) -> None:
        server.feature(types.TEXT_DOCUMENT_HOVER)(hover)

``answer`` returns the empty result for documents that are not PromptPacks.

The server is composed of parts, each in its own module: ``protocol`` (message
structuring and rejection), ``base`` (client messages, position conversion),
``settings``, ``documents`` (pack-lsp's own copy of open documents), ``scheduling``
(when documents are analysed, in a worker thread), ``diagnostics`` and ``lifecycle``
(the notifications of the document lifecycle); ``workspace`` owns what is known of
the other files (manifest indexes, arena projects).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import sys
import threading
from collections.abc import Callable
from typing import Any, BinaryIO, TypeVar

from lsprotocol import types
from pygls.io_ import StdoutWriter

from pack_lsp import __version__
from pack_lsp.core.checks.analysis import Analysis
from pack_lsp.server.diagnostics import DiagnosticsMixin
from pack_lsp.server.documents import OpenDocument as OpenDocument
from pack_lsp.server.lifecycle import PARENT_POLL_INTERVAL as PARENT_POLL_INTERVAL
from pack_lsp.server.lifecycle import ParentWatch, _register_lifecycle
from pack_lsp.server.protocol import InvalidMessage as InvalidMessage
from pack_lsp.server.protocol import PackProtocol, converter
from pack_lsp.server.rechecks import text_of
from pack_lsp.server.settings import CHANGE_DELAY, DEFAULT_RULES_URL
from pack_lsp.server.settings import SERVER_SETTINGS as SERVER_SETTINGS
from pack_lsp.server.settings import SETTINGS_SECTION as SETTINGS_SECTION
from pack_lsp.server.snapshot import (
    ByKind,
    ClientFeatures,
    DocumentSnapshot,
    PositionOutsideDocument,
)
from pack_lsp.server.track import Track
from pack_lsp.server.transport import max_message_size, read_messages, stdio_reader
from pack_lsp.server.workspace import Workspace, WorkspaceSnapshot

log = logging.getLogger(__name__)

P = TypeVar("P")
T = TypeVar("T")

#: Feature modules; each exposes ``register(server: PackServer) -> None``.
FEATURE_MODULES: tuple[str, ...] = (
    "pack_lsp.server.completion",
    "pack_lsp.server.hover",
    "pack_lsp.server.semantic_tokens",
    "pack_lsp.server.navigation",
    "pack_lsp.server.rename",
    "pack_lsp.server.symbols",
    "pack_lsp.server.ranges",
    "pack_lsp.server.codeactions",
    "pack_lsp.server.cards",
    "pack_lsp.server.callhierarchy",
    "pack_lsp.server.meaning",
    "pack_lsp.server.links",
    "pack_lsp.server.manifests",
    "pack_lsp.server.arena",
    "pack_lsp.server.indexing",
    "pack_lsp.server.workspace_problems",
)


class PackServer(DiagnosticsMixin, ParentWatch):
    """The pack-lsp language server.

    Each base is one concern in its own module: ``DiagnosticsMixin`` builds on
    ``AnalysisScheduler``, which builds on ``DocumentStore``, which builds on
    ``SettingsMixin``; ``ParentWatch`` exits with
    the client; all of them share ``ServerBase``. This class owns the state they
    declare (``__init__``), the transport and the shared body of feature handlers.
    """

    def __init__(self) -> None:
        super().__init__(
            "pack-lsp", __version__, protocol_cls=PackProtocol, converter_factory=converter
        )
        self.documents: dict[str, OpenDocument] = {}
        #: The analysis state of each open document (``scheduling``).
        self.tracks: dict[str, Track] = {}
        self.published: dict[str, int | None] = {}
        self.recognized: dict[str, str | None] = {}
        self._diagnostic_json = {}
        self.init_settings: dict[str, Any] = {}
        self.client_settings: dict[str, Any] = {}
        self.change_delay = CHANGE_DELAY
        self.rules_url = DEFAULT_RULES_URL
        self._shown: set[str] = set()
        self.parent_watch: asyncio.Task[None] | None = None
        #: Diagnostics channel: pulled by the client (``textDocument/diagnostic``) or pushed.
        self.pull_diagnostics = False
        #: The client re-pulls on ``workspace/diagnostic/refresh``.
        self.refresh_support = False
        self.workspace_index = Workspace(
            read=lambda path: text_of(self, path),
            version_of=self._version_of,
            converter=lambda: self.converter,
            report=self.log_message,
        )

    def _version_of(self, uri: str) -> int | None:
        doc = self.documents.get(uri)
        return doc.version if doc is not None else None

    def client_features(self) -> ClientFeatures:
        """What the client takes (its capabilities and the settings), for a request;
        before ``initialize`` (a server driven without a client), nothing."""
        caps = getattr(self.protocol, "client_capabilities", None)
        if caps is None:
            return ClientFeatures(inlay_hints_off=self.inlay_hints_off)
        return ClientFeatures.of(caps, self.inlay_hints_off)

    # ------------------------------------------------------------------ transport

    #: Largest message body accepted, 0 for none (None: ``PACK_LSP_MAX_MESSAGE_SIZE``
    #: or the default; see ``pack_lsp.server.transport``).
    max_message_size: int | None = None

    def _read_loop(self, reader: Any) -> Any:
        protocol = self.protocol
        assert isinstance(protocol, PackProtocol)
        self._stop_event = stop = threading.Event()
        return read_messages(
            stop,
            reader,
            protocol.receive,
            protocol.report_skipped,
            max_message_size() if self.max_message_size is None else self.max_message_size,
        )

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """Serve on stdio with ``pack_lsp.server.transport``'s tolerant reader."""
        stdin = stdin or sys.stdin.buffer
        stdout = stdout or sys.stdout.buffer
        self.protocol.set_writer(StdoutWriter(stdout))

        async def serve() -> None:
            await self._read_loop(await stdio_reader(stdin, stdout, self.thread_pool))

        try:
            asyncio.run(serve())
        except BrokenPipeError:
            log.error("the connection to the client is lost; shutting down")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()  # type: ignore[no-untyped-call]

    def start_tcp(self, host: str, port: int) -> None:
        """Serve one client at a time on TCP (debugging), with the same reader."""

        ended: asyncio.Future[None] | None = None

        async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self.protocol.set_writer(writer)
            try:
                with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError):
                    await self._read_loop(reader)
            except SystemExit:
                # The client's `exit` notification: the server ends, as on stdio (not
                # an exception left to asyncio's handler, which would print it).
                if ended is not None and not ended.done():
                    ended.set_result(None)
            self.shutdown()  # type: ignore[no-untyped-call]

        async def serve() -> None:
            nonlocal ended
            ended = asyncio.get_running_loop().create_future()
            server = await asyncio.start_server(connection, host, port)
            async with server:
                await ended

        try:
            asyncio.run(serve())
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()  # type: ignore[no-untyped-call]

    async def snapshot(
        self, uri: str, *, diagnostics: bool = True, at: types.Position | None = None
    ) -> DocumentSnapshot | None:
        """The snapshot of ``uri``'s current version, or None for files that are not
        PromptPacks. Awaits the analysis (``scheduling``): never on the event loop.

        With ``diagnostics=False`` the analysis may be the structure of the current
        text without its diagnostics (``current_analysis``). ``at`` is the request's
        position: in a Kubernetes manifest, the snapshot is that of the pack embedded
        there (None outside every embedded pack).
        """
        result, version = await self.current_analysis(uri, diagnostics=diagnostics)
        if result is None:
            return None
        snap = self.snapshot_of(uri, version, result)
        return snap.at(at) if at is not None else snap

    def snapshot_of(self, uri: str, version: int | None, result: Analysis) -> DocumentSnapshot:
        """The snapshot a request on ``uri`` reads, with ``result`` as its analysis."""
        return DocumentSnapshot.of(
            uri,
            version,
            result,
            self.converter,
            self.client_features(),
            self.workspace_index.snapshot(),
        )

    async def answer(
        self,
        uri: str,
        handlers: ByKind[P, T],
        params: P,
        empty: T,
        *,
        feature: str = "request",
        diagnostics: bool = False,
        at: types.Position | None = None,
    ) -> T:
        """Answer a request with the handler for the document's kind; the shared body
        of the feature handlers.

        Awaited by ``async def`` handlers: the analysis of the current version is
        awaited (started at once if needed) while the event loop serves other
        messages; the handler itself runs on the event loop, with ``params``, and
        must stay cheap. Unless ``diagnostics`` is set, it may get the structure of
        the current version before its schema validation and rules have run:
        everything but ``analysis.diagnostics``, which is then empty
        (``scheduling``). Features that read diagnostics (code actions, a
        diagnostics pull) set it.
        Returns ``empty`` when the document is unknown or not a PromptPack, and when
        the handler raises (the error is logged with ``window/logMessage``), except
        for a position outside the document: that is the client's error and is
        answered as one (``PositionOutsideDocument``, InvalidParams).
        ``at`` is the request's position: in a Kubernetes manifest, the handler gets
        the snapshot of the pack embedded there (at the manifest's offsets), and
        ``empty`` is the answer outside every embedded pack.
        """
        done = self.structure_reader(uri) if not diagnostics else None
        try:
            snap = await self.snapshot(uri, diagnostics=diagnostics, at=at)
            if snap is None:
                return empty
            return handlers.handler(snap.kind)(snap, params)
        except PositionOutsideDocument:
            raise
        except Exception as exc:
            self.request_failed(feature, uri, exc)
            return empty
        finally:
            if done is not None:
                done()

    def answer_workspace(
        self,
        handler: Callable[[WorkspaceSnapshot, P], T],
        params: P,
        empty: T,
        *,
        feature: str,
        uri: str,
    ) -> T:
        """Answer a request that names no open document but the workspace's files (the
        follow-ups of an arena project's call hierarchy): ``handler`` reads the
        workspace snapshot and ``params`` only; a failure is logged, as in ``answer``,
        and answered with ``empty``."""
        try:
            return handler(self.workspace_index.snapshot(), params)
        except Exception as exc:
            self.request_failed(feature, uri, exc)
            return empty

    def request_failed(self, feature: str, uri: str, exc: Exception) -> None:
        log.exception("%s failed for %s", feature, uri)
        self.log_message(
            f"pack-lsp: {feature} failed for {uri}: {type(exc).__name__}: {exc}",
            types.MessageType.Error,
        )


def _register_features(server: PackServer) -> None:
    for name in FEATURE_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                log.info("feature module %s is not available", name)
                continue
            raise
        register = getattr(module, "register", None)
        if callable(register):
            register(server)


def create_server() -> PackServer:
    server = PackServer()
    _register_lifecycle(server)
    _register_features(server)
    return server
