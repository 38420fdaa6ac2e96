"""What a semantic check receives, and the data derived from a pack on first use."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeVar, cast

from pack_lsp.core.config import Config
from pack_lsp.core.diagnostics import Diagnostic, Related
from pack_lsp.core.model import Pack
from pack_lsp.core.templates import PackTemplates, TemplateScans, pack_templates
from pack_lsp.core.text import LineIndex, Span
from pack_lsp.core.yamltree import Node

T = TypeVar("T")


class Derived:
    """Data computed from one analysed document when first asked for.

    One object per analysis, shared by the rules (through ``CheckContext``) and the
    editor features (through ``Analysis``), so the templates of a pack are scanned
    once however many rules and features read them. It lives and dies with its
    analysis: no global cache keyed by identity. Not slotted, so that
    ``cached_property`` can store its results; layers above the core add their own
    derived data with ``memo`` (the symbol index of ``core.language.index``).

    ``previous``, the ``Derived`` of an earlier version of the same document, lets
    the template scans of unchanged templates be reused (``TemplateScans``).
    """

    def __init__(
        self,
        pack: Pack | None,
        text: str,
        config: Config,
        previous: Derived | None = None,
    ) -> None:
        self.pack = pack
        self.text = text
        self.config = config
        self._memo: dict[object, Any] = {}
        # What this version may reuse of ``previous`` (its template scans), taken
        # now so that ``previous`` itself is not kept alive; dropped once used.
        self._previous_scans = previous.template_scans() if previous is not None else None

    @cached_property
    def templates(self) -> PackTemplates | None:
        """The pack's templates and placeholders (``None`` without a pack)."""
        if self.pack is None:
            return None
        result = pack_templates(
            self.pack, self.text, self.config.fragment_dialect, self._previous_scans
        )
        self._previous_scans = None
        return result

    def template_scans(self) -> TemplateScans | None:
        """The template scans a later version of the document can reuse.

        This version's own when its templates were computed; otherwise those it
        was given itself (a version with a syntax error has no pack, and the next
        one should not start from nothing).
        """
        templates = self.__dict__.get("templates")
        if isinstance(templates, PackTemplates):
            return templates.reusable(self.text)
        return self._previous_scans

    def memo(self, key: object, build: Callable[[], T]) -> T:
        """``build()``, computed once per analysis for ``key``."""
        if key not in self._memo:
            self._memo[key] = build()
        return cast(T, self._memo[key])


@dataclass(frozen=True, slots=True)
class CheckContext:
    pack: Pack
    root: Node | None
    data: Any
    config: Config
    lines: LineIndex
    text: str
    path: Path | None  # the file on disk, when there is one
    derived: Derived

    @property
    def templates(self) -> PackTemplates:
        """The pack's templates and placeholders, computed once per analysis."""
        templates = self.derived.templates
        assert templates is not None  # a check context always has a pack
        return templates


# ------------------------------------------------------------ per-prompt rule results

PromptUnit = tuple[tuple[Diagnostic, ...], ...]
"""What the per-prompt parts of the rules found in one prompt: one tuple per rule
module that has a per-prompt part (``registry.PROMPT_CHECKS``), in that order."""


class Same:
    """A part of a fingerprint that equals another only when both hold the very same
    object: incremental analysis shares the plain data of every block an edit did
    not touch, so identity says "unchanged" exactly, without comparing contents
    (plain data would also take ``1``, ``1.0`` and ``true`` for equal)."""

    __slots__ = ("value",)

    def __init__(self, value: object) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Same) and other.value is self.value

    def __hash__(self) -> int:
        return id(self.value)

    def __repr__(self) -> str:
        return f"Same(<{type(self.value).__name__} at {id(self.value):#x}>)"


@dataclass(frozen=True, slots=True)
class RuleUnits:
    """The rule results of one analysis that the next version may reuse.

    ``interface`` is the fingerprint of everything the per-prompt parts read outside
    the prompt they check (one value per module, from its ``prompt_interface``):
    while it is unchanged, a prompt whose model is unchanged (up to a shift) has
    the same results (up to the same shift). ``pack`` holds, per module whose
    pack-wide part declares a ``pack_interface``, that fingerprint (of everything
    the part reads) and the part's results.
    """

    interface: tuple[object, ...]
    prompts: Mapping[str, PromptUnit]
    pack: Mapping[str, tuple[object, tuple[Diagnostic, ...]]] = field(
        default_factory=lambda: MappingProxyType({})
    )


@dataclass(frozen=True, slots=True)
class RuleEdit:
    """What an incremental update changed, for reusing rule results.

    Only the old text's ``[start, end)`` may differ: ``start`` is the end of the
    edited block's key (which is unchanged), ``end`` the old end of the block;
    everything after it moved by ``delta``. ``edited`` is the prompt whose block it
    is (``None`` for another top-level block: then no prompt changed).
    """

    previous: RuleUnits
    """The results of the previous version (under the same configuration and path:
    incremental analysis requires both)."""
    edited: str | None
    start: int
    end: int
    delta: int

    def moved_span(self, span: Span) -> Span | None:
        """``span`` in the new text, or ``None`` when it reaches into the edited block."""
        if span.end <= self.start:
            return span
        if span.start >= self.end:
            return span.shifted(self.delta) if self.delta else span
        return None

    def moved(self, unit: PromptUnit) -> PromptUnit | None:
        """``unit``'s diagnostics in the new text (spans and related spans shifted), or
        ``None`` when one of them points into the edited block (its prompt is checked
        again then) or carries a span in its ``data`` (which could not be moved)."""
        out: list[tuple[Diagnostic, ...]] = []
        for found in unit:
            moved: list[Diagnostic] = []
            for d in found:
                span = self.moved_span(d.span)
                if span is None or any(isinstance(v, Span) for v in d.data.values()):
                    return None
                related = d.related
                if related:
                    spans = [self.moved_span(r.span) for r in related]
                    if any(s is None for s in spans):
                        return None
                    if any(s is not r.span for r, s in zip(related, spans, strict=True)):
                        related = tuple(
                            Related(s, r.message, r.path)
                            for r, s in zip(related, spans, strict=True)
                            if s is not None
                        )
                if span is d.span and related is d.related:
                    moved.append(d)
                else:
                    moved.append(replace(d, span=span, related=related))
            out.append(tuple(moved))
        return tuple(out)
