"""Typed diagnostic data (``core/base/problemdata.py``): each object is the mapping
editors receive, and a kind that has a class is never written as a dict."""

from __future__ import annotations

import ast
import dataclasses
import json
from pathlib import Path

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
        for f in dataclasses.fields(cls):
            if f.metadata.get("optional"):
                assert f.default is None, (cls, f.name)


def _written_kinds() -> list[tuple[str, str]]:
    """The ``data={"kind": ...}`` dicts written in the package, with where."""
    out = []
    for path in sorted(LSP.rglob("*.py")):
        tree = ast.parse(path.read_text("utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.keyword) and node.arg == "data"):
                continue
            if not isinstance(node.value, ast.Dict):
                continue
            for key, value in zip(node.value.keys, node.value.values, strict=True):
                if (
                    isinstance(key, ast.Constant)
                    and key.value == "kind"
                    and isinstance(value, ast.Constant)
                ):
                    where = f"{Path(path).relative_to(ROOT)}:{node.value.lineno}"
                    out.append((str(value.value), where))
    return out


def test_a_kind_with_a_class_is_built_from_it() -> None:
    typed = {cls.KIND for cls in PROBLEM_DATA}
    written = _written_kinds()
    assert written  # the scan sees the kinds still written as dicts
    assert [(kind, where) for kind, where in written if kind in typed] == []
