"""The graph of agent-to-agent calls implied by tool references (RFC 0007).

An agent calls another when its prompt's ``tools`` list names that agent: by its
member key (``researcher``) or as ``a2a__researcher`` (when ``a2a__`` is a configured
namespace). What a name calls is ``core/model/resolve.py``'s answer: a name that is both a
pack tool and a member calls the agent too (PP308). Nodes are the agents (the
members, plus an entry that is not listed as one); edges keep the tool item that
implies them, so diagnostics point at it.

Only members can be called as agents: an entry outside ``members`` is a node (it
starts the calls) but a tools item naming it is a plain prompt reference, which the
agents rules report (PP205) — one model for both checks.

The workflow also routes to agents: a member with ``state`` (RFC 0011) runs the
workflow from that state (a member without one runs its prompt once and never enters
the workflow, so no route starts from it); every member whose prompt a state reached
from there runs (as the state's
``prompt_task``, or as a ``prompt``/``agent`` step of the composition the state runs,
RFC 0010) is reached through it. These *routes* count
for reachability and are drawn, but are not calls: a workflow loop is not a call
cycle.

- a member the entry cannot reach through calls or routes is reported (information);
- each elementary cycle of calls is reported (warning) on the call that closes it,
  up to ``MAX_CYCLES`` per group of agents; a group with more is reported once,
  saying how many cycles were found among which agents. An agent listing itself is
  the agents rules' PP204, not a cycle here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from pack_lsp.core.base.graphs import strongly_connected
from pack_lsp.core.base.text import Span
from pack_lsp.core.model.pack import Located, Pack
from pack_lsp.core.model.resolve import DEFAULT_SETTINGS, ToolSettings, agent_called, resolve_tool

FORMATS = ("mermaid", "dot", "json")
#: Elementary cycles reported one by one per group of agents calling each other.
MAX_CYCLES = 8
#: Search steps spent enumerating the cycles of one group (a guard on dense graphs).
MAX_CYCLE_STEPS = 20_000


@dataclass(frozen=True, slots=True)
class Edge:
    """A call from one agent to another: the tool that names the callee."""

    source: str
    target: str
    via: str  # the tool name as written
    span: Span  # the tools item


@dataclass(frozen=True, slots=True)
class Node:
    """An agent of the topology: a member, the entry, or both."""

    key: str
    name: str
    span: Span  # member key (or the entry reference)
    entry: bool
    member: bool


@dataclass(frozen=True, slots=True)
class CycleGroup:
    """The call cycles among one group of agents that call each other.

    ``cycles`` lists elementary cycles (each as its edges, in call order);
    ``complete`` is False when the group has more than ``MAX_CYCLES`` of them (or the
    search was cut short), and ``count`` is then a lower bound.
    """

    agents: tuple[str, ...]
    cycles: tuple[tuple[Edge, ...], ...]
    count: int
    complete: bool


@dataclass(frozen=True, slots=True)
class Topology:
    """The pack's agents and who calls whom (and the workflow's routes)."""

    entry: str | None
    nodes: dict[str, Node] = field(default_factory=dict)
    edges: tuple[Edge, ...] = ()
    #: Workflow routes (``via`` names the state): reachability, not calls.
    routes: tuple[Edge, ...] = ()

    def calls(self, key: str) -> list[Edge]:
        return [e for e in self.edges if e.source == key]

    def callers(self, key: str) -> list[str]:
        """Agents whose tools name ``key``."""
        return [e.source for e in self.edges if e.target == key]

    def reachable(self) -> set[str]:
        if self.entry is None or self.entry not in self.nodes:
            return set()
        seen = {self.entry}
        stack = [self.entry]
        # Each node's links in their order, so the walk is linear in the links.
        links: dict[str, list[str]] = {}
        for edge in (*self.edges, *self.routes):
            links.setdefault(edge.source, []).append(edge.target)
        while stack:
            for target in links.get(stack.pop(), ()):
                if target not in seen:
                    seen.add(target)
                    stack.append(target)
        return seen

    def unreachable(self) -> list[Node]:
        if self.entry is None or self.entry not in self.nodes:
            return []
        seen = self.reachable()
        return [n for k, n in self.nodes.items() if k not in seen]

    def cycles(self) -> list[list[Edge]]:
        """Every elementary cycle found (each as its edges, in call order)."""
        return [list(c) for g in self.cycle_groups() for c in g.cycles]

    def cycle_groups(self) -> list[CycleGroup]:
        """The elementary cycles of each group of agents that call each other."""
        out: list[CycleGroup] = []
        order = {k: i for i, k in enumerate(self.nodes)}
        for component in _components(self):
            if len(component) < 2:
                continue
            members = sorted(component, key=order.__getitem__)
            found, complete = _elementary_cycles(self, members)
            shown = tuple(tuple(c) for c in found[:MAX_CYCLES])
            out.append(
                CycleGroup(tuple(members), shown, len(found), complete and len(found) <= MAX_CYCLES)
            )
        out.sort(key=lambda g: order[g.agents[0]])
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
            "routes": [{"from": e.source, "to": e.target, "state": e.via} for e in self.routes],
        }


def build(
    pack: Pack, *, include_entry: bool = True, settings: ToolSettings = DEFAULT_SETTINGS
) -> Topology:
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
    # Only members are called as agents (see the module docstring).
    agents = {k for k, n in nodes.items() if n.member}
    edges: list[Edge] = []
    for key in nodes:
        prompt = pack.prompts.get(key)
        if prompt is None:
            continue
        seen: set[str] = set()
        for item in prompt.tools:
            target = agent_called(resolve_tool(item.value, key, pack, settings))
            if target is None or target not in agents or target == key or target in seen:
                continue
            seen.add(target)
            edges.append(Edge(key, target, item.value, item.span))
    routes = _routes(pack, nodes, agents)
    return Topology(
        entry=entry if entry in nodes else None,
        nodes=nodes,
        edges=tuple(edges),
        routes=tuple(routes),
    )


def _routes(pack: Pack, nodes: dict[str, Node], agents: set[str]) -> list[Edge]:
    """Workflow routes: from a member with ``state`` to the members the workflow runs
    from that state on (through ``prompt_task`` or a composition's steps)."""
    wf = pack.workflow
    if wf is None or pack.agents is None:
        return []
    out: list[Edge] = []
    # The states that run each prompt, in workflow order, and what each state runs:
    # computed once, not per member (large packs have hundreds of both).
    by_task: dict[str, list[str]] = {}
    for name, st in wf.states.items():
        if st.prompt_task is not None:
            by_task.setdefault(st.prompt_task.text, []).append(name)
    # Per state: the agents it runs (with where) and the states it leads to.
    runs: dict[str, list[tuple[str, Span]]] = {}
    succ: dict[str, list[str]] = {}
    for name, state in wf.states.items():
        runs[name] = [
            (ref.text, ref.span) for ref in _prompts_run_by(pack, state) if ref.text in agents
        ]
        succ[name] = [t.target.text for t in state.on_event if t.target is not None]
        if state.on_max_visits is not None:
            succ[name].append(state.on_max_visits.text)
    for key, member in pack.agents.members.items():
        if key not in nodes:
            continue
        # Only a member with a state enters the workflow (RFC 0011).
        if member.state is None:
            continue
        starts = [member.state.text]
        seen: set[str] = set()
        stack = list(starts)
        targets: dict[str, tuple[str, Span]] = {}
        while stack:
            name = stack.pop()
            if name in seen or name not in runs:
                continue
            seen.add(name)
            for target, span in runs[name]:
                if target != key:
                    targets.setdefault(target, (name, span))
            stack.extend(succ[name])
        for target, (state_name, span) in targets.items():
            out.append(Edge(key, target, state_name, span))
    return out


def _prompts_run_by(pack: Pack, state: Any) -> list[Located]:
    """The prompt references a state runs: its ``prompt_task`` or its composition's
    ``prompt``/``agent`` steps."""
    out: list[Located] = []
    if state.prompt_task is not None:
        out.append(state.prompt_task)
    comp = pack.compositions.get(state.composition.text) if state.composition else None
    if comp is not None:
        out.extend(s.prompt_task for s in comp.all_steps() if s.prompt_task is not None)
    return out


def _components(topo: Topology) -> list[set[str]]:
    """Strongly connected components of the call graph."""
    succ = {k: [e.target for e in topo.calls(k)] for k in topo.nodes}
    return [set(c) for c in strongly_connected(succ)]


def _elementary_cycles(topo: Topology, members: list[str]) -> tuple[list[list[Edge]], bool]:
    """Elementary cycles among ``members`` (in graph order), each found once from its
    first member; stops after ``MAX_CYCLES`` + 1 cycles or ``MAX_CYCLE_STEPS`` steps.

    Returns the cycles and whether the enumeration finished.
    """
    rank = {k: i for i, k in enumerate(members)}
    out: list[list[Edge]] = []
    steps = 0
    for start in members:
        # Cycles whose first member is `start` use only members ranked after it.
        allowed = {k for k in members if rank[k] >= rank[start]}
        path: list[Edge] = []
        on_path = {start}
        work: list[Iterator[Edge]] = [iter(topo.calls(start))]
        while work:
            steps += 1
            if steps > MAX_CYCLE_STEPS or len(out) > MAX_CYCLES:
                return out, False
            edge = next(work[-1], None)
            if edge is None:
                work.pop()
                if path:
                    on_path.discard(path.pop().target)
                continue
            if edge.target == start:
                out.append([*path, edge])
            elif edge.target in allowed and edge.target not in on_path:
                path.append(edge)
                on_path.add(edge.target)
                work.append(iter(topo.calls(edge.target)))
    return out, True


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
    for route in topo.routes:
        lines.append(
            f"    {_mermaid_id(route.source, ids)} -.->|{_mermaid_text('state ' + route.via)}| "
            f"{_mermaid_id(route.target, ids)}"
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
    for route in topo.routes:
        lines.append(
            f"    {_dot_quote(route.source)} -> {_dot_quote(route.target)} "
            f"[label={_dot_quote('state ' + route.via)}, style=dashed];"
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
