"""A request whose id is not a JSON-RPC id (an object, an array, a boolean) is
answered with -32600 "Invalid Request" and a null id, as JSON-RPC 2.0 says; the
server keeps answering valid requests after it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pack_lsp.server.app import create_server


class Writer:
    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    def write(self, data: bytes) -> None:
        self.messages.append(json.loads(data.split(b"\r\n\r\n", 1)[1]))

    def close(self) -> None:
        pass


@pytest.mark.parametrize("bad", [{"a": 1}, [1, 2], True, {}])
def test_a_bad_id_is_an_invalid_request(bad: Any) -> None:
    protocol = create_server().protocol
    writer = Writer()
    protocol.set_writer(writer)
    protocol.receive(json.dumps({"jsonrpc": "2.0", "id": bad, "method": "shutdown"}).encode())
    protocol.receive(json.dumps({"jsonrpc": "2.0", "id": 7, "method": "shutdown"}).encode())
    first, second = writer.messages
    assert first["id"] is None and first["error"]["code"] == -32600
    assert "JSON-RPC ids are strings, numbers or null" in first["error"]["message"]
    assert second == {"jsonrpc": "2.0", "id": 7, "result": None}


def test_an_object_inside_params_is_not_taken_for_an_id() -> None:
    protocol = create_server().protocol
    writer = Writer()
    protocol.set_writer(writer)
    body = {"jsonrpc": "2.0", "id": "x", "method": "shutdown", "params": {"id": {"a": 1}}}
    protocol.receive(json.dumps(body).encode())
    assert [m.get("id") for m in writer.messages] == ["x"]
    assert "error" not in writer.messages[0]
