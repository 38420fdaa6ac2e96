"""Multi-document streams are read in time linear in their length: each document is
parsed alone and moved to its offset, aliases and merge keys included
(``yamltree.shifted_tree``), instead of being parsed in a blanked copy of the whole
stream (bench/bench_streams.py measures it). The moved trees are exactly what the
blanked copy gives."""

from __future__ import annotations

import importlib.util
from typing import Any

from pack_lsp.core.model.hosts import blank, document_starts, documents, read_stream
from pack_lsp.core.syntax.yamltree import AliasNode, MappingNode, SequenceNode, parse, shifted_tree
from paths import ROOT
from tree_facts import tree_facts

STREAM = """\
apiVersion: v1
kind: Service
metadata: {name: first}
---
apiVersion: v1
kind: Service
metadata:
  name: second
  labels: &labels {app: demo, tier: web}
spec:
  selector: *labels
  ports: &ports [80, 443]
  more: *ports
---
base: &base {a: 1, b: 2}
merged:
  <<: *base
  c: 3
self: &self [1, *self]
...
apiVersion: v1
kind: ConfigMap
metadata: {name: third}
"""


def _shadowed(text: str) -> list[object]:
    """Each document parsed in the whole text with everything else blanked."""
    starts = document_starts(text)
    out = []
    for start, end in zip(starts, [*starts[1:], len(text)], strict=True):
        root = parse(blank(text[:start]) + text[start:end] + blank(text[end:])).root
        if root is not None:
            out.append(tree_facts(root))
    return out


def test_moved_documents_are_the_shadow_parses() -> None:
    assert [tree_facts(root) for root in documents(STREAM)] == _shadowed(STREAM)


def test_aliases_point_into_the_copy() -> None:
    second = documents(STREAM)[1]
    assert isinstance(second, MappingNode)
    spec = second.get("spec")
    metadata = second.get("metadata")
    assert isinstance(spec, MappingNode) and isinstance(metadata, MappingNode)
    selector = spec.pair("selector")
    labels = metadata.get("labels")
    assert selector is not None and isinstance(selector.value, AliasNode)
    assert labels is not None and selector.value.target is labels
    assert STREAM[labels.span.start : labels.span.end] == "&labels {app: demo, tier: web}"


def test_an_alias_to_its_own_ancestor_is_copied() -> None:
    root = parse("x: &self [1, *self]\n").root
    assert isinstance(root, MappingNode)
    moved = shifted_tree(root, 10)
    assert isinstance(moved, MappingNode)
    before, after = root.get("x"), moved.get("x")
    assert isinstance(before, SequenceNode) and isinstance(after, SequenceNode)
    assert after.span.start == before.span.start + 10
    alias = after.items[1]
    assert isinstance(alias, AliasNode)
    old = before.items[1]
    assert isinstance(old, AliasNode)
    # As parsed: a broken alias stays broken, a resolved one points into the copy.
    assert alias.target is (None if old.target is None else after)


def test_embedded_packs_of_a_stream_keep_their_shadows() -> None:
    pack = (
        "    id: p{i}\n    name: P\n    version: 1.0.0\n"
        '    template_engine: {{version: v1, syntax: "{{{{variable}}}}"}}\n'
        "    prompts:\n      s: {{id: s, name: S, version: 1.0.0, system_template: Hi}}\n"
    )
    text = "---\n".join(
        f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: m{i}}}\ndata:\n"
        f"  pack.yaml: |\n{pack.format(i=i)}"
        for i in range(3)
    )
    stream = read_stream(text)
    assert stream is not None and len(stream.embedded) == 3
    for entry in stream.embedded:
        assert entry.shadow is not None and len(entry.shadow) == len(text)
        region = entry.content
        assert entry.shadow[region.start : region.end] == text[region.start : region.end]
        assert not entry.shadow[: region.start].strip() and not entry.shadow[region.end :].strip()


def _bench() -> Any:
    """bench/bench_streams.py, whose generated streams the benchmark measures."""
    spec = importlib.util.spec_from_file_location(
        "bench_streams", ROOT / "bench" / "bench_streams.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_embedded_packs_parsed_in_their_region_are_the_shadow_parses() -> None:
    from pack_lsp.core.syntax.jsontree import parse_json, parse_json_region
    from pack_lsp.core.syntax.yamltree import parse_region

    bench = _bench()
    config_maps, json_config_maps = bench.config_maps, bench.json_config_maps

    broken = json_config_maps(2).replace('"version": "1.0.0"', '"version": 1.0.0,', 1)
    for text in (config_maps(3), json_config_maps(3), broken):
        stream = read_stream(text)
        assert stream is not None and stream.embedded
        for entry in stream.embedded:
            assert entry.shadow is not None
            if entry.json:
                fast = parse_json_region(entry.shadow, entry.content)
                full = parse_json(entry.shadow)
            else:
                fast = parse_region(entry.shadow, entry.content)
                full = parse(entry.shadow)
            assert fast.root is not None and full.root is not None
            assert tree_facts(fast.root) == tree_facts(full.root)
            assert fast.diagnostics == full.diagnostics
            assert fast.syntax_error == full.syntax_error
