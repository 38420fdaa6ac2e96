"""Core hover contexts (no server)."""

from __future__ import annotations

from packs import PACK

from pack_lsp.core.checks.analysis import analyze
from pack_lsp.core.ide.hover import hover

TEXT = PACK + (
    "agents:\n  entry: triage\n  members:\n    triage:\n      description: Front desk\n"
    "      tags: [support]\n      input_modes: [text/plain, application/json]\n"
    "workflow:\n  version: 1\n  entry: start\n  states:\n    start:\n"
    "      description: First step\n      prompt_task: billing\n      on_event:\n"
    "        Done: start\n"
)
ANALYSIS = analyze(TEXT, kind="promptpack")


def at(needle: str, delta: int = 1, nth: int = 0) -> str:
    index = -1
    for _ in range(nth + 1):
        index = TEXT.index(needle, index + 1)
    found = hover(ANALYSIS, index + delta)
    assert found is not None, needle
    return found.markdown


def test_key_shows_schema_documentation() -> None:
    assert "semantic version" in at("version: 2.0.0").lower()
    assert "Names of tools" in at("tools:\n      - lookup_order")


def test_tool_reference() -> None:
    body = at("- lookup_order", 3)
    assert "Find an order by its number" in body and "`order_id`: string" in body
    found = hover(ANALYSIS, TEXT.index("- lookup_order") + 3)
    assert found is not None
    assert TEXT[found.span.start : found.span.end] == "lookup_order"


def test_agent_entry_shows_card_skill() -> None:
    body = at("entry: triage", 8)
    assert "id: `triage`" in body and "name: Triage" in body
    assert "description: Front desk" in body and "tags: support" in body
    assert "input modes: text/plain, application/json" in body
    assert "output modes: text/plain" in body and "version 1.0.0" in body


def test_prompt_task_and_state_targets() -> None:
    assert "Handles invoices" in at("prompt_task: billing", 14)
    assert "First step" in at("Done: start", 7)


def test_placeholders() -> None:
    assert "variable `user_name`" in at("user_name}},", 1)
    assert "Hello {{user_name}}!" in at("fragments.greeting}}", 2)
    found = hover(ANALYSIS, TEXT.index("fragments.greeting}}") + 2)
    assert found is not None
    assert TEXT[found.span.start : found.span.end] == "fragments.greeting"


def test_nothing_on_plain_values() -> None:
    assert hover(ANALYSIS, TEXT.index("Customer support")) is None


TOOLS = TEXT.replace(
    "tools: [refund]", "tools: [refund, mcp__kb__*, look*, mcp__crm__find, a2a__triage]"
)


def _hover_tools(needle: str, delta: int = 1) -> str:
    analysis = analyze(TOOLS, kind="promptpack")
    found = hover(analysis, TOOLS.index(needle) + delta)
    assert found is not None, needle
    return found.markdown


def test_tool_patterns_show_what_they_match() -> None:
    mcp = _hover_tools("mcp__kb__*")
    assert "tool pattern `mcp__kb__*`" in mcp and "runtime provides in `mcp__`" in mcp
    look = _hover_tools("look*")
    assert "Pack tools: `lookup_order`" in look and "runtime" not in look


def test_runtime_names_and_a2a_names_are_described() -> None:
    assert "provided by the runtime" in _hover_tools("mcp__crm__find")
    assert "id: `triage`" in _hover_tools("a2a__triage", 7)
