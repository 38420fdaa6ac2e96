"""End to end: a large workspace (the scan at ``initialized``, its progress, what waits
for it and what does not) and the workspace diagnostics (``workspaceDiagnostics``)."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsp_helpers import (
    PROFILES,
    diagnostics_for,
    initialize_params,
    open_doc,
    published,
    pull,
    pulls_diagnostics,
    server_config,
    wait_published,
)
from lsprotocol import types
from pytest_lsp import LanguageClient

from workspace_packs import workspace_pack

MANIFESTS = Path(__file__).resolve().parents[1] / "fixtures" / "manifests" / "workspace"
#: YAML files of the large workspace (one in ten a pack).
FILES = 1_500

SCAN_TITLE = "pack-lsp: indexing the workspace"
#: Longest wait for a message (a guard against a hang, never reached when all is well).
WAIT = 60.0


def large_workspace(root: Path) -> Path:
    for n in range(FILES):
        folder = root / f"d{n // 100:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        if n % 10 == 0:
            text = workspace_pack(f"pack{n}", "lookup")
            (folder / f"p{n}.promptpack.yaml").write_text(text, "utf-8")
        else:
            (folder / f"c{n}.yaml").write_text(f"service: s{n}\nreplicas: 2\n", "utf-8")
    shutil.copytree(MANIFESTS, root / "agents")
    return root


class MessageLog:
    """Every message the client receives, in the order it receives them."""

    def __init__(self, client: LanguageClient) -> None:
        self.entries: list[tuple[str, Any]] = []
        protocol = client.protocol
        handle = protocol.handle_message

        def recording(message: Any) -> Any:
            if hasattr(message, "method") and not hasattr(message, "id"):  # a notification
                self.entries.append((message.method, message.params))
            elif hasattr(message, "result"):  # a response
                self.entries.append(("response", message.result))
            return handle(message)

        protocol.handle_message = recording  # type: ignore[method-assign]

    def progress(self) -> list[tuple[int, Any, dict[str, Any]]]:
        """The ``$/progress`` notifications: (place in the log, token, value)."""
        return [
            (at, params.token, params.value)
            for at, (method, params) in enumerate(self.entries)
            if method == types.PROGRESS and isinstance(params.value, dict)
        ]

    def scan_token(self) -> Any:
        for _, token, value in self.progress():
            if value.get("kind") == "begin" and value.get("title") == SCAN_TITLE:
                return token
        return None

    def scan_end(self) -> int | None:
        """Where the end of the scan's progress is in the log (None: not yet)."""
        token = self.scan_token()
        for at, found, value in self.progress():
            if found == token and value.get("kind") == "end":
                return at
        return None

    def scan_reports(self) -> list[str]:
        token = self.scan_token()
        return [
            str(value.get("message"))
            for _, found, value in self.progress()
            if found == token and value.get("kind") == "report"
        ]

    async def wait_scan_end(self, client: LanguageClient) -> int:
        while True:
            found = self.scan_end()
            if found is not None:
                return found
            # No await between the look and this call: nothing arrives in between.
            await asyncio.wait_for(client.wait_for_notification(types.PROGRESS), WAIT)


@pytest.fixture
def big(tmp_path: Path) -> Path:
    return large_workspace(tmp_path / "ws")


@pytest_lsp.fixture(config=server_config(), params=PROFILES)
async def bclient(
    lsp_client: LanguageClient, request: pytest.FixtureRequest, big: Path
) -> AsyncIterator[LanguageClient]:
    """A client, in both profiles, whose root is the large workspace; its messages are
    logged from before ``initialize``."""
    lsp_client.message_log = MessageLog(lsp_client)  # type: ignore[attr-defined]
    await lsp_client.initialize_session(initialize_params(request.param, big))
    yield lsp_client
    await lsp_client.shutdown_session()


