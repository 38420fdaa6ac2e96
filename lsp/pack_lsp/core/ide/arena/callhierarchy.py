"""The call hierarchy of an arena project, read from its compiled pack.

The compiled pack (``core.arena.compile``) is a pack like any other, so its call
graph is the pack's (``core.language.callhierarchy``): a prompt calls the tools its
``allowed_tools`` name and the members it calls through them (bare or ``a2a__``),
a workflow state calls states (``on_event``, ``on_max_visits``), a prompt
(``prompt_task``) and a composition; a composition calls its steps. Every value of
that pack remembers the file and span it was written at (``SourceMap``), so each
item and each call site is taken back to the project's files:

- an item's ``selection`` is where the definition's name is written: a prompt
  config's ``spec.task_type``, a tool file's ``metadata.name`` (a JSON tool's
  ``name``), a state's, composition's or member's key, a step's ``id``; its ``span``
  is the whole file for a prompt config or a tool (the file is the definition), the
  key and its value for a definition written in the arena config;
- a call's ``sites`` are the written names that make it (the ``allowed_tools`` item,
  the ``on_event`` target, the ``prompt_task`` value), always in the caller's file, as
  LSP's ``fromRanges`` are.

An item is found at a position of any file of the project: the compiled value
written there (the innermost source span holding the position), else the cross-file
name there (``core.arena.navigation``: a scenario's ``task_type``, a
``prompt_configs[].id``, ``agents.entry``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pack_lsp.core.base.text import Span
from pack_lsp.core.checks.arena.check import ProjectCheck
from pack_lsp.core.checks.rules.arena_project import complete
from pack_lsp.core.ide import callhierarchy as pack_calls
from pack_lsp.core.ide.arena import navigation
from pack_lsp.core.ide.index import Kind, SymbolId
from pack_lsp.core.model.arena.compile import Mark, Origin
from pack_lsp.core.model.arena.project import norm

#: The cross-file names of a project that are call hierarchy items.
_NAME_KINDS = {navigation.TASK_TYPE: Kind.PROMPT, navigation.TOOL: Kind.TOOL}


@dataclass(frozen=True, slots=True)
class ArenaCallItem:
    """One definition of the project's call graph, in the file it is written in."""

    symbol: SymbolId
    path: str
    span: Span
    selection: Span
    detail: str


@dataclass(frozen=True, slots=True)
class ArenaCall:
    """Calls between one item and the item asked about; ``sites`` are in the caller's
    file, ``path``."""

    item: ArenaCallItem
    sites: tuple[Span, ...]
    path: str


def callable_project(check: ProjectCheck) -> bool:
    """Whether the project has a compiled pack to read calls from (packc refuses a
    project with a missing file or no prompt config; so does ``check_project``)."""
    project = check.project
    return check.compiled_analysis.pack is not None and bool(project.prompts) and complete(project)


def _exact(check: ProjectCheck, start: int, end: int) -> Mark | None:
    """The widest mark of the compiled text starting in ``[start, start + 3]`` and
    ending at ``end`` (a value after its key's ``": "``, or the value itself)."""
    best: Mark | None = None
    for mark in check.source_map.starting(start, start + 3):
        if mark.end == end and (best is None or mark.start < best.start):
            best = mark
    return best


def _unquoted(check: ProjectCheck, path: str, span: Span) -> Span:
    """``span`` without the quotes of a quoted scalar written there."""
    file = check.project.files.get(path)
    written = file.text[span.start : span.end] if file is not None else ""
    if len(written) >= 2 and written[0] in "'\"" and written[-1] == written[0]:
        return Span(span.start + 1, span.end - 1)
    return span


def _whole_file(check: ProjectCheck, path: str, fallback: Span) -> Span:
    file = check.project.files.get(path)
    return Span(0, len(file.text)) if file is not None else fallback


