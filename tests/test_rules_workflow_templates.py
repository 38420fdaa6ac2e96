"""Workflow (PP4xx) and template (PP5xx) rules: data for quick fixes, profiles, robustness."""

from __future__ import annotations

from pathlib import Path

import pytest

from pack_lsp.core.base import kinds
from pack_lsp.core.base.diagnostics import Diagnostic, Severity, Tag
from pack_lsp.core.checks.analysis import Analysis, analyze
from pack_lsp.core.model.config import Config

HEAD = (
    'id: demo\nname: Demo\nversion: 1.0.0\ntemplate_engine: {version: v1, syntax: "{{variable}}"}\n'
)


def _run(body: str, config: Config | None = None) -> Analysis:
    return analyze(HEAD + body, config=config, kind=kinds.PROMPTPACK)


def _codes(a: Analysis, prefix: str = "PP") -> list[Diagnostic]:
    return [d for d in a.diagnostics if d.code.startswith(prefix)]


def _one(a: Analysis, code: str) -> Diagnostic:
    found = [d for d in a.diagnostics if d.code == code]
    assert len(found) == 1, [(d.code, d.message) for d in a.diagnostics]
    return found[0]


WORKFLOW = """prompts:
  triage: {id: triage, name: T, version: 1.0.0, system_template: "Hi {{artifacts.sha}}"}
  done: {id: done, name: D, version: 1.0.0, system_template: Bye}
workflow:
  version: 1
  entry: triage
  states:
    triage: {prompt_task: triage, on_event: {Finished: don}}
    done: {prompt_task: done}
"""


def test_undefined_state_data_and_range() -> None:
    a = _run(WORKFLOW)
    d = _one(a, "PP402")
    assert d.severity == Severity.ERROR
    assert a.text[d.span.start : d.span.end] == "don"
    assert d.data["kind"] == "undefined-state"
    assert d.data["name"] == "don"
    assert d.data["suggestions"] == ["done"]
    assert d.data["state"] == "triage"


def test_undeclared_artifact_data() -> None:
    d = _one(_run(WORKFLOW), "PP410")
    assert d.data == {
        "kind": "undeclared-artifact",
        "name": "sha",
        "state": "triage",
        "prompt": "triage",
        "suggestions": [],
    }
    assert d.related and d.related[0].message == "state `triage` runs this prompt"


def test_promptkit_profile_only() -> None:
    body = WORKFLOW.replace("don}", "done}")
    # No `on_event` at all: PromptKit's schema refuses the state (PP101), not PP411.
    absent = _run(body, Config(profile="promptkit"))
    assert [d.code for d in absent.diagnostics if d.code in ("PP101", "PP411")] == ["PP101"]
    empty = body.replace("{prompt_task: done}", "{prompt_task: done, on_event: {}}")
    assert not [d for d in _run(empty).diagnostics if d.code == "PP411"]
    d = _one(_run(empty, Config(profile="promptkit")), "PP411")
    assert d.severity == Severity.WARNING
    assert d.data == {"kind": "state-without-transitions", "state": "done"}


def test_orchestration_composition_accepted_by_promptkit_profile() -> None:
    body = WORKFLOW.replace(
        "{prompt_task: done}", "{prompt_task: done, orchestration: composition}"
    )
    # Before v1.5 the spec has no `composition` orchestration; from v1.5 the schema checks it.
    assert any(d.code == "PP409" for d in _run(body, Config(spec_version="1.4.0")).diagnostics)
    assert not any(d.code == "PP409" for d in _run(body).diagnostics)
    assert not any(d.code == "PP409" for d in _run(body, Config(profile="promptkit")).diagnostics)


def test_undeclared_variable_data_and_runtime_names() -> None:
    a = _run(
        "prompts:\n  p:\n    id: p\n    name: P\n    version: 1.0.0\n"
        '    system_template: "{{compny}} {{input}} {{workflow_context}}"\n'
        "    variables: [{name: company, type: string, required: true}]\n"
    )
    found = [d for d in a.diagnostics if d.code == "PP502"]
    # `input` is bound by the runtime; `workflow_context` only in a workflow state's prompt
    assert [d.data["name"] for d in found] == ["compny", "workflow_context"]
    assert found[0].data == {
        "kind": "undeclared-variable",
        "name": "compny",
        "prompt": "p",
        "suggestions": ["company"],
    }
    unused = _one(a, "PP503")
    assert Tag.UNNECESSARY in unused.tags and unused.severity == Severity.HINT


def test_workflow_context_in_state_prompt_is_not_reported() -> None:
    body = WORKFLOW.replace("system_template: Bye", 'system_template: "{{workflow_context}}"')
    assert not any(d.code == "PP502" for d in _run(body).diagnostics)


def test_fragment_placeholder_reported_for_each_including_prompt() -> None:
    a = _run(
        'fragments: {ctx: "{{who}}"}\nprompts:\n'
        '  a: {id: a, name: A, version: 1.0.0, system_template: "{{fragments.ctx}}"}\n'
        '  b: {id: b, name: B, version: 1.0.0, system_template: "{{fragments.ctx}}",'
        " variables: [{name: who, type: string, required: true}]}\n"
    )
    found = [d for d in a.diagnostics if d.code == "PP502"]
    assert [d.data["prompt"] for d in found] == ["a"]
    assert a.text[found[0].span.start : found[0].span.end] == "who"
    assert found[0].related[0].message == "prompt `a`"


PARTIAL = [
    "workflow: {}\nprompts: {}\n",
    "workflow: {states: {a: }}\nprompts: {p: }\n",
    "workflow: {entry: 3, states: [a, b]}\nprompts:\n  p: {system_template: 4}\n",
    "workflow: {version: true, entry: a, states: {a: {on_event: {Go: [x]}, terminal: yes}}}\n",
    'fragments: [a]\nprompts:\n  p: {system_template: "{{", variables: [3, {name: 4}]}\n',
    'prompts:\n  p: {system_template: "{{}} {{ }} {{#}} {{#if}} {{fragments.}} {{artifacts}}"}\n',
    "prompts:\n  p:\n    system_template: x\n    variables:\n      - {name: v, default: 1,"
    " type: number, validation: {enum: 3}}\n",
]


@pytest.mark.parametrize("body", PARTIAL)
def test_partial_documents_do_not_crash(body: str) -> None:
    a = _run(body, Config(profile="promptkit"))
    assert not any(d.code == "PP000" for d in a.diagnostics)


def test_corpus_has_no_errors_from_these_rules() -> None:
    from paths import SHARED

    folder = SHARED / "corpus" / "valid"
    files = sorted(p for p in folder.glob("*") if p.suffix in (".json", ".yaml"))
    if not files:
        pytest.skip("corpus not available")
    for path in files:
        a = analyze(Path(path).read_text(encoding="utf-8"), path=path, kind=kinds.PROMPTPACK)
        bad = [
            d
            for d in a.diagnostics
            if d.code[:3] in ("PP4", "PP5") and d.severity == Severity.ERROR
        ]
        assert not bad, (path.name, [(d.code, d.message) for d in bad])
        assert not any(d.code == "PP000" for d in a.diagnostics), path.name
