"""What the PromptPack schema says about a place in a pack.

Given the data path of a mapping or value (``("prompts", "triage", "tool_policy")``),
find the subschemas that apply there — following ``$ref``, ``properties``,
``additionalProperties``, ``patternProperties``, ``items`` and the alternatives
of ``oneOf``/``anyOf``/``allOf`` — and read the documentation they carry: the keys
allowed with their descriptions, and the values (``enum``, ``const``, documented
``examples``, booleans).

Every function takes the schema to read (``schema``: a PromptPack version such as
``"1.4.0"``, or ``"promptkit"``), so editor help follows the version the pack
targets: keys a version lacks are not offered, and a key's hover tells the version
that introduced it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pack_lsp.core.base import versions
from pack_lsp.core.base.arena_schemas import SCHEMAS, TEMPLATE_SCHEMAS
from pack_lsp.core.model.config import Config
from pack_lsp.core.model.profiles import PROMPTKIT, target_of
from pack_lsp.core.model.recognize import PROMPTKIT_GROUPS
from pack_lsp.core.model.schemawalk import ARENA_PREFIX as ARENA_PREFIX
from pack_lsp.core.model.schemawalk import PathItem as PathItem
from pack_lsp.core.model.schemawalk import deref as _deref
from pack_lsp.core.model.schemawalk import schema_root as _root
from pack_lsp.core.model.schemawalk import schemas_at as schemas_at

LATEST = versions.LATEST


@dataclass(frozen=True, slots=True)
class PropertyDoc:
    """A key the schema allows in a mapping."""

    name: str
    description: str
    type: str  # a short type label, '' when unknown
    required: bool
    deprecated: bool = False
    since: str = ""  # the version that introduced the key ('' when it was always there)


@dataclass(frozen=True, slots=True)
class ValueDoc:
    """A value the schema lists for a place: from ``enum``/``const`` or ``examples``."""

    value: Any
    description: str
    source: str  # 'enum', 'example', 'boolean'

    @property
    def text(self) -> str:
        if isinstance(self.value, str):
            return self.value
        return json.dumps(self.value)


def schema_key(config: Config, data: Any) -> str:
    """Which schema documents a document: for a pack ``"promptkit"`` or the version
    it targets; for a document of an arena project, its kind's (``arena:<Kind>``)."""
    if isinstance(data, dict):
        api, kind = data.get("apiVersion"), data.get("kind")
        if (
            isinstance(api, str)
            and api.startswith(PROMPTKIT_GROUPS)
            and isinstance(kind, str)
            and (kind in SCHEMAS or kind in TEMPLATE_SCHEMAS)
        ):
            return ARENA_PREFIX + kind
    if config.profile == PROMPTKIT:
        return PROMPTKIT
    return target_of(config, data).version


def type_label(schema: dict[str, Any], root: dict[str, Any] | None = None) -> str:
    root = root if root is not None else _root()
    t = schema.get("type")
    if isinstance(t, list):
        return " | ".join(str(x) for x in t)
    if isinstance(t, str):
        if t == "array":
            items = schema.get("items")
            if isinstance(items, dict):
                inner = _deref(items, root).get("type")
                if isinstance(inner, str):
                    return f"array of {inner}"
        return t
    for keyword in ("oneOf", "anyOf"):
        alts = schema.get(keyword)
        if isinstance(alts, list):
            labels = [type_label(_deref(a, root), root) for a in alts]
            return " | ".join(dict.fromkeys(x for x in labels if x))
    return ""


def properties_at(path: Sequence[PathItem], schema_name: str = LATEST) -> dict[str, PropertyDoc]:
    """Keys the schema names for the mapping at ``path``, with their documentation."""
    root = _root(schema_name)
    out: dict[str, PropertyDoc] = {}
    for schema in schemas_at(path, schema_name):
        props = schema.get("properties")
        if not isinstance(props, dict):
            continue
        required = set(schema.get("required", ()) or ())
        for name, sub in props.items():
            resolved = _deref(sub, root)
            description = str(resolved.get("description", ""))
            if name in out:
                prev = out[name]
                out[name] = PropertyDoc(
                    name,
                    prev.description or description,
                    prev.type or type_label(resolved, root),
                    prev.required or name in required,
                    prev.deprecated,
                    prev.since,
                )
                continue
            since = sub.get("x-since") if isinstance(sub, dict) else None
            out[name] = PropertyDoc(
                name=name,
                description=description,
                type=type_label(resolved, root),
                required=name in required,
                deprecated=bool(resolved.get("deprecated", False)),
                since=since if isinstance(since, str) else "",
            )
    return out


def property_doc(path: Sequence[PathItem], schema: str = LATEST) -> PropertyDoc | None:
    """Documentation of the key that ends ``path`` (None for list items/unknown keys)."""
    if not path or not isinstance(path[-1], str):
        return None
    key = path[-1]
    known = properties_at(path[:-1], schema)
    if key in known:
        return known[key]
    # An entry of a map such as prompts/tools: describe the map's value schema.
    schemas = schemas_at(path, schema)
    if not schemas:
        return None
    for sub in schemas:
        description = sub.get("description")
        if isinstance(description, str) and description:
            return PropertyDoc(key, description, type_label(sub, _root(schema)), False)
    return None


def values_at(path: Sequence[PathItem], schema_name: str = LATEST) -> list[ValueDoc]:
    """Values documented for the place at ``path``: enums first, then examples."""
    out: list[ValueDoc] = []
    seen: set[str] = set()

    def add(value: Any, description: str, source: str) -> None:
        key = json.dumps(value, sort_keys=True)
        if key in seen:
            return
        seen.add(key)
        out.append(ValueDoc(value, description, source))

    schemas = schemas_at(path, schema_name)
    for schema in schemas:
        description = str(schema.get("description", ""))
        enum = schema.get("enum")
        if isinstance(enum, list):
            for v in enum:
                add(v, description, "enum")
        if "const" in schema:
            add(schema["const"], description, "enum")
    has_enum = bool(out)
    for schema in schemas:
        description = str(schema.get("description", ""))
        examples = schema.get("examples")
        if isinstance(examples, list) and not has_enum:
            for v in examples:
                if isinstance(v, str | int | float | bool):
                    add(v, description, "example")
        if schema.get("type") == "boolean" or (
            isinstance(schema.get("type"), list) and "boolean" in schema["type"]
        ):
            add(True, description, "boolean")
            add(False, description, "boolean")
    return out


def documentation(path: Sequence[PathItem], schema_name: str = LATEST) -> str:
    """A description of the place at ``path`` (used for hover on values)."""
    for schema in schemas_at(path, schema_name):
        description = schema.get("description")
        if isinstance(description, str) and description:
            return description
    return ""
