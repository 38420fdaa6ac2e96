"""Inline suppression comments.

``# pack-lsp: ignore[PP201, PP305]`` at the end of a line silences those codes for
diagnostics whose range starts on that line (a block scalar's lines cannot carry a
comment, so for a problem inside a ``|`` or ``>`` block the comment goes on the line
that opens it, ``system_template: |  # pack-lsp: ignore[PP502]``);
``# pack-lsp: ignore-file[PP201]`` in the comment block at the top of a file (before
its first line of content) silences them in the whole file. Free text may follow the
closing bracket after a space, to say why.

Comments are found in the text, using the YAML tree to rule out a ``#`` that belongs
to a quoted or block scalar. Suppressions are applied after the configuration, so a
suppression names codes as they are finally reported. Problems with the comments are
reported as PP8xx diagnostics; these go through the configuration too, and a comment
may silence them like any other code (``ignore[PP201, PP801]`` keeps a suppression that
is only sometimes needed without an "unused" hint). JSON files have no comments: use
the configuration's ``ignore`` there.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pack_lsp.core.base.diagnostics import Diagnostic, Tag, make
from pack_lsp.core.base.problems.suppressions import (
    MALFORMED_SUPPRESSION,
    MISPLACED_FILE_SUPPRESSION,
    UNKNOWN_SUPPRESSION_CODE,
    UNUSED_SUPPRESSION,
)
from pack_lsp.core.base.suggest import did_you_mean
from pack_lsp.core.base.text import LineIndex, Span
from pack_lsp.core.checks.registry import REGISTRY
from pack_lsp.core.model.config import Config
from pack_lsp.core.syntax.yamltree import Node, ParseResult, ScalarNode, walk

MARKER = "pack-lsp"
LINE = "ignore"
FILE = "ignore-file"
#: Codes of the suppression rules themselves: never reported as unused.
OWN_PREFIX = "PP8"

# ``pack-lsp:`` (or ``pack-lsp ignore…`` with the colon forgotten) opens a directive.
_OPENER = re.compile(r"[ \t]*pack-lsp(?:[ \t]*:|[ \t]+(?=ignore))", re.IGNORECASE)
_WORD = re.compile(r"[ \t]*([A-Za-z][A-Za-z0-9_-]*)")
_TOKEN = re.compile(r"[^,\s\]]+")


@dataclass(frozen=True, slots=True)
class Comment:
    """A YAML comment: ``span`` runs from the ``#`` to the end of its line."""

    span: Span
    line: int
    own_line: bool  # nothing but blanks before the ``#``

    def body_start(self) -> int:
        return self.span.start + 1


@dataclass(slots=True)
class Entry:
    """One code named by a suppression comment."""

    code: str
    span: Span  # the code as written in the comment
    removal: Span  # what to delete to drop just this code (or the whole comment)
    used: bool = False


@dataclass(slots=True)
class Suppression:
    """A suppression comment: for its line or the file, with its entries."""

    kind: str  # LINE or FILE
    comment: Comment
    entries: list[Entry] = field(default_factory=list)

    @property
    def line(self) -> int:
        return self.comment.line


@dataclass(slots=True)
class Suppressions:
    """The suppression comments of one document and the problems found in them."""

    by_line: dict[int, list[Suppression]] = field(default_factory=dict)
    file_wide: list[Suppression] = field(default_factory=list)
    problems: list[Diagnostic] = field(default_factory=list)
    #: (first line, last line, header line) of each block scalar's content.
    blocks: list[tuple[int, int, int]] = field(default_factory=list)

    def header_of(self, line: int) -> int | None:
        """The line opening the block scalar that ``line`` is inside, if any."""
        for first, last, header in self.blocks:
            if first <= line <= last:
                return header
        return None

    def all(self) -> Iterable[Suppression]:
        for group in self.by_line.values():
            yield from group
        yield from self.file_wide

    def matching(self, line: int, code: str) -> list[Entry]:
        found: list[Entry] = []
        own = self.by_line.get(line, ())
        header = (
            self.header_of(line)
            if not any(e.code == code for sup in own for e in sup.entries)
            else None
        )
        extra = self.by_line.get(header, ()) if header is not None else ()
        for sup in (*own, *extra, *self.file_wide):
            found.extend(e for e in sup.entries if e.code == code)
        return found

    def __bool__(self) -> bool:
        return bool(self.by_line or self.file_wide or self.problems)


# ------------------------------------------------------------------------ comments


def _scalar_spans(root: Node | None, lines: LineIndex) -> list[Span]:
    """Spans of the text inside quoted and block scalars, sorted, not overlapping.

    A block scalar's header line (``key: |  # comment``) may carry a real comment,
    so its span starts on the line after the indicator.
    """
    spans: list[Span] = []
    for node in walk(root):
        if not isinstance(node, ScalarNode) or node.style == "":
            continue
        span = node.span
        if node.style in ("|", ">"):
            header = lines.position(span.start).line
            start = lines.line_start(header + 1)
            if start >= span.end:
                continue
            span = Span(start, span.end)
        if span.length:
            spans.append(span)
    spans.sort()
    return spans


