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

import functools
import re
from collections.abc import Iterable, Iterator
from typing import Any

from pack_lsp.core.base.diagnostics import Diagnostic, FixKind, Rule, Severity, make
from pack_lsp.core.base.example_pack import pack_example
from pack_lsp.core.base.fixes import QuoteScalar
from pack_lsp.core.base.problemdata import Yaml11Reading
from pack_lsp.core.model.config import Config
from pack_lsp.core.model.context import CheckContext
from pack_lsp.core.model.pack import Prompt
from pack_lsp.core.model.profiles import PROMPTKIT
from pack_lsp.core.model.schemawalk import LATEST, PathItem, schemas_at
from pack_lsp.core.model.summary import PromptContext
from pack_lsp.core.syntax.yamltree.navigate import resolve
from pack_lsp.core.syntax.yamltree.nodes import MappingNode, Node, ScalarNode, SequenceNode

CATEGORY = "YAML and JSON"

YAML11_READING = Rule(
    "PP015",
    "yaml11-reading",
    Severity.INFORMATION,
    "An unquoted `yes`/`no`/`on`/`off`/`y`/`n`, a sexagesimal-looking number (`1:30`) or "
    "a leading-zero octal (`0755`) is read differently by a YAML 1.1 loader such as "
    "PyYAML (a boolean, 90, 493) than by YAML 1.2; reported where the key is a name or "
    "the schema expects a string.",
    pack_example(
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
    the 1.1 reading) for every candidate; aliases are reported where their anchor is.
    Scalars are tested where they are met (most nodes are scalars, and most fail the
    first-character test), so a path is built only for collections and candidates."""
    if isinstance(node, ScalarNode):
        reading = _candidate(node)
        if reading is not None:
            yield "value", node, path, reading
        return
    stack: list[tuple[Node, tuple[PathItem, ...]]] = [] if node is None else [(node, path)]
    starts = _STARTS
    while stack:
        current, at = stack.pop()
        if isinstance(current, MappingNode):
            for pair in reversed(current.pairs):
                key = pair.key_text
                if key is None or key == "<<":
                    continue
                if key[:1] in starts:
                    reading = _candidate(pair.key)
                    if reading is not None and isinstance(pair.key, ScalarNode):
                        yield "key", pair.key, at, reading
                value = pair.value
                if type(value) is ScalarNode:
                    if value.style == "" and value.text[:1] in starts:
                        reading = _candidate(value)
                        if reading is not None:
                            yield "value", value, (*at, key), reading
                else:
                    stack.append((value, (*at, key)))
        elif isinstance(current, SequenceNode):
            items = current.items
            for index in range(len(items) - 1, -1, -1):
                item = items[index]
                if type(item) is ScalarNode:
                    if item.style == "" and item.text[:1] in starts:
                        reading = _candidate(item)
                        if reading is not None:
                            yield "value", item, (*at, index), reading
                else:
                    stack.append((item, (*at, index)))


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
    """Whether plain data may hold a candidate: a key or string that reads differently,
    or a number given as a string variable's ``default``/``example`` (written
    ``0755``?). Much cheaper than walking the tree, which is left for the sections
    where this finds something."""
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
        elif kind is str and _suspect_text(value):
            return True
    return False


def _string_variable(holder: Node | None) -> bool:
    """Whether ``holder`` is a variable of ``type: string`` (its ``default`` and
    ``example`` are then strings)."""
    kind = holder.get("type") if isinstance(holder, MappingNode) else None
    return isinstance(kind, ScalarNode) and kind.value == "string"


def _schema(config: Config) -> str:
    """The schema that says what a place expects: PromptKit's under that profile, else
    the latest (a property's type does not change between versions; the per-prompt part
    sees no targeted version)."""
    return PROMPTKIT if config.profile == PROMPTKIT else LATEST


def _diagnostics(root: Node, path: tuple[PathItem, ...], schema: str) -> Iterator[Diagnostic]:
    """PP015 for every candidate under ``root``, which is at data ``path``."""
    for where, node, at, reading in _walk(root, path):
        if where == "key":
            if at and at[-1] == "independent_of":
                continue
            if not _takes_names(schemas_at(at, schema), node.text):
                continue
            what = "a name"
        else:
            expected = _expects_string(schemas_at(at, schema))
            if not expected and len(at) >= 3 and at[-1] in ("default", "example"):
                expected = at[-3] == "variables" and _string_variable(_parent(root, path, at))
            if not expected:
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
            data=Yaml11Reading(text=node.text, reading=reading),
            fixes=(QuoteScalar(node.span, node.text),),
        )


def _parent(root: Node, path: tuple[PathItem, ...], at: tuple[PathItem, ...]) -> Node | None:
    """The mapping holding the value at ``at`` (``root`` is at ``path``)."""
    found, _ = resolve(root, at[len(path) : -1])
    return found


def check_prompt(ctx: PromptContext, prompt: Prompt) -> Iterable[Diagnostic]:
    """The prompt's own scalars: rerun only when the prompt is edited."""
    if prompt.node is None:
        return
    yield from _diagnostics(prompt.node, ("prompts", prompt.key), _schema(ctx.summary.config))


def check(ctx: CheckContext) -> Iterable[Diagnostic]:
    """Every top-level section but ``prompts`` (the per-prompt part has those). Each is
    read as plain data first, which records what the results depend on; only a
    section whose data holds a candidate is looked at in the tree (which makes the
    results recomputed after every edit, in those packs only)."""
    schema = _schema(ctx.config)
    suspects = [
        name for name in _sections(schema) if name != "prompts" and _suspect(ctx.part(name))
    ]
    root = ctx.root if suspects else None
    if not isinstance(root, MappingNode):
        return
    for name in suspects:
        pair = root.pair(name)
        if pair is not None:
            yield from _diagnostics(pair.value, (name,), schema)


@functools.cache
def _sections(schema: str) -> tuple[str, ...]:
    """The top-level properties the schema declares."""
    names: dict[str, None] = {}
    for sub in schemas_at((), schema):
        props = sub.get("properties")
        if isinstance(props, dict):
            names.update(dict.fromkeys(props))
    return tuple(names)
