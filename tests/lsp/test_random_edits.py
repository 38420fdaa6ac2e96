"""Seeded random edit sessions through the real server.

The client keeps its own copy of the document, applies every edit with LSP line
breaks (``\\n``, ``\\r\\n``, ``\\r`` only) and computes positions in the negotiated
encoding itself. Edits are sent without waiting for any diagnostics; at the end
the diagnostics of the final version (pushed or pulled, per profile) must equal
the core analysis of the client's copy.
"""

from __future__ import annotations

import asyncio
import os
import random
from pathlib import Path

import pytest
from lsp_helpers import diagnostics_for, encoding_of, open_doc, pulls_diagnostics, units
from lsprotocol import types
from pytest_lsp import LanguageClient

from pack_lsp.core import reuse
from pack_lsp.core.analysis import analyze
from pack_lsp.core.config import load_for
from pack_lsp.core.recognize import detect

EDITS = 1000
#: Generous guard: diagnostics of a version arrive long before this.
TIMEOUT = 30.0
ROOT = Path(__file__).resolve().parents[2]
BUNDLED = ROOT / "tests" / "fixtures" / "language" / "support.promptpack.yaml"
CORPUS = ROOT.parent / "shared" / "corpus" / "valid"
#: Inserted pieces: every LSP line break, the breaks LSP does not know, wide characters.
PIECES = (
    "\u2028",
    "\u2029",
    "\x85",
    "\r",
    "\r\n",
    "\n",
    "\t",
    "😀",
    "𝄞",
    "漢字",
    "キー",
    " ",
    ": ",
    "- ",
    "x",
    "name",
    '"',
    "{",
    "}",
    "#",
)


@pytest.fixture(autouse=True)
def _verified() -> None:
    """The server these sessions start inherits ``PACK_LSP_INCREMENTAL=verify``
    (``conftest.py``): every reused result is recomputed and compared, and a difference
    fails the analysis, so the diagnostics compared below would be missing."""
    assert os.environ.get(reuse.ENV) == reuse.VERIFY


def corpus_packs() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    small = sorted(p for p in CORPUS.iterdir() if p.is_file() and p.stat().st_size < 8000)
    return small[:2]


def lsp_position(text: str, offset: int, encoding: str) -> types.Position:
    """LSP position of a code-point offset: lines end at \\n, \\r\\n or \\r only."""
    line = 0
    start = 0
    i = 0
    while i < offset:
        ch = text[i]
        if ch == "\r" and i + 1 < len(text) and text[i + 1] == "\n":
            if i + 1 >= offset:
                break
            i += 2
            line, start = line + 1, i
            continue
        i += 1
        if ch in "\r\n":
            line, start = line + 1, i
    return types.Position(line=line, character=units(text[start:offset], encoding))


def safe_offset(text: str, offset: int) -> int:
    """Not between the two characters of a \\r\\n (no LSP position is there)."""
    if 0 < offset < len(text) and text[offset - 1] == "\r" and text[offset] == "\n":
        return offset + 1
    return offset


def random_edit(rng: random.Random, text: str) -> tuple[int, int, str]:
    start = safe_offset(text, rng.randint(0, len(text)))
    if rng.random() < 0.45 and start < len(text):
        end = safe_offset(text, min(len(text), start + rng.randint(1, 6)))
    else:
        end = start
    new = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 3)))
    return start, end, new


def expected(path: Path, text: str, encoding: str) -> list[tuple[str, str, tuple[int, ...]]]:
    kind = detect(str(path), text)
    if kind is None:
        return []
    result = analyze(text, path=str(path), config=load_for(path), kind=kind)
    out = []
    for d in result.diagnostics:
        s = lsp_position(result.text, d.span.start, encoding)
        e = lsp_position(result.text, d.span.end, encoding)
        out.append((d.code, d.message, (s.line, s.character, e.line, e.character)))
    return sorted(out)


def received(diags: list[types.Diagnostic]) -> list[tuple[str, str, tuple[int, ...]]]:
    out = []
    for d in diags:
        r = d.range
        key = (r.start.line, r.start.character, r.end.line, r.end.character)
        out.append((str(d.code), d.message, key))
    return sorted(out)


async def run_session(client: LanguageClient, source: Path, target: Path, seed: int) -> None:
    """``EDITS`` random edits in bursts of 1-12; after a burst the client sometimes
    checks the diagnostics of that version, and then puts the original text back
    with one more incremental edit, so that most bursts edit an analysable pack
    (a few random characters usually break the YAML, and a broken document has
    a single diagnostic)."""
    encoding = encoding_of(client)
    original = source.read_text(encoding="utf-8")
    text = original
    uri = await open_doc(client, target, text, wait=False)
    rng = random.Random(seed)
    version = 1
    checked = 0

    def send(start: int, end: int, new: str) -> None:
        nonlocal text, version
        rng_lsp = types.Range(
            start=lsp_position(text, start, encoding), end=lsp_position(text, end, encoding)
        )
        text = text[:start] + new + text[end:]
        version += 1
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangePartial(range=rng_lsp, text=new)],
            )
        )

    async def check() -> None:
        try:
            diags = await asyncio.wait_for(
                diagnostics_for(client, uri, None if pulls_diagnostics(client) else version),
                timeout=TIMEOUT,
            )
        except TimeoutError:
            logs = [m.message for m in client.log_messages]
            pytest.fail(f"seed {seed}: no diagnostics for version {version}; server log: {logs}")
        assert received(diags) == expected(target, text, encoding), f"seed {seed} v{version}"

    edits = 0
    while edits < EDITS:
        for _ in range(rng.randint(1, 12)):
            send(*random_edit(rng, text))
            edits += 1
        # Intermediate checks pull; a push client checks the final version only.
        if rng.random() < 0.1 and pulls_diagnostics(client):
            await check()
            checked += 1
        if edits < EDITS:
            send(0, len(text), original)
    await check()
    assert checked > 0 or not pulls_diagnostics(client)


async def test_random_edits_bundled_pack(client: LanguageClient, tmp_path: Path) -> None:
    await run_session(client, BUNDLED, tmp_path / "support.promptpack.yaml", seed=20260401)


async def test_random_edits_corpus_packs(client: LanguageClient, tmp_path: Path) -> None:
    packs = corpus_packs()
    if not packs:
        pytest.skip("../shared/corpus is not available (the reference corpus is optional)")
    for n, pack in enumerate(packs):
        await run_session(client, pack, tmp_path / pack.name, seed=7000 + n)
