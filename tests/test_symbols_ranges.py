"""Document/workspace symbols, folding ranges and selection ranges (core)."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest

from language_support import analysis_of, load, offset, texts
from pack_lsp.core.base.text import Span
from pack_lsp.core.ide import ranges, symbols
from pack_lsp.core.ide.symbols import SymbolKind, WorkspaceSymbols, matches

TEXT = load("support.promptpack.yaml")


def test_outline_is_hierarchical() -> None:
    analysis = analysis_of(TEXT)
    outline = symbols.document_symbols(analysis.pack, analysis.root)
    assert [(s.name, s.kind) for s in outline] == [
        ("fragments", SymbolKind.SECTION),
        ("prompts", SymbolKind.SECTION),
        ("tools", SymbolKind.SECTION),
        ("workflow", SymbolKind.WORKFLOW),
        ("agents", SymbolKind.AGENTS),
    ]
    prompts = outline[1]
    assert [p.name for p in prompts.children] == ["triage", "billing", "tech"]
    triage = prompts.children[0]
    assert triage.detail == "Triage"
    assert [(v.name, v.kind, v.detail) for v in triage.children] == [
        ("customer", SymbolKind.VARIABLE, "string"),
        ("company", SymbolKind.VARIABLE, "string"),
    ]
    assert TEXT[triage.selection.start : triage.selection.end] == "triage"
    assert triage.span.covers(triage.children[1].span)
    states = outline[3].children
    assert [(s.name, s.detail) for s in states] == [
        ("intake", "→ triage"),
        ("billing_desk", "→ billing"),
        ("tech_desk", "→ tech"),
        ("closed", "→ triage (terminal)"),
    ]
    assert outline[3].detail == "entry: intake"
    assert [m.name for m in outline[4].children] == ["triage", "billing", "tech"]
    for section in outline:
        for child in section.children:
            assert section.span.covers(child.span) and child.span.covers(child.selection)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "- a\n",
        "prompts: 3\n",
        "prompts:\n  a: [1]\n",
        "workflow: {states: [1]}\nagents: {members: 1}\n",
    ],
)
def test_outline_of_broken_documents(text: str) -> None:
    analysis = analysis_of(text)
    symbols.document_symbols(analysis.pack, analysis.root)
    ranges.folding_ranges(analysis)
    for at in range(len(text) + 1):
        chain = ranges.selection_ranges(analysis, at)
        assert all(b.covers(a) for a, b in itertools.pairwise(chain))


def test_fuzzy_match() -> None:
    assert matches("", "x")
    assert matches("bdesk", "billing_desk")
    assert matches("DESK", "billing_desk")
    assert not matches("ksed", "billing_desk")


def test_workspace_symbols_are_cached_by_modification_time(tmp_path: Path) -> None:
    pack = tmp_path / "a" / "one.promptpack.yaml"
    pack.parent.mkdir()
    pack.write_text(TEXT, encoding="utf-8")
    (tmp_path / "notes.yaml").write_text("a: 1\n", encoding="utf-8")
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / "x.promptpack.yaml").write_text(TEXT, encoding="utf-8")
    (tmp_path / "myenv").mkdir()  # a virtual environment, by its pyvenv.cfg
    (tmp_path / "myenv" / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")
    (tmp_path / "myenv" / "x.promptpack.yaml").write_text(TEXT, encoding="utf-8")
    ws = WorkspaceSymbols()
    found = ws.search("lookup", [tmp_path])
    assert [(s.name, s.kind, s.container, s.path) for s in found] == [
        ("lookup_order", SymbolKind.TOOL, "", pack)
    ]
    first = found[0]
    assert first.lines.text[first.selection.start : first.selection.end] == "lookup_order"
    assert ws.search("lookup", [tmp_path])[0] is first  # served from the cache
    pack.write_text(TEXT.replace("lookup_order", "find_order"), encoding="utf-8")
    stat = pack.stat()
    os.utime(pack, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10_000_000))
    assert [s.name for s in ws.search("order", [tmp_path])] == ["find_order"]
    # An open document wins over the file on disk.
    opened = {pack: TEXT}
    assert [s.name for s in ws.search("order", [tmp_path], opened)] == ["lookup_order"]
    assert {s.container for s in ws.search("company", [tmp_path])} == {"triage", "billing"}


def test_folding_ranges() -> None:
    text = "# one\n# two\n" + TEXT
    analysis = analysis_of(text)
    folds = ranges.folding_ranges(analysis)
    lines = text.split("\n")

    def line(needle: str) -> int:
        return next(i for i, ln in enumerate(lines) if ln.startswith(needle))

    assert ranges.Fold(0, 2, ranges.FoldKind.COMMENT) in folds  # with the fixture's own
    # A block scalar folds up to its last line, not the line after it.
    signoff = line("  signoff: |")
    assert ranges.Fold(signoff, signoff + 1) in folds
    triage = line("  triage:")
    assert ranges.Fold(triage, line("    tools: [lookup_order, billing")) in folds
    variable = line("      - name: customer")
    assert ranges.Fold(variable, variable + 2) in folds
    assert all(f.end_line > f.start_line for f in folds)


def test_selection_ranges_grow_outwards() -> None:
    analysis = analysis_of(TEXT)
    at = offset(TEXT, "request of {{customer}}", delta=14)
    chain = ranges.selection_ranges(analysis, at)
    shown = texts(TEXT, chain[:2])
    assert shown == ["customer", "{{customer}}"]
    assert TEXT[chain[2].start : chain[2].end].startswith("|\n      {{fragments.greeting}}")
    assert TEXT[chain[3].start : chain[3].end].startswith("system_template: |")
    assert chain[-1] == Span(0, len(TEXT))
    assert all(b.covers(a) and a != b for a, b in itertools.pairwise(chain))
    on_key = ranges.selection_ranges(analysis, offset(TEXT, "max_visits: 3", delta=2))
    assert texts(TEXT, on_key[:2]) == ["max_visits", "max_visits: 3"]
