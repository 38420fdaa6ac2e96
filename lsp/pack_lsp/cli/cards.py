"""``pack-lsp --card PATH`` and ``pack-lsp --topology PATH``.

``--card`` prints the A2A Agent Cards a pack's agents would publish, as one JSON
object ``{agent key: card}``; with ``--agent KEY`` only that card, exactly the
document a server would serve at ``/.well-known/agent-card.json``. Notes (the
local default address, card problems) go to standard error so standard output
stays the document.

``--topology`` prints the agent call graph as Mermaid, Graphviz (dot) or JSON; given
a directory, the graph of its agent-extension manifests (``uses_tools`` and
``depends_on`` edges).

Exit status: 0 on success, 1 when a printed card has a problem of error
severity, 2 on a usage, configuration or file problem.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from pack_lsp.core.base import versions
from pack_lsp.core.model.cards.names import A2A_VERSIONS, LOCAL_URL
from pack_lsp.core.model.config import ConfigError, Profile, load_for, split_profile

if TYPE_CHECKING:
    from pack_lsp.core.checks.analysis import Analysis

# The analysis, card and topology modules are imported where they are used: building
# the parser for `--check` must not load them.


def _profile_argument(value: str) -> str:
    """``--profile`` as written, once ``split_profile`` accepts it."""
    try:
        split_profile(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("agent cards and topology")
    group.add_argument(
        "--card",
        metavar="PATH",
        help="print the A2A Agent Cards of the pack's agents as JSON {agent: card}",
    )
    group.add_argument(
        "--agent",
        metavar="KEY",
        help="with --card: print only this agent's card, as a server would publish it; "
        "with --governance: only this agent's governance",
    )
    group.add_argument(
        "--a2a-version",
        choices=A2A_VERSIONS,
        default=None,
        help="A2A version of the cards: with --card the cards printed, with --check the "
        "version the card rules check against (default: the configured one, else 0.3.0)",
    )
    group.add_argument(
        "--profile",
        type=_profile_argument,
        default=None,
        metavar="{spec,promptkit,promptkit@RELEASE}",
        help="checking profile: with --check, spec checks against the PromptPack "
        "specification and its RFCs; promptkit against what the reference runtime "
        f"PromptKit accepts: the schema PromptKit {versions.PROMPTKIT_RELEASES[0]} to "
        f"{versions.PROMPTKIT_DEFAULT} embeds, plus the checks its loader makes beyond "
        "that schema (guardrail parameters, agents, workflow), with the problems it "
        f"refuses as errors; promptkit alone is {versions.PROMPTKIT_DEFAULT}. With "
        "--card/--topology, derive as RFC 0007 says (spec) or as PromptKit does "
        "(promptkit). Default: the configured profile",
    )
    group.add_argument(
        "--topology",
        metavar="PATH",
        help="print the graph of agent-to-agent calls (of a pack, or of the extension "
        "manifests under a directory); --format mermaid (default), dot or json",
    )


def _load(path_text: str) -> tuple[Analysis, str]:
    from pack_lsp.core.base import kinds
    from pack_lsp.core.base.source import decode, read_source
    from pack_lsp.core.checks.analysis import analyze
    from pack_lsp.core.model.recognize import recognize

    path = Path(path_text)
    raw = read_source(path)
    text, pre = decode(raw)
    config = load_for(path)
    found = recognize(str(path), text, config.manifests, explicit=True)
    from pack_lsp.core.checks.arena.workspace import declares_arena

    if path.suffix in (".yaml", ".yml") and declares_arena(path):
        # An arena config: the cards and topology of the pack it compiles to.
        from pack_lsp.core.checks.arena.check import check_project
        from pack_lsp.core.model.arena.project import load_project

        project = load_project(path)
        if project is not None:
            return check_project(project, config).compiled_analysis, str(path)
    if found.kind == kinds.KUBERNETES:
        host = analyze(text, path=path, config=config, kind=found.kind, pre_diagnostics=pre)
        packs = [part for part in host.embedded if part.analysis is not None]
        if packs and packs[0].analysis is not None:
            if len(packs) > 1:
                print(
                    f"pack-lsp: {path} holds {len(packs)} packs; this is the first, the "
                    f"`{packs[0].key}` entry",
                    file=sys.stderr,
                )
            return packs[0].analysis, str(path)
        return host, str(path)
    analysis = analyze(text, path=path, config=config, kind=kinds.PROMPTPACK, pre_diagnostics=pre)
    return analysis, str(path)


def _fail(message: str) -> int:
    print(f"pack-lsp: error: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int | None:
    if args.card is None and args.topology is None:
        for option, value in (("--agent", args.agent), ("--a2a-version", args.a2a_version)):
            if value is not None:
                parser.error(
                    f"{option} is used with --card"
                    + (" or --check" if option == "--a2a-version" else "")
                )
        return None
    if args.topology is not None:
        for option, value in (("--agent", args.agent), ("--a2a-version", args.a2a_version)):
            if value is not None:
                parser.error(f"{option} is used with --card or --check, not --topology")
    if args.topology is not None:
        return _topology(args, parser)
    return _cards(args)


def _analysis(path_text: str) -> tuple[Analysis | None, int]:
    try:
        analysis, _ = _load(path_text)
    except OSError as exc:
        return None, _fail(f"{path_text}: cannot read: {exc.strerror or exc}")
    except ConfigError as exc:
        return None, _fail(str(exc))
    if analysis.pack is None:
        why = "has a YAML syntax error" if analysis.syntax_error else "is not a PromptPack"
        return None, _fail(f"{path_text} {why}; run pack-lsp --check {path_text}")
    return analysis, 0


def _cards(args: argparse.Namespace) -> int:
    from pack_lsp.core.base.diagnostics import Severity
    from pack_lsp.core.checks.registry import rule
    from pack_lsp.core.model.cards.api import cards_for
    from pack_lsp.core.model.cards.problems import validate
    from pack_lsp.core.model.cards.settings import CardsConfigError

    analysis, status = _analysis(args.card)
    if analysis is None:
        return status
    pack = analysis.pack
    assert pack is not None
    if analysis.syntax_error:
        return _fail(f"{args.card} has a YAML syntax error; run pack-lsp --check {args.card}")
    config = analysis.config
    try:
        profile = split_profile(args.profile)[0].value if args.profile else None
        cards = cards_for(pack, config, version=args.a2a_version, profile=profile)
    except CardsConfigError as exc:
        return _fail(str(exc))
    if pack.agents is None:
        print(
            f"pack-lsp: note: {args.card} has no `agents` section, so no Agent Card",
            file=sys.stderr,
        )
    if args.agent is not None:
        card = cards.cards.get(args.agent)
        if card is None:
            known = ", ".join(cards.cards) or "none"
            return _fail(f"{args.agent!r} is not an agent of {args.card} (agents: {known})")
        output: object = card.document
        shown = {args.agent}
    else:
        output = cards.documents()
        shown = set(cards.cards)
    sys.stdout.write(json.dumps(output, indent=2, ensure_ascii=False) + "\n")
    sys.stdout.flush()
    if cards.cards and not cards.settings.configured:
        print(
            f"pack-lsp: note: `url` is the local default {LOCAL_URL} (not configured; set "
            "`url` under [cards] in .pack-lsp.toml or [tool.pack-lsp.cards] in "
            "pyproject.toml); transport and capabilities are defaults too",
            file=sys.stderr,
        )
    if cards.cards:
        print(
            f"pack-lsp: note: A2A {cards.version} cards are discovered at "
            f"<agent address>{cards.discovery_path}",
            file=sys.stderr,
        )
    failed = False
    for problem in validate(cards, pack):
        if problem.agent is not None and problem.agent not in shown:
            continue
        r = analysis.lines.range(problem.span)
        severity = rule(problem.code).severity
        failed = failed or severity == Severity.ERROR
        print(
            f"{args.card}:{r.start.line + 1}:{r.start.character + 1}: {severity.label} "
            f"{problem.code} {problem.message}",
            file=sys.stderr,
        )
    return 1 if failed else 0


def _topology(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from pack_lsp.core.model.cards.topology import FORMATS, build, render
    from pack_lsp.core.model.resolve import ToolSettings

    fmt = args.format or "mermaid"
    if fmt not in FORMATS:
        parser.error(f"--format for --topology must be one of {', '.join(FORMATS)}, not {fmt!r}")
    if Path(args.topology).is_dir():
        return _manifest_topology(args.topology, fmt)
    analysis, status = _analysis(args.topology)
    if analysis is None:
        return status
    assert analysis.pack is not None
    profile = split_profile(args.profile)[0] if args.profile else analysis.config.profile
    settings = ToolSettings(tuple(analysis.config.tool_namespaces), profile)
    topo = build(analysis.pack, include_entry=profile is Profile.SPEC, settings=settings)
    if analysis.pack.agents is None:
        print(f"pack-lsp: note: {args.topology} has no `agents` section", file=sys.stderr)
    sys.stdout.write(render(topo, fmt))
    return 0


def _manifest_topology(directory: str, fmt: str) -> int:
    from pack_lsp.core.model.cards.topology import render
    from pack_lsp.core.model.discover import find_packs
    from pack_lsp.core.model.manifest.files import index_files
    from pack_lsp.core.model.manifest.topology import build_manifest_topology

    """The extension graph of the manifests under ``directory``."""
    root = Path(directory)
    try:
        config = load_for(root / "_")
    except ConfigError as exc:
        return _fail(str(exc))
    found = find_packs(root, config.exclude, config.manifests)
    index = index_files(found, config.manifests)
    if not len(index):
        return _fail(f"{directory} has no agent-extension manifests")
    sys.stdout.write(render(build_manifest_topology(index), fmt))
    return 0
