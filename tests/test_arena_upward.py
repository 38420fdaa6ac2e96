"""A file of an arena project is found from the file itself: the arena configs above it
that name it (``configs_naming``, ``ArenaWorkspace.find_projects``), as when an editor's
root is the opened file's own folder."""

from __future__ import annotations

import shutil
from pathlib import Path

from pack_lsp.core.checks.arena.workspace import UPWARD_LEVELS, ArenaWorkspace, configs_naming
from pack_lsp.core.model.arena.project import norm
from pack_lsp.server.arena import ServerArena
from pack_lsp.server.documents import OpenDocument
from paths import HERE
from recording_server import recording_server

PROBLEMS = HERE / "data" / "arena" / "helpdesk-problems"


def _project(tmp_path: Path, *under: str) -> Path:
    folder = tmp_path.joinpath(*under, "helpdesk")
    shutil.copytree(PROBLEMS, folder)
    return folder


def test_the_configs_naming_a_file_are_found_above_it(tmp_path: Path) -> None:
    folder = _project(tmp_path)
    # A second config naming the same prompt (a mock next to a live one), one naming
    # other files only, and a YAML file that is not an arena config.
    config = (folder / "config.arena.yaml").read_text("utf-8")
    (folder / "config.arena-mock.yaml").write_text(config, encoding="utf-8")
    (folder / "other.arena.yaml").write_text(
        config.replace("prompts/refunds.yaml", "prompts/other.yaml"), encoding="utf-8"
    )
    (folder / "docker-compose.yaml").write_text("services: {}\n", encoding="utf-8")
    prompt = folder / "prompts" / "refunds.yaml"
    assert configs_naming(prompt, home=tmp_path / "home") == [
        norm(folder / "config.arena-mock.yaml"),
        norm(folder / "config.arena.yaml"),
    ]
    # The triage prompt is named by all three.
    assert len(configs_naming(folder / "prompts" / "triage.yaml", home=tmp_path / "home")) == 3
    # A file no config names, and a file of no project at all.
    assert configs_naming(folder / "prompts" / "unnamed.yaml", home=tmp_path / "home") == []
    assert configs_naming(tmp_path / "lonely.yaml", home=tmp_path / "home") == []


def test_the_search_stops_at_a_repository_root_home_and_its_bound(tmp_path: Path) -> None:
    folder = _project(tmp_path)
    # A config above the file's folder by more than the bound is not looked for.
    deep = folder.joinpath(*["d"] * (UPWARD_LEVELS + 1), "far.yaml")
    deep.parent.mkdir(parents=True)
    deep.write_text("apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: Tool\n", "utf-8")
    config = folder / "config.arena.yaml"
    rel = deep.relative_to(folder).as_posix()
    config.write_text(
        config.read_text("utf-8").replace("prompts/refunds.yaml", rel), encoding="utf-8"
    )
    assert configs_naming(deep, home=tmp_path / "home") == []
    assert configs_naming(deep, levels=UPWARD_LEVELS + 1, home=tmp_path / "home") == [norm(config)]
    prompt = folder / "prompts" / "triage.yaml"
    # The home folder is not searched, nor anything above it.
    assert configs_naming(prompt, home=folder) == []
    # A repository's root is searched last: a config above it is another repository's.
    (folder / "prompts" / ".git").mkdir()
    assert configs_naming(prompt, home=tmp_path / "home") == []
    (folder / "prompts" / ".git").rmdir()
    (folder / ".git").mkdir()
    assert configs_naming(prompt, home=tmp_path / "home") == [norm(config)]


def test_find_projects_loads_the_projects_of_a_file_once(tmp_path: Path) -> None:
    folder = _project(tmp_path)
    prompt = folder / "prompts" / "refunds.yaml"
    workspace = ArenaWorkspace()
    assert workspace.projects_of(prompt) == []
    loaded = workspace.find_projects(prompt)
    assert norm(prompt) in loaded and norm(folder / "config.arena.yaml") in loaded
    assert [c.project.path for c in workspace.projects_of(prompt)] == [
        norm(folder / "config.arena.yaml")
    ]
    # Schema, project and compiled-pack problems of the file, as in the workspace's scan.
    assert {"PA109", "PP301", "PP104"} <= {d.code for d in workspace.diagnostics_for(prompt)}
    # Already a member, or already looked up: nothing more to load.
    assert workspace.find_projects(prompt) == set()
    assert workspace.find_projects(folder / "prompts" / "nothing.yaml") == set()
    assert workspace.find_projects(folder / "prompts" / "nothing.yaml") == set()


def test_the_server_loads_the_project_of_a_file_opened_outside_its_root(tmp_path: Path) -> None:
    folder = _project(tmp_path)
    prompts = folder / "prompts"
    server, published, rechecked = recording_server(prompts)  # the root is the opened file's folder
    arena = server.arena
    assert isinstance(arena, ServerArena)
    arena.start()
    uri = (prompts / "refunds.yaml").as_uri()
    assert not arena.member(uri)
    triage_uri = (prompts / "triage.yaml").as_uri()
    server.documents[triage_uri] = OpenDocument(
        triage_uri, 1, (prompts / "triage.yaml").read_text("utf-8")
    )
    server.documents[uri] = OpenDocument(uri, 1, (prompts / "refunds.yaml").read_text("utf-8"))
    arena.changed(uri)
    assert arena.member(uri)
    codes = {d.code for d in arena.diagnostics_for(uri)}
    assert {"PA109", "PP301", "PP104"} <= codes
    assert triage_uri in rechecked  # another open file of the project: analysed again
    # The files of the project that are not open, with problems, are published.
    scenario = (folder / "scenarios" / "refund-request.scenario.yaml").as_uri()
    assert scenario in {p.uri for p in published}
    found = server._analyze(uri, server.documents[uri].text, None, server.config_for(uri))
    assert found is not None and codes <= {d.code for d in found.diagnostics}


def test_the_server_does_not_look_upward_for_other_documents(tmp_path: Path) -> None:
    folder = _project(tmp_path)
    server, published, rechecked = recording_server(folder / "prompts")
    arena = server.arena
    assert isinstance(arena, ServerArena)
    pack = folder / "prompts" / "support.promptpack.yaml"
    pack.write_text("id: support\n", encoding="utf-8")
    server.documents[pack.as_uri()] = OpenDocument(pack.as_uri(), 1, "id: support\n")
    arena.changed(pack.as_uri())
    assert arena.workspace.configs() == [] and published == [] and rechecked == []
