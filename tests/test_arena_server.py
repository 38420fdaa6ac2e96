"""Arena projects in the server, without a client: the hooks of ``server.arena``.

The server is created as ``pack-lsp`` creates it; what it would send the client is
recorded instead of written (``published``), so the test runs with the other core
tests and needs no editor.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from lsprotocol import types

from pack_lsp.server.arena import ServerArena
from pack_lsp.server.documents import OpenDocument
from paths import HERE
from recording_server import recording_server

HELPDESK = HERE / "data" / "arena" / "helpdesk"


def test_edit_of_a_prompt_config_republishes_the_files_that_depend_on_it(tmp_path: Path) -> None:
    folder = tmp_path / "helpdesk"
    shutil.copytree(HELPDESK, folder)
    server, published, rechecked = recording_server(folder)
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


def test_definition_references_and_rename_through_the_handlers(tmp_path: Path) -> None:
    from pack_lsp.server import navigation, rename

    folder = tmp_path / "helpdesk"
    shutil.copytree(HELPDESK, folder)
    server, _, _ = recording_server(folder)
    server.arena.start()
    scenario = folder / "scenarios" / "refund-request.scenario.yaml"
    uri = scenario.as_uri()
    text = scenario.read_text("utf-8")
    analysis = server._analyze(uri, text, None, server.config_for(uri))
    assert analysis is not None
    snap = server.snapshot_of(uri, 1, analysis)
    assert snap.kind == "arena-document"  # answered by the features' arena handlers
    line = text[: text.index("task_type: triage")].count("\n")
    position = types.Position(line=line, character=len("  task_type: tr"))
    ident = types.TextDocumentIdentifier(uri=uri)
    (found,) = navigation.DEFINITION.handler(snap.kind)(
        snap, types.DefinitionParams(text_document=ident, position=position)
    )
    assert found.uri == (folder / "prompts" / "triage.yaml").as_uri()
    assert found.range.start == types.Position(line=5, character=13)
    refs = navigation.REFERENCES.handler(snap.kind)(
        snap,
        types.ReferenceParams(
            text_document=ident,
            position=position,
            context=types.ReferenceContext(include_declaration=True),
        ),
    )
    assert {r.uri for r in refs} == {
        uri,
        (folder / "prompts" / "triage.yaml").as_uri(),
        (folder / "config.arena.yaml").as_uri(),
    }
    edit = rename.RENAME.handler(snap.kind)(
        snap, types.RenameParams(text_document=ident, position=position, new_name="intake")
    )
    assert isinstance(edit, types.WorkspaceEdit) and edit.changes is not None
    assert len(edit.changes) == 3
    assert all(e.new_text == "intake" for edits in edit.changes.values() for e in edits)
    refused = rename.RENAME.handler(snap.kind)(
        snap, types.RenameParams(text_document=ident, position=position, new_name="refunds")
    )
    assert refused == "The project already has a task type `refunds`"


def test_a_saved_configuration_file_rechecks_the_projects_with_it(tmp_path: Path) -> None:
    """The projects are checked with their folder's configuration, after an edit as at
    the start, and saving ``.pack-lsp.toml`` re-checks them with the new one."""
    folder = tmp_path / "helpdesk"
    shutil.copytree(HELPDESK, folder)
    toml = folder / ".pack-lsp.toml"
    toml.write_text('ignore = ["PP403"]\n', encoding="utf-8")
    server, published, _ = recording_server(folder)
    arena = server.arena
    assert isinstance(arena, ServerArena)
    arena.start()
    prompt = folder / "prompts" / "triage.yaml"
    config_uri = (folder / "config.arena.yaml").as_uri()
    uri = prompt.as_uri()
    text = prompt.read_text("utf-8").replace("task_type: triage", "task_type: intake")
    server.documents[uri] = OpenDocument(uri, 2, text)
    arena.changed(uri)
    # The workflow state naming `triage` is a PP403 of the compiled pack: ignored.
    assert "PP403" not in {d.code for d in arena.diagnostics_for(config_uri)}
    published.clear()
    toml.write_text("", encoding="utf-8")
    arena.changed(toml.as_uri())
    assert "PP403" in {d.code for d in arena.diagnostics_for(config_uri)}
    assert config_uri in {p.uri for p in published}  # not open: published at once
