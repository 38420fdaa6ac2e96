"""The language server (pygls). Handlers are thin: document → core → convert."""

from __future__ import annotations


def start(tcp: tuple[str, int] | None = None) -> None:
    from pack_lsp.server.app import create_server

    server = create_server()
    if tcp is not None:
        server.start_tcp(*tcp)
    else:
        server.start_io()
