"""Warming the server up while its client connects (``core.checks.warmup``).

Right after the ``initialize`` answer is sent, a background thread analyses the
warm-up pack: the first pack the user opens then finds the rule modules loaded, the
schema validators compiled and the scanners' tables built, instead of paying for them.
The thread then writes the code compiled for the classes created so far
(``core.base.codecache``), so that the next session starts from it even if this one
is killed, and drops the stored code no class of this session used (a few MB). A
failure is logged and changes nothing else: the first analysis then does the work
itself.
"""

from __future__ import annotations

import asyncio
import logging
import threading

from pack_lsp.core.base import codecache

log = logging.getLogger(__name__)


def _warm() -> None:
    try:
        from pack_lsp.core.checks.warmup import warm_up

        warm_up()
    except Exception:
        log.exception("the warm-up analysis failed")
    codecache.save_all()
    codecache.release()


def start_soon() -> None:
    """Start the warm-up thread once the current message has been answered (called by
    the ``initialize`` handler: the answer is written before the thread competes for
    the interpreter)."""

    def start() -> None:
        threading.Thread(target=_warm, name="pack-lsp warm-up", daemon=True).start()

    asyncio.get_running_loop().call_soon(start)
