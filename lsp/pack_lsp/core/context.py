"""What a semantic check receives, and the data derived from a pack on first use."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, TypeVar, cast

from pack_lsp.core.config import Config
from pack_lsp.core.model import Pack
from pack_lsp.core.templates import PackTemplates, TemplateScans, pack_templates
from pack_lsp.core.text import LineIndex
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
