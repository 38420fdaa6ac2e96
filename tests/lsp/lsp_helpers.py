"""Helpers for the end-to-end tests: positions in the client's encoding, waiting."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import (
    ClientServerConfig,
    LanguageClient,
    client_capabilities,
    make_test_lsp_client,
)

SERVER = [sys.executable, "-m", "pack_lsp"]
PROFILES = ("visual-studio-code", "neovim")


def editor_client() -> LanguageClient:
    """pytest-lsp's client, answering the server's dynamic registrations as an editor
    does (the file events the server asks for when the profile says it may)."""
    client = make_test_lsp_client()

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def _register(params: types.RegistrationParams) -> None:
        return None

    @client.feature(types.CLIENT_UNREGISTER_CAPABILITY)
    def _unregister(params: types.UnregistrationParams) -> None:
        return None

    return client


def server_config() -> ClientServerConfig:
    return ClientServerConfig(server_command=SERVER, client_factory=editor_client)


def initialize_params(profile: str, root: Path, options: Any = None) -> types.InitializeParams:
    return types.InitializeParams(
        capabilities=client_capabilities(profile),
        root_uri=root.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")],
        initialization_options=options,
    )


def encoding_of(client: LanguageClient) -> str:
    caps = client.capabilities
    offered = caps.general.position_encodings if caps and caps.general else None
    return str(offered[0]) if offered else "utf-16"


def units(text: str, encoding: str) -> int:
    """Length of ``text`` in the code units of ``encoding``."""
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    if encoding == "utf-32":
        return len(text)
    return len(text.encode("utf-16-le")) // 2


def pos(
    client: LanguageClient, text: str, needle: str, delta: int = 0, nth: int = 0
) -> types.Position:
    """LSP position of the ``nth`` occurrence of ``needle`` in ``text`` (+ delta chars)."""
    index = -1
    for _ in range(nth + 1):
        index = text.index(needle, index + 1)
    index += delta
    line = text.count("\n", 0, index)
    start = text.rfind("\n", 0, index) + 1
    return types.Position(line=line, character=units(text[start:index], encoding_of(client)))


def span_range(
    client: LanguageClient, text: str, needle: str, nth: int = 0, length: int | None = None
) -> types.Range:
    """Range of ``needle`` (or of its first ``length`` characters) in ``text``."""
    start = pos(client, text, needle, nth=nth)
    end = pos(client, text, needle, len(needle) if length is None else length, nth=nth)
    return types.Range(start=start, end=end)


async def open_doc(client: LanguageClient, path: Path, text: str, *, wait: bool = True) -> str:
    """Open ``text`` as ``path`` (not written to disk) and wait for its diagnostics."""
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=text)
        )
    )
    if wait:
        await diagnostics_for(client, uri, 1)
    return uri


def pulls_diagnostics(client: LanguageClient) -> bool:
    """True when the client declared pull diagnostics (the server then never pushes)."""
    caps = client.capabilities
    return bool(caps and caps.text_document and caps.text_document.diagnostic is not None)


async def pull(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    """``textDocument/diagnostic`` for ``uri``: the items of a full report."""
    report = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert isinstance(report, types.RelatedFullDocumentDiagnosticReport), report
    return list(report.items)


def published(client: LanguageClient) -> list[types.PublishDiagnosticsParams]:
    """Every ``publishDiagnostics`` the client received since the first call, in order.

    ``wait_for_notification`` resolves one future per call, so a notification that
    arrives in the same read as the one it returned reaches no waiter; waiting for a
    particular version that way can hang. The client's own handler sees every one,
    so it is wrapped (once per client) to keep a log.
    """
    log: list[types.PublishDiagnosticsParams] | None = getattr(client, "_published_log", None)
    if log is None:
        record: list[types.PublishDiagnosticsParams] = []
        features = client.protocol.fm.features
        handler = features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

        def recording(*args: Any, **kwargs: Any) -> Any:
            record.append(args[-1])
            return handler(*args, **kwargs)

        features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = recording
        client._published_log = record  # type: ignore[attr-defined]
        log = record
    return log


async def wait_published(
    client: LanguageClient, uri: str, version: int | None = None, *, start: int = 0
) -> types.PublishDiagnosticsParams:
    """The first publication for ``uri`` (at ``version`` when given) from entry
    ``start`` of the client's log (``published``) on, waiting for it if needed."""
    log = published(client)
    while True:
        for params in log[start:]:
            if params.uri == uri and (version is None or params.version == version):
                return params
        start = len(log)
        # No await between the scan and this call: nothing can arrive in between.
        await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)


async def diagnostics_for(
    client: LanguageClient, uri: str, version: int | None = None
) -> list[types.Diagnostic]:
    """The diagnostics of ``uri`` through the client's channel.

    A pull client asks for them (the server answers for the latest version it has
    received, so ``version`` needs no wait); a push client waits until they arrive
    (at ``version`` when given; without one, the next publication after this call).
    """
    if pulls_diagnostics(client):
        return await pull(client, uri)
    start = len(published(client))
    params = await wait_published(client, uri, version, start=start)
    return list(params.diagnostics)
