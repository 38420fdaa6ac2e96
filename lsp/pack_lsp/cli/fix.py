"""``pack-lsp --check --fix``: apply the safe quick fixes, and fixes as text edits.

``--fix`` writes each checked file with its safe fixes applied (see
``core/ide/fixall.py`` and ``core/ide/fixsafety.py``), then reports what
is left as ``--check`` does; ``--unsafe-fixes`` applies the other fixes too;
``--diff`` prints a unified diff of what ``--fix`` would change and writes nothing
(exit 1 when there is something to change). The edits are those the language
server's quick fixes make: one implementation.

A file is written atomically (a temporary file in its directory, renamed over it,
with the original's permission bits), with the bytes the fixes changed and nothing
else: the text outside the edits, its line breaks and a byte-order mark are kept.
A file that is not valid UTF-8, or whose fixed text would not parse, is left as it
is.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pack_lsp.render.result import FileResult, FixText, TextEdit

# The fix machinery is imported when it is used: ``add_arguments`` runs for every
# command line, --check without --fix included, which should not pay for it.
if TYPE_CHECKING:
    from pack_lsp.cli.check import Pending
    from pack_lsp.core.checks.analysis import Analysis
    from pack_lsp.core.ide.fixall import FixRun

BOM = b"\xef\xbb\xbf"


def add_arguments(group: argparse._ArgumentGroup) -> None:
    group.add_argument(
        "--fix",
        action="store_true",
        help="with --check: apply the safe quick fixes to the files (written in place), "
        "then report what is left",
    )
    group.add_argument(
        "--unsafe-fixes",
        action="store_true",
        help="with --fix or --diff: apply the unsafe fixes too (they may change what the "
        "pack means: review them)",
    )
    group.add_argument(
        "--diff",
        action="store_true",
        help="with --check: print a unified diff of what --fix would change, write "
        "nothing; exit 1 when something would change",
    )


def fix_texts(analysis: Analysis, name: str) -> tuple[tuple[FixText, ...], ...]:
    """Each diagnostic's quick fixes as text edits (``FileResult.fixes``)."""
    if not any(d.fixes for d in analysis.diagnostics):
        return ()  # nothing to compute, nor the quick fixes to import
    from pack_lsp.core.base.text import LineIndex
    from pack_lsp.core.ide.codeactions import quick_fixes, shared_documents

    out: list[tuple[FixText, ...]] = []
    others: dict[str, LineIndex] = {}
    with shared_documents():
        for diag in analysis.diagnostics:
            texts: list[FixText] = []
            for fix in quick_fixes(analysis, diag):
                if fix.file is None:
                    path, lines = name, analysis.lines
                else:
                    path = fix.file.path
                    lines = others.setdefault(path, LineIndex(fix.file.text))
                edits = tuple(TextEdit(path, lines.range(e.span), e.text) for e in fix.edits)
                texts.append(FixText(fix.title, fix.safe, edits, fix.preferred))
            out.append(tuple(texts))
    return tuple(out)


def fix_file(
    path: Path, explicit: bool, config: Any, workspace: Any, unsafe: bool, check_text: Any
) -> FixRun:
    """Analyse ``path`` with ``check_text`` (``cli.check``'s) and apply its fixes
    (nothing written)."""
    from pack_lsp.core.base.source import read_source
    from pack_lsp.core.ide.fixall import FixRun, fix_document

    keep: list[Any] = []
    check_text(
        read_source(path), str(path), config, explicit=explicit, workspace=workspace, keep=keep
    )
    analysis: Analysis = keep[0]

    def again(text: str) -> Analysis:
        kept: list[Any] = []
        check_text(
            text.encode("utf-8"),
            str(path),
            config,
            explicit=explicit,
            workspace=workspace,
            keep=kept,
        )
        result: Analysis = kept[0]
        return result

    if any(d.code == "PP002" for d in analysis.diagnostics):
        # Decoded with replacement characters: writing it back would lose bytes.
        return FixRun(analysis.text, analysis.text, analysis, (), refused="not valid UTF-8")
    return fix_document(analysis, again, unsafe=unsafe)


def write_atomically(path: Path, data: bytes) -> None:
    """Replace the file at ``path`` with ``data``: a temporary file beside it, renamed
    over it, with the original's permission bits."""
    import tempfile

    mode = stat.S_IMODE(path.stat().st_mode)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def _encoded(path: Path, text: str) -> bytes:
    """``text`` as the file's bytes: UTF-8, with the byte-order mark it had."""
    data = text.encode("utf-8")
    try:
        with path.open("rb") as f:
            had_bom = f.read(3) == BOM
    except OSError:
        had_bom = False
    return BOM + data if had_bom else data


class Outcome:
    """What ``fix_all`` did, for the summary and ``--diff``."""

    def __init__(self) -> None:
        self.fixed = 0
        self.files = 0
        self.diffs: list[str] = []


def fix_all(
    slots: list[FileResult | Pending],
    problems: list[str],
    args: argparse.Namespace,
    check_text: Any,
) -> tuple[list[FileResult], Outcome]:
    """Fix each pending file of ``slots`` (one after the other), write it unless
    ``--diff``, and return the results of checking the fixed texts."""
    results: list[FileResult] = []
    outcome = Outcome()
    for slot in slots:
        if not isinstance(slot, tuple):
            results.append(slot)
            continue
        path, explicit, config, workspace, with_fixes = slot
        try:
            run = fix_file(path, explicit, config, workspace, bool(args.unsafe_fixes), check_text)
        except OSError as exc:
            problems.append(f"{path}: cannot read: {exc.strerror or exc}")
            continue
        if run.refused is not None:
            print(f"pack-lsp: warning: {path}: not fixed: {run.refused}", file=sys.stderr)
        if run.changed:
            outcome.fixed += len(run.applied)
            outcome.files += 1
            if args.diff:
                outcome.diffs.append(unified_diff(str(path), run.original, run.text))
            else:
                try:
                    write_atomically(path, _encoded(path, run.text))
                except OSError as exc:
                    problems.append(f"{path}: cannot write: {exc.strerror or exc}")
        analysis = run.analysis
        fixes = fix_texts(analysis, str(path)) if with_fixes else ()
        results.append(FileResult(str(path), analysis.diagnostics, analysis.lines, fixes))
    if not args.diff:
        print(
            f"Fixed {outcome.fixed} problem{'s' if outcome.fixed != 1 else ''} "
            f"in {outcome.files} file{'s' if outcome.files != 1 else ''}",
            file=sys.stderr,
        )
    return results, outcome


def unified_diff(name: str, before: str, after: str) -> str:
    import difflib

    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=f"a/{name}",
        tofile=f"b/{name}",
    )
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def diff_exit(outcome: Outcome, problems: list[str]) -> int:
    """Print the diffs of ``--diff``: status 1 when any file would change, 2 on a
    problem, 0 when there is nothing to fix."""
    sys.stdout.write("".join(outcome.diffs))
    sys.stdout.flush()
    for problem in dict.fromkeys(problems):
        print(f"pack-lsp: error: {problem}", file=sys.stderr)
    print(
        f"Would fix {outcome.fixed} problem{'s' if outcome.fixed != 1 else ''} "
        f"in {outcome.files} file{'s' if outcome.files != 1 else ''}",
        file=sys.stderr,
    )
    if problems:
        return 2
    return 1 if outcome.diffs else 0
