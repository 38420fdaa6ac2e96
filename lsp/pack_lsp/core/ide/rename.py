"""Rename prompts, tools, fragments, variables and workflow states.

``prepare_rename`` says whether the name under the cursor can be renamed and which
characters it covers; ``rename`` returns the text edits that change every
occurrence at once: the defining key, the prompt's ``id`` and the tool's ``name``
when they equal the key, ``agents`` entry and member keys, ``tools`` items including
``a2a__<member>``, blocklists, workflow ``entry``/``prompt_task``/targets/
``on_max_visits`` and every template placeholder (in any fragment dialect).

A new name is refused (``RenameError``) when it breaks the pattern the schema gives
for that name or when it collides with an existing name. Each occurrence keeps its
quoting: a plain scalar stays plain unless the new name needs quotes, a quoted one
keeps its quote character.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from pack_lsp.core.base.resources import load_schema
from pack_lsp.core.base.text import Span
from pack_lsp.core.checks.analysis import Analysis
from pack_lsp.core.ide.index import (
    RENAMEABLE,
    Index,
    Kind,
    Occurrence,
    Role,
    SymbolId,
    definitions_of,
    index_for,
)
from pack_lsp.core.ide.textedits import Edit, _escape_double, _plain_ok, apply_edits, quote_like

__all__ = [
    "Edit",
    "RenameError",
    "RenameTarget",
    "apply_edits",
    "prepare_rename",
    "quote_like",
    "rename",
]


class RenameError(Exception):
    """A rename that cannot be done; the message says why in plain words."""


@dataclass(frozen=True, slots=True)
class RenameTarget:
    span: Span
    name: str
    symbol: SymbolId


# --------------------------------------------------------------------- name rules


@functools.cache
def _schema_patterns() -> dict[Kind, tuple[str, str]]:
    """(pattern, what it means) for names the schema constrains."""
    defs = load_schema("promptpack.schema.json").get("$defs", {})

    def pattern(defname: str, prop: str) -> tuple[str, str] | None:
        spec = defs.get(defname, {}).get("properties", {}).get(prop, {})
        if isinstance(spec, dict) and isinstance(spec.get("pattern"), str):
            hint = spec.get("x-pattern-hint") or f"of the form `{spec['pattern']}`"
            return spec["pattern"], str(hint)
        return None

    out: dict[Kind, tuple[str, str]] = {}
    for kind, (defname, prop) in {
        Kind.TOOL: ("Tool", "name"),
        Kind.VARIABLE: ("Variable", "name"),
        Kind.PROMPT: ("Prompt", "id"),
        Kind.STEP: ("Step", "id"),
        Kind.VALIDATOR: ("Validator", "id"),
    }.items():
        found = pattern(defname, prop)
        if found is not None:
            out[kind] = found
    return out


#: Fragment names appear inside placeholders, so they must read as one there.
_FRAGMENT_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")
#: Provider requirement keys (RFC 0012).
_PROVIDER_KEY = re.compile(r"^[a-zA-Z0-9_-]+$")


def _check_name(symbol: SymbolId, new: str, index: Index) -> None:
    what = symbol.kind.value
    if not new:
        raise RenameError(f"The new {what} name is empty")
    if new != new.strip() or any(ch in new for ch in "\r\n\t") or not new.isprintable():
        raise RenameError(
            f"`{new}` cannot be a {what} name: it has surrounding spaces or control characters"
        )
    if symbol.kind is Kind.PROMPT and any(o.role is Role.PROMPT_ID for o in index.all(symbol)):
        hint = _mismatch(Kind.PROMPT, new)
        if hint is not None:
            raise RenameError(
                f"`{new}` cannot be the key of prompt `{symbol.name}`: its `id` follows the "
                f"key, and a prompt id must be {hint}"
            )
    elif symbol.kind is Kind.PROVIDER and not _PROVIDER_KEY.match(new):
        raise RenameError(f"`{new}` is not a valid provider key: letters, digits, `_` and `-` only")
    elif symbol.kind in (Kind.TOOL, Kind.VARIABLE, Kind.STEP, Kind.VALIDATOR):
        hint = _mismatch(symbol.kind, new)
        if hint is not None:
            raise RenameError(f"`{new}` is not a valid {what} name: it must be {hint}")
    elif symbol.kind is Kind.FRAGMENT and not _FRAGMENT_NAME.match(new):
        raise RenameError(
            f"`{new}` is not a usable fragment name: templates refer to it in placeholders, so "
            "it must be letters, digits, `_` or `-`, not starting with a digit or `-`"
        )


def _mismatch(kind: Kind, new: str) -> str | None:
    """None when ``new`` fits the schema's pattern for ``kind``, else what it must be."""
    spec = _schema_patterns().get(kind)
    if spec is None or re.search(spec[0], new):
        return None
    return spec[1]


