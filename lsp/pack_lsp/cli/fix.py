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
import errno
import os
import stat
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pack_lsp.core.base.source import read_source
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
    path: Path,
    explicit: bool,
    config: Any,
    workspace: Any,
    unsafe: bool,
    check_text: Any,
    raw: bytes,
) -> tuple[FixRun, Analysis]:
    """Analyse ``raw``, the bytes of ``path``, with ``check_text`` (``cli.check``'s)
    and apply its fixes (nothing written); the analysis of ``raw`` comes with them."""
    from pack_lsp.core.ide.fixall import FixRun, fix_document

    keep: list[Any] = []
    check_text(raw, str(path), config, explicit=explicit, workspace=workspace, keep=keep)
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
        refused = FixRun(analysis.text, analysis.text, analysis, (), refused="not valid UTF-8")
        return refused, analysis
    return fix_document(analysis, again, unsafe=unsafe), analysis


class NotWritten(OSError):
    """A fixed file that was not written; the message says why, for the user."""


def write_atomically(path: Path, data: bytes, expected: bytes | None = None) -> Path:
    """Replace the file at ``path`` with ``data``: a temporary file beside it, renamed
    over it, with the original's permission bits; the path written is returned.

    A symbolic link stays a link: the file it points to is the one replaced. With
    ``expected``, the file is read again just before the rename and must still hold
    exactly those bytes: an edit saved while the fixes were computed is never
    overwritten (``NotWritten``, and nothing changes). A file without write
    permission is not replaced either (the rename would be allowed by the folder's
    permissions, not the file's).
    """
    import tempfile

    from pack_lsp.core.base.source import read_source

    target = Path(os.path.realpath(path))
    mode = stat.S_IMODE(target.stat().st_mode)
    if not mode & 0o222 or not os.access(target, os.W_OK):
        raise NotWritten(errno.EACCES, "the file is read-only: not written")
    fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temp, mode)
        if expected is not None and read_source(target) != expected:
            raise NotWritten(
                errno.EAGAIN,
                "the file changed while it was being fixed: not written (run --fix again)",
            )
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return target


def encoded_like(raw: bytes, text: str) -> bytes:
    """``text`` as the bytes of a file that held ``raw``: UTF-8, with the byte-order
    mark ``raw`` had."""
    data = text.encode("utf-8")
    return BOM + data if raw.startswith(BOM) else data


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
            raw = read_source(path)
        except OSError as exc:
            problems.append(f"{path}: cannot read: {exc.strerror or exc}")
            continue
        unsafe = bool(args.unsafe_fixes)
        run, first = fix_file(path, explicit, config, workspace, unsafe, check_text, raw)
        if run.refused is not None:
            print(f"pack-lsp: warning: {path}: not fixed: {run.refused}", file=sys.stderr)
        analysis = run.analysis
        if run.changed and args.diff:
            outcome.fixed += len(run.applied)
            outcome.files += 1
            outcome.diffs.append(unified_diff(str(path), run.original, run.text))
        elif run.changed:
            try:
                write_atomically(path, encoded_like(raw, run.text), expected=raw)
            except OSError as exc:
                problems.append(f"{path}: cannot write: {exc.strerror or exc}")
                # What is on disk is what was read: its diagnostics are the ones to list.
                analysis = first
            else:
                outcome.fixed += len(run.applied)
                outcome.files += 1
        fixes = fix_texts(analysis, str(path)) if with_fixes else ()
        results.append(FileResult(str(path), analysis.diagnostics, analysis.lines, fixes))
    if not args.diff and (outcome.fixed or not problems):
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
