"""Placeholders as the editor shows them: semantic tokens, and what hover reads.

Placeholders are found by ``pack_lsp.core.model.templates`` (the one scanner; dialect
from the configuration's ``fragment_dialect``, block helpers, exact spans); this
module only decides, for each of them, the span to colour and whether its target
is defined:

- a *variable* is defined when the owning prompt declares it in ``variables``; in a
  fragment, when a prompt including the fragment (directly or through other
  fragments) declares it, or any prompt if no prompt includes the fragment. A
  variable inside ``{{#each}}``/``{{#with}}`` may name a field of the item, so it
  is never marked undefined;
- a *fragment* (``{{fragments.x}}``, ``{{fragment:x}}``, or a bare ``{{x}}`` in the
  ``promptkit`` dialect) is defined when ``x`` is a key of ``fragments``;
- an *artifact* (``{{artifacts.x}}``) is defined when some workflow state declares
  ``x`` in its ``artifacts``.

``unknown`` placeholders (``{{this}}``, expressions) and template syntax
(``{{/if}}``, ``{{else}}``) get no token. The token covers the reference as written:
``user_name`` (also in ``{{user_name.first}}`` or ``{{#if user_name}}``),
``fragments.greeting``, ``fragment:greeting``, ``artifacts.diff``.
"""

from __future__ import annotations

from dataclasses import dataclass

from pack_lsp.core.base.text import Span
from pack_lsp.core.checks.analysis import Analysis
from pack_lsp.core.ide import templates_for
from pack_lsp.core.model.pack import Pack
from pack_lsp.core.model.templates import (
    PackTemplates,
    Placeholder,
    TemplateInfo,
    artifact_names,
    implicit_variables,
    workflow_tasks,
)

__all__ = [
    "KIND_TOKEN",
    "TOKEN_MODIFIERS",
    "TOKEN_TYPES",
    "ResolvedPlaceholder",
    "Token",
    "placeholder_at",
    "resolved_placeholders",
    "tokens",
]

TOKEN_TYPES = ("variable", "macro", "property")
TOKEN_MODIFIERS = ("undefined",)

KIND_TOKEN = {"variable": 0, "fragment": 1, "artifact": 2}

#: ``Placeholder.syntax`` values written as a prefix before the name.
_PREFIXES = ("fragments.", "fragment:", "artifacts.")


@dataclass(frozen=True, slots=True)
class ResolvedPlaceholder:
    """A variable, fragment or artifact placeholder with what it refers to.

    ``span`` is the reference as written (see the module docstring); ``prompts`` are
    the keys of the prompts whose ``variables`` the placeholder is looked up in.
    """

    info: TemplateInfo
    placeholder: Placeholder
    span: Span
    defined: bool
    prompts: tuple[str, ...]

    @property
    def kind(self) -> str:
        return self.placeholder.kind

    @property
    def name(self) -> str:
        return self.placeholder.name


class _Resolver:
    """What is defined in a pack, for resolving its placeholders."""

    def __init__(self, pack: Pack, templates: PackTemplates) -> None:
        self.pack = pack
        self.artifacts = artifact_names(pack)
        self.declared: dict[str, set[str]] = {
            key: {v.name.text for v in prompt.variables if v.name is not None}
            for key, prompt in pack.prompts.items()
        }
        tasks = workflow_tasks(pack)
        for key in self.declared:
            self.declared[key] |= implicit_variables(key, tasks)
        self.users: dict[str, list[str]] = {}
        for key in pack.prompts:
            for name in templates.fragments_included_by(key):
                self.users.setdefault(name, []).append(key)

    def resolve(self, info: TemplateInfo, p: Placeholder) -> ResolvedPlaceholder | None:
        if p.kind == "unknown" or not p.name:
            return None
        if info.owner == "prompt":
            prompts: tuple[str, ...] = (info.key,)
        else:
            prompts = tuple(self.users.get(info.key, ())) or tuple(self.pack.prompts)
        if p.kind == "fragment":
            defined = p.name in self.pack.fragments
        elif p.kind == "artifact":
            defined = p.name in self.artifacts
        else:
            defined = p.scoped or any(p.name in self.declared.get(k, ()) for k in prompts)
        return ResolvedPlaceholder(info, p, _reference_span(info, p), defined, prompts)


def _reference_span(info: TemplateInfo, p: Placeholder) -> Span:
    """The name with its ``fragments.``/``fragment:``/``artifacts.`` prefix, if any."""
    if p.syntax in _PREFIXES:
        at = info.template.text.rfind(p.syntax, p.start, p.name_start)
        if at >= 0:
            return info.smap.span_of(at, p.name_end)
    return p.name_span


def resolved_placeholders(analysis: Analysis) -> list[ResolvedPlaceholder]:
    """Every variable, fragment and artifact placeholder, in document order."""
    templates = templates_for(analysis)
    if analysis.pack is None or templates is None:
        return []
    resolver = _Resolver(analysis.pack, templates)
    out = [
        r
        for info in templates.templates
        for p in info.placeholders
        if (r := resolver.resolve(info, p)) is not None
    ]
    out.sort(key=lambda r: r.span.start)
    return out


def placeholder_at(analysis: Analysis, offset: int) -> ResolvedPlaceholder | None:
    """The placeholder whose ``{{...}}`` holds ``offset`` (``None`` for ``unknown``)."""
    templates = templates_for(analysis)
    if analysis.pack is None or templates is None:
        return None
    found = templates.at(offset)
    if found is None:
        return None
    return _Resolver(analysis.pack, templates).resolve(*found)


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
    for r in resolved_placeholders(analysis):
        start = lines.position(r.span.start)
        end = lines.position(r.span.end)
        if start.line != end.line or r.span.length == 0:
            continue
        out.append(
            Token(
                start.line,
                start.character,
                end.character - start.character,
                KIND_TOKEN[r.kind],
                0 if r.defined else 1,
            )
        )
    return out
