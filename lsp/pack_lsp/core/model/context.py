"""What a semantic check receives, and the data derived from a pack for rules and features."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeVar, cast

from pack_lsp.core.base.diagnostics import Diagnostic, Related
from pack_lsp.core.base.text import LineIndex, Span
from pack_lsp.core.model.config import Config
from pack_lsp.core.model.pack import Pack
from pack_lsp.core.model.recording import (
    TARGET,
    FrozenReads,
    Reads,
    RecordedPack,
    RecordedTemplates,
)
from pack_lsp.core.model.summary import PackSummary
from pack_lsp.core.model.templates import PackTemplates, TemplateScans, pack_templates
from pack_lsp.core.syntax import reuse
from pack_lsp.core.syntax.yamltree import Node

if TYPE_CHECKING:
    from pack_lsp.core.base.versions import Target

T = TypeVar("T")

#: ``Derived._templates`` before the scan.
_PENDING = object()


class Derived:
    """Data derived from one analysed document, shared by the rules and the features.

    One object per analysis, shared by the rules (through ``CheckContext``) and the
    editor features (through ``Analysis``), so the templates of a pack are scanned
    once however many rules and features read them. It lives and dies with its
    analysis: no global cache keyed by identity.

    What is cheap is computed when the object is made. The template scan
    (``templates``) is computed once, under this object's own lock: the analysis
    thread asks for it right after handing the structure of the version to the
    server's event loop (``analysis.structure_listener``), so a request answered from
    the structure (completion in a ``tools`` list, say) does not wait for a scan it
    does not read; a request that reads the templates first computes them itself
    and the analysis thread then waits for that value, for this document only
    (``functools.cached_property`` took one lock shared by every instance on Python
    3.11). What is too costly to compute on every edit and only read by editor
    features (the symbol index of ``core.language.index``) is added by the layers
    above with ``memo``, the same way.

    ``previous``, the ``Derived`` of an earlier version of the same document, lets
    the template scans of unchanged templates be reused (``TemplateScans``).
    """

    __slots__ = (
        "__weakref__",
        "_lock",
        "_memo",
        "_previous_scans",
        "_templates",
        "config",
        "pack",
        "text",
    )

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
        self._lock = threading.RLock()
        # What this version may reuse of ``previous`` (its template scans), taken
        # now so that ``previous`` itself is not kept alive; dropped once used. A
        # version without a pack keeps them for the next version: one with a
        # syntax error has no pack, and the version after it should not start
        # from nothing.
        self._previous_scans = previous.template_scans() if previous is not None else None
        self._templates: PackTemplates | object | None = _PENDING if pack is not None else None

    @property
    def templates(self) -> PackTemplates | None:
        """The pack's templates and placeholders (``None`` without a pack),
        scanned on first use under this object's lock."""
        templates = self._templates
        if templates is _PENDING:
            with self._lock:
                if self._templates is _PENDING:
                    self._templates = self._scan()
                templates = self._templates
        return cast("PackTemplates | None", templates)

    def _scan(self) -> PackTemplates:
        pack = self.pack
        assert pack is not None
        scans, self._previous_scans = self._previous_scans, None
        dialect = self.config.fragment_dialect
        templates = pack_templates(pack, self.text, dialect, scans)
        if scans is not None and reuse.mode() == reuse.VERIFY:
            fresh = pack_templates(pack, self.text, dialect)
            reuse.verify("template scans", "the pack", _scan_facts(templates), _scan_facts(fresh))
        return templates

    def template_scans(self) -> TemplateScans | None:
        """The template scans a later version of the document can reuse.

        This version's own when it has a pack; otherwise those it was given itself.
        """
        templates = self.templates
        if templates is not None:
            return templates.reusable(self.text)
        return self._previous_scans

    def memo(self, key: object, build: Callable[[], T]) -> T:
        """``build()``, computed once per analysis for ``key``.

        The first caller builds it under this object's lock (re-entrant: ``build``
        may ask for another key); a caller in another thread meanwhile waits for that
        value, for this document only. Once built, it is read without the lock.
        """
        try:
            return cast(T, self._memo[key])
        except KeyError:
            pass
        with self._lock:
            if key not in self._memo:
                self._memo[key] = build()
            return cast(T, self._memo[key])


