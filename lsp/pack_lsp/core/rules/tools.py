"""PP3xx — tool references: prompts' `tools`, tool policies and the pack's `tools` map.

A name in a prompt's ``tools`` list resolves, in this order, to a pack tool (a key
of the pack-level ``tools`` map), to the prompt itself (RFC 0007 rule 5, PP204), to
an agents member (called over A2A), to another prompt that is not a member (rule 4,
PP205), to ``a2a__<member>``, or to a namespace the runtime provides itself
(``mcp__``, ``workflow__``, ... — ``tool_namespaces`` in the configuration).
Anything else is undefined.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from pack_lsp.core.config import A2A_PREFIX
from pack_lsp.core.context import CheckContext
from pack_lsp.core.diagnostics import Diagnostic, FixKind, Related, Rule, Severity, Tag, make
from pack_lsp.core.model import Located, Prompt
from pack_lsp.core.suggest import did_you_mean, hint_for, suggestions
from pack_lsp.core.summary import PromptContext, ToolNames

CATEGORY = "Tools"
MCP_PREFIX = "mcp__"
TOOL_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*$")

UNDEFINED_TOOL = Rule(
    "PP301",
    "undefined-tool",
    Severity.ERROR,
    "A name in a prompt's `tools` list is not a key of the pack's `tools` map, not an "
    "agents member and not in a namespace the runtime resolves itself "
    "(`mcp__<server>__<tool>`, `workflow__`, `memory__`, `skill__`, `image__`, "
    "`video__`; see `tool_namespaces`), or is a bare namespace prefix such as `mcp__`. "
    "A name that is the `name` of a pack tool with a different key is reported too: "
    "prompts list tools by key.",
    "prompts:\n  support:\n    tools: [lookup_ordr]     # did you mean `lookup_order`?\n"
    "tools:\n  lookup_order: {name: lookup_order, description: Find an order}",
    "Correct the name (a quick fix offers the suggestions), or declare the tool under "
    "the pack's `tools`.",
    CATEGORY,
    fixes=(
        FixKind.CREATE_TOOL,
        FixKind.REPLACE_WITH_SUGGESTION,
    ),
)

UNDEFINED_A2A_AGENT = Rule(
    "PP302",
    "undefined-a2a-agent",
    Severity.ERROR,
    "An `a2a__<member>` tool names an agent that is not a key of `agents.members`.",
    "prompts:\n  router:\n    tools: [a2a__biling]     # did you mean `a2a__billing`?\n"
    "agents:\n  entry: router\n  members: {router: {}, billing: {}}",
    "Use the key of an agents member after `a2a__`, or add the agent to `agents.members`.",
    CATEGORY,
    fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
)

TOOL_NAME_DIFFERS_FROM_KEY = Rule(
    "PP303",
    "tool-name-differs-from-key",
    Severity.WARNING,
    "A pack tool's `name` is not its key. Prompts list tools by key while the model "
    "calls them by `name`, so the two should be the same.",
    "tools:\n  web_search:\n    name: search           # the key is `web_search`\n"
    "    description: Search the web",
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
    "prompts:\n  support:\n    tool_policy:\n      blocklist: [delete_acount]   "
    "# did you mean `delete_account`?",
    "Correct the name or remove it from the blocklist.",
    CATEGORY,
    fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
)

TOOL_LISTED_AND_BLOCKLISTED = Rule(
    "PP305",
    "tool-listed-and-blocklisted",
    Severity.INFORMATION,
    "A tool is both in the prompt's `tools` and in its `tool_policy.blocklist`; the "
    "blocklist wins, so the prompt cannot call it.",
    "prompts:\n  support:\n    tools: [refund]\n    tool_policy:\n      blocklist: [refund]",
    "Remove the tool from one of the two lists.",
    CATEGORY,
)

REQUIRED_TOOL_CHOICE_WITHOUT_TOOLS = Rule(
    "PP306",
    "required-tool-choice-without-tools",
    Severity.WARNING,
    "`tool_policy.tool_choice` is `required` but the prompt has no tool it may call "
    "(its `tools` list is missing or empty, or every tool is blocklisted).",
    "prompts:\n  support:\n    tool_policy:\n      tool_choice: required   # no tools",
    "List the tools the prompt must use, or set `tool_choice` to `auto`.",
    CATEGORY,
    fixes=(FixKind.REPLACE_VALUE,),
)

UNUSED_TOOL = Rule(
    "PP307",
    "unused-tool",
    Severity.HINT,
    "A pack tool that no prompt lists (nor any composition step). Reported on its key "
    "and shown faded.",
    "tools:\n  legacy_lookup: {name: legacy_lookup, description: Old API}",
    "Add the tool to the `tools` of the prompts that should call it, or delete it.",
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
)


class RefKind(enum.Enum):
    PACK_TOOL = "pack-tool"
    SELF = "self"
    MEMBER = "member"
    NON_MEMBER_PROMPT = "non-member-prompt"
    A2A_MEMBER = "a2a-member"
    A2A_UNKNOWN = "a2a-unknown"
    NAMESPACE = "namespace"
    INCOMPLETE = "incomplete"  # a namespace prefix without the rest of the name
    UNDEFINED = "undefined"


@dataclass(frozen=True, slots=True)
class ToolRef:
    kind: RefKind
    target: str  # the tool key, prompt/member key or namespace the name resolved to


def resolve_tool(name: str, owner: str | None, names: ToolNames) -> ToolRef:
    """What a name in the ``tools`` list of prompt ``owner`` refers to (``names``: the
    pack's tools, members and prompts and the namespaces, ``ToolNames.of(pack, ...)``)."""
    if names.is_tool(name):
        return ToolRef(RefKind.PACK_TOOL, name)
    if owner is not None and name == owner:
        return ToolRef(RefKind.SELF, name)
    if names.is_member(name):
        return ToolRef(RefKind.MEMBER, name)
    if names.is_prompt(name):
        return ToolRef(RefKind.NON_MEMBER_PROMPT, name)
    spaces = names.namespaces
    if A2A_PREFIX in spaces and name.startswith(A2A_PREFIX):
        agent = name[len(A2A_PREFIX) :]
        if owner is not None and agent == owner:
            return ToolRef(RefKind.SELF, agent)
        if names.is_member(agent):
            return ToolRef(RefKind.A2A_MEMBER, agent)
        return ToolRef(RefKind.A2A_UNKNOWN, agent)
    for space in spaces:
        if space and name.startswith(space):
            rest = name[len(space) :]
            if space == MCP_PREFIX:
                server, sep, tool = rest.partition("__")
                complete = bool(server and sep and tool)
            else:
                complete = bool(rest)
            return ToolRef(RefKind.NAMESPACE if complete else RefKind.INCOMPLETE, space)
    return ToolRef(RefKind.UNDEFINED, name)


def _undefined_tool(item: Located, prompt: Prompt, names: ToolNames) -> Diagnostic:
    name = item.value
    by_name = names.keys_named(name)
    candidates = names.tool_keys() + names.member_keys()
    found = by_name + [s for s in suggestions(name, candidates) if s not in by_name]
    if by_name:
        hint = (
            f"; `{name}` is the `name` of the pack tool `{by_name[0]}`, and prompts "
            f"list tools by key"
        )
    else:
        hint = did_you_mean(name, candidates)
    return make(
        UNDEFINED_TOOL,
        f"Tool `{name}` of prompt `{prompt.key}` is not defined in the pack's `tools` "
        f"and is not an agents member{hint}",
        item.span,
        data={"kind": "undefined-tool", "name": name, "suggestions": found},
    )


def _check_prompt_tools(ctx: PromptContext, prompt: Prompt) -> Iterator[Diagnostic]:
    names = ctx.summary.names
    for item in prompt.tools:
        ref = resolve_tool(item.value, prompt.key, names)
        if ref.kind is RefKind.UNDEFINED:
            yield _undefined_tool(item, prompt, names)
        elif ref.kind is RefKind.INCOMPLETE:
            form = "mcp__<server>__<tool>" if ref.target == MCP_PREFIX else f"{ref.target}<name>"
            yield make(
                UNDEFINED_TOOL,
                f"Tool `{item.value}` of prompt `{prompt.key}` is incomplete: the runtime "
                f"resolves names of the form `{form}`",
                item.span,
                data={"kind": "incomplete-tool-name", "name": item.value, "namespace": ref.target},
            )
        elif ref.kind is RefKind.A2A_UNKNOWN:
            members = names.member_keys()
            found = [A2A_PREFIX + s for s in suggestions(ref.target, members)]
            hint = did_you_mean(item.value, [A2A_PREFIX + m for m in members])
            where = (
                "there is no `agents` section"
                if not names.has_agents
                else "it is not a key of `agents.members`"
            )
            yield make(
                UNDEFINED_A2A_AGENT,
                f"Tool `{item.value}` of prompt `{prompt.key}` calls agent "
                f"`{ref.target}`, but {where}{hint}",
                item.span,
                data={
                    "kind": "undefined-tool",
                    "name": item.value,
                    "agent": ref.target,
                    "suggestions": found,
                },
            )


def _check_policy(ctx: PromptContext, prompt: Prompt) -> Iterator[Diagnostic]:
    policy = prompt.tool_policy
    if policy is None:
        return
    names = ctx.summary.names
    listed = {item.value: item for item in prompt.tools}
    blocked: set[str] = set()
    for item in policy.blocklist:
        name = item.value
        blocked.add(name)
        if name in listed:
            yield make(
                TOOL_LISTED_AND_BLOCKLISTED,
                f"Tool `{name}` is both listed in the `tools` of prompt `{prompt.key}` and "
                f"blocklisted; the blocklist wins, so the prompt cannot call it",
                item.span,
                related=[Related(listed[name].span, f"`{name}` is listed here")],
                data={"kind": "listed-and-blocklisted", "name": name},
            )
            continue
        ref = resolve_tool(name, None, names)
        if ref.kind in (RefKind.UNDEFINED, RefKind.A2A_UNKNOWN, RefKind.INCOMPLETE):
            candidates = names.tool_keys() + names.member_keys()
            found = suggestions(name, candidates)
            yield make(
                UNKNOWN_BLOCKLISTED_TOOL,
                f"The blocklist of prompt `{prompt.key}` names `{name}`, which is not a "
                f"known tool, so it blocks nothing{hint_for(found)}",
                item.span,
                data={
                    "kind": "unknown-blocklisted-tool",
                    "name": name,
                    "suggestions": found,
                },
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
                data={"kind": "tool-choice", "replacement": "auto"},
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
    used: set[str] = set()
    for prompt in pack.prompts.values():
        used.update(item.value for item in prompt.tools)
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
                data={"kind": "tool-name", "expected": key},
            )
        if key not in used:
            yield make(
                UNUSED_TOOL,
                f"Tool `{key}` is not listed by any prompt",
                tool.key_span,
                tags=(Tag.UNNECESSARY,),
                data={"kind": "unused-tool", "name": key},
            )


def check_prompt(ctx: PromptContext, prompt: Prompt) -> Iterable[Diagnostic]:
    yield from _check_prompt_tools(ctx, prompt)
    yield from _check_policy(ctx, prompt)


def check(ctx: CheckContext) -> Iterable[Diagnostic]:
    yield from _check_pack_tools(ctx)
