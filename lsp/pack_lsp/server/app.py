"""Server construction, document lifecycle, diagnostics and settings.

Extension point
===============
Every feature lives in a module of ``pack_lsp.server`` that exposes
``register(server: PackServer) -> None``; the modules are listed once, in
``FEATURE_MODULES``, and ``create_server()`` calls each ``register``.

Handlers stay thin: they resolve the document, take the cached ``Analysis`` of its
current version, call a pure function of ``pack_lsp.core`` and convert the result
with ``pack_lsp.server.positions``. ``PackServer.answer`` does all of that except
the core call, and turns an exception into a ``window/logMessage`` plus the empty
result::

    def register(server: PackServer) -> None:
        @server.feature(types.TEXT_DOCUMENT_HOVER)
        def hover(ls: PackServer, params: types.HoverParams) -> types.Hover | None:
            def compute(doc: DocumentContext) -> types.Hover | None:
                found = core_hover(doc.analysis, doc.offset(params.position))
                if found is None:
                    return None
                return types.Hover(contents=..., range=doc.range(found.span))
            return ls.answer(params.text_document.uri, compute, None, feature="hover")

``answer`` returns the empty result for documents that are not PromptPacks.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import logging
import os
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

import cattrs
from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.exceptions import JsonRpcInternalError, JsonRpcInvalidParams
from pygls.io_ import StdinAsyncReader, StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.uris import from_fs_path, to_fs_path

from pack_lsp import RULES_URL, __version__
from pack_lsp.core import kinds
from pack_lsp.core.analysis import Analysis, analyze
from pack_lsp.core.config import Config, ConfigError, load_for
from pack_lsp.core.diagnostics import Diagnostic, Severity, Tag
from pack_lsp.core.source import decode, read_source, strip_bom
from pack_lsp.core.text import LineIndex, Span
from pack_lsp.server.positions import PositionConverter
from pack_lsp.server.transport import max_message_size, read_messages

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Feature modules; each exposes ``register(server: PackServer) -> None``.
FEATURE_MODULES: tuple[str, ...] = (
    "pack_lsp.server.language",
    "pack_lsp.server.navigation",
    "pack_lsp.server.cards",
)

#: Delay between the last edit and the analysis that publishes diagnostics.
CHANGE_DELAY = 0.15
#: How often the client process named in ``initialize`` is checked.
PARENT_POLL_INTERVAL = 2.0
#: The settings section read from ``workspace/configuration``.
SETTINGS_SECTION = "packLsp"
#: Settings that belong to the server only (not part of ``Config``).
SERVER_SETTINGS = ("changeDelay", "rulesUrl")

_RULES_DOC = Path(__file__).resolve().parents[3] / "docs" / "rules.md"
DEFAULT_RULES_URL = from_fs_path(str(_RULES_DOC)) or "" if _RULES_DOC.is_file() else RULES_URL

_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFORMATION: types.DiagnosticSeverity.Information,
    Severity.HINT: types.DiagnosticSeverity.Hint,
}
_TAGS = {
    Tag.UNNECESSARY: types.DiagnosticTag.Unnecessary,
    Tag.DEPRECATED: types.DiagnosticTag.Deprecated,
}


@dataclass(slots=True)
class OpenDocument:
    """The text of an open document as the client last sent it."""

    uri: str
    version: int | None
    text: str
    language_id: str = ""


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


@dataclass(frozen=True, slots=True)
class InvalidMessage:
    """A request or notification whose params do not fit the method's LSP type.

    pygls raises while structuring such a message, inside its read loop, so the
    message was dropped: a request never got an answer and the client waited for
    ever. ``PackProtocol.structure_message`` returns this instead, and
    ``handle_message`` answers a request with ``InvalidParams`` (-32602) and
    reports a notification with ``window/logMessage``.
    """

    id: int | str | None
    method: str
    detail: str


def _structure_problem(exc: BaseException) -> str:
    cause = exc.__cause__ or exc
    if isinstance(cause, cattrs.BaseValidationError):
        return "; ".join(cattrs.transform_error(cause))
    return f"{type(cause).__name__}: {cause}"


class PackProtocol(LanguageServerProtocol):
    """pygls' protocol without pygls' own copy of open documents.

    pygls applies every incremental change to its copy before our handler runs,
    splitting lines with ``str.splitlines``, which also breaks at U+2028, U+2029,
    U+0085 (NEL), form feed, vertical tab and U+001C-U+001E, where LSP knows only
    ``\\n``, ``\\r\\n`` and ``\\r``; an edit after such a character, or past the end
    of a last line without a final newline, landed elsewhere in that copy or raised
    before our handler ran. ``PackServer`` keeps the only copy (``documents``) and
    applies changes with LSP line breaks; these overrides just hand the
    notifications to the handlers.
    """

    def structure_message(self, data: dict[str, Any]) -> Any:
        """pygls' structuring, but params that do not fit become an ``InvalidMessage``."""
        try:
            return super().structure_message(data)
        except (JsonRpcInvalidParams, JsonRpcInternalError) as exc:
            if not isinstance(data.get("method"), str):
                raise  # a response to one of our requests: nothing to answer
            msg_id = data.get("id")
            if not isinstance(msg_id, int | str) or isinstance(msg_id, bool):
                msg_id = None
            return InvalidMessage(msg_id, data["method"], _structure_problem(exc))

    def handle_message(self, message: Any) -> None:
        if isinstance(message, InvalidMessage):
            self.reject(message)
            return
        super().handle_message(message)

    def reject(self, message: InvalidMessage) -> None:
        """Answer a malformed request with InvalidParams; log a malformed notification."""
        text = f"invalid params for {message.method}: {message.detail}"
        log.error("%s", text)
        if message.id is not None:
            self._send_response(
                message.id,
                error=types.ResponseError(code=types.ErrorCodes.InvalidParams, message=text),
            )
            return
        consequence = ""
        if message.method == types.TEXT_DOCUMENT_DID_CHANGE:
            consequence = "; the change was ignored and the last good text is kept"
        server = self._server
        if isinstance(server, PackServer):
            server.log_message(f"pack-lsp: {text}{consequence}", types.MessageType.Error)

    def receive(self, body: bytes) -> None:
        """Decode, structure and handle one message body; never raises."""
        try:
            message = json.loads(body, object_hook=self.structure_message)
        except Exception as exc:
            self.report_skipped(f"pack-lsp: skipped a message that is not JSON-RPC: {exc}")
            return
        try:
            self.handle_message(message)
        except Exception:
            log.exception("cannot handle a message")

    def report_skipped(self, text: str) -> None:
        log.error("%s", text)
        server = self._server
        if isinstance(server, PackServer):
            server.log_message(text, types.MessageType.Error)

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: types.DidOpenTextDocumentParams) -> Any:
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_OPEN)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams) -> Any:
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams) -> Any:
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CLOSE)) is not None:
            yield handler, (params,), None


class PackServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("pack-lsp", __version__, protocol_cls=PackProtocol)
        self.documents: dict[str, OpenDocument] = {}
        self.analyses: dict[str, tuple[int | None, Analysis]] = {}
        self.published: dict[str, int | None] = {}
        self.pending: dict[str, asyncio.Task[None]] = {}
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
        reader = StdinAsyncReader(stdin or sys.stdin.buffer, self.thread_pool)
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            asyncio.run(self._read_loop(reader))
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

    # ----------------------------------------------------------------- conversion

    @property
    def converter(self) -> PositionConverter:
        return PositionConverter(self.workspace.position_encoding)

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

    # ------------------------------------------------------------------ settings

    def settings(self) -> dict[str, Any]:
        """Editor settings: ``initializationOptions`` under ``workspace/configuration``."""
        merged = dict(self.init_settings)
        merged.update(self.client_settings)
        return merged

    def set_settings(self, raw: Any, *, initial: bool = False) -> None:
        """Accept settings as sent by a client (``{"packLsp": {...}}`` or the section)."""
        if isinstance(raw, Mapping) and isinstance(raw.get(SETTINGS_SECTION), Mapping):
            raw = raw[SETTINGS_SECTION]
        if raw is None:
            raw = {}
        if not isinstance(raw, Mapping):
            self.show_once(
                f"pack-lsp: the `{SETTINGS_SECTION}` settings must be an object; using the defaults"
            )
            raw = {}
        settings = {str(k): v for k, v in raw.items()}
        server_only = {k: settings.pop(k) for k in SERVER_SETTINGS if k in settings}
        try:
            Config().merged(settings)
        except Exception as exc:
            self.show_once(
                f"pack-lsp: invalid `{SETTINGS_SECTION}` settings ({_explain(exc)}); "
                "using the defaults"
            )
            settings = {}
        delay = server_only.get("changeDelay")
        if isinstance(delay, int | float) and not isinstance(delay, bool) and 0 <= delay <= 5:
            self.change_delay = float(delay)
        url = server_only.get("rulesUrl")
        if isinstance(url, str) and url:
            self.rules_url = url
        if initial:
            self.init_settings = settings
        else:
            self.client_settings = settings

    def config_for(self, uri: str) -> Config:
        """The file's ``.pack-lsp.toml``/pyproject configuration with settings on top."""
        path = to_fs_path(uri)
        try:
            base = load_for(Path(path)) if path else Config()
        except ConfigError as exc:
            self.show_once(f"pack-lsp: {exc}; using the defaults")
            base = Config()
        settings = self.settings()
        if not settings:
            return base
        try:
            return base.merged(settings)
        except Exception as exc:
            self.show_once(
                f"pack-lsp: invalid `{SETTINGS_SECTION}` settings ({_explain(exc)}); "
                "using the defaults"
            )
            return base

    async def pull_settings(self) -> None:
        """Read ``workspace/configuration`` when the client supports it."""
        caps = self.client_capabilities.workspace
        if caps is None or not caps.configuration:
            return
        try:
            result = await self.workspace_configuration_async(
                types.ConfigurationParams(items=[types.ConfigurationItem(section=SETTINGS_SECTION)])
            )
        except Exception as exc:
            self.log_message(f"pack-lsp: cannot read settings: {exc}", types.MessageType.Warning)
            return
        if result:
            self.set_settings(result[0])

    # ----------------------------------------------------------------- documents

    def open_document(self, item: types.TextDocumentItem) -> None:
        self.documents[item.uri] = OpenDocument(item.uri, item.version, item.text, item.language_id)

    def change_document(self, params: types.DidChangeTextDocumentParams) -> None:
        """Apply full or incremental changes with the negotiated position encoding."""
        uri = params.text_document.uri
        version = params.text_document.version
        doc = self.documents.get(uri)
        if doc is None:
            self.log_message(
                f"pack-lsp: ignored a change to {uri}: the document is not open",
                types.MessageType.Error,
            )
            return
        if doc.version is not None and version <= doc.version:
            self.log_message(
                f"pack-lsp: ignored a change to {uri}: version {version} is not newer than "
                f"version {doc.version}; keeping the text of version {doc.version}",
                types.MessageType.Error,
            )
            return
        text = doc.text
        conv = self.converter
        for change in params.content_changes:
            if isinstance(change, types.TextDocumentContentChangePartial):
                lines = LineIndex(text)
                rng = change.range
                if max(rng.start.line, rng.end.line) >= lines.line_count:
                    self.log_message(
                        f"pack-lsp: ignored change version {version} of {uri}: range "
                        f"{rng.start.line}:{rng.start.character}-{rng.end.line}:"
                        f"{rng.end.character} is outside the document "
                        f"({lines.line_count} lines); keeping the text of version {doc.version}",
                        types.MessageType.Error,
                    )
                    return
                # A character past the end of its line means the line end (LSP 3.17).
                start = conv.from_lsp(lines, rng.start)
                end = conv.from_lsp(lines, rng.end)
                if end < start:
                    start, end = end, start
                text = text[:start] + change.text + text[end:]
            else:
                text = change.text
        doc.text = text
        doc.version = version

    def close_document(self, uri: str) -> None:
        self.documents.pop(uri, None)
        self.analyses.pop(uri, None)
        self.published.pop(uri, None)
        task = self.pending.pop(uri, None)
        if task is not None:
            task.cancel()

    def document(self, uri: str) -> OpenDocument | None:
        doc = self.documents.get(uri)
        if doc is not None:
            return doc
        # Not open: read the file itself through the core's reader, which refuses
        # FIFOs, devices and oversized files (reading those would block or never end).
        path = to_fs_path(uri)
        if not path:
            return None
        try:
            raw = read_source(path)
        except OSError:
            return None
        return OpenDocument(uri, None, decode(raw)[0])

    def kind_of(self, uri: str, text: str) -> str | None:
        path = to_fs_path(uri)
        return kinds.detect(path or uri, text)

    def _analyze(self, uri: str, text: str) -> Analysis | None:
        kind = self.kind_of(uri, text)
        if kind is None:
            return None
        return analyze(text, path=to_fs_path(uri), config=self.config_for(uri), kind=kind)

    def analysis(self, uri: str) -> Analysis | None:
        """The analysis of the document's current version (cached per version)."""
        doc = self.document(uri)
        if doc is None:
            return None
        cached = self.analyses.get(uri)
        if (
            cached is not None
            and cached[0] == doc.version
            and cached[1].text == strip_bom(doc.text)
        ):
            return cached[1]
        result = self._analyze(uri, doc.text)
        if result is not None and uri in self.documents:
            self.analyses[uri] = (doc.version, result)
        return result

    def document_context(self, uri: str) -> DocumentContext | None:
        """Document + current analysis + converter, or None for non-PromptPack files."""
        result = self.analysis(uri)
        if result is None:
            return None
        doc = self.document(uri)
        return DocumentContext(self, uri, doc.version if doc else None, result, self.converter)

    def answer(
        self,
        uri: str,
        compute: Callable[[DocumentContext], T],
        empty: T,
        *,
        feature: str = "request",
    ) -> T:
        """Run ``compute`` on the document's context; the shared body of thin handlers.

        Returns ``empty`` when the document is unknown or not a PromptPack, and when
        ``compute`` raises (the error is logged with ``window/logMessage``), except for
        a position outside the document: that is the client's error and is answered
        as one (``PositionOutsideDocument``, InvalidParams).
        """
        try:
            ctx = self.document_context(uri)
            if ctx is None:
                return empty
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

    # --------------------------------------------------------------- diagnostics

    def lsp_diagnostics(self, uri: str, result: Analysis) -> list[types.Diagnostic]:
        conv = self.converter
        return [self._convert(uri, result.lines, conv, d) for d in result.diagnostics]

    def _convert(
        self, uri: str, lines: LineIndex, conv: PositionConverter, d: Diagnostic
    ) -> types.Diagnostic:
        related = []
        for r in d.related:
            related.append(
                types.DiagnosticRelatedInformation(
                    location=types.Location(uri=uri, range=conv.range(lines, r.span)),
                    message=r.message,
                )
            )
        return types.Diagnostic(
            range=conv.range(lines, d.span),
            severity=_SEVERITY[d.severity],
            code=d.code,
            code_description=types.CodeDescription(href=f"{self.rules_url}#{d.code.lower()}"),
            source="pack-lsp",
            message=d.message,
            related_information=related or None,
            tags=[_TAGS[t] for t in d.tags] or None,
            data=_plain(d.data) if d.data else None,
        )

    def publish_result(self, uri: str, version: int | None, result: Analysis | None) -> None:
        """Publish diagnostics unless a newer version was already published."""
        doc = self.documents.get(uri)
        if doc is None or doc.version != version:
            return
        last = self.published.get(uri)
        if last is not None and version is not None and version < last:
            return
        self.published[uri] = version
        diagnostics = self.lsp_diagnostics(uri, result) if result is not None else []
        if result is None and last is None:
            return  # not a PromptPack: leave the document alone
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version)
        )

    def schedule(self, uri: str, delay: float) -> None:
        """Analyse ``uri`` after ``delay`` seconds; a newer request cancels this one."""
        previous = self.pending.pop(uri, None)
        if previous is not None:
            previous.cancel()
        doc = self.documents.get(uri)
        if doc is None or self.pull_diagnostics:
            return
        self.pending[uri] = asyncio.get_running_loop().create_task(
            self._analyse_later(uri, doc.version, delay)
        )

    async def _analyse_later(self, uri: str, version: int | None, delay: float) -> None:
        try:
            if delay > 0:
                await asyncio.sleep(delay)
            doc = self.documents.get(uri)
            if doc is None or doc.version != version:
                return
            cached = self.analyses.get(uri)
            if cached is not None and cached[0] == version:
                result: Analysis | None = cached[1]
            else:
                text = doc.text
                loop = asyncio.get_running_loop()
                result = await loop.run_in_executor(None, self._analyze, uri, text)
                current = self.documents.get(uri)
                if current is None or current.version != version:
                    return  # stale: a newer version is on its way
                if result is not None:
                    self.analyses[uri] = (version, result)
            self.publish_result(uri, version, result)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.exception("analysis failed for %s", uri)
            self.log_message(f"pack-lsp: analysis failed for {uri}: {exc}", types.MessageType.Error)
        finally:
            task = self.pending.get(uri)
            if task is asyncio.current_task():
                self.pending.pop(uri, None)

    def recheck_all(self) -> None:
        """Results may change without an edit (settings, files on disk): re-analyse.

        Push: every open document is analysed again and published. Pull: the client
        is asked to pull again (``workspace/diagnostic/refresh``) when it can be.
        """
        self.analyses.clear()
        if self.pull_diagnostics:
            self.refresh_diagnostics()
            return
        for uri in list(self.documents):
            self.schedule(uri, 0)

    def refresh_diagnostics(self) -> None:
        """Ask a pull client to pull diagnostics again, if it declared refresh support."""
        if not (self.pull_diagnostics and self.refresh_support):
            return
        try:
            self.workspace_diagnostic_refresh(None)
        except Exception:
            log.exception("cannot send workspace/diagnostic/refresh")

    # ------------------------------------------------------------------- parent

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


