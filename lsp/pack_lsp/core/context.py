"""What a semantic check receives."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pack_lsp.core.config import Config
from pack_lsp.core.model import Pack
from pack_lsp.core.text import LineIndex
from pack_lsp.core.yamltree import Node


@dataclass(frozen=True, slots=True)
class CheckContext:
    pack: Pack
    root: Node | None
    data: Any
    config: Config
    lines: LineIndex
    text: str
    path: Path | None  # the file on disk, when there is one
