"""The graph of agent-to-agent calls implied by tool references (RFC 0007).

An agent calls another when its prompt's ``tools`` list names that agent: by its
member key (``researcher``) or as ``a2a__researcher``. A name that is also a key
of the pack's ``tools`` is that tool, not an agent. Nodes are the agents (the
members, plus an entry that is not listed as one); edges keep the tool item that
implies them, so diagnostics point at it.

- a member the entry cannot reach through calls is reported (information);
- agents that call each other in a cycle are reported (warning), once per cycle,
  on the call that closes it. An agent listing itself is the agents rules'
  PP204, not a cycle here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from pack_lsp.core.config import A2A_PREFIX
from pack_lsp.core.model import Located, Pack
from pack_lsp.core.text import Span

FORMATS = ("mermaid", "dot", "json")


@dataclass(frozen=True, slots=True)
class Edge:
    source: str
    target: str
    via: str  # the tool name as written
    span: Span  # the tools item


@dataclass(frozen=True, slots=True)
class Node:
    key: str
    name: str
    span: Span  # member key (or the entry reference)
    entry: bool
    member: bool


@dataclass(frozen=True, slots=True)
class Topology:
    entry: str | None
    nodes: dict[str, Node] = field(default_factory=dict)
    edges: tuple[Edge, ...] = ()

    def calls(self, key: str) -> list[Edge]:
        return [e for e in self.edges if e.source == key]

    def reachable(self) -> set[str]:
        if self.entry is None or self.entry not in self.nodes:
            return set()
        seen = {self.entry}
        stack = [self.entry]
        while stack:
            for edge in self.calls(stack.pop()):
                if edge.target not in seen:
                    seen.add(edge.target)
                    stack.append(edge.target)
        return seen

    def unreachable(self) -> list[Node]:
        if self.entry is None or self.entry not in self.nodes:
            return []
        seen = self.reachable()
        return [n for k, n in self.nodes.items() if k not in seen]

    def cycles(self) -> list[list[Edge]]:
        """One cycle (as its edges, in call order) per group of agents calling each other."""
        out: list[list[Edge]] = []
        for component in _components(self):
            if len(component) < 2:
                continue
            start = next(k for k in self.nodes if k in component)
            path = _cycle_through(self, start, component)
            if path:
                out.append(path)
        return out

    def to_json(self) -> dict[str, Any]:
        reach = self.reachable()
        return {
            "entry": self.entry,
            "nodes": [
                {
                    "id": n.key,
                    "name": n.name,
                    "entry": n.entry,
                    "member": n.member,
                    "reachable": n.key in reach,
                }
                for n in self.nodes.values()
            ],
            "edges": [{"from": e.source, "to": e.target, "via": e.via} for e in self.edges],
        }


def target_of(name: str, pack: Pack, agents: set[str]) -> str | None:
    """The agent a tools item calls, or ``None`` when it is not an agent call."""
    if name in pack.tools:
        return None
    if name in agents:
        return name
    if name.startswith(A2A_PREFIX) and name[len(A2A_PREFIX) :] in agents:
        return name[len(A2A_PREFIX) :]
    return None


def build(pack: Pack, *, include_entry: bool = True) -> Topology:
    if pack.agents is None:
        return Topology(entry=None)
    entry_loc: Located | None = pack.agents.entry
    entry = entry_loc.value if entry_loc is not None and isinstance(entry_loc.value, str) else None
    nodes: dict[str, Node] = {}
    for key, member in pack.agents.members.items():
        prompt = pack.prompts.get(key)
        name = (
            prompt.name.value
            if prompt is not None and prompt.name is not None and isinstance(prompt.name.value, str)
            else key
        )
        nodes[key] = Node(key, name, member.key_span, key == entry, True)
    if (
        include_entry
        and entry is not None
        and entry not in nodes
        and entry in pack.prompts
        and entry_loc is not None
    ):
        prompt = pack.prompts[entry]
        name = (
            prompt.name.value
            if prompt.name is not None and isinstance(prompt.name.value, str)
            else entry
        )
        nodes[entry] = Node(entry, name, entry_loc.span, True, False)
    agents = set(nodes)
    edges: list[Edge] = []
    for key in nodes:
        prompt = pack.prompts.get(key)
        if prompt is None:
            continue
        seen: set[str] = set()
        for item in prompt.tools:
            target = target_of(item.value, pack, agents)
            if target is None or target == key or target in seen:
                continue
            seen.add(target)
            edges.append(Edge(key, target, item.value, item.span))
    return Topology(entry=entry if entry in nodes else None, nodes=nodes, edges=tuple(edges))


def _components(topo: Topology) -> list[set[str]]:
    """Strongly connected components (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[set[str]] = []
    counter = 0
    succ = {k: [e.target for e in topo.calls(k)] for k in topo.nodes}
    for root in topo.nodes:
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(succ[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(succ[nxt])))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                comp: set[str] = set()
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.add(w)
                    if w == node:
                        break
                out.append(comp)
    return out


def _cycle_through(topo: Topology, start: str, component: set[str]) -> list[Edge]:
    """A shortest cycle from ``start`` back to itself within ``component`` (BFS)."""
    parent: dict[str, Edge] = {}
    frontier = [start]
    seen = {start}
    while frontier:
        nxt: list[str] = []
        for node in frontier:
            for edge in topo.calls(node):
                if edge.target not in component:
                    continue
                if edge.target == start:
                    path = [edge]
                    cur = node
                    while cur != start:
                        path.append(parent[cur])
                        cur = parent[cur].source
                    return list(reversed(path))
                if edge.target not in seen:
                    seen.add(edge.target)
                    parent[edge.target] = edge
                    nxt.append(edge.target)
        frontier = nxt
    return []


# ----------------------------------------------------------------------------- output

_SAFE_ID = re.compile(r"[^A-Za-z0-9_]")


def _mermaid_id(key: str, used: dict[str, str]) -> str:
    if key in used:
        return used[key]
    base = _SAFE_ID.sub("_", key) or "agent"
    if base[0].isdigit():
        base = "a_" + base
    candidate = base
    n = 2
    while candidate in used.values():
        candidate = f"{base}_{n}"
        n += 1
    used[key] = candidate
    return candidate


def _mermaid_text(text: str) -> str:
    return text.replace('"', "#quot;").replace("\n", " ")


def to_mermaid(topo: Topology) -> str:
    ids: dict[str, str] = {}
    lines = ["flowchart LR"]
    for node in topo.nodes.values():
        label = _mermaid_text(node.name if node.name == node.key else f"{node.name} ({node.key})")
        shape = f'(["{label}"])' if node.entry else f'["{label}"]'
        lines.append(f"    {_mermaid_id(node.key, ids)}{shape}")
    for edge in topo.edges:
        lines.append(
            f"    {_mermaid_id(edge.source, ids)} -->|{_mermaid_text(edge.via)}| "
            f"{_mermaid_id(edge.target, ids)}"
        )
    reach = topo.reachable()
    unreachable = [
        ids[n.key] for n in topo.nodes.values() if topo.entry is not None and n.key not in reach
    ]
    if unreachable:
        lines.append("    classDef unreachable stroke-dasharray: 5 5")
        lines.append(f"    class {','.join(unreachable)} unreachable")
    return "\n".join(lines) + "\n"


def _dot_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(topo: Topology) -> str:
    lines = ["digraph agents {", "    rankdir=LR;", "    node [shape=box];"]
    reach = topo.reachable()
    for node in topo.nodes.values():
        attrs = [f"label={_dot_quote(node.name)}"]
        if node.entry:
            attrs.append("peripheries=2")
        if topo.entry is not None and node.key not in reach:
            attrs.append("style=dashed")
        lines.append(f"    {_dot_quote(node.key)} [{', '.join(attrs)}];")
    for edge in topo.edges:
        lines.append(
            f"    {_dot_quote(edge.source)} -> {_dot_quote(edge.target)} "
            f"[label={_dot_quote(edge.via)}];"
        )
    lines.append("}")
    return "\n".join(lines) + "\n"


def render(topo: Topology, fmt: str) -> str:
    if fmt == "mermaid":
        return to_mermaid(topo)
    if fmt == "dot":
        return to_dot(topo)
    if fmt == "json":
        return json.dumps(topo.to_json(), indent=2, ensure_ascii=False) + "\n"
    raise ValueError(f"unknown topology format {fmt!r}; expected one of {', '.join(FORMATS)}")
