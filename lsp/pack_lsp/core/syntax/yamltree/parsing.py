"""``parse``: a text to a tree with diagnostics.

The guards run first; libyaml's events are composed; a syntax error libyaml
reports is confirmed by the conforming parser (from its block alone in a large
text) before it is reported, and the best tree around it is recovered.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pack_lsp.core.base.diagnostics import Diagnostic, Related, make
from pack_lsp.core.base.problems.document import (
    EMPTY_DOCUMENT,
    INVALID_ENCODING,
    NESTING_TOO_DEEP,
    YAML_SYNTAX,
)
from pack_lsp.core.base.text import LineIndex, Span
from pack_lsp.core.syntax.yamltree.compose import Composer, compose
from pack_lsp.core.syntax.yamltree.events import YamlSyntaxError
from pack_lsp.core.syntax.yamltree.guards import MAX_FLOW_DEPTH, too_deep
from pack_lsp.core.syntax.yamltree.nodes import Node, ScalarNode

#: How often a syntax error is stepped over to recover the rest of the tree.
MAX_RECOVERIES = 8


@dataclass(slots=True)
class ParseResult:
    """What parsing a YAML text gives: the tree, the syntax diagnostics, the lines."""

    root: Node | None
    diagnostics: list[Diagnostic]
    syntax_error: bool
    lines: LineIndex
    text: str
    region: Span | None = None
    """Where ``text`` may hold anything but blanks (spaces and line breaks), when
    it is known to be less than the whole text: the region of a shadow
    (``parse_region``). Readers of the text may skip the rest."""
    first_line: int = 0
    """The line of its file this text starts at when it is a part of that file
    written verbatim (a pack embedded in a Kubernetes manifest, analysed in its own
    text): a message naming a line names the file's."""
    conforming: bool = False
    """Read by the conforming parser: libyaml rejected the text (D26). What such a
    text's parse gives depends on all of it, not on each top-level block alone. An
    incremental update keeps it from the previous version (then it may be stale in the
    safe direction: the next edit checks its block with the conforming parser)."""


def _syntax_message(text: str, err: YamlSyntaxError) -> str:
    ch = text[err.index] if 0 <= err.index < len(text) else ""
    if ch == "\t" and "cannot start any token" in err.problem:
        return "YAML syntax error: a tab cannot be used for indentation; use spaces"
    problem = err.problem.strip()
    message = f"YAML syntax error: {problem}"
    if err.context:
        message += f" ({err.context.strip()})"
    return message


