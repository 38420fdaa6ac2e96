"""What a semantic check receives, and the data derived from a pack on first use."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, TypeVar, cast

from pack_lsp.core.config import Config
from pack_lsp.core.model import Pack
from pack_lsp.core.templates import PackTemplates, pack_templates
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
    """

    def __init__(self, pack: Pack | None, text: str, config: Config) -> None:
        self.pack = pack
        self.text = text
        self.config = config
        self._memo: dict[object, Any] = {}

    @cached_property
    def templates(self) -> PackTemplates | None:
        """The pack's templates and placeholders (``None`` without a pack)."""
        if self.pack is None:
            return None
        return pack_templates(self.pack, self.text, self.config.fragment_dialect)

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
