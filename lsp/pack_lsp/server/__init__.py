"""The language server (pygls). Handlers are thin: document → core → convert."""

from __future__ import annotations


def start(tcp: tuple[str, int] | None = None, max_message_size: int | None = None) -> None:
    """Serve on stdio (or TCP); ``max_message_size`` overrides the body size limit."""
    from pack_lsp.server.app import create_server
    from pack_lsp.server.transport import max_message_size as default_limit

    server = create_server()
    server.max_message_size = default_limit() if max_message_size is None else max_message_size
    if tcp is not None:
        server.start_tcp(*tcp)
    else:
        server.start_io()