async def test_a_pack_opened_at_once_gets_its_diagnostics_before_the_scan_ends(
    bclient: LanguageClient, big: Path, tmp_path: Path
) -> None:
    log: MessageLog = bclient.message_log  # type: ignore[attr-defined]
    path = tmp_path / "open.promptpack.yaml"
    text = workspace_pack("opened", "missing_tool")
    uri = await open_doc(bclient, path, text, wait=False)
    if pulls_diagnostics(bclient):
        found = await pull(bclient, uri)
        answered = next(
            at
            for at, (method, result) in enumerate(log.entries)
            if method == "response"
            and isinstance(result, types.RelatedFullDocumentDiagnosticReport)
        )
    else:
        params = await wait_published(bclient, uri, 1)
        found = list(params.diagnostics)
        answered = next(
            at
            for at, (method, sent) in enumerate(log.entries)
            if method == types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS and sent.uri == uri
        )
    assert "PP301" in [d.code for d in found]
    end = await log.wait_scan_end(bclient)
    assert answered < end, "the open pack's diagnostics waited for the workspace scan"
    # The progress counted every file of the workspace.
    files = sum(1 for p in big.rglob("*") if p.is_file())
    reports = log.scan_reports()
    assert reports and all(r.startswith("Indexing ") for r in reports)
    assert reports[-1] == f"Indexing {files:,} / {files:,} files"


async def test_a_manifest_opened_at_once_is_checked_with_the_whole_workspace(
    bclient: LanguageClient, big: Path
) -> None:
    path = big / "agents" / "code_reviewer" / "manifest.yaml"
    uri = await open_doc(bclient, path, path.read_text(), wait=False)
    found = await diagnostics_for(bclient, uri, 1)
    # `kv` is defined by a manifest the editor never opened: known once the scan is in.
    assert not {"PM006", "PM012"} & {str(d.code) for d in found}, found
    located = await bclient.text_document_definition_async(
        types.DefinitionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=_position(path.read_text(), "kv"),
        )
    )
    assert isinstance(located, list) and located
    assert all(loc.uri.endswith("/agents/kv/manifest.yaml") for loc in located)


def _position(text: str, needle: str) -> types.Position:
    index = text.index(needle)  # ASCII text: the same in every encoding
    line = text.count("\n", 0, index)
    return types.Position(line=line, character=index - (text.rfind("\n", 0, index) + 1))


# ---------------------------------------------------------------- workspace diagnostics


def small_workspace(root: Path) -> Path:
    (root / "a").mkdir(parents=True)
    (root / "a" / "good.promptpack.yaml").write_text(workspace_pack("good", "lookup"))
    (root / "a" / "bad.promptpack.yaml").write_text(workspace_pack("bad", "missing"))
    (root / "a" / "other.yaml").write_text("service: s\n")
    return root


@pytest.fixture
def small(tmp_path: Path) -> Path:
    return small_workspace(tmp_path / "ws")


@pytest_lsp.fixture(config=server_config(), params=PROFILES)
async def wclient(
    lsp_client: LanguageClient, request: pytest.FixtureRequest, small: Path
) -> AsyncIterator[LanguageClient]:
    """A client, in both profiles, with ``workspaceDiagnostics`` on."""
    options = {"packLsp": {"workspaceDiagnostics": True}}
    published(lsp_client)  # log every publication from the start
    result = await lsp_client.initialize_session(initialize_params(request.param, small, options))
    lsp_client.server_capabilities = result.capabilities  # type: ignore[attr-defined]
    yield lsp_client
    await lsp_client.shutdown_session()


def _codes(diagnostics: Any) -> list[str]:
    return sorted(str(d.code) for d in diagnostics)


def _changed(client: LanguageClient, path: Path, kind: types.FileChangeType) -> None:
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=path.as_uri(), type=kind)])
    )


async def _workspace_report(
    client: LanguageClient, previous: dict[str, str]
) -> dict[str, types.WorkspaceDocumentDiagnosticReport]:
    report = await client.workspace_diagnostic_async(
        types.WorkspaceDiagnosticParams(
            previous_result_ids=[
                types.PreviousResultId(uri=uri, value=value) for uri, value in previous.items()
            ]
        )
    )
    return {item.uri: item for item in report.items}


