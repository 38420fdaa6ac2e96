"""The ``pack-lsp`` command line.

``pack-lsp`` alone serves LSP on stdio; ``pack-lsp --check PATH...`` (or
``pack-lsp check PATH...``) checks files for CI; ``pack-lsp mcp`` serves the Model
Context Protocol (``cli/mcpserver.py``); ``pack-lsp rule CODE`` prints a rule's
documentation (``cli/rule.py``). Each mode lives in its own module with
``add_arguments(parser)`` and ``run(args) -> int | None`` (``None``: not this mode's
arguments).

A usage error is one line and a pointer to ``--help`` (status 2); an interrupt
(Ctrl-C) is one line and status 130, whatever the mode was doing (``interrupted``).

``--version`` is answered before the modes are imported: building the full parser
loads the analysis core (its option lists name rule codes and output formats), which
a version query does not need.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

from pack_lsp import __version__

#: Status of a run ended by an interrupt (Ctrl-C): 128 + SIGINT, as shells report it.
INTERRUPTED = 130
HELP_POINTER = "run `pack-lsp --help` for the options"


def _columns() -> int:
    """The terminal's width, as ``shutil.get_terminal_size`` tells it (``COLUMNS``,
    then the standard output's terminal, else 80), without importing ``shutil``: the
    help formatter that every ``add_argument`` builds would, and with it ``bz2`` and
    ``lzma``, a few milliseconds of a check that never prints its help."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _Formatter(argparse.HelpFormatter):
    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        width = _columns() - 2 if width is None else width
        super().__init__(prog, indent_increment, max_help_position, width)


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        """One line, not the usage block: the message and where the options are."""
        self.exit(2, f"pack-lsp: error: {message} ({HELP_POINTER})\n")


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
        "`pack-lsp check PATH...` is `pack-lsp --check PATH...`; "
        "`pack-lsp rule CODE` prints a rule's documentation; "
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


#: Modes that read the one file their option names: a PATH besides it would be ignored.
ONE_FILE_MODES = ("--card", "--topology", "--compile", "--render", "--governance")


def _one_mode(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """Modes do not combine: two of them is a usage error, never one silently ignored
    (``--check --topology a.yaml b.yaml`` would otherwise check ``b.yaml`` only); nor
    is a PATH the mode would not read (``--card a.yaml b.yaml``)."""
    given = [
        option for option, dest in MODE_OPTIONS if getattr(args, dest, None) not in (None, False)
    ]
    if len(given) > 1:
        parser.error(f"{' and '.join(given)} cannot be combined: run one mode at a time")
    paths = getattr(args, "paths", None) or []
    if given and given[0] in ONE_FILE_MODES and paths:
        extra = ", ".join(f"`{p}`" for p in paths)
        parser.error(
            f"{given[0]} reads one file, {getattr(args, given[0][2:])!r}; also given: "
            f"{extra} (run {given[0]} once per file)"
        )


def _subcommand(words: list[str]) -> list[str]:
    """``pack-lsp check PATH...`` is ``pack-lsp --check PATH...``."""
    if words[:1] == ["check"]:
        return ["--check", *words[1:]]
    return words


def interrupted() -> int:
    """What an interrupt ends with: one line, no traceback, status 130."""
    try:
        sys.stderr.write("pack-lsp: interrupted\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    return INTERRUPTED


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
    words = _subcommand(list(sys.argv[1:] if argv is None else argv))
    try:
        return _main(words, program)
    except KeyboardInterrupt:
        code = interrupted()
        if program:
            # Nothing of the run is worth finishing: a check's worker processes are
            # stopped already (``cli/check.py``), a fix writes whole files only.
            os._exit(code)
        return code


def _main(words: list[str], program: bool) -> int:
    if words[:1] == ["mcp"]:  # `pack-lsp mcp`: the MCP server, its own command
        from pack_lsp.cli.mcpserver import main as serve_mcp

        return serve_mcp(words[1:])
    if words[:1] == ["rule"]:  # `pack-lsp rule CODE`: a rule's documentation
        from pack_lsp.cli.rule import main as explain

        return explain(words[1:])
    if program:
        gc.disable()
    _answer_version(words)
    parser = build_parser()
    args = parser.parse_args(words)
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
