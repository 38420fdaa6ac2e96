"""Diagnostic data and rule declarations.

A ``Diagnostic`` is frozen data: a stable code, an effective severity, a plain-words
message, the span at fault, related locations, tags and optional ``data`` that a
quick fix needs. Each code is declared once as a ``Rule`` constant in its family's
module under ``pack_lsp.core.rules``; ``make(RULE, ...)`` takes that object, so the
default severity travels with it and building a diagnostic needs no table lookup.
This module imports nothing but ``core.text``: the lowest layers (the YAML composer)
can build diagnostics without loading the rules that check the pack model.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from pack_lsp.core.text import Span


class Severity(enum.IntEnum):
    """Ordered so that a smaller value is more severe (as in LSP)."""

    ERROR = 1
    WARNING = 2
    INFORMATION = 3
    HINT = 4

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Severity:
        key = text.strip().lower()
        aliases = {"info": "information", "warn": "warning", "note": "information"}
        key = aliases.get(key, key)
        for member in cls:
            if member.label == key:
                return member
        raise ValueError(
            f"unknown severity {text!r}; expected one of error, warning, information, hint"
        )


class FixKind(enum.Enum):
    """A kind of quick fix. Each rule lists the kinds it offers (``Rule.fixes``);
    ``core/language/codeactions.py`` has one handler per kind, and a test keeps the
    two in step. A handler reads the fields it needs from the diagnostic's ``data``
    and offers nothing when they are missing."""

    REPLACE_WITH_SUGGESTION = "replace-with-suggestion"
    """Replace the name at fault with each of ``data["suggestions"]``."""
    REPLACE_VALUE = "replace-value"
    """Replace the value with ``data["replacement"]`` or ``data["expected"]``."""
    RENAME_EVENT = "rename-event"
    """Rename an event to ``data["suggestion"]``."""
    CREATE_TOOL = "create-tool"
    """Add a definition for ``data["name"]`` to the pack's ``tools``."""
    ADD_MEMBER = "add-member"
    """Add ``data["prompt"]`` (or ``data["name"]``) to ``agents.members``."""
    DECLARE_VARIABLE = "declare-variable"
    """Declare ``data["name"]`` in ``data["prompt"]`` (or each of ``data["prompts"]``)."""
    RAISE_SCHEMA = "raise-schema"
    """Set ``$schema`` to ``data["schema_url"]`` (the version ``data["version"]``)."""
    REMOVE_ENTRY = "remove-entry"
    """Delete the entry at ``data["path"]`` when ``data["removable"]`` says it may go."""


class ExampleKind(enum.Enum):
    """What a rule's ``example`` is, so that it can be run (``core/examples.py``)."""

    PACK = "pack"
    """A whole PromptPack in YAML, checked as ``example/pack.promptpack.yaml``."""
    PACK_JSON = "pack-json"
    """A whole PromptPack in JSON, checked as ``example/pack.promptpack.json``."""
    PACK_BYTES = "pack-bytes"
    """A YAML pack whose ``\\xNN`` escapes stand for raw bytes (an encoding fault)."""
    MANIFEST = "manifest"
    """An agent-extension manifest, checked as ``example/manifest.yaml``. Further
    documents (after a ``---`` line) are other manifests of its workspace, each
    starting with a ``# <folder>/manifest.yaml`` comment that says where it is."""
    KUBERNETES = "kubernetes"
    """A YAML file named on the command line (``example/resources.yaml``), recognised as
    ``pack-lsp --check`` recognises it: Kubernetes manifests, schemas, ..."""
    ILLUSTRATIVE = "illustrative"
    """Shown, not run: no document triggers the rule on purpose."""


class Tag(enum.Enum):
    UNNECESSARY = "unnecessary"
    DEPRECATED = "deprecated"


@dataclass(frozen=True, slots=True)
class Related:
    """Another location that explains a diagnostic (e.g. the first of two duplicate keys).

    ``path`` is ``None`` for a location in the same document; cross-file rules (two
    manifests declaring one extension id) set it to the other file, whose own text
    the span is an offset into.
    """

    span: Span
    message: str
    path: str | None = None


@dataclass(frozen=True, slots=True)
class Rule:
    """One diagnostic code, declared and documented.

    ``example`` is a whole document that triggers the rule (a pack unless
    ``example_kind`` says otherwise), as short as a valid document allows;
    ``example_config`` is the ``.pack-lsp.toml`` it is checked with, if any. ``fix``
    says how to resolve it. docs/rules.md shows the example with what pack-lsp
    reports on it, found by running it (docs/decisions.md, D35).
    """

    code: str
    name: str
    severity: Severity
    summary: str
    example: str
    fix: str
    category: str = ""
    fixes: tuple[FixKind, ...] = ()
    """The quick fixes offered for this rule's diagnostics, in the order shown."""
    example_kind: ExampleKind = ExampleKind.PACK
    example_config: str = ""
    """TOML text of the ``.pack-lsp.toml`` the example is checked with."""


_EMPTY: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class Diagnostic:
    code: str
    severity: Severity
    message: str
    span: Span
    related: tuple[Related, ...] = ()
    tags: tuple[Tag, ...] = ()
    data: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)

    def with_severity(self, severity: Severity) -> Diagnostic:
        return replace(self, severity=severity)

    def sort_key(self) -> tuple[int, int, str, str]:
        return (self.span.start, self.span.end, self.code, self.message)


def make(
    rule: Rule,
    message: str,
    span: Span,
    *,
    related: Iterable[Related] = (),
    tags: Iterable[Tag] = (),
    data: Mapping[str, Any] | None = None,
) -> Diagnostic:
    """Build a diagnostic of ``rule`` with the rule's default severity."""
    return Diagnostic(
        code=rule.code,
        severity=rule.severity,
        message=message,
        span=span,
        related=tuple(related),
        tags=tuple(tags),
        data=MappingProxyType(dict(data)) if data else _EMPTY,
    )
