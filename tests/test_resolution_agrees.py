"""Regression test: every reference of the corpus and of the golden cases keeps
meaning the same thing to the rules, go-to-definition and the topology.

Each of them asks the resolver (core/model/resolve.py): the rules report a reference the
resolver leaves undefined, completion offers the names it defines, definition and
rename go where it resolves (``index.definitions_of``). This test checks that they
still agree:

- A prompt's tools item: PP301/PP302 fire exactly where go-to-definition finds
  nothing (runtime-provided names and members without a prompt aside, which have no
  definition in the pack by nature); definition lands on what the resolver names;
  PP204/PP205/PP308 fire exactly for a call to itself, a non-member prompt and a
  tool that is also a member; the topology has an edge exactly where the resolver
  says an agent is called.
- Any other reference (states, prompts, compositions, steps, providers, validators,
  evals, fragments): the resolver finds it exactly when definition does, and an
  undefined one carries a diagnostic.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from golden_support import GOLDEN, case_config, cases
from pack_lsp.core.checks.analysis import Analysis, analyze
from pack_lsp.core.checks.rules.tools import through_alias
from pack_lsp.core.ide import navigation
from pack_lsp.core.ide.index import Kind, Role, SymbolId, index_for, name_span
from pack_lsp.core.model import resolve
from pack_lsp.core.model.cards.topology import build
from pack_lsp.core.model.config import Config, Profile
from pack_lsp.core.model.resolve import ToolSettings
from paths import SHARED

CORPUS = SHARED / "corpus"
SUFFIXES = (".yaml", ".yml", ".json")


def _corpus() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(
        p
        for p in CORPUS.rglob("*")
        if p.is_file()
        and p.suffix in SUFFIXES
        and p.name != "manifest.json"
        and not p.name.startswith("SOURCES")
    )


def _golden() -> list[Path]:
    return [p for p in cases() if p.relative_to(GOLDEN).parts[0] not in ("manifests",)]


CORPUS_FILES = _corpus()
GOLDEN_FILES = _golden()


def _analysis(path: Path, config: Config) -> Analysis | None:
    try:
        text = path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return None
    analysis = analyze(text, path=path, config=config)
    return analysis if analysis.pack is not None else None


def _codes_at(analysis: Analysis, start: int, end: int) -> set[str]:
    return {d.code for d in analysis.diagnostics if d.span.start == start and d.span.end == end}


TOOL_CODES = {"PP301", "PP302"}


def check_agreement(analysis: Analysis) -> list[str]:
    """Disagreements between the resolver, definition and the diagnostics."""
    pack = analysis.pack
    assert pack is not None
    settings = ToolSettings.of(analysis.config)
    index = index_for(analysis)
    topology = build(pack, include_entry=True, settings=settings)
    edges = {(e.source, e.target) for e in topology.edges}
    members = set(pack.agents.members) if pack.agents is not None else set()
    problems: list[str] = []
    for key, prompt in pack.prompts.items():
        for item in prompt.tools:
            if not isinstance(item.value, str):
                continue
            name = item.value
            span, exact = name_span(analysis.text, item.span, name)
            if not exact or not name:
                continue
            ref = resolve.resolve_tool(name, key, pack, settings)
            where = f"{key}: tools item {name!r} ({type(ref).__name__})"
            found = navigation.definition(analysis, span.end - 1)
            expected = sorted(
                {
                    o.span
                    for t in resolve.tool_targets(ref)
                    for o in index.definitions(SymbolId(t.kind, t.name))
                }
            )
            if found != expected:
                problems.append(f"{where}: definition {found} != resolver's {expected}")
            if through_alias(item, prompt):
                # A list shared by a YAML alias is reported once, where it is written
                # (tests/golden/tools/alias-*.yaml); its items are checked for the
                # prompt that holds them.
                continue
            # The diagnostics about this prompt's item (another prompt sharing the list
            # through an alias has its own, such as calling itself).
            codes = {
                d.code
                for d in analysis.diagnostics
                if d.span.start == item.span.start
                and d.span.end == item.span.end
                and f"`{key}`" in d.message
            }
            unresolved = isinstance(ref, resolve.UNRESOLVED) or (
                isinstance(ref, resolve.Wildcard) and ref.empty
            )
            if bool(codes & TOOL_CODES) != unresolved:
                problems.append(f"{where}: codes {sorted(codes)}")
            runtime = isinstance(ref, resolve.RuntimeNamespace | resolve.Wildcard)
            missing_prompt = any(
                t.kind is Kind.PROMPT and t.name not in pack.prompts
                for t in resolve.tool_targets(ref)
            )
            if not runtime and not missing_prompt and bool(codes & TOOL_CODES) != (found == []):
                problems.append(f"{where}: PP301/PP302 {sorted(codes)} but definition {found}")
            for code, kind in (
                ("PP204", resolve.SelfCall),
                ("PP205", resolve.NonMemberPrompt),
                ("PP308", resolve.ToolAndMember),
            ):
                if (code in codes) != isinstance(ref, kind):
                    problems.append(f"{where}: {code} in {sorted(codes)}")
            called = resolve.agent_called(ref)
            if key in topology.nodes:
                edge = called is not None and called in members and called != key
                if edge != ((key, called) in edges):
                    problems.append(f"{where}: topology edge to {called}: {not edge}")
    problems.extend(_other_references(analysis))
    return problems


#: Reference roles checked for other kinds (tools items are checked above).
OTHER_ROLES = {
    Role.AGENTS_ENTRY,
    Role.PROMPT_TASK,
    Role.WORKFLOW_ENTRY,
    Role.TARGET,
    Role.ON_MAX_VISITS,
    Role.MEMBER_STATE,
    Role.COMPOSITION_REF,
    Role.STEP_REF,
    Role.PROVIDER_REF,
}


def _other_references(analysis: Analysis) -> list[str]:
    pack = analysis.pack
    assert pack is not None
    index = index_for(analysis)
    problems: list[str] = []
    for occ in index.occurrences:
        if occ.definition or occ.role not in OTHER_ROLES or not occ.symbol.name:
            continue
        symbol = occ.symbol
        extra = ("default",) if symbol.kind is Kind.PROVIDER else ()
        ref = resolve.resolve_ref(symbol.kind, symbol.name, pack, symbol.scope, extra=extra)
        defined = bool(index.definitions(symbol))
        where = f"{symbol.describe()} ({occ.role.value})"
        if isinstance(ref, resolve.Defined) != defined and symbol.name not in extra:
            problems.append(f"{where}: resolver {type(ref).__name__}, definition {defined}")
        if isinstance(ref, resolve.Missing):
            around = occ.node_span or occ.span
            if not any(
                d.span.start <= around.start and around.end <= d.span.end
                for d in analysis.diagnostics
            ):
                problems.append(f"{where}: undefined without a diagnostic")
    return problems


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=lambda p: p.relative_to(GOLDEN).as_posix())
def test_golden_references_agree(path: Path) -> None:
    analysis = _analysis(path, case_config(path))
    if analysis is None:
        pytest.skip("not a pack")
    assert check_agreement(analysis) == []


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"needs the shared corpus at {CORPUS}")
@pytest.mark.parametrize("profile", [Profile.SPEC, Profile.PROMPTKIT])
def test_corpus_references_agree(profile: Profile) -> None:
    problems: list[str] = []
    checked = 0
    for path in CORPUS_FILES:
        analysis = _analysis(path, Config(profile=profile))
        if analysis is None:
            continue
        checked += 1
        problems.extend(f"{path.relative_to(CORPUS)}: {p}" for p in check_agreement(analysis))
    assert checked > 50
    assert problems == []


@pytest.mark.parametrize("namespaces", [None, ("mcp__",)])
def test_a2a_name_agrees_with_or_without_the_namespace(namespaces: tuple[str, ...] | None) -> None:
    """With `a2a__` configured the name is the member; without it, PP301 and no
    definition (the reproduced defect: PP301 while definition jumped to the prompt)."""
    config = Config() if namespaces is None else Config(tool_namespaces=namespaces)
    analysis = analyze(TEAM, config=config, kind="promptpack")
    assert check_agreement(analysis) == []
    at = TEAM.index("a2a__helper") + 6
    found = navigation.definition(analysis, at)
    codes = {d.code for d in analysis.diagnostics if d.span.contains(at)}
    if namespaces is None:
        assert found == [navigation.definition(analysis, TEAM.index("  helper:") + 2)[0]]
        assert not codes & TOOL_CODES
    else:
        assert found == [] and "PP301" in codes


TEAM = """\
id: team
name: Team
version: 1.0.0
template_engine: {version: v1, syntax: "{{variable}}"}
prompts:
  lead:
    id: lead
    name: Lead
    version: 1.0.0
    description: Leads
    system_template: Lead.
    tools: [a2a__helper]
  helper:
    id: helper
    name: Helper
    version: 1.0.0
    description: Helps
    system_template: Help.
agents:
  entry: lead
  members: {lead: {}, helper: {}}
"""
