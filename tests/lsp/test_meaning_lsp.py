"""End to end: call hierarchy, inlay hints, the rendered prompt and the governance
preview, in both client profiles, on our own sample (always) and on packs of the
corpus (skipped without the reference material)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from lsp_helpers import diagnostics_for, encoding_of, open_doc, pos, span_range, units
from lsprotocol import types
from pytest_lsp import LanguageClient

from paths import SHARED, needs_shared

CORPUS = SHARED / "corpus"

PACK = """\
id: meaning
name: "Meaning 😀 pack"
version: 1.0.0
template_engine: {version: v1, syntax: "{{variable}}"}
requires:
  providers: [default, {key: judge, role: llm}]
metadata:
  governance:
    capabilities: [pp:SyntheticMedia]
    operator_role: hipaa:CoveredEntity
fragments:
  greeting: "Hello 👋 {{customer}}, {{fragments.sig}}"
  sig: "the {{team}} team"
prompts:
  triage:
    id: triage
    name: Triage desk
    version: 1.0.0
    description: Routes
    system_template: "😀 {{fragments.greeting}}. Tier: {{tier}}"
    variables:
      - {name: customer, type: string, required: true, example: Ada}
      - {name: tier, type: string, required: false, default: gold}
      - {name: team, type: string, required: false}
    tools: [billing, lookup]
  billing:
    id: billing
    name: billing
    version: 1.0.0
    description: Bills
    provider: judge
    system_template: Bills
tools:
  lookup: {name: lookup, description: Find}
workflow:
  version: 1
  entry: start
  engine: {budget: {max_total_visits: 10}}
  states:
    start: {prompt_task: triage, max_visits: 3, on_max_visits: pay, on_event: {Billing: pay}}
    pay: {prompt_task: billing, terminal: true}
agents:
  entry: triage
  members:
    triage: {tags: [desk]}
    billing:
      tags: [bills]
      governance: {operator_role: hipaa:BusinessAssociate}
