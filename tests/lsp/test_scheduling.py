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
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
import pytest_lsp
from failing_server import FAIL_MARKER
from lsp_helpers import (
    SERVER,
    diagnostics_for,
    editor_client,
    initialize_params,
    open_doc,
    pos,
    published,
    pulls_diagnostics,
    span_range,
    wait_published,
)
from lsprotocol import types
from packs import PACK
from pytest_lsp import ClientServerConfig, LanguageClient

from pack_lsp.core.base.text import LineIndex
from pack_lsp.core.checks import analysis as analysis_module
from pack_lsp.core.checks.analysis import Analysis, analyze, run_rules
from pack_lsp.core.ide import completion as core_completion
from pack_lsp.core.model import context as context_module
from pack_lsp.core.model.recognize import detect
from pack_lsp.server import scheduling
from pack_lsp.server.app import PackServer, create_server
from pack_lsp.server.positions import PositionConverter
from pack_lsp.server.semantic_tokens import semantic_tokens

PROFILES = ("visual-studio-code", "neovim@v0.11.0")

#: A tool the edits below add; completion and navigation must see it at once.
NEW_TOOL = "  escalate:\n    name: escalate\n    description: Hand over to a human\n"


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=editor_client))
async def lsp_process(lsp_client: LanguageClient) -> AsyncIterator[None]:
    """The server process and a client connected to it (not yet initialised).

    A generator: pytest-lsp runs the fixture's body only up to its ``yield`` (a
    coroutine body would be created and never awaited)."""
    yield


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
        client_factory=editor_client,
        server_command=[sys.executable, str(Path(__file__).with_name("failing_server.py"))],
    )
)
async def failing_process(lsp_client: LanguageClient) -> AsyncIterator[None]:
    """A server whose analysis raises on texts containing ``FAIL_MARKER`` (a
    generator, as ``lsp_process``)."""
    yield


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
    result = analyze(text, path=str(path), kind=detect(str(path), text))
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


async def _settled(client: LanguageClient, uri: str) -> None:
    """Return once the current text of ``uri`` is analysed, after its publication.

    A code action awaits the full analysis of the text current when it arrives, and
    the server publishes that analysis before it answers anything waiting for it:
    the publication, if there is one, is in the client's log before the answer."""
    start = types.Position(line=0, character=0)
    await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=start, end=start),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )


async def test_a_document_opened_again_without_a_close_gets_its_diagnostics_pushed(
    session: LanguageClient, tmp_path: Path
) -> None:
    """A second didOpen of an open document starts its versions over; the
    publications of the new versions must not be taken for older ones than those
    already published for the first opening."""
    if pulls_diagnostics(session):
        pytest.skip("push clients only: a pull client asks for the version it has")
    path = tmp_path / "a.promptpack.yaml"
    uri = await open_doc(session, path, PACK)
    log = published(session)
    start = len(log)
    for version in range(2, 6):
        _insert(session, uri, version, types.Position(line=0, character=0), "# note\n")
    await wait_published(session, uri, 5, start=start)
    again = PACK.replace("    tools: [refund]", "    tools: [refund, lookup_ordr]")
    start = len(log)
    session.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=again)
        )
    )
    await _settled(session, uri)
    _insert(session, uri, 2, types.Position(line=0, character=0), "# note\n")
    await _settled(session, uri)
    mine = [p for p in log[start:] if p.uri == uri]
    assert [p.version for p in mine] == [1, 2]
    assert sorted(str(d.code) for d in mine[0].diagnostics) == _codes(path, again)
    assert sorted(str(d.code) for d in mine[1].diagnostics) == _codes(path, "# note\n" + again)


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


async def _drained(server: Any) -> None:
    """Wait until every job queued on the analysis threads so far has ended: the
    server frees a replaced analysis in one of them, after publishing the new one.

    One job per thread meets the others at a barrier; no thread can reach it before
    finishing the job it had, and the queue hands out earlier jobs first."""
    threads = scheduling.ANALYSIS_THREADS
    barrier = threading.Barrier(threads, timeout=30)
    loop = asyncio.get_running_loop()
    executor = server.analysis_executor()
    await asyncio.gather(*(loop.run_in_executor(executor, barrier.wait) for _ in range(threads)))


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
    await _drained(server)
    assert _live_analyses() - baseline == len(uris)
    server.untrack_document(uris[0])
    server.close_document(uris[0])
    await asyncio.sleep(0)  # let the cancelled driver task end
    await _drained(server)
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


