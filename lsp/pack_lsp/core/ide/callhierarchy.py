"""The call graph of a pack, for the editor's call hierarchy.

A *call* is one place where a definition hands control to another:

- a prompt's ``tools`` item that calls an agents member (by its key, or as
  ``a2a__<member>``; what a name calls is ``core/model/resolve.py``'s answer), or names a
  pack tool;
- a workflow state's ``on_event`` target and ``on_max_visits`` (state → state), its
  ``prompt_task`` (state → prompt) and its ``composition`` (state → composition);
- a composition's top-level steps (composition → step), a step's ``prompt_task``
  (→ prompt), its ``tool`` and ``tools`` items (→ tool), its ``then``/``else``
  (→ step) and a parallel step's branches (→ step).

Items are the symbols of the index (``core/ide/index.py``): an agent is the prompt
of the same key. An item's ``selection`` is the definition's key (a step's ``id``), its
``span`` the whole definition; a call's ``sites`` are the spans of the names that make
it (the list item, the target scalar).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from pack_lsp.core.base.text import Span
from pack_lsp.core.checks.analysis import Analysis
from pack_lsp.core.ide.index import Kind, SymbolId, index_for
from pack_lsp.core.model.pack import Located, Pack, Step
from pack_lsp.core.model.resolve import (
    PackTool,
    ToolAndMember,
    ToolSettings,
    agent_called,
    resolve_tool,
)

#: The kinds of symbol that take part in calls.
CALLABLE = frozenset({Kind.PROMPT, Kind.TOOL, Kind.STATE, Kind.COMPOSITION, Kind.STEP})


@dataclass(frozen=True, slots=True)
class CallItem:
    """One definition of the call graph."""

    symbol: SymbolId
    span: Span  # the whole definition
    selection: Span  # its key (a step's id)
    detail: str  # "agent", "prompt", "tool", "workflow state", ...


@dataclass(frozen=True, slots=True)
class Edge:
    source: SymbolId
    target: SymbolId
    site: Span


@dataclass(frozen=True, slots=True)
class Call:
    """Calls between one item and the item asked about, with their sites."""

    item: CallItem
    sites: tuple[Span, ...]


@dataclass(frozen=True, slots=True)
class CallGraph:
    items: dict[SymbolId, CallItem]
    edges: tuple[Edge, ...]


def _whole(key_span: Span, value_span: Span) -> Span:
    return Span(key_span.start, max(key_span.end, value_span.end))


def _items(pack: Pack) -> dict[SymbolId, CallItem]:
    out: dict[SymbolId, CallItem] = {}
    members = set(pack.agents.members) if pack.agents is not None else set()
    for key, prompt in pack.prompts.items():
        detail = "agent" if key in members else "prompt"
        out[SymbolId(Kind.PROMPT, key)] = CallItem(
            SymbolId(Kind.PROMPT, key),
            _whole(prompt.key_span, prompt.span),
            prompt.key_span,
            detail,
        )
    for key, tool in pack.tools.items():
        out[SymbolId(Kind.TOOL, key)] = CallItem(
            SymbolId(Kind.TOOL, key), _whole(tool.key_span, tool.span), tool.key_span, "tool"
        )
    if pack.workflow is not None:
        for key, state in pack.workflow.states.items():
            sym = SymbolId(Kind.STATE, key)
            out[sym] = CallItem(sym, _whole(state.key_span, state.span), state.key_span, "state")
    for key, comp in pack.compositions.items():
        sym = SymbolId(Kind.COMPOSITION, key)
        out[sym] = CallItem(sym, _whole(comp.key_span, comp.span), comp.key_span, "composition")
        for step in comp.all_steps():
            if step.id is None or not isinstance(step.id.value, str):
                continue
            sym = SymbolId(Kind.STEP, step.id.value, key)
            kind = step.kind.text if step.kind is not None else "step"
            out.setdefault(sym, CallItem(sym, step.span, step.id.span, f"{kind} step of {key}"))
    return out


def _text(loc: Located | None) -> str | None:
    return loc.value if loc is not None and isinstance(loc.value, str) else None


def _step_edges(key: str, step: Step) -> Iterator[Edge]:
    if step.id is None or not isinstance(step.id.value, str):
        return
    me = SymbolId(Kind.STEP, step.id.value, key)
    task = _text(step.prompt_task)
    if task is not None and step.prompt_task is not None:
        yield Edge(me, SymbolId(Kind.PROMPT, task), step.prompt_task.span)
    for tool in ([step.tool] if step.tool is not None else []) + step.tools:
        name = _text(tool)
        if name is not None:
            yield Edge(me, SymbolId(Kind.TOOL, name), tool.span)
    for ref in (step.then, step.else_):
        name = _text(ref)
        if name is not None and ref is not None:
            yield Edge(me, SymbolId(Kind.STEP, name, key), ref.span)
    for branch in step.branches:
        if branch.id is not None and isinstance(branch.id.value, str):
            yield Edge(me, SymbolId(Kind.STEP, branch.id.value, key), branch.id.span)


def _edges(pack: Pack, settings: ToolSettings) -> Iterator[Edge]:
    for key, prompt in pack.prompts.items():
        me = SymbolId(Kind.PROMPT, key)
        for item in prompt.tools:
            if not isinstance(item.value, str):
                continue
            found = resolve_tool(item.value, key, pack, settings)
            called = agent_called(found)
            if called is not None and called != key:
                yield Edge(me, SymbolId(Kind.PROMPT, called), item.span)
            if isinstance(found, PackTool) or (
                isinstance(found, ToolAndMember) and found.tool_kept
            ):
                yield Edge(me, SymbolId(Kind.TOOL, found.key), item.span)
    if pack.workflow is not None:
        for key, state in pack.workflow.states.items():
            me = SymbolId(Kind.STATE, key)
            task = _text(state.prompt_task)
            if task is not None and state.prompt_task is not None:
                yield Edge(me, SymbolId(Kind.PROMPT, task), state.prompt_task.span)
            for tr in state.on_event:
                target = _text(tr.target)
                if target is not None and tr.target is not None:
                    yield Edge(me, SymbolId(Kind.STATE, target), tr.target.span)
            target = _text(state.on_max_visits)
            if target is not None and state.on_max_visits is not None:
                yield Edge(me, SymbolId(Kind.STATE, target), state.on_max_visits.span)
            comp = _text(state.composition)
            if comp is not None and state.composition is not None:
                yield Edge(me, SymbolId(Kind.COMPOSITION, comp), state.composition.span)
    for key, composition in pack.compositions.items():
        me = SymbolId(Kind.COMPOSITION, key)
        for step in composition.steps:
            if step.id is not None and isinstance(step.id.value, str):
                yield Edge(me, SymbolId(Kind.STEP, step.id.value, key), step.id.span)
        for step in composition.all_steps():
            yield from _step_edges(key, step)


def call_graph(analysis: Analysis) -> CallGraph:
    """The pack's call graph, built once per analysis."""

    def build() -> CallGraph:
        pack = analysis.pack
        if pack is None:
            return CallGraph({}, ())
        items = _items(pack)
        edges = tuple(
            e
            for e in _edges(pack, ToolSettings.of(analysis.config))
            if e.source in items and e.target in items
        )
        return CallGraph(items, edges)

    return analysis.derived.memo(call_graph, build)


