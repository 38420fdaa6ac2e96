"""RFC 0007 examples 1 and 2, written out as complete packs, get exactly the problems
a reader of the RFC expects: the coordinator/router names tools after skills that are
not the agents' prompt keys (the RFC's unresolved question 1), with a suggestion where
a key is close. Nothing else is reported above hint.

PP7xx (Agent Card and topology rules) are left to the cards tests: they report, as
information, the agents that these unresolved names leave unreachable.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pack_lsp.core.base.diagnostics import Severity
from pack_lsp.core.checks.analysis import Analysis, analyze
from pack_lsp.core.model.config import Config

FIXTURES = Path(__file__).parent / "fixtures" / "rfc0007"


def _analyse(name: str, profile: str = "spec") -> Analysis:
    path = FIXTURES / name
    return analyze(path.read_text(encoding="utf-8"), path=path, config=Config(profile=profile))  # type: ignore[arg-type]


def _problems(analysis: Analysis) -> set[tuple[str, str, str, tuple[str, ...]]]:
    out = set()
    for d in analysis.diagnostics:
        if d.severity == Severity.HINT or d.code.startswith("PP7"):
            continue
        out.add(
            (
                d.code,
                d.severity.label,
                analysis.text[d.span.start : d.span.end],
                tuple(d.data.get("suggestions", ())),
            )
        )
    return out


@pytest.mark.parametrize("profile", ["spec", "promptkit"])
def test_example_1_coordinator_with_two_specialists(profile: str) -> None:
    analysis = _analyse("example1-research-team.yaml", profile)
    assert _problems(analysis) == {
        ("PP301", "error", "research", ("researcher", "web_search")),
        ("PP301", "error", "analyze", ("analyst",)),
    }


@pytest.mark.parametrize("profile", ["spec", "promptkit"])
def test_example_2_customer_service_router(profile: str) -> None:
    analysis = _analyse("example2-customer-service.yaml", profile)
    assert _problems(analysis) == {
        ("PP301", "error", "billing", ("billing_agent",)),
        ("PP301", "error", "technical", ("tech_agent",)),
        ("PP301", "error", "orders", ("order_agent",)),
    }


def test_example_2_messages_name_the_router_and_the_suggestion() -> None:
    analysis = _analyse("example2-customer-service.yaml")
    billing = next(
        d for d in analysis.diagnostics if d.code == "PP301" and d.data["name"] == "billing"
    )
    assert billing.message == (
        "Tool `billing` of prompt `router` is not defined in the pack's `tools` and is not "
        "an agents member; did you mean `billing_agent`?"
    )
    assert billing.data["kind"] == "undefined-tool"


def test_example_2_with_option_a_applied_is_clean() -> None:
    """Unresolved question 1, option A/C: the router lists the prompt keys."""
    text = (FIXTURES / "example2-customer-service.yaml").read_text(encoding="utf-8")
    fixed = text.replace(
        "tools: [billing, technical, orders]", "tools: [billing_agent, tech_agent, order_agent]"
    )
    assert fixed != text
    analysis = analyze(fixed, path=FIXTURES / "fixed.yaml")
    assert [d for d in analysis.diagnostics if d.severity < Severity.HINT] == []
