"""`pack-lsp --check .` at the root of real repositories, at pinned commits.

Measures what a new user sees on the first run in a repository written by other
people: which files are recognised as packs (and how many packs Kubernetes
manifests embed), and every diagnostic by severity and code. Each repository is
read from a local git directory (a clone or a mirror; the network is not used) at
its pinned commit, exported with ``git archive`` into a temporary folder and
checked there, so the result does not depend on a working tree.

    .venv/bin/python bench/real_repos.py --git-dir promptpack-spec=PATH \\
        --git-dir Omnia=PATH --git-dir PromptKit=PATH [--commit NAME=SHA] [--list]

A repository whose git directory is not given, or does not have its pinned commit,
is reported as skipped with the reason. ``--list`` prints every diagnostic (for the
review of each one as real or a false alarm).
"""

from __future__ import annotations

import argparse
import collections
import io
import json
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
from pack_lsp.core.model.discover import find_packs  # noqa: E402
from pack_lsp.core.model.recognize import recognize  # noqa: E402

#: The public repositories of the measurement and the commits they are pinned to.
PINNED = {
    "promptpack-spec": "ef8124f5f95cadf28281ffa52238ce239a20d89d",
    "Omnia": "c7428e31ec644ee6a0f66ceeab0117a96fafe221",
    "PromptKit": "86d9f367e71627ae8dfdca6f8de498071fd61a7c",
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
    """Files a scan checks, by kind, and the packs Kubernetes manifests embed."""
    counts: collections.Counter[str] = collections.Counter()
    for path in find_packs(root):
        try:
            text, _ = decode(read_source(path))
        except OSError:
            counts["unreadable"] += 1
            continue
        kind = recognize(str(path), text).kind
        counts[kind or "none"] += 1
        if kind == kinds.KUBERNETES:
            stream = hosts.read_stream(text)
            counts["embedded packs"] += len(stream.embedded) if stream else 0
    return dict(counts)


def check(root: Path) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-m", "pack_lsp", "--check", ".", "--format", "json"],
        cwd=root,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT / "lsp"), "PATH": "/usr/bin:/bin"},
    )
    if done.returncode not in (0, 1):
        raise SystemExit(f"pack-lsp --check failed in {root}: {done.stderr}")
    result: dict[str, object] = json.loads(done.stdout)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--git-dir", action="append", default=[], metavar="NAME=PATH")
    parser.add_argument("--commit", action="append", default=[], metavar="NAME=SHA")
    parser.add_argument("--list", action="store_true", help="print every diagnostic")
    args = parser.parse_args(argv)
    git_dirs = dict(item.split("=", 1) for item in args.git_dir)
    commits = {**PINNED, **dict(item.split("=", 1) for item in args.commit)}
    rows = []
    for name, commit in commits.items():
        if name not in git_dirs:
            rows.append(f"| {name} | skipped: no --git-dir given | | | |")
            continue
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            try:
                export(Path(git_dirs[name]), commit, root)
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
                f"| {name} `{commit[:8]}` | {counts.get(kinds.PROMPTPACK, 0)} packs, "
                f"{counts.get(kinds.KUBERNETES, 0)} manifests embedding "
                f"{counts.get('embedded packs', 0)} packs, "
                f"{counts.get(kinds.NOT_A_PACK, 0)} named like packs but not, "
                f"{counts.get(kinds.MANIFEST, 0)} agent manifests | "
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