async def test_workspace_diagnostics_report_every_pack_file(
    wclient: LanguageClient, small: Path
) -> None:
    good, bad = small / "a" / "good.promptpack.yaml", small / "a" / "bad.promptpack.yaml"
    if not pulls_diagnostics(wclient):
        first = await wait_published(wclient, bad.as_uri())
        assert "PP301" in _codes(first.diagnostics) and first.version is None
        assert list((await wait_published(wclient, good.as_uri())).diagnostics) == []
        # Changed on disk: checked again and pushed.
        bad.write_text(workspace_pack("bad", "lookup"))
        start = len(published(wclient))
        _changed(wclient, bad, types.FileChangeType.Changed)
        again = await wait_published(wclient, bad.as_uri(), start=start)
        assert list(again.diagnostics) == []
        # Deleted: cleared.
        good.unlink()
        start = len(published(wclient))
        _changed(wclient, good, types.FileChangeType.Deleted)
        assert list((await wait_published(wclient, good.as_uri(), start=start)).diagnostics) == []
        return
    caps = wclient.server_capabilities  # type: ignore[attr-defined]
    assert caps is not None and isinstance(caps.diagnostic_provider, types.DiagnosticOptions)
    assert caps.diagnostic_provider.workspace_diagnostics
    reports = await _workspace_report(wclient, {})
    assert set(reports) == {good.as_uri(), bad.as_uri()}
    full = reports[bad.as_uri()]
    assert isinstance(full, types.WorkspaceFullDocumentDiagnosticReport)
    assert "PP301" in _codes(full.items) and full.result_id
    ids = {uri: str(r.result_id) for uri, r in reports.items()}
    # Nothing changed: every report is unchanged.
    again = await _workspace_report(wclient, ids)
    assert all(
        isinstance(r, types.WorkspaceUnchangedDocumentDiagnosticReport) for r in again.values()
    )
    # Changed on disk: that file's report is new, the other one unchanged.
    bad.write_text(workspace_pack("bad", "lookup"))
    _changed(wclient, bad, types.FileChangeType.Changed)
    after = await _workspace_report(wclient, ids)
    changed = after[bad.as_uri()]
    assert isinstance(changed, types.WorkspaceFullDocumentDiagnosticReport)
    assert list(changed.items) == [] and changed.result_id != ids[bad.as_uri()]
    assert isinstance(after[good.as_uri()], types.WorkspaceUnchangedDocumentDiagnosticReport)


async def test_an_open_file_is_left_to_its_own_diagnostics_and_checked_again_when_closed(
    wclient: LanguageClient, small: Path
) -> None:
    bad = small / "a" / "bad.promptpack.yaml"
    uri = bad.as_uri()
    edited = workspace_pack("bad", "lookup")
    await open_doc(wclient, bad, edited)  # its buffer has no problem
    if pulls_diagnostics(wclient):
        reports = await _workspace_report(wclient, {})
        assert uri not in reports  # pulled as an open document
    start = len(published(wclient)) if not pulls_diagnostics(wclient) else 0
    wclient.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    if pulls_diagnostics(wclient):
        reports = await _workspace_report(wclient, {})
        closed = reports[uri]
        assert isinstance(closed, types.WorkspaceFullDocumentDiagnosticReport)
        assert "PP301" in _codes(closed.items)  # the file on disk again
        return
    log = published(wclient)
    while True:  # the empty publication of the close, then the file on disk's
        found = await wait_published(wclient, uri, start=start)
        start = log.index(found) + 1
        if found.diagnostics:
            break
    assert "PP301" in _codes(found.diagnostics) and found.version is None


# ------------------------------------ a pull client that asks late, or never (Neovim 0.11)

PULL_PROFILE = "neovim"  # declares textDocument.diagnostic (Neovim 0.10+)


@pytest_lsp.fixture(config=server_config())
async def pclient(lsp_client: LanguageClient, small: Path) -> AsyncIterator[LanguageClient]:
    """A client that declares pull diagnostics, with ``workspaceDiagnostics`` on; every
    message it receives is logged from before ``initialize``."""
    lsp_client.message_log = MessageLog(lsp_client)  # type: ignore[attr-defined]
    published(lsp_client)
    options = {"packLsp": {"workspaceDiagnostics": True}}
    result = await lsp_client.initialize_session(initialize_params(PULL_PROFILE, small, options))
    caps = result.capabilities.diagnostic_provider
    assert isinstance(caps, types.DiagnosticOptions) and caps.workspace_diagnostics
    yield lsp_client
    await lsp_client.shutdown_session()


