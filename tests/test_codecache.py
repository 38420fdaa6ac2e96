"""The cache of generated code (``core.base.codecache``): the methods ``dataclasses``
generates for the core's classes are compiled by the first process and reused by the
next ones, and a class made from the cache is the class ``dataclasses`` would make."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from pack_lsp.core.base import codecache

ROOT = Path(__file__).resolve().parents[1]

#: Imports the pack model and prints what the process compiled and what it found stored.
_PROBE = (
    "from pack_lsp.core.base import codecache\n"
    "import pack_lsp.core.model.pack.entities\n"
    "cache = codecache._CACHES['dataclasses']\n"
    "print(len(cache.new), len(cache.stored))\n"
)


def _run(prefix: Path, *, write: bool = True) -> tuple[int, int]:
    env = dict(os.environ, PYTHONPYCACHEPREFIX=str(prefix), PYTHONPATH=str(ROOT / "lsp"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if not write:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    out = subprocess.run(
        [sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    return int(out[0]), int(out[1])


def _files(prefix: Path) -> list[Path]:
    return sorted(prefix.rglob("generated-code.dataclasses.*.marshal"))


def test_a_second_process_compiles_no_dataclass_method(tmp_path: Path) -> None:
    compiled, stored = _run(tmp_path)
    assert compiled > 50 and stored == 0  # the pack model's ~27 classes, ~6 methods each
    assert len(_files(tmp_path)) == 1
    compiled, stored = _run(tmp_path)
    assert compiled == 0 and stored > 50


def test_nothing_is_written_when_bytecode_is_not(tmp_path: Path) -> None:
    compiled, _ = _run(tmp_path, write=False)
    assert compiled > 50
    assert _files(tmp_path) == []


def test_a_damaged_cache_file_is_compiled_again(tmp_path: Path) -> None:
    _run(tmp_path)
    (cache,) = _files(tmp_path)
    cache.write_bytes(cache.read_bytes()[:200])
    compiled, stored = _run(tmp_path)
    assert compiled > 50 and stored == 0
    cache.write_bytes(b"not a cache")
    compiled, stored = _run(tmp_path)
    assert compiled > 50 and stored == 0


def _make_class(module_name: str) -> type:
    """A frozen dataclass created in a module named ``module_name``."""
    module = types.ModuleType(module_name)
    sys.modules[module_name] = module
    try:
        exec(
            "from dataclasses import dataclass, field\n"
            "@dataclass(frozen=True, kw_only=True, slots=True)\n"
            "class Point:\n"
            "    x: int\n"
            "    y: int = 0\n"
            "    tags: tuple[str, ...] = ()\n"
            "    notes: list[str] = field(default_factory=list, compare=False)\n",
            module.__dict__,
        )
    finally:
        del sys.modules[module_name]
    cls: type = module.__dict__["Point"]
    return cls


def test_a_class_from_the_cache_behaves_as_one_compiled_for_it() -> None:
    codecache.route_dataclasses()
    cache = codecache._CACHES["dataclasses"]
    first = _make_class("pack_lsp.codecache_probe")
    codes = dict(cache.codes)
    second = _make_class("pack_lsp.codecache_probe")
    assert cache.codes == codes  # the second class compiled nothing
    plain = _make_class("codecache_probe")  # not ours: compiled as usual
    for cls in (first, second, plain):
        a = cls(x=1, tags=("t",))
        assert a == cls(x=1, tags=("t",), notes=["n"]) and a != cls(x=2)
        assert repr(a) == "Point(x=1, y=0, tags=('t',), notes=[])"
        assert cls(x=1).notes is not cls(x=1).notes  # type: ignore[attr-defined]
        assert hash(cls(x=1)) == hash(cls(x=1))
        with pytest.raises(dataclasses.FrozenInstanceError):
            a.x = 3  # type: ignore[attr-defined]
        with pytest.raises(TypeError):
            cls(1)  # keyword arguments only
        assert [f.name for f in dataclasses.fields(cls)] == ["x", "y", "tags", "notes"]


def test_released_code_is_compiled_again_when_needed() -> None:
    codecache.route_dataclasses()
    cache = codecache._CACHES["dataclasses"]
    _make_class("pack_lsp.codecache_release_probe")
    kept = dict(cache.codes)
    codecache.release()
    assert cache.stored == {} and cache.codes == kept
    cls = _make_class("pack_lsp.codecache_release_probe_two")
    assert cls(x=1) == cls(x=1)


def test_a_routed_module_compiles_each_expression_once() -> None:
    module = types.ModuleType("codecache_eval_probe")
    codecache.route_compile(module, "codecache-eval-probe")
    compile_ = module.compile  # type: ignore[attr-defined]
    cache = codecache._CACHES["codecache-eval-probe"]
    try:
        first = compile_("list[int] | None", "<string>", "eval")
        assert eval(first) == (list[int] | None)
        assert compile_("list[int] | None", "<string>", "eval") is first
        # The same text in ``exec`` mode is another code object (the key tells them apart).
        assert compile_("list[int] | None", "<string>", "exec") is not first
        with pytest.raises(SyntaxError):
            compile_("list[", "<string>", "eval")
        assert len(cache.new) == 2
    finally:  # nothing of this probe is written at exit
        cache.new.clear()
        del codecache._CACHES["codecache-eval-probe"]
