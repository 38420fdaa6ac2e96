"""The real-world corpus: YAML/schema diagnostics agree with the official schemas.

Every corpus file is checked under each official PromptPack version from 1.3.0 to
1.9.0 (``spec-version`` set to it) and compared with what that version's official
schema says: the same verdict, and every error inside a location the official schema
reports, each such location holding one of ours.

Measured on the YAML and schema layers (PP0xx/PP1xx): the semantic rules report real
problems in many "valid" packs (undefined tools, undeclared variables), which the
official schemas cannot see and which are checked separately.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from ruamel.yaml import YAML

from pack_lsp.cli.check import check_file
from pack_lsp.core.base import kinds
from pack_lsp.core.base.diagnostics import Severity
from pack_lsp.core.base.text import Span
from pack_lsp.core.model.config import Config
from pack_lsp.core.model.discover import find_packs
from pack_lsp.core.model.recognize import recognize
from pack_lsp.core.syntax.yamltree import parse, resolve
from paths import SHARED

CORPUS = SHARED / "corpus"
REFERENCE = SHARED / "reference" / "promptpack"
if not CORPUS.is_dir() or not REFERENCE.is_dir():  # pragma: no cover
    pytest.skip(
        f"shared corpus or reference schemas not available at {SHARED}", allow_module_level=True
    )

LAYERS = Config(select=("PP0", "PP1"))
MANIFEST = json.loads((CORPUS / "manifest.json").read_text(encoding="utf-8"))
METADATA = {"manifest.json", "SOURCES.json", "v1_9_errors.json"}
SUFFIXES = (".json", ".yaml", ".yml")
VALID = sorted(p for p in (CORPUS / "valid").glob("*") if p.suffix in SUFFIXES)
DATA_FILES = sorted(
    p for p in CORPUS.rglob("*") if p.is_file() and p.suffix in SUFFIXES and p.name not in METADATA
)


def _kind(path: Path) -> str | None:
    return recognize(str(path), path.read_text(encoding="utf-8"), explicit=True).kind


#: The packs among them; the others are PromptKit arena-project files (checked below).
ALL_FILES = [p for p in DATA_FILES if _kind(p) == kinds.PROMPTPACK]
ARENA_FILES = [p for p in DATA_FILES if p not in ALL_FILES]
V15PLUS = CORPUS / "v1.5plus"
WITH_ERRORS = [e for e in MANIFEST if e["spec_v1_4_errors"]]

# The official versions compared (each official copy has the same $id: keyed by version).
# From 1.3.0 on, each published version (1.0–1.2 are not compared: 1.2.0 is a git snapshot).
VERSIONS = {
    path.name.split("_", 1)[0].removeprefix("v"): path
    for path in sorted(REFERENCE.glob("v1.*_promptpack.schema.json"))
    if re.fullmatch(r"v1\.(\d+)\.(\d+)", path.name.split("_", 1)[0])
}
COMPARED = sorted(
    (v for v in VERSIONS if tuple(int(x) for x in v.split(".")) >= (1, 3, 0)),
    key=lambda v: tuple(int(x) for x in v.split(".")),
)


@functools.cache
def official(version: str) -> Draft202012Validator:
    return Draft202012Validator(json.loads(VERSIONS[version].read_text(encoding="utf-8")))


def _document(path: Path) -> Any:
    if path.suffix == ".json":
        return json.loads(path.read_text(encoding="utf-8"))
    return YAML(typ="safe", pure=False).load(path.read_text(encoding="utf-8"))


def _pointer(parts: Any) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


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


def _assert_errors_match(path: Path, pointers: set[str], config: Config) -> None:
    text = path.read_text(encoding="utf-8")
    regions = {p: _region(text, p) for p in pointers}
    result = check_file(path, True, config)
    errors = [d for d in result.diagnostics if d.severity == Severity.ERROR]
    for pointer, region in regions.items():
        assert any(region.covers(d.span) for d in errors), (
            f"no error inside {pointer}; got {[(d.code, d.message) for d in errors]}"
        )
    for d in errors:
        assert any(region.covers(d.span) for region in regions.values()), (
            f"error outside every official location: {d.code} {d.message}"
        )


@pytest.mark.parametrize("path", ARENA_FILES, ids=lambda p: p.relative_to(CORPUS).as_posix())
def test_arena_project_files_are_not_checked_as_packs(path: Path) -> None:
    # PromptKit's own kinds (Arena, PromptConfig, Tool, ...) are arena documents,
    # checked against their kind's schema (tests/test_arena_documents.py), never as
    # packs; the JSON Schemas of a project's outputs and its docker-compose files,
    # named on the command line, get one line saying what they are, and a directory
    # scan skips them.
    result = check_file(path, True, Config())
    if _kind(path) == kinds.ARENA:
        assert not [d for d in result.diagnostics if d.code in ("PP014", "PP103")]
        assert path in list(find_packs(path.parent))
        return
    assert [d.code for d in result.diagnostics] == ["PP014"]
    what = "Docker Compose" if path.name.startswith("docker-compose") else "JSON Schema"
    assert what in result.diagnostics[0].message
    assert path not in list(find_packs(path.parent))


def test_corpus_is_present() -> None:
    assert len(VALID) > 50
    assert len(WITH_ERRORS) >= 10
    assert {"1.3.0", "1.4.0", "1.5.1", "1.9.0"} <= set(COMPARED)


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_valid_pack_has_no_schema_or_yaml_errors_under_v1_4(path: Path) -> None:
    result = check_file(path, True, LAYERS.merged({"spec_version": "1.4.0"}))
    errors = [d for d in result.diagnostics if d.severity == Severity.ERROR]
    assert errors == []


@pytest.mark.parametrize("entry", WITH_ERRORS, ids=lambda e: Path(e["file"]).name)
def test_invalid_pack_errors_land_inside_the_official_v1_4_locations(
    entry: dict[str, Any],
) -> None:
    pointers = {str(e).split(": ", 1)[0] for e in entry["spec_v1_4_errors"]}
    pointers = {"" if p == "/" else p for p in pointers}
    _assert_errors_match(CORPUS / entry["file"], pointers, LAYERS.merged({"spec_version": "1.4.0"}))


@pytest.mark.parametrize("version", COMPARED)
@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: p.relative_to(CORPUS).as_posix())
def test_errors_agree_with_the_official_schema_of_each_version(path: Path, version: str) -> None:
    document = _document(path)
    pointers = {_pointer(err.absolute_path) for err in official(version).iter_errors(document)}
    _assert_errors_match(path, pointers, LAYERS.merged({"spec_version": version}))


# ------------------------------------------------------------ packs using v1.5–v1.9


def _v19_expected() -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = json.loads(
        (V15PLUS / "v1_9_errors.json").read_text(encoding="utf-8")
    )
    return entries


@pytest.mark.parametrize("entry", _v19_expected(), ids=lambda e: e["file"])
def test_v1_5plus_packs_get_exactly_the_v1_9_errors_by_default(entry: dict[str, Any]) -> None:
    """With no setting, each pack is checked as it declares (latest): valid packs get no
    error, each invalid one its single intended error, on the node at fault."""
    path = V15PLUS / entry["file"]
    expected = {str(e).split(": ", 1)[0] for e in entry["spec_v1_9_0_errors"]}
    if entry["file"].startswith("xlang-invalid-"):
        assert len(expected) == 1
    result = check_file(path, True, Config())
    errors = [d for d in result.diagnostics if d.severity == Severity.ERROR]
    assert len(errors) == len(expected), [(d.code, d.message) for d in errors]
    _assert_errors_match(path, expected, Config())
