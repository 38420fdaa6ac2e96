"""Default mode: serve LSP on stdio (or TCP for debugging)."""

from __future__ import annotations

import argparse


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
    from pack_lsp.server import start

    if getattr(args, "paths", None):
        parser.error("PATH arguments need a mode such as --check")

    limit = getattr(args, "max_message_size", None)
    if limit is not None and limit < 0:
        parser.error("--max-message-size must be 0 (no limit) or a number of bytes")
    if args.tcp:
        host, _, port = args.tcp.rpartition(":")
        if not host or not port.isdigit():
            parser.error(f"--tcp expects HOST:PORT, got {args.tcp!r}")
        start(tcp=(host, int(port)), max_message_size=limit)
    else:
        start(max_message_size=limit)
    return 0
