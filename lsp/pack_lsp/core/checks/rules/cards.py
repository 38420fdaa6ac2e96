"""PP7xx — A2A Agent Cards derived from the pack, and the agent call topology.

The cards are derived and validated by :mod:`pack_lsp.core.model.cards` for the A2A
version and profile in the configuration. Faults the agents rules already report
(PP204, PP206, PP209) are not repeated. Problems that come from the ``cards``
configuration are reported on the pack's ``agents`` key, or on a member's key
when they concern that agent's card only.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from pack_lsp.core.base.diagnostics import Diagnostic, FixKind, Related, Rule, Severity, make
from pack_lsp.core.base.example_pack import pack_example
from pack_lsp.core.base.fixes import FixData, RenameConfigKey
from pack_lsp.core.base.problemdata import AgentCycle, CardsConfig, UnreachableAgent
from pack_lsp.core.base.source import read_text
from pack_lsp.core.model.config import Profile
from pack_lsp.core.model.context import CheckContext

E = Severity.ERROR
W = Severity.WARNING
I = Severity.INFORMATION  # noqa: E741
CATEGORY = "Agent Cards and topology"


def _researcher_pack(member: str = "{tags: [research]}") -> str:
    """The pack most examples here are written on: one agent, `researcher`, the entry,
    whose member entry is ``member``."""
    return pack_example(
        "prompts:\n"
        "  researcher:\n"
        "    id: researcher\n"
        "    name: Researcher\n"
        "    version: 1.0.0\n"
        "    system_template: Help\n"
        "    description: Finds sources\n"
        "agents:\n"
        "  entry: researcher\n"
        "  members:\n"
        f"    researcher: {member}\n"
    )


_CONFIG = '[tool.pack-lsp.cards]\nurl = "https://agents.example.com/{agent}"\n'

INVALID_CARDS_CONFIGURATION = Rule(
    "PP701",
    "invalid-cards-configuration",
    E,
    "The `cards` configuration (`[tool.pack-lsp.cards]` or the `packLsp.cards` setting) "
    "cannot be used, so no Agent Card can be derived. Reported on the `agents` key.",
    _researcher_pack(),
    "Fix the key named in the message: here the only placeholders are `{agent}` and `{pack}`.",
    CATEGORY,
    example_config=('[cards]\nurl = "https://agents.example.com/{name}"   # {agent} or {pack}\n'),
)

CARD_SKILL_WITHOUT_TAGS = Rule(
    "PP702",
    "card-skill-without-tags",
    W,
    "With A2A 1.0 cards, an agent's skill must have at least one tag, and the member "
    "declares none.",
    _researcher_pack("{}   # no tags"),
    "Add `tags: [...]` to the member (they become the skill's tags).",
    CATEGORY,
    example_config=('[cards]\na2a-version = "1.0"\nurl = "https://agents.example.com/{agent}"\n'),
)

UNKNOWN_SECURITY_SCHEME = Rule(
    "PP703",
    "unknown-security-scheme",
    E,
    "A security requirement in the `cards` configuration names a scheme that "
    "`security-schemes` does not define. Reported on the `agents` key.",
    _researcher_pack(),
    "Define the scheme under `[tool.pack-lsp.cards.security-schemes.<name>]` or fix the name.",
    CATEGORY,
    # No quick fix: the fault is in the configuration file, not in the pack
    # this diagnostic is anchored on.
    example_config=(
        "[cards]\n"
        'url = "https://agents.example.com/{agent}"\n'
        'security = [{ oauth = ["read"] }]   # no scheme `oauth`\n'
    ),
)

INVALID_EXTENSION_PARAMS = Rule(
    "PP704",
    "invalid-extension-params",
    E,
    "A protoLabs card extension (blast-v1, hitl-mode-v1, effect-domain-v1) has params "
    "that protoLabs' hub, Workstacean, does not accept — it skips such a skill's "
    "declaration without a message: a radius other than self/project/repo/fleet/public, "
    "a mode other than autonomous/notification/veto/gated/compound, a non-numeric "
    "`vetoTtlMs`, a `reviewer` other than `operator`, an effect without domain or path, "
    "a non-numeric delta or a confidence outside 0–1.",
    _researcher_pack(),
    "Use a value the extension defines.",
    CATEGORY,
    example_config=(
        "[[cards.agents.researcher.extensions]]\n"
        'uri = "https://proto-labs.ai/a2a/ext/blast-v1"\n'
        'params = { skills = { researcher = { radius = "world" } } }\n'
    ),
)

EXTENSION_NAMES_UNKNOWN_SKILL = Rule(
    "PP705",
    "extension-names-unknown-skill",
    W,
    "A card extension declares settings for a skill id that is not a skill of the card "
    "it is on — typically after a prompt key was renamed, since the key is the skill "
    "id.",
    _researcher_pack(),
    "Rename the skill in the configuration to the member key.",
    CATEGORY,
    # No quick fix: the fault is in the configuration file, not in the pack
    # this diagnostic is anchored on.
    example_config=(
        "[[cards.agents.researcher.extensions]]\n"
        'uri = "https://proto-labs.ai/a2a/ext/hitl-mode-v1"\n'
        'params = { skills = { research = { mode = "autonomous" } } }\n'
    ),
)

CARD_CONFIGURATION_FOR_UNKNOWN_AGENT = Rule(
    "PP706",
    "card-configuration-for-unknown-agent",
    W,
    "The `cards` configuration has an `agents.<key>` table for a key that is not an "
    "agent of this pack, so it is not applied.",
    _researcher_pack(),
    "Use the member key (after a rename, update the configuration too; a quick fix "
    "renames the table in `.pack-lsp.toml`).",
    CATEGORY,
    fixes=(FixKind.RENAME_CONFIG_KEY,),
    example_config=(
        '[cards.agents.reseacher]   # the member is `researcher`\nurl = "https://r.example.com"\n'
    ),
)

INVALID_AGENT_CARD = Rule(
    "PP707",
    "invalid-agent-card",
    E,
    "A derived Agent Card is not valid A2A for the selected version, for a reason no "
    "more specific rule covers — typically a configured value the protocol does not "
    "accept, such as an empty `url` under A2A 1.0. Reported on the `agents` key.",
    _researcher_pack(),
    "Fix the configuration value or pack field named in the message.",
    CATEGORY,
    example_config=('[cards]\na2a-version = "1.0"\nurl = ""\n'),
)

UNREACHABLE_AGENT = Rule(
    "PP710",
    "unreachable-agent",
    I,
    "No chain of calls from the entry agent reaches this member: no agent reachable "
    "from the entry lists it (by key or as `a2a__<key>`) in its `tools`, and no "
    "workflow state that such an agent leads to (from its `state`, RFC 0011, or from "
    "the states that run its prompt) runs it. "
    "External clients may still call it directly through its card.",
    pack_example(
        "prompts:\n"
        "  researcher:\n"
        "    id: researcher\n"
        "    name: Researcher\n"
        "    version: 1.0.0\n"
        "    system_template: Help\n"
        "    description: Finds sources\n"
        "  writer:\n"
        "    id: writer\n"
        "    name: Writer\n"
        "    version: 1.0.0\n"
        "    system_template: Help\n"
        "    description: Finds sources\n"
        "agents:\n"
        "  entry: researcher\n"
        "  members:\n"
        "    researcher: {}\n"
        "    writer: {}   # no agent lists it in its tools\n"
    ),
    "List the member in the `tools` of an agent that should delegate to it, or remove "
    "it from `members` if it is not meant to be an agent.",
    CATEGORY,
)

AGENT_CALL_CYCLE = Rule(
    "PP711",
    "agent-call-cycle",
    W,
    "Agents call each other in a cycle, which can recurse without end at run time. "
    "Each elementary cycle is reported on the call that closes it; a group of agents "
    "with very many cycles is reported once, with the number found.",
    pack_example(
        "prompts:\n"
        "  researcher:\n"
        "    id: researcher\n"
        "    name: Researcher\n"
        "    version: 1.0.0\n"
        "    system_template: Help\n"
        "    description: Finds sources\n"
        "    tools: [writer]\n"
        "  writer:\n"
        "    id: writer\n"
        "    name: Writer\n"
        "    version: 1.0.0\n"
        "    system_template: Help\n"
        "    description: Finds sources\n"
        "    tools: [researcher]\n"
        "agents:\n"
        "  entry: researcher\n"
        "  members: {researcher: {}, writer: {}}\n"
    ),
    "Break the cycle: let one agent return its result instead of calling back.",
    CATEGORY,
)

RULES = (
    INVALID_CARDS_CONFIGURATION,
    CARD_SKILL_WITHOUT_TAGS,
    UNKNOWN_SECURITY_SCHEME,
    INVALID_EXTENSION_PARAMS,
    EXTENSION_NAMES_UNKNOWN_SKILL,
    CARD_CONFIGURATION_FOR_UNKNOWN_AGENT,
    INVALID_AGENT_CARD,
    UNREACHABLE_AGENT,
    AGENT_CALL_CYCLE,
)

_CARD_RULES = {r.code: r for r in RULES}
"""Card problems carry a code (``cards.problems`` sits below the rules); these are theirs."""


def check(ctx: CheckContext) -> Iterable[Diagnostic]:
    pack = ctx.pack
    if pack.agents is None:
        return
    # Imported here: a pack without agents needs neither the card modules nor the
    # validators they build.
    from pack_lsp.core.model.cards.api import cards_for
    from pack_lsp.core.model.cards.problems import REPORTED_BY_AGENTS_RULES, validate
    from pack_lsp.core.model.cards.settings import CardsConfigError

    try:
        cards = cards_for(pack, ctx.config)
    except CardsConfigError as exc:
        yield make(
            INVALID_CARDS_CONFIGURATION,
            str(exc),
            pack.agents.key_span,
            data=CardsConfig(),
        )
        return
    for problem in validate(cards, pack):
        if problem.code in REPORTED_BY_AGENTS_RULES:
            continue
        yield make(
            _CARD_RULES[problem.code],
            problem.message,
            problem.span,
            related=problem.related,
            data=problem.data,
            fixes=_config_key_fixes(ctx, problem.data)
            if problem.code == CARD_CONFIGURATION_FOR_UNKNOWN_AGENT.code
            else (),
        )
    yield from _topology(ctx, include_entry=ctx.config.profile is Profile.SPEC)


def _config_key_fixes(ctx: CheckContext, data: Mapping[str, Any] | None) -> tuple[FixData, ...]:
    """Rename the `[cards.agents.<key>]` table of the configuration file to the member
    the key probably means: an edit of that file (the pack is not at fault).

    None when the configuration did not come from a file whose text says where the
    key is written (settings from the editor, a key inside an inline table).
    """
    from pack_lsp.core.base.tomlkeys import rename_key

    source = ctx.config.source
    if data is None:
        return ()
    key = data.get("name")
    found = [s for s in data.get("suggestions", ()) if isinstance(s, str)]
    if not source or not isinstance(key, str) or not found:
        return ()
    try:
        text = read_text(source)
    except OSError:
        return ()
    prefix = ("tool", "pack-lsp") if Path(source).name == "pyproject.toml" else ()
    path = (*prefix, "cards", "agents", key)
    usable = [(s, rename_key(text, path, s)) for s in found]
    targets = next((t for _, t in usable if t), ())
    if not targets:
        return ()
    return (
        RenameConfigKey(
            source,
            targets,
            tuple(text[t.start : t.end] for t in targets),
            tuple(s for s, t in usable if t == targets),
        ),
    )


def _intended_targets(ctx: CheckContext, reachable: set[str]) -> set[str]:
    """Members that an unresolved tool name of a reachable agent probably means.

    `research` in the coordinator's tools is reported (PP301) with the suggestion
    `researcher`; saying that `researcher` is unreachable too would repeat the same
    fault, so such members are not reported as unreachable.
    """
    from pack_lsp.core.base.suggest import suggestions
    from pack_lsp.core.model import resolve

    # One pack object for every lookup: ``resolve_tool`` builds the names it resolves
    # against once per pack object (``ctx.pack`` may be a new recording view each time).
    pack = ctx.pack
    members = list(pack.agents.members) if pack.agents is not None else []
    settings = resolve.ToolSettings.of(ctx.config)
    meant: set[str] = set()
    for key in reachable:
        prompt = pack.prompts.get(key)
        if prompt is None:
            continue
        for item in prompt.tools:
            name = str(item.value)
            ref = resolve.resolve_tool(name, key, pack, settings)
            if isinstance(ref, resolve.Undefined | resolve.NonMemberPrompt):
                meant.update(suggestions(name, members))
            elif isinstance(ref, resolve.UndefinedAgent):
                meant.update(suggestions(ref.agent, members))
    return meant


def _topology(ctx: CheckContext, include_entry: bool) -> Iterator[Diagnostic]:
    from pack_lsp.core.model.cards.topology import build
    from pack_lsp.core.model.resolve import ToolSettings

    topo = build(ctx.pack, include_entry=include_entry, settings=ToolSettings.of(ctx.config))
    meant = _intended_targets(ctx, topo.reachable())
    for node in topo.unreachable():
        if node.key in meant:
            continue
        callers = topo.callers(node.key)
        if callers:
            named = ", ".join(f"`{c}`" for c in callers)
            why = (
                f"only {named} (not reachable either) {'lists' if len(callers) == 1 else 'list'} it"
            )
        else:
            why = "no agent lists it in its `tools`"
        yield make(
            UNREACHABLE_AGENT,
            f"Agent `{node.key}` is not reachable from the entry agent `{topo.entry}`: {why}",
            node.span,
            data=UnreachableAgent(member=node.key, callers=callers),
        )
    for group in topo.cycle_groups():
        if group.complete:
            for cycle in group.cycles:
                closing = cycle[-1]
                chain = " → ".join([e.source for e in cycle] + [cycle[0].source])
                yield make(
                    AGENT_CALL_CYCLE,
                    f"Agents call each other in a cycle: {chain}",
                    closing.span,
                    related=[
                        Related(e.span, f"`{e.source}` calls `{e.target}` here") for e in cycle[:-1]
                    ],
                    data=AgentCycle(agents=[e.source for e in cycle]),
                )
            continue
        first = group.cycles[0]
        names = ", ".join(f"`{a}`" for a in group.agents)
        chain = " → ".join([e.source for e in first] + [first[0].source])
        yield make(
            AGENT_CALL_CYCLE,
            f"Agents call each other in at least {group.count} cycles among {names} "
            f"(for example {chain})",
            first[-1].span,
            related=[Related(e.span, f"`{e.source}` calls `{e.target}` here") for e in first[:-1]],
            data=AgentCycle(agents=list(group.agents), cycles=group.count),
        )
