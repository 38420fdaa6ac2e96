"""Protocol behaviour: encodings, incremental sync, diagnostics push/pull, settings,
robustness and exit with the client process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from lsp_helpers import (
    SERVER,
    diagnostics_for,
    open_doc,
    pos,
    published,
    pull,
    pulls_diagnostics,
    span_range,
    wait_published,
)
from lsprotocol import types
from packs import PACK
from pytest_lsp import LanguageClient

EMOJI_PACK = """\
id: demo
name: "Café 😀"
version: 1.0.0
template_engine: {version: v1, syntax: "{{variable}}"}
prompts:
  support: {id: support, name: Support 😀𝄞, version: 1.0.0, system_template: Hi, tools: x}
"""


def _change(client: LanguageClient, uri: str, version: int, rng: types.Range, text: str) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangePartial(range=rng, text=text)],
        )
    )


async def test_diagnostic_range_after_emoji(client: LanguageClient, tmp_path: Path) -> None:
    uri = await open_doc(client, tmp_path / "demo.promptpack.yaml", EMOJI_PACK, wait=False)
    diags = await diagnostics_for(client, uri, 1)
    by_code = {d.code: d for d in diags}
    assert by_code["PP103"].range == span_range(client, EMOJI_PACK, "x}", length=1)
    d = by_code["PP103"]
    assert d.source == "pack-lsp"
    assert d.code_description is not None and d.code_description.href.endswith("#pp103")


async def test_incremental_edits_with_emoji_and_crlf(
    client: LanguageClient, tmp_path: Path
) -> None:
    text = EMOJI_PACK.replace("\n", "\r\n")
    uri = await open_doc(client, tmp_path / "demo.promptpack.yaml", text, wait=False)
    diags = await diagnostics_for(client, uri, 1)
    assert [d.code for d in diags] == ["PP103"]
    assert diags[0].range == span_range(client, text.replace("\r\n", "\n"), "x}", length=1)
    # Replace the `x` after the emoji and the surrogate pair by a list.
    at = span_range(client, text.replace("\r\n", "\n"), "x}", length=1)
    _change(client, uri, 2, at, "[]")
    assert await diagnostics_for(client, uri, 2) == []
    # Insert an unknown key right after the emoji on line 1: reported exactly there.
    line1 = text.replace("\r\n", "\n")
    at1 = pos(client, line1, '😀"', 2)
    _change(client, uri, 3, types.Range(start=at1, end=at1), " ")
    _change(
        client,
        uri,
        4,
        types.Range(
            start=types.Position(line=2, character=0), end=types.Position(line=2, character=0)
        ),
        "bogus: 1\r\n",
    )
    diags = await diagnostics_for(client, uri, 4)
    assert len(diags) == 1 and diags[0].code.startswith("PP1")
    assert diags[0].range.start == types.Position(line=2, character=0)
    assert diags[0].range.end == types.Position(line=2, character=5)


async def test_only_latest_version_is_published(client: LanguageClient, tmp_path: Path) -> None:
    if pulls_diagnostics(client):
        pytest.skip("push clients only: a pull client asks for the version it has")
    uri = await open_doc(client, tmp_path / "demo.promptpack.yaml", EMOJI_PACK)
    log = published(client)
    start = len(log)
    for version in range(2, 7):
        _change(
            client,
            uri,
            version,
            types.Range(
                start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)
            ),
            "",
        )
    await wait_published(client, uri, 6, start=start)
    seen = [p.version for p in log[start:] if p.uri == uri]
    # Never an older version after a newer one, and each version at most once (a
    # cheap analysis runs at once, so intermediate versions may be published).
    assert seen == sorted(set(seen))


async def test_close_clears_pushed_diagnostics(client: LanguageClient, tmp_path: Path) -> None:
    uri = await open_doc(client, tmp_path / "demo.promptpack.yaml", EMOJI_PACK, wait=False)
    assert [d.code for d in await diagnostics_for(client, uri, 1)] == ["PP103"]
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    if pulls_diagnostics(client):
        # A pull client drops a closed document's results itself; pulling an
        # unopened file answers from the disk (nothing there).
        assert await pull(client, uri) == []
    else:
        assert await diagnostics_for(client, uri) == []


async def test_related_tags_and_data(client: LanguageClient, tmp_path: Path) -> None:
    text = PACK.replace("version: 1.0.0\n", "version: 1.0.0\nid: again\n", 1)
    uri = await open_doc(client, tmp_path / "demo.promptpack.yaml", text, wait=False)
    diags = await diagnostics_for(client, uri, 1)
    dup = [d for d in diags if d.code == "PP005"]
    assert dup, diags
    later = next(d for d in dup if d.range == span_range(client, text, "id", nth=1))
    assert later.related_information
    assert later.related_information[0].location.range == span_range(client, text, "id")
    assert later.data == {"key": "id"}


async def test_non_pack_documents_are_left_alone(client: LanguageClient, tmp_path: Path) -> None:
    other = await open_doc(client, tmp_path / "other.yaml", "a: {{\n", wait=False)
    uri = await open_doc(client, tmp_path / "x.promptpack.yaml", EMOJI_PACK)
    if pulls_diagnostics(client):
        assert await pull(client, other) == []
    else:
        assert uri in client.diagnostics
        assert other not in client.diagnostics


async def test_server_survives_broken_documents(client: LanguageClient, tmp_path: Path) -> None:
    for i, junk in enumerate(["\x00\x01: [", "prompts: !!python/object {}", "{" * 500, "- *a"]):
        await open_doc(client, tmp_path / f"j{i}.promptpack.yaml", junk)
    uri = await open_doc(client, tmp_path / "ok.promptpack.yaml", EMOJI_PACK, wait=False)
    assert [d.code for d in await diagnostics_for(client, uri, 1)] == ["PP103"]


async def test_settings_from_configuration(client: LanguageClient, tmp_path: Path) -> None:
    client.set_configuration({"ignore": ["PP103"]}, section="packLsp")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    uri = await open_doc(client, tmp_path / "demo.promptpack.yaml", EMOJI_PACK, wait=False)
    while True:
        diags = await diagnostics_for(client, uri)
        if not diags:
            break
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"packLsp": {"severity": {"PP103": "hint"}}})
    )
    while True:
        diags = await diagnostics_for(client, uri)
        if diags:
            break
    assert diags[0].severity == types.DiagnosticSeverity.Hint


async def test_bad_settings_show_message(client: LanguageClient, tmp_path: Path) -> None:
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"packLsp": {"profile": "nonsense"}})
    )
    uri = await open_doc(client, tmp_path / "demo.promptpack.yaml", EMOJI_PACK, wait=False)
    await client.wait_for_notification(types.WINDOW_SHOW_MESSAGE)
    assert any("profile" in m.message for m in client.messages)
    diags = await diagnostics_for(client, uri)
    assert [d.code for d in diags] == ["PP103"]  # defaults still apply


async def test_file_configuration_merges_with_settings(
    client: LanguageClient, tmp_path: Path
) -> None:
    (tmp_path / ".pack-lsp.toml").write_text('severity = { PP103 = "information" }\n')
    uri = await open_doc(client, tmp_path / "demo.promptpack.yaml", EMOJI_PACK, wait=False)
    diags = await diagnostics_for(client, uri, 1)
    assert diags[0].severity == types.DiagnosticSeverity.Information


def _message(payload: dict[str, object]) -> bytes:
    body = json.dumps(payload).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def test_exits_when_client_process_dies() -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE
    )
    server = subprocess.Popen(
        SERVER, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        assert server.stdin is not None and parent.stdin is not None
        server.stdin.write(
            _message(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {"processId": parent.pid, "capabilities": {}},
                }
            )
        )
        server.stdin.flush()
        parent.stdin.close()
        parent.wait(timeout=30)
        # stdin stays open: only the processId check can make the server exit.
        assert server.wait(timeout=30) == 0
    finally:
        if server.poll() is None:
            server.kill()
            pytest.fail("the server did not exit after its client process died")


def test_a_cancel_for_an_answered_request_writes_nothing_to_stderr() -> None:
    """Clients cancel requests whose answer is already on its way (VS Code for every
    superseded code lens or inlay hint request); pygls logged each as a warning, which the
    editor showed as a bare "Cancel notification for unknown message id" line."""
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 1}},
        {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 99}},
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    proc = subprocess.run(
        SERVER,
        input=b"".join(_message(m) for m in messages),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert b'"id": 2' in proc.stdout or b'"id":2' in proc.stdout, proc.stdout[-500:]
    assert b"Cancel notification" not in proc.stderr, proc.stderr.decode(errors="replace")
