"""The language server (pygls). Handlers are thin: document → core → convert."""

from __future__ import annotations

import gc
import sys
import typing

import attr._make
import cattrs.gen

from pack_lsp.core.base import codecache

# Before lsprotocol creates its ~570 attrs classes: the methods attrs generates for
# them, and those cattrs generates to convert each message type, are compiled once
# and reused by later server processes (about a third of the server's start-up); so
# are the ~300 forward references ``typing`` compiles when their types are resolved.
codecache.route_compile(attr._make, "attrs")
codecache.route_compile(cattrs.gen, "cattrs")
codecache.route_compile(typing, "typing")

#: Seconds a thread holds the GIL while another waits for it (``sys.setswitchinterval``).
SWITCH_INTERVAL = 0.001


def start(tcp: tuple[str, int] | None = None, max_message_size: int | None = None) -> None:
    """Serve on stdio (or TCP); ``max_message_size`` overrides the body size limit.

    Everything made until the server is built (the modules, lsprotocol's classes, the
    server) lives as long as the process: it is frozen, out of the cyclic collector's
    reach, and the collector is turned on. ``pack-lsp`` runs the start-up with the
    collector off (``cli/serve.py``): collecting while those few hundred thousand
    objects are made cost about a sixth of the start-up. The analyses' own policy is
    ``server.collector``'s.
    """
    try:
        from pack_lsp.server.app import create_server
        from pack_lsp.server.transport import max_message_size as default_limit

        # The GIL passes from an analysis thread to the event loop after at most the
        # switch interval: 1 ms instead of 5, so that a message that arrives while an
        # analysis runs is read (and a request answered) without waiting that long.
        sys.setswitchinterval(SWITCH_INTERVAL)
        from pack_lsp.server.memory import configure

        configure()
        server = create_server()
        server.max_message_size = default_limit() if max_message_size is None else max_message_size
    finally:
        gc.freeze()
        gc.enable()
    if tcp is not None:
        server.start_tcp(*tcp)
    else:
        server.start_io()
