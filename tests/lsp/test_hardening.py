"""Malformed messages and headers on the real stdio server: every request gets an
answer, bad framing is skipped, and the server keeps serving afterwards."""

from __future__ import annotations

import asyncio
import json
import os
import queue
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lsp_helpers import SERVER
from lsprotocol import types
from packs import PACK
from pytest_lsp import LanguageClient

TIMEOUT = 30.0
INVALID_PARAMS = -32602


def frame(payload: dict[str, Any]) -> bytes:
    body = json.dumps(payload).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


class RawServer:
    """``python -m pack_lsp`` on pipes; messages read by a thread into a queue."""

    def __init__(self, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            SERVER,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, **(env or {})},
        )
        self.inbox: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    self.inbox.put(None)
                    return
                if line.strip() == b"":
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            assert length is not None
            self.inbox.put(json.loads(out.read(length)))

    def write(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, payload: dict[str, Any]) -> None:
        self.write(frame(payload))

    def wait_for(self, predicate: Any) -> dict[str, Any]:
        while True:
            message = self.inbox.get(timeout=TIMEOUT)
            if message is None:
                pytest.fail("the server closed its output")
            if predicate(message):
                return message

    def response(self, msg_id: int) -> dict[str, Any]:
        return self.wait_for(lambda m: m.get("id") == msg_id and "method" not in m)

    def log_containing(self, text: str) -> str:
        message = self.wait_for(
            lambda m: m.get("method") == "window/logMessage" and text in m["params"]["message"]
        )
        return str(message["params"]["message"])

    def initialize(self, root: Path) -> None:
        self.send(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "processId": None,
                    "rootUri": root.as_uri(),
                    "capabilities": {"general": {"positionEncodings": ["utf-16"]}},
                },
            }
        )
        assert "result" in self.response(0)
        self.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})

    def alive(self, msg_id: int, uri: str) -> dict[str, Any]:
        """A valid request still gets its answer."""
        self.send(hover(msg_id, uri, {"line": 0, "character": 0}))
        reply = self.response(msg_id)
        assert "error" not in reply, reply
        return reply

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=TIMEOUT)


def hover(msg_id: int, uri: str, position: Any) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": msg_id,
        "method": "textDocument/hover",
        "params": {"textDocument": {"uri": uri}, "position": position},
    }


@pytest.fixture
def raw(tmp_path: Path) -> Iterator[tuple[RawServer, str]]:
    server = RawServer()
    try:
        server.initialize(tmp_path)
        uri = (tmp_path / "demo.promptpack.yaml").as_uri()
        server.send(
            {
                "jsonrpc": "2.0",
                "method": "textDocument/didOpen",
                "params": {
                    "textDocument": {
                        "uri": uri,
                        "languageId": "yaml",
                        "version": 1,
                        "text": PACK,
                    }
                },
            }
        )
        yield server, uri
    finally:
        server.close()


@pytest.mark.parametrize(
    "params",
    [
        None,
        [],
        [1, 2],
        "text",
        {"textDocument": {"uri": "file:///x.promptpack.yaml"}},
        {"textDocument": {"uri": "file:///x"}, "position": {"line": -1, "character": 0}},
        {"textDocument": {"uri": "file:///x"}, "position": {"line": 0, "character": -3}},
        {"textDocument": {"uri": "file:///x"}, "position": {"line": 2**31, "character": 0}},
        {"textDocument": {"uri": "file:///x"}, "position": {"line": 0, "character": 2**40}},
    ],
    ids=[
        "null",
        "empty-list",
        "list",
        "string",
        "no-position",
        "neg-line",
        "neg-char",
        "2^31",
        "huge",
    ],
)
def test_invalid_params_get_invalid_params_error(raw: tuple[RawServer, str], params: Any) -> None:
    server, uri = raw
    server.send({"jsonrpc": "2.0", "id": 7, "method": "textDocument/hover", "params": params})
    reply = server.response(7)
    assert reply["error"]["code"] == INVALID_PARAMS
    assert "textDocument/hover" in reply["error"]["message"]
    server.alive(8, uri)


def test_unknown_enum_value_gets_invalid_params_error(raw: tuple[RawServer, str]) -> None:
    server, uri = raw
    zero = {"line": 0, "character": 0}
    server.send(
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "textDocument/codeAction",
            "params": {
                "textDocument": {"uri": uri},
                "range": {"start": zero, "end": zero},
                "context": {
                    "diagnostics": [
                        {"range": {"start": zero, "end": zero}, "message": "x", "severity": 99}
                    ]
                },
            },
        }
    )
    assert server.response(3)["error"]["code"] == INVALID_PARAMS
    server.alive(4, uri)


