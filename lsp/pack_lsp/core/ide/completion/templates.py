"""Placeholders inside ``{{`` in templates: variables, fragments, workflow artifacts."""

from __future__ import annotations

import re

from pack_lsp.core.base.text import Span
from pack_lsp.core.checks.analysis import Analysis
from pack_lsp.core.ide.completion.context import parent_path, word_end
from pack_lsp.core.ide.completion.items import Completion, CompletionKind
from pack_lsp.core.ide.completion.summaries import code_block
from pack_lsp.core.model.templates import artifact_names
from pack_lsp.core.syntax.yamltree import node_path_at

_OPEN = re.compile(r"\{\{\s*([\w.:-]*)\Z")


def placeholder_items(analysis: Analysis, offset: int, before: str) -> list[Completion] | None:
    """Placeholders to complete after ``{{`` (None: ``before``, the line up to the cursor,
    opens no placeholder)."""
    match = _OPEN.search(before)
    if match is None:
        return None
    pack = analysis.pack
    if pack is None:
        return []
    typed = match.group(1)
    start = offset - len(typed)
    replace = Span(start, word_end(analysis.text, offset))
    owner = _template_owner(analysis, offset)
    out: list[Completion] = []
    if typed.startswith(("fragments.", "fragment:")):
        sep = "." if typed.startswith("fragments.") else ":"
        for key, fragment in pack.fragments.items():
            text = fragment.template.text if fragment.template else ""
            out.append(
                Completion(
                    f"fragments{sep}{key}" if sep == "." else f"fragment:{key}",
                    CompletionKind.FRAGMENT,
                    "fragment",
                    code_block(text),
                    None,
                    replace=replace,
                    sort=key,
                )
            )
        return out
    if typed.startswith("artifacts."):
        for name in sorted(artifact_names(pack)):
            out.append(
                Completion(
                    f"artifacts.{name}",
                    CompletionKind.ARTIFACT,
                    "workflow artifact",
                    "",
                    replace=replace,
                    sort=name,
                )
            )
        return out
    variables: dict[str, str] = {}
    prompts = [pack.prompts[owner]] if owner in pack.prompts else list(pack.prompts.values())
    for prompt in prompts:
        for var in prompt.variables:
            if var.name is None or var.name.text in variables:
                continue
            bits = []
            if var.type is not None:
                bits.append(var.type.text)
            if var.required is not None and var.required.value is True:
                bits.append("required")
            doc = var.description.text if var.description else ""
            variables[var.name.text] = ", ".join(bits) + ("\n\n" + doc if doc else "")
    for name, doc in variables.items():
        detail, _, documentation = doc.partition("\n\n")
        out.append(
            Completion(
                name,
                CompletionKind.VARIABLE,
                f"variable ({detail})" if detail else "variable",
                documentation,
                replace=replace,
                sort=f"0{name}",
            )
        )
    for key, fragment in pack.fragments.items():
        text = fragment.template.text if fragment.template else ""
        out.append(
            Completion(
                f"fragments.{key}",
                CompletionKind.FRAGMENT,
                "fragment",
                code_block(text),
                replace=replace,
                sort=f"1{key}",
            )
        )
    for name in sorted(artifact_names(pack)):
        out.append(
            Completion(
                f"artifacts.{name}",
                CompletionKind.ARTIFACT,
                "workflow artifact",
                "",
                replace=replace,
                sort=f"2{name}",
            )
        )
    return out


def _template_owner(analysis: Analysis, offset: int) -> str | None:
    """The prompt key whose template holds ``offset`` (by tree or by indentation)."""
    chain = node_path_at(analysis.root, offset) if analysis.root is not None else []
    steps = [s for s, _ in chain[1:]]
    if len(steps) >= 2 and steps[0] == "prompts" and isinstance(steps[1], str):
        return steps[1]
    lines = analysis.lines
    line = lines.position(offset).line
    before = analysis.text[lines.line_start(line) : offset]
    col = len(before) - len(before.lstrip(" "))
    path = parent_path(analysis, line, col, [])
    if path and len(path) >= 2 and path[0] == "prompts" and isinstance(path[1], str):
        return path[1]
    return None
