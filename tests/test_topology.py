"""The agent call graph: edges from tool references, reachability, cycles, output."""

from __future__ import annotations

import json

from pack_lsp.core.checks.analysis import analyze
from pack_lsp.core.model.cards.topology import build, render
from pack_lsp.core.model.pack import Pack
from pack_lsp.core.model.resolve import ToolSettings

TEXT = """\
id: crew
name: Crew
version: 1.0.0
template_engine: {version: v1, syntax: "{{variable}}"}
prompts:
  lead:
    id: lead
    name: "Lead \\"boss\\""
    version: 1.0.0
    description: Leads
    system_template: Lead.
    tools: [writer, a2a__editor, search, lead]
  writer:
    id: writer
    name: Writer
    version: 1.0.0
    description: Writes
    system_template: Write.
    tools: [editor]
  editor:
    id: editor
    name: Editor
    version: 1.0.0
    description: Edits
    system_template: Edit.
    tools: [writer, search]
  loner:
    id: loner
    name: Loner
    version: 1.0.0
    description: Alone
    system_template: Alone.
  search:
    id: search
    name: Search
    version: 1.0.0
    description: Not an agent
    system_template: Search.
agents:
  entry: lead
  members:
    lead: {tags: [a]}
    writer: {tags: [b]}
    editor: {tags: [c]}
    loner: {tags: [d]}
tools:
  editor:
    name: editor
    description: A pack tool that shadows the member name
"""


def pack(text: str = TEXT) -> Pack:
    analysis = analyze(text, kind="promptpack")
    assert analysis.pack is not None
    return analysis.pack


def test_edges_from_member_keys_and_a2a_names() -> None:
    topo = build(pack())
    edges = [(e.source, e.target, e.via) for e in topo.edges]
    # `editor` in writer's tools is a pack tool and a member: the agent is called
    # anyway (RFC 0007; PromptKit offers it as `a2a__editor`), so it is an edge (and
    # PP308); `search` is not a member; `lead` calling itself is PP204, not an edge.
    assert edges == [
        ("lead", "writer", "writer"),
        ("lead", "editor", "a2a__editor"),
        ("writer", "editor", "editor"),
        ("editor", "writer", "writer"),
    ]
    assert topo.reachable() == {"lead", "writer", "editor"}
    assert [n.key for n in topo.unreachable()] == ["loner"]
    assert [[(e.source, e.target) for e in c] for c in topo.cycles()] == [
        [("writer", "editor"), ("editor", "writer")]
    ]


def test_a2a_names_are_edges_only_when_a2a_is_a_namespace() -> None:
    settings = ToolSettings(("mcp__",))
    edges = [(e.source, e.target) for e in build(pack(), settings=settings).edges]
    assert ("lead", "editor") not in edges


def test_cycle_is_found_once_with_its_closing_call() -> None:
    text = TEXT.replace(
        "tools:\n  editor:\n    name: editor\n"
        "    description: A pack tool that shadows the member name\n",
        "",
    )
    topo = build(pack(text))
    cycles = topo.cycles()
    assert len(cycles) == 1
    assert [(e.source, e.target) for e in cycles[0]] == [("writer", "editor"), ("editor", "writer")]
    analysis = analyze(text, kind="promptpack")
    found = [
        (d.code, analysis.lines.range(d.span).start.line + 1)
        for d in analysis.diagnostics
        if d.code in ("PP710", "PP711")
    ]
    assert found == [("PP711", 26), ("PP710", 45)]


def test_formats() -> None:
    topo = build(pack())
    mermaid = render(topo, "mermaid")
    assert mermaid.splitlines()[0] == "flowchart LR"
    assert '    lead(["Lead #quot;boss#quot; (lead)"])' in mermaid
    assert "    lead -->|a2a__editor| editor" in mermaid
    assert "    class loner unreachable" in mermaid
    dot = render(topo, "dot")
    assert dot.startswith("digraph agents {")
    assert '"lead" [label="Lead \\"boss\\"", peripheries=2];' in dot
    assert '"loner" [label="Loner", style=dashed];' in dot
    assert '"lead" -> "editor" [label="a2a__editor"];' in dot
    data = json.loads(render(topo, "json"))
    assert data["entry"] == "lead"
    assert {"from": "editor", "to": "writer", "via": "writer"} in data["edges"]
    assert [n["id"] for n in data["nodes"] if not n["reachable"]] == ["loner"]


def test_no_agents_is_an_empty_graph() -> None:
    topo = build(pack(TEXT.split("agents:")[0]))
    assert topo.nodes == {} and topo.edges == ()
    assert render(topo, "mermaid") == "flowchart LR\n"


def test_entry_outside_members_is_a_node_under_spec() -> None:
    text = TEXT.replace("    lead: {tags: [a]}\n", "")
    assert "lead" in build(pack(text)).nodes
    assert "lead" not in build(pack(text), include_entry=False).nodes
    assert build(pack(text), include_entry=False).unreachable() == []


