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
from shadows import assert_reported_as_shadows
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


# ------------------------------------------- embedded packs analysed in their own text

#: Written between the documents of the streams below: characters outside the
#: packs that a shadow blanks (several UTF-16 units, two code points in one glyph).
_WIDE = "# café ✓ 𝄞 ünï — données\n"


def _rule_example_packs() -> list[tuple[str, bool]]:
    """Every rule's example pack (YAML or JSON): together they report every rule a
    pack can, with related locations, quick fixes and problem data."""
    from pack_lsp.core.base.diagnostics import ExampleKind
    from pack_lsp.core.checks.registry import REGISTRY

    out = []
    for rule in REGISTRY.values():
        if rule.example_kind in (ExampleKind.PACK, ExampleKind.PACK_JSON):
            out.append((rule.example, rule.example_kind is ExampleKind.PACK_JSON))
    return out


def _host(packs: list[tuple[str, bool]], wide: bool, suppress: bool = True) -> str:
    """One ConfigMap per pack, each written in a literal block scalar."""
    docs = []
    for i, (pack, is_json) in enumerate(packs):
        if suppress and not is_json and i % 5 == 0:
            # A suppression comment that silences nothing (its removal is data).
            pack = pack.replace("\n", "  # pack-lsp: ignore PP999\n", 1)
        block = "".join(f"    {line}\n" if line else "\n" for line in pack.splitlines())
        key = "pack.json" if is_json else "pack.yaml"
        docs.append(
            (_WIDE if wide else "")
            + f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m{i}\n"
            + ("  annotations: {note: Ünïcödé ✓}\n" if wide else "")
            + f"data:\n  {key}: |\n{block}"
        )
    return "---\n".join(docs)


def test_packs_analysed_in_their_own_text_report_what_their_shadows_report() -> None:
    """A pack written verbatim in a host is analysed in its own text and its
    diagnostics moved to the host's offsets (D82); every one (span, message, related
    locations, quick-fix payloads, data) equals what the analysis of its shadow in
    the host gives, in a stream of every rule's example pack, ASCII or not."""
    from pathlib import Path

    from pack_lsp.core.checks.analysis import analyze

    packs = _rule_example_packs()
    assert len(packs) > 50
    for wide in (False, True):
        text = _host(packs, wide)
        assert text.isascii() is not wide
        analysis = analyze(text, path=Path("stream.yaml"))
        inside = [
            d
            for d in analysis.diagnostics
            if any(p.span.start <= d.span.start <= p.span.end for p in analysis.embedded)
        ]
        # Not vacuous: most packs report something, with fixes, related and data.
        assert len(inside) > len(packs)
        assert any(d.fixes for d in inside) and any(d.related for d in inside)
        assert any("remove" in d.data for d in inside)
        assert assert_reported_as_shadows(analysis) == len(inside)


def _moved(diag: Any, delta: int) -> Any:
    """``diag`` with its span, fixes, related locations and the removal of an unused
    suppression ``delta`` further on."""
    from dataclasses import replace

    related = tuple(replace(r, span=r.span.shifted(delta)) for r in diag.related)
    data = dict(diag.data)
    if "remove" in data:
        data["remove"] = [data["remove"][0] + delta, data["remove"][1] + delta]
    return replace(diag.shifted(delta), related=related, data=data)


def test_a_stream_of_many_packs_reports_each_as_alone() -> None:
    """Each of many embedded packs reports, in the stream, what it reports as the
    only pack of its host, moved to where the stream writes it."""
    from pathlib import Path

    from pack_lsp.core.checks.analysis import analyze

    def embedded_alone(pack: tuple[str, bool]) -> bool:
        found = read_stream(_host([pack], wide=True, suppress=False))
        return found is not None and len(found.embedded) == 1

    packs = [pack for pack in _rule_example_packs() if embedded_alone(pack)][:60]
    assert len(packs) == 60
    text = _host(packs, wide=True, suppress=False)
    stream = analyze(text, path=Path("stream.yaml"))
    parts = list(stream.embedded)
    assert len(parts) == len(packs)
    for i, part in enumerate(parts):
        alone_text = _host([packs[i]], wide=True, suppress=False).replace("name: m0", f"name: m{i}")
        alone = analyze(alone_text, path=Path("stream.yaml"))
        (alone_part,) = alone.embedded
        delta = part.span.start - alone_part.span.start
        start, end = part.span.start, part.span.end
        in_stream = [d for d in stream.diagnostics if start <= d.span.start <= end]
        in_alone = [
            d
            for d in alone.diagnostics
            if alone_part.span.start <= d.span.start <= alone_part.span.end
        ]
        assert in_stream == [_moved(d, delta) for d in in_alone]


