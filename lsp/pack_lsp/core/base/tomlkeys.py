"""Where a key of a TOML file is written, for edits of a configuration file.

The configuration is read with ``tomllib``, which keeps no positions. A quick fix
that renames a key of ``.pack-lsp.toml`` (``[cards.agents.researchr]`` →
``researcher``) needs the characters to replace: ``rename_key`` finds every place
the key is written — in table headers (``[cards.agents.researchr]``,
``[[cards.agents.researchr.extensions]]``) and in dotted keys
(``researchr.url = ...`` under ``[cards.agents]``) — and checks its answer by
parsing the renamed text: the edits are returned only when the result is the same
configuration with that one key renamed. Anything it does not follow (a key inside
an inline table, a file that does not parse) gives no edits rather than a guess.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from typing import Any

from pack_lsp.core.base.text import Span

_BARE = re.compile(r"[A-Za-z0-9_-]+")
_BASIC = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_LITERAL = re.compile(r"'[^'\n]*'")
_SPACE = re.compile(r"[ \t]*")


def bare_or_quoted(key: str) -> str:
    """``key`` as TOML writes it: bare when it can be, else a basic string."""
    return key if _BARE.fullmatch(key) else json.dumps(key, ensure_ascii=False)


def _decode(raw: str) -> str | None:
    if raw.startswith("'"):
        return raw[1:-1]
    if raw.startswith('"'):
        import tomllib

        try:
            value = tomllib.loads(f"k = {raw}")["k"]
        except tomllib.TOMLDecodeError:
            return None
        return value if isinstance(value, str) else None
    return raw


def _dotted_key(line: str, at: int) -> tuple[list[tuple[str, Span]], int] | None:
    """The parts of the dotted key starting at ``at`` of ``line`` (offsets in the
    line) and where it ends, or ``None`` when no key starts there."""
    parts: list[tuple[str, Span]] = []
    pos = at
    while True:
        pos = _SPACE.match(line, pos).end()  # type: ignore[union-attr]
        match = _BASIC.match(line, pos) or _LITERAL.match(line, pos) or _BARE.match(line, pos)
        if match is None:
            return None
        name = _decode(match.group(0))
        if name is None:
            return None
        parts.append((name, Span(match.start(), match.end())))
        pos = _SPACE.match(line, match.end()).end()  # type: ignore[union-attr]
        if pos < len(line) and line[pos] == ".":
            pos += 1
            continue
        return parts, pos


def _key_paths(text: str) -> Iterator[list[tuple[str, Span]]]:
    """Every table header and key of ``text`` as its full path, each part with its
    span in ``text`` (inherited parts of a table's path carry an empty span)."""
    table: list[tuple[str, Span]] = []
    offset = 0
    in_string: str | None = None
    for line in text.splitlines(keepends=True):
        start = offset
        offset += len(line)
        body = line.rstrip("\r\n")
        if in_string is not None:  # inside a multi-line string value
            if body.count(in_string) % 2 == 1:
                in_string = None
            continue
        stripped = body.lstrip(" \t")
        lead = len(body) - len(stripped)
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("["):
            double = stripped.startswith("[[")
            found = _dotted_key(body, lead + (2 if double else 1))
            if found is None:
                continue
            parts, _ = found
            table = [(name, span.shifted(start)) for name, span in parts]
            yield table
            continue
        found = _dotted_key(body, lead)
        if found is None:
            continue
        parts, end = found
        if end >= len(body) or body[end] != "=":
            continue
        inherited = [(name, Span(0, 0)) for name, _ in table]
        yield inherited + [(name, span.shifted(start)) for name, span in parts]
        value = body[end + 1 :].lstrip(" \t")
        for quote in ('"""', "'''"):
            if value.startswith(quote) and value.count(quote) == 1:
                in_string = quote


def _renamed(data: Any, path: Sequence[str], new: str) -> Any:
    """``data`` with the key at ``path`` renamed ``new`` (in place of its order)."""
    if not isinstance(data, dict):
        return data
    head, *rest = path
    if rest:
        return {k: _renamed(v, rest, new) if k == head else v for k, v in data.items()}
    return {new if k == head else k: v for k, v in data.items()}


def _has(data: Any, path: Sequence[str]) -> bool:
    for step in path:
        if not isinstance(data, dict) or step not in data:
            return False
        data = data[step]
    return True


def rename_key(text: str, path: Sequence[str], new: str) -> tuple[Span, ...]:
    """The spans of ``text`` to replace with ``bare_or_quoted(new)`` so that the key at
    ``path`` (e.g. ``("cards", "agents", "researchr")``) is renamed ``new``.

    Empty when the key is not found where the file writes it, when ``new`` is taken,
    or when the renamed text would not parse as the same configuration with that
    key renamed.
    """
    import tomllib

    if not path:
        return ()
    depth = len(path)
    targets: list[Span] = []
    for parts in _key_paths(text):
        if len(parts) < depth or [name for name, _ in parts[:depth]] != list(path):
            continue
        span = parts[depth - 1][1]
        if span.length and span not in targets:
            targets.append(span)
    if not targets:
        return ()
    written = bare_or_quoted(new)
    out: list[str] = []
    pos = 0
    for span in sorted(targets, key=lambda s: s.start):
        out.append(text[pos : span.start])
        out.append(written)
        pos = span.end
    out.append(text[pos:])
    try:
        before = tomllib.loads(text)
        after = tomllib.loads("".join(out))
    except tomllib.TOMLDecodeError:
        return ()
    if not _has(before, path) or _has(before, [*path[:-1], new]):
        return ()
    if after != _renamed(before, path, new):
        return ()
    return tuple(sorted(targets, key=lambda s: s.start))
