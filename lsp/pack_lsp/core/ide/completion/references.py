"""References to complete: prompts, tools and agent members, workflow states, and the
names of RFCs 0010–0017 (compositions, steps, providers, evals, validators).

Tool items ask the resolver (``core/model/resolve.py``) what a name or a ``*`` pattern
refers to, as the rules and hover do; every other reference offers the names the
resolver defines for its kind (``names_of``), the very names a rule accepts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pack_lsp.core.base.text import Span
from pack_lsp.core.checks.analysis import Analysis
from pack_lsp.core.ide.completion.context import Place, path_matches
from pack_lsp.core.ide.completion.items import Completion, CompletionKind
from pack_lsp.core.ide.completion.summaries import prompt_summary, tool_summary, wildcard_summary
from pack_lsp.core.model import resolve as refs
from pack_lsp.core.model.config import A2A_PREFIX
from pack_lsp.core.model.pack import Located, Pack
from pack_lsp.core.model.resolve import Kind
from pack_lsp.core.syntax.yamltree import ScalarNode, SequenceNode, resolve

_TOOL_LISTS = (("prompts", "*", "tools", "#"), ("prompts", "*", "tool_policy", "blocklist", "#"))
_STATE_REFS = (
    ("workflow", "entry"),
    ("workflow", "states", "*", "on_event", "*"),
    ("workflow", "states", "*", "on_max_visits"),
    ("agents", "members", "*", "state"),
)


def member_key_items(pack: Pack, place: Place) -> list[Completion]:
    """Keys under ``agents.members``: the prompts that are not members yet."""
    members = set(refs.names_of(pack, Kind.MEMBER))
    out: list[Completion] = []
    for key in refs.names_of(pack, Kind.PROMPT):
        if key in members and key != place.prefix:
            continue
        out.append(
            Completion(
                label=key,
                kind=CompletionKind.PROMPT,
                detail="prompt",
                documentation=prompt_summary(pack, key),
                insert_text=key + ("" if place.quoted else ":"),
                replace=place.replace,
                sort=f"0{key}",
            )
        )
    return out


def reference_items(analysis: Analysis, pack: Pack, place: Place) -> list[Completion] | None:
    """The names a reference value at ``place`` may take (None: ``place`` is no reference)."""
    path = place.path
    if any(path_matches(path, p) for p in _TOOL_LISTS):
        return _tool_items(analysis, pack, place)
    if any(path_matches(path, p) for p in _STATE_REFS):
        states = pack.workflow.states if pack.workflow else {}
        return [
            Completion(
                key,
                CompletionKind.STATE,
                "workflow state",
                _description(states[key].description),
                key,
                replace=place.replace,
                sort=key,
            )
            for key in refs.names_of(pack, Kind.STATE)
        ]
    found = _rfc_values(pack, place)
    if found is not None:
        return found
    if path_matches(path, ("workflow", "states", "*", "prompt_task")):
        return [
            Completion(
                key,
                CompletionKind.PROMPT,
                "prompt",
                prompt_summary(pack, key),
                key,
                replace=place.replace,
                sort=key,
            )
            for key in refs.names_of(pack, Kind.PROMPT)
        ]
    if path_matches(path, ("agents", "entry")):
        members = refs.defined_names(pack, Kind.MEMBER)
        keys = members or refs.defined_names(pack, Kind.PROMPT)
        return [
            Completion(
                key,
                CompletionKind.MEMBER if key in members else CompletionKind.PROMPT,
                "agent member" if key in members else "prompt",
                prompt_summary(pack, key),
                key,
                replace=place.replace,
                sort=key,
            )
            for key in keys
        ]
    return None


def _names(
    place: Place,
    names: Sequence[str],
    kind: CompletionKind,
    detail: str,
    docs: dict[str, str] | None = None,
) -> list[Completion]:
    return [
        Completion(
            name, kind, detail, (docs or {}).get(name, ""), name, replace=place.replace, sort=name
        )
        for name in dict.fromkeys(names)
    ]


def _rfc_values(pack: Pack, place: Place) -> list[Completion] | None:
    """Names for the references of RFCs 0010–0017 (None when ``place`` is none of them)."""
    path = place.path
    last = path[-1] if path else None
    in_step = len(path) >= 4 and path[0] == "compositions" and path[2] == "steps"
    if path_matches(path, ("workflow", "states", "*", "composition")):
        docs = {
            k: c.steps[0].kind.text if c.steps and c.steps[0].kind else ""
            for k, c in pack.compositions.items()
        }
        names = refs.defined_names(pack, Kind.COMPOSITION)
        return _names(place, names, CompletionKind.COMPOSITION, "composition", docs)
    if last == "provider" and (path_matches(path, ("prompts", "*", "provider")) or in_step):
        # The runtime's own `default` first, as the rules accept it.
        keys = ["default", *refs.names_of(pack, Kind.PROVIDER)]
        docs = {k: f"role `{r.role_name}`" for k, r in pack.provider_keys().items()}
        return _names(place, keys, CompletionKind.PROVIDER, "provider requirement", docs)
    if in_step:
        steps = refs.defined_names(pack, Kind.STEP, str(path[1]))
        if last in ("then", "else") or (len(path) >= 2 and path[-2] == "depends_on"):
            return _names(place, steps, CompletionKind.STEP, "step of this composition")
        if last == "prompt_task":
            prompts = refs.defined_names(pack, Kind.PROMPT)
            return _names(place, prompts, CompletionKind.PROMPT, "prompt")
        if last == "tool" or (len(path) >= 2 and path[-2] == "tools"):
            return _names(place, refs.defined_names(pack, Kind.TOOL), CompletionKind.TOOL, "tool")
        if len(path) >= 2 and path[-2] == "eval":
            return _names(place, _eval_ids(pack), CompletionKind.EVAL, "eval")
    if path_matches(path, ("compositions", "*", "output")):
        steps = refs.defined_names(pack, Kind.STEP, str(path[1]))
        return _names(place, steps, CompletionKind.STEP, "step of this composition")
    governance = len(path) >= 3 and (
        path[:2] == ("metadata", "governance") or (path[0] == "agents" and "governance" in path)
    )
    if governance and last == "validator":
        ids = refs.defined_names(pack, Kind.VALIDATOR)
        return _names(place, ids, CompletionKind.VALIDATOR, "validator id")
    if governance and last == "eval":
        return _names(place, _eval_ids(pack), CompletionKind.EVAL, "eval id")
    return None


def _eval_ids(pack: Pack) -> list[str]:
    """The eval ids of the pack and its prompts, sorted (each once)."""
    return sorted(set(refs.names_of(pack, Kind.EVAL)))


def _description(text: Located | None) -> str:
    return text.text if text else ""


_PATTERN_BEFORE = re.compile(r"[\w$./:-]*\*\Z")
_MCP_SERVER = re.compile(r"\Amcp__([A-Za-z0-9_-]+?)__")


def _tool_items(analysis: Analysis, pack: Pack, place: Place) -> list[Completion]:
    listed: set[str] = set()
    node, _ = resolve(analysis.root, list(place.path[:-1]))
    if isinstance(node, SequenceNode):
        for item in node.values():
            if (
                isinstance(item, ScalarNode)
                and isinstance(item.value, str)
                and not item.span.contains(place.replace.start)
            ):
                listed.add(item.value)
    # A prompt never lists itself (RFC 0007 rule 5: an agent calling itself).
    own = place.path[1] if len(place.path) > 1 and place.path[0] == "prompts" else None
    owner = own if isinstance(own, str) else None
    settings = refs.ToolSettings.of(analysis.config)
    members = pack.agents.members if pack.agents else {}
    # A `*` pattern (the item being edited, or typed just before the cursor): offer
    # it, saying what it matches.
    current = analysis.text[place.replace.start : place.replace.end].strip("\"'")
    # Searched from the start of the cursor's line only: the pattern cannot span lines,
    # and a search from the start of the text costs its whole length on every request.
    line_start = analysis.text.rfind("\n", 0, place.replace.start) + 1
    typed = _PATTERN_BEFORE.search(analysis.text, line_start, place.replace.start)
    pattern: tuple[str, Span] | None = None
    if current.endswith(refs.WILDCARD):
        pattern = (current, place.replace)
    elif typed is not None and typed.group():
        pattern = (typed.group(), Span(typed.start(), place.replace.end))
    if pattern is not None:
        ref = refs.wildcard(pattern[0], pack, settings)
        return [
            Completion(
                ref.pattern,
                CompletionKind.TOOL,
                "tool pattern",
                wildcard_summary(ref),
                ref.pattern,
                replace=pattern[1],
            )
        ]
    callable_ = refs.members_except(pack, owner)  # the members, but the prompt itself
    if settings.a2a and place.prefix.startswith(A2A_PREFIX):
        return [
            Completion(
                A2A_PREFIX + key,
                CompletionKind.MEMBER,
                "agent member called over A2A",
                prompt_summary(pack, key),
                A2A_PREFIX + key,
                replace=place.replace,
                sort=key,
            )
            for key in callable_
            if A2A_PREFIX + key not in listed and key not in listed
        ]
    out: list[Completion] = []
    server = _MCP_SERVER.match(place.prefix)
    if server is not None and refs.MCP_PREFIX in settings.namespaces:
        every = server.group() + refs.WILDCARD
        ref = refs.wildcard(every, pack, settings)
        out.append(
            Completion(
                every,
                CompletionKind.TOOL,
                f"every tool of MCP server `{server.group(1)}`",
                wildcard_summary(ref),
                every,
                replace=place.replace,
                sort=f"0{every}",
            )
        )
    for key in refs.names_of(pack, Kind.TOOL):
        tool = pack.tools[key]
        if key in listed:
            continue
        out.append(
            Completion(
                key,
                CompletionKind.TOOL,
                "tool: " + (tool.description.text if tool.description else "(no description)"),
                tool_summary(pack, key),
                key,
                replace=place.replace,
                sort=f"0{key}",
            )
        )
    for key in callable_:
        if key in listed or key in pack.tools:
            continue
        member = members[key]
        description = member.description.text if member.description else ""
        if not description and key in pack.prompts and pack.prompts[key].description:
            description = pack.prompts[key].description.text  # type: ignore[union-attr]
        out.append(
            Completion(
                key,
                CompletionKind.MEMBER,
                "agent member: " + (description or "(no description)"),
                prompt_summary(pack, key),
                key,
                replace=place.replace,
                sort=f"1{key}",
            )
        )
    return out
