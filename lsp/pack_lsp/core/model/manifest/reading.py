"""A manifest's values as yodoca reads them: PyYAML, then pydantic in lax mode.

yodoca loads ``manifest.yaml`` with PyYAML's ``safe_load``, which reads YAML 1.1:
an unquoted ``yes``/``no``/``on``/``off`` is a boolean, ``0755`` an octal number,
``1:30`` the sexagesimal 90, while ``1e3`` (no dot) stays a string. The result is
validated by a pydantic model in lax mode, which turns ``"10"`` or ``10.0`` into
the integer 10 and ``"yes"``, ``1`` or ``"off"`` into booleans where the field is one.

:func:`manifest_data` gives the plain data of a manifest's tree read that way: the
YAML 1.1 values first, then, where the manifest's schema declares a boolean or an
integer, the value pydantic would make of it. Validating that data against the
schema therefore refuses exactly the values yodoca refuses. Dates (which PyYAML
reads as ``datetime.date``) are kept as their text.
"""

from __future__ import annotations

import math
import re
from typing import Any

from pack_lsp.core.syntax.yamltree.nodes import (
    AliasNode,
    MappingNode,
    Node,
    ScalarNode,
    SequenceNode,
)

_BOOLS = {
    **{w: True for w in ("yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON")},
    **{w: False for w in ("no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF")},
}
_NULLS = frozenset({"", "~", "null", "Null", "NULL"})
_INT = re.compile(
    r"[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+"
    r"|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+"
)
_FLOAT = re.compile(
    r"[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?"
    r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)"
)
#: Longest integer text converted exactly (as the YAML 1.2 reader does).
_MAX_INT_CHARS = 1000


def _sexagesimal(text: str) -> float:
    value = 0.0
    for part in text.split(":"):
        value = value * 60 + float(part)
    return value


def _int11(text: str) -> int | float:
    sign = -1 if text.startswith("-") else 1
    body = text.lstrip("+-").replace("_", "")
    if len(body) > _MAX_INT_CHARS:
        return sign * math.inf
    if body == "0":
        return 0
    if body.startswith("0b"):
        return sign * int(body[2:], 2)
    if body.startswith("0x"):
        return sign * int(body[2:], 16)
    if body.startswith("0"):
        return sign * int(body, 8)
    if ":" in body:
        return sign * int(_sexagesimal(body))
    return sign * int(body)


def _float11(text: str) -> float:
    body = text.replace("_", "").lower()
    sign = -1.0 if body.startswith("-") else 1.0
    body = body.lstrip("+-")
    if body == ".inf":
        return sign * math.inf
    if body == ".nan":
        return math.nan
    if ":" in body:
        return sign * _sexagesimal(body)
    return sign * float(body)


def yaml11_plain(text: str) -> Any:
    """The value PyYAML's ``safe_load`` gives the untagged plain scalar ``text``."""
    if text in _NULLS:
        return None
    if text in _BOOLS:
        return _BOOLS[text]
    if _INT.fullmatch(text):
        return _int11(text)
    if _FLOAT.fullmatch(text):
        return _float11(text)
    return text


def _scalar(node: ScalarNode) -> Any:
    if node.style == "" and node.tag is None:
        return yaml11_plain(node.text)
    return node.value


def yaml11_data(node: Node | None) -> Any:
    """Plain data of ``node`` with YAML 1.1 scalars (merges applied, aliases expanded)."""
    if isinstance(node, AliasNode):
        return yaml11_data(node.target)
    if isinstance(node, ScalarNode):
        return _scalar(node)
    if isinstance(node, MappingNode):
        return {k: yaml11_data(p.value) for k, p in node.effective.items()}
    if isinstance(node, SequenceNode):
        return [yaml11_data(i) for i in node.items]
    return None


_TRUE_WORDS = frozenset({"1", "on", "t", "true", "y", "yes"})
_FALSE_WORDS = frozenset({"0", "off", "f", "false", "n", "no"})
_INT_TEXT = re.compile(r"\s*[-+]?[0-9]+(?:_[0-9]+)*(?:\.0*)?\s*")
_INT64 = 2**63


def lax_bool(value: Any) -> bool | None:
    """What pydantic's lax ``bool`` makes of ``value`` (``None``: it refuses it)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        word = value.lower()
        if word in _TRUE_WORDS:
            return True
        if word in _FALSE_WORDS:
            return False
    return None


def lax_int(value: Any) -> int | None:
    """What pydantic's lax ``int`` makes of ``value`` (``None``: it refuses it)."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if math.isfinite(value) and value.is_integer() and abs(value) < _INT64:
            return int(value)
        return None
    if isinstance(value, str) and len(value) <= _MAX_INT_CHARS and _INT_TEXT.fullmatch(value):
        return int(float(value.replace("_", ""))) if "." in value else int(value.replace("_", ""))
    return None


def _types(schema: dict[str, Any]) -> tuple[str, ...]:
    kind = schema.get("type")
    if isinstance(kind, str):
        return (kind,)
    return tuple(k for k in kind if isinstance(k, str)) if isinstance(kind, list) else ()


def _resolve(schema: Any, root: dict[str, Any]) -> dict[str, Any]:
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
        target: Any = root
        for part in schema["$ref"].removeprefix("#/").split("/"):
            target = target.get(part) if isinstance(target, dict) else None
        schema = target
    return schema if isinstance(schema, dict) else {}


def lax(data: Any, schema: Any, root: dict[str, Any]) -> Any:
    """``data`` with the booleans and integers pydantic's lax mode would make of it,
    where ``schema`` (resolved in ``root``) declares a boolean or an integer field."""
    resolved = _resolve(schema, root)
    types = _types(resolved)
    if isinstance(data, dict):
        props = resolved.get("properties")
        if not isinstance(props, dict):
            return data
        return {k: lax(v, props[k], root) if k in props else v for k, v in data.items()}
    if isinstance(data, list):
        items = resolved.get("items")
        return [lax(v, items, root) for v in data] if isinstance(items, dict) else data
    if "boolean" in types and not isinstance(data, bool):
        coerced_bool = lax_bool(data)
        return data if coerced_bool is None else coerced_bool
    if "integer" in types and not (isinstance(data, int) and not isinstance(data, bool)):
        coerced_int = lax_int(data)
        return data if coerced_int is None else coerced_int
    return data
