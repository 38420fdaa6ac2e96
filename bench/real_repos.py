"""`pack-lsp --check .` at the root of real repositories, at pinned commits.

Measures what a new user sees on the first run in a repository written by other
people: which files are recognised as what (packs, Kubernetes manifests and the packs
they embed, agent-extension manifests, PromptKit documents by kind, files skipped as
templates), and every diagnostic by severity and code. Each repository is read from a
local git directory (a clone or a mirror; the network is not used) at its pinned
commit, exported with ``git archive`` into a temporary folder and checked there, so
the result does not depend on a working tree.

    .venv/bin/python bench/real_repos.py --git-dir promptpack-spec=PATH \\
        --git-dir Omnia=PATH ... [--mirrors DIR] [--commit NAME=SHA] [--list]

``--mirrors DIR`` finds each repository's git directory at ``DIR/<owner>+<name>/repo``
(as ``--git-dir`` would name it); ``--only NAME`` (repeatable) measures those alone.
A repository whose git directory is not given, or does not have its pinned commit, is
reported as skipped with the reason. ``--list`` prints every diagnostic (for the
review of each one as real or a false alarm; docs/real-repositories.md).
"""

from __future__ import annotations

import argparse
import collections
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lsp"))

from pack_lsp.core.base import kinds  # noqa: E402
from pack_lsp.core.base.source import decode, read_source  # noqa: E402
from pack_lsp.core.model import hosts  # noqa: E402
from pack_lsp.core.model.discover import SKIP_DIRS  # noqa: E402
from pack_lsp.core.model.recognize import (  # noqa: E402
    is_helm_template,
    recognize,
    template_package,
)

#: The public repositories of the measurement (owner/name) and the commits they are
#: pinned to.
REPOSITORIES = {
    "promptpack-spec": "AltairaLabs/promptpack-spec",
    "Omnia": "AltairaLabs/Omnia",
    "PromptKit": "AltairaLabs/PromptKit",
    "promptarena": "AltairaLabs/promptarena",
    "promptkit-templates": "AltairaLabs/promptkit-templates",
    "yodoca": "VitalyOborin/yodoca",
    "protoWorkstacean": "protoLabsAI/protoWorkstacean",
}
PINNED = {
    "promptpack-spec": "ef8124f5f95cadf28281ffa52238ce239a20d89d",
    "Omnia": "c7428e31ec644ee6a0f66ceeab0117a96fafe221",
    "PromptKit": "86d9f367e71627ae8dfdca6f8de498071fd61a7c",
    "promptarena": "e90d58d66e3ec16700cb8d025ced9eb50f760046",
    "promptkit-templates": "9fe551638fa48e41e8a796e9a6ba9f8b4b69d63c",
    "yodoca": "2af56ec52e0a7ff211c2276e8301e83da8a95dcd",
    "protoWorkstacean": "14359275e8f26d0b516da98e7578a121fbff2123",
}


