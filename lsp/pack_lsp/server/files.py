"""Reading files the client has not opened, without hanging or exhausting memory.

A request may name a file the editor never opened (``textDocument/hover`` on a
path, a FIFO or device named like a pack). ``Path.read_text`` on a FIFO blocks
until a writer appears, and on ``/dev/zero`` reads until memory runs out, so the
server reads such files only through ``read_regular``: the file is opened with
``O_NONBLOCK`` (which makes opening a FIFO return at once), checked with
``fstat`` on the open descriptor (no race with a rename), refused unless it is a
regular file, and read up to a size cap.
"""

from __future__ import annotations

import os
import stat

#: Largest file read from disk for a document the client has not opened.
MAX_FILE_BYTES = 16 * 1024 * 1024


def read_regular(path: str, limit: int = MAX_FILE_BYTES) -> bytes | None:
    """The bytes of a regular file no larger than ``limit``; None for anything else."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return None if size > limit else b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)
