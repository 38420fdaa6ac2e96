"""Server construction and the extension point for features.

Extension point
===============
Every feature lives in a module of ``pack_lsp.server`` that exposes
``register(server: PackServer) -> None``; the modules are listed once, in
``FEATURE_MODULES``, and ``create_server()`` calls each ``register``.

Handlers stay thin (and ``async``): they resolve the document, await the ``Analysis``
of its current version, call a pure function of ``pack_lsp.core`` and convert the result
with ``pack_lsp.server.positions``. ``PackServer.answer`` does all of that except
the core call, and turns an exception into a ``window/logMessage`` plus the empty
result::

    def register(server: PackServer) -> None:
        @server.feature(types.TEXT_DOCUMENT_HOVER)
        async def hover(ls: PackServer, params: types.HoverParams) -> types.Hover | None:
            def compute(doc: DocumentContext) -> types.Hover | None:
                found = core_hover(doc.analysis, doc.offset(params.position))
                if found is None:
                    return None
                return types.Hover(contents=..., range=doc.range(found.span))
            return await ls.answer(params.text_document.uri, compute, None, feature="hover")

``answer`` returns the empty result for documents that are not PromptPacks.

The server is composed of parts, each in its own module: ``protocol`` (message
structuring and rejection), ``base`` (client messages, position conversion),
``settings``, ``documents`` (pack-lsp's own copy of open documents), ``scheduling``
(when documents are analysed, in a worker thread), ``diagnostics`` and ``lifecycle``
(the notifications of the document lifecycle).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, BinaryIO, TypeVar

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.io_ import StdoutWriter

from pack_lsp import __version__
from pack_lsp.core import kinds
from pack_lsp.core.analysis import Analysis
from pack_lsp.core.text import LineIndex, Span
from pack_lsp.server.diagnostics import DiagnosticsMixin
from pack_lsp.server.documents import OpenDocument as OpenDocument
from pack_lsp.server.lifecycle import PARENT_POLL_INTERVAL as PARENT_POLL_INTERVAL
from pack_lsp.server.lifecycle import ParentWatch, _register_lifecycle
from pack_lsp.server.positions import PositionConverter
from pack_lsp.server.protocol import InvalidMessage as InvalidMessage
from pack_lsp.server.protocol import PackProtocol
from pack_lsp.server.scheduling import Track
from pack_lsp.server.settings import CHANGE_DELAY, DEFAULT_RULES_URL
from pack_lsp.server.settings import SERVER_SETTINGS as SERVER_SETTINGS
from pack_lsp.server.settings import SETTINGS_SECTION as SETTINGS_SECTION
from pack_lsp.server.transport import max_message_size, read_messages, stdio_reader

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Feature modules; each exposes ``register(server: PackServer) -> None``.
FEATURE_MODULES: tuple[str, ...] = (
    "pack_lsp.server.language",
    "pack_lsp.server.navigation",
    "pack_lsp.server.cards",
    "pack_lsp.server.manifests",
)


class PositionOutsideDocument(JsonRpcInvalidParams):
    """A request position on a line the document does not have.

    LSP clamps a character past the end of its line to the line end, but a line
    beyond the last one means the client and server disagree about the text (a lost
    or refused change); answering "nothing here" would hide that, so the request
    gets an ``InvalidParams`` error instead.
    """


@dataclass(frozen=True, slots=True)
class DocumentContext:
    """One document version, its analysis and the position conversion to use.

    Built by ``PackServer.answer``/``PackServer.document_context``; offsets are core
    code-point offsets into ``analysis.text``.
    """

    server: PackServer
    uri: str
    version: int | None
    analysis: Analysis
    converter: PositionConverter

    @property
    def lines(self) -> LineIndex:
        return self.analysis.lines

    def offset(self, position: types.Position) -> int:
        """The core offset of an LSP position in this document.

        Raises ``PositionOutsideDocument`` for a line past the document's last line.
        """
        lines = self.analysis.lines
        if position.line >= lines.line_count:
            raise PositionOutsideDocument(
                f"position {position.line}:{position.character} is outside {self.uri} "
                f"({lines.line_count} lines)"
            )
        return self.converter.from_lsp(lines, position)

    def position(self, offset: int) -> types.Position:
        return self.converter.to_lsp(self.analysis.lines, offset)

    def range(self, span: Span) -> types.Range:
        return self.converter.range(self.analysis.lines, span)

    def location(self, span: Span) -> types.Location:
        return types.Location(uri=self.uri, range=self.range(span))


class PackServer(DiagnosticsMixin, ParentWatch):
    """The pack-lsp language server.

    Each base is one concern in its own module: ``DiagnosticsMixin`` builds on
    ``AnalysisScheduler``, which builds on ``DocumentStore``, which builds on
    ``SettingsMixin``; ``ParentWatch`` exits with
    the client; all of them share ``ServerBase``. This class owns the state they
    declare (``__init__``), the transport and the shared body of feature handlers.
    """

    def __init__(self) -> None:
        super().__init__("pack-lsp", __version__, protocol_cls=PackProtocol)
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
        self.manifests = None

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

        async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self.protocol.set_writer(writer)
            with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError):
                await self._read_loop(reader)
            self.shutdown()  # type: ignore[no-untyped-call]

        async def serve() -> None:
            server = await asyncio.start_server(connection, host, port)
            async with server:
                await server.serve_forever()

        try:
            asyncio.run(serve())
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()  # type: ignore[no-untyped-call]

    async def document_context(
        self, uri: str, *, diagnostics: bool = True
    ) -> DocumentContext | None:
        """Document + analysis of its current text + converter, or None for files that
        are not PromptPacks. Awaits the analysis (``scheduling``): never on the event loop.
        With ``diagnostics=False`` the analysis may be the structure of the current
        text without its diagnostics (``current_analysis``).
        """
        result, version = await self.current_analysis(uri, diagnostics=diagnostics)
        if result is None:
            return None
        return DocumentContext(self, uri, version, result, self.converter)

    async def answer(
        self,
        uri: str,
        compute: Callable[[DocumentContext], T],
        empty: T,
        *,
        feature: str = "request",
        diagnostics: bool = False,
        at: types.Position | None = None,
    ) -> T:
        """Run ``compute`` on the document's context; the shared body of thin handlers.

        Awaited by ``async def`` handlers: the analysis of the current version is
        awaited (started at once if needed) while the event loop serves other
        messages; ``compute`` itself runs on the event loop and must stay cheap.
        Unless ``diagnostics`` is set, ``compute`` may get the structure of the
        current version before its schema validation and rules have run: everything
        but ``analysis.diagnostics``, which is then empty (``scheduling``). Features
        that read diagnostics (code actions, a diagnostics pull) set it.
        Returns ``empty`` when the document is unknown or not a PromptPack, and when
        ``compute`` raises (the error is logged with ``window/logMessage``), except for
        a position outside the document: that is the client's error and is answered
        as one (``PositionOutsideDocument``, InvalidParams).
        ``at`` is the request's position: in a Kubernetes manifest, ``compute`` gets
        the analysis of the pack embedded there (at the manifest's offsets), and
        ``empty`` is the answer outside every embedded pack.
        """
        done = self.structure_reader(uri) if not diagnostics else None
        try:
            ctx = await self.document_context(uri, diagnostics=diagnostics)
            if ctx is None:
                return empty
            if at is not None and ctx.analysis.kind == kinds.KUBERNETES:
                inner = ctx.analysis.at(ctx.offset(at))
                if inner is None:
                    return empty
                ctx = DocumentContext(self, uri, ctx.version, inner, self.converter)
            return compute(ctx)
        except PositionOutsideDocument:
            raise
        except Exception as exc:
            log.exception("%s failed for %s", feature, uri)
            self.log_message(
                f"pack-lsp: {feature} failed for {uri}: {type(exc).__name__}: {exc}",
                types.MessageType.Error,
            )
            return empty
        finally:
            if done is not None:
                done()


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
