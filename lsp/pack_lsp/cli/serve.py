"""Default mode: serve LSP on stdio (or TCP for debugging)."""

from __future__ import annotations

import argparse
import gc
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--tcp",
        metavar="HOST:PORT",
        help="serve LSP over TCP instead of stdio (for debugging)",
    )
    parser.add_argument("--stdio", action="store_true", help="serve LSP on stdio (the default)")
    parser.add_argument(
        "--max-message-size",
        metavar="BYTES",
        type=int,
        help="largest LSP message body the server reads; larger ones are discarded unread "
        "and logged (default: $PACK_LSP_MAX_MESSAGE_SIZE or 64 MiB; 0 = no limit)",
    )


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int | None:
    # The server's start-up makes objects that live as long as the process (the
    # classes of lsprotocol, the modules): the cyclic collector stays off while they
    # are made, and ``start`` freezes them before it turns it back on.
    gc.disable()
    from pack_lsp.server import start

    if getattr(args, "paths", None):
        parser.error("PATH arguments need a mode such as --check")

    limit = getattr(args, "max_message_size", None)
    if limit is not None and limit < 0:
        parser.error("--max-message-size must be 0 (no limit) or a number of bytes")
    if args.tcp:
        host, _, port = args.tcp.rpartition(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            parser.error(f"--tcp expects HOST:PORT with a port from 1 to 65535, got {args.tcp!r}")
        try:
            start(tcp=(host, int(port)), max_message_size=limit)
        except OSError as exc:
            print(
                f"pack-lsp: error: cannot serve on {host}:{port}: {exc.strerror or exc}",
                file=sys.stderr,
            )
            return 2
    else:
        if _is_terminal(sys.stdin):
            print(
                "pack-lsp: serving the Language Server Protocol on stdin/stdout for an "
                "editor (Ctrl-D ends it). To check files, run `pack-lsp --check PATH...`; "
                "`pack-lsp --help` lists the modes.",
                file=sys.stderr,
            )
        start(max_message_size=limit)
    return 0


def _is_terminal(stream: object) -> bool:
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError, OSError):
        return False
