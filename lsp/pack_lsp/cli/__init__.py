"""The ``pack-lsp`` command line.

``pack-lsp`` alone serves LSP on stdio; ``pack-lsp --check PATH...`` checks files for
CI; ``pack-lsp mcp`` serves the Model Context Protocol (``cli/mcpserver.py``). Each
mode lives in its own module with ``add_arguments(parser)`` and
``run(args) -> int | None`` (``None``: not this mode's arguments).

``--version`` is answered before the modes are imported: building the full parser
loads the analysis core (its option lists name rule codes and output formats), which
a version query does not need.
"""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Sequence
from types import ModuleType

from pack_lsp import __version__


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(2, f"pack-lsp: error: {message}\n")


def _add_version(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--version", action="version", version=f"pack-lsp {__version__}")


def _answer_version(argv: Sequence[str] | None) -> None:
    """Exit with the version when asked for it, as the full parser would."""
    pre = _Parser(prog="pack-lsp", add_help=False)
    _add_version(pre)
    pre.parse_known_args(argv)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="pack-lsp",
        description="Language server and CI checker for PromptPack files. "
        "Without arguments, serves the Language Server Protocol on stdio; "
        "`pack-lsp mcp` serves the Model Context Protocol for coding agents.",
    )
    _add_version(parser)
    for mode in modes():
        mode.add_arguments(parser)
    return parser


def modes() -> tuple[ModuleType, ...]:
    """The modes, in the order they are offered the arguments."""
    from pack_lsp.cli import arena, cards, check, compare, meaning, serve

    # ``serve`` is the fallback when no other mode claims the arguments: keep it last;
    # ``meaning`` before ``cards``, which refuses ``--agent`` without ``--card``.
    return (check, meaning, cards, arena, compare, serve)


#: The options that choose a mode, and how to tell whether one was given.
MODE_OPTIONS: tuple[tuple[str, str], ...] = (
    ("--check", "check"),
    ("--card", "card"),
    ("--topology", "topology"),
    ("--compare", "compare"),
    ("--compile", "compile"),
    ("--render", "render"),
    ("--governance", "governance"),
)


def _one_mode(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """Modes do not combine: two of them is a usage error, never one silently ignored
    (``--check --topology a.yaml b.yaml`` would otherwise check ``b.yaml`` only)."""
    given = [
        option for option, dest in MODE_OPTIONS if getattr(args, dest, None) not in (None, False)
    ]
    if len(given) > 1:
        parser.error(f"{' and '.join(given)} cannot be combined: run one mode at a time")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; ``argv`` None means this process is the ``pack-lsp``
    program (the console script or ``python -m pack_lsp``), not a caller in Python.

    The program runs with the cyclic garbage collector off until it knows its mode:
    importing the analysis core allocates a few hundred thousand objects, none of
    them garbage, and the collections they triggered cost about 9 ms of a 200 ms
    check. A check keeps it off (an analysis leaves no cycles, see
    ``cli/check.py``) and ends the process itself once its output is written;
    the other modes turn it back on.
    """
    program = argv is None
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["mcp"]:  # `pack-lsp mcp`: the MCP server, its own command
        from pack_lsp.cli.mcpserver import main as serve_mcp

        return serve_mcp(words[1:])
    if program:
        gc.disable()
    _answer_version(argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    _one_mode(args, parser)
    args.program = program
    if program and not args.check:
        gc.enable()
    for mode in modes():
        result = mode.run(args, parser)
        if result is not None:
            return int(result)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
