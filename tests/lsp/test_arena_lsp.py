"""End to end: an arena project in the editor (diagnostics, navigation, fixes, cards).

The workspace is a copy of ``tests/data/arena/helpdesk-problems``, the helpdesk project
with deliberate problems: a PromptConfig with a schema error, a tool of an undeclared
MCP server (PA109), a misspelt tool (PP301 of the compiled pack) and a tool choice the
pack schema refuses (PP104 of the compiled pack); the arena config's workflow runs a
misspelt prompt (PP403). The server loads the project when the session starts, so
files the editor never opened are known.
"""

from __future__ import annotations

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
    pos,
    published,
    pulls_diagnostics,
    server_config,
    span_range,
    wait_published,
)
from lsprotocol import types
from pytest_lsp import LanguageClient
from test_manifests_lsp import codes, edits_by_uri, key

from paths import HERE

PROBLEMS = HERE / "data" / "arena" / "helpdesk-problems"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "helpdesk"
    shutil.copytree(PROBLEMS, root)
    return root


def _by_code(found: list[types.Diagnostic]) -> dict[str, list[types.Range]]:
    out: dict[str, list[types.Range]] = {}
    for diag in found:
        out.setdefault(str(diag.code), []).append(diag.range)
    return out


def _word(client: LanguageClient, text: str, context: str, word: str) -> types.Range:
    """The range of ``word`` in the first occurrence of ``context``."""
    at = context.index(word)
    return types.Range(
        start=pos(client, text, context, at), end=pos(client, text, context, at + len(word))
    )


def _change(client: LanguageClient, uri: str, version: int, rng: types.Range, text: str) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangePartial(range=rng, text=text)],
        )
    )


def _field(obj: Any, name: str) -> Any:
    return obj[name] if isinstance(obj, dict) else getattr(obj, name)


async def test_a_prompt_config_shows_schema_project_and_compiled_pack_problems_on_its_lines(
    aclient: LanguageClient, workspace: Path
) -> None:
    path = workspace / "prompts" / "refunds.yaml"
    text = path.read_text()
    uri = await open_doc(aclient, path, text, wait=False)
    found = _by_code(await diagnostics_for(aclient, uri, 1))
    # The PromptConfig schema: the misspelt key, where it is written.
    assert found["PP102"] == [span_range(aclient, text, "descripton")]
    # The project: a tool of an MCP server the arena config does not declare.
    assert found["PA109"] == [span_range(aclient, text, "mcp__files__read")]
    # The compiled pack: its tool and schema rules, on the lines they come from.
    assert found["PP301"] == [span_range(aclient, text, "lookup_ordr")]
    assert found["PP104"] == [span_range(aclient, text, "sometimes")]


@pytest_lsp.fixture(config=server_config(), params=PROFILES)
async def subfolder_client(
    lsp_client: LanguageClient, request: pytest.FixtureRequest, workspace: Path
) -> AsyncIterator[LanguageClient]:
    """A client whose root is the project's ``prompts/`` folder, as eglot's is without a
    repository: the arena config is above the root."""
    await lsp_client.initialize_session(initialize_params(request.param, workspace / "prompts"))
    yield lsp_client
    await lsp_client.shutdown_session()


async def test_a_file_opened_below_the_arena_config_finds_its_project(
    subfolder_client: LanguageClient, workspace: Path
) -> None:
    client = subfolder_client
    path = workspace / "prompts" / "refunds.yaml"
    text = path.read_text()
    uri = await open_doc(client, path, text, wait=False)
    found = _by_code(await diagnostics_for(client, uri, 1))
    assert found["PP102"] == [span_range(client, text, "descripton")]
    assert found["PA109"] == [span_range(client, text, "mcp__files__read")]
    assert found["PP301"] == [span_range(client, text, "lookup_ordr")]
    assert found["PP104"] == [span_range(client, text, "sometimes")]
    # A scenario outside the root leads to the prompt config it names.
    scenario = workspace / "scenarios" / "refund-request.scenario.yaml"
    scenario_text = scenario.read_text()
    scenario_uri = await open_doc(client, scenario, scenario_text, wait=False)
    result = await client.text_document_definition_async(
        types.DefinitionParams(
            text_document=types.TextDocumentIdentifier(uri=scenario_uri),
            position=pos(client, scenario_text, "task_type: triage", len("task_type: tri")),
        )
    )
    assert isinstance(result, list) and len(result) == 1
    triage = workspace / "prompts" / "triage.yaml"
    assert result[0].uri == triage.as_uri()
    assert result[0].range == _word(client, triage.read_text(), "task_type: triage", "triage")


async def test_the_arena_config_shows_the_workflow_problem_of_the_compiled_pack(
    aclient: LanguageClient, workspace: Path
) -> None:
    path = workspace / "config.arena.yaml"
    text = path.read_text()
    uri = await open_doc(aclient, path, text, wait=False)
    found = _by_code(await diagnostics_for(aclient, uri, 1))
    assert found["PP403"] == [_word(aclient, text, "prompt_task: refund\n", "refund")]


