"""End to end: call hierarchy and document links in arena projects, in both client
profiles, on a copy of ``tests/data/arena/helpdesk`` (a state's event name carries an
emoji, so ranges after it differ between position encodings) and on a corpus project
(skipped without the reference material).

Items and calls land in files the editor never opened (a tool file, the arena
config): the server loads the project when the session starts."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from lsp_helpers import (
    encoding_of,
    open_doc,
    pos,
    span_range,
    units,
)
from lsprotocol import types
from pytest_lsp import LanguageClient

from paths import HERE

HELPDESK = HERE / "data" / "arena" / "helpdesk"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "helpdesk"
    shutil.copytree(HELPDESK, root)
    config = root / "config.arena.yaml"
    text = config.read_text(encoding="utf-8")
    config.write_text(
        text.replace("on_event:\n          Refund: refunds", "on_event: {Refund😀: refunds}"),
        encoding="utf-8",
    )
    return root


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


async def _prepare(
    client: LanguageClient, uri: str, text: str, needle: str, delta: int = 1
) -> list[types.CallHierarchyItem]:
    items = await client.text_document_prepare_call_hierarchy_async(
        types.CallHierarchyPrepareParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=pos(client, text, needle, delta),
        )
    )
    return list(items or [])


def _position(client: LanguageClient, text: str, index: int) -> types.Position:
    line_start = text.rfind("\n", 0, index) + 1
    return types.Position(
        line=text.count("\n", 0, index),
        character=units(text[line_start:index], encoding_of(client)),
    )


def _in(client: LanguageClient, text: str, context: str, word: str) -> types.Range:
    """The range of ``word`` in the first ``context`` of ``text``."""
    at = text.index(context) + context.index(word)
    return types.Range(
        start=_position(client, text, at), end=_position(client, text, at + len(word))
    )


async def test_a_prompt_config_calls_its_tools_and_is_called_by_its_state(
    aclient: LanguageClient, workspace: Path
) -> None:
    client = aclient
    refunds = workspace / "prompts" / "refunds.yaml"
    text = _read(refunds)
    uri = await open_doc(client, refunds, text)
    [item] = await _prepare(client, uri, text, "task_type: refunds", len("task_type: r"))
    assert (item.name, item.detail, item.uri) == ("refunds", "agent", uri)
    assert item.selection_range == _in(client, text, "task_type: refunds", "refunds")
    assert item.range.start == types.Position(line=0, character=0)

    out = await client.call_hierarchy_outgoing_calls_async(
        types.CallHierarchyOutgoingCallsParams(item=item)
    )
    [call] = out or []
    tool = workspace / "tools" / "lookup-order.tool.yaml"
    assert (call.to.name, call.to.detail, call.to.uri) == ("lookup_order", "tool", tool.as_uri())
    assert call.to.selection_range == _in(client, _read(tool), "name: lookup_order", "lookup_order")
    assert list(call.from_ranges) == [_in(client, text, "- lookup_order", "lookup_order")]

    incoming = await client.call_hierarchy_incoming_calls_async(
        types.CallHierarchyIncomingCallsParams(item=item)
    )
    [caller] = incoming or []
    config = workspace / "config.arena.yaml"
    config_text = _read(config)
    assert (caller.from_.name, caller.from_.detail) == ("refunds", "state")
    assert caller.from_.uri == config.as_uri()
    assert list(caller.from_ranges) == [_in(client, config_text, "prompt_task: refunds", "refunds")]
    # The state's own outgoing calls are answered although the config was never opened.
    out = await client.call_hierarchy_outgoing_calls_async(
        types.CallHierarchyOutgoingCallsParams(item=caller.from_)
    )
    assert [c.to.name for c in out or []] == ["refunds"]
    assert (out or [])[0].to.uri == uri


async def test_a_state_of_the_arena_config_calls_states_after_an_emoji(
    aclient: LanguageClient, workspace: Path
) -> None:
    client = aclient
    config = workspace / "config.arena.yaml"
    text = _read(config)
    uri = await open_doc(client, config, text)
    [state] = await _prepare(client, uri, text, "      triage:\n        prompt_task", 7)
    assert (state.name, state.detail) == ("triage", "state")
    out = await client.call_hierarchy_outgoing_calls_async(
        types.CallHierarchyOutgoingCallsParams(item=state)
    )
    by_name = {(c.to.name, c.to.detail): list(c.from_ranges) for c in out or []}
    assert by_name == {
        ("triage", "agent"): [_in(client, text, "prompt_task: triage", "triage")],
        ("refunds", "state"): [_in(client, text, "Refund😀: refunds", "refunds")],
    }


async def test_a_tool_file_shows_the_prompt_configs_allowing_it(
    aclient: LanguageClient, workspace: Path
) -> None:
    client = aclient
    tool = workspace / "tools" / "lookup-order.tool.yaml"
    text = _read(tool)
    uri = await open_doc(client, tool, text)
    [item] = await _prepare(client, uri, text, "name: lookup_order", len("name: l"))
    assert item.name == "lookup_order" and item.uri == uri
    incoming = await client.call_hierarchy_incoming_calls_async(
        types.CallHierarchyIncomingCallsParams(item=item)
    )
    [caller] = incoming or []
    refunds = workspace / "prompts" / "refunds.yaml"
    assert (caller.from_.name, caller.from_.uri) == ("refunds", refunds.as_uri())
    assert list(caller.from_ranges) == [
        _in(client, _read(refunds), "- lookup_order", "lookup_order")
    ]
    # Nowhere near a name: no item.
    assert await _prepare(client, uri, text, "mock_result", 2) == []


async def test_file_entries_of_the_arena_config_are_links(
    aclient: LanguageClient, workspace: Path
) -> None:
    client = aclient
    (workspace / "scenarios" / "refund-request.scenario.yaml").unlink()  # PA101
    config = workspace / "config.arena.yaml"
    text = _read(config)
    uri = await open_doc(client, config, text)
    found = await client.text_document_document_link_async(
        types.DocumentLinkParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    links = {(link.range.start.line, link.range.start.character): link for link in found or []}
    expected = {
        rel: span_range(client, text, rel)
        for rel in (
            "prompts/triage.yaml",
            "prompts/refunds.yaml",
            "providers/mock.yaml",
            "tools/lookup-order.tool.yaml",
        )
    }
    assert len(links) == len(expected)
    for rel, rng in expected.items():
        link = links[(rng.start.line, rng.start.character)]
        assert link.range == rng
        assert link.target == (workspace / rel).as_uri()


async def test_corpus_workflow_loop_and_links(
    corpus_client: LanguageClient, corpus_workspace: Path
) -> None:
    client = corpus_client
    config = corpus_workspace / "config.arena.yaml"
    text = _read(config)
    uri = await open_doc(client, config, text)
    [state] = await _prepare(client, uri, text, "    research:\n", 5)
    assert (state.name, state.detail) == ("research", "state")
    out = await client.call_hierarchy_outgoing_calls_async(
        types.CallHierarchyOutgoingCallsParams(item=state)
    )
    called = {(c.to.name, c.to.detail) for c in out or []}
    # The research state loops on itself, moves on to summarize, and runs its prompt.
    assert {("research", "state"), ("summarize", "state"), ("research", "agent")} <= called
    prompt = next(c.to for c in out or [] if c.to.detail == "agent")
    assert prompt.uri == (corpus_workspace / "prompts" / "research.yaml").as_uri()
    found = await client.text_document_document_link_async(
        types.DocumentLinkParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    targets = {link.target for link in found or []}
    assert (corpus_workspace / "prompts" / "research.yaml").as_uri() in targets
    assert all(t and Path(t.removeprefix("file://")).is_file() for t in targets)
