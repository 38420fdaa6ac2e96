"""Markdown summaries of completion targets, shared with hover."""

from __future__ import annotations

from pack_lsp.core.model import resolve as refs
from pack_lsp.core.model.pack import Pack


def code_block(text: str) -> str:
    """``text`` as a fenced code block (empty text: no block)."""
    if not text:
        return ""
    return "```\n" + text.replace("```", "` ` `") + "\n```"


def prompt_summary(pack: Pack, key: str) -> str:
    """The prompt's name, version and description (empty for an unknown key)."""
    prompt = pack.prompts.get(key)
    if prompt is None:
        return ""
    parts = [f"**{prompt.name.text if prompt.name else key}**"]
    if prompt.version is not None:
        parts[0] += f" (version {prompt.version.text})"
    if prompt.description is not None:
        parts.append(prompt.description.text)
    return "\n\n".join(parts)


def tool_summary(pack: Pack, key: str) -> str:
    """The tool's name, description and parameters (empty for an unknown key)."""
    tool = pack.tools.get(key)
    if tool is None:
        return ""
    parts = [f"**{tool.name.text if tool.name else key}**"]
    if tool.description is not None:
        parts.append(tool.description.text)
    params = tool.parameters
    if isinstance(params, dict) and isinstance(params.get("properties"), dict):
        listed = params.get("required")
        # Only the strings of a list count: the file may hold anything here
        # (a mapping, a list of mappings), which the schema rules report.
        required = {r for r in listed if isinstance(r, str)} if isinstance(listed, list) else set()
        rows = []
        for name, schema in params["properties"].items():
            kind = schema.get("type", "") if isinstance(schema, dict) else ""
            req = " (required)" if name in required else ""
            rows.append(f"- `{name}`: {kind}{req}")
        if rows:
            parts.append("Parameters:\n" + "\n".join(rows))
    return "\n\n".join(parts)


def wildcard_summary(ref: refs.Wildcard) -> str:
    """What a ``*`` pattern in a ``tools`` list matches (hover and completion)."""
    parts = [f"**tool pattern `{ref.pattern}`** — every tool whose name starts with `{ref.prefix}`"]
    if ref.matches:
        parts.append("Pack tools: " + ", ".join(f"`{m}`" for m in ref.matches))
    if ref.namespace is not None:
        parts.append(
            f"Also tools the runtime provides in `{ref.namespace}` (for MCP, what the "
            "server offers when it connects): not known from the pack."
        )
    if ref.empty:
        parts.append("Matches nothing: no pack tool has this prefix.")
    return "\n\n".join(parts)
