"""Hover: schema documentation on keys, a summary of the target on references.

On ``$schema`` (key or value) it also tells which PromptPack version the pack is
checked against and why, including when the declared version is one pack-lsp does
not know, and, for each deploy target the pack is checked for, whether that runtime
will load it (``deploy_summary``).

References: a prompt's tool items and blocklist entries (what ``core/model/resolve.py``
makes of them: the tool's description and parameters, the agent member, a runtime
namespace, what a ``*`` pattern matches), ``agents.entry`` and member keys (the prompt and
the skill its Agent Card would expose), ``prompt_task`` (the prompt), workflow
state targets (the state) and template placeholders (variable, fragment, artifact).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pack_lsp.core.base import kinds
from pack_lsp.core.base.diagnostics import Severity
from pack_lsp.core.base.text import Span
from pack_lsp.core.checks.analysis import Analysis
from pack_lsp.core.ide import schema_docs
from pack_lsp.core.ide.completion.context import path_matches
from pack_lsp.core.ide.completion.summaries import prompt_summary, tool_summary, wildcard_summary
from pack_lsp.core.ide.semantic_tokens import ResolvedPlaceholder, placeholder_at
from pack_lsp.core.model import resolve as refs
from pack_lsp.core.model import targets
from pack_lsp.core.model.config import A2A_PREFIX
from pack_lsp.core.model.pack import Pack
from pack_lsp.core.model.profiles import target_of
from pack_lsp.core.model.resolve import ToolSettings
from pack_lsp.core.syntax.yamltree import MappingNode, PathItem, ScalarNode, node_path_at


@dataclass(frozen=True, slots=True)
class HoverResult:
    span: Span
    markdown: str


def hover(analysis: Analysis, offset: int) -> HoverResult | None:
    """Hover text for the key, reference or placeholder at ``offset``."""
    pack = analysis.pack
    if pack is not None:
        found = placeholder_at(analysis, offset)
        if found is not None:
            text = _placeholder(pack, found)
            return HoverResult(found.span, text) if text else None
    if analysis.root is None:
        return None
    chain = node_path_at(analysis.root, offset)
    if len(chain) < 2:
        return None
    node = chain[-1][1]
    if not isinstance(node, ScalarNode) or not node.span.contains(offset):
        return None
    parent = chain[-2][1]
    path = tuple(s for s, _ in chain[1:] if s is not None)
    is_key = isinstance(parent, MappingNode) and any(p.key is node for p in parent.pairs)
    schema = schema_docs.schema_key(analysis.config, analysis.data)
    settings = ToolSettings.of(analysis.config)
    text = _key(pack, path, schema) if is_key else _value(pack, path, node, settings)
    if path == ("$schema",) and analysis.kind == kinds.PROMPTPACK:
        target = target_of(analysis.config, analysis.data)
        parts = (text, target.explain(), deploy_summary(analysis))
        text = "\n\n".join(part for part in parts if part)
    return HoverResult(node.span, text) if text else None


def deploy_summary(analysis: Analysis) -> str:
    """Whether each deploy target the pack is checked for will load it (the PT
    findings of the analysis; for ``promptkit``, the errors under its profile)."""
    names = targets.deploy_targets(analysis.config.targets)
    if not names:
        return ""
    lines = ["**Deploy targets:**"]
    for name in names:
        if name == targets.PROMPTKIT:
            errors = [
                d
                for d in analysis.diagnostics
                if d.severity is Severity.ERROR and "target" not in d.data
            ]
            release = analysis.config.promptkit_version
            verdict = (
                f"refuses it ({_count(len(errors), 'error')} under the `promptkit` profile)"
                if errors
                else "loads it (no error under the `promptkit` profile)"
            )
            lines.append(f"- PromptKit {release}: {verdict}")
            continue
        runtime = targets.RUNTIMES[name]
        found = [d for d in analysis.diagnostics if d.data.get("target") == name]
        refused = sorted({d.code for d in found if d.severity is Severity.ERROR})
        misread = sorted({d.code for d in found if d.severity is not Severity.ERROR})
        problems = sum(1 for d in found if d.severity is Severity.ERROR)
        if refused:
            verdict = f"refuses it ({_count(problems, 'problem')}: {', '.join(refused)})"
        elif misread:
            verdict = f"loads it, reading it differently ({', '.join(misread)})"
        else:
            verdict = "loads it"
        lines.append(f"- {runtime.title} (`{runtime.commit[:8]}`): {verdict}")
    return "\n".join(lines)


def _count(n: int, what: str) -> str:
    return f"{n} {what}" if n == 1 else f"{n} {what}s"


def _key(pack: Pack | None, path: tuple[PathItem, ...], schema: str) -> str:
    parts: list[str] = []
    key = path[-1]
    if pack is not None and isinstance(key, str):
        if path_matches(path, ("agents", "members", "*")):
            parts.append(agent_skill(pack, key))
        elif path_matches(path, ("prompts", "*")):
            parts.append(prompt_summary(pack, key))
        elif path_matches(path, ("tools", "*")):
            parts.append(tool_summary(pack, key))
    if not parts:
        doc = schema_docs.property_doc(path, schema)
        if doc is not None:
            head = f"**{doc.name}**" + (f" — `{doc.type}`" if doc.type else "")
            if doc.required:
                head += " (required)"
            if doc.since:
                head += f" — since {doc.since}"
            if doc.deprecated:
                head += " — deprecated"
            parts.append(head + ("\n\n" + doc.description if doc.description else ""))
    return "\n\n".join(p for p in parts if p)


def _tool_reference(pack: Pack, name: str, owner: str | None, settings: ToolSettings) -> str:
    """A tools item or blocklist entry, as ``core/model/resolve.py`` reads it."""
    ref = refs.resolve_tool(name, owner, pack, settings)
    if isinstance(ref, refs.PackTool):
        return tool_summary(pack, ref.key)
    if isinstance(ref, refs.Member | refs.NonMemberPrompt | refs.SelfCall):
        return (
            agent_skill(pack, ref.key)
            if isinstance(ref, refs.Member)
            else prompt_summary(pack, ref.key)
        )
    if isinstance(ref, refs.A2A):
        return agent_skill(pack, ref.member)
    if isinstance(ref, refs.ToolAndMember):
        if ref.tool_kept:
            head = (
                f"**`{name}` is a pack tool and an agents member** — PromptKit offers the "
                f"tool as `{name}` and the agent as `{A2A_PREFIX}{name}`"
            )
        else:
            head = (
                f"**`{name}` is a pack tool and an agents member** — the runtime calls the "
                "agent over A2A (RFC 0007); the pack tool is not called"
            )
        return "\n\n".join([head, agent_skill(pack, name), tool_summary(pack, name)])
    if isinstance(ref, refs.Wildcard):
        return wildcard_summary(ref)
    if isinstance(ref, refs.RuntimeNamespace):
        return (
            f"**runtime tool `{name}`** — provided by the runtime (namespace "
            f"`{ref.namespace}`), not defined in the pack"
        )
    return ""


def _value(
    pack: Pack | None, path: tuple[PathItem, ...], node: ScalarNode, settings: ToolSettings
) -> str:
    name = node.value if isinstance(node.value, str) else None
    if pack is not None and name is not None:
        if path_matches(path, ("prompts", "*", "tools", "#")) or path_matches(
            path, ("prompts", "*", "tool_policy", "blocklist", "#")
        ):
            owner = str(path[1]) if path[2] == "tools" else None
            return _tool_reference(pack, name, owner, settings)
        if path_matches(path, ("agents", "entry")):
            return (
                agent_skill(pack, name)
                if name in pack.prompts or (pack.agents is not None and name in pack.agents.members)
                else ""
            )
        if path_matches(path, ("workflow", "states", "*", "prompt_task")):
            return prompt_summary(pack, name)
        if _any_match(
            path,
            (
                ("workflow", "entry"),
                ("workflow", "states", "*", "on_event", "*"),
                ("workflow", "states", "*", "on_max_visits"),
            ),
        ):
            return _state(pack, name)
        if path_matches(path, ("agents", "members", "*", "state")):
            return _state(pack, name)
        if path_matches(path, ("workflow", "states", "*", "composition")):
            return _composition(pack, name)
        if path and path[-1] == "provider":
            return _provider(pack, name)
        if (
            path
            and path[0] == "compositions"
            and (
                path[-1] in ("then", "else", "output")
                or (len(path) > 1 and path[-2] == "depends_on")
            )
        ):
            return _step(pack, str(path[1]), name)
    return ""


def _composition(pack: Pack, key: str) -> str:
    comp = pack.compositions.get(key)
    if comp is None:
        return ""
    steps = [f"`{s.id.text}` ({s.kind.text if s.kind else '?'})" for s in comp.steps if s.id]
    return f"**composition `{key}`**\n\nSteps: " + (", ".join(steps) or "none")


def _provider(pack: Pack, key: str) -> str:
    req = pack.provider_keys().get(key)
    if req is None:
        return "**provider `default`**\n\nThe primary LLM." if key == "default" else ""
    required = "required" if req.is_required else "optional"
    return f"**provider `{key}`** — role `{req.role_name}`, {required}"


def _step(pack: Pack, composition: str, step_id: str) -> str:
    comp = pack.compositions.get(composition)
    step = (
        next((s for s in comp.all_steps() if s.id is not None and s.id.text == step_id), None)
        if comp
        else None
    )
    if step is None:
        return ""
    parts = [f"**step `{step_id}`** ({step.kind.text if step.kind else '?'})"]
    if step.prompt_task is not None:
        parts.append(f"Prompt: `{step.prompt_task.text}`")
    if step.tool is not None:
        parts.append(f"Tool: `{step.tool.text}`")
    return "\n\n".join(parts)


def _any_match(path: Sequence[PathItem], patterns: Sequence[Sequence[str]]) -> bool:
    return any(path_matches(path, p) for p in patterns)


def _state(pack: Pack, key: str) -> str:
    state = pack.workflow.states.get(key) if pack.workflow else None
    if state is None:
        return ""
    parts = [f"**state `{key}`**" + (" (terminal)" if state.is_terminal else "")]
    if state.description is not None:
        parts.append(state.description.text)
    if state.prompt_task is not None:
        parts.append(f"Prompt: `{state.prompt_task.text}`")
    if state.on_event:
        parts.append(
            "Events: "
            + ", ".join(
                f"`{t.event.text}` → `{t.target.text if t.target else '?'}`" for t in state.on_event
            )
        )
    return "\n\n".join(parts)


def agent_skill(pack: Pack, key: str) -> str:
    """The prompt behind an agent and the skill its Agent Card would expose."""
    prompt = pack.prompts.get(key)
    member = pack.agents.members.get(key) if pack.agents else None
    name = prompt.name.text if prompt is not None and prompt.name else key
    description = ""
    if member is not None and member.description is not None:
        description = member.description.text
    elif prompt is not None and prompt.description is not None:
        description = prompt.description.text
    tags = [t.text for t in member.tags] if member is not None else []
    inputs = (
        [m.text for m in member.input_modes] if member and member.input_modes else ["text/plain"]
    )
    outputs = (
        [m.text for m in member.output_modes] if member and member.output_modes else ["text/plain"]
    )
    lines = [
        f"**agent `{key}`**"
        + (
            " — entry agent"
            if pack.agents and pack.agents.entry and pack.agents.entry.value == key
            else ""
        )
    ]
    if prompt is None:
        lines.append(f"No prompt `{key}` in this pack.")
    else:
        summary = prompt_summary(pack, key)
        if summary:
            lines.append(summary)
    skill = [
        "Agent Card skill:",
        f"- id: `{key}`",
        f"- name: {name}",
        f"- description: {description or '(none)'}",
        f"- tags: {', '.join(tags) if tags else '(none)'}",
        f"- input modes: {', '.join(inputs)}",
        f"- output modes: {', '.join(outputs)}",
    ]
    lines.append("\n".join(skill))
    return "\n\n".join(lines)


def _placeholder(pack: Pack, p: ResolvedPlaceholder) -> str:
    if p.kind == "fragment":
        fragment = pack.fragments.get(p.name)
        if fragment is None:
            return f"**fragment `{p.name}`** — not defined in this pack"
        text = fragment.template.text if fragment.template else ""
        return f"**fragment `{p.name}`**\n\n```\n{text}\n```"
    if p.kind == "artifact":
        if pack.workflow is not None:
            for state in pack.workflow.states.values():
                art = state.artifacts.get(p.name)
                if art is not None:
                    bits = [f"**artifact `{p.name}`** (state `{state.key}`)"]
                    if art.type is not None:
                        bits.append(f"type: `{art.type.text}`")
                    if art.mode is not None:
                        bits.append(f"mode: `{art.mode.text}`")
                    if art.description is not None:
                        bits.append(art.description.text)
                    return "\n\n".join(bits)
        return f"**artifact `{p.name}`** — not declared by any workflow state"
    for prompt in (pack.prompts[key] for key in p.prompts if key in pack.prompts):
        for var in prompt.variables:
            if var.name is not None and var.name.text == p.name:
                head = f"**variable `{p.name}`**"
                if var.type is not None:
                    head += f" — `{var.type.text}`"
                if var.required is not None and var.required.value is True:
                    head += " (required)"
                bits = [head]
                if var.description is not None:
                    bits.append(var.description.text)
                if var.default is not None:
                    bits.append(f"default: `{var.default.value!r}`")
                bits.append(f"declared by prompt `{prompt.key}`")
                return "\n\n".join(bits)
    if p.placeholder.scoped:
        return (
            f"**variable `{p.name}`** — inside `{{{{#each}}}}`/`{{{{#with}}}}`: "
            "may be a field of the current item"
        )
    if p.info.owner == "fragment":
        return f"**variable `{p.name}`** — not declared by the prompts using this fragment"
    return f"**variable `{p.name}`** — not declared by this prompt"
