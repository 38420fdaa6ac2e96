"""Golden case files: an input pack and the exact diagnostics it must produce.

A case is ``tests/golden/<area>/<name>.yaml`` (or ``.json``, or ``.bin`` for raw
bytes) with ``<name>.expected`` beside it. An optional ``<name>.toml`` holds
pack-lsp configuration for the case. Cases under ``manifests/`` are
agent-extension manifests; those below ``manifests/<folder>/`` form one workspace
(each other's ids are known to the cross-file rules), and a related location in
another file is shown with that file's path and lines. The files below
``projects/<folder>/`` are an arena project (``config.arena.yaml`` and the files it
names): each is a case analysed as a file of that project, with the project's
cross-file problems and those of its compiled pack that land in it. The expected
file is the spec: it shows each diagnostic on the source it flags, so a reviewer
sees in one file what is reported, where, and how the offered quick fixes change
the pack::

    # tools/undefined-tool.yaml: 10 diagnostics

    error[PP301] undefined-tool: Tool `lookup_ordr` of prompt `support` is not [...]
       --> 12:9-12:20
        |
     12 |       - lookup_ordr
        |         ^^^^^^^^^^^
        = fix "Create a definition for tool `lookup_ordr`":
        |
     30 |   web_search: {name: search, description: Search the web}
     31 |   lookup_ordr:
        | ++++++++++++++
     32 |     name: lookup_ordr
        | +++++++++++++++++++++
    [...]
        = fix "Replace with `lookup_order`" (preferred):
        |
     12 |       - lookup_order
        |         ++++++++++++

The format, block by block:

- A header comment names the case and counts its diagnostics (in the core's
  order, one block each, separated by blank lines); when the case has
  a ``.toml`` its name and text follow as ``#`` lines. A case without
  diagnostics says ``no diagnostics``.
- Each diagnostic starts with ``severity[CODE] rule-name: message`` and a
  ``-->`` line with its range ``L:C-L:C`` (1-based lines and columns counted in
  code points, end exclusive — the core's own positions), then the source
  lines of the range with ``^`` under the flagged characters. The gutter of
  line numbers is as wide as the block's largest line number, plus one.
- ``= tag: ...`` lines give the diagnostic's tags; ``= related L:C-L:C: message``
  lines give its related locations, each with its source lines and ``-`` under
  the range.
- ``= fix "title":`` (``(preferred)`` when the editor would apply it first) for
  every quick fix the core offers, in order: the lines the fix changes, taken
  from the text after applying the fix's edits and numbered as in that text,
  with ``+`` under the inserted or replacing text (a lone ``-`` where an edit
  only deletes). An insertion that starts with a line break marks whole new
  lines, indentation included, below the unmarked line it follows. A fix that
  edits another file (the case's ``.toml``) says so, ``= fix "title" in <file>:``,
  and shows that file's lines.

Columns are honest in code points: a marker line has exactly one character per
code point of the source line up to its last marker, so the n-th character of
the marker line sits under the n-th code point of the source. Tabs are kept as
tabs in both lines (they line up in any viewer); under a wide character (East
Asian width W or F, e.g. an emoji) the filler is U+3000 IDEOGRAPHIC SPACE, so a
terminal draws it as wide as the character above it, and a flagged wide
character gets one ``^`` (one code point). Control characters other than tab
are shown as visible stand-ins, one code point each (C0 controls and DEL as
their Control Pictures U+2400-U+2421, C1 controls and the line and paragraph
separators as U+2424), so the expected file stays plain text. Messages and titles
are printed the same way (a line break in a message starts an indented
continuation line). Trailing spaces and tabs of a source line are shown as
``·`` (U+00B7) and ``→`` (U+2192), so no line of an expected file ends in
whitespace that an editor or a hook could strip; marker lines never end in
whitespace either.

A range that spans lines shows each of its lines with markers under its part of
each line; a range that ends right after a line break does not show the next
line; a range whose lines have no visible character in it (a zero-width range,
or one covering only a line break) gets a single marker at its start. A range of
more than ``MAX_LINES`` lines shows its first and last ``KEEP_LINES`` lines with
an elision line ``...`` between them; lines of one snippet that are not
adjacent are separated the same way.

Regenerate after an intended change with ``PACK_LSP_UPDATE_GOLDEN=1 pytest
tests/test_golden.py`` and review the diff: the expected files are the spec.
"""