"""


async def _prepare(
    client: LanguageClient, uri: str, text: str, needle: str, nth: int = 0
) -> list[types.CallHierarchyItem]:
    items = await client.text_document_prepare_call_hierarchy_async(
        types.CallHierarchyPrepareParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=pos(client, text, needle, 1, nth=nth),
        )
    )
    return list(items or [])


async def test_call_hierarchy(client: LanguageClient, tmp_path: Path) -> None:
    uri = await open_doc(client, tmp_path / "meaning.promptpack.yaml", PACK)
    [item] = await _prepare(client, uri, PACK, "triage:")
    assert (item.name, item.detail) == ("triage", "agent")
    assert item.selection_range == span_range(client, PACK, "triage", nth=0)
    out = await client.call_hierarchy_outgoing_calls_async(
        types.CallHierarchyOutgoingCallsParams(item=item)
    )
    assert out is not None
    calls = {c.to.name: list(c.from_ranges) for c in out}
    # the tools items: billing is an agent, lookup a pack tool
    assert calls == {
        "billing": [span_range(client, PACK, "billing", nth=0)],
        "lookup": [span_range(client, PACK, "lookup", nth=0)],
    }
    incoming = await client.call_hierarchy_incoming_calls_async(
        types.CallHierarchyIncomingCallsParams(item=item)
    )
    assert incoming is not None
    assert [(c.from_.name, c.from_.detail) for c in incoming] == [("start", "state")]
    assert list(incoming[0].from_ranges) == [span_range(client, PACK, "triage", nth=2)]

    # a state: its on_event target and its on_max_visits are two calls of `pay`
    [state] = await _prepare(client, uri, PACK, "start: {")
    out = await client.call_hierarchy_outgoing_calls_async(
        types.CallHierarchyOutgoingCallsParams(item=state)
    )
    assert out is not None
    by_name = {c.to.name: list(c.from_ranges) for c in out}
    assert set(by_name) == {"triage", "pay"}
    assert sorted(by_name["pay"], key=lambda r: r.start.character) == [
        span_range(client, PACK, "pay", nth=0),
        span_range(client, PACK, "pay", nth=1),
    ]

    # on a member key: the agent (its prompt), from the agents section
    [member] = await _prepare(client, uri, PACK, "billing:\n      tags")
    assert member.name == "billing"


async def test_inlay_hints(client: LanguageClient, tmp_path: Path) -> None:
    uri = await open_doc(client, tmp_path / "meaning.promptpack.yaml", PACK)
    lines = PACK.split("\n")
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(
                start=types.Position(line=0, character=0),
                end=types.Position(line=len(lines) - 1, character=0),
            ),
        )
    )
    assert hints is not None
    found = {(h.position.line, h.position.character): h.label for h in hints}
    enc = encoding_of(client)

    def after(needle: str, nth: int = 0) -> tuple[int, int]:
        p = pos(client, PACK, needle, len(needle), nth=nth)
        return (p.line, p.character)

    assert found[after("  triage")] == "(provider default)"
    assert found[after("{{tier}}")] == "= gold"
    assert found[after("max_visits: 3")] == "3 of engine.budget 10"
    assert found[after("on_max_visits: pay")] == "after visit 3"
    assert found[after("    triage")] == '(card name "Triage desk")'
    # billing writes its provider, and its name is its key: no hint
    assert after("  billing") not in found
    # the 😀 before `{{tier}}` is one code point, two UTF-16 units, four UTF-8 bytes
    line = PACK.split("\n")[after("{{tier}}")[0]]
    assert after("{{tier}}")[1] == units(line[: line.index("{{tier}}") + 8], enc)


async def test_inlay_hint_kinds_switched_off(client: LanguageClient, tmp_path: Path) -> None:
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={"packLsp": {"inlayHints": {"provider": False, "budget": False}}}
        )
    )
    uri = await open_doc(client, tmp_path / "meaning.promptpack.yaml", PACK)
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(
                start=types.Position(line=0, character=0),
                # one line past the last: clients ask to the end so; answered to the end
                end=types.Position(line=PACK.count("\n") + 1, character=0),
            ),
        )
    )
    labels = sorted(str(h.label) for h in hints or [])
    assert labels == ['(card name "Triage desk")', "= gold"]


def _data(value: Any) -> Any:
    """A custom answer as plain data (pygls gives attribute objects, named tuples)."""
    if hasattr(value, "_asdict"):
        return {k: _data(v) for k, v in value._asdict().items()}
    if isinstance(value, list | tuple):
        return [_data(v) for v in value]
    if isinstance(value, dict):
        return {k: _data(v) for k, v in value.items()}
    if hasattr(value, "__dict__") and not isinstance(value, type):
        return {k: _data(v) for k, v in vars(value).items()}
    return value


async def test_render_prompt(client: LanguageClient, tmp_path: Path) -> None:
    uri = await open_doc(client, tmp_path / "meaning.promptpack.yaml", PACK)
    result = _data(
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(
                command="pack-lsp.renderPrompt", arguments=[uri, "triage", {"team": "Care"}]
            )
        )
    )
    assert result["text"] == "😀 Hello 👋 Ada, the Care team. Tier: gold"
    assert result["includes"] == ["triage > greeting", "triage > greeting > sig"]
    assert {f["name"]: f["source"] for f in result["filled"]} == {
        "customer": "example",
        "team": "value",
        "tier": "default",
    }
    assert result["characters"] == len(result["text"])
    assert result["tokens"] > 0
    assert "offline" in result["estimator"]
    assert result["document"].endswith(result["text"] + "\n")

    missing = _data(
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="pack-lsp.renderPrompt", arguments=[uri, "nope"])
        )
    )
    assert "not a prompt" in missing["error"]
    listed = _data(
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="pack-lsp.renderPrompt", arguments=[uri])
        )
    )
    assert listed == {"prompts": ["triage", "billing"], "targets": []}


async def test_governance_preview(client: LanguageClient, tmp_path: Path) -> None:
    uri = await open_doc(client, tmp_path / "meaning.promptpack.yaml", PACK)
    result = _data(
        await client.protocol.send_request_async(
            "promptpack/governance", {"textDocument": {"uri": uri}}
        )
    )
    assert result["pack"]["operator_role"] == "hipaa:CoveredEntity"
    billing = result["agents"]["billing"]
    assert billing["governance"] == {
        "capabilities": ["pp:SyntheticMedia"],
        "operator_role": "hipaa:BusinessAssociate",
    }
    assert billing["sources"] == {"capabilities": "pack", "operator_role": "member"}
    assert billing["replaced"] == ["operator_role"]
    assert result["agents"]["triage"]["own"] is False
    one = _data(
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="pack-lsp.showGovernance", arguments=[uri, "ghost"])
        )
    )
    assert "not an agent" in one["error"]


async def test_governance_terms(client: LanguageClient, tmp_path: Path) -> None:
    uri = await open_doc(client, tmp_path / "meaning.promptpack.yaml", PACK, wait=False)
    diagnostics = await diagnostics_for(client, uri, 1)
    assert not [d for d in diagnostics if str(d.code).startswith("PP9")], diagnostics
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=pos(client, PACK, "hipaa:Covered", 3),
        )
    )
    assert hover is not None
    value = hover.contents.value if isinstance(hover.contents, types.MarkupContent) else ""
    assert "https://promptpack.org/vocab/hipaa#CoveredEntity" in value
    assert hover.range == span_range(client, PACK, "hipaa:CoveredEntity")
    items = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=pos(client, PACK, "pp:SyntheticMedia", 3),
        )
    )
    assert items is not None
    labels = [i.label for i in (items.items if isinstance(items, types.CompletionList) else items)]
    assert "pp:SyntheticMedia" in labels and "hipaa:PHI" not in labels and "ai:" in labels


async def test_document_links(client: LanguageClient, tmp_path: Path) -> None:
    (tmp_path / "skills" / "greet").mkdir(parents=True)
    (tmp_path / "skills" / "greet" / "SKILL.md").write_text("# Greet\n", encoding="utf-8")
    text = PACK.replace("fragments:\n", "skills:\n  - path: ./skills/greet\nfragments:\n", 1)
    uri = await open_doc(client, tmp_path / "meaning.promptpack.yaml", text)
    found = await client.text_document_document_link_async(
        types.DocumentLinkParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    by_range = {(link.range.start.line, link.range.start.character): link for link in found or []}
    skill = by_range[(pos(client, text, "./skills").line, pos(client, text, "./skills").character)]
    assert skill.target == (tmp_path / "skills" / "greet" / "SKILL.md").as_uri()
    start = pos(client, text, "sig}}")
    sig = by_range[(start.line, start.character)]
    assert sig.target == f"{uri}#L{text[: text.index('  sig:')].count(chr(10)) + 1}"
    assert sig.range == span_range(client, text, "sig", nth=0)


def _corpus(name: str) -> tuple[Path, str]:
    path = CORPUS / name
    if not path.is_file():
        pytest.skip(f"{path} is not in the reference material")
    return path, path.read_text(encoding="utf-8")


@needs_shared
async def test_corpus_call_hierarchy_agents(client: LanguageClient, tmp_path: Path) -> None:
    path, text = _corpus("valid/spec_docs_spec_examples_L978_research-crew.json")
    data = json.loads(text)
    entry = data["agents"]["entry"]
    uri = await open_doc(client, tmp_path / path.name, text)
    # the prompt's key (the first occurrence of the name after `"prompts"`)
    needle = f'"{entry}"'
    key_at = text.index(needle, text.index('"prompts"'))
    [item] = await _prepare(client, uri, text, needle, text.count(needle, 0, key_at))
    assert item.name == entry
    out = await client.call_hierarchy_outgoing_calls_async(
        types.CallHierarchyOutgoingCallsParams(item=item)
    )
    called = sorted(c.to.name for c in out or [])
    members = set(data["agents"]["members"])
    expected = sorted(
        t for t in data["prompts"][entry].get("tools", []) if t in members and t != entry
    )
    assert expected and [c for c in called if c in members] == expected


@needs_shared
async def test_corpus_inlay_hints_and_render(client: LanguageClient, tmp_path: Path) -> None:
    path, text = _corpus("v1.5plus/xlang-valid-providers.json")
    uri = await open_doc(client, tmp_path / path.name, text)
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(
                start=types.Position(line=0, character=0),
                end=types.Position(line=len(text.splitlines()) - 1, character=10_000),
            ),
        )
    )
    data = json.loads(text)
    without = [k for k, p in data["prompts"].items() if "provider" not in p]
    labels = [str(h.label) for h in hints or []]
    assert labels.count("(provider default)") >= len(without)

    key = next(iter(data["prompts"]))
    result = _data(
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="pack-lsp.renderPrompt", arguments=[uri, key])
        )
    )
    assert "error" not in result, result
    assert result["characters"] == len(result["text"]) > 0
