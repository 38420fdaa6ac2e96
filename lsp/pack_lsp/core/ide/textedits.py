"""Text edits and how a name is written as a YAML or JSON scalar.

Shared by rename and the quick fixes (``codeactions``), and light to import: the
``--check --format json`` path turns fixes into text edits without loading the
symbol index that rename needs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass

from pack_lsp.core.base.text import Span
from pack_lsp.core.syntax.yamltree.resolution import resolve_plain

_PLAIN_SAFE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_./-]*$")


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace the characters of ``span`` with ``text`` (an insertion when empty)."""

    span: Span
    text: str


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    """Apply non-overlapping edits (in any order) to ``text``."""
    ordered = sorted(edits, key=lambda e: (e.span.start, e.span.end))
    out: list[str] = []
    pos = 0
    for edit in ordered:
        if edit.span.start < pos:
            raise ValueError(f"overlapping edits at offset {edit.span.start}")
        out.append(text[pos : edit.span.start])
        out.append(edit.text)
        pos = edit.span.end
    out.append(text[pos:])
    return "".join(out)


def _escape_double(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)[1:-1]


def _plain_ok(value: str) -> bool:
    return bool(_PLAIN_SAFE.match(value)) and isinstance(resolve_plain(value), str)


def quote_like(text: str, span: Span, value: str) -> str:
    """``value`` written as a scalar in the quote style of the scalar at ``span``."""
    quote = text[span.start] if span.length and text[span.start] in "\"'" else ""
    if quote == "'":
        return "'" + value.replace("'", "''") + "'"
    if quote == '"' or not _plain_ok(value):
        return '"' + _escape_double(value) + '"'
    return value
