"""Quick fixes: what each kind edits, their order, and the payloads rules build.

Every fix offered in the golden cases and the corpus is applied and checked in
``test_fixes_applied.py``; here, the details of each kind's edits, and the tests
that keep ``Rule.fixes``, the payloads rules build and the golden cases in step.
"""

from __future__ import annotations

import json
import pickle
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from golden_support import GOLDEN, case_id, cases, run_case
from language_support import analysis_of
from pack_lsp.core.base.diagnostics import Diagnostic
from pack_lsp.core.base.fixes import FixData, FixKind
from pack_lsp.core.base.text import Span
from pack_lsp.core.checks.analysis import Analysis
from pack_lsp.core.ide.codeactions import Fix, fixes_for, quick_fixes
from pack_lsp.core.ide.rename import apply_edits
from paths import SHARED


def reanalyse(path: Path, text: str) -> Analysis:
    return analysis_of(text, path.name)


def find(analysis: Analysis, code: str, needle: str) -> Diagnostic:
    for d in analysis.diagnostics:
        if d.code == code and needle in d.message:
            return d
    raise AssertionError(f"no {code} mentioning {needle!r} in {analysis.diagnostics}")


def fix_titled(fixes: list[Fix], title: str) -> Fix:
    for fix in fixes:
        if fix.title == title:
            return fix
    raise AssertionError(f"no fix {title!r} among {[f.title for f in fixes]}")


def test_quick_fix_ordering_and_preference() -> None:
    before = run_case(GOLDEN / "tools/undefined-tool.yaml")
    diag = find(before, "PP301", "`lookup_ordr`")
    fixes = quick_fixes(before, diag)
    assert [f.title for f in fixes] == [
        "Create a definition for tool `lookup_ordr`",
        "Replace with `lookup_order`",
    ]
    assert [f.preferred for f in fixes] == [False, True]
    # Namespaced names get no "create" fix.
    diag = find(before, "PP301", "`mcp__crm`")
    assert quick_fixes(before, diag) == []


def test_fixes_for_a_range_and_for_sent_diagnostics() -> None:
    before = run_case(GOLDEN / "agents/modes.yaml")
    line = before.lines.line_start(10)
    found = fixes_for(before, Span(line, before.lines.line_end(10)))
    assert [f.title for f in found] == ["Change to `text/plain`", "Change to `image/*`"]
    diag = find(before, "PP206", "`JSON`")
    only = fixes_for(before, diag.span, [(diag.code, diag.span)])
    assert [f.title for f in only] == ["Change to `application/json`"]


# ------------------------------------------------------------------ insertion style

PACK = """\
id: demo
name: Demo
version: 1.0.0
template_engine: {version: v1, syntax: "{{variable}}"}
prompts:
    support:
        id: support
        name: Support
        version: 1.0.0
        system_template: |
            Hi {{customer}}
        tools: [lookup]   # the order tool
"""


def apply_first(text: str, code: str, title: str) -> tuple[str, Analysis]:
    before = analysis_of(text)
    diag = next(d for d in before.diagnostics if d.code == code)
    fix = fix_titled(quick_fixes(before, diag), title)
    out = apply_edits(text, fix.edits)
    after = analysis_of(out)
    assert not after.syntax_error, out
    assert code not in {d.code for d in after.diagnostics}, (out, after.diagnostics)
    return out, after


def test_create_tool_adds_a_tools_section_with_the_file_indentation() -> None:
    out, after = apply_first(PACK, "PP301", "Create a definition for tool `lookup`")
    assert out.endswith(
        "        tools: [lookup]   # the order tool\n"
        "tools:\n"
        "    lookup:\n"
        "        name: lookup\n"
        "        description: Describe when the model should call lookup\n"
        "        parameters:\n"
        "            type: object\n"
        "            properties: {}\n"
    ), out
    assert [d.code for d in after.diagnostics if d.code.startswith("PP1")] == []


def test_create_tool_in_a_flow_tools_mapping() -> None:
    text = PACK + "tools: {other: {name: other, description: Other}}\n"
    out, _ = apply_first(text, "PP301", "Create a definition for tool `lookup`")
    assert out.endswith(
        "tools: {other: {name: other, description: Other}, lookup: {name: lookup, description: "
        "Describe when the model should call lookup, parameters: {type: object, "
        "properties: {}}}}\n"
    )


def test_create_tool_with_an_empty_tools_key() -> None:
    text = PACK + "tools:\n# nothing yet\n"
    out, _ = apply_first(text, "PP301", "Create a definition for tool `lookup`")
    assert "tools:\n    lookup:\n        name: lookup\n" in out
    assert out.endswith("# nothing yet\n")


