"""The agent call graph: edges from tool references, reachability, cycles, output."""

from __future__ import annotations

import json

from pack_lsp.core.analysis import analyze
from pack_lsp.core.cards.topology import build, render
from pack_lsp.core.model import Pack

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
    # `editor` in writer's tools is the pack tool (tools win); `search` is not a member;
    # `lead` calling itself is the agents rules' PP204, not an edge.
    assert edges == [
        ("lead", "writer", "writer"),
        ("lead", "editor", "a2a__editor"),
        ("editor", "writer", "writer"),
    ]
    assert topo.reachable() == {"lead", "writer", "editor"}
    assert [n.key for n in topo.unreachable()] == ["loner"]
    assert topo.cycles() == []


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
