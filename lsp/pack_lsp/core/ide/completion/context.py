"""Where the cursor is and what is expected there: a key or a value, at which data path.

The place is found from the tree (``node_path_at``) when the cursor is on a scalar
or inside a flow collection (flow style and JSON), and otherwise from the text
around the cursor: the current line and the indentation of the lines above it
(block style, including documents with a syntax error, whose recovered tree may not
cover the line being typed).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pack_lsp.core.base.text import Span
from pack_lsp.core.checks.analysis import Analysis
from pack_lsp.core.syntax.yamltree import (
    MappingNode,
    PathItem,
    ScalarNode,
    SequenceNode,
    node_path_at,
    resolve,
)

KEY = "key"
VALUE = "value"


@dataclass(frozen=True, slots=True)
class Place:
    """Where the cursor is: typing a key of the mapping at ``path`` or the value at it."""

    what: str  # KEY or VALUE
    path: tuple[PathItem, ...]
    replace: Span
    prefix: str  # the part of the word before the cursor
    indent: int  # column of the word (for multi-line snippets)
    quoted: str = ""  # the quote character around a quoted scalar being edited


_WORD = re.compile(r"[\w$./:-]*\Z")
_WORD_AHEAD = re.compile(r"[\w$./:-]*")


def place_at(analysis: Analysis, offset: int) -> Place | None:
    """The place of ``offset``, from the tree when it covers it, else from the text."""
    return _place_from_tree(analysis, offset) or _place_from_text(analysis, offset)


def word_end(text: str, offset: int) -> int:
    """Where the word the cursor is in ends (``offset`` itself when none follows)."""
    ahead = _WORD_AHEAD.match(text, offset)
    return ahead.end() if ahead else offset


def path_matches(path: Sequence[PathItem], pattern: Sequence[str]) -> bool:
    """Whether a data path matches ``pattern``: ``*`` is any step, ``#`` any list index."""
    if len(path) != len(pattern):
        return False
    for step, pat in zip(path, pattern, strict=True):
        if pat == "*":
            continue
        if pat == "#":
            if not isinstance(step, int):
                return False
            continue
        if step != pat:
            return False
    return True


def present_keys(analysis: Analysis, path: Sequence[PathItem]) -> set[str]:
    """The keys the mapping at ``path`` already has."""
    node, _ = resolve(analysis.root, list(path))
    if isinstance(node, MappingNode):
        return {p.key_text for p in node.pairs if p.key_text}
    return set()


def in_flow(analysis: Analysis, place: Place) -> bool:
    """Whether the collection at the place's path is in flow style (or JSON)."""
    node, _ = resolve(analysis.root, list(place.path))
    return isinstance(node, MappingNode | SequenceNode) and node.flow


# ----------------------------------------------------------------------- places


def _word_span(text: str, offset: int, line_start: int) -> tuple[Span, str]:
    match = _WORD.search(text, line_start, offset)
    start = match.start() if match else offset
    return Span(start, word_end(text, offset)), text[start:offset]


def _place_from_tree(analysis: Analysis, offset: int) -> Place | None:
    root = analysis.root
    if root is None:
        return None
    chain = node_path_at(root, offset)
    if not chain:
        return None
    steps = [step for step, _ in chain[1:]]
    node = chain[-1][1]
    column = analysis.lines.position(offset).character
    if isinstance(node, ScalarNode) and node.span.length > 0 and node.span.contains(offset):
        parent = chain[-2][1] if len(chain) >= 2 else None
        is_key = isinstance(parent, MappingNode) and any(p.key is node for p in parent.pairs)
        if node.style in ("|", ">"):
            return None  # inside a block scalar: only placeholders complete there
        if node.style in ('"', "'"):
            inner = Span(
                min(node.span.start + 1, node.span.end), max(node.span.end - 1, node.span.start + 1)
            )
            replace = inner if inner.start <= offset <= inner.end else node.span
            prefix = analysis.text[replace.start : offset]
            quote = node.style
        else:
            replace = node.span
            prefix = analysis.text[node.span.start : offset]
            quote = ""
        path = tuple(s for s in steps if s is not None)
        if is_key:
            return Place(
                KEY,
                path[:-1],
                replace,
                prefix,
                analysis.lines.position(node.span.start).character,
                quote,
            )
        if (
            isinstance(parent, MappingNode | SequenceNode)
            and not parent.flow
            and not is_key
            and node.is_plain
            and "\n" in analysis.text[node.span.start : offset]
        ):
            return None
        return Place(
            VALUE, path, replace, prefix, analysis.lines.position(node.span.start).character, quote
        )
    if isinstance(node, ScalarNode) and node.span.length == 0 and node.value is None:
        # The empty value of `key:` in a flow mapping (`{state: }`): a value of key.
        parent = chain[-2][1] if len(chain) >= 2 else None
        if isinstance(parent, MappingNode) and parent.flow and node.span.start == offset:
            path = tuple(s for s in steps if s is not None)
            return Place(VALUE, path, Span(offset, offset), "", column)
    if (
        isinstance(node, SequenceNode)
        and node.flow
        and node.span.contains(offset)
        and offset > node.span.start
    ):
        index = sum(1 for item in node.items if item.span.end <= offset)
        path = (*(s for s in steps if s is not None), index)
        return Place(VALUE, path, Span(offset, offset), "", column)
    if (
        isinstance(node, MappingNode)
        and node.flow
        and node.span.contains(offset)
        and offset > node.span.start
    ):
        path = tuple(s for s in steps if s is not None)
        # Between entries of a flow mapping / JSON object: a new key.
        return Place(KEY, path, Span(offset, offset), "", column)
    return None


