"""Names of a package loaded from their submodules on first use (PEP 562).

A package ``__init__`` that re-exports its submodules' names would import them all
as soon as any submodule is imported; with ``lazy_exports`` the package only says
where each name lives, and its module ``__getattr__`` imports that submodule when
the name is first read.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """The module ``__getattr__`` of ``package``: ``exports`` maps each name to the
    submodule (relative to ``package``) that defines it; a name once loaded is kept
    in the package, so the lookup runs once per name."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
