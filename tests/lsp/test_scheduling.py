"""Analysis scheduling: requests right after an edit see that edit, bursts publish
the final version only after every older one, a failing analysis is survived, and
the server keeps one analysis per open document.

Each end-to-end test runs with a push client (VS Code's captured capabilities) and
a pull client (Neovim 0.11).
"""

from __future__ import annotations

import asyncio
import gc
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
import pytest_lsp
from failing_server import FAIL_MARKER
from lsp_helpers import (
    SERVER,
    diagnostics_for,
    initialize_params,
    open_doc,
    pos,
    published,
    pulls_diagnostics,
    wait_published,
)
from lsprotocol import types
from packs import PACK
from pytest_lsp import ClientServerConfig, LanguageClient

from pack_lsp.core import kinds
from pack_lsp.core.analysis import Analysis, analyze
from pack_lsp.core.text import LineIndex
from pack_lsp.server.app import create_server

PROFILES = ("visual-studio-code", "neovim@v0.11.0")

#: A tool the edits below add; completion and navigation must see it at once.
NEW_TOOL = "  escalate:\n    name: escalate\n    description: Hand over to a human\n"


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def lsp_process(lsp_client: LanguageClient) -> None:
    """The server process and a client connected to it (not yet initialised)."""


@pytest_asyncio.fixture(params=PROFILES)
async def session(
    lsp_process: LanguageClient, request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[LanguageClient]:
    client = lsp_process
    await client.initialize_session(initialize_params(request.param, tmp_path))
    yield client
    await client.shutdown_session()


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[sys.executable, str(Path(__file__).with_name("failing_server.py"))]
    )
)
async def failing_process(lsp_client: LanguageClient) -> None:
    """A server whose analysis raises on texts containing ``FAIL_MARKER``."""


@pytest_asyncio.fixture(params=PROFILES)
async def failing(
    failing_process: LanguageClient, request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[LanguageClient]:
    client = failing_process
    await client.initialize_session(initialize_params(request.param, tmp_path))
    yield client
    await client.shutdown_session()


def _replace_all(client: LanguageClient, uri: str, version: int, new: str) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=new)],
        )
    )


def _insert(client: LanguageClient, uri: str, version: int, at: types.Position, text: str) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(start=at, end=at), text=text
                )
            ],
        )
    )


def _codes(path: Path, text: str) -> list[str]:
    result = analyze(text, path=str(path), kind=kinds.detect(str(path), text))
    return sorted(d.code for d in result.diagnostics)


async def _labels(client: LanguageClient, uri: str, at: types.Position) -> set[str]:
    result = await client.text_document_completion_async(
        types.CompletionParams(text_document=types.TextDocumentIdentifier(uri=uri), position=at)
    )
    assert isinstance(result, types.CompletionList)
    return {i.label for i in result.items}


async def test_completion_right_after_a_change_sees_that_change(
    session: LanguageClient, tmp_path: Path
) -> None:
    before = PACK.replace("    tools: [refund]", "    tools: [refund, ]")
    uri = await open_doc(session, tmp_path / "a.promptpack.yaml", before)
    # One change adds a tool above the completion point; the request follows at once.
    after = before.replace("prompts:\n", NEW_TOOL + "prompts:\n", 1)
    _insert(session, uri, 2, pos(session, before, "prompts:\n"), NEW_TOOL)
    at = pos(session, after, "refund, ", len("refund, "))
    assert await _labels(session, uri, at) == {"lookup_order", "escalate"}


async def test_hover_and_definition_right_after_a_change(
    session: LanguageClient, tmp_path: Path
) -> None:
    uri = await open_doc(session, tmp_path / "a.promptpack.yaml", PACK)
    after = PACK.replace("prompts:\n", NEW_TOOL + "prompts:\n", 1).replace(
        "    tools: [refund]", "    tools: [refund, escalate]"
    )
    _replace_all(session, uri, 2, after)
    at = pos(session, after, "escalate]", 2)
    hover_task = session.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=at)
    )
    definition = await session.text_document_definition_async(
        types.DefinitionParams(text_document=types.TextDocumentIdentifier(uri=uri), position=at)
    )
    hover = await hover_task
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "Hand over to a human" in hover.contents.value
    assert isinstance(definition, list) and len(definition) == 1
    assert definition[0].range.start == pos(session, after, "escalate:")


