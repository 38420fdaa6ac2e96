"""Completion, definition, hover and rename of extension ids across manifests."""

from __future__ import annotations

from pathlib import Path

import pytest

from pack_lsp.core.base import kinds
from pack_lsp.core.checks.analysis import Analysis, analyze
from pack_lsp.core.ide.manifest_features import complete_ids, definition, hover, references, rename
from pack_lsp.core.ide.rename import apply_edits
from pack_lsp.core.model.manifest.files import index_files
from pack_lsp.core.model.manifest.workspace import ManifestIndex
from paths import HERE

WORKSPACE = HERE / "fixtures" / "manifests" / "workspace"
REVIEWER = WORKSPACE / "code_reviewer" / "manifest.yaml"
KV = WORKSPACE / "kv" / "manifest.yaml"


@pytest.fixture
def index() -> ManifestIndex:
    return index_files(sorted(WORKSPACE.rglob("manifest.yaml")))


def _open(path: Path, index: ManifestIndex, text: str | None = None) -> Analysis:
    return analyze(
        text if text is not None else path.read_text(encoding="utf-8"),
        path=path,
        workspace=index,
    )


def _offset(text: str, needle: str, nth: int = 0) -> int:
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    return at


def test_uses_tools_offers_only_tool_providing_extensions(index: ManifestIndex) -> None:
    text = REVIEWER.read_text(encoding="utf-8").replace("    - kv\n", "    - kv\n    - \n")
    analysis = _open(REVIEWER, index, text)
    offset = _offset(text, "    - \n") + len("    - ")
    labels = [c.label for c in complete_ids(analysis, offset, index)]
    # yodoca's built-in tools first; kv is listed already; code_reviewer is this
    # manifest; builder_agent has code.
    assert labels == ["core_tools", "builder_agent"]


def test_ids_yodoca_does_not_load_are_not_offered(index: ManifestIndex) -> None:
    kv = WORKSPACE / "kv" / "manifest.yaml"
    disabled = ManifestIndex(list(index))
    text = kv.read_text(encoding="utf-8").replace("enabled: true", "enabled: false")
    disabled.put(analyze(text, path=kv).manifest)  # type: ignore[arg-type]
    path = WORKSPACE / "x" / "manifest.yaml"
    text = "id: x\nname: X\nentrypoint: main:X\ndepends_on:\n  - \n"
    analysis = analyze(text, path=path, workspace=disabled)
    labels = [c.label for c in complete_ids(analysis, len(text) - 1, disabled)]
    assert labels == ["builder_agent", "code_reviewer"]


def test_depends_on_offers_every_other_id_with_its_description(index: ManifestIndex) -> None:
    text = REVIEWER.read_text(encoding="utf-8").replace(
        "  - kv\nenabled", "  - kv\n  - bu\nenabled"
    )
    analysis = _open(REVIEWER, index, text)
    offset = _offset(text, "  - bu") + len("  - bu")
    items = complete_ids(analysis, offset, index)
    assert [c.label for c in items] == ["builder_agent"]
    assert items[0].documentation.startswith("Call this agent to create a new extension")
    replaced = items[0].replace
    assert replaced is not None and text[replaced.start : replaced.end] == "bu"


def test_completion_in_a_flow_list_and_nowhere_else(index: ManifestIndex) -> None:
    text = "id: x\nname: X\nentrypoint: main:X\ndepends_on: [kv, ]\n"
    analysis = analyze(text, path=WORKSPACE / "x" / "manifest.yaml", workspace=index)
    offset = text.index("kv, ") + 4
    assert [c.label for c in complete_ids(analysis, offset, index)] == [
        "builder_agent",
        "code_reviewer",
    ]
    assert complete_ids(analysis, text.index("X\n"), index) == []


def test_definition_jumps_into_the_other_manifest(index: ManifestIndex) -> None:
    analysis = _open(REVIEWER, index)
    found = definition(analysis, _offset(analysis.text, "- kv") + 3, index)
    assert len(found) == 1
    assert found[0].path == str(KV)
    kv_text = KV.read_text(encoding="utf-8")
    assert kv_text[found[0].span.start : found[0].span.end] == "kv"
    assert definition(analysis, _offset(analysis.text, "model"), index) == []


def test_references_of_an_id_across_files(index: ManifestIndex) -> None:
    analysis = _open(KV, index)
    found = references(analysis, _offset(analysis.text, "kv"), index)
    assert sorted(Path(loc.path or "").parent.name for loc in found) == [
        "builder_agent",
        "builder_agent",
        "code_reviewer",
        "code_reviewer",
    ]


def test_hover_shows_the_other_extensions_description(index: ManifestIndex) -> None:
    analysis = _open(REVIEWER, index)
    text = hover(analysis, _offset(analysis.text, "- kv") + 2, index)
    assert text is not None
    assert "**Key-value store** (`kv`)" in text
    assert "Stores and reads small values" in text
    unknown = analyze(
        "id: y\nname: Y\nentrypoint: main:Y\ndepends_on: [nope]\n",
        kind=kinds.MANIFEST,
        workspace=index,
    )
    assert hover(unknown, unknown.text.index("nope"), index) == (
        "`nope`: no manifest of the workspace declares this id"
    )


def test_rename_changes_the_id_and_every_reference_in_every_file(index: ManifestIndex) -> None:
    analysis = _open(REVIEWER, index)
    edits = rename(analysis, _offset(analysis.text, "- kv") + 2, "key_value", index)
    assert sorted(Path(e.path or "").parent.name for e in edits) == [
        "builder_agent",
        "code_reviewer",
        "kv",
    ]
    renamed = {
        e.path or "": apply_edits(Path(e.path or "").read_text(encoding="utf-8"), e.edits)
        for e in edits
    }
    assert "id: key_value\n" in renamed[str(KV)]
    assert "depends_on: [key_value]" in renamed[str(WORKSPACE / "builder_agent" / "manifest.yaml")]
    # The renamed workspace is as clean as before but for the folder of the renamed
    # extension, which yodoca imports by the id: renaming folders is the user's move.
    after = ManifestIndex()
    for path, text in renamed.items():
        after.put(analyze(text, path=path).manifest)  # type: ignore[arg-type]
    for path, text in renamed.items():
        codes = [d.code for d in analyze(text, path=path, workspace=after).diagnostics]
        assert codes == (["PM014"] if path == str(KV) else []), path


def test_rename_keeps_quotes_and_rejects_bad_ids(index: ManifestIndex) -> None:
    text = 'id: x\nname: X\nentrypoint: main:X\ndepends_on: ["kv"]\n'
    path = WORKSPACE / "x" / "manifest.yaml"
    analysis = analyze(text, path=path, workspace=index)
    edits = {e.path: e.edits for e in rename(analysis, text.index("kv"), "store", index)}
    assert apply_edits(text, edits[str(path)]) == text.replace('"kv"', '"store"')
    with pytest.raises(ValueError, match="not a valid extension id"):
        rename(analysis, text.index("kv"), "key.value", index)
    # yodoca accepts hyphenated ids.
    assert rename(analysis, text.index("kv"), "key-value", index)
    with pytest.raises(ValueError, match="no extension id"):
        rename(analysis, text.index("name"), "store", index)
