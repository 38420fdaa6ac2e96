"""Placeholders inside templates, classified for semantic highlighting and hover.

A placeholder ``{{name}}`` is a *variable* when the prompt declares it (for a
fragment: when any prompt declares it), a *fragment* when written
``{{fragments.name}}``/``{{fragment:name}}`` (or ``{{name}}`` naming a fragment),
an *artifact* when written ``{{artifacts.name}}``; a reference to nothing declared
is marked *undefined*. Spans are exact document spans (through ``scalar_map``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from pack_lsp.core.analysis import Analysis
from pack_lsp.core.model import Pack, Template
from pack_lsp.core.scalars import scalar_map
from pack_lsp.core.text import Span

TOKEN_TYPES = ("variable", "macro", "property")
TOKEN_MODIFIERS = ("undefined",)

KIND_TOKEN = {"variable": 0, "fragment": 1, "artifact": 2}

_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][\w.:-]*)\s*\}\}")


@dataclass(frozen=True, slots=True)
class Placeholder:
    """One ``{{...}}`` name in a template: its kind, target name and exact span."""

    span: Span  # the name inside the braces
    text: str  # as written, e.g. ``fragments.greeting``
    name: str  # the target name, e.g. ``greeting``
    kind: str  # 'variable' | 'fragment' | 'artifact'
    defined: bool
    owner: str  # the prompt key, or ``fragments.<key>``


def _templates(pack: Pack) -> Iterator[tuple[str, Template, set[str]]]:
    all_vars: set[str] = set()
    for prompt in pack.prompts.values():
        declared = {v.name.text for v in prompt.variables if v.name is not None}
        all_vars |= declared
        for template in prompt.templates():
            yield prompt.key, template, declared
    for fragment in pack.fragments.values():
        if fragment.template is not None:
            yield f"fragments.{fragment.key}", fragment.template, all_vars


def artifact_names(pack: Pack) -> set[str]:
    names: set[str] = set()
    if pack.workflow is not None:
        for state in pack.workflow.states.values():
            names.update(state.artifacts)
    return names


def classify(text: str, declared: set[str], pack: Pack, artifacts: set[str]
             ) -> tuple[str, str, bool]:
    """(kind, target name, defined) of a placeholder written ``text``."""
    for prefix in ("fragments.", "fragment:"):
        if text.startswith(prefix):
            name = text[len(prefix):]
            return "fragment", name, name in pack.fragments
    if text.startswith("artifacts."):
        name = text[len("artifacts."):]
        return "artifact", name, name in artifacts
    if text in declared:
        return "variable", text, True
    if text in pack.fragments:
        return "fragment", text, True
    return "variable", text, False


def placeholders(analysis: Analysis) -> list[Placeholder]:
    """Every placeholder of every template in the pack, in document order."""
    pack = analysis.pack
    if pack is None:
        return []
    artifacts = artifact_names(pack)
    out: list[Placeholder] = []
    for owner, template, declared in _templates(pack):
        if "{{" not in template.text:
            continue
        smap = scalar_map(template.node, analysis.text)
        for match in _PLACEHOLDER.finditer(template.text):
            span = smap.span_of(match.start(1), match.end(1))
            kind, name, defined = classify(match.group(1), declared, pack, artifacts)
            out.append(Placeholder(span, match.group(1), name, kind, defined, owner))
    out.sort(key=lambda p: p.span.start)
    return out


def placeholder_at(analysis: Analysis, offset: int) -> Placeholder | None:
    for p in placeholders(analysis):
        if p.span.contains(offset):
            return p
    return None


@dataclass(frozen=True, slots=True)
class Token:
    line: int
    start: int  # code points in the line
    length: int  # code points
    type: int
    modifiers: int


def tokens(analysis: Analysis) -> list[Token]:
    """Semantic tokens for placeholders (one line each; multi-line ones are skipped)."""
    out: list[Token] = []
    lines = analysis.lines
    for p in placeholders(analysis):
        start = lines.position(p.span.start)
        end = lines.position(p.span.end)
        if start.line != end.line or p.span.length == 0:
            continue
        out.append(Token(start.line, start.character, end.character - start.character,
                         KIND_TOKEN[p.kind], 0 if p.defined else 1))
    return out
