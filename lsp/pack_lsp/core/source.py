"""Turning file bytes into analysable text."""

from __future__ import annotations

from pack_lsp.core.diagnostics import Diagnostic, make
from pack_lsp.core.rules.document import INVALID_ENCODING
from pack_lsp.core.text import Span

BOM = "\ufeff"


def decode(raw: bytes) -> tuple[str, list[Diagnostic]]:
    """Decode UTF-8 (a BOM is accepted and dropped).

    Bytes that are not UTF-8 give one PP002 diagnostic at the first bad byte; the
    text is then decoded with replacement characters so the rest can be analysed.
    """
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        return raw.decode("utf-8"), []
    except UnicodeDecodeError as exc:
        prefix = raw[: exc.start].decode("utf-8", errors="replace")
        text = raw.decode("utf-8", errors="replace")
        offset = len(prefix)
        bad = raw[exc.start : exc.start + 1].hex()
        diag = make(
            INVALID_ENCODING,
            f"The file is not valid UTF-8: byte 0x{bad} at this position cannot be decoded "
            "(save the file as UTF-8)",
            Span(offset, min(offset + 1, len(text))),
            data={"byte_offset": exc.start},
        )
        return text, [diag]


def strip_bom(text: str) -> str:
    return text[1:] if text.startswith(BOM) else text
