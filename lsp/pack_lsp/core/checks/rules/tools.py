"""PP3xx — tool references: prompts' `tools`, tool policies and the pack's `tools` map.

What a name in a prompt's ``tools`` list refers to is decided by
``core/model/resolve.py`` (pack tool, agents member, ``a2a__<member>``, a namespace the
runtime provides, a ``*`` wildcard, ...); these checks report what it could not
resolve, and a name that is both a pack tool and an agents member.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import Any

from pack_lsp.core.base.diagnostics import Diagnostic, FixKind, Related, Rule, Severity, Tag, make
from pack_lsp.core.base.example_pack import pack_example
from pack_lsp.core.base.fixes import CreateTool, FixData, ReplaceValue, suggest
from pack_lsp.core.base.problemdata import (
    EmptyToolPattern,
    IncompleteToolName,
    ListedAndBlocklisted,
    ToolChoice,
    ToolIsMember,
    ToolName,
    UndefinedTool,
    UnknownBlocklistedTool,
    UnusedTool,
)
from pack_lsp.core.base.suggest import hint_for, suggestions
from pack_lsp.core.model import resolve
from pack_lsp.core.model.config import A2A_PREFIX
from pack_lsp.core.model.context import CheckContext
from pack_lsp.core.model.pack import Located, Prompt
from pack_lsp.core.model.resolve import ToolSettings
from pack_lsp.core.model.summary import PromptContext, ToolNames

CATEGORY = "Tools"
TOOL_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*$")

UNDEFINED_TOOL = Rule(
    "PP301",
    "undefined-tool",
    Severity.ERROR,
    "A name in a prompt's `tools` list is not a key of the pack's `tools` map, not an "
    "agents member and not in a namespace the runtime resolves itself "
    "(`mcp__<server>__<tool>`, `workflow__`, `memory__`, `skill__`, `image__`, "
    "`video__`; see `tool_namespaces`), or is a bare namespace prefix such as `mcp__`, "
    "or is a pattern ending in `*` that nothing can match (no pack tool has its prefix "
    "and it lies in no runtime namespace). "
    "A name that is the `name` of a pack tool with a different key is reported too: "
    "prompts list tools by key.",
    pack_example(
        "prompts:\n"
        "  support:\n"
        "    id: support\n"
        "    name: Support\n"
        "    version: 1.0.0\n"
        "    system_template: Help\n"
        "    tools: [lookup_order]     # no such tool, and no such agent\n"
    ),
    "Correct the name (a quick fix offers the suggestions), or declare the tool under "
    "the pack's `tools`.",
    CATEGORY,
    fixes=(
        FixKind.CREATE_TOOL,
        FixKind.REPLACE_WITH_SUGGESTION,
    ),
    safe_fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
)

UNDEFINED_A2A_AGENT = Rule(
    "PP302",
    "undefined-a2a-agent",
    Severity.ERROR,
    "An `a2a__<member>` tool names an agent that is not a key of `agents.members`, or "
    "no agent at all (a bare `a2a__`).",
    pack_example(
        "prompts:\n"
        "  router:\n"
        "    id: router\n"
        "    name: Router\n"
        "    version: 1.0.0\n"
        "    system_template: Help\n"
        "    description: Router agent\n"
        "    tools: [a2a__biling]\n"
        "  billing:\n"
        "    id: billing\n"
        "    name: Billing\n"
        "    version: 1.0.0\n"
        "    system_template: Help\n"
        "    description: Billing agent\n"
        "agents:\n"
        "  entry: router\n"
        "  members: {router: {}, billing: {}}\n"
    ),
    "Use the key of an agents member after `a2a__`, or add the agent to `agents.members`.",
    CATEGORY,
    fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
    safe_fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
)

TOOL_NAME_DIFFERS_FROM_KEY = Rule(
    "PP303",
    "tool-name-differs-from-key",
    Severity.WARNING,
    "A pack tool's `name` is not its key. Prompts list tools by key while the model "
    "calls them by `name`, so the two should be the same.",
    pack_example(
        "prompts:\n"
        "  support:\n"
        "    id: support\n"
        "    name: Support\n"
        "    version: 1.0.0\n"
        "    system_template: Help\n"
        "    tools: [web_search]\n"
        "tools:\n"
        "  web_search:\n"
        "    name: search           # the key is `web_search`\n"
        "    description: Search the web\n"
    ),
    "Make `name` equal to the key (a quick fix does it), or rename the key and the "
    "prompts that list it.",
    CATEGORY,
    fixes=(FixKind.REPLACE_VALUE,),
)

UNKNOWN_BLOCKLISTED_TOOL = Rule(
    "PP304",
    "unknown-blocklisted-tool",
    Severity.WARNING,
    "`tool_policy.blocklist` names a tool that does not exist, so it blocks nothing.",
    pack_example(
        "prompts:\n"
        "  support:\n"
        "    id: support\n"
        "    name: Support\n"
        "    version: 1.0.0\n"
        "    system_template: Help\n"
        "    tools: [delete_account]\n"
        "    tool_policy:\n"
        "      blocklist: [delete_acount]   # did you mean `delete_account`?\n"
        "tools:\n"
        "  delete_account: {name: delete_account, description: Close an account}\n"
    ),
    "Correct the name or remove it from the blocklist.",
    CATEGORY,
    fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
    safe_fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
)

TOOL_LISTED_AND_BLOCKLISTED = Rule(
    "PP305",
    "tool-listed-and-blocklisted",
    Severity.INFORMATION,
    "A tool is both in the prompt's `tools` and in its `tool_policy.blocklist`; the "
    "blocklist wins, so the prompt cannot call it.",
    pack_example(
        "prompts:\n"
        "  support:\n"
        "    id: support\n"
        "    name: Support\n"
        "    version: 1.0.0\n"
        "    system_template: Help\n"
        "    tools: [refund]\n"
        "    tool_policy:\n"
        "      blocklist: [refund]\n"
        "tools:\n"
        "  refund: {name: refund, description: Refund an order}\n"
    ),
    "Remove the tool from one of the two lists.",
    CATEGORY,
)

REQUIRED_TOOL_CHOICE_WITHOUT_TOOLS = Rule(
    "PP306",
    "required-tool-choice-without-tools",
    Severity.WARNING,
    "`tool_policy.tool_choice` is `required` but the prompt has no tool it may call "
    "(its `tools` list is missing or empty, or every tool is blocklisted).",
    pack_example(
        "prompts:\n"
        "  support:\n"
        "    id: support\n"
        "    name: Support\n"
        "    version: 1.0.0\n"
        "    system_template: Help\n"
        "    tool_policy:\n"
        "      tool_choice: required   # but the prompt has no tools\n"
    ),
    "List the tools the prompt must use, or set `tool_choice` to `auto`.",
    CATEGORY,
    fixes=(FixKind.REPLACE_VALUE,),
)

UNUSED_TOOL = Rule(
    "PP307",
    "unused-tool",
    Severity.HINT,
    "A pack tool that no prompt lists (by key or through a `*` pattern), nor any "
    "composition step. Reported on its key "
    "and shown faded.",
    pack_example(
        "prompts:\n"
        "  support: {id: support, name: Support, version: 1.0.0, system_template: Help}\n"
        "tools:\n"
        "  legacy_lookup: {name: legacy_lookup, description: Old API}   # no prompt l"
        "ists it\n"
    ),
    "Add the tool to the `tools` of the prompts that should call it, or delete it.",
    CATEGORY,
)

TOOL_AND_MEMBER = Rule(
    "PP308",
    "tool-and-member",
    Severity.WARNING,
    "A name in a prompt's `tools` is both a key of the pack's `tools` and an agents "
    "member. The agent is called either way: RFC 0007 routes a member key over A2A, "
    "and PromptKit offers the member as the tool `a2a__<key>`. Whether the pack tool "
    "is called too depends on the runtime: under the `promptkit` profile it stays "
    "callable under the bare name, under the `spec` profile it is not called.",
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
        "tools:\n"
        "  billing: {name: billing, description: Charge a card}   # and a member\n"
        "agents:\n"
        "  entry: router\n"
        "  members: {router: {}, billing: {}}\n"
    ),
    "Rename the pack tool (or the agent) so that each name means one thing; to call "
    "the agent, `a2a__<key>` says so explicitly.",
    CATEGORY,
)

RULES = (
    UNDEFINED_TOOL,
    UNDEFINED_A2A_AGENT,
    TOOL_NAME_DIFFERS_FROM_KEY,
    UNKNOWN_BLOCKLISTED_TOOL,
    TOOL_LISTED_AND_BLOCKLISTED,
    REQUIRED_TOOL_CHOICE_WITHOUT_TOOLS,
    UNUSED_TOOL,
    TOOL_AND_MEMBER,
)


def _undefined_tool(item: Located, prompt: Prompt, ref: resolve.Undefined) -> Diagnostic:
    name = item.value
    if ref.by_name:
        hint = (
            f"; `{name}` is the `name` of the pack tool `{ref.by_name[0]}`, and prompts "
            f"list tools by key"
        )
    else:
        hint = hint_for(list(ref.suggestions))
    # A name that is a valid tool key can be defined; a suggestion may replace any.
    fixes: tuple[FixData, ...] = (CreateTool(name),) if TOOL_NAME.match(name) else ()
    fixes += suggest(item.span, ref.suggestions)
    return make(
        UNDEFINED_TOOL,
        f"Tool `{name}` of prompt `{prompt.key}` is not defined in the pack's `tools` "
        f"and is not an agents member{hint}",
        item.span,
        data=UndefinedTool(name=name, suggestions=list(ref.suggestions)),
        fixes=fixes,
    )


def _tool_and_member(item: Located, prompt: Prompt, ref: resolve.ToolAndMember) -> Diagnostic:
    key = ref.key
    if ref.tool_kept:
        outcome = (
            f"PromptKit offers both: the pack tool as `{key}` and agent `{key}` as "
            f"`{A2A_PREFIX}{key}`"
        )
    else:
        outcome = (
            f"the runtime calls agent `{key}` over A2A (RFC 0007), and the pack tool "
            f"`{key}` is not called"
        )
    return make(
        TOOL_AND_MEMBER,
        f"Tool `{key}` of prompt `{prompt.key}` is both a pack tool and an agents member: "
        f"{outcome}",
        item.span,
        data=ToolIsMember(name=key, tool_kept=ref.tool_kept),
    )


def through_alias(item: Located, prompt: Prompt) -> bool:
    """Whether a tools item of ``prompt`` is written outside the prompt: reached
    through a YAML alias (``tools: *shared``) of a list anchored elsewhere."""
    return not (prompt.key_span.start <= item.span.start < prompt.span.end)


def _check_prompt_tools(ctx: PromptContext, prompt: Prompt) -> Iterator[Diagnostic]:
    names = ctx.summary.names
    settings = ToolSettings.of(ctx.summary.config)
    for item in prompt.tools:
        # A list shared through an alias is reported once, where it is written: by the
        # prompt that holds it, or by the pack-wide part (``_check_shared_tools``).
        if not through_alias(item, prompt):
            yield from _tool_problems(names, settings, item, prompt)


def _check_shared_tools(ctx: CheckContext) -> Iterator[Diagnostic]:
    """Tools items reached through an alias of a list anchored outside every prompt
    (a top-level `x-tools: &shared [...]`): each reported once, for the first prompt
    that uses it, naming the others."""
    prompts = list(ctx.pack.prompts.values())
    users: dict[tuple[int, int], list[tuple[Prompt, Located]]] = {}
    for prompt in prompts:
        for item in prompt.tools:
            if through_alias(item, prompt) and not any(
                not through_alias(item, other) for other in prompts
            ):
                users.setdefault((item.span.start, item.span.end), []).append((prompt, item))
    names = ToolNames.of(ctx.pack, ctx.config.tool_namespaces)
    settings = ToolSettings.of(ctx.config)
    for found in users.values():
        first, item = found[0]
        others = [p.key for p, _ in found[1:]]
        for diag in _tool_problems(names, settings, item, first):
            if others:
                also = ", ".join(f"`{k}`" for k in others)
                diag = replace(diag, message=f"{diag.message} (the list is shared with {also})")
            yield diag


def _tool_problems(
    names: ToolNames, settings: ToolSettings, item: Located, prompt: Prompt
) -> Iterator[Diagnostic]:
    ref = resolve.resolve_tool(item.value, prompt.key, names, settings)
    if isinstance(ref, resolve.Undefined):
        yield _undefined_tool(item, prompt, ref)
    elif isinstance(ref, resolve.ToolAndMember):
        yield _tool_and_member(item, prompt, ref)
    elif isinstance(ref, resolve.Wildcard) and ref.empty:
        yield make(
            UNDEFINED_TOOL,
            f"Tool pattern `{item.value}` of prompt `{prompt.key}` matches no tool: no "
            f"pack tool starts with `{ref.prefix}` and it is not in a namespace the "
            f"runtime provides",
            item.span,
            data=EmptyToolPattern(name=item.value),
        )
    elif isinstance(ref, resolve.Incomplete) and ref.namespace == A2A_PREFIX:
        yield make(
            UNDEFINED_A2A_AGENT,
            f"Tool `{item.value}` of prompt `{prompt.key}` names no agent: write the key "
            f"of an agents member after `{A2A_PREFIX}`{hint_for(list(ref.suggestions))}",
            item.span,
            data=UndefinedTool(name=item.value, agent="", suggestions=list(ref.suggestions)),
            fixes=suggest(item.span, ref.suggestions),
        )
    elif isinstance(ref, resolve.Incomplete):
        yield make(
            UNDEFINED_TOOL,
            f"Tool `{item.value}` of prompt `{prompt.key}` is incomplete: the runtime "
            f"resolves names of the form `{ref.form}`",
            item.span,
            data=IncompleteToolName(name=item.value, namespace=ref.namespace),
        )
    elif isinstance(ref, resolve.UndefinedAgent):
        where = (
            "there is no `agents` section"
            if not names.has_agents
            else "it is not a key of `agents.members`"
        )
        yield make(
            UNDEFINED_A2A_AGENT,
            f"Tool `{item.value}` of prompt `{prompt.key}` calls agent "
            f"`{ref.agent}`, but {where}{hint_for(list(ref.suggestions))}",
            item.span,
            data=UndefinedTool(name=item.value, agent=ref.agent, suggestions=list(ref.suggestions)),
            fixes=suggest(item.span, ref.suggestions),
        )


def _check_policy(ctx: PromptContext, prompt: Prompt) -> Iterator[Diagnostic]:
    policy = prompt.tool_policy
    if policy is None:
        return
    names = ctx.summary.names
    settings = ToolSettings.of(ctx.summary.config)
    listed = {item.value: item for item in prompt.tools}
    blocked: set[str] = set()
    for item in policy.blocklist:
        name = item.value
        ref = resolve.resolve_tool(name, None, names, settings)
        if not isinstance(ref, resolve.Wildcard):  # a pattern blocks nothing
            blocked.add(name)
        if name in listed and not isinstance(ref, resolve.Wildcard):
            yield make(
                TOOL_LISTED_AND_BLOCKLISTED,
                f"Tool `{name}` is both listed in the `tools` of prompt `{prompt.key}` and "
                f"blocklisted; the blocklist wins, so the prompt cannot call it",
                item.span,
                related=[Related(listed[name].span, f"`{name}` is listed here")],
                data=ListedAndBlocklisted(name=name),
            )
            continue
        if isinstance(ref, resolve.Wildcard):
            found = list(ref.matches)
            message = (
                f"The blocklist of prompt `{prompt.key}` names the pattern `{name}`, which "
                f"blocks nothing: a blocklist matches names exactly"
            )
        elif isinstance(ref, resolve.UNRESOLVED):
            found = suggestions(name, [*names.tool_keys(), *resolve.members_except(names, None)])
            message = (
                f"The blocklist of prompt `{prompt.key}` names `{name}`, which is not a "
                f"known tool, so it blocks nothing"
            )
        else:
            continue
        yield make(
            UNKNOWN_BLOCKLISTED_TOOL,
            message + hint_for(found),
            item.span,
            data=UnknownBlocklistedTool(name=name, suggestions=found),
            fixes=suggest(item.span, found),
        )
    choice = policy.tool_choice
    if choice is not None and choice.value == "required":
        usable = [name for name in listed if name not in blocked]
        if not usable:
            reason = "every tool it lists is blocklisted" if listed else "it lists no tools"
            yield make(
                REQUIRED_TOOL_CHOICE_WITHOUT_TOOLS,
                f"Prompt `{prompt.key}` requires a tool call (`tool_choice: required`) but "
                f"{reason}",
                choice.span,
                data=ToolChoice(replacement="auto"),
                fixes=(ReplaceValue(choice.span, "auto"),),
            )


def _composition_tool_names(compositions: Any) -> set[str]:
    """Tool keys that composition steps use (``tool``, ``tools``, ``tool_called``), from
    the plain data of the ``compositions`` section."""
    found: set[str] = set()
    if not isinstance(compositions, dict):
        return found
    stack: list[Any] = list(compositions.values())
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            tool = value.get("tool")
            if isinstance(tool, str):
                found.add(tool)
            tools = value.get("tools")
            if isinstance(tools, list):
                found.update(t for t in tools if isinstance(t, str))
            termination = value.get("termination")
            if isinstance(termination, dict) and isinstance(termination.get("tool_called"), str):
                found.add(termination["tool_called"])
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return found


def _check_pack_tools(ctx: CheckContext) -> Iterator[Diagnostic]:
    pack = ctx.pack
    settings = ToolSettings.of(ctx.config)
    used: set[str] = set()
    for prompt in pack.prompts.values():
        for item in prompt.tools:
            used.add(item.value)
            if item.value.endswith(resolve.WILDCARD):  # a pattern uses what it matches
                used.update(resolve.wildcard(item.value, pack, settings).matches)
    used |= _composition_tool_names(ctx.part("compositions"))
    for key, tool in pack.tools.items():
        if (
            tool.name is not None and tool.name.value != key and TOOL_NAME.match(tool.name.value)
        ):  # else the schema reports it
            yield make(
                TOOL_NAME_DIFFERS_FROM_KEY,
                f"Tool `{key}` is named `{tool.name.value}`; prompts list it as `{key}` but "
                f"the model calls it `{tool.name.value}`",
                tool.name.span,
                related=[Related(tool.key_span, f"the key is `{key}`")],
                data=ToolName(expected=key),
                fixes=(ReplaceValue(tool.name.span, key),),
            )
        if key not in used:
            yield make(
                UNUSED_TOOL,
                f"Tool `{key}` is not listed by any prompt",
                tool.key_span,
                tags=(Tag.UNNECESSARY,),
                data=UnusedTool(name=key),
            )


def check_prompt(ctx: PromptContext, prompt: Prompt) -> Iterable[Diagnostic]:
    yield from _check_prompt_tools(ctx, prompt)
    yield from _check_policy(ctx, prompt)


def check(ctx: CheckContext) -> Iterable[Diagnostic]:
    yield from _check_pack_tools(ctx)
    yield from _check_shared_tools(ctx)
