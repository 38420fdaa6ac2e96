"""The completion item every completion feature returns (packs and manifests)."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from pack_lsp.core.base.text import Span


class CompletionKind(enum.StrEnum):
    """What a completion item inserts; the server maps each kind to an LSP item kind."""

    PROPERTY = "property"  # a schema key
    VALUE = "value"  # an enum value, a documented example or a boolean
    PROMPT = "prompt"
    TOOL = "tool"  # a pack tool or a tool pattern
    MEMBER = "member"  # an agent member
    STATE = "state"  # a workflow state
    VARIABLE = "variable"  # a template variable
    FRAGMENT = "fragment"
    ARTIFACT = "artifact"  # a workflow artifact
    SNIPPET = "snippet"  # a multi-line snippet with tab stops
    COMPOSITION = "composition"
    PROVIDER = "provider"  # a provider requirement
    STEP = "step"  # a step of a composition
    EVAL = "eval"
    VALIDATOR = "validator"
    EXTENSION = "extension"  # an agent-extension id (manifests)


@dataclass(frozen=True, slots=True)
class Completion:
    label: str
    kind: CompletionKind
    detail: str = ""
    documentation: str = ""
    insert_text: str | None = None
    snippet: bool = False  # insert_text holds ${n:...} tab stops
    replace: Span | None = None
    sort: str = ""
