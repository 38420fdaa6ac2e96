"""Turning files and bytes into analysable text.

``read_source`` is the one way pack-lsp reads a file from disk (the command line
and the server both use it). It refuses what is not a regular file before opening
it — reading a FIFO blocks forever, reading ``/dev/zero`` never ends — follows
symbolic links but reports a loop, and refuses files over a size limit instead of
reading them into memory.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from pathlib import Path

from pack_lsp.core.base.diagnostics import Diagnostic, make
from pack_lsp.core.base.problems.document import INVALID_ENCODING
from pack_lsp.core.base.text import Span

BOM = "\ufeff"

#: Largest file read, in bytes (``PACK_LSP_MAX_FILE_SIZE`` overrides it). The
#: largest real packs are well under 1 MB; a 10 MB pack is analysed in a few
#: seconds and a few hundred MB, anything larger is refused (see docs/decisions.md).
DEFAULT_MAX_FILE_SIZE = 10 * 1024 * 1024
MAX_FILE_SIZE_ENV = "PACK_LSP_MAX_FILE_SIZE"
_MIB = 1024 * 1024

#: What ``PACK_LSP_MAX_FILE_SIZE`` accepts: a whole number of bytes, or a whole
#: number and a unit (any case, a space between them allowed).
_SIZE = re.compile(r"([0-9]+)[ \t]*([kmg]i?b)?", re.IGNORECASE)
_UNITS = {
    "kb": 1000,
    "mb": 1000**2,
    "gb": 1000**3,
    "kib": 1024,
    "mib": 1024**2,
    "gib": 1024**3,
}
SIZE_FORMS = (
    "a whole number of bytes (1048576), or a whole number with a unit: KB, MB, GB "
    "(powers of 1000) or KiB, MiB, GiB (powers of 1024); 0 means no limit"
)


class SourceError(OSError):
    """A file that cannot be read as a pack; the message says why, for the user."""


def parse_size(text: str) -> int:
    """The number of bytes ``text`` says (``10485760``, ``10MiB``, ``10 MB``);
    ``ValueError`` for anything else (see ``SIZE_FORMS``)."""
    match = _SIZE.fullmatch(text.strip())
    if match is None:
        raise ValueError(f"`{text}` is not a size: give {SIZE_FORMS}")
    number, unit = match.groups()
    return int(number) * (_UNITS[unit.lower()] if unit else 1)


def file_size_setting() -> tuple[int, str | None]:
    """(the size limit, the problem with ``PACK_LSP_MAX_FILE_SIZE`` or None).

    An unset or blank variable gives the default. A value that is not a size gives
    the default too, and a message naming the variable: the command line stops on
    it (status 2), the server reports it and goes on with the default.
    """
    raw = os.environ.get(MAX_FILE_SIZE_ENV, "")
    if not raw.strip():
        return DEFAULT_MAX_FILE_SIZE, None
    try:
        return parse_size(raw), None
    except ValueError as exc:
        return DEFAULT_MAX_FILE_SIZE, f"{MAX_FILE_SIZE_ENV}: {exc}"


def max_file_size() -> int:
    """The size limit in bytes (0: none): ``PACK_LSP_MAX_FILE_SIZE`` or the default."""
    return file_size_setting()[0]


def format_size(size: int) -> str:
    """``1,024 bytes`` under 1 MiB, ``10.0 MiB`` from there on."""
    if size < _MIB:
        return f"{size:,} byte" + ("" if size == 1 else "s")
    return f"{size / _MIB:.1f} MiB"


def _kind_of(mode: int) -> str | None:
    """A user-facing name for anything that is not a regular file."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if not stat.S_ISREG(mode):
        return "not a regular file"
    return None


def check_regular(path: Path) -> None:
    """Raise ``SourceError`` unless ``path`` (links followed) is a readable regular file."""
    try:
        info = os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise SourceError(exc.errno, "symbolic link loop") from None
        if exc.errno == errno.ENAMETOOLONG:
            raise SourceError(exc.errno, "file name too long") from None
        raise
    kind = _kind_of(info.st_mode)
    if kind is not None:
        raise SourceError(errno.EINVAL, f"{kind}, not a regular file")


