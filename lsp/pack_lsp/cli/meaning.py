"""``pack-lsp --render PACK --prompt KEY [--var k=v ...]`` and
``pack-lsp --governance PACK [--agent KEY]``.

``--render`` prints a prompt's system template with its fragments expanded and its
variables filled (``--var``, then defaults, then examples), after a header of
comment lines: size in characters, estimated tokens and the estimator, each
fragment's include path, where each value came from, what is left unfilled;
``--format json`` prints the same as one JSON object. ``--target T`` renders as that
deploy target's runtime does: what it leaves as written, what it throws (the status
is then 1). ``--governance`` prints the
governance in force for each agent (the pack's ``metadata.governance`` with the
member's own fields replacing the pack's, RFC 0013) as JSON; with ``--agent`` only
that agent's.

Exit status: 0 on success, 1 when the ``--target`` runtime throws instead of
rendering, 2 on a usage or file problem (an unknown prompt or agent,
a file that is not a pack).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pack_lsp.core.checks.analysis import Analysis


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("what a pack means")
    group.add_argument(
        "--render",
        metavar="PACK",
        help="print the prompt named by --prompt with its fragments expanded and its "
        "variables filled (--var, then defaults, then examples), with its size and an "
        "offline token estimate; --format json for JSON",
    )
    group.add_argument("--prompt", metavar="KEY", help="with --render: the prompt to render")
    group.add_argument(
        "--var",
        metavar="NAME=VALUE",
        action="append",
        default=None,
        help="with --render: a variable's value (repeatable)",
    )
    group.add_argument(
        "--governance",
        metavar="PACK",
        help="print each agent's effective governance (the pack's block with the "
        "member's fields replacing it, RFC 0013) as JSON; --agent KEY for one agent",
    )


def _fail(message: str) -> int:
    print(f"pack-lsp: error: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int | None:
    target = getattr(args, "target", None)
    if args.render is None and args.governance is None:
        for option, value in (("--prompt", args.prompt), ("--var", args.var)):
            if value is not None:
                parser.error(f"{option} is used with --render")
        if target and not args.check:
            parser.error("--target is used with --check or --render")
        return None
    # Two modes together are refused before this (``cli._one_mode``).
    if args.render is not None:
        if args.prompt is None:
            parser.error("--render needs --prompt KEY")
        if args.agent is not None:
            parser.error("--agent is used with --card or --governance, not --render")
        values: dict[str, str] = {}
        for item in args.var or ():
            name, sep, value = item.partition("=")
            if not sep or not name:
                parser.error(f"--var takes NAME=VALUE, not {item!r}")
            values[name] = value
        fmt = args.format or "text"
        if fmt not in ("text", "json"):
            parser.error(f"--format for --render must be text or json, not {fmt!r}")
        if target and len(target) > 1:
            parser.error("--render renders for one --target at a time")
        return _render(args.render, args.prompt, values, fmt, target[0] if target else None)
    for option, value in (("--prompt", args.prompt), ("--var", args.var), ("--target", target)):
        if value is not None:
            parser.error(f"{option} is used with --render")
    return _governance(args.governance, args.agent)


def _analysis(path: str) -> tuple[Analysis | None, int]:
    from pack_lsp.cli.cards import _analysis as load

    return load(path)


def _render(path: str, key: str, values: dict[str, str], fmt: str, target: str | None) -> int:
    from pack_lsp.core.ide.render import RenderError, render

    analysis, status = _analysis(path)
    if analysis is None:
        return status
    if analysis.syntax_error:
        # What is left of a broken file would make a wrong answer ("no such prompt").
        return _fail(f"{path} has a YAML syntax error; run pack-lsp --check {path}")
    try:
        rendered = render(analysis, key, values, target or None)
    except RenderError as exc:
        return _fail(f"{path}: {exc}")
    if fmt == "json":
        sys.stdout.write(json.dumps(rendered.to_json(), indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(rendered.document())
    return 1 if rendered.throws is not None else 0


def _governance(path: str, agent: str | None) -> int:
    from pack_lsp.core.ide.governance import GovernanceError, governance_preview

    analysis, status = _analysis(path)
    if analysis is None:
        return status
    if analysis.syntax_error:
        return _fail(f"{path} has a YAML syntax error; run pack-lsp --check {path}")
    try:
        preview = governance_preview(analysis, agent)
    except GovernanceError as exc:
        return _fail(f"{path}: {exc}")
    if preview["pack"] is None and not any(a["own"] for a in preview["agents"].values()):
        print(f"pack-lsp: note: {path} declares no governance", file=sys.stderr)
    output = preview["agents"][agent] if agent is not None else preview
    sys.stdout.write(json.dumps(output, indent=2, ensure_ascii=False) + "\n")
    return 0