from __future__ import annotations

import os
import re
import tomllib
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pack_lsp.core.base import kinds
from pack_lsp.core.base.diagnostics import Diagnostic
from pack_lsp.core.base.source import decode
from pack_lsp.core.base.text import LineIndex, Span
from pack_lsp.core.checks.analysis import Analysis, analyze
from pack_lsp.core.checks.arena.check import analyze_in_project, check_project
from pack_lsp.core.checks.registry import REGISTRY
from pack_lsp.core.ide.codeactions import quick_fixes
from pack_lsp.core.ide.rename import Edit, apply_edits
from pack_lsp.core.model.arena.project import load_project, norm, overlay_reader
from pack_lsp.core.model.config import Config, from_mapping
from pack_lsp.core.model.manifest.model import build_manifest
from pack_lsp.core.model.manifest.workspace import ManifestIndex
from pack_lsp.core.model.recognize import recognize
from pack_lsp.core.syntax.yamltree import parse

GOLDEN = Path(__file__).parent / "golden"
MANIFESTS = "manifests"  # cases analysed as agent-extension manifests
PROJECTS = "projects"  # arena projects, one per folder
KUBERNETES = "kubernetes"
ARENA = "arena"  # documents of PromptKit arena projects, recognised as a scan would
INPUT_SUFFIXES = (".yaml", ".yml", ".json", ".bin")
UPDATE = os.environ.get("PACK_LSP_UPDATE_GOLDEN") == "1"

#: A range of more lines than this is shown by its first and last KEEP_LINES lines.
MAX_LINES = 7
KEEP_LINES = 3

#: The first line of each diagnostic block: severity, code, rule name, message.
HEADLINE = re.compile(r"^(error|warning|information|hint)\[([A-Z]+\d+)\] ([^:]*): (.*)$")


def cases() -> list[Path]:
    return sorted(p for p in GOLDEN.rglob("*") if p.suffix in INPUT_SUFFIXES)


def case_id(path: Path) -> str:
    return path.relative_to(GOLDEN).as_posix()


def case_config(path: Path) -> Config:
    toml = path.with_suffix(".toml")
    if toml.is_file():
        with toml.open("rb") as fh:
            return from_mapping(tomllib.load(fh), str(toml))
    return Config()


def _shown_path(path: str) -> str:
    """A related location's file, relative to the golden folder (stable across machines)."""
    try:
        return Path(path).relative_to(GOLDEN).as_posix()
    except ValueError:
        return path


def _other_lines(path: str) -> LineIndex:
    return LineIndex(decode(Path(path).read_bytes())[0])


def manifest_workspace(path: Path) -> list[Path]:
    """The cases analysed together with a manifest case.

    A case directly in ``manifests/`` is alone; the cases below
    ``manifests/<folder>/`` form one workspace (cross-file rules see each other).
    """
    rel = path.relative_to(GOLDEN / MANIFESTS)
    if len(rel.parts) == 1:
        return [path]
    folder = GOLDEN / MANIFESTS / rel.parts[0]
    return sorted(p for p in folder.rglob("*") if p.suffix in INPUT_SUFFIXES)


def run_case(path: Path, text: str | None = None, config: Config | None = None) -> Analysis:
    """The analysis of the case at ``path``; ``text`` and ``config`` stand in for its
    file and its ``.toml`` (to analyse it again after a fix)."""
    read, pre = decode(path.read_bytes())
    text = read if text is None else text
    if config is None:
        config = case_config(path)
    if path.relative_to(GOLDEN).parts[0] == MANIFESTS:
        workspace = ManifestIndex()
        for other in manifest_workspace(path):
            workspace.put(build_manifest(parse(decode(other.read_bytes())[0]).root, str(other)))
        return analyze(
            text,
            path=path,
            config=config,
            kind=kinds.MANIFEST,
            pre_diagnostics=pre,
            workspace=workspace,
        )
    if path.relative_to(GOLDEN).parts[0] == PROJECTS:
        return _run_project_case(path, text, config, pre)
    if path.relative_to(GOLDEN).parts[0] in (KUBERNETES, ARENA):
        # Recognised as a directory scan or the editor would: hosts, files named
        # like packs that are something else, and files that are not checked.
        found = recognize(str(path), text, config.manifests)
        return analyze(
            text,
            path=path,
            config=config,
            kind=found.kind,
            pre_diagnostics=pre,
            recognition=found,
        )
    return analyze(
        text,
        path=path,
        config=config,
        kind=kinds.PROMPTPACK,
        pre_diagnostics=pre,
    )


