"""The server's garbage-collection policy around analyses.

An analysis is a large graph of long-lived objects. Left to itself, the cyclic
garbage collector runs many young collections while an analysis builds it, and every
full collection walks all stored analyses again, a pause that grows with the pack.
Instead, the collector is paused while an analysis runs and everything alive is
frozen when it ends (``paused``). A replaced analysis is acyclic: reference counting
frees it although it is frozen (``release``, in a worker thread). Frozen objects that
became cyclic garbage (from elsewhere in the server) would never be collected, so
every ``FULL_COLLECTION_EVERY`` stored analyses everything is unfrozen and collected
once (``stored``).
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator
from typing import Any

from pack_lsp.server.memory import trim

#: Analyses between two full garbage collections (``stored``).
FULL_COLLECTION_EVERY = 100

_stores = 0
_paused = 0
_paused_lock = threading.Lock()


@contextlib.contextmanager
def paused(pause: bool) -> Iterator[None]:
    """Pause the cyclic garbage collector while analyses run (in any thread).

    When the last running analysis ends, everything alive is frozen before the
    collector resumes: the new analysis is then out of its reach without being
    walked once (a walk of every object an analysis made, about 70 ms at 70k lines,
    that would otherwise come with the first allocation after it). An analysis
    leaves no reference cycles behind (a core test checks it), so freezing loses
    nothing; see ``stored`` for the periodic full collection.
    """
    global _paused
    if not pause:
        yield
        return
    with _paused_lock:
        _paused += 1
        gc.disable()
    try:
        yield
    finally:
        with _paused_lock:
            _paused -= 1
            if _paused == 0:
                gc.freeze()
                gc.enable()


def stored() -> None:
    """A new analysis replaced the older one of its document (called after the result
    is published and its requests are answered): the first time, and then every
    ``FULL_COLLECTION_EVERY`` calls, everything is unfrozen and collected once. The
    first one frees the cyclic garbage of the start-up, which ran with the collector
    off and was frozen whole (``server.start``): kept, it held ~8 MiB for the whole
    session; collected at start-up, it would delay the first diagnostics by ~50 ms."""
    global _stores
    _stores += 1
    if _stores == 1 or _stores % FULL_COLLECTION_EVERY == 0:
        gc.unfreeze()
        gc.collect()
        gc.freeze()


def release(box: list[Any]) -> None:
    """Free a replaced analysis (its last reference is in ``box``), in a worker
    thread, then give the freed memory back to the system (``memory.trim``)."""
    box.clear()
    trim()
