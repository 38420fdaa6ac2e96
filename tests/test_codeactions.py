"""Quick fixes: each one applied to its golden case re-analyses clean for that code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from golden_support import GOLDEN, run_case
from language_support import analysis_of
from pack_lsp.core.analysis import Analysis
from pack_lsp.core.diagnostics import Diagnostic
from pack_lsp.core.language.codeactions import Fix, fixes_for, quick_fixes
from pack_lsp.core.language.rename import apply_edits
from pack_lsp.core.text import Span


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


GOLDEN_FIXES = [
    (
        "tools/undefined-tool.yaml",
        "PP301",
        "`refund_everything`",
        "Create a definition for tool `refund_everything`",
    ),
    ("tools/undefined-tool.yaml", "PP301", "`lookup_ordr`", "Replace with `lookup_order`"),
    ("tools/undefined-tool.yaml", "PP301", "Tool `search`", "Replace with `web_search`"),
    (
        "agents/non-member-prompt.yaml",
        "PP205",
        "prompt `router`",
        "Add `shipping` to `agents.members`",
    ),
    ("agents/entry-not-member.yaml", "PP202", "`router`", "Add `router` to `agents.members`"),
    ("agents/modes.yaml", "PP206", "`text` in", "Change to `text/plain`"),
    ("agents/modes.yaml", "PP206", "`JSON`", "Change to `application/json`"),
    ("other/prompt-ids.yaml", "PP601", "`billing`", "Change to `billing`"),
    ("tools/name-differs-from-key.yaml", "PP303", "`web_search`", "Change to `web_search`"),
    ("schema/unknown-property.yaml", "PP102", "`agent`", "Replace with `agents`"),
    ("schema/unknown-property.yaml", "PP102", "`system_templat`", "Replace with `system_template`"),
    ("templates/variables.yaml", "PP502", "`tier`", "Declare variable `tier` in prompt `support`"),
    ("templates/variables.yaml", "PP502", "`custmer_id`", "Replace with `customer_id`"),
    (
        "templates/escapes-and-emoji.yaml",
        "PP502",
        "`customer`",
        "Declare variable `customer` in prompt `support`",
    ),
    ("templates/escapes-and-emoji.yaml", "PP502", "`usr`", "Replace with `user`"),
    ("templates/crlf-block.yaml", "PP502", "`nme`", "Replace with `name`"),
    ("templates/crlf-block.yaml", "PP502", "`nme`", "Declare variable `nme` in prompt `support`"),
    ("workflow/states.yaml", "PP402", "`triag`", "Replace with `triage`"),
    ("workflow/states.yaml", "PP402", "`closng`", "Replace with `closing`"),
    ("workflow/states.yaml", "PP403", "`biling`", "Replace with `billing`"),
    ("schema/invalid-value.yaml", "PP104", "`fragment`", "Replace with `fragments`"),
    ("workflow/states.yaml", "PP405", "`resolved`", "Rename the event to `Resolved`"),
    ("agents/member-state.yaml", "PP210", "`resolv`", "Replace with `resolve`"),
    (
        "compositions/references.yaml",
        "PP901",
        "`analyse_document`",
        "Replace with `analyze_document`",
    ),
    ("compositions/references.yaml", "PP905", "`clasify`", "Replace with `classify`"),
    ("compositions/references.yaml", "PP906", "`extract_txt`", "Replace with `extract_text`"),
    ("compositions/references.yaml", "PP906", "`sbmit`", "Replace with `submit`"),
    ("compositions/references.yaml", "PP907", "`don`", "Replace with `done`"),
    ("compositions/references.yaml", "PP907", "`chek`", "Replace with `check`"),
    ("compositions/references.yaml", "PP908", "`tones`", "Replace with `tone`"),
    ("compositions/references.yaml", "PP909", "`extrct`", "Replace with `extract`"),
    ("providers/references.yaml", "PP923", "`draftr`", "Replace with `drafter`"),
    ("providers/references.yaml", "PP923", "`defualt`", "Replace with `default`"),
    ("providers/references.yaml", "PP922", "`imgae`", "Replace with `image`"),
    ("governance/controls.yaml", "PP931", "`ai-disclosur`", "Replace with `ai-disclosure`"),
    ("governance/controls.yaml", "PP932", "`tone-chek`", "Replace with `tone`"),
    ("governance/controls.yaml", "PP935", "`disclos`", "Replace with `disclose`"),
    ("workflow/agent-control.yaml", "PP415", "`done`", "Remove `control: agent`"),
    (
        "governance/fields-and-terms.yaml",
        "PP937",
        "`risk_clasification`",
        "Replace with `risk_classification`",
    ),
    ("compositions/references.yaml", "PP903", "`finish`", "Remove `composition`"),
    ("governance/effective.yaml", "PP935", "`aprove`", "Replace with `approve`"),
    ("governance/independent-of-on.yaml", "PP102", "`metadata.governance", "Replace with `axes`"),
    ("governance/independent-of-on.yaml", "PP102", "checker", "Replace with `axes`"),
    ("governance/independent-of-on.yaml", "PP102", "`true`", "Replace with `axes`"),
]


@pytest.mark.parametrize(
    ("case", "code", "needle", "title"),
    GOLDEN_FIXES,
    ids=[f"{c}:{t}" for c, _, _, t in GOLDEN_FIXES],
)
def test_quick_fix_on_golden_case(case: str, code: str, needle: str, title: str) -> None:
    path = GOLDEN / case
    before = run_case(path)
    diag = find(before, code, needle)
    fix = fix_titled(quick_fixes(before, diag), title)
    text = apply_edits(before.text, fix.edits)
    after = reanalyse(path, text)
    assert not after.syntax_error, text
    assert not [d for d in after.diagnostics if d.code == code and d.message == diag.message], text
    # The fix introduces no new kind of problem.
    assert {d.code for d in after.diagnostics} <= {d.code for d in before.diagnostics}, (
        text,
        after.diagnostics,
    )


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
    from pack_lsp.core.diagnostics import FixKind
    from pack_lsp.core.language.codeactions import HANDLERS
    from pack_lsp.core.registry import REGISTRY

    offered = {kind for rule in REGISTRY.values() for kind in rule.fixes}
    assert offered == set(FixKind), "a fix kind no rule offers"
    assert set(HANDLERS) == set(FixKind), "a fix kind without a handler, or the reverse"
    for rule in REGISTRY.values():
        assert len(set(rule.fixes)) == len(rule.fixes), rule.code
