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


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int | None:
    from pack_lsp.server import start

    if getattr(args, "paths", None):
        parser.error("PATH arguments need a mode such as --check")

    if args.tcp:
        host, _, port = args.tcp.rpartition(":")
        if not host or not port.isdigit():
            parser.error(f"--tcp expects HOST:PORT, got {args.tcp!r}")
        start(tcp=(host, int(port)))
    else:
        start()
    return 0
