"""The real-world corpus: YAML/schema diagnostics agree with the official v1.4 schema.

Measured on the YAML and schema layers (PP0xx/PP1xx): the semantic rules report real
problems in many "valid" packs (undefined tools, undeclared variables), which the
official schema cannot see and which are checked separately.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pack_lsp.cli.check import check_file
from pack_lsp.core.config import Config
from pack_lsp.core.diagnostics import Severity
from pack_lsp.core.text import Span
from pack_lsp.core.yamltree import parse, resolve
from paths import SHARED

CORPUS = SHARED / "corpus"
if not CORPUS.is_dir():  # pragma: no cover
    pytest.skip("shared corpus not available", allow_module_level=True)

LAYERS = Config(select=("PP0", "PP1"))
MANIFEST = json.loads((CORPUS / "manifest.json").read_text(encoding="utf-8"))
VALID = sorted(p for p in (CORPUS / "valid").glob("*") if p.suffix in (".json", ".yaml", ".yml"))
WITH_ERRORS = [e for e in MANIFEST if e["spec_v1_4_errors"]]


def _pointer_path(pointer: str) -> list[str | int]:
    if pointer in ("", "/"):
        return []
    steps: list[str | int] = []
    for raw in pointer.lstrip("/").split("/"):
        step = raw.replace("~1", "/").replace("~0", "~")
        steps.append(int(step) if step.isdigit() else step)
    return steps


def _region(text: str, pointer: str) -> Span:
    """The node a pointer designates, from its key (when it has one) to its value's end."""
    root = parse(text).root
    path = _pointer_path(pointer)
    if not path:
        return Span(0, len(text))
    node, pair = resolve(root, path)
    if node is None and pair is None and isinstance(path[-1], int):
        node, pair = resolve(root, [*path[:-1], str(path[-1])])
    assert node is not None, f"pointer {pointer} does not resolve"
    start = pair.key.span.start if pair is not None else node.span.start
    return Span(start, max(node.span.end, start))


def test_corpus_is_present() -> None:
    assert len(VALID) > 50
    assert len(WITH_ERRORS) >= 10


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_valid_pack_has_no_schema_or_yaml_errors(path: Path) -> None:
    result = check_file(path, True, LAYERS)
    errors = [d for d in result.diagnostics if d.severity == Severity.ERROR]
    assert errors == []


@pytest.mark.parametrize("entry", WITH_ERRORS, ids=lambda e: Path(e["file"]).name)
def test_invalid_pack_errors_land_inside_the_official_locations(entry: dict[str, object]) -> None:
    path = CORPUS / str(entry["file"])
    text = path.read_text(encoding="utf-8")
    pointers = {str(e).split(": ", 1)[0] for e in entry["spec_v1_4_errors"]}  # type: ignore[attr-defined]
    regions = {p: _region(text, p) for p in pointers}
    result = check_file(path, True, LAYERS)
    errors = [d for d in result.diagnostics if d.severity == Severity.ERROR]
    for pointer, region in regions.items():
        assert any(region.covers(d.span) for d in errors), (
            f"no error inside {pointer}; got {[(d.code, d.message) for d in errors]}"
        )
    for d in errors:
        assert any(region.covers(d.span) for region in regions.values()), (
            f"error outside every official location: {d.code} {d.message}"
        )
