"""The composer builds exactly the recorded trees.

Every field of every node (kind, span, anchor, tag, size, style, text, value and
its type, flow, pairs as written, effective entries after merges, alias names
and targets), the diagnostics of the parse and the line count are written out in
one canonical form and hashed. ``tests/trees/digests.json`` holds the hash for
each input, keyed by a hash of the input text, so a change to the composer that
alters any tree shows up here — speed work on the composer must keep them all.

The inputs: the golden cases, the bundled fixtures and examples, generated packs
(bench/genpack.py, YAML and JSON), seeded character-level mutations of all of
these (syntax errors, recovery, broken aliases), and the corpus in ../shared when
it is present. An input whose text is not in the record (a golden case added or
edited since) is not checked; the test requires most inputs to be recorded.

A deliberate change to the trees is recorded with::

    PACK_LSP_UPDATE_TREES=1 .venv/bin/python -m pytest tests/test_yamltree_record.py -q
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pack_lsp.core.base.diagnostics import Diagnostic
from pack_lsp.core.base.source import decode
from pack_lsp.core.syntax.jsontree import parse_json
from pack_lsp.core.syntax.yamltree import (
    AliasNode,
    MappingNode,
    Node,
    ParseResult,
    ScalarNode,
    SequenceNode,
    parse,
)
from paths import NO_SHARED, ROOT, SHARED

RECORD = ROOT / "tests" / "trees" / "digests.json"
UPDATE = os.environ.get("PACK_LSP_UPDATE_TREES") == "1"
MUTATIONS_PER_INPUT = 3

sys.path.insert(0, str(ROOT / "bench"))
import genpack  # noqa: E402


def _span(node: Node) -> tuple[int, int]:
    return (node.span.start, node.span.end)


def _dump(node: Node | None, out: list[str]) -> None:
    """Append the canonical form of ``node`` (depth first) to ``out``."""
    if node is None:
        out.append("-")
        return
    head = f"{_span(node)} a={node.anchor!r} t={node.tag!r} n={node.size}"
    if isinstance(node, ScalarNode):
        out.append(
            f"S {head} s={node.style!r} x={node.text!r} "
            f"v={type(node.value).__name__}:{node.value!r}"
        )
    elif isinstance(node, AliasNode):
        target = _span(node.target) if node.target is not None else None
        out.append(f"A {head} {node.name!r} -> {target}")
    elif isinstance(node, MappingNode):
        out.append(f"M {head} f={node.flow} {len(node.pairs)}")
        for pair in node.pairs:
            out.append(f"k {pair.key_text!r}")
            _dump(pair.key, out)
            _dump(pair.value, out)
        for key, pair in node.effective.items():
            out.append(f"e {key!r} {_span(pair.key)} {_span(pair.value)}")
    elif isinstance(node, SequenceNode):
        out.append(f"Q {head} f={node.flow} {len(node.items)}")
        for item in node.items:
            _dump(item, out)
    else:  # pragma: no cover - every node kind is listed above
        raise AssertionError(type(node))


def _diagnostic(d: Diagnostic) -> str:
    related = [(r.span.start, r.span.end, r.message) for r in d.related]
    data = sorted((k, repr(v)) for k, v in d.data.items()) if d.data else None
    return f"D {d.code} {d.span.start},{d.span.end} {d.message!r} {related} {data}"


def canonical(result: ParseResult) -> str:
    out = [f"syntax_error={result.syntax_error} lines={result.lines.line_count}"]
    out.extend(_diagnostic(d) for d in result.diagnostics)
    _dump(result.root, out)
    return "\n".join(out)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:24]


def _mutate(text: str, rng: random.Random) -> str:
    """A few character edits that YAML often trips on."""
    pieces = list(text)
    for _ in range(rng.randrange(1, 4)):
        at = rng.randrange(len(pieces) + 1)
        choice = rng.randrange(4)
        if choice == 0 and at < len(pieces):
            del pieces[at]
        elif choice == 1:
            pieces.insert(at, rng.choice([":", "-", "[", "{", '"', "'", "&a ", "*a", "\n", "\t"]))
        elif choice == 2 and at < len(pieces):
            pieces[at] = rng.choice([" ", "\n  ", "#", ",", "<<: *a\n"])
        else:
            pieces.insert(at, "\n" + " " * rng.randrange(0, 6) + "k: v")
    return "".join(pieces)


def _inputs() -> Iterator[tuple[str, str, bool]]:
    """(name, text, is_json) of every input."""
    files: list[Path] = []
    for folder in (ROOT / "tests" / "golden", ROOT / "tests" / "fixtures", ROOT / "examples"):
        files += sorted(
            p for p in folder.rglob("*") if p.suffix in (".yaml", ".yml", ".json", ".bin")
        )
    base: list[tuple[str, str, bool]] = []
    for path in files:
        text, _ = decode(path.read_bytes())
        base.append((path.relative_to(ROOT).as_posix(), text, path.suffix == ".json"))
    for seed in (1, 2, 3):
        for as_json in (False, True):
            text, _ = genpack.generate(300 * seed, seed, as_json)
            base.append((f"genpack seed={seed} json={as_json}", text, as_json))
    yield from base
    for name, text, as_json in base:
        for i in range(MUTATIONS_PER_INPUT):
            # Seeded by the input's name: adding an input leaves the others' mutations
            # (and so their recorded trees) as they were.
            rng = random.Random(f"{name} mutation {i}")
            yield f"{name} mutation {i}", _mutate(text, rng), as_json


def _corpus() -> list[Path]:
    folder = SHARED / "corpus"
    return sorted(p for p in folder.rglob("*") if p.suffix in (".yaml", ".yml", ".json"))


def _tree_digest(text: str, as_json: bool) -> str:
    result = parse_json(text) if as_json else parse(text)
    return _digest(canonical(result))


def _load() -> dict[str, str]:
    if RECORD.is_file():
        loaded: dict[str, str] = json.loads(RECORD.read_text(encoding="utf-8"))
        return loaded
    return {}


def _check(items: list[tuple[str, str, bool]]) -> None:
    record = _load()
    checked = 0
    differ: list[str] = []
    for name, text, as_json in items:
        key = f"{'json' if as_json else 'yaml'}:{_digest(text)}"
        got = _tree_digest(text, as_json)
        if UPDATE:
            record[key] = got
        elif key in record:
            checked += 1
            if record[key] != got:
                differ.append(name)
    if UPDATE:
        RECORD.parent.mkdir(exist_ok=True)
        RECORD.write_text(json.dumps(record, indent=0, sort_keys=True) + "\n", encoding="utf-8")
        return
    assert not differ, f"{len(differ)} trees differ from the record, e.g. {differ[:5]}"
    # Inputs edited or added since the record was written are not checked; most must be.
    assert checked >= 0.8 * len(items), f"only {checked} of {len(items)} inputs are recorded"


def test_trees_match_the_record() -> None:
    _check(list(_inputs()))


def test_corpus_trees_match_the_record() -> None:
    if not SHARED.is_dir():
        pytest.skip(NO_SHARED)
    items = []
    for path in _corpus():
        text, _ = decode(path.read_bytes())
        items.append((path.name, text, path.suffix == ".json"))
    _check(items)