def test_did_change_with_negative_position_is_logged_and_ignored(
    raw: tuple[RawServer, str],
) -> None:
    server, uri = raw
    server.send(
        {
            "jsonrpc": "2.0",
            "method": "textDocument/didChange",
            "params": {
                "textDocument": {"uri": uri, "version": 2},
                "contentChanges": [
                    {
                        "range": {
                            "start": {"line": -1, "character": 0},
                            "end": {"line": 0, "character": -5},
                        },
                        "text": "garbage",
                    }
                ],
            },
        }
    )
    message = server.log_containing("textDocument/didChange")
    assert "last good text" in message
    # The text of version 1 is still there: a range request on it works, and a
    # change numbered 2 is still accepted (the bad one did not bump the version).
    server.send(
        {
            "jsonrpc": "2.0",
            "id": 5,
            "method": "textDocument/documentSymbol",
            "params": {"textDocument": {"uri": uri}},
        }
    )
    symbols = server.response(5)["result"]
    assert symbols, "the document's symbols are gone"


def test_non_numeric_content_length_is_skipped(raw: tuple[RawServer, str]) -> None:
    server, uri = raw
    body = json.dumps(hover(11, uri, {"line": 0, "character": 0})).encode()
    server.write(b"Content-Length: twelve\r\n\r\n" + body)
    server.log_containing("Content-Length")
    server.alive(12, uri)
    server.alive(13, uri)


def test_missing_content_length_is_skipped(raw: tuple[RawServer, str]) -> None:
    server, uri = raw
    server.write(b"Content-Type: application/json\r\n\r\n{}")
    server.log_containing("no Content-Length")
    server.alive(14, uri)


def test_oversized_message_is_discarded_unread(tmp_path: Path) -> None:
    limit = 4096
    server = RawServer(env={"PACK_LSP_MAX_MESSAGE_SIZE": str(limit)})
    try:
        server.initialize(tmp_path)
        uri = (tmp_path / "demo.promptpack.yaml").as_uri()
        filler = json.dumps(
            {"jsonrpc": "2.0", "method": "x/unknown", "params": {"pad": "a" * 3 * limit}}
        ).encode()
        server.write(b"Content-Length: %d\r\n\r\n%s" % (len(filler), filler))
        assert f"limited to {limit} bytes" in server.log_containing("skipped a message")
        server.alive(21, uri)
        # A header announcing far more than the limit is refused before any body arrives.
        server.write(b"Content-Length: 999999999999\r\n\r\n")
        server.log_containing("999999999999 bytes")
    finally:
        server.close()


def test_position_past_the_last_line_is_an_error(raw: tuple[RawServer, str]) -> None:
    server, uri = raw
    lines = PACK.count("\n") + 1
    server.send(hover(31, uri, {"line": lines + 5, "character": 0}))
    reply = server.response(31)
    assert reply["error"]["code"] == INVALID_PARAMS
    assert "outside" in reply["error"]["message"]
    # A character past the end of an existing line is the line end (LSP), not an error.
    server.send(hover(32, uri, {"line": 0, "character": 10_000}))
    assert "error" not in server.response(32)
    # "Nothing here" stays an empty result.
    server.send(hover(33, uri, {"line": lines - 1, "character": 0}))
    assert server.response(33)["result"] is None


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes need POSIX")
async def test_workspace_symbol_skips_a_fifo(client: LanguageClient, tmp_path: Path) -> None:
    """A FIFO named like a pack (or like YAML) must not block the symbol search."""
    os.mkfifo(tmp_path / "stuck.promptpack.yaml")
    os.mkfifo(tmp_path / "stuck.yaml")
    (tmp_path / "real.promptpack.yaml").write_text(PACK, encoding="utf-8")
    found = await asyncio.wait_for(
        client.workspace_symbol_async(types.WorkspaceSymbolParams(query="triage")),
        timeout=TIMEOUT,
    )
    assert found is not None
    names = {(s.name, s.location.uri) for s in found if isinstance(s, types.SymbolInformation)}
    assert ("triage", (tmp_path / "real.promptpack.yaml").as_uri()) in names