def _place_from_text(analysis: Analysis, offset: int) -> Place | None:
    text = analysis.text
    lines = analysis.lines
    line = lines.position(offset).line
    line_start = lines.line_start(line)
    before = text[line_start:offset]
    replace, prefix = _word_span(text, offset, line_start)
    stripped = before.lstrip(" ")
    indent = len(before) - len(stripped)
    dash_cols, col, stripped = _dashes(stripped, indent)
    if stripped.startswith(("{", "[", '"', "'", "#")) and ":" not in stripped:
        return None
    if ":" in stripped:
        key, _, value = stripped.partition(":")
        if "{" in key or "[" in key or (value and not value.startswith(" ")):
            return None
        key = key.strip().strip("\"'")
        if "{" in value or "[" in value or "#" in value:
            return None
        parent = parent_path(analysis, line, col, dash_cols)
        if parent is None:
            return None
        return Place(VALUE, (*parent, key), replace, prefix, col)
    parent = parent_path(analysis, line, col, dash_cols)
    if parent is None:
        return None
    if dash_cols:
        # ``- word``: a list item; it may also start a mapping item, which the
        # VALUE place covers for lists of strings (tools, blocklist, ...).
        return Place(VALUE, parent, replace, prefix, col)
    return Place(KEY, parent, replace, prefix, col)


def _dashes(stripped: str, indent: int) -> tuple[list[int], int, str]:
    """Leading ``- `` list markers of a line's content that starts at column ``indent``.

    Returns the column of each dash, the column where the rest starts, and the rest.
    """
    cols: list[int] = []
    col = indent
    while stripped.startswith("- ") or stripped == "-":
        cols.append(col)
        after = stripped[1:]
        col += 1 + len(after) - len(after.lstrip(" "))
        stripped = after.lstrip(" ")
    return cols, col, stripped


_OPENER = re.compile(r"(?P<key>\"[^\"]*\"|'[^']*'|[^\s:#{}\[\],-][^:#{}\[\]]*?)[ ]*:[ ]*(?:#.*)?$")


def parent_path(
    analysis: Analysis, line: int, col: int, dash_cols: list[int]
) -> tuple[PathItem, ...] | None:
    """The data path of the block collection that a token at ``col`` belongs to."""
    lines = analysis.lines
    path: list[PathItem] = []
    if dash_cols:
        path.append(0)
        col = dash_cols[0]
    target = col
    #: A list item may sit at the column of the key that opens it (``tools:`` then
    #: ``- x`` below, both at the same indentation): the first key line above at
    #: that column with nothing after the colon is then the list's owner.
    indentless = bool(dash_cols)
    for ln in range(line - 1, -1, -1):
        content = lines.line_text(ln)
        stripped = content.lstrip(" ")
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(content) - len(stripped)
        if indentless and indent <= target and not stripped.startswith("-"):
            indentless = False
            opener = _OPENER.match(stripped) if indent == target else None
            if opener is not None:
                path.append(opener.group("key").strip("\"'"))
                if target == 0:
                    break
                continue
        if indent >= target and not stripped.startswith("-"):
            continue
        # Columns of the dashes and of the first key on this line.
        cols, key_col, rest = _dashes(stripped, indent)
        if cols and key_col == target and cols[-1] < target:
            # ``- key: ...`` sibling of our key: we are inside that list item.
            path.append(0)
            target = cols[0]
            continue
        if cols and cols[0] >= target:
            continue
        if key_col >= target:
            continue
        match = re.match(
            r"(?P<key>\"[^\"]*\"|'[^']*'|[^\s:#{}\[\],][^:#{}\[\]]*?)[ ]*:(?:[ ]|$)", rest
        )
        if match is None:
            return None
        path.append(match.group("key").strip("\"'"))
        if cols:
            path.append(0)
            target = cols[0]
        else:
            target = key_col
        if target == 0:
            break
    path.reverse()
    return tuple(path)
