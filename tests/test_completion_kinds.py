"""Completion kinds: a closed enum, every member mapped to an LSP item kind."""

from __future__ import annotations

from pack_lsp.core.checks.analysis import analyze
from pack_lsp.core.ide.completion import CompletionKind, complete
from pack_lsp.core.ide.manifest_features import complete_ids
from pack_lsp.core.model.manifest.files import index_files
from pack_lsp.server.completion import _KINDS
from paths import HERE

EXAMPLE = HERE.parent / "examples" / "support.promptpack.yaml"
WORKSPACE = HERE / "fixtures" / "manifests" / "workspace"


def test_every_kind_maps_to_an_lsp_item_kind() -> None:
    assert set(_KINDS) == set(CompletionKind)


def test_pack_completions_carry_enum_kinds() -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    analysis = analyze(text, path=EXAMPLE, kind="promptpack")
    seen: set[CompletionKind] = set()
    for offset in range(len(text) + 1):
        for item in complete(analysis, offset):
            assert type(item.kind) is CompletionKind, (offset, item)
            seen.add(item.kind)
    assert {CompletionKind.PROPERTY, CompletionKind.VALUE, CompletionKind.TOOL} <= seen


def test_manifest_completions_carry_the_same_type() -> None:
    manifests = sorted(WORKSPACE.rglob("manifest.yaml"))
    index = index_files(manifests)
    found = []
    for path in manifests:
        text = path.read_text(encoding="utf-8")
        analysis = analyze(text, path=path, workspace=index)
        for offset in range(len(text) + 1):
            found.extend(complete_ids(analysis, offset, index))
    assert found
    assert {type(item.kind) for item in found} == {CompletionKind}
    assert {item.kind for item in found} == {CompletionKind.EXTENSION}
