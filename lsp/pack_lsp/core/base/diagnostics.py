"""Diagnostic data and rule declarations.

A ``Diagnostic`` is frozen data: a stable code, an effective severity, a plain-words
message, the span at fault, related locations, tags, optional ``data`` (plain facts
about the problem, sent to LSP clients as the diagnostic's ``data``) and the typed
payloads of the quick fixes it offers (``fixes``, see ``core/base/fixes.py``). Each code
is declared once as a ``Rule`` constant in its family's module under
``pack_lsp.core.checks.rules``; ``make(RULE, ...)`` takes that object, so the default
severity travels with it and building a diagnostic needs no table lookup. This
module imports nothing but ``core.text`` and ``core.fixes``: the lowest layers (the
YAML composer) can build diagnostics without loading the rules that check the pack
model.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from pack_lsp.core.base.fixes import FixData, FixKind
from pack_lsp.core.base.problemdata import ProblemData
from pack_lsp.core.base.text import Span

__all__ = [
    "Diagnostic",
    "ExampleKind",
    "FixData",
    "FixKind",
    "Related",
    "Rule",
    "Severity",
    "Tag",
    "make",
]


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


class ExampleKind(enum.Enum):
    """What a rule's ``example`` is, so that it can be run (``core/checks/examples.py``)."""

    PACK = "pack"
    """A whole PromptPack in YAML, checked as ``example/pack.promptpack.yaml``."""
    PACK_JSON = "pack-json"
    """A whole PromptPack in JSON, checked as ``example/pack.promptpack.json``."""
    PACK_BYTES = "pack-bytes"
    """A YAML pack whose ``\\xNN`` escapes stand for raw bytes (an encoding fault)."""
    MANIFEST = "manifest"
    """An agent-extension manifest, checked as ``<id>/manifest.yaml`` (in the folder
    named after its id, as yodoca wants) unless it starts with a
    ``# <folder>/manifest.yaml`` comment. Further documents (after a ``---`` line) are
    other manifests of its workspace, each starting with such a comment."""
    KUBERNETES = "kubernetes"
    """A YAML file named on the command line (``example/resources.yaml``), recognised as
    ``pack-lsp --check`` recognises it: Kubernetes manifests, schemas, ..."""
    ARENA_PROJECT = "arena-project"
    """An arena project: the arena config first (checked as ``example/config.arena.yaml``),
    then, after ``---`` lines, the files it names, each starting with a ``# <path>``
    comment giving its path relative to the config."""
    ARENA = "arena"
    """A document of a PromptKit arena project, checked as ``example/document.yaml``."""
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
    safe_fixes: tuple[FixKind, ...] = ()
    """The kinds of ``fixes`` that ``pack-lsp --check --fix`` applies without review:
    they keep what the pack means and only correct how it is written. The others are
    unsafe (applied with ``--unsafe-fixes``). A did-you-mean replacement declared safe
    is applied only when its suggestion is unique and close (``core/ide/fixsafety.py``)."""
    example_kind: ExampleKind = ExampleKind.PACK
    example_config: str = ""
    """TOML text of the ``.pack-lsp.toml`` the example is checked with."""


_EMPTY: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """A problem found in a document: rule code, severity, message, where, fixes."""

    code: str
    severity: Severity
    message: str
    span: Span
    related: tuple[Related, ...] = ()
    tags: tuple[Tag, ...] = ()
    data: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    fixes: tuple[FixData, ...] = ()
    """What each quick fix offered for this diagnostic needs, in the order shown."""

    def with_severity(self, severity: Severity) -> Diagnostic:
        return replace(self, severity=severity)

    def shifted(self, delta: int) -> Diagnostic:
        """The diagnostic after text before it grew by ``delta`` characters: its span
        and the spans of its fixes' payloads moved (related locations stay)."""
        if not delta:
            return self
        fixes = tuple(f.moved(lambda s: s.shifted(delta)) or f for f in self.fixes)
        return replace(self, span=self.span.shifted(delta), fixes=fixes)

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
    fixes: Iterable[FixData] = (),
) -> Diagnostic:
    """Build a diagnostic of ``rule`` with the rule's default severity.

    ``fixes`` are the payloads of the quick fixes offered; each one's kind must be
    among ``rule.fixes`` (a test checks it). ``data`` is a ``ProblemData`` of
    ``core/base/problemdata.py``, or a dict with a ``"kind"``; either is kept as the
    plain mapping sent to editors.
    """
    if isinstance(data, ProblemData):
        plain: Mapping[str, Any] = MappingProxyType(data.plain())
    elif data:
        plain = MappingProxyType(dict(data))
    else:
        plain = _EMPTY
    return Diagnostic(
        code=rule.code,
        severity=rule.severity,
        message=message,
        span=span,
        related=tuple(related),
        tags=tuple(tags),
        data=plain,
        fixes=tuple(fixes),
    )
