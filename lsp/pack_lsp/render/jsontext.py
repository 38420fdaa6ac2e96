"""``json.dumps(value, indent=2, ensure_ascii=False)``, written faster.

With ``indent`` set, the standard library encodes in pure Python through nested
generators (its C encoder only writes compact JSON): for the few hundred
diagnostics of a large pack that is most of the output's cost. This writer walks
the value once with one call per container and gives the same text, character for
character (a test compares them); numbers other than ``int`` and any other type
are left to ``json.dumps`` itself.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring  # the C version when available
from typing import Any

__all__ = ["dumps"]


def dumps(value: Any) -> str:
    """``json.dumps(value, indent=2, ensure_ascii=False)``."""
    parts: list[str] = []
    try:
        _write(value, "\n", parts)
    except _Unusual:
        return json.dumps(value, indent=2, ensure_ascii=False)
    return "".join(parts)


class _Unusual(Exception):
    """A dict key that is not a string: ``json.dumps`` converts those its own way."""


def _write(value: Any, newline: str, parts: list[str]) -> None:
    """Append ``value`` to ``parts``; ``newline`` is a line break and the current
    indentation (the text that starts each line of its content, less two spaces)."""
    cls = type(value)
    if cls is str:
        parts.append(encode_basestring(value))
    elif cls is dict:
        if not value:
            parts.append("{}")
            return
        inner = newline + "  "
        separator = "{" + inner
        for key, item in value.items():
            if type(key) is not str:
                raise _Unusual
            parts.append(separator + encode_basestring(key) + ": ")
            separator = "," + inner
            item_cls = type(item)
            if item_cls is str:
                parts.append(encode_basestring(item))
            elif item_cls is int:
                parts.append(int.__repr__(item))
            else:
                _write(item, inner, parts)
        parts.append(newline + "}")
    elif cls is list or cls is tuple:
        if not value:
            parts.append("[]")
            return
        inner = newline + "  "
        separator = "[" + inner
        for item in value:
            parts.append(separator)
            separator = "," + inner
            _write(item, inner, parts)
        parts.append(newline + "]")
    elif cls is int:
        parts.append(int.__repr__(value))
    elif value is None:
        parts.append("null")
    elif value is True:
        parts.append("true")
    elif value is False:
        parts.append("false")
    else:  # floats, subclasses of str/int/dict/list, ...: as the encoder writes them
        parts.append(json.dumps(value, indent=2, ensure_ascii=False).replace("\n", newline))