def _blank_line(text: str, index: int) -> str:
    """Replace the line holding ``index`` by spaces, keeping every offset."""
    start = max(text.rfind("\n", 0, index), text.rfind("\r", 0, index)) + 1
    end_n = text.find("\n", index)
    end_r = text.find("\r", index)
    ends = [e for e in (end_n, end_r) if e >= 0]
    end = min(ends) if ends else len(text)
    if end <= start:
        return text
    return text[:start] + " " * (end - start) + text[end:]


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def parse(text: str) -> ParseResult:
    """Parse ``text`` (BOM already removed) into a tree with diagnostics."""
    pre: list[Diagnostic] = []
    # `isascii` is a flag of the string (no scan): most packs are ASCII.
    bad = None if text.isascii() else _LONE_SURROGATE.search(text)
    if bad is not None:
        # Possible in text sent by an editor (JSON-RPC allows `\ud800`), never in a
        # file: the parser cannot encode it. Replaced by U+FFFD, offsets unchanged.
        pre.append(
            make(
                INVALID_ENCODING,
                f"The text contains a lone surrogate U+{ord(bad.group()):04X}, which is not a "
                "character and cannot be saved as UTF-8; it is read as U+FFFD",
                Span(bad.start(), bad.end()),
            )
        )
        text = _LONE_SURROGATE.sub("\ufffd", text)
    lines = LineIndex(text)
    deep = too_deep(text)
    if deep is not None:
        diag = make(
            NESTING_TOO_DEEP,
            f"Collections are nested more than {MAX_FLOW_DEPTH:,} levels deep here; "
            "the file is not read",
            Span(deep, deep + 1),
        )
        return ParseResult(None, [*pre, diag], True, lines, text)
    composer = Composer(text)
    composer.diags.extend(pre)
    syntax_error: YamlSyntaxError | None = None
    conforming = False
    try:
        compose(composer, text)
    except YamlSyntaxError as err:
        syntax_error = err
    if (
        syntax_error is not None
        and not syntax_error.definite
        and not _confirmed_locally(text, syntax_error)
    ):
        # libyaml rejects some YAML 1.2 (docs/decisions.md, D26): a conforming parser
        # confirms the error or reads the text. Nothing of this runs on a text libyaml
        # accepts.
        first = syntax_error
        second = Composer(text)
        second.diags.extend(pre)
        try:
            compose(second, text, conforming=True)
            composer, syntax_error, conforming = second, None, True
        except YamlSyntaxError as again:
            if again.located and again.index > first.index:
                # libyaml's error was none: the conforming parser read past it, so
                # its error is the first real one and its partial tree the larger.
                composer, syntax_error, conforming = second, again, True
    diags = composer.diags
    root = composer.root
    if syntax_error is not None:
        index = min(max(syntax_error.index, 0), len(text))
        at_eof = not text[index:].strip()
        if at_eof and syntax_error.ctx_index is not None:
            # "Reached the end of the file" is useless as a place: point at the
            # construct that was left open instead.
            index = min(max(syntax_error.ctx_index, 0), len(text))
            syntax_error.problem += " before the end of the file"
        end = index + 1 if index < len(text) and text[index] not in "\r\n" else index
        related = []
        if syntax_error.ctx_index is not None and syntax_error.ctx_index != index:
            ci = min(max(syntax_error.ctx_index, 0), len(text))
            related.append(
                Related(Span(ci, min(ci + 1, len(text))), syntax_error.context or "context")
            )
        diags = [
            make(
                YAML_SYNTAX, _syntax_message(text, syntax_error), Span(index, end), related=related
            )
        ] + [d for d in diags if d.code != "PP001"]
        root = _recover(text, syntax_error, composer, conforming)
    elif root is None or (isinstance(root, ScalarNode) and root.value is None and root.style == ""):
        diags.append(
            make(
                EMPTY_DOCUMENT,
                "The file is empty: a PromptPack needs at least a mapping "
                "with `id`, `name`, `version`, `template_engine` and `prompts`",
                Span(0, 0),
            )
        )
        root = None
    return ParseResult(root, diags, syntax_error is not None, lines, text, conforming=conforming)


#: Texts shorter than this are confirmed by the conforming parser as a whole.
LOCAL_CONFIRM_MIN = 20_000
_LINE_INDENT = re.compile(r"[ ]*")


