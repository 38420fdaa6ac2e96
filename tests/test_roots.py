"""Files a repository names stay inside its root (core/base/roots.py, docs/reliability.md).

An arena config's `file:` entries and a configured baseline that leave the
repository (`../`, an absolute path, a link pointing out) are reported and not read
unless the configuration sets `read-outside-root = true`; the editor is offered no
link to them.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pack_lsp.cli import main
from pack_lsp.core.checks.arena.check import check_project
from pack_lsp.core.model.arena.compile import plain
from pack_lsp.core.model.arena.project import load_project
from paths import HERE
from samples import MINIMAL_PACK

HELPDESK = HERE / "data" / "arena" / "helpdesk"
SECRET = "a prompt of another project, secret-4242"


def _repository(tmp_path: Path) -> tuple[Path, Path]:
    """(the helpdesk project in a repository, a prompt config outside it)."""
    repo = tmp_path / "repo"
    folder = repo / "helpdesk"
    shutil.copytree(HELPDESK, folder)
    (repo / ".git").mkdir()
    outside = tmp_path / "elsewhere" / "refunds.yaml"
    outside.parent.mkdir()
    text = (folder / "prompts" / "refunds.yaml").read_text("utf-8")
    outside.write_text(text.replace("system_template: |", f"system_template: |\n    {SECRET}"))
    return folder, outside


def _point_refunds_at(folder: Path, written: str) -> None:
    config = folder / "config.arena.yaml"
    config.write_text(
        config.read_text("utf-8").replace("file: prompts/refunds.yaml", f"file: {written}")
    )


@pytest.mark.parametrize("how", ["dotdot", "absolute", "link"])
def test_an_arena_file_outside_the_repository_is_not_read(tmp_path: Path, how: str) -> None:
    folder, outside = _repository(tmp_path)
    if how == "dotdot":
        written = "../../elsewhere/refunds.yaml"
    elif how == "absolute":
        written = str(outside)
    else:
        (folder / "prompts" / "linked.yaml").symlink_to(outside)
        written = "prompts/linked.yaml"
    _point_refunds_at(folder, written)
    project = load_project(folder / "config.arena.yaml")
    assert project is not None
    assert str(outside) not in project.files and len(project.outside) == 1
    checked = check_project(project)
    codes = [d.code for d in checked.diagnostics_for(project.path)]
    assert "PA120" in codes and "PA101" not in codes
    assert SECRET not in json.dumps(plain(checked.compiled))
    # Allowed by the configuration: read as any other file.
    (folder / ".pack-lsp.toml").write_text("read-outside-root = true\n")
    allowed = load_project(folder / "config.arena.yaml")
    assert allowed is not None and not allowed.outside
    assert any(SECRET in f.text for f in allowed.files.values())


def test_check_reports_no_problem_located_outside(tmp_path: Path) -> None:
    folder, _ = _repository(tmp_path)
    _point_refunds_at(folder, "/proc/self/environ")
    done = subprocess.run(
        [sys.executable, "-m", "pack_lsp", "--check", str(folder)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "/proc/" not in done.stdout.replace("/proc/self/environ` is outside", "")
    assert "PA120" in done.stdout, done.stdout + done.stderr


def test_compile_does_not_copy_an_outside_prompt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, _ = _repository(tmp_path)
    _point_refunds_at(folder, "../../elsewhere/refunds.yaml")
    main(["--compile", str(folder / "config.arena.yaml")])
    captured = capsys.readouterr()
    assert SECRET not in captured.out and "PA120" in captured.err


def test_no_document_link_leaves_the_repository(tmp_path: Path) -> None:
    from pack_lsp.core.checks.analysis import analyze
    from pack_lsp.core.ide.links import document_links
    from pack_lsp.core.model.config import load_for

    folder, _ = _repository(tmp_path)
    _point_refunds_at(folder, "../../elsewhere/refunds.yaml")
    config = folder / "config.arena.yaml"
    analysis = analyze(config.read_text("utf-8"), path=config, config=load_for(config))
    targets = [link.path.name for link in document_links(analysis) if link.path is not None]
    assert "triage.yaml" in targets and "refunds.yaml" not in targets


def test_a_configured_baseline_outside_the_repository_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".git").mkdir()
    (repo / "a.promptpack.yaml").write_text(MINIMAL_PACK)
    (tmp_path / "baseline.json").write_text('{"tool": "pack-lsp", "version": 1, "entries": []}')
    (repo / ".pack-lsp.toml").write_text('baseline = "../baseline.json"\n')
    monkeypatch.chdir(repo)
    assert main(["--check", "a.promptpack.yaml"]) == 2
    assert "outside the project's root" in capsys.readouterr().err
    (repo / ".pack-lsp.toml").write_text(
        'baseline = "../baseline.json"\nread-outside-root = true\n'
    )
    assert main(["--check", "a.promptpack.yaml"]) == 0


def test_the_server_does_not_read_a_baseline_outside(tmp_path: Path) -> None:
    from pack_lsp.core.checks.analysis import analyze
    from pack_lsp.core.model.config import load_for
    from pack_lsp.server import baseline

    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".git").mkdir()
    (repo / ".pack-lsp.toml").write_text('baseline = "/dev/zero"\n')
    pack = repo / "a.promptpack.yaml"
    text = MINIMAL_PACK + "bogus: 1\n"
    analysis = analyze(text, path=pack, config=load_for(pack))
    items = [{"message": d.message} for d in analysis.diagnostics]
    kept, problem = baseline.apply(str(pack), analysis, items, "hint")
    assert kept == items
    assert problem is not None and "outside the project's root" in problem