def _open_regular(path: Path) -> int:
    """A descriptor open for reading on the regular file ``path`` (links followed).

    Refuses what is not a regular file before opening it and again on the open
    descriptor: if the path was swapped for a FIFO after the first check, opening it
    does not block (``O_NONBLOCK``) and the second check refuses it.
    """
    check_regular(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise SourceError(exc.errno, "symbolic link loop") from None
        raise
    kind = _kind_of(os.fstat(fd).st_mode)
    if kind is not None:
        os.close(fd)
        raise SourceError(errno.EINVAL, f"{kind}, not a regular file")
    return fd


def read_source(path: str | Path, limit: int | None = None) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` bytes.

    Raises ``SourceError`` (an ``OSError`` whose ``strerror`` is a clear message)
    for directories, FIFOs, sockets, devices, symbolic-link loops and files over
    the limit (``max_file_size()`` when ``limit`` is None; 0 means no limit);
    other ``OSError``s (permission denied...) pass through.
    """
    path = Path(path)
    limit = max_file_size() if limit is None else limit
    with os.fdopen(_open_regular(path), "rb") as handle:
        info = os.fstat(handle.fileno())
        if limit and info.st_size > limit:
            raise SourceError(errno.EFBIG, _too_large(info.st_size, limit))
        data = handle.read(limit + 1) if limit else handle.read()
    if limit and len(data) > limit:  # grew while being read
        raise SourceError(errno.EFBIG, _too_large(len(data), limit))
    return data


def read_head(path: str | Path, size: int) -> bytes:
    """The first ``size`` bytes of the regular file ``path`` (all of a shorter file),
    with the checks of ``read_source`` but no size limit: a file is recognised by
    its first lines however long it is."""
    with os.fdopen(_open_regular(Path(path)), "rb") as handle:
        return handle.read(size)


def read_text(path: str | Path, limit: int | None = None) -> str:
    """The text of the regular file ``path`` as strict UTF-8 (a BOM dropped), read
    by ``read_source``; ``SourceError`` for bytes that are not UTF-8 too."""
    raw = read_source(path, limit)
    try:
        return strip_bom(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise SourceError(
            errno.EILSEQ, f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at {exc.start})"
        ) from None


def refusal(path: str | Path) -> str | None:
    """Why ``read_source`` refuses the existing ``path`` (not a regular file, a link
    loop, over the size limit), found without reading it; None when it would read
    it, or when nothing is there."""
    try:
        check_regular(Path(path))
        size = os.stat(path).st_size
    except FileNotFoundError:
        return None
    except OSError as exc:
        return exc.strerror or str(exc)
    limit = max_file_size()
    return _too_large(size, limit) if limit and size > limit else None


def _too_large(size: int, limit: int) -> str:
    shown, limit_shown = format_size(size), format_size(limit)
    if shown == limit_shown or (limit < _MIB) != (size < _MIB):
        # Both in bytes: the same unit, and different numbers.
        shown, limit_shown = f"{size:,} bytes", f"{limit:,} bytes"
    return (
        f"file too large ({shown}; the limit is {limit_shown}, "
        f"set {MAX_FILE_SIZE_ENV} to change it)"
    )


#: Byte-order marks of encodings other than UTF-8, longest first.
_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32 LE"),
    (b"\x00\x00\xfe\xff", "UTF-32 BE"),
    (b"\xff\xfe", "UTF-16 LE"),
    (b"\xfe\xff", "UTF-16 BE"),
)
_CODECS = {
    "UTF-32 LE": "utf-32-le",
    "UTF-32 BE": "utf-32-be",
    "UTF-16 LE": "utf-16-le",
    "UTF-16 BE": "utf-16-be",
}


def sniff_encoding(raw: bytes) -> tuple[str, int] | None:
    """(name, BOM length) when ``raw`` is UTF-16 or UTF-32 rather than UTF-8.

    A BOM decides; without one, the NUL pattern of ASCII text in a wider encoding
    does (a YAML or JSON file starts with ASCII, as the YAML spec itself assumes).
    """
    for bom, name in _BOMS:
        if raw.startswith(bom):
            return name, len(bom)
    head = raw[:4]
    if len(head) == 4:
        if head[0] and not any(head[1:]):
            return "UTF-32 LE", 0
        if head[3] and not any(head[:3]):
            return "UTF-32 BE", 0
    if len(head) >= 2:
        if head[0] and not head[1] and (len(head) < 4 or (head[2] and not head[3])):
            return "UTF-16 LE", 0
        if not head[0] and head[1] and (len(head) < 4 or (not head[2] and head[3])):
            return "UTF-16 BE", 0
    return None


def decode(raw: bytes) -> tuple[str, list[Diagnostic]]:
    """Decode UTF-8 (a BOM is accepted and dropped).

    Bytes that are not UTF-8 give one PP002 diagnostic at the first bad byte; the
    text is then decoded with replacement characters so the rest can be analysed.
    A UTF-16 or UTF-32 file gets one PP002 naming its encoding and is decoded in
    that encoding, so that its content is still checked.
    """
    wide = sniff_encoding(raw)
    if wide is not None:
        name, bom = wide
        text = raw[bom:].decode(_CODECS[name], errors="replace")
        diag = make(
            INVALID_ENCODING,
            f"This file is {name}; PromptPack files must be UTF-8 (save it as UTF-8)",
            Span(0, min(1, len(text))),
            data={"encoding": name},
        )
        return text, [diag]
    try:
        return strip_bom(raw.decode("utf-8")), []
    except UnicodeDecodeError as exc:
        prefix = strip_bom(raw[: exc.start].decode("utf-8", errors="replace"))
        text = strip_bom(raw.decode("utf-8", errors="replace"))
        offset = len(prefix)
        bad = raw[exc.start : exc.start + 1].hex()
        diag = make(
            INVALID_ENCODING,
            f"The file is not valid UTF-8: byte 0x{bad} at this position cannot be decoded "
            "(save the file as UTF-8)",
            Span(offset, min(offset + 1, len(text))),
            data={"byte_offset": exc.start},
        )
        return text, [diag]


def strip_bom(text: str) -> str:
    """``text`` without a leading byte-order mark: the one place a BOM is dropped."""
    return text[1:] if text.startswith(BOM) else text
