"""Core completion contexts (no server): block, flow, JSON, mid-edit, templates."""

from __future__ import annotations

import pytest
from packs import PACK

from pack_lsp.core.checks.analysis import analyze
from pack_lsp.core.ide.completion import complete


def labels(text: str) -> list[str]:
    """Labels offered at the ``|`` marker."""
    offset = text.index("|")
    analysis = analyze(text.replace("|", "", 1), kind="promptpack")
    return [c.label for c in complete(analysis, offset)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (PACK.replace("      - lookup_order\n", "      - lookup_order\n      - |\n"), ["refund"]),
        (PACK.replace("tools: [refund]", "tools: [refund, |]"), ["lookup_order"]),
        (
            PACK.replace(
                "    description: Routes each request\n",
                "    description: Routes each request\n    tool_policy:\n      tool_choice: |\n",
            ),
            ["auto", "required", "none"],
        ),
        (
            PACK.replace('"Héllo 😀 {{user_name}}', '"Héllo 😀 {{|'),
            ["user_name", "fragments.greeting"],
        ),
        (PACK.replace("{{fragments.greeting}}", "{{fragments.gr|}}"), ["fragments.greeting"]),
        (PACK + "agents:\n  entry: triage\n  members:\n    triage: {}\n    |\n", ["billing"]),
        (PACK + "agents:\n  entry: |\n  members:\n    billing: {}\n", ["billing"]),
        (PACK + "workflow:\n  entry: |\n  states:\n    a: {}\n    b: {}\n", ["a", "b"]),
        (PACK + "workflow:\n  states:\n    a:\n      prompt_task: |\n", ["triage", "billing"]),
        (PACK + "workflow:\n  states:\n    a:\n      on_max_visits: |\n", ["a"]),
        (
            PACK
            + "workflow:\n  states:\n    a:\n      artifacts:\n        out:\n          mode: |\n",
            ["replace", "append"],
        ),
    ],
)
def test_contexts(text: str, expected: list[str]) -> None:
    assert labels(text) == expected


def test_schema_keys_skip_present_ones_and_carry_descriptions() -> None:
    text = PACK.replace(
        "    variables:\n      - name: user_name\n        type: string\n",
        "    variables:\n      - name: user_name\n        |\n        type: string\n",
    )
    offset = text.index("|")
    analysis = analyze(text.replace("|", "", 1), kind="promptpack")
    items = {c.label: c for c in complete(analysis, offset)}
    assert "name" not in items and "type" not in items and "required" not in items
    assert "description" in items and items["description"].documentation


def test_mid_edit_key_without_colon() -> None:
    got = labels(
        PACK.replace(
            "    description: Handles invoices\n",
            "    description: Handles invoices\n    tool_p|\n",
        )
    )
    assert "tool_policy" in got and "description" not in got


def test_json_flow_contexts() -> None:
    text = (
        '{"id": "x", "name": "X", "version": "1.0.0", "template_engine": {"version": '
        '"v1", "syntax": "{{variable}}"}, "tools": {"t1": {"name": "t1", "description": '
        '"T"}}, "prompts": {"p": {"id": "p", "name": "P", "version": "1.0.0", '
        '"system_template": "Hi {{|}}", "variables": [{"name": "who"}], "tools": []}}}'
    )
    assert labels(text) == ["who"]
    assert labels(text.replace("Hi {{|}}", "Hi").replace('"tools": []', '"tools": ["|"]')) == ["t1"]


def test_snippets_offered_in_maps() -> None:
    text = PACK.replace("prompts:\n  triage:", "prompts:\n  |\n  triage:")
    offset = text.index("|")
    analysis = analyze(text.replace("|", "", 1), kind="promptpack")
    snippets = [c for c in complete(analysis, offset) if c.snippet]
    assert [c.label for c in snippets] == ["new prompt"]
    assert snippets[0].insert_text is not None
    assert "\n    id: ${1:new_prompt}" in snippets[0].insert_text  # indented to the column


