"""The completion item every completion feature returns (packs and manifests)."""

from __future__ import annotations

from dataclasses import dataclass

from pack_lsp.core.text import Span


@dataclass(frozen=True, slots=True)
class Completion:
    label: str
    kind: str  # property, value, prompt, tool, member, state, variable, fragment, artifact, snippet
    detail: str = ""
    documentation: str = ""
    insert_text: str | None = None
    snippet: bool = False  # insert_text holds ${n:...} tab stops
    replace: Span | None = None
    sort: str = ""