def _plain(value: Any) -> Any:
    """JSON-ready copy of diagnostic data (mapping proxies, tuples, spans)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_plain(v) for v in value]
    if isinstance(value, Span):
        return {"start": value.start, "end": value.end}
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def _explain(exc: Exception) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        try:
            parts = [
                f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}" for e in errors()
            ]
            return "; ".join(parts)
        except Exception:
            pass
    return str(exc)


# ------------------------------------------------------------------ lifecycle


def _register_lifecycle(server: PackServer) -> None:
    @server.feature(types.INITIALIZE)
    def initialize(ls: PackServer, params: types.InitializeParams) -> None:
        choose_diagnostics_channel(ls, params.capabilities)
        if params.initialization_options is not None:
            ls.set_settings(params.initialization_options, initial=True)
        if params.process_id:
            ls.parent_watch = asyncio.get_running_loop().create_task(
                ls.watch_parent(params.process_id)
            )

    @server.feature(types.INITIALIZED)
    async def initialized(ls: PackServer, params: types.InitializedParams) -> None:
        before = ls.settings()
        await ls.pull_settings()
        if ls.settings() != before:
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
        ls.recheck_all()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: PackServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.open_document(params.text_document)
        ls.schedule(params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: PackServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.change_document(params)
        ls.schedule(params.text_document.uri, ls.change_delay)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: PackServer, params: types.DidSaveTextDocumentParams) -> None:
        uri = params.text_document.uri
        if params.text is not None and uri in ls.documents:
            ls.documents[uri].text = params.text
        ls.analyses.pop(uri, None)  # configuration files may have changed
        if ls.pull_diagnostics:
            ls.refresh_diagnostics()
        else:
            ls.schedule(uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: PackServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        was_pack = uri in ls.published
        ls.close_document(uri)
        if was_pack and not ls.pull_diagnostics:
            ls.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
            )


def choose_diagnostics_channel(ls: PackServer, caps: types.ClientCapabilities) -> None:
    """One channel per client, so that no problem is shown twice.

    LSP 3.17 has two ways to deliver diagnostics: the server pushes
    ``textDocument/publishDiagnostics``, or the client pulls with
    ``textDocument/diagnostic`` when the server declares ``diagnosticProvider``.
    A client that supports pull (it declares ``textDocument.diagnostic``) keeps both
    result sets side by side (VS Code, Neovim 0.10+), so serving both shows every
    problem twice. Pull clients therefore get the provider and no push; the rest get
    push and no provider. The provider is registered here, inside ``initialize``,
    because pygls computes the server capabilities after this handler returns.
    """
    ls.pull_diagnostics = get_capability(caps, "text_document.diagnostic") is not None
    ls.refresh_support = get_capability(caps, "workspace.diagnostics.refresh_support", False)
    if ls.pull_diagnostics and types.TEXT_DOCUMENT_DIAGNOSTIC not in ls.protocol.fm.features:
        _register_pull(ls)


def _register_pull(server: PackServer) -> None:
    @server.feature(
        types.TEXT_DOCUMENT_DIAGNOSTIC,
        types.DiagnosticOptions(
            identifier="pack-lsp", inter_file_dependencies=False, workspace_diagnostics=False
        ),
    )
    def pull_diagnostics(
        ls: PackServer, params: types.DocumentDiagnosticParams
    ) -> types.DocumentDiagnosticReport:
        def compute(doc: DocumentContext) -> types.DocumentDiagnosticReport:
            return types.RelatedFullDocumentDiagnosticReport(
                items=ls.lsp_diagnostics(doc.uri, doc.analysis)
            )

        empty: types.DocumentDiagnosticReport = types.RelatedFullDocumentDiagnosticReport(items=[])
        return ls.answer(params.text_document.uri, compute, empty, feature="diagnostics")


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