def _uris(small: Path) -> tuple[str, str]:
    return (
        (small / "a" / "good.promptpack.yaml").as_uri(),
        (small / "a" / "bad.promptpack.yaml").as_uri(),
    )


async def test_a_pull_client_that_never_asks_gets_the_closed_files_pushed(
    pclient: LanguageClient, small: Path
) -> None:
    good, bad = _uris(small)
    first = await wait_published(pclient, bad)
    assert "PP301" in _codes(first.diagnostics) and first.version is None
    assert list((await wait_published(pclient, good)).diagnostics) == []
    # Changed on disk: checked again and pushed, still.
    path = small / "a" / "bad.promptpack.yaml"
    path.write_text(workspace_pack("bad", "lookup"))
    start = len(published(pclient))
    _changed(pclient, path, types.FileChangeType.Changed)
    assert list((await wait_published(pclient, bad, start=start)).diagnostics) == []


async def test_a_pull_client_asking_late_has_the_pushes_cleared_then_pulls(
    pclient: LanguageClient, small: Path
) -> None:
    log: MessageLog = pclient.message_log  # type: ignore[attr-defined]
    good, bad = _uris(small)
    await wait_published(pclient, bad)
    await wait_published(pclient, good)
    reports = await _workspace_report(pclient, {})
    assert set(reports) == {good, bad}
    full = reports[bad]
    assert isinstance(full, types.WorkspaceFullDocumentDiagnosticReport)
    assert "PP301" in _codes(full.items)
    answered = next(
        at
        for at, (method, result) in enumerate(log.entries)
        if method == "response" and isinstance(result, types.WorkspaceDiagnosticReport)
    )
    pushes = [
        (at, params)
        for at, (method, params) in enumerate(log.entries)
        if method == types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS
    ]
    for uri in (good, bad):
        mine = [(at, params) for at, params in pushes if params.uri == uri]
        # Pushed, then cleared before the pull's answer.
        assert len(mine) == 2, mine
        (_, shown), (cleared_at, cleared) = mine
        assert shown.version is None and list(cleared.diagnostics) == []
        assert cleared_at < answered
    assert "PP301" in _codes(pushes[[p.uri for _, p in pushes].index(bad)][1].diagnostics)
    # From now on, by pull only: a change on disk is reported by the next pull.
    ids = {uri: str(r.result_id) for uri, r in reports.items()}
    path = small / "a" / "bad.promptpack.yaml"
    path.write_text(workspace_pack("bad", "lookup"))
    start = len(published(pclient))
    _changed(pclient, path, types.FileChangeType.Changed)
    after = await _workspace_report(pclient, ids)
    changed = after[bad]
    assert isinstance(changed, types.WorkspaceFullDocumentDiagnosticReport)
    assert list(changed.items) == [] and changed.result_id != ids[bad]
    assert [p.uri for p in published(pclient)[start:]] == []


async def test_a_file_opened_in_a_pull_client_has_its_push_cleared(
    pclient: LanguageClient, small: Path
) -> None:
    _, bad = _uris(small)
    await wait_published(pclient, bad)
    start = len(published(pclient))
    path = small / "a" / "bad.promptpack.yaml"
    await open_doc(pclient, path, path.read_text())
    cleared = await wait_published(pclient, bad, start=start)
    assert list(cleared.diagnostics) == []
    assert "PP301" in _codes(await pull(pclient, bad))  # pulled as an open document


async def test_a_pull_client_asking_at_once_gets_no_push_of_closed_files(
    pclient: LanguageClient, small: Path
) -> None:
    """As VS Code: ``workspace/diagnostic`` right after ``initialized``, while the files
    are being checked."""
    good, bad = _uris(small)
    reports = await _workspace_report(pclient, {})
    assert set(reports) == {good, bad}
    ids = {uri: str(r.result_id) for uri, r in reports.items()}
    path = small / "a" / "bad.promptpack.yaml"
    path.write_text(workspace_pack("bad", "lookup"))
    _changed(pclient, path, types.FileChangeType.Changed)
    after = await _workspace_report(pclient, ids)  # waits for the check of the change
    assert isinstance(after[bad], types.WorkspaceFullDocumentDiagnosticReport)
    assert isinstance(after[good], types.WorkspaceUnchangedDocumentDiagnosticReport)
    assert published(pclient) == []
