"""`.json` packs are strict JSON; YAML stays YAML."""

from __future__ import annotations

import pytest

from pack_lsp.core.checks.analysis import analyze
from pack_lsp.core.syntax.jsontree import is_json_path, json_problem

VALID = '{"id": "demo", "name": "D\\u00e9mo \\ud83d\\ude00", "version": "1.0.0"}'


@pytest.mark.parametrize(
    ("text", "at", "words"),
    [
        ("{'id': 'x'}", 1, "double quotes"),
        ('{id: "x"}', 1, "property names must be strings"),
        ('{"id": "x",}', 11, "trailing comma before `}`"),
        ('{"a": [1, 2,]}', 12, "trailing comma before `]`"),
        ('{"id": "x"} // note', 12, "comments are not allowed"),
        ('{"id": "x"}  # note', 13, "comments are not allowed"),
        ('{"a": NaN}', 6, "`NaN` is not a JSON value"),
        ('{"a": "x\ny"}', 8, "raw line break"),
        ('{"a" 1}', 5, "expected `:`"),
        ('{"a": 1 "b": 2}', 8, "expected `,`"),
        ('{"a": 1}\n{"b": 2}', 9, "unexpected text after the end"),
        ('{\n  "a": 1\n', 11, "unexpected end of the file"),
    ],
)
def test_json_errors_are_worded_for_json_at_the_exact_offset(
    text: str, at: int, words: str
) -> None:
    problem = json_problem(text)
    assert problem is not None and problem.code == "PP013"
    assert problem.span.start == at, problem
    assert words in problem.message and problem.message.startswith("JSON syntax error: ")


def test_valid_json_keeps_the_tree_and_its_spans() -> None:
    assert json_problem(VALID) is None
    a = analyze(VALID, path="pack.json", kind="promptpack")
    assert not a.syntax_error and a.pack is not None
    assert a.pack.name is not None and a.pack.name.value == "Démo 😀"
    assert VALID[a.pack.version.span.start : a.pack.version.span.end] == '"1.0.0"'  # type: ignore[union-attr]


def test_a_json_error_reports_only_itself_and_keeps_a_tree_for_the_editor() -> None:
    a = analyze("{'id': 'demo', 'prompts': {}}", path="pack.JSON")
    assert [d.code for d in a.diagnostics] == ["PP013"]
    assert a.syntax_error and a.root is not None


def test_yaml_files_keep_yaml_syntax() -> None:
    a = analyze("{'id': 'demo', name: Demo,}", path="pack.yaml")
    assert "PP013" not in {d.code for d in a.diagnostics}
    assert is_json_path("a/b.Json") and not is_json_path("a.yaml") and not is_json_path(None)


def test_an_empty_json_file_is_the_empty_document() -> None:
    assert [d.code for d in analyze("  \n", path="pack.json").diagnostics] == ["PP003"]
