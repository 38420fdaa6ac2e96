"""A baseline: the problems a project accepts today, so that only new ones are reported.

``pack-lsp --check --write-baseline FILE`` records each diagnostic by its code, its
file (relative to the baseline file's folder) and a fingerprint that does not
depend on line numbers: a hash of the code, the message (without the line
numbers it may name), the text the diagnostic covers and the key its line sets
(``tools`` on ``tools: [lookup_order, refund]``), whitespace collapsed (the
snippet), plus the number of earlier diagnostics with the same code, message and
snippet in the file. Lines inserted or removed elsewhere, a re-indented block, and
edits of the same line outside the covered text (an entry added to the list) leave
the fingerprints as they were; editing the faulty text itself makes the problem new.

Format 1 fingerprinted the whole line instead of its key, so any edit of the line
made its problems new; files of that format are still read, and their entries
still match by the old fingerprint (``--write-baseline`` rewrites them).

``--baseline FILE`` (or ``baseline =`` in the configuration) then drops the
diagnostics found in the file, each entry matching one diagnostic, and lists the
entries that match nothing any more, so the file can shrink. The language server
reads the same file (``server/diagnostics.py``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pack_lsp.core.base.diagnostics import Diagnostic
from pack_lsp.core.base.roots import inside, outside_message, project_root
from pack_lsp.core.base.source import read_text
from pack_lsp.core.base.text import LineIndex
from pack_lsp.core.model.config import Config

FORMAT_VERSION = 2
#: The formats ``loads`` reads (1: whole-line fingerprints, still matched).
READABLE_VERSIONS = (1, 2)
_SPACE = re.compile(r"\s+")
#: Positions a message may name (``before line 2``, ``at 4:7``): not fingerprinted.
_POSITIONS = re.compile(r"\b(lines?) \d+|\b\d+:\d+\b")


class BaselineError(ValueError):
    """A baseline file that cannot be read or used."""


@dataclass(frozen=True, slots=True, order=True)
class Entry:
    """One accepted problem."""

    path: str
    """The file, relative to the baseline file's folder, with ``/`` separators."""
    code: str
    fingerprint: str
    message: str = ""
    """For people reading the file: not part of the match."""
    format: int = field(default=FORMAT_VERSION, compare=False)
    """The baseline format that computed ``fingerprint``."""


#: The key a YAML or JSON line sets (``tools`` of ``  - tools: [a, b]``).
_LINE_KEY = re.compile(r"""^\s*(?:-\s+)*("(?:[^"\\]|\\.)*"|'[^']*'|[^\s:#"'][^:#]*?)\s*:(?:\s|$)""")


def _snippet(lines: LineIndex, diag: Diagnostic, whole_line: bool = False) -> str:
    """The diagnostic's text and the key its first line sets (format 1: the whole
    line), whitespace collapsed."""
    start = lines.position(diag.span.start)
    line = lines.line_text(start.line)
    covered = lines.text[diag.span.start : min(diag.span.end, diag.span.start + 200)]
    if not whole_line:
        key = _LINE_KEY.match(line)
        line = key.group(1) if key is not None else ""
    return _SPACE.sub(" ", f"{covered}\x00{line}").strip()


def fingerprints(
    diagnostics: Sequence[Diagnostic], lines: LineIndex, version: int = FORMAT_VERSION
) -> list[str]:
    """The fingerprint of each diagnostic of one file, in order (as the baseline
    format ``version`` computes them)."""
    seen: Counter[tuple[str, str, str]] = Counter()
    out: list[str] = []
    for d in diagnostics:
        key = (d.code, _POSITIONS.sub(r"\1 #", d.message), _snippet(lines, d, version == 1))
        occurrence = seen[key]
        seen[key] += 1
        digest = hashlib.sha256("\x1f".join((*key, str(occurrence))).encode("utf-8"))
        out.append(digest.hexdigest()[:20])
    return out


def relative(path: str | Path, folder: Path) -> str:
    """``path`` relative to ``folder`` (with ``/``), as baseline entries name files."""
    return Path(os.path.relpath(Path(path).absolute(), folder.absolute())).as_posix()


def entries(
    path: str | Path, diagnostics: Sequence[Diagnostic], lines: LineIndex, folder: Path
) -> list[Entry]:
    """The baseline entries of one file's diagnostics."""
    name = relative(path, folder)
    return [
        Entry(name, d.code, fp, d.message)
        for d, fp in zip(diagnostics, fingerprints(diagnostics, lines), strict=True)
    ]


