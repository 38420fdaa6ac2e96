"""Scalar resolution with the YAML 1.2 core schema (``yes``/``no`` are strings),
which is also right for JSON, and the standard tags a scalar may carry."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from pack_lsp.core.syntax.yamltree.nodes import Scalar

_INT_RE = re.compile(r"[-+]?[0-9]+\Z")
_OCT_RE = re.compile(r"0o[0-7]+\Z")
_HEX_RE = re.compile(r"0x[0-9a-fA-F]+\Z")
_FLOAT_RE = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?\Z")
_NULLS = frozenset({"", "~", "null", "Null", "NULL"})
_TRUES = frozenset({"true", "True", "TRUE"})
_FALSES = frozenset({"false", "False", "FALSE"})
#: The first characters of the plain scalars that may resolve to something other
#: than their text (the composer reads any other plain scalar as a string at once).
SPECIAL_START = frozenset("-+.0123456789nNtTfF~")
#: Longest integer literal read as an exact ``int``. Python refuses to convert
#: longer decimal strings (its 4,300-digit limit against quadratic conversion),
#: and a longer hex literal could not be printed in a message; such a literal is
#: read as an infinite float instead, which a typed field then reports as out of
#: range or of the wrong type.
MAX_INT_CHARS = 1000

TAG_PREFIX = "tag:yaml.org,2002:"
#: The standard tags a node may carry; any other tag is reported and ignored.
KNOWN_TAGS = frozenset(
    TAG_PREFIX + t for t in ("str", "int", "float", "bool", "null", "map", "seq")
)


def resolve_plain(text: str) -> Scalar:
    """Resolve an untagged plain scalar with the YAML 1.2 core schema."""
    if text and text[0] not in SPECIAL_START:
        return text
    if text in _NULLS:
        return None
    if text in _TRUES:
        return True
    if text in _FALSES:
        return False
    if len(text) > MAX_INT_CHARS and (
        _INT_RE.match(text) or _OCT_RE.match(text) or _HEX_RE.match(text)
    ):
        return -math.inf if text.startswith("-") else math.inf
    if _INT_RE.match(text):
        return int(text)
    if _OCT_RE.match(text):
        return int(text[2:], 8)
    if _HEX_RE.match(text):
        return int(text[2:], 16)
    if _FLOAT_RE.match(text):
        return float(text)
    lowered = text.lower()
    if lowered in (".inf", "+.inf"):
        return math.inf
    if lowered == "-.inf":
        return -math.inf
    if lowered == ".nan":
        return math.nan
    return text


def resolve_tagged(text: str, tag: str) -> Scalar | BadValue:
    """The value of a scalar with the standard tag ``tag`` (one of ``KNOWN_TAGS``),
    or what it should have been when ``text`` cannot be read so."""
    kind = tag[len(TAG_PREFIX) :]
    if kind == "str":
        return text
    value = resolve_plain(text)
    if kind == "null":
        return None if value is None else BadValue("null")
    if kind == "bool":
        return value if isinstance(value, bool) else BadValue("boolean")
    if kind == "int":
        return (
            value if isinstance(value, int) and not isinstance(value, bool) else BadValue("integer")
        )
    if kind == "float":
        if isinstance(value, bool) or not isinstance(value, int | float):
            return BadValue("number")
        return float(value)
    return BadValue(kind)


@dataclass(frozen=True, slots=True)
class BadValue:
    """A tagged scalar that cannot be read as its tag says: ``expected`` names what
    it should be (``"integer"``, ...)."""

    expected: str
