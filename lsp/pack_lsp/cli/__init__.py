"""The ``pack-lsp`` command line.

``pack-lsp`` alone serves LSP on stdio; ``pack-lsp --check PATH...`` checks files for
CI. Each mode lives in its own module with ``add_arguments(parser)`` and
``run(args) -> int | None`` (``None``: not this mode's arguments).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from pack_lsp import __version__
from pack_lsp.cli import cards, check, serve

# ``serve`` is the fallback when no other mode claims the arguments: keep it last.
MODES = (check, cards, serve)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(2, f"pack-lsp: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="pack-lsp",
        description="Language server and CI checker for PromptPack files. "
        "Without arguments, serves the Language Server Protocol on stdio.",
    )
    parser.add_argument("--version", action="version", version=f"pack-lsp {__version__}")
    for mode in MODES:
        mode.add_arguments(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    for mode in MODES:
        result = mode.run(args, parser)
        if result is not None:
            return int(result)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