class _CommentFinder:
    def __init__(self, text: str, root: Node | None, lines: LineIndex) -> None:
        self.text = text
        self.lines = lines
        self.spans = _scalar_spans(root, lines)
        self.starts = [s.start for s in self.spans]

    def _in_scalar(self, offset: int) -> bool:
        i = bisect.bisect_right(self.starts, offset) - 1
        return i >= 0 and offset < self.spans[i].end

    def comment_on(self, line: int) -> Comment | None:
        text = self.text
        start = self.lines.line_start(line)
        end = self.lines.line_end(line)
        p = text.find("#", start, end)
        while p >= 0:
            if (p == start or text[p - 1] in " \t") and not self._in_scalar(p):
                own = not text[start:p].strip()
                return Comment(Span(p, end), line, own)
            p = text.find("#", p + 1, end)
        return None


def find_comments(text: str, root: Node | None, lines: LineIndex) -> list[Comment]:
    """Every comment in the document, in order."""
    finder = _CommentFinder(text, root, lines)
    return [c for line in range(lines.line_count) if (c := finder.comment_on(line))]


def _first_content_line(lines: LineIndex, first: int = 0) -> int:
    """The first line holding something other than blanks, comments, ``---`` or ``%``
    (from ``first``: the lines before it are known to be blank)."""
    for line in range(first, lines.line_count):
        stripped = lines.line_text(line).strip()
        if not stripped or stripped.startswith(("#", "%")) or stripped == "---":
            continue
        return line
    return lines.line_count


# ------------------------------------------------------------------------- parsing


def _rstrip_span(text: str, span: Span) -> Span:
    end = span.end
    while end > span.start and text[end - 1] in " \t":
        end -= 1
    return Span(span.start, end)


def _comment_removal(text: str, lines: LineIndex, comment: Comment) -> Span:
    """The whole comment with the blanks before it, or its whole line when alone."""
    if comment.own_line:
        return Span(lines.line_start(comment.line), lines.line_start(comment.line + 1))
    start = comment.span.start
    floor = lines.line_start(comment.line)
    while start > floor and text[start - 1] in " \t":
        start -= 1
    return Span(start, comment.span.end)


def _parse_one(
    text: str,
    lines: LineIndex,
    comment: Comment,
    out: Suppressions,
    first_content: int,
    first_line: int = 0,
) -> None:
    body_start = comment.body_start()
    opener = _OPENER.match(text, body_start, comment.span.end)
    if opener is None:
        return
    whole = _rstrip_span(text, comment.span)
    example = "`# pack-lsp: ignore[PP201]`"
    word = _WORD.match(text, opener.end(), comment.span.end)
    if word is None:
        out.problems.append(
            make(
                MALFORMED_SUPPRESSION,
                f"`# pack-lsp:` must be followed by `ignore[CODES]` or `ignore-file[CODES]`, "
                f"for example {example}",
                whole,
            )
        )
        return
    kind = word.group(1).lower()
    if kind not in (LINE, FILE):
        out.problems.append(
            make(
                MALFORMED_SUPPRESSION,
                f"Unknown suppression `{word.group(1)}`: expected `ignore[CODES]` or "
                f"`ignore-file[CODES]`{did_you_mean(kind, (LINE, FILE))}",
                whole,
            )
        )
        return
    pos = word.end()
    while pos < comment.span.end and text[pos] in " \t":
        pos += 1
    if pos >= comment.span.end or text[pos] != "[":
        out.problems.append(
            make(
                MALFORMED_SUPPRESSION,
                f"`{kind}` needs the codes to silence in square brackets, for example "
                f"`# pack-lsp: {kind}[PP201]`",
                whole,
            )
        )
        return
    close = text.find("]", pos, comment.span.end)
    if close < 0:
        out.problems.append(
            make(
                MALFORMED_SUPPRESSION,
                f"The code list of `{kind}[` is not closed with `]`",
                whole,
            )
        )
        return
    if close + 1 < comment.span.end and text[close + 1] not in " \t":
        out.problems.append(
            make(
                MALFORMED_SUPPRESSION,
                f"Put a space between the closing `]` and any text after it (`{kind}[...] reason`)",
                whole,
            )
        )
        return
    tokens = [(m.group(0), Span(m.start(), m.end())) for m in _TOKEN.finditer(text, pos + 1, close)]
    if not tokens:
        out.problems.append(
            make(
                MALFORMED_SUPPRESSION,
                f"`{kind}[]` names no codes; list the codes to silence, for example "
                f"`# pack-lsp: {kind}[PP201]`",
                whole,
            )
        )
        return
    if kind == FILE and (not comment.own_line or comment.line >= first_content):
        where = (
            f"line {first_line + first_content + 1}"
            if first_content < lines.line_count
            else "the first line of content"
        )
        out.problems.append(
            make(
                MISPLACED_FILE_SUPPRESSION,
                f"`ignore-file` must be in the comments at the top of the file, before "
                f"{where}; this comment is ignored (use `ignore[...]` at the end of a line "
                "to silence one line)",
                whole,
            )
        )
        return
    sup = Suppression(kind, comment)
    whole_removal = _comment_removal(text, lines, comment)
    for i, (token, span) in enumerate(tokens):
        code = token.upper()
        if code not in REGISTRY:
            out.problems.append(
                make(
                    UNKNOWN_SUPPRESSION_CODE,
                    f"Unknown code `{token}` in a suppression comment; it silences nothing"
                    f"{did_you_mean(code, REGISTRY)}",
                    span,
                    data={"code": token},
                )
            )
            continue
        if len(tokens) == 1:
            removal = whole_removal
        elif i + 1 < len(tokens):
            removal = Span(span.start, tokens[i + 1][1].start)
        else:
            removal = Span(tokens[i - 1][1].end, span.end)
        sup.entries.append(Entry(code, span, removal))
    if kind == FILE:
        out.file_wide.append(sup)
    else:
        out.by_line.setdefault(comment.line, []).append(sup)