def _run_project_case(path: Path, text: str, config: Config, pre: list[Diagnostic]) -> Analysis:
    folder = GOLDEN / PROJECTS / path.relative_to(GOLDEN / PROJECTS).parts[0]
    read = overlay_reader({norm(path): text})
    project = load_project(folder / "config.arena.yaml", read)
    assert project is not None, f"{folder}: no arena config"
    checked = check_project(project, config)
    analysis = analyze_in_project(text, path, checked, config)
    if pre:  # bad bytes of the case itself
        return analyze(
            text,
            path=path,
            config=config,
            pre_diagnostics=[*pre, *checked.diagnostics_for(path)],
        )
    return analysis


def codes_in(expected: str) -> set[str]:
    """The diagnostic codes an expected file shows."""
    return {m.group(2) for m in map(HEADLINE.match, expected.splitlines()) if m}


# ----------------------------------------------------------------------- rendering


def render_case(path: Path, analysis: Analysis) -> str:
    """The whole expected file of the case at ``path``."""
    count = len(analysis.diagnostics)
    noun = "diagnostic" if count == 1 else "diagnostics"
    summary = f"{count} {noun}" if count else "no diagnostics"
    out = [f"# {case_id(path)}: {summary}"]
    toml = path.with_suffix(".toml")
    if toml.is_file():
        out.append(f"# config {toml.name}:")
        out.extend(f"#   {line}".rstrip() for line in toml.read_text("utf-8").splitlines())
    for diag in analysis.diagnostics:
        out.append("")
        out.extend(render_diagnostic(analysis, diag))
    return "\n".join(out) + "\n"


def render_diagnostic(analysis: Analysis, diag: Diagnostic) -> list[str]:
    """One diagnostic block: headline, location, source, tags, related, fixes."""
    lines = analysis.lines
    rule = REGISTRY.get(diag.code)
    name = rule.name if rule is not None else "unregistered"
    # Snippets first: the gutter width depends on every line number in the block.
    parts: list[tuple[str, list[Row]]] = [("", snippet(lines, [diag.span], "^"))]
    for tag in diag.tags:
        parts.append((f"tag: {tag.value}", []))
    for rel in diag.related:
        rel_lines = lines if rel.path is None else _other_lines(rel.path)
        where = f"{_shown_path(rel.path)}:" if rel.path else ""
        label = f"related {where}{_location(rel_lines, rel.span)}: {rel.message}"
        parts.append((label, snippet(rel_lines, [rel.span], "-")))
    for fix in quick_fixes(analysis, diag):
        preferred = " (preferred)" if fix.preferred else ""
        if fix.file is None:
            label, text = f'fix "{fix.title}"{preferred}:', analysis.text
        else:  # an edit of another file: the configuration
            where = _shown_path(fix.file.path)
            label, text = f'fix "{fix.title}"{preferred} in {where}:', fix.file.text
        parts.append((label, fix_snippet(text, fix.edits)))
    width = 1 + max(
        (len(str(row.number)) for _, rows in parts for row in rows if row.number), default=1
    )
    pad = " " * width
    out = [
        f"{diag.severity.label}[{diag.code}] {name}: {_indent(diag.message, pad)}",
        f"{pad}--> {_location(lines, diag.span)}",
    ]
    for label, rows in parts:
        if label:
            out.append(f"{pad} = {_indent(label, pad)}")
        if rows:
            out.append(f"{pad} |")
        for row in rows:
            out.extend(row.render(width))
    return out


def _indent(text: str, pad: str) -> str:
    """A message as printed: visible characters, continuation lines indented."""
    return "\n".join("".join(map(_visible, line)) for line in text.split("\n")).replace(
        "\n", "\n" + pad + "   "
    )


