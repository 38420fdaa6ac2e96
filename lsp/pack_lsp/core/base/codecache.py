"""Generated code, compiled once and reused across processes.

Some classes are built by generating the source of their methods and compiling it
when the class is created: ``dataclasses`` does it for ours (``__init__``,
``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__``...), attrs for the ~570 classes
of ``lsprotocol.types``, cattrs for each message type it converts. The source depends
on the class alone, so the compiled code is the same in every process; compiling it
is a large part of a start-up (about a quarter of a ``pack-lsp --check``, a third of
the language server's imports).

A ``CodeCache`` keeps that code as marshalled code objects keyed by their exact
source text (and file name), in a file next to this module's bytecode
(``__pycache__``, or below ``PYTHONPYCACHEPREFIX``), the way Python keeps a module's
bytecode; the file starts with the interpreter's bytecode magic number. A library is
routed through it by putting a caching ``exec`` or ``compile`` in its module's
namespace, where the library's calls look the name up before the builtins. A text
already compiled runs from the cache, any other is compiled as before; an entry is
used only for the exact text it was compiled from, so a missing, unreadable or stale
file costs the compiles it would have saved and never changes a class.

The file is written at exit, or by ``save_all()`` for a process that ends itself
with ``os._exit``, merged with what other processes wrote, and not at all when
writing bytecode is switched off (``PYTHONDONTWRITEBYTECODE``).
"""

from __future__ import annotations

import atexit
import builtins
import dataclasses
import importlib.util
import marshal
import os
import sys
import threading
from pathlib import Path
from types import CodeType, ModuleType
from typing import Any

#: More entries than this in a file (old code piling up): it starts afresh.
MAX_ENTRIES = 20_000

_CACHES: dict[str, CodeCache] = {}
_LOCK = threading.Lock()


def cache_file(name: str) -> Path | None:
    """Where the cache ``name`` is kept (None when this interpreter keeps no bytecode)."""
    tag = sys.implementation.cache_tag
    if tag is None:
        return None
    try:
        pyc = Path(importlib.util.cache_from_source(__file__))
    except (NotImplementedError, ValueError):
        return None
    return pyc.with_name(f"generated-code.{name}.{tag}.marshal")


def _read(path: Path) -> dict[str, bytes]:
    try:
        raw = path.read_bytes()
    except OSError:
        return {}
    magic = importlib.util.MAGIC_NUMBER
    if raw[: len(magic)] != magic:
        return {}
    try:
        found = marshal.loads(raw[len(magic) :])
    except (EOFError, ValueError, TypeError):
        return {}
    if not isinstance(found, dict):
        return {}
    return {k: v for k, v in found.items() if isinstance(k, str) and isinstance(v, bytes)}


class CodeCache:
    """The compiled code of one file (see the module docstring)."""

    def __init__(self, name: str) -> None:
        self.file = cache_file(name)
        #: Key -> marshalled code, as read from the file (decoded on first use).
        self.stored = _read(self.file) if self.file is not None else {}
        self.codes: dict[str, CodeType] = {}
        #: What this process compiled, to be written.
        self.new: dict[str, bytes] = {}

    def code(self, key: str, source: str, filename: str, mode: str = "exec") -> CodeType:
        """The code of ``source`` compiled in ``mode`` as ``filename`` (``key`` tells
        every input of the compile apart)."""
        code = self.codes.get(key)
        if code is not None:
            return code
        stored = self.stored.get(key)
        if stored is not None:
            try:
                found = marshal.loads(stored)
            except (EOFError, ValueError, TypeError):
                found = None
            if isinstance(found, CodeType):
                self.codes[key] = found
                return found
        code = builtins.compile(source, filename, mode)
        with _LOCK:
            self.codes[key] = code
            self.new[key] = marshal.dumps(code)
        return code

    def save(self) -> None:
        """Write what this process compiled, merged with the file's entries."""
        if not self.new or self.file is None or sys.dont_write_bytecode:
            return
        with _LOCK:
            new, self.new = self.new, {}
        try:
            merged = _read(self.file)
            if len(merged) + len(new) > MAX_ENTRIES:
                merged = {}
            merged.update(new)
            self.file.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.file.with_name(f"{self.file.name}.{os.getpid()}.tmp")
            tmp.write_bytes(importlib.util.MAGIC_NUMBER + marshal.dumps(merged))
            os.replace(tmp, self.file)
        except (OSError, ValueError):
            return


def _cache(name: str) -> CodeCache:
    with _LOCK:
        found = _CACHES.get(name)
        if found is None:
            if not _CACHES:
                atexit.register(save_all)
            found = _CACHES[name] = CodeCache(name)
    return found


def save_all() -> None:
    """Write every cache of this process (at exit; see the module docstring)."""
    for cache in list(_CACHES.values()):
        cache.save()


def release() -> None:
    """Forget the stored code not decoded so far (a long-running process, once warmed
    up, keeps only the code of its classes; a class created later is compiled)."""
    for cache in list(_CACHES.values()):
        cache.stored = {}


def route_dataclasses(prefix: str = "pack_lsp.") -> None:
    """Cache the methods ``dataclasses`` generates for the classes of the modules
    named ``prefix...`` (its ``exec`` calls get the source text only)."""
    if getattr(dataclasses, "exec", None) is not None:
        return
    cache = _cache("dataclasses")

    def cached_exec(source: Any, globals: Any = None, locals: Any = None, /) -> None:
        if (
            isinstance(source, str)
            and isinstance(globals, dict)
            and str(globals.get("__name__", "")).startswith(prefix)
        ):
            source = cache.code(source, source, "<string>")
        builtins.exec(source, globals, locals)

    dataclasses.exec = cached_exec  # type: ignore[attr-defined]


def route_compile(module: ModuleType, name: str) -> None:
    """Cache, in the cache ``name``, the code ``module`` compiles with ``compile``
    (a library that generates the methods of its classes, such as attrs or cattrs, in
    ``exec`` mode; ``typing``, which compiles each forward reference it evaluates, in
    ``eval`` mode)."""
    if getattr(module, "compile", None) is not None:
        return
    cache = _cache(name)

    def cached_compile(
        source: Any,
        filename: Any,
        mode: str,
        flags: int = 0,
        dont_inherit: bool = False,
        optimize: int = -1,
    ) -> Any:
        if (
            isinstance(source, str)
            and isinstance(filename, str)
            and mode in ("exec", "eval")
            and not flags
            and not dont_inherit
            and optimize == -1
        ):
            key = f"{filename}\0{source}" if mode == "exec" else f"{mode}\0{filename}\0{source}"
            return cache.code(key, source, filename, mode)
        return builtins.compile(source, filename, mode, flags, dont_inherit, optimize)

    module.compile = cached_compile  # type: ignore[attr-defined]
