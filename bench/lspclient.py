"""A small asyncio LSP client for the benchmark: JSON-RPC over a child's stdio.

It is deliberately independent of pygls and of the server under test, so that the
same code drives pack-lsp and yaml-language-server with the same messages. Every
wait has a timeout, and :meth:`LspClient.close` always ends the child (politely
with ``shutdown``/``exit``, then by signal).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Server processes still running, so that an interrupted benchmark can end them.
LIVE: set[int] = set()


def kill_live() -> None:
    """Kill every server process this module started that is still running."""
    for pid in list(LIVE):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    LIVE.clear()


class LspError(RuntimeError):
    """The server answered with an error, closed the pipe, or did not answer in time."""


@dataclass
class Published:
    """One ``textDocument/publishDiagnostics`` notification, stamped on arrival."""

    uri: str
    version: int | None
    diagnostics: list[dict[str, Any]]
    at: float
    seq: int


@dataclass
class LspClient:
    """Drive one language server process.

    ``settings`` answers ``workspace/configuration``: each requested section is looked
    up in it (``None`` when absent), which is how yaml-language-server and pack-lsp
    both pull their settings.
    """

    argv: Sequence[str]
    settings: dict[str, Any] = field(default_factory=dict)
    stderr_path: Path | None = None
    cwd: Path | None = None
    env: dict[str, str] | None = None
    proc: asyncio.subprocess.Process | None = None
    _next_id: int = 0
    _pending: dict[int, asyncio.Future[Any]] = field(default_factory=dict)
    _published: list[Published] = field(default_factory=list)
    _seq: int = 0
    _changed: asyncio.Event = field(default_factory=asyncio.Event)
    _reader: asyncio.Task[None] | None = None
    _closed: bool = False
    _stderr_file: Any = None
    config_requests: int = 0
    #: ``$/progress`` notifications received: {"token", "value", "at"}.
    progress: list[dict[str, Any]] = field(default_factory=list)

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    async def start(self) -> None:
        if self.stderr_path is not None:
            self.stderr_path.parent.mkdir(parents=True, exist_ok=True)
            self._stderr_file = self.stderr_path.open("wb")
        self.proc = await asyncio.create_subprocess_exec(
            *self.argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=self._stderr_file
            if self._stderr_file is not None
            else asyncio.subprocess.DEVNULL,
            cwd=self.cwd,
            env=self.env,
            limit=64 * 1024 * 1024,
        )
        LIVE.add(self.proc.pid)
        self._reader = asyncio.create_task(self._read_loop())

    # ------------------------------------------------------------------ wire

    def _send(self, payload: dict[str, Any]) -> None:
        if self.proc is None or self.proc.stdin is None or self._closed:
            raise LspError("server is not running")
        body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    async def _read_loop(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        stdout = self.proc.stdout
        try:
            while True:
                length = -1
                while True:
                    line = await stdout.readline()
                    if not line:
                        raise EOFError
                    if line in (b"\r\n", b"\n"):
                        break
                    name, _, value = line.decode("ascii", "replace").partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value.strip())
                if length < 0:
                    continue
                message = json.loads(await stdout.readexactly(length))
                self._dispatch(message)
        except (EOFError, asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            self._closed = True
            for fut in self._pending.values():
                if not fut.done():
                    fut.set_exception(LspError("server closed the connection"))
            self._changed.set()

    def _dispatch(self, msg: dict[str, Any]) -> None:
        method = msg.get("method")
        if method is None:  # a response
            fut = self._pending.pop(msg.get("id", -1), None)
            if fut is not None and not fut.done():
                if "error" in msg:
                    fut.set_exception(LspError(json.dumps(msg["error"])[:500]))
                else:
                    fut.set_result(msg.get("result"))
            return
        if "id" in msg:  # a request from the server
            result: Any = None
            if method == "workspace/configuration":
                self.config_requests += 1
                items = msg.get("params", {}).get("items", [])
                result = [self.settings.get(item.get("section", "")) for item in items]
            self._send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
            return
        if method == "$/progress":
            p = msg.get("params", {})
            self.progress.append(
                {"token": p.get("token"), "value": p.get("value", {}), "at": time.perf_counter()}
            )
            self._changed.set()
            return
        if method == "textDocument/publishDiagnostics":
            p = msg["params"]
            self._seq += 1
            self._published.append(
                Published(
                    p["uri"],
                    p.get("version"),
                    list(p["diagnostics"]),
                    time.perf_counter(),
                    self._seq,
                )
            )
            self._changed.set()

    # ------------------------------------------------------------------ API

    async def request(self, method: str, params: Any, timeout: float) -> Any:
        self._next_id += 1
        rid = self._next_id
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[rid] = fut
        self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        try:
            return await asyncio.wait_for(fut, timeout)
        except TimeoutError as exc:
            self._pending.pop(rid, None)
            raise LspError(f"{method}: no answer within {timeout:g} s") from exc

    def notify(self, method: str, params: Any) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    async def initialize(self, params: dict[str, Any], timeout: float) -> Any:
        """The ``initialize`` request, then the ``initialized`` notification."""
        result = await self.request("initialize", params, timeout)
        self.notify("initialized", {})
        return result

    def open(self, uri: str, text: str, language_id: str = "yaml") -> int:
        """``didOpen`` of version 1 of ``uri``; returns the mark its diagnostics come
        after (for :meth:`wait_diagnostics`)."""
        mark = self.mark()
        self.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": language_id, "version": 1, "text": text}},
        )
        return mark

    def mark(self) -> int:
        """A point in the stream of published diagnostics (for :meth:`wait_diagnostics`)."""
        return self._seq

    async def wait_diagnostics(
        self,
        uri: str,
        *,
        after: int,
        version: int | None = None,
        timeout: float,
        accept: Callable[[Published], bool] | None = None,
    ) -> Published:
        """The first diagnostics for ``uri`` published after ``after``.

        With ``version``, a notification that carries a different version is skipped
        (pack-lsp stamps its diagnostics with the document version; yaml-language-server
        does not, so for it the first publication after the change is the answer, which
        is exact because the benchmark waits for each one before the next change).
        """
        deadline = time.perf_counter() + timeout
        while True:
            for pub in self._published:
                if pub.seq <= after or pub.uri != uri:
                    continue
                if version is not None and pub.version is not None and pub.version != version:
                    continue
                if accept is not None and not accept(pub):
                    continue
                return pub
            if self._closed:
                raise LspError("server closed the connection while waiting for diagnostics")
            left = deadline - time.perf_counter()
            if left <= 0:
                raise LspError(f"no diagnostics for {uri} within {timeout:g} s")
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), left)

    async def wait_progress_end(self, timeout: float) -> float:
        """The time the first work-done progress that began ended (``$/progress`` of kind
        ``end``)."""
        deadline = time.perf_counter() + timeout
        while True:
            begun = {p["token"] for p in self.progress if p["value"].get("kind") == "begin"}
            for p in self.progress:
                if p["value"].get("kind") == "end" and p["token"] in begun:
                    return float(p["at"])
            if self._closed:
                raise LspError("server closed the connection while waiting for progress")
            left = deadline - time.perf_counter()
            if left <= 0:
                raise LspError(f"no end of a work-done progress within {timeout:g} s")
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), left)

    def forget_diagnostics(self) -> None:
        """Drop stored notifications (keeps memory flat over long runs)."""
        self._published.clear()

    def rss_kib(self) -> tuple[int | None, int | None]:
        """(VmRSS, VmHWM) of the server process in KiB, from /proc."""
        try:
            status = Path(f"/proc/{self.pid}/status").read_text()
        except OSError:
            return None, None
        values: dict[str, int] = {}
        for line in status.splitlines():
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                values[key] = int(rest.split()[0])
        return values.get("VmRSS"), values.get("VmHWM")

    async def close(self, timeout: float = 10.0) -> None:
        """``shutdown`` + ``exit``, then terminate/kill if the process lingers."""
        if self.proc is None:
            return
        try:
            if not self._closed:
                with contextlib.suppress(Exception):
                    await self.request("shutdown", None, timeout)
                    self.notify("exit", None)
            try:
                await asyncio.wait_for(self.proc.wait(), timeout)
            except TimeoutError:
                self.proc.terminate()
                try:
                    await asyncio.wait_for(self.proc.wait(), 5)
                except TimeoutError:
                    self.proc.kill()
                    await self.proc.wait()
        finally:
            LIVE.discard(self.proc.pid)
            if self._reader is not None:
                self._reader.cancel()
                with contextlib.suppress(BaseException):
                    await self._reader
            if self._stderr_file is not None:
                self._stderr_file.close()


def position(text: str, index: int) -> dict[str, int]:
    """LSP position (UTF-16 columns, the default encoding) of a code-point offset."""
    line = text.count("\n", 0, index)
    start = text.rfind("\n", 0, index) + 1
    return {"line": line, "character": len(text[start:index].encode("utf-16-le")) // 2}
