"""The GitHub Action (action.yml): its steps' script, scripts/action.sh, run locally
as the runner would run it (inputs in the environment, GITHUB_OUTPUT a file), with
the pack-lsp under test; and the pre-commit hook that applies the safe fixes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pre_commit.clientlib import load_manifest
from ruamel.yaml import YAML

from git_repo import git
from samples import MINIMAL_PACK

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "action.sh"
BROKEN = MINIMAL_PACK + "agent: {}\n"

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def test_action_runs_its_script() -> None:
    action = YAML(typ="safe").load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    steps = action["runs"]["steps"]
    run = next(s for s in steps if "run" in s)
    assert "scripts/action.sh" in run["run"]
    assert set(run["env"]) >= {f"INPUT_{name.upper()}" for name in ("paths", "baseline", "strict")}
    assert any("upload-sarif" in s.get("uses", "") for s in steps)
    for name in action["inputs"]:
        assert f"inputs.{name}" in (ROOT / "action.yml").read_text(), name


def _run(
    workspace: Path, base_ref: str = "", **inputs: str
) -> tuple[subprocess.CompletedProcess[str], dict[str, str]]:
    output = workspace / "github_output"
    output.write_text("")
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "PACK_LSP_SKIP_INSTALL": "1",
        "GITHUB_OUTPUT": str(output),
        "RUNNER_TEMP": str(workspace / "tmp"),
        "BASE_REF": base_ref,
        **{f"INPUT_{k.upper()}": v for k, v in inputs.items()},
    }
    (workspace / "tmp").mkdir(exist_ok=True)
    done = subprocess.run(
        ["bash", str(SCRIPT)], cwd=workspace, env=env, capture_output=True, text=True, timeout=300
    )
    values = dict(line.split("=", 1) for line in output.read_text().splitlines() if "=" in line)
    return done, values


def test_a_clean_repository_passes(tmp_path: Path) -> None:
    (tmp_path / "packs").mkdir()
    (tmp_path / "packs" / "a.promptpack.yaml").write_text(MINIMAL_PACK)
    done, out = _run(tmp_path, paths="packs")
    assert done.returncode == 0, done.stderr
    assert out["status"] == "0"
    sarif = Path(out["sarif-file"])
    assert sarif.is_file() and '"version": "2.1.0"' in sarif.read_text()


def test_problems_fail_and_a_baseline_accepts_them(tmp_path: Path) -> None:
    pack = tmp_path / "a.promptpack.yaml"
    pack.write_text(BROKEN)
    done, out = _run(tmp_path, paths="a.promptpack.yaml", format="github")
    assert done.returncode == 1 and out["status"] == "1"
    assert "::error file=a.promptpack.yaml" in done.stdout
    subprocess.run(
        [sys.executable, "-m", "pack_lsp", "--check", "--write-baseline", "base.json", str(pack)],
        cwd=tmp_path,
        check=True,
        capture_output=True,
    )
    done, out = _run(tmp_path, paths="a.promptpack.yaml", baseline="base.json", sarif="false")
    assert done.returncode == 0, done.stdout + done.stderr
    assert out["sarif-file"] == ""


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_compare_against_the_base_branch(tmp_path: Path) -> None:
    base = (ROOT / "tests" / "compare" / "base.yaml").read_text()
    head = (ROOT / "tests" / "compare" / "agent-removed.head.yaml").read_text()
    pack = tmp_path / "team.promptpack.yaml"
    pack.write_text(base)
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "base")
    git(tmp_path, "checkout", "-qb", "change")
    pack.write_text(head)
    git(tmp_path, "commit", "-qam", "remove an agent")
    done, _ = _run(
        tmp_path, base_ref="main", paths="team.promptpack.yaml", compare="true", sarif="false"
    )
    assert "breaking agent-removed" in done.stdout
    assert done.returncode == 1
    done, _ = _run(tmp_path, paths="team.promptpack.yaml", compare="true", sarif="false")
    assert "not a pull request" in done.stdout and done.returncode == 0


def test_precommit_fix_hook() -> None:
    hooks = {h["id"]: h for h in load_manifest(str(ROOT / ".pre-commit-hooks.yaml"))}
    fix = hooks["pack-lsp-fix"]
    assert fix["entry"] == "pack-lsp --check --fix"
    assert fix["files"] == hooks["pack-lsp"]["files"]
