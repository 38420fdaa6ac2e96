"""Documents of PromptKit arena projects, each checked on its own.

An arena project is the source PromptKit users write and ``packc compile`` turns
into a pack: ``config.arena.yaml`` (kind ``Arena``) naming, by file path, the
``PromptConfig`` files (the prompts), tools, scenarios, providers, personas and
evals. Every such file is a Kubernetes-style document: ``apiVersion`` in a
PromptKit API group, ``kind``, ``metadata`` and ``spec``.

pack-lsp has one document kind for all of them (``kinds.ARENA``); which PromptKit
kind a document is comes from its own ``kind`` key (``ArenaDocument``), and selects
the schema it is validated against (``schemas/promptkit-v1alpha1/``, validated by
the same machinery as packs, ``core.schema``). A document that declares no kind,
or one PromptKit does not load, gets one diagnostic (PA001, PA002) and nothing else.

The two kinds of PromptKit's template packages are known too and checked against
their own schemas (``schemas/promptkit-templates/``): ``Template``, the
``template.yaml`` ``promptarena init`` instantiates, and ``TemplateIndex``, the
``index.yaml`` of a template registry. promptarena reads both into typed structures
that ignore keys they do not know, so an unknown key there is a warning.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from typing import Any

from pack_lsp.core.base.arena_schemas import OTHER_KINDS, SCHEMAS, TEMPLATE_SCHEMAS, schema_of
from pack_lsp.core.base.diagnostics import Diagnostic, Severity, make
from pack_lsp.core.base.fixes import suggest
from pack_lsp.core.base.problemdata import ArenaKindUnknown
from pack_lsp.core.base.problems.arena_documents import MISSING_KIND, UNKNOWN_KIND
from pack_lsp.core.base.problems.schema import UNKNOWN_PROPERTY
from pack_lsp.core.base.suggest import hint_for, suggestions
from pack_lsp.core.base.text import Span
from pack_lsp.core.model.schema import SchemaValidator
from pack_lsp.core.syntax.yamltree import MappingNode, Node, ScalarNode, deref

#: The API version PromptKit writes and documents.
API_VERSION = "promptkit.altairalabs.ai/v1alpha1"

KINDS = tuple(SCHEMAS)
#: The kinds of template packages (``promptarena init``'s ``Template``, a registry's
#: ``TemplateIndex``): known, checked against their own schemas.
TEMPLATE_KINDS = tuple(TEMPLATE_SCHEMAS)

#: Kinds PromptKit reads without validating them against its schema: it ignores an
#: unknown key there, so one is a warning (it has no effect), not an error.
LENIENT_KINDS = frozenset({"Persona", *TEMPLATE_KINDS})

#: Kinds promptarena compares without case: a registry's index is read whatever the
#: case of its kind (``strings.EqualFold`` in promptarena's arena/templates/registry.go
#: at e90d58d); every other kind must be written exactly.
_FOLDED_KINDS = {"templateindex": "TemplateIndex"}

#: How the schema machinery's words for a pack read for an arena document.
_WORDING = (
    ("in the pack root", "at the top of the document"),
    ("in the pack", "in the document"),
    ("The pack root", "The document"),
    ("the pack root", "the top of the document"),
)


@dataclass(frozen=True, slots=True)
class ArenaDocument:
    """What a document of an arena project says it is."""

    kind: str
    """The declared PromptKit kind as written ('' when there is none), or in its own
    spelling for a kind PromptKit compares without case (``_FOLDED_KINDS``)."""
    kind_span: Span | None
    """Where the kind's value is (None when there is none)."""
    api_version: str

    @property
    def known(self) -> bool:
        """Whether PromptKit loads documents of this kind."""
        return self.kind in SCHEMAS or self.kind in TEMPLATE_SCHEMAS


def read_document(root: Node | None) -> ArenaDocument:
    """The kind and API version a document's top level declares."""
    top = deref(root)
    if not isinstance(top, MappingNode):
        return ArenaDocument("", None, "")
    kind = deref(top.get("kind"))
    api = deref(top.get("apiVersion"))
    api_version = str(api.value) if isinstance(api, ScalarNode) and api.value is not None else ""
    if not isinstance(kind, ScalarNode) or kind.value is None:
        return ArenaDocument("", None, api_version)
    value = kind.value if isinstance(kind.value, str) else str(kind.value)
    return ArenaDocument(_FOLDED_KINDS.get(value.casefold(), value), kind.span, api_version)


@functools.cache
def validator(kind: str) -> SchemaValidator:
    """The schema validator of ``kind`` (which must be one of ``KINDS``)."""
    schema = schema_of(kind)
    if schema is None:
        raise KeyError(kind)
    return SchemaValidator(schema, _WORDING)


def check_document(
    root: Node | None, data: Any, *, schema: bool = True
) -> tuple[ArenaDocument, list[Diagnostic]]:
    """The document's declared kind and its diagnostics: PA001/PA002 when the kind
    is missing or unknown, else (with ``schema``) its schema problems."""
    document = read_document(root)
    if not document.kind:
        top = deref(root)
        span = _first_key(top) if isinstance(top, MappingNode) else Span(0, 0)
        message = "This PromptKit document declares no `kind`; add one of " + ", ".join(
            f"`{k}`" for k in KINDS
        )
        return document, [make(MISSING_KIND, message, span)]
    if document.kind in OTHER_KINDS:
        return document, []
    if not document.known:
        found = suggestions(document.kind, (*KINDS, *sorted(OTHER_KINDS), *TEMPLATE_KINDS))
        span = document.kind_span or Span(0, 0)
        message = (
            f"Unknown PromptKit kind `{document.kind}`: an arena project's documents are "
            + ", ".join(f"`{k}`" for k in KINDS)
            + " (and PromptKit also reads "
            + " and ".join(f"`{k}`" for k in sorted(OTHER_KINDS))
            + " files, and the "
            + " and ".join(f"`{k}`" for k in TEMPLATE_KINDS)
            + " of template packages)"
            + hint_for(found)
        )
        return document, [
            make(
                UNKNOWN_KIND,
                message,
                span,
                data=ArenaKindUnknown(name=document.kind),
                fixes=suggest(span, found),
            )
        ]
    if not schema:
        return document, []
    if isinstance(data, dict) and data.get("kind") != document.kind:
        data = {**data, "kind": document.kind}  # a kind read without case
    found_schema = validator(document.kind).validate(root, data)
    if document.kind in LENIENT_KINDS:
        found_schema = [_ignored(d) if d.code == UNKNOWN_PROPERTY.code else d for d in found_schema]
    return document, found_schema


def _ignored(diag: Diagnostic) -> Diagnostic:
    """An unknown key of a kind PromptKit reads leniently: it ignores the key."""
    return replace(
        diag,
        severity=Severity.WARNING,
        message=f"{diag.message} (PromptKit ignores it: it has no effect)",
    )


def _first_key(top: MappingNode) -> Span:
    return top.pairs[0].key.span if top.pairs else Span(0, 0)
