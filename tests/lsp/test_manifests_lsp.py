"""End to end: agent-extension manifests across files (completion, definition, rename, re-checks).

The workspace is a copy of ``tests/fixtures/manifests/workspace`` (code_reviewer and
builder_agent use the ``kv`` tool extension); the server indexes it when the session
starts, so ids of manifests the editor never opened are known.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsp_helpers import (
    PROFILES,
    diagnostics_for,
    initialize_params,
    open_doc,
    pos,
    pulls_diagnostics,
    server_config,
    span_range,
)
from lsprotocol import types
from pytest_lsp import LanguageClient

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "manifests" / "workspace"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    shutil.copytree(FIXTURE, root)
    return root


@pytest_lsp.fixture(config=server_config(), params=PROFILES)
async def mclient(
    lsp_client: LanguageClient, request: pytest.FixtureRequest, workspace: Path
) -> AsyncIterator[LanguageClient]:
    await lsp_client.initialize_session(initialize_params(request.param, workspace))
    yield lsp_client
    await lsp_client.shutdown_session()


def refresh_supported(client: LanguageClient) -> bool:
    caps = client.capabilities
    diagnostics = caps.workspace.diagnostics if caps and caps.workspace else None
    return bool(diagnostics and diagnostics.refresh_support)


def key(rng: types.Range) -> tuple[int, int, int, int]:
    return (rng.start.line, rng.start.character, rng.end.line, rng.end.character)


def codes(diagnostics: list[types.Diagnostic]) -> list[str]:
    return sorted(str(d.code) for d in diagnostics)


def edits_by_uri(edit: types.WorkspaceEdit | None) -> dict[str, list[types.TextEdit]]:
    assert edit is not None
    if edit.changes is not None:
        return {uri: list(edits) for uri, edits in edit.changes.items()}
    out: dict[str, list[types.TextEdit]] = {}
    assert edit.document_changes
    for change in edit.document_changes:
        assert isinstance(change, types.TextDocumentEdit)
        out.setdefault(change.text_document.uri, []).extend(
            e for e in change.edits if isinstance(e, types.TextEdit)
        )
    return out


async def test_completion_offers_tool_extension_ids(
    mclient: LanguageClient, workspace: Path
) -> None:
    path = workspace / "code_reviewer" / "manifest.yaml"
    text = path.read_text().replace("  uses_tools:\n    - kv\n", "  uses_tools:\n    - \n")
    uri = await open_doc(mclient, path, text)
    result = await mclient.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=pos(mclient, text, "    - \n", len("    - ")),
        )
    )
    assert result is not None
    items = result.items if isinstance(result, types.CompletionList) else result
    labels = [i.label for i in items]
    # kv provides tools; builder_agent is an agent with code, code_reviewer is this file.
    assert "kv" in labels
    assert "code_reviewer" not in labels


async def test_definition_goes_into_the_other_manifest(
    mclient: LanguageClient, workspace: Path
) -> None:
    path = workspace / "code_reviewer" / "manifest.yaml"
    text = path.read_text()
    uri = await open_doc(mclient, path, text)
    result = await mclient.text_document_definition_async(
        types.DefinitionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=pos(mclient, text, "    - kv", len("    - k")),
        )
    )
    assert isinstance(result, list) and len(result) == 1
    target = result[0]
    assert isinstance(target, types.Location)
    kv_path = workspace / "kv" / "manifest.yaml"
    assert target.uri == kv_path.as_uri()
    kv_text = kv_path.read_text()
    assert target.range == span_range(mclient, kv_text, "kv", nth=0)


async def test_rename_edits_every_manifest(mclient: LanguageClient, workspace: Path) -> None:
    kv_path = workspace / "kv" / "manifest.yaml"
    text = kv_path.read_text()
    uri = await open_doc(mclient, kv_path, text)
    edit = await mclient.text_document_rename_async(
        types.RenameParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=pos(mclient, text, "id: kv", len("id: k")),
            new_name="store",
        )
    )
    by_uri = edits_by_uri(edit)
    reviewer = (workspace / "code_reviewer" / "manifest.yaml").as_uri()
    builder = (workspace / "builder_agent" / "manifest.yaml").as_uri()
    assert set(by_uri) == {uri, reviewer, builder}
    assert all(e.new_text == "store" for edits in by_uri.values() for e in edits)
    assert len(by_uri[uri]) == 1
    assert len(by_uri[reviewer]) == 2  # uses_tools and depends_on
    assert len(by_uri[builder]) == 2
    reviewer_text = (workspace / "code_reviewer" / "manifest.yaml").read_text()
    assert sorted(key(e.range) for e in by_uri[reviewer]) == sorted(
        key(span_range(mclient, reviewer_text, "kv", nth=n)) for n in (0, 1)
    )


async def test_renaming_an_id_rechecks_the_open_manifests_naming_it(
    mclient: LanguageClient, workspace: Path
) -> None:
    reviewer_path = workspace / "code_reviewer" / "manifest.yaml"
    reviewer_text = reviewer_path.read_text()
    reviewer = await open_doc(mclient, reviewer_path, reviewer_text, wait=False)
    assert "PM006" not in codes(await diagnostics_for(mclient, reviewer, 1))

    kv_path = workspace / "kv" / "manifest.yaml"
    kv_text = kv_path.read_text()
    kv = await open_doc(mclient, kv_path, kv_text)
    refreshed = asyncio.Event()
    features = mclient.protocol.fm.features
    on_refresh = features[types.WORKSPACE_DIAGNOSTIC_REFRESH]

    def record_refresh(params: None) -> None:
        refreshed.set()
        on_refresh(params)

    features[types.WORKSPACE_DIAGNOSTIC_REFRESH] = record_refresh
    mclient.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=kv, version=2),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=span_range(mclient, kv_text, "kv", nth=0), text="store"
                )
            ],
        )
    )
    if pulls_diagnostics(mclient):
        # Pulled after the change: the server answers with the index it brought up
        # to date; a client that declared refresh support is also asked to re-pull.
        if refresh_supported(mclient):
            await asyncio.wait_for(refreshed.wait(), timeout=30)
        found = await diagnostics_for(mclient, reviewer)
    else:
        found = await diagnostics_for(mclient, reviewer, 1)
    # depends_on: PM006 (yodoca stops); uses_tools: PM012 (yodoca drops the id).
    unknown = [d for d in found if d.code in ("PM006", "PM012")]
    assert sorted(d.code for d in unknown) == ["PM006", "PM012"], found
    assert sorted(key(d.range) for d in unknown) == sorted(
        key(span_range(mclient, reviewer_text, "kv", nth=n)) for n in (0, 1)
    )
