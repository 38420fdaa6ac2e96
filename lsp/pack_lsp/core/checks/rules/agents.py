"""PP2xx — the `agents` section (RFC 0007) and prompts that call agents.

RFC 0007 validation rules: the entry and every member key name prompts (rules 1
and 2), the entry is a member (rule 3), a prompt's tools naming a prompt that is not
a member is suspicious (rule 4, checked for every prompt), and an agent does not list
itself (rule 5). Members also become A2A Agent Cards, so their modes must be media
types, their tags meaningful and their description present.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from pack_lsp.core.base.diagnostics import Diagnostic, FixKind, Related, Rule, Severity, make
from pack_lsp.core.base.example_pack import pack_example
from pack_lsp.core.base.fixes import AddMember, ReplaceValue, suggest
from pack_lsp.core.base.problemdata import (
    BlankTag,
    DuplicateTag,
    EntryNotMember,
    MissingDescription,
    NotAMember,
    SelfReference,
    UndefinedPrompt,
    UndefinedState,
)
from pack_lsp.core.base.suggest import hint_for
from pack_lsp.core.checks.rules import tools
from pack_lsp.core.model import resolve
from pack_lsp.core.model.context import CheckContext
from pack_lsp.core.model.pack import Located, Member, Pack, Prompt
from pack_lsp.core.model.resolve import Kind
from pack_lsp.core.model.summary import PromptContext

E = Severity.ERROR
W = Severity.WARNING
CATEGORY = "Agents"

UNDEFINED_ENTRY_AGENT = Rule(
    "PP201",
    "undefined-entry-agent",
    E,
    "`agents.entry` does not name a prompt of the pack (RFC 0007 rule 1).",
    pack_example(
        "prompts:\n"
        "  router:\n"
        "    id: router\n"
        "    name: Router\n"
        "    version: 1.0.0\n"
        "    system_template: Help\n"
        "    description: Router agent\n"
        "agents:\n"
        "  entry: routr          # did you mean `router`?\n"
        "  members: {router: {}}\n"
    ),
    "Set `entry` to the key of the prompt that receives incoming requests.",
    CATEGORY,
    fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
    safe_fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
)

ENTRY_NOT_A_MEMBER = Rule(
    "PP202",
    "entry-not-a-member",
    W,
    "`agents.entry` names a prompt that is not listed in `agents.members` (RFC 0007 "
    "rule 3). The reference runtime PromptKit rejects such a pack: an error under the "
    "`promptkit` profile. pack-lsp reads it as PromptKit does in both profiles: only "
    "members are agents, so the entry gets no Agent Card and no other agent can call it.",
    pack_example(
        "prompts:\n"
        "  router:\n"
        "    id: router\n"
        "    name: Router\n"
        "    version: 1.0.0\n"
        "    system_template: Help\n"
        "    description: Router agent\n"
        "    tools: [billing]\n"
        "  billing:\n"
        "    id: billing\n"
        "    name: Billing\n"
        "    version: 1.0.0\n"
        "    system_template: Help\n"
        "    description: Billing agent\n"
        "agents:\n"
        "  entry: router\n"
        "  members:\n"
        "    billing: {}        # router is not a member\n"
    ),
    "Add the entry prompt to `agents.members` (a quick fix does it): `router: {}`.",
    CATEGORY,
    fixes=(FixKind.ADD_MEMBER,),
)

MEMBER_NOT_A_PROMPT = Rule(
    "PP203",
    "member-not-a-prompt",
    E,
    "A key of `agents.members` does not name a prompt of the pack (RFC 0007 rule 2).",
    pack_example(
        "prompts:\n"
        "  router:\n"
        "    id: router\n"
        "    name: Router\n"
        "    version: 1.0.0\n"
        "    system_template: Help\n"
        "    description: Router agent\n"
        "    tools: [billing]\n"
        "  billing_agent:\n"
        "    id: billing_agent\n"
        "    name: Billing_Agent\n"
        "    version: 1.0.0\n"
        "    system_template: Help\n"
        "    description: Billing_Agent agent\n"
        "agents:\n"
        "  entry: router\n"
        "  members:\n"
        "    router: {}\n"
        "    billing: {}   # the prompt is `billing_agent`\n"
    ),
    "Rename the member to the key of an existing prompt, or add the prompt.",
    CATEGORY,
    fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
    safe_fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
)

AGENT_CALLS_ITSELF = Rule(
    "PP204",
    "agent-calls-itself",
    W,
    "A prompt lists its own key (or `a2a__` + its key) in its `tools`: an agent would "
    "call itself (RFC 0007 rule 5).",
    pack_example(
        "prompts:\n"
        "  router:\n"
        "    id: router\n"
        "    name: Router\n"
        "    version: 1.0.0\n"
        "    system_template: Help\n"
        "    description: Router agent\n"
        "    tools: [router]\n"
        "agents:\n"
        "  entry: router\n"
        "  members: {router: {}}\n"
    ),
    "Remove the prompt's own key from its `tools`.",
    CATEGORY,
)

TOOL_NAMES_NON_MEMBER_PROMPT = Rule(
    "PP205",
    "tool-names-non-member-prompt",
    W,
    "A prompt's `tools` names another prompt that is not an agents member, so the "
    "runtime will not call it as an agent (RFC 0007 rule 4; checked for every prompt, "
    "not only the entry).",
    pack_example(
        "prompts:\n"
        "  router:\n"
        "    id: router\n"
        "    name: Router\n"
        "    version: 1.0.0\n"
        "    system_template: Help\n"
        "    description: Router agent\n"
        "    tools: [billing]\n"
        "  billing: {id: billing, name: Billing, version: 1.0.0, system_template: Help}\n"
        "agents:\n"
        "  entry: router\n"
        "  members: {router: {}}   # billing is not a member\n"
    ),
    "Add the prompt to `agents.members` (a quick fix does it), or remove it from `tools`.",
    CATEGORY,
    fixes=(FixKind.ADD_MEMBER,),
)

MODE_NOT_A_MEDIA_TYPE = Rule(
    "PP206",
    "mode-not-a-media-type",
    W,
    "An entry of a member's `input_modes` or `output_modes` is not a media type "
    "`type/subtype` (such as `text/plain` or `image/*`). Strict A2A clients reject a "
    "card with the bare `text`; PromptKit rejects the pack: an error under the "
    "`promptkit` profile.",
    pack_example(
        "prompts:\n"
        "  describer:\n"
        "    id: describer\n"
        "    name: Describer\n"
        "    version: 1.0.0\n"
        "    system_template: Help\n"
        "    description: Describer agent\n"
        "agents:\n"
        "  entry: describer\n"
        "  members:\n"
        "    describer:\n"
        "      input_modes: [text, image]   # media types: text/plain, image/png\n"
    ),
    "Write media types: `[text/plain, image/*]` (a quick fix offers the replacement).",
    CATEGORY,
    fixes=(FixKind.REPLACE_VALUE,),
    safe_fixes=(FixKind.REPLACE_VALUE,),
)

BLANK_TAG = Rule(
    "PP207",
    "blank-tag",
    W,
    "A member's `tags` contains an empty or blank tag, which is useless for "
    "discovery. PromptKit rejects empty tags: an error under the `promptkit` profile.",
    pack_example(
        "prompts:\n"
        "  billing:\n"
        "    id: billing\n"
        "    name: Billing\n"
        "    version: 1.0.0\n"
        "    system_template: Help\n"
        "    description: Billing agent\n"
        "agents:\n"
        "  entry: billing\n"
        "  members:\n"
        "    billing:\n"
        '      tags: [billing, ""]\n'
    ),
    "Remove the blank tag or write a keyword.",
    CATEGORY,
)

DUPLICATE_TAG = Rule(
    "PP208",
    "duplicate-tag",
    W,
    "A member's `tags` lists the same tag twice.",
    pack_example(
        "prompts:\n"
        "  billing:\n"
        "    id: billing\n"
        "    name: Billing\n"
        "    version: 1.0.0\n"
        "    system_template: Help\n"
        "    description: Billing agent\n"
        "agents:\n"
        "  entry: billing\n"
        "  members:\n"
        "    billing:\n"
        "      tags: [billing, refunds, billing]\n"
    ),
    "Remove the repeated tag.",
    CATEGORY,
)

AGENT_WITHOUT_DESCRIPTION = Rule(
    "PP209",
    "agent-without-description",
    W,
    "A member has no `description` and neither has its prompt, so its A2A Agent Card "
    "would have no description, which A2A requires.",
    pack_example(
        "prompts:\n"
        "  billing: {id: billing, name: Billing, version: 1.0.0, system_template: Help}\n"
        "agents:\n"
        "  entry: billing\n"
        "  members:\n"
        "    billing: {}   # neither it nor the prompt has a description\n"
    ),
    "Add a `description` to the prompt or to the member.",
    CATEGORY,
)

UNDEFINED_MEMBER_STATE = Rule(
    "PP210",
    "undefined-member-state",
    E,
    "A member's `state` (RFC 0011) does not name a state of the pack's workflow, or "
    "the pack has no workflow. Calling the agent runs the workflow from that state.",
    pack_example(
        "prompts:\n"
        "  support:\n"
        "    id: support\n"
        "    name: Support\n"
        "    version: 1.0.0\n"
        "    system_template: Help\n"
        "    description: Support agent\n"
        "workflow:\n"
        "  version: 1\n"
        "  entry: intake\n"
        "  states:\n"
        "    intake: {prompt_task: support, terminal: true}\n"
        "agents:\n"
        "  entry: support\n"
        "  members:\n"
        "    support:\n"
        "      state: intak      # did you mean `intake`?\n"
    ),
    "Use the key of a state under `workflow.states`, or add a workflow.",
    CATEGORY,
    fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
    safe_fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
)

RULES = (
    UNDEFINED_ENTRY_AGENT,
    ENTRY_NOT_A_MEMBER,
    MEMBER_NOT_A_PROMPT,
    AGENT_CALLS_ITSELF,
    TOOL_NAMES_NON_MEMBER_PROMPT,
    MODE_NOT_A_MEDIA_TYPE,
    BLANK_TAG,
    DUPLICATE_TAG,
    AGENT_WITHOUT_DESCRIPTION,
    UNDEFINED_MEMBER_STATE,
)

# type/subtype (RFC 6838 names, `*` wildcards) with optional `; key=value` parameters.
_TOKEN = r"[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*"
MEDIA_TYPE = re.compile(
    rf"^(?:\*/\*|{_TOKEN}/(?:\*|{_TOKEN}))"
    rf"(?:\s*;\s*[A-Za-z0-9!#$&^_.+-]+=(?:[A-Za-z0-9!#$&^_.+-]+|\"[^\"]*\"))*$"
)

# Common shorthands and the media type they stand for.
_SHORTHANDS = {
    "text": "text/plain",
    "plain": "text/plain",
    "txt": "text/plain",
    "markdown": "text/markdown",
    "md": "text/markdown",
    "html": "text/html",
    "csv": "text/csv",
    "json": "application/json",
    "pdf": "application/pdf",
    "image": "image/*",
    "png": "image/png",
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "webp": "image/webp",
    "gif": "image/gif",
    "audio": "audio/*",
    "video": "video/*",
    "file": "application/octet-stream",
}


def media_type_replacement(mode: str) -> str | None:
    """The media type a malformed mode most likely means, if any."""
    stripped = mode.strip()
    if stripped != mode and MEDIA_TYPE.match(stripped):
        return stripped
    lowered = stripped.lower()
    if lowered in _SHORTHANDS:
        return _SHORTHANDS[lowered]
    if MEDIA_TYPE.match(lowered):
        return lowered
    return None


def _check_entry(pack: Pack) -> Iterator[Diagnostic]:
    agents = pack.agents
    if agents is None or agents.entry is None:
        return
    entry = agents.entry
    name = entry.value
    resolved = resolve.resolve_name(Kind.PROMPT, name, pack.prompts)
    if isinstance(resolved, resolve.Missing):
        found = list(resolved.suggestions)
        yield make(
            UNDEFINED_ENTRY_AGENT,
            f"Entry agent `{name}` is not a prompt of the pack{hint_for(found)}",
            entry.span,
            data=UndefinedPrompt(name=name, suggestions=found),
            fixes=suggest(entry.span, found),
        )
    elif agents.members and isinstance(
        resolve.resolve_name(Kind.MEMBER, name, agents.members), resolve.Missing
    ):
        yield make(
            ENTRY_NOT_A_MEMBER,
            f"Entry agent `{name}` is not listed in `agents.members`, so it gets no Agent "
            "Card and no other agent can call it",
            entry.span,
            data=EntryNotMember(name=name),
            fixes=(AddMember(name),),
        )


def _check_modes(key: str, field: str, modes: list[Located]) -> Iterator[Diagnostic]:
    for item in modes:
        mode = item.value
        if MEDIA_TYPE.match(mode):
            continue
        replacement = media_type_replacement(mode)
        if not mode.strip():
            message = (
                f"`{field}` of agent `{key}` contains an empty mode; modes are "
                f"media types such as `text/plain`"
            )
        else:
            hint = f"; did you mean `{replacement}`?" if replacement else " such as `text/plain`"
            message = (
                f"`{mode}` in `{field}` of agent `{key}` is not a media type `type/subtype`{hint}"
            )
        data: dict[str, object] = {"kind": "media-type", "value": mode}
        if replacement is not None:
            data["replacement"] = replacement
        fixes = (ReplaceValue(item.span, replacement),) if replacement is not None else ()
        yield make(MODE_NOT_A_MEDIA_TYPE, message, item.span, data=data, fixes=fixes)


def _check_tags(key: str, member: Member) -> Iterator[Diagnostic]:
    seen: dict[str, Located] = {}
    for item in member.tags:
        tag = item.value
        if not tag.strip():
            yield make(
                BLANK_TAG,
                f"Agent `{key}` has a blank tag",
                item.span,
                data=BlankTag(),
            )
            continue
        first = seen.get(tag)
        if first is not None:
            yield make(
                DUPLICATE_TAG,
                f"Tag `{tag}` of agent `{key}` is listed twice",
                item.span,
                related=[Related(first.span, f"`{tag}` is first listed here")],
                data=DuplicateTag(tag=tag),
            )
        else:
            seen[tag] = item


def _blank(value: Located | None) -> bool:
    return value is None or not isinstance(value.value, str) or not value.value.strip()


def _check_members(ctx: CheckContext) -> Iterator[Diagnostic]:
    pack = ctx.pack
    agents = pack.agents
    if agents is None:
        return
    for key, member in agents.members.items():
        # A member is the prompt of its key: resolved among the prompts.
        resolved = resolve.resolve_name(Kind.PROMPT, key, pack.prompts)
        prompt = pack.prompts[key] if isinstance(resolved, resolve.Defined) else None
        if isinstance(resolved, resolve.Missing):
            found = list(resolved.suggestions)
            yield make(
                MEMBER_NOT_A_PROMPT,
                f"Agent `{key}` is not a prompt of the pack{hint_for(found)}",
                member.key_span,
                data=UndefinedPrompt(name=key, suggestions=found),
                fixes=suggest(member.key_span, found),
            )
        elif prompt is not None and _blank(member.description) and _blank(prompt.description):
            yield make(
                AGENT_WITHOUT_DESCRIPTION,
                f"Agent `{key}` has no description: add one to the member or to prompt "
                f"`{key}` (its A2A Agent Card needs one)",
                member.key_span,
                data=MissingDescription(member=key),
            )
        yield from _check_modes(key, "input_modes", member.input_modes)
        yield from _check_modes(key, "output_modes", member.output_modes)
        yield from _check_tags(key, member)
        if member.state is not None:
            yield from _check_state(pack, key, member.state)


def _check_state(pack: Pack, key: str, state: Located) -> Iterator[Diagnostic]:
    name = state.value
    workflow = pack.workflow
    if workflow is None:
        yield make(
            UNDEFINED_MEMBER_STATE,
            f"Agent `{key}` starts in workflow state `{name}`, but the pack has no workflow",
            state.span,
            data=UndefinedState(name=name, suggestions=[]),
        )
        return
    resolved = resolve.resolve_name(Kind.STATE, name, workflow.states)
    if isinstance(resolved, resolve.Defined):
        return
    found = list(resolved.suggestions)
    yield make(
        UNDEFINED_MEMBER_STATE,
        f"Agent `{key}` starts in workflow state `{name}`, which is not a state of the "
        f"workflow{hint_for(found)}",
        state.span,
        data=UndefinedState(name=name, suggestions=found),
        fixes=suggest(state.span, found),
    )


def _check_tool_references(ctx: PromptContext, prompt: Prompt) -> Iterator[Diagnostic]:
    summary = ctx.summary
    names = summary.names
    settings = resolve.ToolSettings.of(summary.config)
    for item in prompt.tools:
        ref = resolve.resolve_tool(item.value, prompt.key, names, settings)
        if isinstance(ref, resolve.SelfCall):
            shared = tools.through_alias(item, prompt)
            yield make(
                AGENT_CALLS_ITSELF,
                f"Prompt `{prompt.key}` lists itself as a tool (`{item.value}`)"
                + (" through a list it shares by a YAML alias" if shared else "")
                + "; an agent must not call itself",
                item.span,
                related=[
                    Related(
                        prompt.key_span,
                        f"prompt `{prompt.key}` takes its `tools` from the anchored list",
                    )
                ]
                if shared
                else [],
                data=SelfReference(name=item.value),
            )
        elif isinstance(ref, resolve.NonMemberPrompt):
            why = (
                "the pack has no `agents` section"
                if not names.has_agents
                else "it is not listed in `agents.members`"
            )
            yield make(
                TOOL_NAMES_NON_MEMBER_PROMPT,
                f"Tool `{item.value}` of prompt `{prompt.key}` names prompt "
                f"`{item.value}`, which is not an agent ({why}); the runtime will not "
                f"call it",
                item.span,
                related=[Related(summary.prompt_key_span(item.value), f"prompt `{item.value}`")],
                data=NotAMember(prompt=item.value),
                # Without an `agents` section there is no list to add it to.
                fixes=(AddMember(item.value),) if names.has_agents else (),
            )


def check_prompt(ctx: PromptContext, prompt: Prompt) -> Iterable[Diagnostic]:
    yield from _check_tool_references(ctx, prompt)


def check(ctx: CheckContext) -> Iterable[Diagnostic]:
    yield from _check_entry(ctx.pack)
    yield from _check_members(ctx)