class CheckContext:
    """What a pack-wide check (a rule module's ``check``) receives.

    Made with ``reads`` (``recording.Reads``), it records what the check reads, for
    reusing its results (``core.recording``): the pack and its templates record the
    sections and entries read, ``part`` a top-level section of the plain data,
    ``target`` the targeted version; ``root``, ``data``, ``lines``, ``text`` and
    ``derived`` have no fingerprint, and reading them means the results are never
    reused. ``config`` and ``path`` are those of the analysis (incremental analysis
    only reuses results under the same ones).
    """

    __slots__ = (
        "_data",
        "_derived",
        "_lines",
        "_pack",
        "_reads",
        "_region",
        "_root",
        "_text",
        "config",
        "path",
    )

    def __init__(
        self,
        pack: Pack,
        root: Node | None,
        data: Any,
        config: Config,
        lines: LineIndex,
        text: str,
        path: Path | None,  # the file on disk, when there is one
        derived: Derived,
        reads: Reads | None = None,
        region: Span | None = None,
    ) -> None:
        self._pack = pack
        self._root = root
        self._data = data
        self.config = config
        self._lines = lines
        self._text = text
        self.path = path
        self._derived = derived
        self._reads = reads
        self._region = region

    def _unrecorded(self) -> None:
        if self._reads is not None:
            self._reads.volatile = True

    @property
    def pack(self) -> Pack:
        if self._reads is None:
            return self._pack
        return cast(Pack, RecordedPack(self._pack, self._reads))

    @property
    def root(self) -> Node | None:
        self._unrecorded()
        return self._root

    @property
    def data(self) -> Any:
        self._unrecorded()
        return self._data

    @property
    def lines(self) -> LineIndex:
        self._unrecorded()
        return self._lines

    @property
    def text(self) -> str:
        self._unrecorded()
        return self._text

    @property
    def written(self) -> str:
        """``text`` less the blanks around the pack when it is the shadow of a pack
        embedded in a larger file (``ParseResult.region``): the same text to a reader
        that skips spaces and line breaks around it (JSON), without its length."""
        self._unrecorded()
        region = self._region
        return self._text if region is None else self._text[region.start : region.end]

    @property
    def derived(self) -> Derived:
        self._unrecorded()
        return self._derived

    def part(self, section: str) -> Any:
        """The plain data of the top-level ``section`` (None when absent)."""
        if self._reads is not None:
            self._reads.sections.add(section)
        return self._data.get(section) if isinstance(self._data, dict) else None

    @property
    def target(self) -> Target:
        """The version the pack is checked against."""
        if self._reads is not None:
            self._reads.values[TARGET] = self.target_value
        return self.target_value()

    def target_value(self) -> Target:
        from pack_lsp.core.model.profiles import target_of

        return target_of(self.config, self._data)

    @property
    def templates(self) -> PackTemplates:
        """The pack's templates and placeholders, computed once per analysis."""
        templates = self._derived.templates
        assert templates is not None  # a check context always has a pack
        if self._reads is None:
            return templates
        return cast(
            PackTemplates, RecordedTemplates(templates, self._reads, lambda: templates.context)
        )

    def recording(self, reads: Reads) -> CheckContext:
        """This context for a check whose reads are recorded into ``reads``."""
        return CheckContext(
            self._pack,
            self._root,
            self._data,
            self.config,
            self._lines,
            self._text,
            self.path,
            self._derived,
            reads,
            self._region,
        )

    def template_context(self) -> object:
        """The template context of this version (a value ``Reads`` may list)."""
        templates = self._derived.templates
        return templates.context if templates is not None else None


# ------------------------------------------------------------ per-prompt rule results

PromptUnit = tuple[tuple[Diagnostic, ...], ...]
"""What the per-prompt parts of the rules found in one prompt: one tuple per rule
module that has a per-prompt part (``registry.PROMPT_CHECKS``), in that order."""


def _scan_facts(templates: PackTemplates) -> list[tuple[object, ...]]:
    """What two scans of the same templates must agree on (verify mode)."""
    out: list[tuple[object, ...]] = [(templates.dialect, templates.context)]
    for t in templates.templates:
        smap = t.smap
        out.append(
            (
                t.owner,
                t.key,
                t.template.field,
                t.template.span,
                tuple(t.placeholders),
                tuple(t.unbalanced),
                (smap.value, smap.style, smap.content, smap.exact, smap.reach),
                (tuple(smap.starts), tuple(smap.ends)),
            )
        )
    return out


@dataclass(frozen=True, slots=True)
class RuleUnits:
    """The rule results of one analysis that the next version may reuse.

    ``summary`` is everything the per-prompt parts may read outside the prompt they
    check (``core.summary``): while it is unchanged (spans moved with the text), a
    prompt whose model is unchanged (up to a shift) has the same results (up to the
    same shift). ``pack`` holds, per module with a pack-wide part, what that part
    read (``core.recording``), the fingerprint of it (None: never reusable) and the
    part's results.
    """

    summary: PackSummary | None
    prompts: Mapping[str, PromptUnit]
    pack: Mapping[str, PackUnit] = field(default_factory=lambda: MappingProxyType({}))


PackUnit = tuple[FrozenReads, tuple[object, ...] | None, tuple[Diagnostic, ...]]
"""What a pack-wide part read, the fingerprint of it and the part's results."""


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
    changed: tuple[int, ...] = ()
    """The old ``[start, end)`` of the text that did change (the common prefix and
    suffix of the two versions), within the block; empty: the whole block. What is
    compared across the edit (the pack summary) is compared with this finer map;
    results keep the block's (``moved``), so a reused result never points into the
    re-parsed block."""

    def compared(self) -> tuple[int, int, int]:
        """``(start, end, delta)`` for comparing values across the edit (``same_after``)."""
        if len(self.changed) == 2:
            return self.changed[0], self.changed[1], self.delta
        return self.start, self.end, self.delta

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
        again then) or carries a span in its ``data`` (which could not be moved). The
        spans of its fixes' payloads move with it (``FixData.moved``)."""
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
                fixes = d.fixes
                if fixes:
                    shifted = [f.moved(self.moved_span) for f in fixes]
                    if any(f is None for f in shifted):
                        return None
                    if any(f is not g for f, g in zip(fixes, shifted, strict=True)):
                        fixes = tuple(f for f in shifted if f is not None)
                if span is d.span and related is d.related and fixes is d.fixes:
                    moved.append(d)
                else:
                    moved.append(replace(d, span=span, related=related, fixes=fixes))
            out.append(tuple(moved))
        return tuple(out)
