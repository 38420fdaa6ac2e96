"""Template scans reused across versions equal fresh scans.

``Derived(..., previous=old)`` takes the scans of unchanged templates from the
previous version and moves them to their new offsets. Random edits (seeded) on
generated packs, YAML and JSON, compare every template, placeholder, unbalanced
brace and scalar map — spans included — with a ``Derived`` built from nothing.
"""

from __future__ import annotations

import gc
import importlib.util
import random
import weakref
from types import ModuleType

import pytest

from pack_lsp.core.checks.analysis import Analysis, analyze
from pack_lsp.core.model.context import Derived
from pack_lsp.core.model.templates import PackTemplates
from paths import ROOT


def _genpack() -> ModuleType:
    spec = importlib.util.spec_from_file_location("genpack", ROOT / "bench" / "genpack.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# Snippets an edit inserts: plain words, placeholders, broken braces, line breaks
# and indentation (which move later templates or change a block's shape).
_SNIPPETS = [
    "x",
    "word ",
    "{{ name }}",
    "{{fragments.f}}",
    "{{",
    "}}",
    "{a}}",
    "\n",
    "  ",
    "\t",
    "é😀",
]


def _edit(rng: random.Random, text: str) -> str:
    at = rng.randrange(len(text) + 1)
    if rng.random() < 0.4 and at < len(text):
        return text[:at] + text[at + rng.randint(1, 12) :]
    return text[:at] + rng.choice(_SNIPPETS) + text[at:]


def _same(reused: PackTemplates | None, fresh: PackTemplates | None) -> None:
    assert (reused is None) == (fresh is None)
    if reused is None or fresh is None:
        return
    assert reused.dialect == fresh.dialect
    assert len(reused.templates) == len(fresh.templates)
    for r, f in zip(reused.templates, fresh.templates, strict=True):
        assert (r.owner, r.key, r.template.field) == (f.owner, f.key, f.template.field)
        assert r.template.span == f.template.span
        assert r.template.text == f.template.text
        assert r.placeholders == f.placeholders
        assert r.unbalanced == f.unbalanced
        assert r.smap == f.smap
        assert r.smap.content == f.smap.content
        for p in r.placeholders:
            assert r.smap.span_of(p.start, p.end) == p.span


def _check_edits(text: str, path: str, seed: int, edits: int) -> int:
    """Apply ``edits`` random edits; returns how many versions had templates."""
    rng = random.Random(seed)
    before: Analysis = analyze(text, path=path)
    assert before.derived.templates is not None
    compared = 0
    for _ in range(edits):
        text = _edit(rng, text)
        after = analyze(text, path=path)
        reused = Derived(after.pack, after.text, after.config, previous=before.derived)
        fresh = Derived(after.pack, after.text, after.config)
        _same(reused.templates, fresh.templates)
        compared += reused.templates is not None
        before = after
    return compared


@pytest.mark.parametrize("as_json", [False, True], ids=["yaml", "json"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_reused_scans_equal_fresh_scans_after_random_edits(as_json: bool, seed: int) -> None:
    text, _ = _genpack().generate(400, seed=seed, as_json=as_json)
    path = "edited.promptpack.json" if as_json else "edited.promptpack.yaml"
    compared = _check_edits(text, path, seed, 25)
    assert compared > 0  # some versions parsed into a pack with templates


def test_edits_inside_templates_and_moved_templates() -> None:
    """Edits placed inside template text: the edited template is scanned again, the
    ones after it move, the ones before it stay."""
    text, _ = _genpack().generate(300, seed=4)
    rng = random.Random(4)
    before = analyze(text, path="p.promptpack.yaml")
    for _ in range(15):
        templates = before.derived.templates
        assert templates is not None and templates.templates
        info = rng.choice(templates.templates)
        span = info.template.span
        at = rng.randint(span.start, span.end)
        text = text[:at] + rng.choice(["{{ extra }}", "more words ", "{{fragments.x}}"]) + text[at:]
        after = analyze(text, path="p.promptpack.yaml")
        reused = Derived(after.pack, after.text, after.config, previous=before.derived)
        _same(reused.templates, Derived(after.pack, after.text, after.config).templates)
        before = after


def test_a_version_without_pack_passes_the_scans_on() -> None:
    text, _ = _genpack().generate(200, seed=5)
    first = analyze(text, path="p.promptpack.yaml")
    broken = analyze(text + "\n  - : [\n", path="p.promptpack.yaml")
    middle = Derived(broken.pack, broken.text, broken.config, previous=first.derived)
    again = analyze(text.replace("You are", "You were", 1), path="p.promptpack.yaml")
    reused = Derived(again.pack, again.text, again.config, previous=middle)
    _same(reused.templates, Derived(again.pack, again.text, again.config).templates)


def test_the_previous_version_is_not_kept_alive() -> None:
    text, _ = _genpack().generate(200, seed=6)
    old = analyze(text, path="p.promptpack.yaml")
    gone = weakref.ref(old.derived)
    new = analyze(text + "\n", path="p.promptpack.yaml")
    derived = Derived(new.pack, new.text, new.config, previous=old.derived)
    del old
    gc.collect()
    assert gone() is None
    assert derived.templates is not None


def test_equal_templates_beyond_the_remembered_places_are_reused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """More equal templates than the places remembered per text (a template shared by
    many prompts): each is found again where it was or moved by the edit, so an edit
    outside every template scans none of them again."""
    from pack_lsp.core.model import templates

    # Each template ends its prompt, so what its scan reads past it (the start of the
    # next prompt's key) differs: an equal template elsewhere is no substitute.
    keys = [chr(ord("a") + i) + "prompt" for i in range(3 * templates._MAX_CANDIDATES)]
    prompts = "".join(
        f"  {key}:\n"
        f"    id: {key}\n"
        f"    name: {key}\n"
        f"    description: prompt {key}\n"
        f"    version: 1.0.0\n"
        "    variables:\n"
        "      - name: topic\n"
        "        type: string\n"
        "        required: true\n"
        "    system_template: |\n"
        "      You answer about {{ topic }}.\n"
        for key in keys
    )
    text = "id: p\nname: P\nversion: 1.0.0\nprompts:\n" + prompts
    before = analyze(text, path="p.promptpack.yaml")
    assert before.derived.templates is not None
    assert len(before.derived.templates.templates) == 3 * templates._MAX_CANDIDATES
    at = text.index("prompt aprompt") + len("prompt ")
    after = analyze(text[:at] + "x" + text[at:], path="p.promptpack.yaml")
    scanned: list[object] = []
    original = templates.scalar_map

    def counted(*args: object, **kwargs: object) -> object:
        scanned.append(args)
        return original(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(templates, "scalar_map", counted)
    monkeypatch.setenv("PACK_LSP_INCREMENTAL", "on")  # verify mode scans everything again
    reused = Derived(after.pack, after.text, after.config, previous=before.derived)
    reused_templates = reused.templates
    assert scanned == []
    monkeypatch.undo()
    _same(reused_templates, Derived(after.pack, after.text, after.config).templates)