# ---------------------------------------------------------------- answers from the structure

#: A prompt the edits below add.
NEW_PROMPT = (
    "  escalation:\n"
    "    id: escalation\n"
    "    name: Escalation\n"
    "    version: 1.0.0\n"
    "    description: Hands over\n"
    "    system_template: Hand {{user_name}} over\n"
    "    variables:\n"
    "      - name: user_name\n"
    "        type: string\n"
    "    tools: [escalate, ]\n"
)


def _requests(client: LanguageClient, uri: str, text: str) -> list[asyncio.Future[Any]]:
    """Completion in a tools list, hover and definition on a tool reference, and the
    document's symbols, all sent at once (answered in any order)."""
    ident = types.TextDocumentIdentifier(uri=uri)
    in_list = pos(client, text, "    tools: [refund", len("    tools: ["))
    on_ref = pos(client, text, "refund]", 2)
    return [
        asyncio.ensure_future(
            client.text_document_completion_async(
                types.CompletionParams(text_document=ident, position=in_list)
            )
        ),
        asyncio.ensure_future(
            client.text_document_hover_async(
                types.HoverParams(text_document=ident, position=on_ref)
            )
        ),
        asyncio.ensure_future(
            client.text_document_definition_async(
                types.DefinitionParams(text_document=ident, position=on_ref)
            )
        ),
        asyncio.ensure_future(
            client.text_document_document_symbol_async(
                types.DocumentSymbolParams(text_document=ident)
            )
        ),
    ]


async def test_requests_right_after_edits_answer_what_the_analysed_version_answers(
    session: LanguageClient, tmp_path: Path
) -> None:
    """Read requests sent right after an edit are answered from the new version's
    structure, before its schema and rules have run: the answers are those of the
    fully analysed version, for edits that add a tool or a prompt or change a text."""
    text = PACK
    uri = await open_doc(session, tmp_path / "a.promptpack.yaml", text)
    edits = [
        ("prompts:\n", NEW_TOOL + "prompts:\n"),  # a tool
        ("    tools: [refund]\n", "    tools: [refund]\n" + NEW_PROMPT),  # a prompt
        ("Handles invoices", "Handles invoices and refunds"),  # a description
        ("  refund:\n    name: refund\n", "  refund:\n    name: refund_it\n"),  # a tool name
    ]
    log = published(session)
    for version, (old, new) in enumerate(edits, start=2):
        before = len(log)
        start = pos(session, text, old)
        end = pos(session, text, old, len(old))
        session.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[
                    types.TextDocumentContentChangePartial(
                        range=types.Range(start=start, end=end), text=new
                    )
                ],
            )
        )
        text = text.replace(old, new, 1)
        early = await asyncio.gather(*_requests(session, uri, text))
        if pulls_diagnostics(session):
            await diagnostics_for(session, uri)
        else:  # published at any time after the edit
            await wait_published(session, uri, version, start=before)
        analysed = await asyncio.gather(*_requests(session, uri, text))
        assert early == analysed, version
        completion = early[0]
        assert isinstance(completion, types.CompletionList)
        labels = {item.label for item in completion.items}
        assert "escalate" in labels and "lookup_order" in labels


async def test_a_code_action_right_after_an_edit_sees_its_diagnostics(
    session: LanguageClient, tmp_path: Path
) -> None:
    uri = await open_doc(session, tmp_path / "a.promptpack.yaml", PACK)
    after = PACK.replace("    tools: [refund]", "    tools: [refund, lookup_ordr]")
    _insert(session, uri, 2, pos(session, PACK, "refund]", len("refund")), ", lookup_ordr")
    actions = await session.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=span_range(session, after, "lookup_ordr"),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    assert actions is not None
    titles = [a.title for a in actions if isinstance(a, types.CodeAction)]
    assert "Replace with `lookup_order`" in titles