def test_tool_items_label_kind_and_description() -> None:
    text = PACK.replace("tools: [refund]", "tools: [refund, |]") + (
        "agents:\n  entry: triage\n  members:\n    triage: {description: Routes}\n"
    )
    offset = text.index("|")
    items = complete(analyze(text.replace("|", "", 1), kind="promptpack"), offset)
    details = {c.label: (c.kind, c.detail) for c in items}
    assert details == {
        "lookup_order": ("tool", "tool: Find an order by its number"),
        "triage": ("member", "agent member: Routes"),
    }


def test_garbage_never_crashes() -> None:
    for text in ["", ":", "- - -", "{{", "a: [", "prompts:\n  x: {{", "\t\t:"]:
        analysis = analyze(text, kind="promptpack")
        for offset in range(len(text) + 1):
            complete(analysis, offset)


TEAM = """id: demo
name: Demo
version: 1.0.0
template_engine: {version: v1, syntax: "{{variable}}"}
prompts:
  router:
    id: router
    name: R
    version: 1.0.0
    system_template: Hi
    tools:
      - lookup
      - |
  billing: {id: billing, name: B, version: 1.0.0, system_template: Hi}
  shipping: {id: shipping, name: S, version: 1.0.0, system_template: Hi}
tools:
  lookup: {name: lookup, description: L}
  refund: {name: refund, description: R}
agents:
  entry: router
  members: {router: {}, billing: {}, shipping: {}}
"""


def test_tool_items_never_offer_the_prompt_itself() -> None:
    """RFC 0007 rule 5: a prompt listing its own key would be an agent calling itself."""
    assert labels(TEAM) == ["refund", "billing", "shipping"]


def test_a2a_prefix_offers_other_members_only() -> None:
    assert labels(TEAM.replace("      - |", "      - a2a__|")) == ["a2a__billing", "a2a__shipping"]
    listed = TEAM.replace("      - lookup\n", "      - a2a__billing\n")
    assert labels(listed.replace("      - |", "      - a2a__|")) == ["a2a__shipping"]


@pytest.mark.parametrize(
    "items",
    [
        "    tools:\n    - |\n",  # the dash at the key's column
        "    tools:\n    - lookup\n    - |\n",
        "    tools:\n    - |\n    system_template: Hi\n",
    ],
)
def test_empty_item_of_a_block_list_offers_tools(items: str) -> None:
    text = TEAM.replace("    system_template: Hi\n    tools:\n      - lookup\n      - |\n", items)
    found = labels(text)
    assert "refund" in found and "billing" in found and "router" not in found


def test_empty_value_in_a_flow_mapping_completes_the_value() -> None:
    base = TEAM.replace("      - |\n", "")
    text = base + "workflow:\n  entry: a\n  states:\n    a: {prompt_task: |}\n"
    assert labels(text) == ["router", "billing", "shipping"]


def test_a2a_names_are_offered_only_when_a2a_is_a_namespace() -> None:
    from pack_lsp.core.model.config import Config

    text = TEAM.replace("      - |", "      - a2a__|")
    offset = text.index("|")
    config = Config(tool_namespaces=("mcp__",))
    analysis = analyze(text.replace("|", "", 1), config=config, kind="promptpack")
    assert not [c.label for c in complete(analysis, offset) if c.label.startswith("a2a__")]


def test_a_tool_pattern_is_offered_with_what_it_matches() -> None:
    text = TEAM.replace("      - |", "      - look*|")
    offset = text.index("|")
    analysis = analyze(text.replace("|", "", 1), kind="promptpack")
    (item,) = complete(analysis, offset)
    assert item.label == "look*" and "Pack tools: `lookup`" in item.documentation


def test_an_mcp_server_prefix_offers_its_wildcard() -> None:
    offered = {c.label: c for c in _complete(TEAM.replace("      - |", "      - mcp__kb__|"))}
    assert "mcp__kb__*" in offered
    assert "not known from the pack" in offered["mcp__kb__*"].documentation


def _complete(text: str) -> list:  # type: ignore[type-arg]
    offset = text.index("|")
    return complete(analyze(text.replace("|", "", 1), kind="promptpack"), offset)
