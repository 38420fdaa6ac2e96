"""Quick fixes of the compiled pack's diagnostics, offered in the project's source files.

``tests/data/arena/helpdesk-problems`` is the helpdesk project with deliberate
problems; each did-you-mean of the compiled pack whose name is written in a source
file is offered there, and applying it (then re-checking the project) removes the
problem. Fixes whose target is not written verbatim in a source file are dropped.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pack_lsp.core.base.diagnostics import Diagnostic
from pack_lsp.core.base.text import Span
from pack_lsp.core.checks.analysis import Analysis, analyze
from pack_lsp.core.checks.arena.workspace import ArenaWorkspace
from pack_lsp.core.ide.codeactions import Fix, quick_fixes
from pack_lsp.core.ide.rename import Edit
from pack_lsp.core.model.arena.project import norm
from paths import HERE

PROBLEMS = HERE / "data" / "arena" / "helpdesk-problems"

#: (file, code, flagged text, the fix's title, the text it writes)
CARRIED = [
    ("prompts/refunds.yaml", "PP301", "lookup_ordr", "Replace with `lookup_order`", "lookup_order"),
    ("config.arena.yaml", "PP403", "refund", "Replace with `refunds`", "refunds"),
    ("prompts/triage.yaml", "PP502", "tonne", "Replace with `tone`", "tone"),
]


def _project(tmp_path: Path) -> tuple[Path, ArenaWorkspace]:
    folder = tmp_path / "helpdesk"
    shutil.copytree(PROBLEMS, folder)
    workspace = ArenaWorkspace()
    assert workspace.add_config(folder / "config.arena.yaml") is not None
    return folder, workspace


def _analysis(workspace: ArenaWorkspace, path: Path) -> Analysis:
    text = path.read_text("utf-8")
    return analyze(text, path=path, pre_diagnostics=list(workspace.diagnostics_for(path)))


def _apply(text: str, edits: tuple[Edit, ...]) -> str:
    for edit in sorted(edits, key=lambda e: e.span.start, reverse=True):
        text = text[: edit.span.start] + edit.text + text[edit.span.end :]
    return text


def _find(analysis: Analysis, code: str, flagged: str) -> Diagnostic:
    (diag,) = [
        d
        for d in analysis.diagnostics
        if d.code == code and analysis.text[d.span.start : d.span.end] == flagged
    ]
    return diag


@pytest.mark.parametrize(("file", "code", "flagged", "title", "written"), CARRIED)
def test_a_did_you_mean_of_the_compiled_pack_is_fixed_in_the_source(
    tmp_path: Path, file: str, code: str, flagged: str, title: str, written: str
) -> None:
    folder, workspace = _project(tmp_path)
    path = folder / file
    analysis = _analysis(workspace, path)
    diag = _find(analysis, code, flagged)
    fixes: list[Fix] = quick_fixes(analysis, diag)
    assert [f.title for f in fixes] == [title]
    (fix,) = fixes
    assert fix.file is None  # an edit of the file the problem is shown in
    (edit,) = fix.edits
    assert (analysis.text[edit.span.start : edit.span.end], edit.text) == (flagged, written)

    before = {(d.code, d.message) for d in analysis.diagnostics}
    path.write_text(_apply(analysis.text, fix.edits), "utf-8")
    changed = workspace.changed(path)
    assert norm(path) in changed
    after = _analysis(workspace, path)
    assert not [d for d in after.diagnostics if d.code == code and flagged in d.message]
    # Nothing new: the fix changes the one name.
    assert {(d.code, d.message) for d in after.diagnostics} <= before


def test_fixes_that_insert_into_the_compiled_pack_are_dropped(tmp_path: Path) -> None:
    folder, workspace = _project(tmp_path)
    (checked,) = workspace.projects_of(folder / "config.arena.yaml")
    compiled = [d for d in checked.compiled_analysis.diagnostics if d.code == "PP301"]
    # The compiled pack's PP301 offers a did-you-mean and the creation of the tool...
    assert {type(f).__name__ for d in compiled for f in d.fixes} >= {
        "ReplaceWithSuggestion",
        "CreateTool",
    }
    # ...only the did-you-mean lands in the PromptConfig file.
    (placed,) = [
        d
        for d in workspace.diagnostics_for(folder / "prompts" / "refunds.yaml")
        if d.code == "PP301"
    ]
    assert [type(f).__name__ for f in placed.fixes] == ["ReplaceWithSuggestion"]


def test_a_target_not_written_verbatim_has_no_place_in_the_source(tmp_path: Path) -> None:
    folder, workspace = _project(tmp_path)
    (checked,) = workspace.projects_of(folder / "config.arena.yaml")
    text, smap = checked.compiled_text, checked.source_map
    texts = {p: f.text for p, f in checked.project.files.items()}
    # The pack's id is made up from the config's `metadata.name`: not written anywhere.
    at = text.index('"id": "') + len('"id": ')
    value = Span(at, text.index('"', at + 1) + 1)
    assert smap.find(value) is not None
    assert smap.written(value, text, texts) is None
    # A block scalar template is joined into one string: the whole value is not
    # written as such, a placeholder inside it is.
    start = text.index('"You work at the help desk')
    template = Span(start, text.index('\\n"', start) + 3)
    assert smap.written(template, text, texts) is None
    inner = text.index("tonne", start)
    placed = smap.written(Span(inner, inner + len("tonne")), text, texts)
    assert placed is not None
    assert texts[placed.path][placed.span.start : placed.span.end] == "tonne"
    assert placed.path == norm(folder / "prompts" / "triage.yaml")
