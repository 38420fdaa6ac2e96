"""``pack-lsp --compare BASE[..HEAD] [PATH...]``: what changed for the agents' callers.

``BASE`` and ``HEAD`` are git revisions: each PATH (a pack file, or a directory: the
packs found there in the working tree; default: the current directory) is read at
``BASE`` with ``git show BASE:./PATH`` and at ``HEAD`` the same way, or from the
working tree when there is no ``..HEAD``.
``--compare OLD_FILE NEW_FILE`` compares two files instead. The changes are found by
``core/ide/compare.py``; exit 1 when one is breaking and the pack's
``version`` did not get a major bump, 2 on a usage or read problem.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

# The analysis and the comparison are imported when the mode runs: building the
# command line's parser (for every mode, --check included) does not load them.
if TYPE_CHECKING:
    from pack_lsp.core.checks.analysis import Analysis
    from pack_lsp.core.ide.compare import Change

FORMATS = ("text", "json", "sarif")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("public surface between versions")
    group.add_argument(
        "--compare",
        metavar="BASE[..HEAD]",
        help="list what changed for the callers of each PATH's agents between git "
        "revision BASE and HEAD (default: the working tree), or between the files BASE "
        "and PATH; breaking changes exit 1 unless the pack's version got a major bump; "
        "--format text (default), json or sarif",
    )


class CompareError(Exception):
    """A revision or file that cannot be read."""


@dataclass(frozen=True, slots=True)
class Compared:
    path: str
    base_name: str
    """How BASE is named in the output (``REV:PATH``, or the old file)."""
    base: Analysis
    head: Analysis
    changes: list[Change]
    excused: bool


def _analyse(text: str, name: str) -> Analysis:
    from pack_lsp.core.base import kinds
    from pack_lsp.core.checks.analysis import analyze
    from pack_lsp.core.model.config import ConfigError, load_for

    try:
        config = load_for(Path(name))
    except ConfigError:
        from pack_lsp.core.model.config import Config

        config = Config()
    return analyze(text, path=Path(name), config=config, kind=kinds.PROMPTPACK)


def _git_show(revision: str, path: str) -> str | None:
    """The text of ``path`` at ``revision`` (None: the file does not exist there)."""
    import subprocess

    from pack_lsp.core.base.source import decode

    spec = f"{revision}:./{Path(path).as_posix()}" if not Path(path).is_absolute() else None
    if spec is None:
        raise CompareError(f"{path}: give a path relative to the repository, not absolute")
    refuse_option(revision)
    try:
        # `--end-of-options`: what follows is a revision even if it looked like an
        # option; `--`: nothing after it is a revision.
        done = subprocess.run(
            ["git", "show", "--end-of-options", spec, "--"],
            capture_output=True,
            check=False,
            cwd=Path.cwd(),
        )
    except OSError as exc:
        raise CompareError(f"cannot run git: {exc.strerror or exc}") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip()
        if "does not exist" in message or "exists on disk, but not in" in message:
            return None
        raise CompareError(f"git show {spec}: {message.splitlines()[-1] if message else 'failed'}")
    return decode(done.stdout)[0]


def refuse_option(revision: str) -> None:
    """A revision is never an option: ``--compare=--output=x`` would have git write
    a file and compare against nothing."""
    if revision.startswith("-"):
        raise CompareError(
            f"--compare: {revision!r} is not a git revision (a revision cannot start with `-`)"
        )


def _read(path: str) -> str | None:
    from pack_lsp.core.base.source import decode, read_source

    try:
        return decode(read_source(Path(path)))[0]
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise CompareError(f"{path}: cannot read: {exc.strerror or exc}") from None


def compare_texts(path: str, base: str, head: str, base_name: str = "") -> Compared:
    from pack_lsp.core.ide.compare import compare, major_bump

    old, new = _analyse(base, path), _analyse(head, path)
    return Compared(path, base_name or path, old, new, compare(old, new), major_bump(old, new))


def _pairs(args: argparse.Namespace) -> list[tuple[str, str, str | None, str | None]]:
    """(path, how BASE is named, BASE text, HEAD text) for each file compared."""
    # argparse turns `--compare=--` into an empty list: `--` is what was written.
    spec: str = args.compare if isinstance(args.compare, str) else "--"
    if Path(spec).is_file() or (os.path.lexists(spec) and not Path(spec).is_dir()):
        # A file (a FIFO, a device or a link loop too: reading it says why not).
        if len(args.paths) != 1:
            raise CompareError("--compare OLD_FILE needs exactly one PATH, the new file")
        return [(args.paths[0], spec, _read(spec), _read(args.paths[0]))]
    base_rev, dots, head_rev = spec.partition("..")
    if not base_rev or (dots and not head_rev):
        raise CompareError(f"--compare expects BASE or BASE..HEAD, got {spec!r}")
    refuse_option(base_rev)
    if dots:
        refuse_option(head_rev)
    from pack_lsp.core.model.discover import find_packs

    paths: list[str] = []
    for given in args.paths or ["."]:
        if Path(given).is_dir():  # the packs found there in the working tree
            paths.extend(str(p) for p in find_packs(Path(given), (), ()))
        else:
            paths.append(given)
    out: list[tuple[str, str, str | None, str | None]] = []
    for path in paths:
        head = _git_show(head_rev, path) if dots else _read(path)
        out.append((path, f"{base_rev}:{path}", _git_show(base_rev, path), head))
    return out


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int | None:
    if args.compare is None:
        return None
    fmt = args.format or "text"
    if fmt not in FORMATS:
        parser.error(f"--format for --compare must be one of {', '.join(FORMATS)}, not {fmt!r}")
    try:
        pairs = _pairs(args)
    except CompareError as exc:
        print(f"pack-lsp: error: {exc}", file=sys.stderr)
        return 2
    results: list[Compared] = []
    failed = False
    for path, base_name, base, head in pairs:
        if base is None and head is None:
            print(f"pack-lsp: error: {path}: in neither version", file=sys.stderr)
            return 2
        if base is None:
            print(f"pack-lsp: note: {path} is new: nothing to compare", file=sys.stderr)
            continue
        if head is None:
            print(f"pack-lsp: {path}: breaking: the pack was removed", file=sys.stderr)
            failed = True
            continue
        compared = compare_texts(path, base, head, base_name)
        results.append(compared)
        if any(c.breaking for c in compared.changes) and not compared.excused:
            failed = True
    sys.stdout.write(render(results, fmt))
    return 1 if failed else 0


def _where(item: Compared, change: Change, in_head: bool = False) -> tuple[int, int, int, int]:
    """The change's range: in BASE for a removal, else in HEAD; ``in_head`` gives a
    removal's place in HEAD (the nearest enclosing key still there), for a report
    that can only point into the files of HEAD (SARIF)."""
    from pack_lsp.core.ide.compare import span_of

    analysis = item.base if change.in_base and not in_head else item.head
    r = analysis.lines.range(span_of(analysis, change.path))
    return r.start.line, r.start.character, r.end.line, r.end.character


def render(results: list[Compared], fmt: str) -> str:
    if fmt == "json":
        return json.dumps(_json(results), indent=2, ensure_ascii=False) + "\n"
    if fmt == "sarif":
        return json.dumps(_sarif(results), indent=2, ensure_ascii=False) + "\n"
    lines: list[str] = []
    for item in results:
        for c in item.changes:
            line, col, _, _ = _where(item, c)
            where = item.base_name if c.in_base else item.path
            level = "breaking" if c.breaking else "compatible"
            lines.append(f"{where}:{line + 1}:{col + 1}: {level} {c.kind} {c.message}")
        if item.excused and any(c.breaking for c in item.changes):
            lines.append(f"{item.path}: the major version was raised: breaking changes allowed")
    return "".join(f"{line}\n" for line in lines)


def _json(results: list[Compared]) -> dict[str, Any]:
    files = []
    for item in results:
        changes = []
        for c in item.changes:
            sl, sc, el, ec = _where(item, c)
            changes.append(
                {
                    "kind": c.kind,
                    "breaking": c.breaking,
                    "message": c.message,
                    "side": "base" if c.in_base else "head",
                    "file": item.base_name if c.in_base else item.path,
                    "path": [str(p) for p in c.path],
                    "range": {
                        "start": {"line": sl, "character": sc},
                        "end": {"line": el, "character": ec},
                    },
                }
            )
        files.append({"path": item.path, "majorVersionRaised": item.excused, "changes": changes})
    return {"files": files}


def _sarif(results: list[Compared]) -> dict[str, Any]:
    from pack_lsp import __version__
    from pack_lsp.core.ide.compare import KINDS

    kinds_used = sorted({c.kind for item in results for c in item.changes})
    index = {k: i for i, k in enumerate(kinds_used)}
    sarif_results = []
    for item in results:
        for c in item.changes:
            sl, sc, el, ec = _where(item, c, in_head=True)
            sarif_results.append(
                {
                    "ruleId": c.kind,
                    "ruleIndex": index[c.kind],
                    "level": "error" if c.breaking and not item.excused else "note",
                    "message": {
                        "text": c.message + (f" (in {item.base_name})" if c.in_base else "")
                    },
                    "locations": [
                        {
                            "physicalLocation": {
                                "artifactLocation": {"uri": Path(item.path).as_posix()},
                                "region": {
                                    "startLine": sl + 1,
                                    "startColumn": sc + 1,
                                    "endLine": el + 1,
                                    "endColumn": ec + 1,
                                },
                            }
                        }
                    ],
                }
            )
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "pack-lsp",
                        "version": __version__,
                        "rules": [
                            {
                                "id": k,
                                "shortDescription": {"text": KINDS[k][1]},
                                "properties": {"breaking": KINDS[k][0]},
                            }
                            for k in kinds_used
                        ],
                    }
                },
                "results": sarif_results,
            }
        ],
    }
