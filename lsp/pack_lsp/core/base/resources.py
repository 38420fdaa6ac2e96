"""Locating the JSON Schemas shipped with pack-lsp.

In a wheel the repository's ``schemas/`` directory is installed as
``pack_lsp/_schemas``; in a source checkout it is read from the repository.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

_PACKAGE_DIR = Path(__file__).resolve().parents[2]


def schema_dir() -> Path:
    installed = _PACKAGE_DIR / "_schemas"
    if installed.is_dir():
        return installed
    return _PACKAGE_DIR.parents[1] / "schemas"


@functools.cache
def load_schema(name: str) -> Any:
    """Load a schema by file name (cached; treat the result as read-only)."""
    with (schema_dir() / name).open(encoding="utf-8") as fh:
        return json.load(fh)