def test_create_tool_in_json() -> None:
    data = {
        "id": "demo",
        "name": "Demo",
        "version": "1.0.0",
        "template_engine": {"version": "v1", "syntax": "{{variable}}"},
        "prompts": {
            "support": {
                "id": "support",
                "name": "Support",
                "version": "1.0.0",
                "system_template": "Hi",
                "tools": ["lookup"],
            }
        },
        "tools": {"other": {"name": "other", "description": "Other"}},
    }
    text = json.dumps(data, indent=2) + "\n"
    out, _ = apply_first(text, "PP301", "Create a definition for tool `lookup`")
    parsed = json.loads(out)
    assert parsed["tools"]["lookup"]["name"] == "lookup"
    assert '\n    "lookup": {\n      "name": "lookup",' in out
    # Without a tools section.
    del data["tools"]
    text = json.dumps(data, indent=2) + "\n"
    out, _ = apply_first(text, "PP301", "Create a definition for tool `lookup`")
    assert json.loads(out)["tools"]["lookup"]["parameters"] == {"type": "object", "properties": {}}


def test_crlf_is_kept() -> None:
    text = PACK.replace("\n", "\r\n")
    out, _ = apply_first(text, "PP301", "Create a definition for tool `lookup`")
    assert "\n" not in out.replace("\r\n", "")


def test_add_member_to_a_block_and_a_flow_mapping() -> None:
    base = (
        PACK.replace("tools: [lookup]", "tools: [helper]")
        + "    helper: {id: helper, name: Helper, version: 1.0.0, description: Helps,"
        " system_template: Hi}\n"
    )
    block = (
        base + "agents:\n    entry: support\n    members:\n        support:\n"
        "            description: Front\n"
    )
    out, _ = apply_first(block, "PP205", "Add `helper` to `agents.members`")
    assert out.endswith("            description: Front\n        helper: {}\n")
    flow = base + "agents: {entry: support, members: {support: {description: Front}}}\n"
    out, _ = apply_first(flow, "PP205", "Add `helper` to `agents.members`")
    assert out.endswith("members: {support: {description: Front}, helper: {}}}\n")


def test_declare_variable_adds_a_variables_list() -> None:
    out, _ = apply_first(PACK, "PP502", "Declare variable `customer` in prompt `support`")
    assert (
        "        tools: [lookup]   # the order tool\n"
        "        variables:\n"
        "            - name: customer\n"
        "              type: string\n"
        "              required: true\n"
    ) in out


def test_declare_variable_appends_to_block_and_flow_lists() -> None:
    block = PACK.replace("Hi {{customer}}", "Hi {{customer}} from {{company}}").replace(
        "        tools:",
        "        variables:\n        - name: company\n"
        "          type: string\n          required: true\n        tools:",
    )
    out, _ = apply_first(block, "PP502", "Declare variable `customer` in prompt `support`")
    assert (
        "        - name: company\n          type: string\n          required: true\n"
        "        - name: customer\n          type: string\n          required: true\n"
        "        tools:"
    ) in out
    flow = PACK.replace("Hi {{customer}}", "Hi {{customer}} from {{company}}").replace(
        "        tools:",
        "        variables: [{name: company, type: string, required: true}]\n        tools:",
    )
    out, _ = apply_first(flow, "PP502", "Declare variable `customer` in prompt `support`")
    assert (
        "variables: [{name: company, type: string, required: true}, "
        "{name: customer, type: string, required: true}]"
    ) in out


def test_placeholder_suggestion_replaces_only_the_name() -> None:
    text = PACK.replace("Hi {{customer}}", "Hi {{custome}}").replace(
        "        tools:",
        "        variables:\n          - {name: customer, type: string, "
        "required: true}\n        tools:",
    )
    out, _ = apply_first(text, "PP502", "Replace with `customer`")
    assert "Hi {{customer}}\n" in out


def test_add_member_to_an_empty_flow_mapping() -> None:
    base = (
        PACK.replace("tools: [lookup]", "tools: [helper]")
        + "    helper: {id: helper, name: Helper, version: 1.0.0, description: Helps,"
        " system_template: Hi}\n"
    )
    text = base + "agents:\n    entry: support\n    members: {}\n"
    before = analysis_of(text)
    diag = next(d for d in before.diagnostics if d.code == "PP205")
    fix = fix_titled(quick_fixes(before, diag), "Add `helper` to `agents.members`")
    out = apply_edits(text, fix.edits)
    assert out.endswith("    members: {helper: {}}\n")
    assert "PP205" not in {d.code for d in analysis_of(out).diagnostics}


def test_every_fix_kind_is_offered_by_a_rule_and_handled() -> None:
    from pack_lsp.core.base.fixes import PAYLOADS, FixKind
    from pack_lsp.core.checks.registry import REGISTRY
    from pack_lsp.core.ide.codeactions import HANDLED

    offered = {kind for rule in REGISTRY.values() for kind in rule.fixes}
    assert offered == set(FixKind), "a fix kind no rule offers"
    assert set(FixKind) == HANDLED, "a fix kind without a handler"
    assert sorted(p.kind.value for p in PAYLOADS) == sorted(k.value for k in FixKind), (
        "one payload class per kind"
    )
    for rule in REGISTRY.values():
        assert len(set(rule.fixes)) == len(rule.fixes), rule.code


