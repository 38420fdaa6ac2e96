"""Check an arena project: its cross-file rules, and every pack rule on its compiled pack.

``check_project`` compiles the project in memory (``core.arena.compile``), runs the
one ``analyze()`` on the compiled pack, and takes each diagnostic back to the source
file and span the flagged value came from (its related locations too). A quick fix
of the compiled pack goes with it when its edit replaces characters written verbatim
in that file (``core.arena.fixes``); the others are dropped. Together with the project's own rules
(``core.rules.arena``) that gives each file of the project its list of problems.

``analyze_in_project`` analyses one file of a project with ``analyze()`` and those
problems, so that configuration (``select``/``ignore``/``severity``), the profile
and suppression comments apply to them as to any other diagnostic.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from pack_lsp.core.base import kinds
from pack_lsp.core.base.diagnostics import Diagnostic, Related
from pack_lsp.core.base.source import check_regular
from pack_lsp.core.base.text import Span
from pack_lsp.core.checks.analysis import Analysis, analyze
from pack_lsp.core.checks.arena.fixes import carried
from pack_lsp.core.checks.rules import arena_project as arena_rules
from pack_lsp.core.checks.rules.agents import MEMBER_NOT_A_PROMPT
from pack_lsp.core.checks.rules.compositions import UNDEFINED_STEP_PROMPT, UNDEFINED_STEP_TOOL
from pack_lsp.core.checks.rules.tools import (
    UNDEFINED_A2A_AGENT,
    UNDEFINED_TOOL,
    UNKNOWN_BLOCKLISTED_TOOL,
    UNUSED_TOOL,
)
from pack_lsp.core.checks.rules.workflow import UNDEFINED_PROMPT_TASK
from pack_lsp.core.model.arena.compile import (
    Origin,
    Out,
    SourceMap,
    compile_project,
    pack_id,
    render,
)
from pack_lsp.core.model.arena.project import (
    KINDS,
    TOOL,
    Project,
    mapping,
    name_at,
    norm,
    sequence,
)
from pack_lsp.core.model.config import Config

#: Pack rules whose finding about a tool name the project resolves otherwise (an
#: ``a2a__<agent>__<skill>`` of the config's ``a2a_agents``) is not shown.
_TOOL_CODES = frozenset({UNDEFINED_TOOL.code, UNDEFINED_A2A_AGENT.code})
#: Pack rules finding that a name is not a prompt of the pack.
_PROMPT_CODES = frozenset(
    {UNDEFINED_PROMPT_TASK.code, MEMBER_NOT_A_PROMPT.code, UNDEFINED_STEP_PROMPT.code}
)
#: Pack rules finding that a name is not a tool of the pack.
_DEFINED_TOOL_CODES = frozenset(
    {UNDEFINED_TOOL.code, UNDEFINED_STEP_TOOL.code, UNKNOWN_BLOCKLISTED_TOOL.code}
)


@dataclass(frozen=True)
class ProjectCheck:
    """What checking a project found, by file."""

    project: Project
    compiled: Out
    compiled_text: str
    compiled_analysis: Analysis
    source_map: SourceMap
    by_file: dict[str, tuple[Diagnostic, ...]] = field(default_factory=dict)

    def diagnostics_for(self, path: str | Path) -> tuple[Diagnostic, ...]:
        return self.by_file.get(norm(path), ())


def compiled_path(project: Project) -> str:
    """Where the compiled pack would be written (packc's default name)."""
    return os.path.join(project.folder, f"{pack_id(project.folder) or 'pack'}.pack.json")


def _nearby(project: Project) -> dict[str, str | None]:
    """Files under the config's folder (up to two levels) and their PromptKit kind."""
    out: dict[str, str | None] = {}
    base = project.folder
    for folder, dirs, names in os.walk(base):
        depth = os.path.relpath(folder, base).count(os.sep)
        if depth >= 2:
            dirs[:] = []
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "node_modules"]
        for name in names:
            if not name.endswith((".yaml", ".yml")):
                continue
            path = os.path.join(folder, name)
            try:
                check_regular(Path(path))  # never open a FIFO or a device: it could block
                with open(path, encoding="utf-8", errors="replace") as fh:
                    head = fh.read(4096)
            except OSError:
                continue
            kind = next(
                (k for k in KINDS if f"\nkind: {k}" in "\n" + head or f"kind: {k}\n" in head),
                None,
            )
            out[os.path.relpath(path, base)] = kind
    return out


