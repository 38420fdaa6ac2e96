"""Strict JSON for ``.json`` packs.

JSON is (almost) a subset of YAML, so the YAML tree builder gives a ``.json`` pack
its spans. But YAML also accepts what JSON forbids — single quotes, unquoted keys,
trailing commas, comments — so a ``.json`` file is first checked by Python's JSON
reader. A file it rejects gets one diagnostic in JSON's own words at the exact
offset; the tree is still built as far as the YAML reader can (for completion and
outline), but, as for any syntax error, no other problem is reported.
"""

from __future__ import annotations

import json
from pathlib import Path

from pack_lsp.core.base.diagnostics import Diagnostic, make
from pack_lsp.core.base.problems.document import JSON_SYNTAX
from pack_lsp.core.base.text import LineIndex, Span
from pack_lsp.core.syntax.yamltree import ParseResult, parse, parse_region

JSON_SUFFIXES = (".json",)


def is_json_path(path: str | Path | None) -> bool:
    """Whether the file's name says JSON (``.json``, any case)."""
    return path is not None and Path(path).suffix.lower() in JSON_SUFFIXES


class _Constant(ValueError):
    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


def _reject_constant(name: str) -> object:
    raise _Constant(name)


def json_problem(text: str) -> Diagnostic | None:
    """The first JSON syntax error of ``text`` (None for valid JSON)."""
    try:
        json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as err:
        return _diagnostic(text, err.msg, err.pos)
    except _Constant as err:
        at = _find_constant(text, err.name)
        return make(
            JSON_SYNTAX,
            f"JSON syntax error: `{err.name}` is not a JSON value (JSON has no NaN or "
            "Infinity; write a number or a string)",
            Span(at, at + len(err.name)),
        )
    except RecursionError:
        return make(JSON_SYNTAX, "JSON syntax error: the document is nested too deeply", Span(0, 0))
    return None


def _find_constant(text: str, name: str) -> int:
    at = text.find(name)
    return at if at >= 0 else 0


def _diagnostic(text: str, msg: str, pos: int) -> Diagnostic:
    pos = max(0, min(pos, len(text)))
    # Skip the whitespace the reader stopped before, to point at the offending token.
    while not msg.startswith("Invalid control") and pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    ch = text[pos] if pos < len(text) else ""
    message = _explain(text, msg, pos, ch)
    end = pos + 1 if ch and ch not in "\r\n" else pos
    return make(JSON_SYNTAX, f"JSON syntax error: {message}", Span(pos, end))


def _previous_token(text: str, pos: int) -> str:
    at = pos - 1
    while at >= 0 and text[at] in " \t\r\n":
        at -= 1
    return text[at] if at >= 0 else ""


def _explain(text: str, msg: str, pos: int, ch: str) -> str:
    """Python's message, made specific for the mistakes YAML habits cause."""
    if not ch:
        if not text.strip():
            return "the file is empty (a JSON pack is one object `{...}`)"
        return 'unexpected end of the file: a `}`, `]` or `"` is missing'
    if ch == "'":
        return 'strings and property names need double quotes `"`, not single quotes'
    if ch in "}]" and _previous_token(text, pos) == ",":
        return f"trailing comma before `{ch}` (JSON allows no comma after the last item)"
    if ch == "#" or (ch == "/" and text[pos : pos + 2] in ("//", "/*")):
        return "comments are not allowed in JSON"
    if msg.startswith("Expecting property name"):
        return "property names must be strings in double quotes"
    if msg == "Extra data":
        return "unexpected text after the end of the JSON value"
    if msg.startswith("Invalid control character"):
        return "a string contains a raw line break or control character (write it as `\\n`)"
    if msg.startswith("Expecting value"):
        return (
            f"expected a value (a string, number, object, array, true, false or null), found `{ch}`"
        )
    if msg.startswith("Expecting ',' delimiter"):
        return f"expected `,` or the end of the object/array, found `{ch}`"
    if msg.startswith("Expecting ':' delimiter"):
        return f"expected `:` after the property name, found `{ch}`"
    return msg[0].lower() + msg[1:]


def parse_json(text: str) -> ParseResult:
    """Parse a ``.json`` document: strict JSON, with the YAML builder's spans."""
    result = parse(text)
    if not text.strip():
        return result  # the empty document has its own diagnostic
    problem = json_problem(text)
    if problem is None:
        return result
    return ParseResult(result.root, [problem], True, result.lines, result.text)


def parse_json_region(text: str, region: Span, lines: LineIndex | None = None) -> ParseResult:
    """``parse_json(text)`` for a ``text`` blank outside ``region`` (the shadow of a
    pack embedded in a larger file), in time linear in the region: the region is
    parsed alone (``parse_region``); a region that is not strict JSON is checked in
    the whole text, so that the diagnostic is the one ``parse_json`` gives."""
    if json_problem(text[region.start : region.end]) is not None:
        whole = parse_json(text)
        whole.region = region
        return whole
    return parse_region(text, region, lines)