def _item(check: ProjectCheck, item: pack_calls.CallItem) -> ArenaCallItem | None:
    """The compiled pack's item taken back to the file that defines it (None when the
    compiler made it up)."""
    found = check.source_map.find(item.selection)
    if found is None:
        return None
    selection = found.origin
    if selection.path != check.project.path:
        span = _whole_file(check, selection.path, selection.span)
    else:
        value = _exact(check, item.selection.end, item.span.end) or _exact(
            check, item.span.start, item.span.end
        )
        span = selection.span
        if value is not None and value.origin.path == selection.path:
            start = min(span.start, value.origin.span.start)
            span = Span(start, max(span.end, value.origin.span.end))
    name = _unquoted(check, selection.path, selection.span)
    return ArenaCallItem(item.symbol, selection.path, span, name, item.detail)


def item_for(check: ProjectCheck, symbol: SymbolId) -> ArenaCallItem | None:
    found = pack_calls.call_graph(check.compiled_analysis).items.get(symbol)
    return _item(check, found) if found is not None else None


def _at_compiled(check: ProjectCheck, path: str, offset: int) -> list[SymbolId]:
    """The symbols of the compiled names (strings and keys) written at ``offset`` of
    ``path``: those of the innermost source span holding it, the smallest compiled
    value first."""
    text = check.compiled_text
    marks = [
        m
        for m in check.source_map.marks
        if m.origin.path == path
        and m.origin.span.start <= offset <= m.origin.span.end
        and text.startswith('"', m.start)
    ]
    marks.sort(key=lambda m: (m.origin.span.end - m.origin.span.start, m.end - m.start))
    graph = pack_calls.call_graph(check.compiled_analysis)
    innermost = marks[0].origin.span if marks else None
    for mark in marks:
        if mark.origin.span != innermost:
            break
        found = pack_calls.prepare(check.compiled_analysis, (mark.start + mark.end) // 2)
        symbols = [i.symbol for i in found if i.symbol in graph.items]
        if symbols:
            return symbols
    return []


def prepare(check: ProjectCheck, path: str, offset: int) -> list[ArenaCallItem]:
    """The items at ``offset`` of the project's file ``path``: the definition written
    there, or the one a name there refers to."""
    if not callable_project(check):
        return []
    path = norm(path)
    symbols = _at_compiled(check, path, offset)
    if not symbols:
        occ = navigation.at(check.project, path, offset)
        kind = _NAME_KINDS.get(occ.kind) if occ is not None else None
        if occ is not None and kind is not None:
            symbols = [SymbolId(kind, occ.name)]
    out: list[ArenaCallItem] = []
    for symbol in symbols:
        item = item_for(check, symbol)
        if item is not None and item not in out:
            out.append(item)
    return out


def _sites(
    check: ProjectCheck, caller: ArenaCallItem, spans: Iterable[Span], texts: dict[str, str]
) -> tuple[Span, ...]:
    """The call sites (compiled spans) written in the caller's file; the caller's
    name when none is (a call the compiler made up)."""
    placed: list[Span] = []
    for span in spans:
        origin: Origin | None = check.source_map.place(span, texts)
        if origin is None or origin.path != caller.path:
            continue
        site = _unquoted(check, caller.path, origin.span)
        if site not in placed:
            placed.append(site)
    return tuple(placed) or (caller.selection,)


def outgoing(check: ProjectCheck, symbol: SymbolId) -> list[ArenaCall]:
    """What ``symbol`` calls, each with the sites in ``symbol``'s file."""
    return _calls(check, symbol, outgoing=True)


def incoming(check: ProjectCheck, symbol: SymbolId) -> list[ArenaCall]:
    """What calls ``symbol``, each with the sites in the caller's file."""
    return _calls(check, symbol, outgoing=False)


def _calls(check: ProjectCheck, symbol: SymbolId, outgoing: bool) -> list[ArenaCall]:
    """The calls of the compiled pack from (or to) ``symbol``, placed in the project's
    files: the sites are in the caller's file (``symbol``'s own when outgoing)."""
    asked = item_for(check, symbol)
    if asked is None:
        return []
    texts = {p: f.text for p, f in check.project.files.items()}
    find = pack_calls.outgoing if outgoing else pack_calls.incoming
    out = []
    for call in find(check.compiled_analysis, symbol):
        other = _item(check, call.item)
        if other is not None:
            caller = asked if outgoing else other
            out.append(ArenaCall(other, _sites(check, caller, call.sites, texts), caller.path))
    return out