async def test_definition_goes_from_a_scenario_and_the_workflow_to_the_prompt_config(
    aclient: LanguageClient, workspace: Path
) -> None:
    triage = workspace / "prompts" / "triage.yaml"
    triage_text = triage.read_text()
    target = _word(aclient, triage_text, "task_type: triage", "triage")
    cases = [
        (workspace / "scenarios" / "refund-request.scenario.yaml", "task_type: triage"),
        (workspace / "config.arena.yaml", "prompt_task: triage"),
    ]
    for path, context in cases:
        text = path.read_text()
        uri = await open_doc(aclient, path, text, wait=False)
        result = await aclient.text_document_definition_async(
            types.DefinitionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=pos(aclient, text, context, len(context) - 2),
            )
        )
        assert isinstance(result, list) and len(result) == 1, (path, result)
        (found,) = result
        assert isinstance(found, types.Location)
        assert (found.uri, found.range) == (triage.as_uri(), target)


async def test_references_and_rename_of_a_task_type_cross_the_project(
    aclient: LanguageClient, workspace: Path
) -> None:
    triage = workspace / "prompts" / "triage.yaml"
    text = triage.read_text()
    uri = await open_doc(aclient, triage, text, wait=False)
    at = pos(aclient, text, "task_type: triage", len("task_type: tr"))
    ident = types.TextDocumentIdentifier(uri=uri)
    config = workspace / "config.arena.yaml"
    scenario = workspace / "scenarios" / "refund-request.scenario.yaml"
    config_text, scenario_text = config.read_text(), scenario.read_text()
    # Where `triage` names the prompt config in the arena config: its id, the
    # workflow's prompt_task, the agents' entry and member key (not the state names).
    in_config = [
        _word(aclient, config_text, "- id: triage", "triage"),
        _word(aclient, config_text, "prompt_task: triage", "triage"),
        _word(aclient, config_text, "agents:\n    entry: triage", "triage"),
        _word(aclient, config_text, "members:\n      triage", "triage"),
    ]
    refs = await aclient.text_document_references_async(
        types.ReferenceParams(
            text_document=ident,
            position=at,
            context=types.ReferenceContext(include_declaration=True),
        )
    )
    assert refs is not None
    assert sorted((r.uri, key(r.range)) for r in refs) == sorted(
        [(uri, key(_word(aclient, text, "task_type: triage", "triage")))]
        + [(config.as_uri(), key(r)) for r in in_config]
        + [(scenario.as_uri(), key(_word(aclient, scenario_text, "task_type: triage", "triage")))]
    )

    prepared = await aclient.text_document_prepare_rename_async(
        types.PrepareRenameParams(text_document=ident, position=at)
    )
    assert isinstance(prepared, types.PrepareRenamePlaceholder)
    assert prepared.placeholder == "triage"
    edit = await aclient.text_document_rename_async(
        types.RenameParams(text_document=ident, position=at, new_name="intake")
    )
    by_uri = edits_by_uri(edit)
    assert set(by_uri) == {uri, config.as_uri(), scenario.as_uri()}
    assert all(e.new_text == "intake" for edits in by_uri.values() for e in edits)
    assert sorted(key(e.range) for e in by_uri[config.as_uri()]) == sorted(
        key(r) for r in in_config
    )
    assert [key(e.range) for e in by_uri[scenario.as_uri()]] == [
        key(_word(aclient, scenario_text, "task_type: triage", "triage"))
    ]


async def test_an_edit_republishes_the_files_that_depend_on_it_open_or_not(
    aclient: LanguageClient, workspace: Path
) -> None:
    config = workspace / "config.arena.yaml"
    config_text = config.read_text()
    config_uri = await open_doc(aclient, config, config_text, wait=False)
    assert "PP403" in codes(await diagnostics_for(aclient, config_uri, 1))
    triage = workspace / "prompts" / "triage.yaml"
    text = triage.read_text()
    uri = await open_doc(aclient, triage, text, wait=False)
    await diagnostics_for(aclient, uri, 1)
    scenario_uri = (workspace / "scenarios" / "refund-request.scenario.yaml").as_uri()
    start = len(published(aclient))
    # The prompt config's task type changes: the scenario (not open) and the
    # workflow, agents and id of the arena config (open) no longer find it.
    _change(aclient, uri, 2, _word(aclient, text, "task_type: triage", "triage"), "intake")
    if pulls_diagnostics(aclient):
        # Pulled after the change: the server answers with the project re-checked.
        found = await diagnostics_for(aclient, config_uri)
    else:
        scenario = await wait_published(aclient, scenario_uri, start=start)
        assert [(str(d.code), key(d.range)) for d in scenario.diagnostics] == [
            (
                "PA106",
                key(
                    _word(
                        aclient,
                        (workspace / "scenarios" / "refund-request.scenario.yaml").read_text(),
                        "task_type: triage",
                        "triage",
                    )
                ),
            )
        ]
        found = list((await wait_published(aclient, config_uri, 1, start=start)).diagnostics)
    by_code = _by_code(found)
    assert _word(aclient, config_text, "prompt_task: triage", "triage") in by_code["PP403"]
    assert "PA106" not in by_code  # the scenario's problem is the scenario's


