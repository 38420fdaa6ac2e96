"""Reading LSP messages from a byte stream without trusting the headers.

pygls' own read loop has two weaknesses against a broken or hostile client:

* a ``Content-Length`` header that is not a number is ignored, so the body that
  follows is read as header lines; as a body has no line break at its end, every
  later header is glued to the previous body and no message is ever read again;
* the body is read in one ``read(Content-Length)``, so a header announcing
  gigabytes makes the server allocate them.

``read_messages`` replaces that loop for stdio and TCP. A header block whose
``Content-Length`` is missing or not a non-negative integer is logged and skipped,
and the reader then resynchronises on the next line that ends with a valid
``Content-Length`` header (a glued body is dropped with it). A body larger than
the limit (``PACK_LSP_MAX_MESSAGE_SIZE`` bytes or ``--max-message-size``, 64 MiB
by default) is read in 1 MiB chunks and discarded — never held in memory — and
the server goes on with the next message. Such a message cannot be answered (its
id is in the discarded body); the client sees the problem as a
``window/logMessage`` error.

On stdio, ``stdio_reader`` reads a pipe or socket on the event loop itself
(``connect_read_pipe``), instead of pygls' reader, which hands every line and body
to a thread and back: four hand-offs per message, each of which can wait for the
GIL for the interpreter's switch interval (5 ms) while an analysis runs in its
thread.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import stat
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, BinaryIO, Protocol

from pygls.io_ import StdinAsyncReader

log = logging.getLogger(__name__)

#: Default largest message body, in bytes.
DEFAULT_MAX_MESSAGE_SIZE = 64 * 1024 * 1024
MAX_MESSAGE_SIZE_ENV = "PACK_LSP_MAX_MESSAGE_SIZE"
#: Size of the pieces in which an oversized body is read and thrown away.
DISCARD_CHUNK = 1 << 20

_HEADER = re.compile(rb"Content-Length:[ \t]*([^\r\n]*?)[ \t]*\r?\n\Z", re.IGNORECASE)
_VALID_HEADER = re.compile(rb"Content-Length:[ \t]*(\d+)[ \t]*\r?\n\Z", re.IGNORECASE)


class AsyncReader(Protocol):
    def readline(self) -> Awaitable[bytes]: ...

    def readexactly(self, n: int) -> Awaitable[bytes]: ...


class StreamReaderAdapter:
    """``AsyncReader`` over an ``asyncio.StreamReader`` with the semantics of a file:
    a short read at the end of the stream instead of an exception."""

    def __init__(self, stream: asyncio.StreamReader) -> None:
        self.stream = stream

    async def readline(self) -> bytes:
        try:
            return await self.stream.readline()
        except ValueError:  # longer than the stream's limit: dropped, never a header
            return b"\0\n"

    async def readexactly(self, n: int) -> bytes:
        try:
            return await self.stream.readexactly(n)
        except asyncio.IncompleteReadError as exc:
            return exc.partial


async def stdio_reader(
    stdin: BinaryIO, stdout: BinaryIO, executor: ThreadPoolExecutor | None
) -> AsyncReader:
    """The reader of the server's input on stdio (module docstring).

    A pipe or socket is read by the event loop. Anything else (a regular file), or
    an input that shares its open file with the output (a terminal, one socket for
    both), which the loop's non-blocking mode would also switch, is read by pygls'
    reader in a thread.
    """
    try:
        fd_in, fd_out = stdin.fileno(), stdout.fileno()
        info = os.fstat(fd_in)
        out = os.fstat(fd_out)
    except (OSError, ValueError, AttributeError):
        return StdinAsyncReader(stdin, executor)
    shared = (info.st_dev, info.st_ino) == (out.st_dev, out.st_ino)
    if shared or not (stat.S_ISFIFO(info.st_mode) or stat.S_ISSOCK(info.st_mode)):
        return StdinAsyncReader(stdin, executor)
    stream = asyncio.StreamReader(limit=DEFAULT_MAX_MESSAGE_SIZE)
    loop = asyncio.get_running_loop()
    try:
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stream), stdin)
    except (OSError, ValueError, NotImplementedError):
        return StdinAsyncReader(stdin, executor)
    return StreamReaderAdapter(stream)


def max_message_size(value: str | None = None) -> int:
    """The body size limit: ``value`` or ``PACK_LSP_MAX_MESSAGE_SIZE`` (0 = none)."""
    raw = (value if value is not None else os.environ.get(MAX_MESSAGE_SIZE_ENV, "")).strip()
    if raw:
        try:
            number = int(raw)
        except ValueError:
            return DEFAULT_MAX_MESSAGE_SIZE
        return number if number >= 0 else DEFAULT_MAX_MESSAGE_SIZE
    return DEFAULT_MAX_MESSAGE_SIZE


async def read_messages(
    stop_event: threading.Event,
    reader: AsyncReader,
    handle: Callable[[bytes], None],
    report: Callable[[str], None],
    limit: int,
) -> None:
    """Read framed messages from ``reader`` and pass each body to ``handle``.

    ``report`` receives a sentence for every message that had to be skipped.
    Returns at the end of the stream or when ``stop_event`` is set.
    """
    resync = False
    while not stop_event.is_set():
        line = await reader.readline()
        if not line:
            return
        if resync:
            # Look for a valid header at the end of the line (a glued body before it).
            match = _VALID_HEADER.search(line)
            if match is None:
                continue
            resync = False
            length: int | None = int(match.group(1))
            bad: str | None = None
        else:
            length, bad = None, None
            header = _HEADER.match(line)
            if header is not None:
                length, bad = _parse_length(header.group(1))
            elif line.strip() == b"":
                continue  # stray blank line between messages
        # Read the rest of the header block.
        while True:
            line = await reader.readline()
            if not line:
                return
            if line.strip() == b"":
                break
            header = _HEADER.match(line)
            if header is not None and length is None and bad is None:
                length, bad = _parse_length(header.group(1))
        if length is None:
            report(
                "pack-lsp: skipped a message: "
                + (bad or "its headers have no Content-Length")
                + "; waiting for the next valid header"
            )
            resync = True
            continue
        if limit and length > limit:
            report(
                f"pack-lsp: skipped a message of {length} bytes: messages are limited to "
                f"{limit} bytes (--max-message-size or {MAX_MESSAGE_SIZE_ENV})"
            )
            if not await _discard(reader, length):
                return
            continue
        body = await reader.readexactly(length) if length else b""
        if len(body) < length:
            return
        handle(body)


def _parse_length(raw: bytes) -> tuple[int | None, str | None]:
    text = raw.decode("ascii", errors="replace")
    if text.isdigit() and text.isascii():
        return int(text), None
    return None, f"its Content-Length header {text[:40]!r} is not a byte count"


async def _discard(reader: AsyncReader, length: int) -> bool:
    """Read and drop ``length`` bytes in chunks; False when the stream ended first."""
    while length > 0:
        chunk = await reader.readexactly(min(length, DISCARD_CHUNK))
        if not chunk:
            return False
        length -= len(chunk)
    return True


def decode_body(body: bytes, object_hook: Callable[[dict[str, Any]], Any]) -> Any:
    """The structured message of a body (``json.loads`` with pygls' object hook)."""
    return json.loads(body, object_hook=object_hook)
