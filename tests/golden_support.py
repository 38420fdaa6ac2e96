"""Golden case files: an input pack and the exact diagnostics it must produce.

A case is ``tests/golden/<area>/<name>.yaml`` (or ``.json``, or ``.bin`` for raw
bytes) with ``<name>.expected`` beside it: one line per diagnostic,
``L:C-L:C severity CODE message`` (1-based lines and columns in code points, end
exclusive). An optional ``<name>.toml`` holds pack-lsp configuration for the case.

Regenerate after an intended change with ``PACK_LSP_UPDATE_GOLDEN=1 pytest
tests/test_golden.py`` and review the diff: the expected files are the spec.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

from pack_lsp.core import kinds
from pack_lsp.core.analysis import Analysis, analyze
from pack_lsp.core.config import Config, from_mapping
from pack_lsp.core.source import decode

GOLDEN = Path(__file__).parent / "golden"
INPUT_SUFFIXES = (".yaml", ".yml", ".json", ".bin")
UPDATE = os.environ.get("PACK_LSP_UPDATE_GOLDEN") == "1"


def cases() -> list[Path]:
    return sorted(p for p in GOLDEN.rglob("*") if p.suffix in INPUT_SUFFIXES)


def case_id(path: Path) -> str:
    return path.relative_to(GOLDEN).as_posix()


def case_config(path: Path) -> Config:
    toml = path.with_suffix(".toml")
    if toml.is_file():
        with toml.open("rb") as fh:
            return from_mapping(tomllib.load(fh), str(toml))
    return Config()


def run_case(path: Path) -> Analysis:
    text, pre = decode(path.read_bytes())
    return analyze(
        text,
        path=path,
        config=case_config(path),
        kind=kinds.PROMPTPACK,
        pre_diagnostics=pre,
    )


def render(analysis: Analysis) -> str:
    lines = []
    for d in analysis.diagnostics:
        r = analysis.lines.range(d.span)
        lines.append(
            f"{r.start.line + 1}:{r.start.character + 1}-{r.end.line + 1}:{r.end.character + 1} "
            f"{d.severity.label} {d.code} {d.message}"
        )
    return "\n".join(lines) + ("\n" if lines else "")