def _shown_fixes() -> dict[str, set[FixKind]]:
    """For each code, the kinds of the fixes the golden expected files show.

    The golden test keeps each expected file equal to what the core renders, fixes
    included, so what ``quick_fixes`` offers on a case is what its file shows.
    """
    shown: dict[str, set[FixKind]] = {}
    for path in cases():
        analysis = run_case(path)
        for diag in analysis.diagnostics:
            for payload in diag.fixes:
                if _offered(analysis, diag, payload):
                    shown.setdefault(diag.code, set()).add(payload.kind)
    return shown


def _offered(analysis: Analysis, diag: Diagnostic, payload: FixData) -> bool:
    """Whether ``payload`` gives at least one fix on its own."""
    return bool(quick_fixes(analysis, replace(diag, fixes=(payload,))))


def test_every_declared_fix_is_shown_in_a_golden_case() -> None:
    from pack_lsp.core.checks.registry import REGISTRY

    shown = _shown_fixes()
    missing = sorted(
        f"{code} {kind.value}"
        for code, rule in REGISTRY.items()
        for kind in rule.fixes
        if kind not in shown.get(code, set())
    )
    assert not missing, f"declared fixes no golden expected file shows: {missing}"


def _payload_sources() -> Iterator[tuple[str, Analysis]]:
    """Analyses of the golden cases, of the rule examples and of the corpus."""
    from pack_lsp.core.base.diagnostics import ExampleKind
    from pack_lsp.core.checks.registry import REGISTRY

    for path in cases():
        yield case_id(path), run_case(path)
    for rule in REGISTRY.values():
        if rule.example_kind in (ExampleKind.PACK, ExampleKind.PACK_JSON):
            text = rule.example
            name = "pack.promptpack.json" if rule.example_kind is ExampleKind.PACK_JSON else ""
            yield f"example of {rule.code}", analysis_of(text, name or "pack.promptpack.yaml")
    corpus = SHARED / "corpus"
    if corpus.is_dir():
        for path in sorted(corpus.rglob("*.yaml")):
            yield path.name, analysis_of(path.read_text(encoding="utf-8"), path.name)


def test_rules_build_only_the_payloads_they_declare() -> None:
    """Every payload a diagnostic carries is of a kind its rule declares; the golden
    test above checks the other way (every declared kind is built and shown)."""
    from pack_lsp.core.checks.registry import REGISTRY

    wrong: set[str] = set()
    for name, analysis in _payload_sources():
        for diag in analysis.diagnostics:
            rule = REGISTRY.get(diag.code)
            declared = set(rule.fixes) if rule is not None else set()
            for payload in diag.fixes:
                if payload.kind not in declared:
                    wrong.add(f"{diag.code} builds {payload.kind.value} ({name})")
    assert not wrong, sorted(wrong)


def test_diagnostics_with_payloads_are_hashable_and_picklable() -> None:
    """Diagnostics travel back from the worker processes of ``pack-lsp --check``."""
    import pack_lsp.cli.check  # noqa: F401  (registers pickling of the data mappings)

    seen: dict[FixKind, Diagnostic] = {}
    for path in cases():
        for diag in run_case(path).diagnostics:
            for payload in diag.fixes:
                seen.setdefault(payload.kind, diag)
    assert set(seen) == set(FixKind)
    for diag in seen.values():
        copy = pickle.loads(pickle.dumps(diag))
        assert copy == diag
        assert hash(copy.fixes) == hash(diag.fixes)


def test_payload_spans_move_with_an_edit_before_them() -> None:
    """A per-prompt diagnostic reused after an edit in an earlier prompt offers its
    fix at the moved place (incremental analysis moves the payload's span too)."""
    from pack_lsp.core.base import kinds
    from pack_lsp.core.checks.analysis import analyze
    from pack_lsp.core.checks.incremental import reanalyze

    text = PACK.replace(
        "prompts:\n",
        "prompts:\n    intro:\n        id: intro\n        name: Intro\n"
        "        version: 1.0.0\n        system_template: Hello\n",
    ).replace("Hi {{customer}}", "Hi {{custome}}")
    text = text.replace(
        "        tools:",
        "        variables:\n          - {name: customer, type: string, "
        "required: true}\n        tools:",
    )
    path = "test.promptpack.yaml"
    first = analyze(text, path=path, kind=kinds.PROMPTPACK)
    edited = text.replace("system_template: Hello", "system_template: Hello there, welcome")
    second = reanalyze(first, edited, path=path, kind=kinds.PROMPTPACK)
    was = next(d for d in first.diagnostics if d.code == "PP502")
    diag = next(d for d in second.diagnostics if d.code == "PP502")
    assert diag.span == was.span.shifted(len(edited) - len(text))
    fix = fix_titled(quick_fixes(second, diag), "Replace with `customer`")
    assert "Hi {{customer}}\n" in apply_edits(edited, fix.edits)
