"""`pack-lsp --compare`: one golden case per kind of change (``tests/compare``).

Each ``<kind>.head.yaml`` is compared with ``base.yaml``; ``<kind>.expected`` is the
text output (``PACK_LSP_UPDATE_GOLDEN=1`` writes it) and must list a change of that
kind. Every kind of the table has its case.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from git_repo import git
from pack_lsp.cli import main
from pack_lsp.cli.compare import compare_texts, render
from pack_lsp.core.ide.compare import KINDS

HERE = Path(__file__).resolve().parent / "compare"
BASE = HERE / "base.yaml"
HEADS = sorted(HERE.glob("*.head.yaml"))
UPDATE = os.environ.get("PACK_LSP_UPDATE_GOLDEN") == "1"


def _kind(head: Path) -> str:
    return head.name.removesuffix(".head.yaml")


def test_every_kind_has_a_case() -> None:
    assert sorted(_kind(h) for h in HEADS) == sorted(KINDS)


@pytest.mark.parametrize("head", HEADS, ids=_kind)
def test_compare_case(head: Path) -> None:
    compared = compare_texts("head.yaml", BASE.read_text(), head.read_text(), "base.yaml")
    assert _kind(head) in {c.kind for c in compared.changes}
    output = render([compared], "text")
    expected = head.with_name(f"{_kind(head)}.expected")
    if UPDATE:
        expected.write_text(output)
    assert output == expected.read_text()
    assert all(line.startswith(("head.yaml:", "base.yaml:")) for line in output.splitlines())


def test_exit_status_and_major_bump(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    head = tmp_path / "head.yaml"
    head.write_text((HERE / "tool-removed.head.yaml").read_text())
    assert main(["--compare", str(BASE), str(head)]) == 1
    head.write_text(head.read_text().replace("version: 1.2.0", "version: 2.0.0"))
    assert main(["--compare", str(BASE), str(head)]) == 0
    assert "major version was raised" in capsys.readouterr().out
    head.write_text((HERE / "tool-added.head.yaml").read_text())
    assert main(["--compare", str(BASE), str(head)]) == 0


def test_json_and_sarif(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    head = str(HERE / "state-removed.head.yaml")
    main(["--compare", str(BASE), head, "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    change = doc["files"][0]["changes"][0]
    assert change["kind"] == "state-removed" and change["breaking"] and change["side"] == "base"
    assert change["file"] == str(BASE) and change["range"]["start"]["line"] == 57
    main(["--compare", str(BASE), head, "--format", "sarif"])
    sarif = json.loads(capsys.readouterr().out)
    results = sarif["runs"][0]["results"]
    assert {r["ruleId"] for r in results} == {"state-removed", "event-removed"}
    assert all(r["level"] == "error" for r in results)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_revisions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = tmp_path / "packs" / "support.promptpack.yaml"
    pack.parent.mkdir()
    pack.write_text(BASE.read_text())
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "base")
    pack.write_text((HERE / "agent-removed.head.yaml").read_text())
    git(tmp_path, "commit", "-qam", "head")
    pack.write_text((HERE / "agent-added.head.yaml").read_text())  # the working tree
    monkeypatch.chdir(tmp_path)
    assert main(["--compare", "HEAD~1..HEAD", "packs/support.promptpack.yaml"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("HEAD~1:packs/support.promptpack.yaml:") and "agent-removed" in out
    assert main(["--compare", "HEAD~1"]) == 0  # the working tree; packs found under .
    assert "agent-added" in capsys.readouterr().out
    assert main(["--compare", "no-such-revision", "packs/support.promptpack.yaml"]) == 2
    assert "pack-lsp: error: git show" in capsys.readouterr().err
