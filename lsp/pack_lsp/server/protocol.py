"""Message structuring and rejection: pygls' protocol, made tolerant of bad input."""

from __future__ import annotations

import functools
import json
import logging
from dataclasses import dataclass
from typing import Any

import cattrs
from lsprotocol import types
from pygls.exceptions import JsonRpcInternalError, JsonRpcInvalidParams
from pygls.protocol import LanguageServerProtocol, default_converter, lsp_method

from pack_lsp.server.base import ServerBase

log = logging.getLogger(__name__)


@functools.cache
def converter() -> cattrs.Converter:
    """The process's one converter between lsprotocol objects and their JSON: pygls's
    (lsprotocol's hooks and those of the JSON-RPC messages), shared by the protocol
    and the diagnostics. Each converter registers every hook and generates its own
    per-type code on first use, a few milliseconds of start-up a second one repeats."""
    made: cattrs.Converter = default_converter()  # type: ignore[no-untyped-call]
    return made


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


@dataclass(frozen=True, slots=True)
class InvalidRequest:
    """A message JSON-RPC calls an invalid request: its ``id`` is neither a string, a
    number nor null (an object, an array, a boolean). pygls failed on it with an
    internal error (-32603) that echoed the id and logged a traceback; JSON-RPC 2.0
    asks for ``-32600`` with a null id, which ``PackProtocol.reject_request`` sends."""

    detail: str


#: JSON-RPC 2.0's "Invalid Request" error code.
INVALID_REQUEST = -32600


def _invalid_id(data: dict[str, Any]) -> str | None:
    """What is wrong with the id of the message ``data``, or None when it is valid
    (or ``data`` is not a message but a value inside one)."""
    if "jsonrpc" not in data or "id" not in data:
        return None
    if not any(key in data for key in ("method", "result", "error")):
        return None
    found = data["id"]
    if isinstance(found, bool) or not isinstance(found, int | float | str | None):
        kind = "a boolean" if isinstance(found, bool) else f"a JSON {_json_kind(found)}"
        return f"the request id is {kind}: JSON-RPC ids are strings, numbers or null"
    return None


def _json_kind(value: Any) -> str:
    return "object" if isinstance(value, dict) else "array" if isinstance(value, list) else "value"


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
        """pygls' structuring, but params that do not fit become an ``InvalidMessage``
        and an id that is not one an ``InvalidRequest``."""
        problem = _invalid_id(data)
        if problem is not None:
            return InvalidRequest(problem)
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
        if isinstance(message, InvalidRequest):
            self.reject_request(message)
            return
        super().handle_message(message)

    def reject_request(self, message: InvalidRequest) -> None:
        """Answer an invalid request with -32600 and a null id, as JSON-RPC 2.0 says."""
        log.error("invalid request: %s", message.detail)
        error = {"code": INVALID_REQUEST, "message": f"Invalid Request: {message.detail}"}
        self._send_data({"jsonrpc": "2.0", "id": None, "error": error})

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
        if isinstance(server, ServerBase):
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

    def notify_json(self, method: str, params: dict[str, Any]) -> None:
        """Send a notification whose params are JSON already (plain dicts and lists).

        pygls serialises lsprotocol objects by walking them with cattrs; params built
        as JSON skip that walk (``json.dumps`` alone, in C).
        """
        self._send_data({"jsonrpc": "2.0", "method": method, "params": params})

    def _handle_cancel_notification(self, msg_id: Any) -> None:
        """Cancel a pending request; a cancel for one already answered is dropped quietly.

        Clients cancel requests whose answer is already on its way (VS Code does for every
        superseded code lens, inlay hint or semantic tokens request): normal LSP traffic,
        which pygls logged as a warning that reached the editor's output as a bare line.
        """
        if msg_id in self._request_futures:
            super()._handle_cancel_notification(msg_id)

    def report_skipped(self, text: str) -> None:
        log.error("%s", text)
        server = self._server
        if isinstance(server, ServerBase):
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
