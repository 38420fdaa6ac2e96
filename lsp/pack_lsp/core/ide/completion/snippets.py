"""Snippets for a new prompt, a new tool and an ``agents`` section (block style only)."""

from __future__ import annotations

from pack_lsp.core.checks.analysis import Analysis
from pack_lsp.core.ide.completion.context import Place, in_flow, path_matches
from pack_lsp.core.ide.completion.items import Completion, CompletionKind


def snippet_items(analysis: Analysis, place: Place) -> list[Completion]:
    """The snippets that fit the mapping at ``place`` (none inside a flow collection)."""
    pack = analysis.pack
    pad = " " * place.indent
    flow = in_flow(analysis, place)
    if flow:
        return []
    out: list[Completion] = []
    if path_matches(place.path, ("prompts",)):
        body = [
            "${1:new_prompt}:",
            "  id: ${1:new_prompt}",
            "  name: ${2:New prompt}",
            "  version: 1.0.0",
            "  description: ${3:What this prompt is for}",
            "  system_template: |",
            "    ${4:You are a helpful assistant.}",
        ]
        out.append(
            Completion(
                "new prompt",
                CompletionKind.SNIPPET,
                "snippet: a prompt with required fields",
                "A prompt with id, name, version and a system template.",
                _indent(body, pad),
                True,
                place.replace,
                "2new prompt",
            )
        )
    if path_matches(place.path, ("tools",)):
        body = [
            "${1:new_tool}:",
            "  name: ${1:new_tool}",
            "  description: ${2:What the tool does}",
            "  parameters:",
            "    type: object",
            "    properties:",
            "      ${3:argument}:",
            "        type: string",
            "    required: [${3:argument}]",
        ]
        out.append(
            Completion(
                "new tool",
                CompletionKind.SNIPPET,
                "snippet: a tool with parameters",
                "A tool with a name, a description and JSON Schema parameters.",
                _indent(body, pad),
                True,
                place.replace,
                "2new tool",
            )
        )
    if place.path == () and pack is not None and pack.agents is None:
        keys = list(pack.prompts) or ["assistant"]
        body = ["agents:", f"  entry: ${{1:{keys[0]}}}", "  members:"]
        for i, key in enumerate(keys, 2):
            body += [
                f"    {key}:",
                f"      description: ${{{i}:What {key} does}}",
                "      tags: [general]",
            ]
        out.append(
            Completion(
                "agents section",
                CompletionKind.SNIPPET,
                "snippet: expose prompts as agents",
                "An `agents` section with an entry agent and one member per prompt.",
                _indent(body, pad),
                True,
                place.replace,
                "2agents section",
            )
        )
    return out


def _indent(lines: list[str], pad: str) -> str:
    return "\n".join([lines[0]] + [pad + line for line in lines[1:]])