async def test_a_quick_fix_of_the_compiled_pack_edits_the_source_and_the_problem_goes(
    aclient: LanguageClient, workspace: Path
) -> None:
    path = workspace / "prompts" / "refunds.yaml"
    text = path.read_text()
    uri = await open_doc(aclient, path, text, wait=False)
    found = await diagnostics_for(aclient, uri, 1)
    (pp301,) = [d for d in found if d.code == "PP301"]
    actions = await aclient.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=pp301.range,
            context=types.CodeActionContext(diagnostics=[pp301]),
        )
    )
    assert actions is not None
    titles = [a.title for a in actions if isinstance(a, types.CodeAction)]
    assert titles == ["Replace with `lookup_order`"]
    (action,) = actions
    assert isinstance(action, types.CodeAction)
    (edit,) = edits_by_uri(action.edit)[uri]
    assert (edit.range, edit.new_text) == (pp301.range, "lookup_order")
    _change(aclient, uri, 2, edit.range, edit.new_text)
    after = await diagnostics_for(aclient, uri, 2)
    assert "PP301" not in codes(after)
    assert {"PP102", "PA109", "PP104"} <= set(codes(after))


async def test_cards_topology_and_lenses_of_an_arena_project(
    aclient: LanguageClient, workspace: Path
) -> None:
    config = workspace / "config.arena.yaml"
    config_text = config.read_text()
    config_uri = await open_doc(aclient, config, config_text, wait=False)
    prompt_uri = await open_doc(
        aclient,
        workspace / "prompts" / "triage.yaml",
        (workspace / "prompts" / "triage.yaml").read_text(),
        wait=False,
    )
    for uri in (config_uri, prompt_uri):
        cards = await aclient.protocol.send_request_async(
            "promptpack/agentCards", {"textDocument": {"uri": uri}}
        )
        assert _field(cards, "entry") == "triage"
        assert sorted(_field_keys(_field(cards, "cards"))) == ["refunds", "triage"]
        topo = await aclient.protocol.send_request_async(
            "promptpack/topology", {"textDocument": {"uri": uri}}
        )
        assert _field(topo, "entry") == "triage"
        assert sorted(_field(n, "id") for n in _field(topo, "nodes")) == ["refunds", "triage"]
        assert "flowchart" in _field(topo, "mermaid")
    lenses = await aclient.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=config_uri))
    )
    assert lenses is not None
    shown = sorted((key(lens.range), lens.command.title if lens.command else "") for lens in lenses)
    assert shown == sorted(
        [
            (
                key(_word(aclient, config_text, "members:\n      triage", "triage")),
                "Agent Card · entry agent",
            ),
            (
                key(
                    _word(
                        aclient,
                        config_text,
                        "      refunds:\n        description: Handles",
                        "refunds",
                    )
                ),
                "Agent Card",
            ),
        ]
    )
    card = await aclient.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command="promptpack.showAgentCard", arguments=[config_uri, "refunds"]
        )
    )
    assert _field(card, "name") is not None


def _field_keys(obj: Any) -> list[str]:
    return list(obj) if isinstance(obj, dict) else list(obj._fields)  # a named tuple


async def test_a_corpus_project_in_the_editor(
    corpus_client: LanguageClient, corpus_workspace: Path
) -> None:
    """promptarena's workflow-agent-loops as its author opens it: clean, a typo in a
    PromptConfig is shown on its line, and a scenario's task type leads to its file."""
    research = corpus_workspace / "prompts" / "research.yaml"
    text = research.read_text()
    assert "  version: " in text
    broken = text.replace("  version: ", "  verison: ", 1)
    uri = await open_doc(corpus_client, research, broken, wait=False)
    found = await diagnostics_for(corpus_client, uri, 1)
    assert [d for d in found if d.severity == types.DiagnosticSeverity.Error]
    assert _by_code(found)["PP102"] == [span_range(corpus_client, broken, "verison")]

    scenario = corpus_workspace / "scenarios" / "loop-converges.scenario.yaml"
    scenario_text = scenario.read_text()
    scenario_uri = await open_doc(corpus_client, scenario, scenario_text, wait=False)
    assert await diagnostics_for(corpus_client, scenario_uri, 1) == []
    result = await corpus_client.text_document_definition_async(
        types.DefinitionParams(
            text_document=types.TextDocumentIdentifier(uri=scenario_uri),
            position=pos(corpus_client, scenario_text, "task_type: research", len("task_type: re")),
        )
    )
    assert isinstance(result, list) and len(result) == 1
    (target,) = result
    assert isinstance(target, types.Location)
    assert target.uri == research.as_uri()
    assert target.range.start.line == broken[: broken.index("task_type:")].count("\n")
