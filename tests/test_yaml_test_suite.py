"""The composer against the YAML test suite (tests/data/yaml-test-suite, see its README).

Valid cases compose without PP001, except the groups in ``EXCLUDED_VALID``: YAML 1.2
that neither libyaml nor ruamel.yaml's pure-Python parser reads (docs/decisions.md,
D26). Error cases get PP001 within one line of the suite's error line
(``error_line``: where the reference parser of the extraction reports it), except
the ``KNOWN_GAPS`` both parsers accept and the ``OTHER_LINE`` cases, where we report
the error on another line of the same construct.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest

from pack_lsp.core.syntax.yamltree import parse
from paths import ROOT

CASES = ROOT / "tests" / "data" / "yaml-test-suite" / "cases.json"

#: Valid YAML 1.2 that both parsers reject, by group, with the reason.
EXCLUDED_VALID: dict[str, tuple[str, ...]] = {
    # A flow mapping key that is a JSON-like node followed by `:` without a space, or a
    # key on one line and its `:` on the next, or an empty key: YAML 1.2 flow forms
    # both parsers implement after YAML 1.1.
    "flow-keys": ("4MUZ/00", "4MUZ/01", "4MUZ/02", "5MUD", "9SA2", "CFD4", "K3WX", "NJ66"),
    # Tabs as separation where YAML 1.2 allows them (after indentation, before a
    # value, in flow collections, as block scalar content).
    "tabs": (
        "6BCT",
        "6CA3",
        "A2M4",
        "DK95/00",
        "DK95/03",
        "DK95/04",
        "Q5MG",
        "R4YG",
        "Y79Y/010",
    ),
    # A flow collection whose closing bracket or a multi-line entry sits at a lower
    # indentation than both parsers require.
    "flow-indentation": ("VJP3/01",),
    # Document markers and directives: `%YAML 1.3` (a later version), and `...` or
    # `---` followed by content or comments in ways the YAML 1.1-era parsers refuse.
    "documents": ("BEC7", "HWV9", "M7A3", "QT73", "UT92"),
    # A tag on an empty node before a flow indicator (`!!str,`), read as a tag with
    # a comma in it.
    "empty-tagged-flow": ("WZ62",),
}

#: Error cases both parsers accept, with the reason they are not caught.
KNOWN_GAPS: dict[str, str] = {
    "9C9N": "a flow sequence's continuation lines less indented than its key",
    "QB6E": "a multi-line double-quoted scalar's continuation lines less indented than its key",
    "DK95/01": "a tab as the indentation of a quoted scalar's continuation line",
    "Y79Y/003": "a tab at the start of a line inside a flow sequence of a block sequence",
    "CVW2": "a comment after a comma with no space before `#`, inside a flow sequence",
    "S98Z": "a block scalar's leading empty lines more indented than a later comment line",
    "U99R": "a comma in a tag shorthand (`!!str,`), legal in a flow collection only",
}

#: Error cases reported on another line than the reference's, with ours and why.
OTHER_LINE: dict[str, tuple[int, str]] = {
    "2CMS": (3, "a plain scalar over lines 1-2 becomes a key at the `:` of line 3"),
    "G9HC": (4, "an anchor alone on line 3 before a block sequence, which ends at line 4"),
    "H7J7": (3, "a tag alone on line 2 before a block mapping whose `:` is on line 3"),
}


@cache
def _cases() -> dict[str, dict[str, Any]]:
    cases: dict[str, dict[str, Any]] = json.loads(CASES.read_text(encoding="utf-8"))["cases"]
    return cases


def _excluded() -> set[str]:
    return {name for group in EXCLUDED_VALID.values() for name in group}


def _pp001_line(text: str) -> int | None:
    result = parse(text)
    errors = [d for d in result.diagnostics if d.code == "PP001"]
    if not errors:
        return None
    return result.lines.position(errors[0].span.start).line + 1


def _valid() -> list[str]:
    return [n for n, c in _cases().items() if not c["error"]]


def _errors() -> list[str]:
    return [n for n, c in _cases().items() if c["error"]]


@pytest.mark.parametrize("name", _valid())
def test_valid_case_has_no_syntax_error(name: str) -> None:
    line = _pp001_line(_cases()[name]["yaml"])
    if name in _excluded():
        assert line is not None, f"{name} is read now: remove it from EXCLUDED_VALID"
        pytest.skip("valid YAML 1.2 neither parser reads (EXCLUDED_VALID)")
    assert line is None, f"{name} ({_cases()[name]['title']}): PP001 on line {line}"


@pytest.mark.parametrize("name", _errors())
def test_error_case_gets_a_syntax_error_on_its_line(name: str) -> None:
    case = _cases()[name]
    line = _pp001_line(case["yaml"])
    if name in KNOWN_GAPS:
        assert line is None, f"{name} is caught now: remove it from KNOWN_GAPS"
        pytest.skip(f"known gap: {KNOWN_GAPS[name]}")
    assert line is not None, f"{name} ({case['title']}): no PP001"
    want = OTHER_LINE[name][0] if name in OTHER_LINE else case["error_line"]
    assert abs(line - want) <= 1, f"{name} ({case['title']}): PP001 on line {line}, not {want}"


def test_counts() -> None:
    """The figures reported in docs/decisions.md (D26), and no stale list entry."""
    cases = _cases()
    assert len(_valid()) == 308
    assert len(_errors()) == 94
    assert _excluded() <= set(_valid())
    assert len(_excluded()) == 24
    assert set(KNOWN_GAPS) <= set(_errors())
    assert len(KNOWN_GAPS) == 7
    assert set(OTHER_LINE) <= set(_errors()) - set(KNOWN_GAPS)
    assert all(cases[n]["error_line"] >= 1 for n in _errors())
