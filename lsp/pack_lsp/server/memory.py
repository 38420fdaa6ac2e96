"""Keeping the server's resident memory close to what its analyses use.

Python frees a replaced analysis at once (analyses have no reference cycles), but
the C allocator keeps what it got from the system, so the resident size of the
server rose with the first edits of a large pack before it levelled off. With
glibc (elsewhere nothing is done):

- ``configure`` (at start-up, before any thread) gives every thread the same heap
  instead of one per analysis thread, each holding its own high-water mark, and
  fixes the size above which a block gets its own mapping at 256 KiB: glibc
  otherwise raises that size to the largest block freed, so the document texts
  (megabytes each, one per edit) ended up in the heap, where they left holes;
- ``trim`` (after each analysis is stored, in a worker thread: ctypes releases the
  GIL for the call) returns the free pages of the heap to the system.
"""

from __future__ import annotations

import ctypes
import logging
import os
from collections.abc import Callable
from typing import Any, cast

log = logging.getLogger(__name__)


#: ``mallopt`` parameters (glibc's malloc.h).
M_MMAP_THRESHOLD = -3
M_ARENA_MAX = -8
#: Blocks from this size on get their own mapping (returned to the system when freed).
MMAP_THRESHOLD = 256 * 1024


def _glibc() -> ctypes.CDLL | None:
    """The C library when it is glibc, else None. Told by ``os.confstr`` and loaded
    by its soname: ``platform.libc_ver`` and ``ctypes.util.find_library`` (which runs
    ``ldconfig``) cost milliseconds of the server's start-up."""
    try:
        version = os.confstr("CS_GNU_LIBC_VERSION")
    except (AttributeError, ValueError, OSError):  # not POSIX, or not glibc
        return None
    if not version or not version.startswith("glibc"):
        return None
    try:
        return ctypes.CDLL("libc.so.6")
    except OSError:
        return None


_LIBC = _glibc()


def _function(name: str, *argtypes: type[ctypes._SimpleCData[Any]]) -> Callable[..., int] | None:
    function = getattr(_LIBC, name, None) if _LIBC is not None else None
    if function is None:
        return None
    function.argtypes = list(argtypes)
    function.restype = ctypes.c_int
    return cast(Callable[..., int], function)


_TRIM = _function("malloc_trim", ctypes.c_size_t)
_MALLOPT = _function("mallopt", ctypes.c_int, ctypes.c_int)


def configure() -> None:
    """Set up the C allocator for a long-running server (module docstring)."""
    if _MALLOPT is not None:
        _MALLOPT(M_ARENA_MAX, 1)
        _MALLOPT(M_MMAP_THRESHOLD, MMAP_THRESHOLD)


def trim() -> None:
    """Return the C allocator's free memory to the system, where that is possible."""
    if _TRIM is not None:
        try:
            _TRIM(0)
        except OSError:  # never fatal: memory is only kept longer
            log.debug("malloc_trim failed", exc_info=True)
