"""Every quick fix offered anywhere in the golden cases and the corpus, applied.

Each fix is applied to the text it edits (the pack, or the case's ``.toml`` for a
fix of the configuration) and the pack is analysed again. A fix passes when:

1. **The fixed text parses**: no YAML or JSON syntax error (PP001, PP013) that the
   text did not already have; a fixed configuration file is still valid TOML.
2. **The fixed diagnostic is gone**: fewer diagnostics of its code touch its
   position, mapped through the edits, than touched it before (a count, because
   several diagnostics of one code may share a span, e.g. every PP706 is on
   `agents`).
3. **Nothing changed outside the edits**: every scalar of the YAML tree (keys
   included) outside the edited ranges is found again, at its position mapped
   through the edits, with the same value and at the same depth. The text outside
   the edits is the same by construction; what this catches is an edit that
   changes what the rest of the file means (an insertion at the wrong
   indentation that moves the keys after it, a quote left open, an entry
   removed with its neighbour's comma). A configuration fix must give the same
   TOML data with the one key renamed.
4. **No new problem but what the fix announces**: the errors and warnings after
   the fix, by code and position (mapped through the edits, so a problem restated
   in other words is not new), gain nothing but problems the fix announces:

   a. its subject (the first name in backticks of its message) is a name the
      edits replaced: a fix that replaces `billing` with `billing_agent` changes
      one place, and other references to `billing` now dangle;
   b. the fix only inserts, and the subject is a name its title names: adding
      `billing` to `agents.members` makes agent `billing` checked;
   c. it lies in the entry whose key the fix renamed, with another code than the
      fixed one and than unknown-property (PP102): the entry's content is now
      checked under the key it was meant to have;
   d. the title names `$schema`: the raised version's deprecations (PP111).

   Anything else fails, the inserted name being unknown included: renaming the
   pack's `agents` key to `researcher` (the former PP706 fault) gives "Unknown
   property `researcher`". Information and hints are not counted: a fix may
   uncover one (a declared variable that is optional).
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from golden_support import GOLDEN, case_config, case_id, cases, run_case
from pack_lsp.core.base import kinds
from pack_lsp.core.base.diagnostics import Diagnostic, Severity
from pack_lsp.core.base.source import decode
from pack_lsp.core.base.text import Span
from pack_lsp.core.checks.analysis import Analysis, analyze
from pack_lsp.core.ide.codeactions import Fix, quick_fixes
from pack_lsp.core.ide.rename import Edit, apply_edits
from pack_lsp.core.model.config import Config, from_mapping
from pack_lsp.core.model.recognize import recognize
from pack_lsp.core.syntax.yamltree import MappingNode, Node, ScalarNode, SequenceNode
from paths import SHARED

CORPUS = SHARED / "corpus"
SYNTAX = frozenset({"PP001", "PP013"})
_NAMED = re.compile(r"`([^`]+)`")


@dataclass(frozen=True)
class Case:
    """A file whose fixes are checked, and how to analyse it with other text."""

    name: str
    path: Path
    golden: bool

    def analyse(self, text: str | None = None, config: Config | None = None) -> Analysis:
        if self.golden:
            return run_case(self.path, text, config)
        raw_text, pre = decode(self.path.read_bytes())
        text = raw_text if text is None else text
        found = recognize(str(self.path), text, (), explicit=True)
        return analyze(
            text,
            path=self.path,
            config=config or Config(),
            kind=found.kind or kinds.PROMPTPACK,
            pre_diagnostics=pre,
            recognition=found,
        )

    def config(self) -> Config:
        return case_config(self.path) if self.golden else Config()


def _golden_cases() -> list[Case]:
    return [Case(case_id(p), p, True) for p in cases()]


def _corpus_cases() -> list[Case]:
    if not CORPUS.is_dir():
        return []
    return [
        Case(p.relative_to(CORPUS).as_posix(), p, False)
        for p in sorted(CORPUS.rglob("*"))
        if p.is_file()
        and p.suffix in (".yaml", ".yml", ".json")
        and p.name not in {"manifest.json", "SOURCES.json", "v1_9_errors.json"}
    ]


# ----------------------------------------------------------------------- criteria


def map_position(offset: int, edits: Sequence[Edit], *, end: bool) -> int:
    """``offset`` in the text after ``edits``. Inside a replaced range it lands on the
    new text's start, or its end for the ``end`` of a span; an insertion right at
    ``offset`` is before a span's start and after a span's end."""
    shift = 0
    for edit in sorted(edits, key=lambda e: (e.span.start, e.span.end)):
        start, stop = edit.span.start, edit.span.end
        if stop < offset or (stop == offset and (start < stop or not end)):
            shift += len(edit.text) - (stop - start)
        elif start < offset < stop:
            return start + shift + (len(edit.text) if end else 0)
        else:
            break
    return offset + shift


def map_span(span: Span, edits: Sequence[Edit]) -> Span:
    start = map_position(span.start, edits, end=False)
    if not span.length:
        return Span(start, start)
    return Span(start, max(start, map_position(span.end, edits, end=True)))


def touches(a: Span, b: Span) -> bool:
    return a.start <= b.end and b.start <= a.end


def edited(span: Span, edits: Iterable[Edit]) -> bool:
    """Whether an edit replaces or inserts inside ``span``."""
    for edit in edits:
        start, end = edit.span.start, edit.span.end
        if start == end and span.start < start < span.end:
            return True
        if start < end and start < span.end and span.start < end:
            return True
        if span.start == span.end and start <= span.start <= end:
            return True
    return False


def scalars(root: Node | None) -> Iterator[tuple[Span, str, int]]:
    """Every scalar written in the tree (keys included): span, value, depth."""
    stack: list[tuple[Node | None, int]] = [(root, 0)]
    seen: set[int] = set()
    while stack:
        node, depth = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, ScalarNode):
            yield node.span, repr(node.value), depth
        elif isinstance(node, MappingNode):
            for pair in node.pairs:
                stack.append((pair.key, depth + 1))
                stack.append((pair.value, depth + 1))
        elif isinstance(node, SequenceNode):
            stack.extend((item, depth + 1) for item in node.items)


def problems(analysis: Analysis, edits: Sequence[Edit] = ()) -> Counter[tuple[str, Span]]:
    """Errors and warnings by code and position (mapped through ``edits``): a problem
    restated in other words (the version a message quotes) is the same problem."""
    return Counter(
        (d.code, map_span(d.span, edits))
        for d in analysis.diagnostics
        if d.severity <= Severity.WARNING
    )


#: Codes a fix announces by naming something in its title: raising `$schema` makes
#: the newer version's deprecations apply to keys the pack already has.
ANNOUNCED_BY_TITLE = {"$schema": frozenset({"PP111"})}
UNKNOWN_PROPERTY = "PP102"


def announced(before: Analysis, fix: Fix, new: Diagnostic) -> bool:
    """Whether a new problem is one the fix says it causes (see the module docstring)."""
    subject_match = _NAMED.search(new.message)
    subject = subject_match.group(1) if subject_match else None
    named = set(_NAMED.findall(fix.title))
    text = fix.file.text if fix.file else before.text
    replaced = {text[e.span.start : e.span.end].strip("\"'{} ") for e in fix.edits if e.span.length}
    if subject in replaced:
        return True  # (a) another reference to the replaced name
    if not replaced and subject in named:
        return True  # (b) an insertion makes what it adds checked
    if any(new.code in ANNOUNCED_BY_TITLE.get(name, ()) for name in named):
        return True  # (d)
    if fix.file is None and new.code not in (UNKNOWN_PROPERTY, fix.diagnostic.code):
        # (c) inside an entry whose key the fix renamed: its content is now checked
        # under the key it was meant to have.
        for edit in fix.edits:
            pair = _pair_of_key(before.root, edit.span)
            if pair is not None and touches(map_span(pair, fix.edits), new.span):
                return True
    return False


def _pair_of_key(root: Node | None, span: Span) -> Span | None:
    """The span of the mapping entry whose key is exactly at ``span``."""
    stack: list[Node | None] = [root]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, MappingNode):
            for pair in node.pairs:
                if pair.key.span == span:
                    return pair.span
                stack.append(pair.value)
        elif isinstance(node, SequenceNode):
            stack.extend(node.items)
    return None


def check_fix(case: Case, before: Analysis, diag: Diagnostic, fix: Fix) -> None:
    where = f"{case.name}: {diag.code} {diag.message!r}, fix {fix.title!r}"
    if fix.file is not None:
        text, config = before.text, _fixed_config(case, fix, where)
        edits: Sequence[Edit] = ()
    else:
        text, config, edits = apply_edits(before.text, fix.edits), case.config(), fix.edits
    after = case.analyse(text, config)

    # 1. It parses.
    new_syntax = {d.code for d in after.diagnostics} & SYNTAX
    assert not new_syntax - {d.code for d in before.diagnostics}, (where, text)

    # 2. The fixed diagnostic is gone.
    moved = map_span(diag.span, edits)
    count_before = sum(
        1 for d in before.diagnostics if d.code == diag.code and touches(d.span, diag.span)
    )
    count_after = sum(
        1 for d in after.diagnostics if d.code == diag.code and touches(d.span, moved)
    )
    assert count_after < count_before, (where, text, after.diagnostics)

    # 3. The rest of the file means what it meant.
    if edits:
        found = {(span, value, depth) for span, value, depth in scalars(after.root)}
        for span, value, depth in scalars(before.root):
            if edited(span, edits):
                continue
            assert (map_span(span, edits), value, depth) in found, (
                where,
                f"{value} at {span} (depth {depth}) changed",
                text,
            )

    # 4. No new error or warning but what the fix announces.
    new_keys = problems(after) - problems(before, edits)
    new = [d for d in after.diagnostics if (d.code, d.span) in new_keys]
    unannounced = [(d.code, d.message) for d in new if not announced(before, fix, d)]
    assert not unannounced, (where, unannounced, text)


def _fixed_config(case: Case, fix: Fix, where: str) -> Config:
    """The configuration after a fix of the configuration file, checked to be the same
    TOML data with one key renamed."""
    assert fix.file is not None
    assert case.golden, where
    toml = case.path.with_suffix(".toml")
    assert Path(fix.file.path) == toml, (where, fix.file.path)
    assert fix.file.text == toml.read_text(encoding="utf-8"), where
    fixed = apply_edits(fix.file.text, fix.edits)
    before, after = tomllib.loads(fix.file.text), tomllib.loads(fixed)
    assert _without_key(after, fix) == _without_key(before, fix), (where, fixed)
    return from_mapping(after, str(toml))


def _without_key(data: object, fix: Fix) -> object:
    """``data`` with the key the fix renames left out wherever it is (old or new name)."""
    assert fix.file is not None
    names = {fix.file.text[e.span.start : e.span.end].strip("\"'") for e in fix.edits}
    names |= {e.text.strip('"') for e in fix.edits}
    if isinstance(data, dict):
        return {k: _without_key(v, fix) for k, v in data.items() if k not in names}
    if isinstance(data, list):
        return [_without_key(v, fix) for v in data]
    return data


def check_case(case: Case) -> int:
    """Apply every fix offered on ``case``; the number of fixes applied."""
    before = case.analyse()
    applied = 0
    for diag in before.diagnostics:
        for fix in quick_fixes(before, diag):
            check_fix(case, before, diag, fix)
            applied += 1
    return applied


# -------------------------------------------------------------------------- tests


@functools.cache
def _golden_with_fixes() -> list[Case]:
    out = []
    for case in _golden_cases():
        analysis = case.analyse()
        if any(quick_fixes(analysis, d) for d in analysis.diagnostics):
            out.append(case)
    return out


@pytest.mark.parametrize("case", _golden_with_fixes(), ids=lambda c: c.name)
def test_every_golden_fix_applies_cleanly(case: Case) -> None:
    assert check_case(case) > 0


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"needs the corpus in {CORPUS} (absent)")
def test_every_corpus_fix_applies_cleanly() -> None:
    applied = sum(check_case(case) for case in _corpus_cases())
    assert applied > 0, "the corpus offers no quick fix at all"


def test_map_position_around_edits() -> None:
    edits = [Edit(Span(2, 4), "xyz"), Edit(Span(6, 6), "!!")]
    assert map_position(1, edits, end=False) == 1
    assert map_position(3, edits, end=False) == 2  # inside: the new text's start
    assert map_position(3, edits, end=True) == 5  # ... or its end
    assert map_position(5, edits, end=False) == 6
    assert map_position(6, edits, end=False) == 9  # an insertion before a start
    assert map_position(6, edits, end=True) == 7  # ... is after an end
    assert map_span(Span(4, 6), edits) == Span(5, 7)
    assert map_span(Span(6, 6), edits) == Span(9, 9)


def test_the_criteria_catch_a_fix_that_edits_the_wrong_place() -> None:
    """The former PP706 fault: renaming the pack's `agents` key instead of the
    configuration's table adds errors no title announces and moves the tree."""
    case = Case("cards/unknown-agent-config.yaml", GOLDEN / "cards/unknown-agent-config.yaml", True)
    before = case.analyse()
    diag = next(d for d in before.diagnostics if d.code == "PP706" and d.fixes)
    wrong = Fix("Replace with `researcher`", (Edit(diag.span, "researcher"),), diag)
    with pytest.raises(AssertionError):
        check_fix(case, before, diag, wrong)
    for fix in quick_fixes(before, diag):
        check_fix(case, before, diag, fix)
