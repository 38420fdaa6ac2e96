"""The server's copy of a document stays the client's: LSP line breaks only, stale
or out-of-range changes refused with a log, unopened non-regular files never read."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from lsp_helpers import diagnostics_for, encoding_of, open_doc, units
from lsprotocol import types
from pytest_lsp import LanguageClient

from pack_lsp.core.base.text import LineIndex
from pack_lsp.core.checks.analysis import analyze
from pack_lsp.core.model.recognize import detect

#: U+2028, U+2029 and NEL are line breaks for str.splitlines, not for LSP (and, unlike
#: form feed, valid inside YAML text, so the pack stays analysable).
TEXT = (
    "id: demo\n"
    'name: "a\u2028b\u2029c\u0085d"  # \u2028 \u0085\n'
    "version: 1.0.0\n"
    'template_engine: {version: v1, syntax: "{{variable}}"}\n'
    "prompts:\n"
    "  p: {id: p, name: P, version: 1.0.0, system_template: Hi, tools: x}"
)


def _position(client: LanguageClient, text: str, offset: int) -> types.Position:
    lines = LineIndex(text)
    at = lines.position(offset)
    start = lines.line_start(at.line)
    return types.Position(line=at.line, character=units(text[start:offset], encoding_of(client)))


def _change(
    client: LanguageClient,
    uri: str,
    version: int,
    start: types.Position,
    end: types.Position,
    new: str,
) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(start=start, end=end), text=new
                )
            ],
        )
    )


def _expected(path: Path, text: str) -> list[tuple[str, int, int]]:
    result = analyze(text, path=str(path), kind=detect(str(path), text))
    starts = [(d.code, result.lines.position(d.span.start)) for d in result.diagnostics]
    return sorted((code, at.line, at.character) for code, at in starts)


def _got(
    client: LanguageClient, text: str, diags: list[types.Diagnostic]
) -> list[tuple[str, int, int]]:
    lines = LineIndex(text)
    out = []
    for d in diags:
        line = lines.line_text(d.range.start.line)
        chars, count = 0, 0
        for ch in line:
            if count >= d.range.start.character:
                break
            count += units(ch, encoding_of(client))
            chars += 1
        out.append((str(d.code), d.range.start.line, chars))
    return sorted(out)


async def test_edits_after_unicode_line_separators_land_in_place(
    client: LanguageClient, tmp_path: Path
) -> None:
    path = tmp_path / "demo.promptpack.yaml"
    uri = await open_doc(client, path, TEXT, wait=False)
    await diagnostics_for(client, uri, 1)
    text = TEXT
    # Right after U+2029 and after NEL on line 1, and past the end of the last line
    # (no final newline): a character beyond the line end means the line end.
    edits = [
        (text.index("\u2029") + 1, 0, "Z"),
        (text.index("\u0085") + 1, 1, ""),
        (len(text), 0, " # end 😀"),
    ]
    version = 1
    for offset, length, new in edits:
        version += 1
        start = _position(client, text, offset)
        end = _position(client, text, offset + length)
        if offset == len(text):
            start = end = types.Position(line=start.line, character=start.character + 40)
        _change(client, uri, version, start, end, new)
        text = text[:offset] + new + text[offset + length :]
    diags = await diagnostics_for(client, uri, version)
    assert _got(client, text, diags) == _expected(path, text)
    assert [str(d.code) for d in diags] == ["PP103"]


async def test_stale_and_out_of_range_changes_are_refused_and_logged(
    client: LanguageClient, tmp_path: Path
) -> None:
    path = tmp_path / "demo.promptpack.yaml"
    uri = await open_doc(client, path, TEXT, wait=False)
    await diagnostics_for(client, uri, 1)
    fix = _position(client, TEXT, TEXT.index("tools: x") + len("tools: "))
    _change(client, uri, 3, fix, types.Position(line=fix.line, character=fix.character + 1), "[]")
    assert await diagnostics_for(client, uri, 3) == []
    # An older version: not applied (it would bring PP103 back), logged.
    _change(client, uri, 2, fix, fix, "zzz")
    # A range beyond the last line: not applied, logged, never guessed.
    far = types.Position(line=99, character=0)
    _change(client, uri, 4, far, far, "bogus: 1\n")
    while (
        sum(
            "ignored a change" in m.message or "ignored change" in m.message
            for m in client.log_messages
        )
        < 2
    ):
        await client.wait_for_notification(types.WINDOW_LOG_MESSAGE)
    logs = [m.message for m in client.log_messages if "ignored" in m.message]
    assert "version 2 is not newer than version 3" in logs[0]
    assert "outside the document" in logs[1]
    # The last good text (version 3) is what the server analyses.
    _change(
        client, uri, 5, types.Position(line=0, character=0), types.Position(line=0, character=0), ""
    )
    assert await diagnostics_for(client, uri, 5) == []


async def test_requests_for_an_unopened_fifo_do_not_hang(
    client: LanguageClient, tmp_path: Path
) -> None:
    fifo = tmp_path / "x.pack.json"
    os.mkfifo(fifo)
    hover = client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=fifo.as_uri()),
            position=types.Position(line=0, character=0),
        )
    )
    assert await asyncio.wait_for(hover, timeout=30) is None