async def test_a_request_is_answered_from_the_structure_while_the_rules_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In process: the rules of the new version are held back until the request on
    that version has been answered (from its structure, without diagnostics)."""
    server = create_server()
    server.pull_diagnostics = True  # nothing to push: no client is connected
    server.freeze_gc = False  # would freeze the test process's objects
    uri = (tmp_path / "a.promptpack.yaml").as_uri()
    server.open_document(types.TextDocumentItem(uri, "yaml", 1, PACK))
    server.track_document(uri)
    first, _ = await server.current_analysis(uri)
    assert first is not None
    gate = threading.Event()
    rules_ran = threading.Event()

    def held_rules(*args: Any, **kwargs: Any) -> Any:
        assert gate.wait(30), "the rules were never released"
        rules_ran.set()
        return run_rules(*args, **kwargs)

    monkeypatch.setattr(analysis_module, "run_rules", held_rules)
    text = PACK.replace("prompts:\n", NEW_TOOL + "prompts:\n", 1).replace(
        "tools: [refund]", "tools: [refund, lookup_ordr]"
    )
    doc = server.documents[uri]
    doc.text, doc.version = text, 2
    server.document_changed(uri)
    full = asyncio.ensure_future(server.current_analysis(uri))
    offset = text.index("tools: [refund") + len("tools: [")

    done = server.structure_reader(uri)  # what ``answer`` does around a request
    try:
        structure, version = await server.current_analysis(uri, diagnostics=False)
        assert structure is not None and version == 2 and structure.diagnostics == ()
        early = {c.label for c in core_completion.complete(structure, offset)}
        assert "escalate" in early
        assert not rules_ran.is_set() and not full.done()
    finally:
        done()
    gate.set()
    analysed, got = await full
    assert got == 2 and analysed is not None
    codes = sorted(d.code for d in analysed.diagnostics)
    assert "PP301" in codes and codes == _codes(tmp_path / "a.promptpack.yaml", text)
    assert {c.label for c in core_completion.complete(analysed, offset)} == early
    server.untrack_document(uri)
    server.close_document(uri)


async def test_a_slow_scan_of_one_document_does_not_hold_up_a_request_on_another(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In process: while the template scan of one document is held in its analysis
    thread, a request on another document that reads its templates (semantic tokens,
    on a new version answered from its structure) is answered. With the scan done
    on first use behind ``functools.cached_property`` (one lock for every instance
    on Python 3.11), the request waited for the other document's scan, blocking the
    event loop."""
    server = create_server()
    server.pull_diagnostics = True  # nothing to push: no client is connected
    server.freeze_gc = False  # would freeze the test process's objects
    # No client initialised the workspace: positions in UTF-16, as most clients ask.
    monkeypatch.setattr(PackServer, "converter", property(lambda _: PositionConverter(None)))
    marker = "# this document's template scan is slow\n"
    held = threading.Event()
    started = threading.Event()
    scan = context_module.pack_templates

    def slow_scan(pack: Any, source: str, *args: Any, **kwargs: Any) -> Any:
        if source.startswith(marker):
            started.set()
            held.wait()
        return scan(pack, source, *args, **kwargs)

    monkeypatch.setattr(context_module, "pack_templates", slow_scan)
    watchdog = threading.Timer(30, held.set)  # never leave the slow thread waiting
    watchdog.start()
    fast = (tmp_path / "fast.promptpack.yaml").as_uri()
    slow = (tmp_path / "slow.promptpack.yaml").as_uri()
    try:
        server.open_document(types.TextDocumentItem(fast, "yaml", 1, PACK))
        server.track_document(fast)
        assert (await server.current_analysis(fast))[0] is not None
        server.open_document(types.TextDocumentItem(slow, "yaml", 1, marker + PACK))
        server.track_document(slow)
        assert await asyncio.to_thread(started.wait, 30), "the slow scan never started"
        doc = server.documents[fast]
        doc.text, doc.version = "#\n" + PACK, 2
        server.document_changed(fast)
        params = types.SemanticTokensParams(text_document=types.TextDocumentIdentifier(uri=fast))
        tokens = await semantic_tokens(server, params)
        answered_while_held = not held.is_set()
        assert tokens.data  # the placeholders of the new version
        assert tokens.data[0] == 1 + PACK[: PACK.index("Hello {{")].count("\n")  # one line down
    finally:
        held.set()
        watchdog.cancel()
    assert answered_while_held, "the request waited for the other document's scan"
    assert (await server.current_analysis(slow))[0] is not None
    for uri in (fast, slow):
        server.untrack_document(uri)
        server.close_document(uri)
