"""Arena projects in the server, without a client: the hooks of ``server.arena``.

The server is created as ``pack-lsp`` creates it; what it would send the client is
recorded instead of written (``published``), so the test runs with the other core
tests and needs no editor.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from lsprotocol import types

from pack_lsp.server.app import create_server
from pack_lsp.server.arena import ServerArena
from pack_lsp.server.documents import OpenDocument
from paths import HERE

HELPDESK = HERE / "data" / "arena" / "helpdesk"


def _server(folder: Path) -> tuple[Any, list[types.PublishDiagnosticsParams], list[str]]:
    server = create_server()
    published: list[types.PublishDiagnosticsParams] = []
    rechecked: list[str] = []
    server.text_document_publish_diagnostics = published.append  # type: ignore[method-assign]
    server.document_changed = lambda uri, **_: rechecked.append(uri)  # type: ignore[method-assign]
    server.refresh_diagnostics = lambda: None  # type: ignore[method-assign]
    server.workspace_folders = lambda: [folder]  # type: ignore[method-assign]
    from pygls.workspace import Workspace

    server.protocol._workspace = Workspace(folder.as_uri())
    return server, published, rechecked


def test_edit_of_a_prompt_config_republishes_the_files_that_depend_on_it(tmp_path: Path) -> None:
    folder = tmp_path / "helpdesk"
    shutil.copytree(HELPDESK, folder)
    server, published, rechecked = _server(folder)
    arena = server.arena
    assert isinstance(arena, ServerArena)
    arena.start()
    prompt = folder / "prompts" / "triage.yaml"
    scenario_uri = (folder / "scenarios" / "refund-request.scenario.yaml").as_uri()
    config_uri = (folder / "config.arena.yaml").as_uri()
    assert arena.member(prompt.as_uri()) and arena.diagnostics_for(scenario_uri) == ()
    # The config is open in the editor, the scenario is not.
    server.documents[config_uri] = OpenDocument(
        config_uri, 1, (folder / "config.arena.yaml").read_text("utf-8")
    )
    uri = prompt.as_uri()
    text = prompt.read_text("utf-8").replace("task_type: triage", "task_type: intake")
    server.documents[uri] = OpenDocument(uri, 2, text)
    arena.changed(uri)
    assert rechecked == [config_uri]  # open: analysed again through the scheduler
    (sent,) = published  # not open: analysed and published at once
    assert sent.uri == scenario_uri
    assert [d.code for d in sent.diagnostics] == ["PA106"]
    assert [d.code for d in arena.diagnostics_for(scenario_uri)] == ["PA106"]
    # The edited document's own analysis takes its project problems.
    found = server._analyze(
        config_uri, server.documents[config_uri].text, None, server.config_for(config_uri)
    )
    assert found is not None and "PP403" in {d.code for d in found.diagnostics}