def test_an_embedded_packs_shadow_analysis_is_made_when_asked_for() -> None:
    """The shadow analysis of a verbatim pack (what editor requests there answer
    from) is made on first use, once; it is at the host's offsets."""
    from pathlib import Path

    from pack_lsp.core.checks.analysis import analyze

    text = _bench().config_maps(3)
    analysis = analyze(text, path=Path("stream.yaml"))
    part = analysis.embedded[1]
    assert part._analysis is None  # not made by the check itself
    inner = analysis.at(part.span.start + 10)
    assert inner is not None and inner is part.analysis and inner is analysis.at(part.span.end)
    assert len(inner.text) == len(text)
    assert inner.text[part.span.start : part.span.end] == text[part.span.start : part.span.end]
    # A request in one pack makes no other pack's.
    assert analysis.embedded[0]._analysis is None and analysis.embedded[2]._analysis is None


def test_fixes_of_a_pack_in_its_own_text_are_those_of_its_shadow() -> None:
    """The quick fixes of a host's diagnostic (``--check`` lists them, ``--fix``
    applies them) are computed in the pack's own text and moved: every one equals
    the fix the pack's shadow analysis gives (D82)."""
    from pathlib import Path

    from pack_lsp.core.checks.analysis import analyze
    from pack_lsp.core.ide.codeactions import quick_fixes, shared_documents

    packs = _rule_example_packs()
    # A host with a CRLF outside its packs: the fixes insert its line breaks.
    for text in (_host(packs, False), _host(packs, True), "# CRLF\r\n" + _host(packs, True)):
        analysis = analyze(text, path=Path("stream.yaml"))
        compared = 0
        with shared_documents():
            for diag in analysis.diagnostics:
                inner = analysis.at(diag.span.start)
                if not diag.fixes or inner is None:
                    continue
                assert analysis.own_text_at(diag.span.start) is not None
                assert quick_fixes(analysis, diag) == quick_fixes(inner, diag)
                compared += 1
        assert compared > 20


def test_a_broken_pack_is_reported_in_its_own_text_and_inside_it() -> None:
    """A pack whose YAML is broken is analysed in its own text too (D82), so a stream
    of broken packs costs its length, not its square; its problems lie inside it,
    where its shadow put an unclosed pack's at the end of the file and an empty one's
    at its start. An entry named like a pack (`pack.yaml`) whose text does not even
    parse is still checked: its errors are shown, not skipped."""
    from pathlib import Path

    from pack_lsp.core.checks.analysis import analyze

    def config_map(name: str, pack: str) -> str:
        body = "".join(f"    {line}\n" for line in pack.splitlines())
        head = f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n"
        return f"{head}  pack.yaml: |\n{body}"

    good = "id: a\nname: A\nversion: 1.0.0\nprompts:\n  a: {id: a, name: A, version: 1.0.0}\n"
    unclosed = good.replace("{id: a, name: A, version: 1.0.0}", "{id: a, name: A, version: 1.0.0")
    quoted = good.replace("name: A\n", 'name: "A\n', 1)
    text = "---\n".join(
        [config_map("first", unclosed), config_map("second", quoted), config_map("third", good)]
    )
    analysis = analyze(text, path=Path("stream.yaml"))
    regions = [part.span for part in analysis.embedded]
    assert len(regions) == 3
    syntax = [d for d in analysis.diagnostics if d.code == "PP001"]
    assert len(syntax) == 2
    for diag, region in zip(syntax, regions[:2], strict=True):
        assert region.start <= diag.span.start <= region.end, (diag, region)
    assert assert_reported_as_shadows(analysis) >= 2

    # The same in JSON: a `pack.json` left unclosed, one with a trailing comma.
    strict = '{"id": "a", "name": "A", "version": "1.0.0", "prompts": {"a": {"id": "a"}}}'
    broken = [strict[:-1], strict.replace('"A",', '"A",,')]
    text = "---\n".join(
        config_map(f"json-{i}", pack).replace("pack.yaml", "pack.json")
        for i, pack in enumerate([*broken, strict])
    )
    analysis = analyze(text, path=Path("stream.yaml"))
    regions = [part.span for part in analysis.embedded]
    syntax = [d for d in analysis.diagnostics if d.code == "PP013"]
    assert len(regions) == 3 and len(syntax) == 2, analysis.diagnostics
    assert not any(d.code == "PT002" for d in analysis.diagnostics)  # JSON, broken
    for diag, region in zip(syntax, regions[:2], strict=True):
        assert region.start <= diag.span.start <= region.end, (diag, region)
    assert assert_reported_as_shadows(analysis) >= 2