def check_project(
    project: Project,
    config: Config | None = None,
    *,
    compiled_with: str = "pack-lsp",
    created_at: str = "",
    look_nearby: bool = True,
) -> ProjectCheck:
    """Check ``project``: the project's rules and the pack rules on its compiled pack."""
    config = config or Config()
    by_file: dict[str, list[Diagnostic]] = {p: [] for p in project.paths()}
    nearby = _nearby(project) if look_nearby else {}
    for path, diag in arena_rules.check_project(project, nearby):
        by_file.setdefault(path, []).append(diag)
    compiled = compile_project(project, compiled_with=compiled_with, created_at=created_at)
    text, smap = render(compiled)
    analysis = analyze(text, path=compiled_path(project), config=config, kind=kinds.PROMPTPACK)
    if not project.prompts:
        # A project without one prompt config it can read compiles to no pack
        # (packc refuses it); its gaps would only repeat PA101/PA102.
        return ProjectCheck(
            project, compiled, text, analysis, smap, {p: tuple(d) for p, d in by_file.items()}
        )
    # packc refuses a project with a file missing, but the pack rules still run on
    # what is there, so that every problem shows in one pass; a name the files that
    # could not be read may declare is unknown, never an error (docs/decisions.md, D50).
    texts = {p: f.text for p, f in project.files.items()}
    resolved = _resolved_elsewhere(project)
    unknown = _Unknown.of(project)
    fallback = Origin(project.config.path, _root_span(project))
    for diag in analysis.diagnostics:
        origin = smap.place(diag.span, texts) or fallback
        if diag.code in _TOOL_CODES and _names(diag, text) & resolved:
            continue
        if unknown.hides(diag, text):
            continue
        related = []
        for rel in diag.related:
            if rel.path is not None:
                continue
            where = smap.place(rel.span, texts)
            if where is None:
                continue
            related.append(
                Related(where.span, rel.message, None if where.path == origin.path else where.path)
            )
        fixes = carried(diag.fixes, text, smap, texts, origin.path)
        by_file.setdefault(origin.path, []).append(
            replace(diag, span=origin.span, related=tuple(related), fixes=fixes)
        )
    return ProjectCheck(
        project,
        compiled,
        text,
        analysis,
        smap,
        {p: tuple(unique(found)) for p, found in by_file.items()},
    )


@dataclass(frozen=True)
class _Unknown:
    """What the files of a project that could not be read may declare."""

    prompts: frozenset[str] | None
    """Task types a prompt config not read (a missing file, an inline ``prompt_specs``
    entry) may declare (None: any)."""
    prompts_missing: bool
    tools_missing: bool

    @staticmethod
    def of(project: Project) -> _Unknown:
        maybe = arena_rules.possible_task_types(project)
        return _Unknown(maybe, maybe is None or bool(maybe), bool(project.unknown_refs(TOOL)))

    def hides(self, diag: Diagnostic, text: str) -> bool:
        """Whether ``diag`` of the compiled pack may be wrong only for want of the
        files that could not be read."""
        if diag.code in _PROMPT_CODES and self.prompts_missing:
            return self.prompts is None or bool(_names(diag, text) & self.prompts)
        if diag.code == UNUSED_TOOL.code:
            return self.prompts_missing  # a prompt not read may list the tool
        return diag.code in _DEFINED_TOOL_CODES and self.tools_missing


def _root_span(project: Project) -> Span:
    top = project.config.top
    pair = top.pair("kind") if top is not None else None
    return pair.key.span if pair is not None else Span(0, 0)


def _names(diag: Diagnostic, text: str) -> set[str]:
    """The tool name a tools diagnostic is about (the flagged text, unquoted)."""
    flagged = text[diag.span.start : diag.span.end].strip('"')
    found = {flagged}
    name = diag.data.get("name") if diag.data else None
    if isinstance(name, str):
        found.add(name)
    return found


def _resolved_elsewhere(project: Project) -> set[str]:
    """Allowed tool names the project resolves outside the pack: ``a2a__<agent>…`` of
    the config's ``a2a_agents`` (the runtime registers those agents' skills)."""
    agents = {a.value for a in project.a2a_agents}
    spec = project.config.spec
    servers = sequence(spec.get("mcp_servers")) if spec is not None else None
    # An MCP server with a `source` registers its tools under their bare names.
    bare_from_mcp = servers is not None and any(
        name_at(mapping(s), "source", project.path) is not None for s in servers.values()
    )
    out = set()
    for prompt in project.prompts:
        for tool in prompt.allowed_tools:
            parts = tool.value.split("__")
            a2a = len(parts) >= 2 and parts[0] == "a2a" and parts[1] in agents
            if a2a or (len(parts) == 1 and bare_from_mcp):
                out.add(tool.value)
    return out


def unique(found: Iterable[Diagnostic]) -> list[Diagnostic]:
    """``found`` with each problem once (same code, span and message), in order."""
    seen: set[tuple[str, int, int, str]] = set()
    out = []
    for diag in found:
        key = (diag.code, diag.span.start, diag.span.end, diag.message)
        if key not in seen:
            seen.add(key)
            out.append(diag)
    return out


def analyze_in_project(
    text: str,
    path: str | Path,
    checked: ProjectCheck,
    config: Config | None = None,
    kind: str | None = None,
) -> Analysis:
    """The analysis of one file of a checked project: ``analyze()`` of the file with
    the project's problems for it (the file's text must be the one checked)."""
    return analyze(
        text,
        path=path,
        config=config or Config(),
        kind=kind,
        pre_diagnostics=list(checked.diagnostics_for(path)),
    )