def prepare(analysis: Analysis, offset: int) -> list[CallItem]:
    """The items at ``offset``: the definition written there, or the one a
    reference there names (an agents member key is its prompt)."""
    graph = call_graph(analysis)
    out: list[CallItem] = []
    for symbol in index_for(analysis).symbols_at(offset):
        item = graph.items.get(symbol)
        if item is not None and item not in out:
            out.append(item)
    return out


def _grouped(graph: CallGraph, pairs: Iterator[tuple[SymbolId, Span]]) -> list[Call]:
    sites: dict[SymbolId, list[Span]] = {}
    for symbol, site in pairs:
        sites.setdefault(symbol, []).append(site)
    return [Call(graph.items[s], tuple(spans)) for s, spans in sites.items()]


def outgoing(analysis: Analysis, symbol: SymbolId) -> list[Call]:
    """What ``symbol`` calls, each with the sites (in ``symbol``'s definition)."""
    graph = call_graph(analysis)
    return _grouped(graph, ((e.target, e.site) for e in graph.edges if e.source == symbol))


def incoming(analysis: Analysis, symbol: SymbolId) -> list[Call]:
    """What calls ``symbol``, each with the sites (in the caller's definition)."""
    graph = call_graph(analysis)
    return _grouped(graph, ((e.source, e.site) for e in graph.edges if e.target == symbol))


def item_for(analysis: Analysis, kind: str, name: str, scope: str | None) -> CallItem | None:
    """The item of a symbol named in a client's request (``None``: gone since)."""
    try:
        symbol = SymbolId(Kind(kind), name, scope)
    except ValueError:
        return None
    return call_graph(analysis).items.get(symbol)
