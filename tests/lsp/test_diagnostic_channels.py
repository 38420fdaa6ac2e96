"""One diagnostics channel per client: every problem reaches the editor exactly once.

A client that declares ``textDocument.diagnostic`` (VS Code with
vscode-languageclient 9, Neovim 0.10+) shows pulled and pushed diagnostics side by
side; the server must serve it by pull only. Clients without that capability
(VS Code 1.65, Neovim 0.7, Emacs/eglot) get push only.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio
import pytest_lsp
from lsp_helpers import SERVER, editor_client, published, pull, wait_published
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

#: Two problems: an unknown top-level key and a ``tools`` value that is not a list.
TEXT = """\
id: demo
name: "Café 😀"
version: 1.0.0
bogus: 1
template_engine: {version: v1, syntax: "{{variable}}"}
prompts:
  support: {id: support, name: Support 😀, version: 1.0.0, system_template: Hi, tools: x}
"""

PUSH_PROFILES = ("visual-studio-code", "neovim@v0.7.0", "emacs")
PULL_PROFILES = ("neovim@v0.11.0", "vscode-languageclient-9")


def capabilities(profile: str) -> types.ClientCapabilities:
    """Captured client capabilities; ``vscode-languageclient-9`` adds what VS Code's
    current client declares for pull diagnostics (dynamic registration, refresh)."""
    if profile != "vscode-languageclient-9":
        return client_capabilities(profile)
    caps = client_capabilities("visual-studio-code")
    assert caps.text_document is not None and caps.workspace is not None
    caps.text_document.diagnostic = types.DiagnosticClientCapabilities(
        dynamic_registration=True, related_document_support=False
    )
    caps.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
    return caps


@dataclass
class Session:
    client: LanguageClient
    result: types.InitializeResult
    pushed: list[types.PublishDiagnosticsParams]
    refreshed: asyncio.Event
    closed: bool = False

    async def shutdown(self) -> None:
        """End the session; afterwards every message the server sent has been read."""
        self.closed = True
        await self.client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=editor_client))
async def lsp_process(lsp_client: LanguageClient) -> AsyncIterator[None]:
    """The server process and a client connected to it (not yet initialised).

    A generator: pytest-lsp runs the fixture's body only up to its ``yield`` (a
    coroutine body would be created and never awaited)."""
    yield


@pytest_asyncio.fixture(params=PUSH_PROFILES + PULL_PROFILES)
async def session(
    lsp_process: LanguageClient, request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[Session]:
    lsp_client = lsp_process
    pushed: list[types.PublishDiagnosticsParams] = []
    refreshed = asyncio.Event()
    features = lsp_client.protocol.fm.features
    on_publish = features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]
    on_refresh = features[types.WORKSPACE_DIAGNOSTIC_REFRESH]

    def record_publish(params: types.PublishDiagnosticsParams) -> None:
        pushed.append(params)
        on_publish(params)

    def record_refresh(params: None) -> None:
        refreshed.set()
        on_refresh(params)

    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = record_publish
    features[types.WORKSPACE_DIAGNOSTIC_REFRESH] = record_refresh
    result = await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities(request.param),
            root_uri=tmp_path.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=tmp_path.as_uri(), name="ws")],
            initialization_options={"changeDelay": 0},
        )
    )
    session = Session(lsp_client, result, pushed, refreshed)
    yield session
    if not session.closed:
        await session.shutdown()


def _is_pull(session: Session) -> bool:
    caps = session.client.capabilities
    return bool(caps and caps.text_document and caps.text_document.diagnostic is not None)


def _keys(diags: list[types.Diagnostic]) -> list[tuple[str, int, int]]:
    return [
        (str(d.code), d.range.start.line, d.range.start.character)
        for d in sorted(diags, key=lambda d: (d.range.start.line, d.range.start.character))
    ]


def _open(client: LanguageClient, uri: str) -> None:
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=TEXT)
        )
    )


def _remove_bogus(client: LanguageClient, uri: str) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(
                        start=types.Position(line=3, character=0),
                        end=types.Position(line=4, character=0),
                    ),
                    text="",
                )
            ],
        )
    )


async def _published(session: Session, uri: str, version: int) -> list[types.Diagnostic]:
    client = session.client
    params = await wait_published(client, uri, version, start=len(published(client)))
    return list(params.diagnostics)


async def test_each_problem_arrives_once_through_the_clients_channel(
    session: Session, tmp_path: Path
) -> None:
    client = session.client
    uri = (tmp_path / "demo.promptpack.yaml").as_uri()
    provider = session.result.capabilities.diagnostic_provider

    if not _is_pull(session):
        # Push only: no pull provider is offered, so the client cannot ask twice.
        assert provider is None
        _open(client, uri)
        first = await _published(session, uri, 1)
        assert [k[0] for k in _keys(first)] == ["PP102", "PP103"]
        with pytest.raises(JsonRpcException):
            await pull(client, uri)
        _remove_bogus(client, uri)
        second = await _published(session, uri, 2)
        assert [k[0] for k in _keys(second)] == ["PP103"]
        await session.shutdown()
        mine = [p for p in session.pushed if p.uri == uri]
        versions = [p.version for p in mine]
        assert versions == sorted(set(versions)), "a version was published twice"
        for params in mine:
            keys = _keys(list(params.diagnostics))
            assert len(keys) == len(set(keys)), "a problem was listed twice"
        return

    # Pull only: the provider is declared and nothing is ever pushed.
    assert isinstance(provider, types.DiagnosticOptions)
    assert provider.inter_file_dependencies is False
    _open(client, uri)
    first = await pull(client, uri)
    assert [k[0] for k in _keys(first)] == ["PP102", "PP103"]
    _remove_bogus(client, uri)
    second = await pull(client, uri)
    assert [k[0] for k in _keys(second)] == ["PP103"]

    # A settings change alters results without an edit: a client with refresh
    # support is asked to pull again; the next pull has the new result either way.
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"packLsp": {"ignore": ["PP103"]}})
    )
    refresh = get_refresh(session)
    if refresh:
        await asyncio.wait_for(session.refreshed.wait(), timeout=30)
    assert await pull(client, uri) == []
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    await session.shutdown()
    assert session.pushed == [], "a pull client was also sent publishDiagnostics"
    assert session.refreshed.is_set() == refresh


def get_refresh(session: Session) -> bool:
    caps = session.client.capabilities
    diagnostics = caps.workspace.diagnostics if caps and caps.workspace else None
    return bool(diagnostics and diagnostics.refresh_support)
