"""Call hierarchy and document links in arena projects (``core.arena.callhierarchy``,
``core.language.links``), on ``tests/data/arena/helpdesk`` and on the corpus projects."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pack_lsp.core.base.text import Span
from pack_lsp.core.checks.analysis import analyze
from pack_lsp.core.checks.arena.check import ProjectCheck
from pack_lsp.core.checks.arena.workspace import find_configs, projects_in
from pack_lsp.core.ide.arena import callhierarchy as calls
from pack_lsp.core.ide.index import Kind, SymbolId
from pack_lsp.core.ide.links import document_links
from pack_lsp.core.model.arena.project import norm
from paths import HERE, SHARED, needs_shared

HELPDESK = HERE / "data" / "arena" / "helpdesk"
ARENA_CORPUS = SHARED / "corpus" / "arena"


def _check(folder: Path) -> ProjectCheck:
    workspace = projects_in([folder])
    [config] = workspace.configs()
    check = workspace.check(config)
    assert check is not None
    return check


def _text(check: ProjectCheck, path: str, span: Span) -> str:
    return check.project.files[path].text[span.start : span.end]


def _at(check: ProjectCheck, rel: str, context: str, word: str) -> tuple[str, int]:
    """The path of ``rel`` and the offset of ``word`` in the first ``context`` there."""
    path = norm(Path(check.project.folder) / rel)
    text = check.project.files[path].text
    return path, text.index(context) + context.index(word) + 1


def _span_of(check: ProjectCheck, rel: str, context: str, word: str) -> Span:
    _, at = _at(check, rel, context, word)
    return Span(at - 1, at - 1 + len(word))


def test_a_prompt_config_calls_the_tools_it_allows_and_is_called_by_its_state() -> None:
    check = _check(HELPDESK)
    path, at = _at(check, "prompts/refunds.yaml", "task_type: refunds", "refunds")
    [item] = calls.prepare(check, path, at)
    assert item.symbol == SymbolId(Kind.PROMPT, "refunds")
    assert item.path == path and item.detail == "agent"
    # The definition's name is its task type; the definition, its whole file.
    assert item.selection == _span_of(
        check, "prompts/refunds.yaml", "task_type: refunds", "refunds"
    )
    assert item.span == Span(0, len(check.project.files[path].text))

    [out] = calls.outgoing(check, item.symbol)
    tool = norm(HELPDESK / "tools" / "lookup-order.tool.yaml")
    assert out.item.symbol == SymbolId(Kind.TOOL, "lookup_order")
    assert out.item.path == tool
    assert _text(check, tool, out.item.selection) == "lookup_order"
    assert out.path == path
    assert out.sites == (_span_of(check, "prompts/refunds.yaml", "- lookup_order", "lookup_order"),)

    [into] = calls.incoming(check, item.symbol)
    config = check.project.path
    assert into.item.symbol == SymbolId(Kind.STATE, "refunds")
    assert into.item.path == config and into.path == config
    assert into.sites == (_span_of(check, "config.arena.yaml", "prompt_task: refunds", "refunds"),)


def test_a_tool_is_called_by_the_prompt_configs_that_allow_it() -> None:
    check = _check(HELPDESK)
    path, at = _at(check, "tools/lookup-order.tool.yaml", "name: lookup_order", "lookup_order")
    [item] = calls.prepare(check, path, at)
    assert item.symbol == SymbolId(Kind.TOOL, "lookup_order") and item.detail == "tool"
    assert calls.outgoing(check, item.symbol) == []
    [caller] = calls.incoming(check, item.symbol)
    refunds = norm(HELPDESK / "prompts" / "refunds.yaml")
    assert caller.item.symbol == SymbolId(Kind.PROMPT, "refunds") and caller.item.path == refunds
    assert caller.sites == (
        _span_of(check, "prompts/refunds.yaml", "- lookup_order", "lookup_order"),
    )
    # From the allowed_tools item, the same tool.
    path, at = _at(check, "prompts/refunds.yaml", "- lookup_order", "lookup_order")
    assert [i.symbol for i in calls.prepare(check, path, at)] == [item.symbol]


def test_workflow_states_of_the_arena_config_call_states_and_prompt_configs() -> None:
    check = _check(HELPDESK)
    config = check.project.path
    path, at = _at(check, "config.arena.yaml", "      triage:\n        prompt_task", "triage")
    [state] = calls.prepare(check, path, at)
    assert state.symbol == SymbolId(Kind.STATE, "triage") and state.path == config
    text = check.project.files[config].text
    # The key and its value (up to the last character of the state's mapping).
    assert text[state.span.start : state.span.end].startswith("triage:\n        prompt_task")
    assert text[state.span.start : state.span.end].rstrip().endswith("Refund: refunds")
    out = {c.item.symbol: c for c in calls.outgoing(check, state.symbol)}
    prompt = out[SymbolId(Kind.PROMPT, "triage")]
    assert prompt.item.path == norm(HELPDESK / "prompts" / "triage.yaml")
    assert prompt.sites == (_span_of(check, "config.arena.yaml", "prompt_task: triage", "triage"),)
    other = out[SymbolId(Kind.STATE, "refunds")]
    assert other.sites == (_span_of(check, "config.arena.yaml", "Refund: refunds", "refunds"),)
    assert set(out) == {SymbolId(Kind.PROMPT, "triage"), SymbolId(Kind.STATE, "refunds")}


def test_names_of_prompt_configs_elsewhere_in_the_project_prepare_the_prompt() -> None:
    check = _check(HELPDESK)
    triage = SymbolId(Kind.PROMPT, "triage")
    for rel, context in (
        ("config.arena.yaml", "id: triage"),  # prompt_configs[].id
        ("config.arena.yaml", "  members:\n      triage"),  # an agents member key
        ("config.arena.yaml", "prompt_task: triage"),  # a state's prompt
        ("scenarios/refund-request.scenario.yaml", "task_type: triage"),
    ):
        path, at = _at(check, rel, context, "triage")
        assert [i.symbol for i in calls.prepare(check, path, at)] == [triage], (rel, context)
    # Not on a name: nothing.
    path, at = _at(check, "prompts/triage.yaml", "system_template", "system_template")
    assert calls.prepare(check, path, at) == []


def test_a_project_that_does_not_compile_has_no_call_hierarchy(tmp_path: Path) -> None:
    root = tmp_path / "helpdesk"
    shutil.copytree(HELPDESK, root)
    (root / "tools" / "lookup-order.tool.yaml").unlink()  # PA101: packc refuses it
    check = _check(root)
    assert not calls.callable_project(check)
    path, at = _at(check, "prompts/refunds.yaml", "task_type: refunds", "refunds")
    assert calls.prepare(check, path, at) == []


def test_file_entries_of_an_arena_config_link_to_their_files(tmp_path: Path) -> None:
    root = tmp_path / "helpdesk"
    shutil.copytree(HELPDESK, root)
    (root / "providers" / "mock.yaml").unlink()
    config = root / "config.arena.yaml"
    text = config.read_text(encoding="utf-8")
    links = document_links(analyze(text, path=config))
    found = {text[link.span.start : link.span.end]: link for link in links}
    # Every file: entry that exists, linked on its characters; the missing provider
    # (PA101) is no link.
    assert set(found) == {
        "prompts/triage.yaml",
        "prompts/refunds.yaml",
        "tools/lookup-order.tool.yaml",
        "scenarios/refund-request.scenario.yaml",
    }
    assert found["tools/lookup-order.tool.yaml"].path == (root / "tools" / "lookup-order.tool.yaml")
    assert found["prompts/triage.yaml"].tooltip == "Open PromptConfig file"
    # Files named by other kinds of documents are not links of theirs.
    prompt = root / "prompts" / "triage.yaml"
    assert document_links(analyze(prompt.read_text(encoding="utf-8"), path=prompt)) == []


def test_quoted_and_nested_file_entries_link(tmp_path: Path) -> None:
    (tmp_path / "personas").mkdir()
    (tmp_path / "personas" / "p.yaml").write_text("kind: Persona\n", encoding="utf-8")
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "a.yaml").write_text("kind: PromptConfig\n", encoding="utf-8")
    text = (
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: Arena\nmetadata: {name: x}\n"
        'spec:\n  prompt_configs:\n    - {id: a, file: "prompts/a.yaml"}\n'
        "  self_play:\n    personas:\n      - file: personas/p.yaml\n"
        "      - file: personas/missing.yaml\n"
    )
    links = document_links(analyze(text, path=tmp_path / "config.arena.yaml"))
    assert [text[link.span.start : link.span.end] for link in links] == [
        "prompts/a.yaml",
        "personas/p.yaml",
    ]
    assert links[1].tooltip == "Open Persona file"


def _corpus_checks() -> list[ProjectCheck]:
    if not ARENA_CORPUS.is_dir():
        pytest.skip(f"{ARENA_CORPUS} is not in the reference material")
    workspace = projects_in([ARENA_CORPUS])
    found = [workspace.check(c) for c in workspace.configs()]
    return [c for c in found if c is not None]


@needs_shared
def test_corpus_every_prompt_config_prepares_at_its_task_type_with_consistent_calls() -> None:
    """Over every corpus project that compiles: each prompt config's task type prepares
    its prompt item, whose outgoing calls are sites in its own file and whose callers'
    sites are in theirs."""
    checked = 0
    for check in _corpus_checks():
        if not calls.callable_project(check):
            continue
        for prompt in check.project.prompts:
            task = prompt.task_type
            if task is None or check.project.prompts_for(task.value)[0] is not prompt:
                continue
            items = calls.prepare(check, task.path, task.span.start + 1)
            assert [i.symbol for i in items] == [SymbolId(Kind.PROMPT, task.value)], task
            [item] = items
            assert (item.path, _text(check, item.path, item.selection)) == (task.path, task.value)
            for call in calls.outgoing(check, item.symbol):
                assert call.path == item.path and call.sites
                for site in call.sites:
                    written = _text(check, item.path, site)
                    assert call.item.symbol.name in written or written.startswith("a2a__")
            for call in calls.incoming(check, item.symbol):
                assert call.path == call.item.path and call.sites
            checked += 1
    assert checked >= 40


@needs_shared
def test_corpus_workflow_loops_states_and_agents() -> None:
    root = ARENA_CORPUS / "workflow-agent-loops"
    if not root.is_dir():
        pytest.skip(f"{root} is not in the reference material")
    [config] = find_configs(root)
    workspace = projects_in([root])
    check = workspace.check(config)
    assert check is not None
    text = check.project.config.text
    data_states = check.compiled_analysis.data["workflow"]["states"]
    for name, state in data_states.items():
        at = text.index(f"    {name}:\n") + 5
        [item] = calls.prepare(check, check.project.path, at)
        assert item.symbol == SymbolId(Kind.STATE, name)
        out = {c.item.symbol for c in calls.outgoing(check, item.symbol)}
        expected = {SymbolId(Kind.STATE, t) for t in state.get("on_event", {}).values()}
        if "on_max_visits" in state:
            expected.add(SymbolId(Kind.STATE, state["on_max_visits"]))
        expected.add(SymbolId(Kind.PROMPT, state["prompt_task"]))
        assert out == expected, name