def collect(
    text: str,
    root: Node | None,
    lines: LineIndex,
    region: Span | None = None,
    first_line: int = 0,
) -> Suppressions:
    """The suppression comments of a YAML document; ``region``, when given, is where
    the text may hold anything but blanks (``ParseResult.region``): only it is read.
    ``first_line`` is the line of its file the text starts at (``ParseResult.first_line``)."""
    out = Suppressions()
    base = region.start if region is not None else 0
    lowered = (text if region is None else text[region.start : region.end]).lower()
    if MARKER not in lowered:
        return out
    finder = _CommentFinder(text, root, lines)
    candidate_lines: set[int] = set()
    p = lowered.find(MARKER)
    while p >= 0:
        candidate_lines.add(lines.position(base + p).line)
        p = lowered.find(MARKER, p + len(MARKER))
    first_content = _first_content_line(lines, lines.position(base).line if base else 0)
    for line in sorted(candidate_lines):
        comment = finder.comment_on(line)
        if comment is not None:
            _parse_one(text, lines, comment, out, first_content, first_line)
    if out.by_line:
        out.blocks = _block_lines(root, lines, set(out.by_line))
    return out


def _block_lines(
    root: Node | None, lines: LineIndex, headers: set[int]
) -> list[tuple[int, int, int]]:
    """(first, last, header) lines of the block scalars whose header line carries a
    suppression comment."""
    out: list[tuple[int, int, int]] = []
    for node in walk(root):
        if isinstance(node, ScalarNode) and node.style in ("|", ">"):
            header = lines.position(node.span.start).line
            if header in headers:
                last = lines.position(max(node.span.end - 1, node.span.start)).line
                out.append((header + 1, last, header))
    return out


# ------------------------------------------------------------------------ applying


def _filter(
    diagnostics: Iterable[Diagnostic], sups: Suppressions, lines: LineIndex
) -> list[Diagnostic]:
    kept: list[Diagnostic] = []
    for d in diagnostics:
        entries = sups.matching(lines.position(d.span.start).line, d.code)
        if entries:
            for entry in entries:
                entry.used = True
            continue
        kept.append(d)
    return kept


def _unused(sups: Suppressions, config: Config) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for sup in sups.all():
        for entry in sup.entries:
            if entry.used or entry.code.startswith(OWN_PREFIX):
                continue
            code = entry.code
            if not config.enabled(code):
                message = (
                    f"Unused suppression: `{code}` is turned off by the "
                    "configuration, so there is nothing to silence"
                )
            elif sup.kind == FILE:
                message = f"Unused suppression: no `{code}` diagnostic in this file"
            elif sup.comment.own_line:
                message = (
                    f"Unused suppression: an `ignore` comment on a line of its own "
                    f"silences nothing; put it at the end of the line that reports "
                    f"`{code}`"
                )
            else:
                message = f"Unused suppression: no `{code}` diagnostic starts on this line"
            out.append(
                make(
                    UNUSED_SUPPRESSION,
                    message,
                    entry.span,
                    tags=[Tag.UNNECESSARY],
                    data={"code": code, "remove": [entry.removal.start, entry.removal.end]},
                )
            )
    return out


def is_json(path: str | Path | None) -> bool:
    return path is not None and str(path).lower().endswith(".json")


def apply_suppressions(
    diagnostics: Sequence[Diagnostic],
    parsed: ParseResult,
    config: Config,
    path: str | Path | None = None,
) -> list[Diagnostic]:
    """``diagnostics`` (configuration already applied) less the suppressed ones, plus
    the problems found in the suppression comments.

    With a YAML syntax error the semantic rules did not run, so unused suppressions
    are not reported (they would all look unused while the user is typing).
    """
    if is_json(path):
        return list(diagnostics)
    sups = collect(parsed.text, parsed.root, parsed.lines, parsed.region, parsed.first_line)
    if not sups:
        return list(diagnostics)
    kept = _filter(diagnostics, sups, parsed.lines)
    own = list(sups.problems)
    if not parsed.syntax_error:
        own.extend(_unused(sups, config))
    kept.extend(_filter(config.apply(own), sups, parsed.lines))
    return kept