def export(git_dir: Path, commit: str, into: Path) -> None:
    archive = subprocess.run(
        ["git", f"--git-dir={git_dir}", "archive", "--format=tar", commit],
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")


def census(root: Path) -> dict[str, int]:
    """Every YAML and JSON file a scan of ``root`` looks at, by what it is recognised
    as (PromptKit documents by their kind), the packs Kubernetes manifests embed, and
    the files skipped as templates (Helm charts', PromptKit template packages')."""
    counts: collections.Counter[str] = collections.Counter()
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in sorted(files):
            path = Path(folder) / name
            if not kinds.is_data_file(name) and kinds.kind_from_name(name) is None:
                continue
            try:
                text, _ = decode(read_source(path))
            except (OSError, ValueError):
                counts["unreadable"] += 1
                continue
            found = recognize(str(path), text)
            if found.kind == kinds.ARENA:
                counts[f"PromptKit {found.promptkit_kind or '(no kind)'}"] += 1
            elif found.kind is not None:
                counts[found.kind] += 1
            elif is_helm_template(str(path)):
                counts["Helm templates skipped"] += 1
            elif template_package(str(path), text) is not None:
                counts["template-package files skipped"] += 1
            if found.kind == kinds.KUBERNETES:
                stream = found.stream or hosts.read_stream(text)
                counts["embedded packs"] += len(stream.embedded) if stream else 0
    return dict(counts)


def _recognised(counts: dict[str, int]) -> str:
    names = {
        kinds.PROMPTPACK: "packs",
        kinds.KUBERNETES: "Kubernetes manifests",
        "embedded packs": "packs embedded in them",
        kinds.NOT_A_PACK: "named like packs but not",
        kinds.MANIFEST: "agent manifests",
    }
    parts = [f"{counts[k]} {label}" for k, label in names.items() if counts.get(k)]
    parts += [f"{n} {k}" for k, n in sorted(counts.items()) if k not in names]
    return ", ".join(parts) or "nothing"


def check(root: Path) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-m", "pack_lsp", "--check", ".", "--format", "json", "--allow-empty"],
        cwd=root,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT / "lsp"), "PATH": "/usr/bin:/bin"},
    )
    if done.returncode not in (0, 1):
        raise SystemExit(f"pack-lsp --check failed in {root}: {done.stderr}")
    result: dict[str, object] = json.loads(done.stdout)
    return result


def _git_dir(name: str, given: dict[str, str], mirrors: str | None) -> Path | None:
    if name in given:
        return Path(given[name])
    if mirrors is None:
        return None
    found = Path(mirrors) / REPOSITORIES[name].replace("/", "+") / "repo"
    return found if found.is_dir() else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--git-dir", action="append", default=[], metavar="NAME=PATH")
    parser.add_argument("--mirrors", default=None, metavar="DIR")
    parser.add_argument("--commit", action="append", default=[], metavar="NAME=SHA")
    parser.add_argument("--list", action="store_true", help="print every diagnostic")
    parser.add_argument("--only", action="append", default=[], metavar="NAME")
    args = parser.parse_args(argv)
    given = dict(item.split("=", 1) for item in args.git_dir)
    commits = {**PINNED, **dict(item.split("=", 1) for item in args.commit)}
    if args.only:
        commits = {name: sha for name, sha in commits.items() if name in args.only}
    rows = []
    for name, commit in commits.items():
        git_dir = _git_dir(name, given, args.mirrors)
        if git_dir is None:
            rows.append(f"| {name} | skipped: no git directory given | | | |")
            continue
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            try:
                export(git_dir, commit, root)
            except subprocess.CalledProcessError as exc:
                rows.append(f"| {name} | skipped: {exc.stderr.decode().strip()[:80]} | | | |")
                continue
            counts = census(root)
            result = check(root)
            by_code: collections.Counter[tuple[str, str]] = collections.Counter()
            files = result["files"]
            assert isinstance(files, list)
            for entry in files:
                for diag in entry["diagnostics"]:
                    by_code[(diag["severity"], diag["code"])] += 1
                    if args.list:
                        start = diag["range"]["start"]
                        print(
                            f"{name}/{entry['path']}:{start['line'] + 1}:"
                            f"{start['character'] + 1}: {diag['severity']} {diag['code']} "
                            f"{diag['message']}"
                        )
            summary = ", ".join(f"{n}× {sev} {code}" for (sev, code), n in sorted(by_code.items()))
            rows.append(
                f"| {name} `{commit[:8]}` | {_recognised(counts)} | "
                f"{sum(n for (sev, _), n in by_code.items() if sev == 'error')} | "
                f"{sum(n for (sev, _), n in by_code.items() if sev == 'warning')} | "
                f"{summary or 'none'} |"
            )
    print("| repository | recognised | errors | warnings | every diagnostic |")
    print("|---|---|---|---|---|")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