async def test_a_burst_of_changes_ends_with_the_final_version(
    session: LanguageClient, tmp_path: Path
) -> None:
    path = tmp_path / "a.promptpack.yaml"
    uri = await open_doc(session, path, PACK)
    log = published(session)
    start = len(log)
    typed = "bogus_key_typed_here: 1"[:20]  # 20 one-character changes
    text = PACK
    for i, ch in enumerate(typed):
        at = types.Position(line=LineIndex(text).line_count - 1, character=i)
        _insert(session, uri, 2 + i, at, ch)
        text += ch
    final = 1 + len(typed)
    if pulls_diagnostics(session):
        got = await diagnostics_for(session, uri)
        assert sorted(str(d.code) for d in got) == _codes(path, text)
        return
    params = await wait_published(session, uri, final, start=start)
    assert sorted(str(d.code) for d in params.diagnostics) == _codes(path, text)
    # One more change: anything still published for an older version would come first.
    _insert(session, uri, final + 1, types.Position(line=0, character=0), "# note\n")
    await wait_published(session, uri, final + 1, start=start)
    seen = [p.version for p in log[start:] if p.uri == uri]
    assert seen == sorted(set(seen)), seen


async def test_a_failing_analysis_is_logged_and_the_server_keeps_answering(
    failing: LanguageClient, tmp_path: Path
) -> None:
    client = failing
    path = tmp_path / "a.promptpack.yaml"
    uri = await open_doc(client, path, PACK)
    broken = FAIL_MARKER + "\n" + PACK
    _insert(client, uri, 2, types.Position(line=0, character=0), FAIL_MARKER + "\n")
    at = pos(client, broken, "- lookup_order", 3)
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=at)
    )
    assert hover is None
    while not any("the analysis broke" in m.message for m in client.log_messages):
        await client.wait_for_notification(types.WINDOW_LOG_MESSAGE)
    # The next version analyses again, and requests are answered from it.
    _insert(client, uri, 3, types.Position(line=0, character=0), "# fine\n")
    _replace_all(client, uri, 4, PACK)
    got = await diagnostics_for(client, uri, 4)
    assert sorted(str(d.code) for d in got) == _codes(path, PACK)
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=pos(client, PACK, "- lookup_order", 3),
        )
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "Find an order by its number" in hover.contents.value


def _live_analyses() -> int:
    gc.collect()
    return sum(isinstance(o, Analysis) for o in gc.get_objects())


async def test_one_analysis_per_open_document_after_many_edits(tmp_path: Path) -> None:
    server = create_server()
    server.pull_diagnostics = True  # nothing to push: no client is connected
    server.freeze_gc = False  # frozen objects are invisible to gc.get_objects()
    baseline = _live_analyses()
    uris = []
    for name in ("a", "b"):
        uri = (tmp_path / f"{name}.promptpack.yaml").as_uri()
        uris.append(uri)
        server.open_document(types.TextDocumentItem(uri, "yaml", 1, PACK))
        server.track_document(uri)
    for version in range(2, 42):
        for uri in uris:
            doc = server.documents[uri]  # what didChange stores (no client to convert for)
            doc.text, doc.version = "#\n" * (version - 1) + PACK, version
            server.document_changed(uri)
        if version % 5 == 0:  # let some analyses finish in between
            for uri in uris:
                result, got = await server.current_analysis(uri)
                assert result is not None and got == version
    for uri in uris:
        result, got = await server.current_analysis(uri)
        assert result is not None and got == 41 and result.text.startswith("#\n" * 40)
    del result
    assert _live_analyses() - baseline == len(uris)
    server.untrack_document(uris[0])
    server.close_document(uris[0])
    await asyncio.sleep(0)  # let the cancelled driver task end
    assert _live_analyses() - baseline == 1
    server.untrack_document(uris[1])


async def test_the_wait_applies_only_within_a_burst_of_edits(tmp_path: Path) -> None:
    server = create_server()
    server.pull_diagnostics = True
    server.change_delay = 0.15
    uri = (tmp_path / "a.promptpack.yaml").as_uri()
    server.open_document(types.TextDocumentItem(uri, "yaml", 1, PACK))
    server.track_document(uri)
    track = server.tracks[uri]
    await server.current_analysis(uri)
    loop = asyncio.get_running_loop()
    track.cost = 0.4  # as if the pack were large: a burst waits min(0.4, changeDelay)
    track.changed_at = loop.time() - 10  # the last edit was long ago
    server.document_changed(uri)
    assert not track.burst and server.analysis_delay(track) == 0.0
    server.document_changed(uri)  # at once after it: coalesced
    assert track.burst and server.analysis_delay(track) == 0.15
    track.cost = 0.01  # a cheap analysis is repeated at once even in a burst
    assert server.analysis_delay(track) == 0.0
    server.untrack_document(uri)
    server.close_document(uri)
