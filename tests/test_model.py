"""The pack model: spans of keys and references, and tolerance of broken input."""

from __future__ import annotations

from pathlib import Path

from pack_lsp.core import analyze
from pack_lsp.core.model.pack import Pack

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = (ROOT / "examples" / "support.promptpack.yaml").read_text(encoding="utf-8")


def model(text: str) -> Pack:
    pack = analyze(text, kind="promptpack").pack
    assert pack is not None
    return pack


def at(text: str, span: object) -> str:
    return text[span.start : span.end]  # type: ignore[attr-defined]


def test_entities_and_spans() -> None:
    pack = model(EXAMPLE)
    assert list(pack.prompts) == ["triage", "billing", "technical"]
    triage = pack.prompts["triage"]
    assert at(EXAMPLE, triage.key_span) == "triage"
    assert [t.value for t in triage.tools] == ["billing", "technical"]
    assert [at(EXAMPLE, t.span) for t in triage.tools] == ["billing", "technical"]
    assert triage.system_template is not None
    assert "{{company}}" in triage.system_template.text
    assert [v.name.value for v in triage.variables if v.name] == ["company"]
    assert pack.agents is not None and pack.agents.entry is not None
    assert pack.agents.entry.value == "triage"
    assert at(EXAMPLE, pack.agents.entry.span) == "triage"
    assert list(pack.agents.members) == ["triage", "billing", "technical"]
    billing = pack.agents.members["billing"]
    assert [m.value for m in billing.output_modes] == ["text/plain", "application/json"]
    assert pack.tools["lookup_invoice"].parameters["required"] == ["number"]
    assert list(pack.fragments) == ["tone"]


def test_partial_document_still_yields_a_model() -> None:
    # Mid-edit: an unfinished flow list and a missing value.
    text = EXAMPLE.replace("tools: [lookup_invoice]", "tools: [lookup_inv")
    result = analyze(text, kind="promptpack")
    assert result.syntax_error
    pack = result.pack
    assert pack is not None
    assert "triage" in pack.prompts
    assert pack.prompts["triage"].tools


def test_wrong_types_are_skipped_not_fatal() -> None:
    text = """\
id: 3
prompts:
  a: just a string
  b:
    tools: {not: a list}
    variables: [1, {name: x}]
workflow: [1, 2]
agents:
  entry: [a]
  members: {a: 5}
"""
    pack = model(text)
    assert pack.id is None
    assert pack.prompts["a"].system_template is None
    assert pack.prompts["b"].tools == []
    assert [v.name.value for v in pack.prompts["b"].variables if v.name] == ["x"]
    assert pack.workflow is None
    assert pack.agents is not None and pack.agents.entry is None
    assert list(pack.agents.members) == ["a"]


def test_workflow_model() -> None:
    text = """\
workflow:
  version: 1
  entry: plan
  states:
    plan: {prompt_task: plan, on_event: {Ready: build}}
    build:
      prompt_task: build
      terminal: true
      max_visits: 3
      artifacts: {sha: {type: text/plain}}
"""
    pack = model(text)
    wf = pack.workflow
    assert wf is not None and wf.entry is not None and wf.entry.value == "plan"
    plan = wf.states["plan"]
    assert [(t.event.value, t.target.value if t.target else None) for t in plan.on_event] == [
        ("Ready", "build")
    ]
    assert at(text, plan.on_event[0].event.span) == "Ready"
    build = wf.states["build"]
    assert build.is_terminal and build.max_visits is not None and build.max_visits.value == 3
    assert list(build.artifacts) == ["sha"]