def dumps(found: Iterable[Entry]) -> str:
    data = {
        "tool": "pack-lsp",
        "version": FORMAT_VERSION,
        "entries": [
            {"path": e.path, "code": e.code, "fingerprint": e.fingerprint, "message": e.message}
            for e in sorted(found)
        ],
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def loads(text: str, source: str = "baseline") -> list[Entry]:
    """The entries of a baseline file's text (``BaselineError`` when it is not one)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BaselineError(f"{source}: not JSON ({exc.msg} at line {exc.lineno})") from None
    except RecursionError:
        # A baseline is a list of flat entries: nesting this deep is not one.
        raise BaselineError(f"{source}: not a pack-lsp baseline (nested too deeply)") from None
    if not isinstance(data, dict) or not isinstance(data.get("entries"), list):
        raise BaselineError(f"{source}: not a pack-lsp baseline (no `entries` list)")
    if data.get("version") not in READABLE_VERSIONS:
        raise BaselineError(
            f"{source}: baseline format version {data.get('version')!r} is not "
            f"{FORMAT_VERSION}; write it again with --write-baseline"
        )
    out: list[Entry] = []
    for i, item in enumerate(data["entries"]):
        fields = ("path", "code", "fingerprint")
        if not isinstance(item, dict) or not all(isinstance(item.get(f), str) for f in fields):
            raise BaselineError(f"{source}: entry {i} needs string `path`, `code`, `fingerprint`")
        message = item.get("message")
        out.append(
            Entry(
                item["path"],
                item["code"],
                item["fingerprint"],
                message if isinstance(message, str) else "",
                data["version"],
            )
        )
    return out


def configured(config: Config | None) -> str | None:
    """The baseline file the configuration names (``baseline =``), relative to the
    configuration file."""
    if config is None or not config.baseline:
        return None
    if config.source is None:
        return config.baseline
    source = config.source.split("#", 1)[0]  # `pyproject.toml#tool.pack-lsp`, if so
    return str(Path(source).parent / config.baseline)


def outside_root(config: Config | None) -> str | None:
    """Why the configured baseline is not read: it leaves the root of the project
    whose configuration names it (``core/base/roots.py``); None when it may be read."""
    file = configured(config)
    if file is None or config is None or config.source is None or config.read_outside_root:
        return None
    source = config.source.split("#", 1)[0]
    root = project_root(source, config.source)
    if inside(file, root):
        return None
    return f"{source}: the baseline {outside_message(config.baseline or file)}"


def load(path: Path) -> list[Entry]:
    """The entries of the baseline file ``path``, read as every file is
    (``source.read_text``: a regular file within the size limit)."""
    try:
        text = read_text(path)
    except OSError as exc:
        raise BaselineError(f"{path}: cannot read the baseline: {exc.strerror or exc}") from None
    return loads(text, str(path))


class Matcher:
    """Baseline entries, each matched at most once."""

    def __init__(self, known: Iterable[Entry]) -> None:
        known = list(known)
        self._left: Counter[tuple[str, str, str]] = Counter(
            (e.path, e.code, e.fingerprint) for e in known
        )
        self._entries = {(e.path, e.code, e.fingerprint): e for e in known}
        #: Whether some entry comes from a format-1 file (matched by the old
        #: fingerprint too).
        self._format_1 = any(e.format == 1 for e in known)

    def new(
        self, path: str | Path, diagnostics: Sequence[Diagnostic], lines: LineIndex, folder: Path
    ) -> list[bool]:
        """For each diagnostic of one file, whether it is new (not in the baseline);
        the ones found use up their entries."""
        out: list[bool] = []
        name = relative(path, folder)
        # Each diagnostic matches an entry by its fingerprint, or by the one format 1
        # gave it (a file written before format 2); both are hashes, never equal.
        current = fingerprints(diagnostics, lines)
        old = fingerprints(diagnostics, lines, 1) if self._format_1 else current
        for d, fingerprint, old_fingerprint in zip(diagnostics, current, old, strict=True):
            for key in ((name, d.code, fingerprint), (name, d.code, old_fingerprint)):
                if self._left[key] > 0:
                    self._left[key] -= 1
                    out.append(False)
                    break
            else:
                out.append(True)
        return out

    def unmatched(self, paths: Iterable[str] | None = None) -> list[Entry]:
        """Entries no diagnostic used, of the files ``paths`` (all files: ``None``)."""
        wanted = set(paths) if paths is not None else None
        return sorted(
            self._entries[key]
            for key, left in self._left.items()
            for _ in range(left)
            if wanted is None or key[0] in wanted
        )
