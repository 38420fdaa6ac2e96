"""Documentation text for the client: Markdown when it takes it, else plain text."""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types


def markup(text: str, formats: Sequence[types.MarkupKind] | None) -> types.MarkupContent | None:
    """``text`` as markup content in a format the client declared (``formats``; None:
    it declared none, so Markdown), or None for no text."""
    if not text:
        return None
    markdown = formats is None or types.MarkupKind.Markdown in formats
    kind = types.MarkupKind.Markdown if markdown else types.MarkupKind.PlainText
    return types.MarkupContent(kind=kind, value=text)
