"""PP015 — plain scalars that a YAML 1.1 loader reads differently.

pack-lsp, PromptKit and JSON read YAML 1.2, where ``yes``, ``no``, ``on``, ``off``,
``y`` and ``n`` are strings and ``1:30`` is a string. A YAML 1.1 loader — PyYAML, used
by the Python runtimes — reads the first six as booleans, ``1:30`` as the
sexagesimal number 90, and ``0755`` as the octal number 493 (YAML 1.2 reads 755).
A pack that means a string there changes meaning on such a loader.

Reported only where the difference matters: a key that is a *name* (a key of a
mapping of names — prompts, tools, states, ``on_event`` events, members, … — that
is, a mapping whose schema takes keys beyond its declared properties), or a value
where the schema expects a string (or a variable of `type: string` has it as its
`default` or `example`). The quick fix writes the scalar in double quotes,
which every loader reads as a string. Keys under ``independent_of`` are left to
PP102, which names the rename of ``on``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from pack_lsp.core.context import CheckContext
from pack_lsp.core.diagnostics import Diagnostic, FixKind, Rule, Severity, make
from pack_lsp.core.fixes import QuoteScalar
from pack_lsp.core.profiles import PROMPTKIT
from pack_lsp.core.schemawalk import PathItem, schemas_at
from pack_lsp.core.yamltree.navigate import resolve
from pack_lsp.core.yamltree.nodes import MappingNode, Node, ScalarNode, SequenceNode

CATEGORY = "YAML and JSON"

YAML11_READING = Rule(
    "PP015",
    "yaml11-reading",
    Severity.INFORMATION,
    "An unquoted `yes`/`no`/`on`/`off`/`y`/`n`, a sexagesimal-looking number (`1:30`) or "
    "a leading-zero octal (`0755`) is read differently by a YAML 1.1 loader such as "
    "PyYAML (a boolean, 90, 493) than by YAML 1.2; reported where the key is a name or "
    "the schema expects a string.",
    (
        "id: support\n"
        "name: Support\n"
        "version: 1.0.0\n"
        'template_engine: {version: v1, syntax: "{{variable}}"}\n'
        "prompts:\n"
        "  support: {id: support, name: Support, version: 1.0.0, system_template: Help}\n"
        "workflow:\n"
        "  version: 1\n"
        "  entry: ask\n"
        "  states:\n"
        "    ask:\n"
        "      prompt_task: support\n"
        "      on_event: {Yes: done, No: done}   # PyYAML reads these keys as true and false\n"
        "    done: {prompt_task: support, terminal: true}\n"
    ),
    'Quote the scalar (a quick fix does it): `"Yes"` is a string for every loader.',
    CATEGORY,
    fixes=(FixKind.QUOTE_SCALAR,),
)

RULES = (YAML11_READING,)

_BOOLS = frozenset(
    w
    for word in ("y", "n", "yes", "no", "on", "off")
    for w in (word, word.capitalize(), word.upper())
)
_SEXAGESIMAL = re.compile(r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?\Z")
_OCTAL = re.compile(r"[-+]?0[0-7_]+\Z")
#: The characters a candidate starts with (a cheap test before the patterns).
_STARTS = frozenset("yYnNoO0123456789+-")


def yaml11_reading(text: str) -> str | None:
    """How a YAML 1.1 loader reads the plain scalar ``text`` when that differs from
    YAML 1.2's string or number (``None``: the same)."""
    if text in _BOOLS:
        return "true" if text.lower() in ("y", "yes", "on") else "false"
    if _SEXAGESIMAL.match(text):
        sign = -1 if text.startswith("-") else 1
        whole, _, frac = text.lstrip("+-").replace("_", "").partition(".")
        value = 0
        for part in whole.split(":"):
            value = value * 60 + int(part)
        return f"the number {sign * value}{'.' + frac if frac else ''}"
    if _OCTAL.match(text) and text.strip("+-_0"):
        sign = -1 if text.startswith("-") else 1
        return f"the octal number {sign * int(text.lstrip('+-').replace('_', ''), 8)}"
    return None


def _candidate(node: Node) -> str | None:
    if not isinstance(node, ScalarNode) or node.style != "" or node.tag is not None:
        return None
    text = node.text
    if not text or text[0] not in _STARTS:
        return None
    return yaml11_reading(text)


def _expects_string(schemas: Iterable[dict[str, Any]]) -> bool:
    for schema in schemas:
        kind = schema.get("type")
        if kind == "string" or (isinstance(kind, list) and "string" in kind):
            return True
    return False