def _clique(n: int) -> str:
    """A pack of ``n`` members that all call each other (many elementary cycles)."""
    keys = [f"m{i}" for i in range(n)]
    prompts = "".join(
        f"  {k}: {{id: {k}, name: {k}, version: 1.0.0, description: x, system_template: x, "
        f"tools: [{', '.join(o for o in keys if o != k)}]}}\n"
        for k in keys
    )
    members = ", ".join(f"{k}: {{}}" for k in keys)
    return (
        'id: c\nname: C\nversion: 1.0.0\ntemplate_engine: {version: v1, syntax: "{{variable}}"}\n'
        f"prompts:\n{prompts}agents:\n  entry: m0\n  members: {{{members}}}\n"
    )


def test_each_elementary_cycle_of_a_group_is_reported() -> None:
    topo = build(pack(_clique(3)))
    cycles = sorted(tuple(e.source for e in c) for c in topo.cycles())
    # 3 two-agent cycles and 2 three-agent ones, each found once
    assert cycles == [
        ("m0", "m1"),
        ("m0", "m1", "m2"),
        ("m0", "m2"),
        ("m0", "m2", "m1"),
        ("m1", "m2"),
    ]
    analysis = analyze(_clique(3), kind="promptpack")
    assert len([d for d in analysis.diagnostics if d.code == "PP711"]) == 5


def test_a_group_with_too_many_cycles_is_summarised_honestly() -> None:
    (group,) = build(pack(_clique(6))).cycle_groups()
    assert not group.complete and group.count > len(group.cycles) - 1
    analysis = analyze(_clique(6), kind="promptpack")
    (found,) = [d for d in analysis.diagnostics if d.code == "PP711"]
    assert found.message.startswith(f"Agents call each other in at least {group.count} cycles")
    assert "`m0`, `m1`, `m2`, `m3`, `m4`, `m5`" in found.message


def test_cycle_search_is_bounded_on_a_large_clique() -> None:
    """Guard, not a benchmark: a dense graph must not make the check explode."""
    import time

    started = time.perf_counter()
    analyze(_clique(40), kind="promptpack")
    assert time.perf_counter() - started < 20


def test_calls_to_an_entry_outside_members_are_not_agent_calls() -> None:
    """One model for RFC 0007 rule 4 and the cycle check: only members are agents."""
    text = TEXT.replace("    lead: {tags: [a]}\n", "").replace(
        "tools: [writer, search]", "tools: [writer, search, lead]"
    )
    topo = build(pack(text))
    assert "lead" in topo.nodes and not topo.nodes["lead"].member
    assert ("editor", "lead") not in {(e.source, e.target) for e in topo.edges}
    codes = {d.code for d in analyze(text, kind="promptpack").diagnostics}
    assert "PP205" in codes  # the tools item naming the non-member entry


def test_workflow_routes_reach_state_bound_members_and_composition_steps() -> None:
    from paths import ROOT

    text = (ROOT / "tests" / "golden" / "cards" / "topology-workflow.yaml").read_text(
        encoding="utf-8"
    )
    topo = build(pack(text))
    assert sorted((r.source, r.target, r.via) for r in topo.routes) == [
        ("intake", "analyst", "analyse"),
        ("intake", "resolver", "resolve"),
    ]
    assert [n.key for n in topo.unreachable()] == ["idle"]
    assert topo.cycles() == []
    assert "    intake -.->|state analyse| analyst" in render(topo, "mermaid")
    assert '"intake" -> "resolver" [label="state resolve", style=dashed];' in render(topo, "dot")
    data = json.loads(render(topo, "json"))
    assert {"from": "intake", "to": "resolver", "state": "resolve"} in data["routes"]


def test_routes_start_only_from_members_with_a_state() -> None:
    text = """\
id: desk
name: Desk
version: 1.0.0
template_engine: {version: v1, syntax: "{{variable}}"}
prompts:
  triage: {id: triage, name: T, version: 1.0.0, description: Routes, system_template: Route}
  billing: {id: billing, name: B, version: 1.0.0, description: Bills, system_template: Bill}
workflow:
  version: 1
  entry: start
  states:
    start: {prompt_task: triage, on_event: {Billing: bills}}
    bills: {prompt_task: billing, terminal: true}
agents:
  entry: triage
  members: {triage: {}, billing: {}}
"""
    # RFC 0011: a member without `state` runs its prompt once and never enters the
    # workflow, so no route starts from it, even when a state runs the same prompt.
    topo = build(pack(text))
    assert topo.routes == ()
    assert [node.key for node in topo.unreachable()] == ["billing"]
    assert "PP710" in {d.code for d in analyze(text, kind="promptpack").diagnostics}
    # With `state`, the entry runs the workflow from there and reaches `billing`.
    with_state = text.replace("members: {triage: {}", "members: {triage: {state: start}")
    topo = build(pack(with_state))
    assert [(r.source, r.target, r.via) for r in topo.routes] == [("triage", "billing", "bills")]
    assert topo.unreachable() == []
    assert "PP710" not in {d.code for d in analyze(with_state, kind="promptpack").diagnostics}
