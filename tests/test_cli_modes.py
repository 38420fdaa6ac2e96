"""The command line says what it does: modes do not combine silently, mode options
need their mode, and serving errors are one line (exit 2), a clean exit is silent."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pack_lsp.cli import main

SERVER = [sys.executable, "-m", "pack_lsp"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--check", "--topology", "a.yaml", "b.yaml"],
            "--check and --topology cannot be combined",
        ),
        (["--check", "x.yaml", "--card", "x.yaml"], "--check and --card cannot be combined"),
        (["--card", "x.yaml", "--topology", "x.yaml"], "--card and --topology cannot be combined"),
        (["--fix", "x.yaml"], "--fix is used with --check"),
        (["--diff", "x.yaml"], "--diff is used with --check"),
        (["--baseline", "b.json"], "--baseline is used with --check"),
        (["--strict"], "--strict is used with --check"),
        (["--tcp", "127.0.0.1:99999"], "a port from 1 to 65535"),
    ],
)
def test_usage_errors(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_port_in_use_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run(
            [*SERVER, "--tcp", f"127.0.0.1:{port}"], capture_output=True, text=True, timeout=60
        )
    assert done.returncode == 2
    assert done.stderr.startswith(f"pack-lsp: error: cannot serve on 127.0.0.1:{port}: ")
    assert done.stderr.count("\n") == 1


def _send(sock: socket.socket, message: dict[str, object]) -> None:
    body = json.dumps(message).encode()
    sock.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)


def test_a_clean_exit_over_tcp_prints_nothing() -> None:
    port = _free_port()
    server = subprocess.Popen(
        [*SERVER, "--tcp", f"127.0.0.1:{port}"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                sock = socket.create_connection(("127.0.0.1", port))
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        with sock:
            _send(
                sock,
                {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}},
            )
            sock.recv(65536)
            _send(sock, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
            _send(sock, {"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
            _send(sock, {"jsonrpc": "2.0", "method": "exit"})
            _, err = server.communicate(timeout=30)
    finally:
        if server.poll() is None:
            server.kill()
            server.communicate()
    assert server.returncode == 0
    assert "Traceback" not in err and "SystemExit" not in err, err


def test_bare_pack_lsp_on_a_terminal_says_what_it_does(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import pack_lsp.server
    from pack_lsp.cli import serve

    started: list[object] = []
    monkeypatch.setattr(serve, "_is_terminal", lambda stream: True)
    monkeypatch.setattr(pack_lsp.server, "start", lambda **kw: started.append(kw))
    assert main([]) == 0
    assert started
    err = capsys.readouterr().err
    assert "Language Server Protocol" in err and "pack-lsp --check PATH" in err


def test_no_message_when_an_editor_starts_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import pack_lsp.server
    from pack_lsp.cli import serve

    monkeypatch.setattr(serve, "_is_terminal", lambda stream: False)
    monkeypatch.setattr(pack_lsp.server, "start", lambda **kw: None)
    assert main([]) == 0
    assert capsys.readouterr().err == ""
