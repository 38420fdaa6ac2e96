"""`--fix` loses nothing, and `--compare` never takes a revision for an option.

Each finding of the review of what a hostile repository can do (docs/reliability.md,
"Threat model") is a test here: an edit saved while `--fix` runs is kept, a
symbolic link stays a link and its target is fixed, a write that fails is never
reported as a fix, and `--compare=--output=x` is refused before git runs.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from git_repo import git
from pack_lsp.cli import fix as cli_fix
from pack_lsp.cli import main

#: A pack with one safe fix (PP111: `fail_on_violation` is not a validator field).
PACK = """\
id: support
name: Support
version: 1.0.0
template_engine: {version: v1, syntax: "{{variable}}"}
prompts:
  support:
    id: support
    name: Support
    version: 1.0.0
    system_template: Help
    validators:
      - type: banned_words
        params: {words: [refund]}
        fail_on_violation: true
"""


def test_an_edit_saved_during_the_fix_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "a.promptpack.yaml"
    path.write_text(PACK)
    edited = PACK.replace("system_template: Help", "system_template: Help, edited")
    real = cli_fix.fix_file

    def fix_while_edited(*args: Any) -> Any:
        found = real(*args)
        path.write_text(edited)  # saved by the user while the fixes were computed
        return found

    monkeypatch.setattr(cli_fix, "fix_file", fix_while_edited)
    assert main(["--check", "--fix", str(path)]) == 2
    err = capsys.readouterr().err
    assert "the file changed while it was being fixed: not written" in err
    assert "Fixed" not in err
    assert path.read_text() == edited
    assert [p.name for p in tmp_path.iterdir()] == ["a.promptpack.yaml"]  # no temp left


def test_a_symlinked_pack_stays_a_link_and_its_target_is_fixed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "real" / "a.promptpack.yaml"
    target.parent.mkdir()
    target.write_text(PACK)
    link = tmp_path / "a.promptpack.yaml"
    link.symlink_to(target)
    assert main(["--check", "--fix", str(link)]) == 0
    assert "Fixed 1 problem in 1 file" in capsys.readouterr().err
    assert link.is_symlink() and link.resolve() == target
    assert "fail_on_violation" not in target.read_text()


def test_a_failed_write_is_not_reported_as_fixed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "a.promptpack.yaml"
    path.write_text(PACK)

    def refuse(*args: Any) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "replace", refuse)
    assert main(["--check", "--fix", str(path)]) == 2
    captured = capsys.readouterr()
    assert "cannot write: Operation not permitted" in captured.err
    assert "Fixed" not in captured.err
    # The diagnostics listed are those of the text on disk, which still has the problem.
    assert "PP111" in captured.out
    assert path.read_text() == PACK


def test_a_read_only_pack_is_not_rewritten(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "a.promptpack.yaml"
    path.write_text(PACK)
    path.chmod(0o444)
    assert main(["--check", "--fix", str(path)]) == 2
    assert "the file is read-only: not written" in capsys.readouterr().err
    assert path.read_text() == PACK


@pytest.mark.parametrize(
    "spec", ["--output=written.txt", "-p", "HEAD..--output=written.txt", "--", "-"]
)
def test_compare_refuses_a_revision_that_is_an_option(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    spec: str,
) -> None:
    (tmp_path / "a.promptpack.yaml").write_text(PACK)
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "base")
    monkeypatch.chdir(tmp_path)
    assert main([f"--compare={spec}", "a.promptpack.yaml"]) == 2
    assert "cannot start with `-`" in capsys.readouterr().err
    assert not (tmp_path / "written.txt").exists()


def test_git_gets_the_revision_after_end_of_options(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import subprocess

    seen: list[list[str]] = []
    real = subprocess.run

    def record(args: list[str], **kwargs: Any) -> Any:
        seen.append(list(args))
        return real(args, **kwargs)

    (tmp_path / "a.promptpack.yaml").write_text(PACK)
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "base")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(subprocess, "run", record)
    assert main(["--compare", "HEAD", "a.promptpack.yaml"]) == 0
    assert seen == [["git", "show", "--end-of-options", "HEAD:./a.promptpack.yaml", "--"]]