def _confirmed_locally(text: str, err: YamlSyntaxError) -> bool:
    """Whether the conforming parser confirms libyaml's error ``err`` from the block
    around it alone, so that a large file with a real syntax error (a quote left open
    while typing) is not read again whole by the slow parser (D26).

    The block starts at the nearest line at or before the error (for a construct
    left open to the end of the text, before where it opens) that is indented two
    spaces or less, and ends before the next
    such line after the error: a top-level entry or a prompt, which YAML reads the same
    alone. Confirmed only when the conforming parser fails on the very line libyaml
    did; any other outcome (it reads the block, or fails elsewhere, as it may when the
    block is not self-contained) leaves the decision to the whole text.
    """
    if len(text) < LOCAL_CONFIRM_MIN or not err.located:
        return False
    index = min(max(err.index, 0), len(text))
    # A construct left open to the end of the text (a quote, a bracket): its block
    # is the one where it opens, and the conforming parser must fail on it too.
    unclosed = not text[index:].strip() and err.ctx_index is not None
    anchor = min(max(err.ctx_index or 0, 0), len(text)) if unclosed else index
    start = text.rfind("\n", 0, anchor) + 1
    while start > 0 and not _opens_block(text, start):
        start = text.rfind("\n", 0, start - 1) + 1
    error_line_end = text.find("\n", anchor)
    end = len(text)
    at = error_line_end
    while 0 <= at < len(text):
        nxt = at + 1
        if _opens_block(text, nxt):
            end = nxt
            break
        at = text.find("\n", nxt)
    if end - start > len(text) // 2:
        return False
    block = text[start:end]
    try:
        compose(Composer(block), block, conforming=True)
    except YamlSyntaxError as again:
        if not again.located:
            return False
        if unclosed:
            return again.ctx_index is not None and again.ctx_index + start == err.ctx_index
        line = text.count("\n", 0, start) + block.count("\n", 0, max(again.index, 0))
        return line == text.count("\n", 0, index)
    return False


def _opens_block(text: str, start: int) -> bool:
    """A line (starting at ``start``) with content indented two spaces or less."""
    indent = _LINE_INDENT.match(text, start)
    width = indent.end() - start if indent is not None else 0
    char = text[start + width : start + width + 1]
    return width <= 2 and char not in ("", "\n", "\r", "#", "\t")


def _recover(
    text: str, first: YamlSyntaxError, partial: Composer, conforming: bool = False
) -> Node | None:
    """Build the best tree we can around syntax errors.

    The offending line is blanked (offsets kept) and the text re-parsed, a few
    times; if that never succeeds the partial tree from before the first error is
    used. Diagnostics from recovery attempts are discarded (no cascades). The
    attempts use the parser that found ``first``: with ``conforming``, libyaml
    rejected something before it that is valid YAML, and would again.
    """
    attempt = text
    err: YamlSyntaxError | None = first
    for _ in range(MAX_RECOVERIES):
        if err is None:
            break
        previous: YamlSyntaxError = err
        attempt = _blank_line(attempt, min(previous.index, max(len(attempt) - 1, 0)))
        composer = Composer(attempt)
        try:
            compose(composer, attempt, conforming)
            err = None
            if composer.root is not None:
                return composer.root
        except YamlSyntaxError as again:
            if again.index == previous.index and attempt[previous.index : previous.index + 1] in (
                "",
                " ",
            ):
                # Blanking did not move the error forward: try the previous line too.
                again = YamlSyntaxError(
                    max(attempt.rfind("\n", 0, max(previous.index - 1, 0)) - 1, 0),
                    again.problem,
                    None,
                    None,
                )
            err = again
    partial.close_open(first.index)
    return partial.root


def parse_region(text: str, region: Span, lines: LineIndex | None = None) -> ParseResult:
    """``parse(text)`` for a ``text`` whose characters outside ``region`` are blanks
    (spaces and line breaks: the shadow of a pack embedded in a larger file).

    Only the region is parsed, and its tree moved to the region's offset: what
    parsing the whole text would give, in time linear in the region rather than in
    the text. ``lines`` is the text's line index when the caller has it (a text with
    the same line breaks and only ASCII outside the region). A region whose parse
    reports anything (a syntax error, a warning) is parsed in the whole text, so that
    every diagnostic is exactly the one a full parse gives.
    """
    from pack_lsp.core.syntax.yamltree.copy import shifted_copy, shifted_tree

    part = parse(text[region.start : region.end])
    if not part.diagnostics and not part.syntax_error and part.root is not None:
        try:
            root = shifted_copy(part.root, region.start)
        except ValueError:  # aliases or merge keys
            try:
                root = shifted_tree(part.root, region.start)
            except ValueError:
                return parse(text)
        return ParseResult(root, [], False, lines or LineIndex(text), text, region=region)
    whole = parse(text)
    whole.region = region
    return whole
