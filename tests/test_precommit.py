"""The pre-commit hook: its manifest, its file pattern, and a real `pre-commit try-repo`.

`pre-commit try-repo REPO` installs the hook from REPO's HEAD commit, or, when the
working tree has uncommitted changes to tracked files, from a temporary commit of
those changes; untracked files are left out either way. So that the test always runs
the code under test, it points try-repo at this repository when the working tree is
fully committed (as in CI), and otherwise at a committed snapshot of the files the
package is built from.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pre_commit.clientlib import load_manifest

from pack_lsp.core.base.kinds import kind_from_name
from samples import MINIMAL_PACK

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / ".pre-commit-hooks.yaml"
#: What `pip install` needs to build pack-lsp, plus the hook manifest.
BUILD_FILES = ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml")
BUILD_DIRS = ("lsp", "schemas")

GOOD = MINIMAL_PACK
BROKEN = GOOD + "agent: {}\n"


def _hook() -> dict[str, object]:
    hooks = load_manifest(str(MANIFEST))  # pre-commit's own validation of the manifest
    (hook,) = [h for h in hooks if h["id"] == "pack-lsp"]
    return dict(hook)


def test_manifest_declares_the_hook() -> None:
    hook = _hook()
    assert hook["language"] == "python"
    assert hook["entry"] == "pack-lsp --check"
    assert hook["types"] == ["file"]


@pytest.mark.parametrize(
    "name",
    [
        "support.promptpack.yaml",
        "packs/support.promptpack.yml",
        "a/b/x.promptpack.json",
        "promptpack.yaml",
        "deep/promptpack.yml",
        "team.pack.json",
        ".promptpack.yaml",
        "support.yaml",
        "promptpack.json",
        "my-promptpack.yaml",
        "x.pack.yaml",
        "promptpack.yaml.bak",
        "promptpack.yaml/readme.md",
        "backpack.json",
    ],
)
def test_file_pattern_matches_the_pack_names(name: str) -> None:
    pattern = re.compile(str(_hook()["files"]))
    assert bool(pattern.search(name)) == (kind_from_name(name) is not None), name


def _git(*args: str, cwd: Path, env: dict[str, str]) -> str:
    proc = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _hook_repo(tmp: Path, env: dict[str, str]) -> Path:
    """This repository if its working tree is committed, else a committed snapshot."""
    if (ROOT / ".git").exists():
        status = _git("status", "--porcelain", "--untracked-files=normal", cwd=ROOT, env=env)
        if not status.strip():
            return ROOT
    snapshot = tmp / "hook-repo"
    snapshot.mkdir()
    for name in BUILD_FILES:
        shutil.copy2(ROOT / name, snapshot / name)
    for name in BUILD_DIRS:
        shutil.copytree(
            ROOT / name,
            snapshot / name,
            ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"),
        )
    _git("init", "-q", cwd=snapshot, env=env)
    _git("add", "-A", cwd=snapshot, env=env)
    _git("commit", "-q", "-m", "snapshot", cwd=snapshot, env=env)
    return snapshot


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, str]]:
    """(hook repository, sample repository with packs, environment)."""
    tmp = tmp_path_factory.mktemp("precommit")
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp / "pre-commit-home"),
        "GIT_AUTHOR_NAME": "pack-lsp tests",
        "GIT_AUTHOR_EMAIL": "tests@example.invalid",
        "GIT_COMMITTER_NAME": "pack-lsp tests",
        "GIT_COMMITTER_EMAIL": "tests@example.invalid",
        "PRE_COMMIT_COLOR": "never",
    }
    env.pop("PRE_COMMIT", None)
    hook_repo = _hook_repo(tmp, env)
    repo = tmp / "sample"
    (repo / "packs").mkdir(parents=True)
    (repo / "packs" / "good.promptpack.yaml").write_text(GOOD, encoding="utf-8")
    (repo / "packs" / "broken.promptpack.yaml").write_text(BROKEN, encoding="utf-8")
    (repo / "notes.yaml").write_text(BROKEN, encoding="utf-8")
    _git("init", "-q", cwd=repo, env=env)
    _git("add", "-A", cwd=repo, env=env)
    return hook_repo, repo, env


def _try_repo(
    sample: tuple[Path, Path, dict[str, str]], *files: str
) -> subprocess.CompletedProcess[str]:
    hook_repo, repo, env = sample
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pre_commit",
            "try-repo",
            str(hook_repo),
            "pack-lsp",
            "--verbose",
            "--files",
            *files,
        ],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


@pytest.mark.slow
def test_hook_fails_on_a_broken_pack(sample: tuple[Path, Path, dict[str, str]]) -> None:
    proc = _try_repo(sample, "packs/broken.promptpack.yaml", "packs/good.promptpack.yaml")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert re.search(r"pack-lsp\.+Failed", out), out
    assert (
        "packs/broken.promptpack.yaml:7:1: error PP102 Unknown property `agent` in the pack root"
    ) in out
    assert "good.promptpack.yaml:" not in out
    assert "Checked 2 files: 1 error" in out


@pytest.mark.slow
def test_hook_passes_on_a_good_pack(sample: tuple[Path, Path, dict[str, str]]) -> None:
    proc = _try_repo(sample, "packs/good.promptpack.yaml")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert re.search(r"pack-lsp\.+Passed", out), out


@pytest.mark.slow
def test_hook_skips_files_that_are_not_packs(sample: tuple[Path, Path, dict[str, str]]) -> None:
    proc = _try_repo(sample, "notes.yaml")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert re.search(r"pack-lsp\.+\(no files to check\)Skipped", out), out
