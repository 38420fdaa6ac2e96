"""The one place where core spans become LSP positions and back.

The core counts code points; LSP counts UTF-16 code units by default, or UTF-8 /
UTF-32 when negotiated through ``general.positionEncodings``.
"""

from __future__ import annotations

from lsprotocol import types

from pack_lsp.core.base.text import LineIndex, Position, Span


class PositionConverter:
    def __init__(self, encoding: str | None) -> None:
        enc = str(encoding or types.PositionEncodingKind.Utf16)
        if enc not in ("utf-8", "utf-16", "utf-32"):
            enc = "utf-16"
        self.encoding = enc

    def _units(self, text: str) -> int:
        if self.encoding == "utf-32" or text.isascii():
            return len(text)
        if self.encoding == "utf-8":
            return len(text.encode("utf-8"))
        return len(text.encode("utf-16-le")) // 2

    def line_character(self, lines: LineIndex, offset: int) -> tuple[int, int]:
        """The LSP line and character of a code-point offset."""
        pos = lines.position(offset)
        if pos.character == 0:
            return pos.line, 0
        start = lines.line_start(pos.line)
        return pos.line, self._units(lines.text[start : start + pos.character])

    def to_lsp(self, lines: LineIndex, offset: int) -> types.Position:
        line, character = self.line_character(lines, offset)
        return types.Position(line=line, character=character)

    def range(self, lines: LineIndex, span: Span) -> types.Range:
        return types.Range(start=self.to_lsp(lines, span.start), end=self.to_lsp(lines, span.end))

    def range_json(self, lines: LineIndex, span: Span) -> dict[str, dict[str, int]]:
        """``range`` as the JSON of an LSP ``Range`` (for messages built as JSON)."""
        line, character = self.line_character(lines, span.start)
        start = {"line": line, "character": character}
        if span.end == span.start:
            return {"start": start, "end": dict(start)}
        line, character = self.line_character(lines, span.end)
        return {"start": start, "end": {"line": line, "character": character}}

    def from_lsp(self, lines: LineIndex, position: types.Position) -> int:
        """Code-point offset of an LSP position (clamped to the line)."""
        if position.line >= lines.line_count:
            return len(lines.text)
        line = lines.line_text(position.line)
        units = position.character
        if self.encoding == "utf-32" or line.isascii():
            chars = min(units, len(line))
        else:
            chars = 0
            count = 0
            for ch in line:
                width = (
                    len(ch.encode("utf-8"))
                    if self.encoding == "utf-8"
                    else (2 if ord(ch) > 0xFFFF else 1)
                )
                if count + width > units:
                    break
                count += width
                chars += 1
        return lines.offset(Position(position.line, chars))
