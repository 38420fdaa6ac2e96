"""Folding ranges and selection ranges.

Folding: every mapping entry or list item whose value spans several lines folds
from its first line to the last line of its value; runs of two or more comment
lines fold as comments. Selection: from the cursor outwards — the name inside a
placeholder, the whole ``{{ }}``, the scalar, the ``key: value`` entry, the
enclosing mapping or list, and so on up to the document.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from pack_lsp.core.base.text import LineIndex, Span
from pack_lsp.core.checks.analysis import Analysis
from pack_lsp.core.ide.index import index_for
from pack_lsp.core.syntax.yamltree.nodes import MappingNode, Node, ScalarNode, SequenceNode


class FoldKind(enum.StrEnum):
    REGION = "region"
    COMMENT = "comment"


@dataclass(frozen=True, slots=True, order=True)
class Fold:
    start_line: int
    end_line: int
    kind: FoldKind = FoldKind.REGION


def _last_line(lines: LineIndex, text: str, end: int, start: int) -> int:
    # A block scalar's span ends at the start of the line after it.
    while end > start and text[end - 1] in "\r\n":
        end -= 1
    return lines.position(end).line


def folding_ranges(analysis: Analysis) -> list[Fold]:
    lines = analysis.lines
    text = analysis.text
    folds: set[Fold] = set()

    def add(start: int, end: int) -> None:
        first = lines.position(start).line
        last = _last_line(lines, text, end, start)
        if last > first:
            folds.add(Fold(first, last))

    stack: list[Node] = [analysis.root] if analysis.root is not None else []
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, MappingNode):
            for pair in node.pairs:
                value = pair.value
                add(pair.key.span.start, max(pair.key.span.end, value.span.end))
                stack.append(value)
        elif isinstance(node, SequenceNode):
            for item in node.items:
                if isinstance(item, MappingNode | SequenceNode) or (
                    isinstance(item, ScalarNode) and item.style in ("|", ">")
                ):
                    add(item.span.start, item.span.end)
                stack.append(item)
    # Comment blocks.
    run_start: int | None = None
    for line in range(lines.line_count + 1):
        is_comment = line < lines.line_count and lines.line_text(line).lstrip().startswith("#")
        if is_comment and run_start is None:
            run_start = line
        elif not is_comment and run_start is not None:
            if line - 1 > run_start:
                folds.add(Fold(run_start, line - 1, FoldKind.COMMENT))
            run_start = None
    return sorted(folds)


def selection_ranges(analysis: Analysis, offset: int) -> list[Span]:
    """Nested spans around ``offset``, innermost first, each containing the previous."""
    spans: list[Span] = []
    index = index_for(analysis)
    for occ in index.at(offset):
        spans.append(occ.span)
        if occ.outer is not None:
            spans.append(occ.outer)
        break
    chain = _chain(analysis.root, offset)
    spans.extend(reversed(chain))
    spans.append(Span(0, len(analysis.text)))
    out: list[Span] = []
    for span in spans:
        if not span.contains(offset) and not out:
            continue
        if out and (span == out[-1] or not span.covers(out[-1])):
            continue
        out.append(span)
    if not out:
        out.append(Span(offset, offset))
    return out


def _chain(root: Node | None, offset: int) -> list[Span]:
    """Spans from the root down to the innermost node at ``offset``: for each mapping
    entry on the way, the entry (key to value end) and then the key or the value."""
    out: list[Span] = []
    node = root
    while node is not None:
        out.append(node.span)
        nxt: Node | None = None
        if isinstance(node, MappingNode):
            for pair in node.pairs:
                whole = Span(pair.key.span.start, max(pair.key.span.end, pair.value.span.end))
                if not whole.contains(offset):
                    continue
                out.append(whole)
                if pair.key.span.contains(offset) and pair.key.span.length:
                    out.append(pair.key.span)
                    return out
                nxt = pair.value
                break
        elif isinstance(node, SequenceNode):
            for item in node.items:
                if item.span.contains(offset):
                    nxt = item
                    break
        if nxt is not None and nxt.span == node.span:
            break
        node = nxt
    return out