def _location(lines: LineIndex, span: Span) -> str:
    r = lines.range(span)
    return f"{r.start.line + 1}:{r.start.character + 1}-{r.end.line + 1}:{r.end.character + 1}"


def fix_snippet(text: str, edits: Sequence[Edit]) -> list[Row]:
    """The changed lines of ``text`` after ``edits``, with the new text marked."""
    fixed = apply_edits(text, edits)
    index = LineIndex(fixed)
    inserted: list[Span] = []
    deleted: list[Span] = []
    delta = 0
    for edit in sorted(edits, key=lambda e: (e.span.start, e.span.end)):
        start = edit.span.start + delta
        (inserted if edit.text else deleted).append(Span(start, start + len(edit.text)))
        delta += len(edit.text) - edit.span.length
    shown = line_marks(index, inserted, "+")
    for line, cols in line_marks(index, deleted, "-").items():
        shown.setdefault(line, {}).update(cols)
    return with_elisions(index, shown)


# ------------------------------------------------------------------------ snippets


@dataclass(frozen=True, slots=True)
class Row:
    """One source line of a snippet and its markers by 0-based column.

    ``number`` is the 1-based line number, 0 for an elision between lines.
    """

    number: int
    text: str
    marks: Mapping[int, str]

    def render(self, width: int) -> list[str]:
        if not self.number:
            return [f"{'...':>{width}}"]
        body = self.text.rstrip(" \t")
        shown = [*map(_visible, body), *(_TRAILING[c] for c in self.text[len(body) :])]
        out = [f"{self.number:>{width}} |" + (f" {''.join(shown)}" if shown else "")]
        if self.marks:
            under = "".join(
                self.marks.get(i) or (_filler(shown[i]) if i < len(shown) else " ")
                for i in range(max(self.marks) + 1)
            )
            out.append(f"{'':>{width}} | {under}")
        return out


def snippet(lines: LineIndex, spans: Iterable[Span], mark: str) -> list[Row]:
    """The lines ``spans`` touch, with ``mark`` under every code point they cover."""
    return with_elisions(lines, line_marks(lines, spans, mark))


def line_marks(lines: LineIndex, spans: Iterable[Span], mark: str) -> dict[int, dict[int, str]]:
    """For each 0-based line to show, ``mark`` at each column ``spans`` cover."""
    shown: dict[int, dict[int, str]] = {}
    for span in spans:
        first = lines.position(span.start)
        last = lines.position(span.end)
        end_line = last.line
        if end_line > first.line and last.character == 0:
            end_line -= 1  # the range ends with a line break: the next line is not in it
        marked: dict[int, dict[int, str]] = {}
        for line in range(first.line, end_line + 1):
            start = lines.line_start(line)
            lo = max(span.start, start) - start
            hi = min(span.end, lines.line_end(line)) - start
            marked[line] = {col: mark for col in range(lo, hi)}
        if not any(marked.values()):
            marked[first.line] = {first.character: mark}
        keep = sorted(marked)
        if len(keep) > MAX_LINES:
            keep = keep[:KEEP_LINES] + keep[-KEEP_LINES:]
        for line in keep:
            shown.setdefault(line, {}).update(marked[line])
    return shown


def with_elisions(lines: LineIndex, shown: Mapping[int, Mapping[int, str]]) -> list[Row]:
    """Rows for the 0-based lines in ``shown``, an elision row at each gap."""
    rows: list[Row] = []
    previous: int | None = None
    for line in sorted(shown):
        if previous is not None and line != previous + 1:
            rows.append(Row(0, "", {}))
        rows.append(Row(line + 1, lines.line_text(line), shown[line]))
        previous = line
    return rows


def _visible(char: str) -> str:
    """The character as printed in a source row (see the module docstring)."""
    code = ord(char)
    if char == "\t":
        return char
    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7F:
        return "\u2421"
    if unicodedata.category(char) in ("Cc", "Zl", "Zp"):
        return "\u2424"
    return char


#: Trailing whitespace, as an editor shows it when it renders whitespace.
_TRAILING = {" ": "\u00b7", "\t": "\u2192"}


def _filler(char: str) -> str:
    """What a marker row holds under an unmarked character: as wide, never ink."""
    if char == "\t":
        return char
    if unicodedata.east_asian_width(char) in ("W", "F"):
        return "\u3000"
    return " "
