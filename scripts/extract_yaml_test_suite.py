#!/usr/bin/env python3
"""Extract the cases of the YAML test suite into tests/data/yaml-test-suite/cases.json.

The suite (github.com/yaml/yaml-test-suite, MIT) publishes its cases, generated
from ``src/*.yaml``, on its ``data`` branch: one folder per case (``ID`` or
``ID/NN`` for a case with variants) holding ``in.yaml``, ``===`` (the title) and
``error`` when the input is not valid YAML, and ``tags/TAG/ID`` entries naming the
cases of each tag. This script reads one commit of that branch from a git
directory (no work tree needed) and writes, per case: the title, the tags, the
error flag, the input, and for an error case ``error_line``, the line of the error
(see below).

Error lines: the suite does not give the position of an error. ``error_line`` is
the 1-based line where the ``yaml`` package of npm (eemeli/yaml, which passes the
whole suite) reports its first error, computed by ``scripts/yaml_suite_error_lines.js``
when ``--node-path`` names a folder where that package is installed. Where it
accepts an input the suite marks as an error, ``MANUAL_ERROR_LINES`` gives the
line, with the reason.

Usage::

    npm install --prefix /tmp/yaml-ref yaml@2.9.1
    python scripts/extract_yaml_test_suite.py GIT_DIR [--commit SHA] \\
        --node-path /tmp/yaml-ref/node_modules
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

#: The commit of the ``data`` branch extracted ("Regenerated data from main 45db50ae").
DEFAULT_COMMIT = "6ad3d2c62885d82fc349026c136ef560838fdf3d"
OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "yaml-test-suite"

#: Error cases the reference parser accepts: the line of the error, and why.
MANUAL_ERROR_LINES: dict[str, tuple[int, str]] = {
    "9MMA": (1, "a `%YAML` directive with no document after it (no `---`)"),
    "SF5V": (2, "the second `%YAML` directive of one document"),
}


def _members(git_dir: str, commit: str, folder: Path) -> None:
    archive = subprocess.run(
        ["git", "--git-dir", git_dir, "archive", "--format=tar", commit],
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="tar")


def _cases(root: Path) -> list[str]:
    names = []
    for case in sorted(p for p in root.iterdir() if p.is_dir() and p.name not in ("tags", "name")):
        if (case / "in.yaml").is_file():
            names.append(case.name)
        else:
            names += [f"{case.name}/{sub.name}" for sub in sorted(case.iterdir()) if sub.is_dir()]
    return names


def _tags(root: Path) -> dict[str, list[str]]:
    tags: dict[str, list[str]] = {}
    for tag in sorted((root / "tags").iterdir()):
        for entry in tag.iterdir():
            tags.setdefault(entry.name, []).append(tag.name)
    return tags


def _reference_lines(root: Path, names: list[str], node_path: str) -> dict[str, int | None]:
    script = Path(__file__).resolve().parent / "yaml_suite_error_lines.js"
    done = subprocess.run(
        ["node", str(script), str(root)],
        input="\n".join(names),
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "NODE_PATH": node_path},
    )
    lines: dict[str, int | None] = json.loads(done.stdout)
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("git_dir", help="git directory of yaml/yaml-test-suite")
    parser.add_argument("--commit", default=DEFAULT_COMMIT, help="commit of the data branch")
    parser.add_argument("--node-path", required=True, help="node_modules holding `yaml`")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _members(args.git_dir, args.commit, root)
        names = _cases(root)
        tags = _tags(root)
        errors = [n for n in names if (root / n / "error").exists()]
        reference = _reference_lines(root, errors, args.node_path)
        cases = {}
        for name in names:
            folder = root / name
            case: dict[str, object] = {
                "title": (folder / "===").read_text(encoding="utf-8").strip()
                if (folder / "===").exists()
                else (root / name.split("/")[0] / "===").read_text(encoding="utf-8").strip(),
                "tags": sorted(tags.get(name.split("/")[0], [])),
                "error": name in errors,
                "yaml": (folder / "in.yaml").read_bytes().decode("utf-8"),
            }
            if name in errors:
                line = reference.get(name)
                if line is None:
                    line = MANUAL_ERROR_LINES[name][0]
                    case["error_line_reason"] = MANUAL_ERROR_LINES[name][1]
                case["error_line"] = line
            cases[name] = case
    OUT.mkdir(parents=True, exist_ok=True)
    document = {"source": "yaml/yaml-test-suite", "commit": args.commit, "cases": cases}
    (OUT / "cases.json").write_text(
        json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    print(f"{len(cases)} cases, {len(errors)} errors -> {OUT / 'cases.json'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