def _takes_names(schemas: Iterable[dict[str, Any]], key: str) -> bool:
    """Whether ``key`` is a name: the mapping takes keys beyond its properties."""
    found = False
    for schema in schemas:
        props = schema.get("properties")
        if isinstance(props, dict) and key in props:
            return False
        if isinstance(schema.get("additionalProperties"), dict) or isinstance(
            schema.get("patternProperties"), dict
        ):
            found = True
    return found


def _walk(
    node: Node | None, path: tuple[PathItem, ...]
) -> Iterator[tuple[str, ScalarNode, tuple[PathItem, ...], str]]:
    """(``key`` or ``value``, the scalar, the path of its mapping or of the value,
    the 1.1 reading) for every candidate; aliases are reported where their anchor is."""
    stack: list[tuple[Node, tuple[PathItem, ...]]] = [] if node is None else [(node, path)]
    while stack:
        current, at = stack.pop()
        if isinstance(current, MappingNode):
            for pair in reversed(current.pairs):
                key = pair.key_text
                if key is None or key == "<<":
                    continue
                reading = _candidate(pair.key)
                if reading is not None and isinstance(pair.key, ScalarNode):
                    yield "key", pair.key, at, reading
                stack.append((pair.value, (*at, key)))
        elif isinstance(current, SequenceNode):
            for index in range(len(current.items) - 1, -1, -1):
                stack.append((current.items[index], (*at, index)))
        else:
            reading = _candidate(current)
            if reading is not None and isinstance(current, ScalarNode):
                yield "value", current, at, reading


def _string_variable(root: Node, path: tuple[PathItem, ...]) -> bool:
    """Whether ``path`` is the ``default`` or ``example`` of a variable of type string."""
    if len(path) < 3 or path[-1] not in ("default", "example") or path[-3] != "variables":
        return False
    holder, _ = resolve(root, path[:-1])
    kind = holder.get("type") if isinstance(holder, MappingNode) else None
    return isinstance(kind, ScalarNode) and kind.value == "string"


_NUMBER_STARTS = frozenset("0123456789+-")


def _suspect_text(text: str) -> bool:
    if text in _BOOLS:
        return True
    # A number-like candidate has a `:` (sexagesimal) or starts with `0` (octal).
    return (
        text[:1] in _NUMBER_STARTS
        and (":" in text or "0" in text[:2])
        and yaml11_reading(text) is not None
    )


def _suspect(data: Any) -> bool:
    """Whether the plain data may hold a candidate: a key or string that reads
    differently, or a number given as a string variable's ``default``/``example``
    (written ``0755``?). Much cheaper than walking the tree, which is left for the
    packs where this finds something."""
    stack = [data]
    while stack:
        value = stack.pop()
        kind = type(value)
        if kind is dict:
            for key, item in value.items():
                if type(key) is str and _suspect_text(key):
                    return True
                of = type(item)
                if of is dict or of is list:
                    stack.append(item)
                elif of is str:
                    if _suspect_text(item):
                        return True
                elif of is int and key in ("default", "example") and value.get("type") == "string":
                    return True
        elif kind is list:
            for item in value:
                of = type(item)
                if of is dict or of is list:
                    stack.append(item)
                elif of is str and _suspect_text(item):
                    return True
    return False


def check(ctx: CheckContext) -> Iterable[Diagnostic]:
    if not _suspect(ctx.data):
        return
    root = ctx.root
    if root is None:
        return
    schema = PROMPTKIT if ctx.config.profile == PROMPTKIT else ctx.target.version
    for where, node, path, reading in _walk(root, ()):
        if where == "key":
            if path and path[-1] == "independent_of":
                continue
            if not _takes_names(schemas_at(path, schema), node.text):
                continue
            what = "a name"
        else:
            if not _expects_string(schemas_at(path, schema)) and not _string_variable(root, path):
                continue
            what = "a string where one is expected"
        if isinstance(node.value, str):
            message = (
                f"`{node.text}` is {what}, but a YAML 1.1 loader such as PyYAML reads it "
                f"as {reading}; quote it"
            )
        else:
            message = (
                f"`{node.text}` stands where a string is expected, but YAML 1.2 reads it as "
                f"the number {node.value} and a YAML 1.1 loader such as PyYAML as {reading}; "
                "quote it"
            )
        yield make(
            YAML11_READING,
            message,
            node.span,
            data={"kind": "yaml11-reading", "text": node.text, "reading": reading},
            fixes=(QuoteScalar(node.span, node.text),),
        )