def _collisions(symbol: SymbolId, new: str, index: Index, scopes: set[str | None]) -> None:
    kind = symbol.kind
    if kind is Kind.VARIABLE:
        for scope in sorted(scopes, key=str):
            if new in index.defined(Kind.VARIABLE, scope):
                raise RenameError(f"Prompt `{scope}` already declares a variable named `{new}`")
        return
    if kind is Kind.STEP:
        if new in index.defined(Kind.STEP, symbol.scope):
            raise RenameError(f"Composition `{symbol.scope}` already has a step named `{new}`")
        return
    if new in index.defined(kind):
        article = "an" if kind.value[0] in "aeiou" else "a"
        raise RenameError(f"The pack already has {article} {kind.value} named `{new}`")
    if kind is Kind.TOOL and new in index.defined(Kind.PROMPT):
        raise RenameError(
            f"`{new}` is a prompt key: a tools item with that name would call the agent "
            "instead of the tool"
        )
    if (
        kind is Kind.PROMPT
        and new in index.defined(Kind.TOOL)
        and any(
            o.role in (Role.TOOL_ITEM, Role.BLOCKLIST, Role.MEMBER_KEY) for o in index.all(symbol)
        )
    ):
        raise RenameError(
            f"`{new}` is a tool key: tools items naming this agent would then call the tool"
        )


# ----------------------------------------------------------------------- targets


def _target(analysis: Analysis, offset: int) -> tuple[Index, list[SymbolId], Occurrence]:
    index = index_for(analysis)
    hits = index.at(offset)
    if not hits:
        raise RenameError("There is no prompt, tool, fragment, variable or state name here")
    symbols = list(dict.fromkeys(o.symbol for o in hits))
    kind = symbols[0].kind
    if kind not in RENAMEABLE:
        raise RenameError(f"A {kind.value} name cannot be renamed")
    for symbol in symbols:
        if not definitions_of(analysis, symbol):
            raise RenameError(
                f"The {kind.value} `{symbol.name}` is not defined in this pack, so there is "
                "nothing to rename; define it first"
            )
    return index, symbols, hits[0]


def prepare_rename(analysis: Analysis, offset: int) -> RenameTarget:
    if analysis.syntax_error:
        raise RenameError("The file has a YAML syntax error; fix it before renaming")
    _index, symbols, occ = _target(analysis, offset)
    return RenameTarget(occ.span, symbols[0].name, symbols[0])


def _variable_closure(index: Index, symbols: list[SymbolId]) -> list[SymbolId]:
    """Variables that must be renamed together because they share fragment text."""
    todo = list(symbols)
    seen: set[SymbolId] = set()
    while todo:
        sym = todo.pop()
        if sym in seen:
            continue
        seen.add(sym)
        for occ in index.all(sym):
            if occ.owner is not None and occ.owner.startswith("fragment:"):
                for other in index.by_symbol:
                    if (
                        other.kind is Kind.VARIABLE
                        and other.name == sym.name
                        and other not in seen
                        and any(o.span == occ.span for o in index.all(other))
                    ):
                        todo.append(other)
    return sorted(seen)


def rename(analysis: Analysis, offset: int, new_name: str) -> list[Edit]:
    """The edits renaming the symbol under ``offset`` to ``new_name``."""
    if analysis.syntax_error:
        raise RenameError("The file has a YAML syntax error; fix it before renaming")
    index, symbols, _occ = _target(analysis, offset)
    if symbols[0].kind is Kind.VARIABLE:
        symbols = _variable_closure(index, symbols)
    symbol = symbols[0]
    if new_name == symbol.name:
        return []
    _check_name(symbol, new_name, index)
    _collisions(symbol, new_name, index, {s.scope for s in symbols})
    text = analysis.text
    is_json = analysis.text.lstrip().startswith("{")
    edits: dict[Span, Edit] = {}
    for sym in symbols:
        for occ in index.all(sym):
            edit = _edit(text, occ, new_name, is_json)
            edits.setdefault(edit.span, edit)
    return sorted(edits.values(), key=lambda e: e.span)


def _edit(text: str, occ: Occurrence, new: str, is_json: bool) -> Edit:
    if occ.role is Role.PLACEHOLDER:
        return Edit(occ.span, new)
    whole = occ.node_span or occ.span
    quote = text[whole.start] if whole.length and text[whole.start] in "\"'" else ""
    full = occ.prefix + new
    if occ.exact:
        if quote == '"':
            return Edit(occ.span, _escape_double(new))
        if quote == "'":
            return Edit(occ.span, new.replace("'", "''"))
        if _plain_ok(full):
            return Edit(occ.span, new)
    # Rewrite the whole scalar, quoted in its own style (double quotes when it was plain).
    if quote == "'":
        return Edit(whole, "'" + full.replace("'", "''") + "'")
    return Edit(whole, '"' + _escape_double(full) + '"')
