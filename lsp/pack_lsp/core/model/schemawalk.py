"""Walking the PromptPack schema to a place in a pack.

Given the data path of a mapping or value (``("prompts", "triage", "tool_policy")``),
find the subschemas that apply there — following ``$ref``, ``properties``,
``additionalProperties``, ``patternProperties``, ``items`` and the alternatives of
``oneOf``/``anyOf``/``allOf``. The editor's schema documentation
(``core/ide/schema_docs.py``) and the rules that need to know what a place
expects both read the schema through here. ``schema`` is a PromptPack version such
as ``"1.4.0"``, ``"promptkit"``, or ``"arena:<Kind>"`` for a document of an arena project.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import cache
from typing import Any

from pack_lsp.core.base import versions
from pack_lsp.core.base.arena_schemas import schema_of
from pack_lsp.core.model.config import Profile
from pack_lsp.core.model.profiles import PROMPTKIT, profile_schema

PathItem = str | int

LATEST = versions.LATEST


#: How a schema name names the schema of a PromptKit kind (``arena:Tool``).
ARENA_PREFIX = "arena:"


@cache
def schema_root(schema: str = LATEST) -> dict[str, Any]:
    if schema.startswith(ARENA_PREFIX):
        found = schema_of(schema.removeprefix(ARENA_PREFIX))
        return found if found is not None else {}
    if schema == PROMPTKIT:
        return profile_schema(PROMPTKIT)
    return profile_schema(Profile.SPEC, schema)


def deref(schema: Any, root: dict[str, Any]) -> dict[str, Any]:
    seen = 0
    while isinstance(schema, dict) and "$ref" in schema and seen < 20:
        ref = schema["$ref"]
        if not isinstance(ref, str) or not ref.startswith("#/"):
            break
        target: Any = root
        for part in ref[2:].split("/"):
            target = (
                target.get(part.replace("~1", "/").replace("~0", "~"), {})
                if isinstance(target, dict)
                else {}
            )
        # Keep sibling keywords (a description next to a $ref documents the use site).
        siblings = {k: v for k, v in schema.items() if k != "$ref"}
        schema = {**target, **siblings} if siblings else target
        seen += 1
    return schema if isinstance(schema, dict) else {}


def _expand(schema: Any, root: dict[str, Any], depth: int = 0) -> Iterator[dict[str, Any]]:
    """The schema and every alternative/conjunct it contains, references resolved."""
    s = deref(schema, root)
    if not s or depth > 8:
        return
    yield s
    for keyword in ("allOf", "anyOf", "oneOf"):
        for sub in s.get(keyword, ()) or ():
            yield from _expand(sub, root, depth + 1)
    for keyword in ("then", "else"):
        if keyword in s:
            yield from _expand(s[keyword], root, depth + 1)


def _children(
    schema: dict[str, Any], step: PathItem, root: dict[str, Any]
) -> Iterator[dict[str, Any]]:
    if isinstance(step, int):
        items = schema.get("items")
        if isinstance(items, dict):
            yield from _expand(items, root)
        return
    props = schema.get("properties")
    if isinstance(props, dict) and step in props:
        yield from _expand(props[step], root)
        return
    patterns = schema.get("patternProperties")
    matched = False
    if isinstance(patterns, dict):
        for pattern, sub in patterns.items():
            try:
                if re.search(pattern, step):
                    matched = True
                    yield from _expand(sub, root)
            except re.error:
                continue
    if not matched:
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            yield from _expand(extra, root)


def schemas_at(path: Sequence[PathItem], schema: str = LATEST) -> list[dict[str, Any]]:
    """Every subschema that applies at ``path`` (empty when the place is unknown)."""
    return list(_schemas_at(tuple(path), schema))


@cache
def _schemas_at(path: tuple[PathItem, ...], schema_name: str) -> tuple[dict[str, Any], ...]:
    root = schema_root(schema_name)
    current = list(_expand(root, root))
    for step in path:
        nxt: list[dict[str, Any]] = []
        for schema in current:
            nxt.extend(_children(schema, step, root))
        current = nxt
        if not current:
            break
    unique: list[dict[str, Any]] = []
    for s in current:
        if not any(s is u for u in unique):
            unique.append(s)
    return tuple(unique)
