"""Seeded random edit sessions through the real server.

The client keeps its own copy of the document, applies every edit with LSP line
breaks (``\\n``, ``\\r\\n``, ``\\r`` only) and computes positions in the negotiated
encoding itself. Edits are sent in bursts without waiting for any diagnostics;
after some bursts, and after the last one, the client waits for the diagnostics of
the version it has (pushed or pulled, per profile), which must equal the core
analysis of its copy. A push client also checks every publication it received:
each version at most once, never an older one after a newer one, and each equal
to the analysis of that version's text (the server may skip superseded versions,
never the one the client waits on).
"""

from __future__ import annotations

import asyncio
import os
import random
from pathlib import Path

import pytest
from lsp_helpers import (
    encoding_of,
    open_doc,
    published,
    pull,
    pulls_diagnostics,
    units,
    wait_published,
)
from lsprotocol import types
from pytest_lsp import LanguageClient

from pack_lsp.core.checks.analysis import analyze
from pack_lsp.core.model.config import load_for
from pack_lsp.core.model.recognize import detect
from pack_lsp.core.syntax import reuse

EDITS = 1000
#: Generous guard for one version's diagnostics (they arrive within a few analyses,
#: milliseconds each here, even on a loaded machine); only a lost one reaches it.
TIMEOUT = 60.0
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


Key = tuple[str, str, tuple[int, ...]]


def expected(path: Path, text: str, encoding: str) -> list[Key]:
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


def received(diags: list[types.Diagnostic]) -> list[Key]:
    out = []
    for d in diags:
        r = d.range
        key = (r.start.line, r.start.character, r.end.line, r.end.character)
        out.append((str(d.code), d.message, key))
    return sorted(out)


async def run_session(client: LanguageClient, source: Path, target: Path, seed: int) -> None:
    """``EDITS`` random edits in bursts of 1-12; after a burst the client sometimes
    waits for the diagnostics of that version (pushed or pulled) and checks them,
    and then puts the original text back with one more incremental edit, so that
    most bursts edit an analysable pack (a few random characters usually break the
    YAML, and a broken document has a single diagnostic)."""
    encoding = encoding_of(client)
    pulling = pulls_diagnostics(client)
    original = source.read_text(encoding="utf-8")
    text = original
    log = published(client)  # records every publication from here on
    first = len(log)
    uri = await open_doc(client, target, text, wait=False)
    rng = random.Random(seed)
    version = 1
    #: The text of every version sent, for the publications of any of them.
    texts = {version: text}
    analyses: dict[str, list[Key]] = {}
    checked = 0

    def expected_for(text: str) -> list[Key]:
        # Many versions share a text (every burst starts from the original).
        if text not in analyses:
            analyses[text] = expected(target, text, encoding)
        return analyses[text]

    def send(start: int, end: int, new: str) -> None:
        nonlocal text, version
        rng_lsp = types.Range(
            start=lsp_position(text, start, encoding), end=lsp_position(text, end, encoding)
        )
        text = text[:start] + new + text[end:]
        version += 1
        texts[version] = text
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangePartial(range=rng_lsp, text=new)],
            )
        )

    async def check() -> None:
        """The diagnostics of the current version, which stays current meanwhile."""
        try:
            if pulling:
                diags = await asyncio.wait_for(pull(client, uri), timeout=TIMEOUT)
            else:  # the version is unique: its publication is looked up in the whole log
                params = await asyncio.wait_for(
                    wait_published(client, uri, version, start=first), timeout=TIMEOUT
                )
                diags = list(params.diagnostics)
        except TimeoutError:
            seen = [p.version for p in log[first:] if p.uri == uri]
            logs = [m.message for m in client.log_messages]
            pytest.fail(
                f"seed {seed}: no diagnostics for version {version} within {TIMEOUT} s; "
                f"versions published: {seen}; server log: {logs}"
            )
        assert received(diags) == expected_for(text), f"seed {seed} v{version}"

    # Requests sent right after a burst are answered from the structure of the new
    # version while its rules run, and hold that analysis until they are answered
    # (docs/decisions.md, D25); a separate generator keeps the edits of each seed.
    requests = random.Random(seed + 1)
    answered = 0

    async def symbols() -> None:
        nonlocal answered
        await asyncio.wait_for(
            client.text_document_document_symbol_async(
                types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri))
            ),
            timeout=TIMEOUT,
        )
        answered += 1

    edits = 0
    while edits < EDITS:
        for _ in range(rng.randint(1, 12)):
            send(*random_edit(rng, text))
            edits += 1
        request = asyncio.ensure_future(symbols()) if requests.random() < 0.3 else None
        if rng.random() < 0.1:
            await check()
            checked += 1
        if request is not None:
            await request
        if edits < EDITS:
            send(0, len(text), original)
    await check()
    assert checked > 0 and answered > 0
    if pulling:
        return
    # Every publication, including those of versions superseded in the meantime.
    mine = [p for p in log[first:] if p.uri == uri]
    versions = [p.version for p in mine]
    assert versions == sorted(set(versions)), f"seed {seed}: published {versions}"
    for params in mine:
        assert params.version is not None, f"seed {seed}: a publication without a version"
        got = received(list(params.diagnostics))
        assert got == expected_for(texts[params.version]), f"seed {seed} v{params.version}"


async def test_random_edits_bundled_pack(client: LanguageClient, tmp_path: Path) -> None:
    await run_session(client, BUNDLED, tmp_path / "support.promptpack.yaml", seed=20260401)


async def test_random_edits_corpus_packs(client: LanguageClient, tmp_path: Path) -> None:
    packs = corpus_packs()
    if not packs:
        pytest.skip("../shared/corpus is not available (the reference corpus is optional)")
    for n, pack in enumerate(packs):
        await run_session(client, pack, tmp_path / pack.name, seed=7000 + n)
