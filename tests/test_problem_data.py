"""Typed diagnostic data (``core/base/problemdata.py``): each object is the mapping
editors receive, and a kind that has a class is never written as a dict."""

from __future__ import annotations

import ast
import json

import pytest

from pack_lsp.core.base import problemdata
from pack_lsp.core.base.diagnostics import make
from pack_lsp.core.base.problemdata import (
    PROBLEM_DATA,
    ProblemData,
    UndefinedObligation,
    UndefinedPrompt,
    UndefinedState,
    UnresolvedStepReference,
)
from pack_lsp.core.base.text import Span
from pack_lsp.core.checks.rules.workflow import UNDEFINED_STATE
from pack_lsp.server.diagnostics import _plain
from paths import ROOT

LSP = ROOT / "lsp" / "pack_lsp"


def test_the_mapping_is_kind_then_the_fields_in_order() -> None:
    data = UndefinedPrompt(name="biling", state="pay", suggestions=["billing"])
    assert list(data.items()) == [
        ("kind", "undefined-prompt"),
        ("name", "biling"),
        ("state", "pay"),
        ("suggestions", ["billing"]),
    ]
    # The optional fields a problem does not have are left out, not sent as null.
    step = UndefinedPrompt(name="x", suggestions=[], composition="flow")
    assert list(step) == ["kind", "name", "suggestions", "composition"]
    assert "state" not in step and len(step) == 4
    # A field that is not optional is sent even when it is null.
    assert dict(UndefinedObligation(name="o", member=None, suggestions=[]))["member"] is None
    assert list(UnresolvedStepReference(name="s", composition="c")) == [
        "kind",
        "name",
        "composition",
    ]


def test_a_diagnostic_carries_the_same_data_as_the_hand_written_dict() -> None:
    typed = make(
        UNDEFINED_STATE,
        "m",
        Span(0, 1),
        data=UndefinedState(name="x", suggestions=["y"], state="s"),
    )
    written = make(
        UNDEFINED_STATE,
        "m",
        Span(0, 1),
        data={"kind": "undefined-state", "name": "x", "suggestions": ["y"], "state": "s"},
    )
    assert typed == written
    assert json.dumps(_plain(typed.data)) == json.dumps(_plain(written.data))


def test_every_class_is_listed_and_optional_fields_default_to_none() -> None:
    found = {
        cls
        for cls in vars(problemdata).values()
        if isinstance(cls, type) and issubclass(cls, ProblemData) and cls is not ProblemData
    }
    assert found == set(PROBLEM_DATA)
    for cls in PROBLEM_DATA:
        for name, is_optional in cls.FIELDS:
            if is_optional:  # left out by a maker that does not have it: None
                assert getattr(_made(cls, name), name) is None, (cls, name)


def _made(cls: type[ProblemData], left_out: str) -> ProblemData:
    """An object of ``cls`` with every field but ``left_out`` given."""
    return cls(**{name: [] for name, _ in cls.FIELDS if name != left_out})


def test_problem_data_is_checked_as_a_dataclass_would_be() -> None:
    with pytest.raises(TypeError, match="needs the keyword argument `suggestions`"):
        UndefinedState(name="x")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="takes no argument stat"):
        UndefinedState(name="x", suggestions=[], stat="s")  # type: ignore[call-arg]
    data = UndefinedState(name="x", suggestions=["y"])
    assert repr(data) == "UndefinedState(name='x', suggestions=['y'], state=None)"
    assert data == {"kind": "undefined-state", "name": "x", "suggestions": ["y"]}
    # A field is read from its annotation, in declaration order, ClassVars left out.
    assert UndefinedPrompt.FIELDS == (
        ("name", False),
        ("state", True),
        ("suggestions", False),
        ("composition", True),
    )


def _kinds_written_as_dicts(text: str) -> list[tuple[str, int]]:
    """The ``data={"kind": ...}`` dicts written in ``text``, with their lines."""
    out = []
    for node in ast.walk(ast.parse(text)):
        if not (isinstance(node, ast.keyword) and node.arg == "data"):
            continue
        if not isinstance(node.value, ast.Dict):
            continue
        for key, value in zip(node.value.keys, node.value.values, strict=True):
            if isinstance(key, ast.Constant) and key.value == "kind":
                out.append((ast.unparse(value), node.value.lineno))
    return out


def test_the_scan_sees_a_kind_written_as_a_dict() -> None:
    text = 'make(RULE, "m", span, data={"kind": "undefined-state", "name": "x"})\n'
    assert _kinds_written_as_dicts(text) == [("'undefined-state'", 1)]
    assert _kinds_written_as_dicts("make(RULE, 'm', span, data=UndefinedState(name='x'))") == []


def test_every_kind_is_built_from_its_class() -> None:
    """Every diagnostic's data with a ``kind`` (the core makes them all) is an object of
    a ``PROBLEM_DATA`` class, never a hand-written dict."""
    written = [
        (kind, f"{path.relative_to(ROOT)}:{line}")
        for path in sorted((LSP / "core").rglob("*.py"))
        for kind, line in _kinds_written_as_dicts(path.read_text("utf-8"))
    ]
    assert written == []


def test_an_object_compares_as_its_mapping_and_stays_frozen() -> None:
    one = UndefinedState(name="x", suggestions=["y"], state="s")
    assert one == UndefinedState(name="x", suggestions=["y"], state="s")
    assert one != UndefinedState(name="x", suggestions=["y"])
    assert one == {"kind": "undefined-state", "name": "x", "suggestions": ["y"], "state": "s"}
    assert UndefinedPrompt(name="x", suggestions=[]) != UndefinedState(name="x", suggestions=[])
    with pytest.raises(AttributeError, match="cannot assign"):
        one.name = "z"  # type: ignore[misc]


def test_every_class_is_documented_by_its_kind_or_its_own_docstring() -> None:
    # Each class has a docstring, its own or one from its kind (docs/decisions.md, D91).
    for cls in PROBLEM_DATA:
        doc = cls.__doc__ or ""
        assert doc and not doc.startswith(f"{cls.__name__}("), cls.__name__
    assert UndefinedState.__doc__ == "The facts of a problem of kind ``undefined-state``."
