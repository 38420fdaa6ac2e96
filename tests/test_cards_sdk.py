"""Derived cards against the official A2A Python SDK (test-only, in its own venvs).

The 0.3 SDK's pydantic ``AgentCard`` and the 1.x SDK's protobuf ``AgentCard``
(strict JSON parse plus the fields the protocol marks as required) must accept
every card derived from the agent packs of the corpus and the RFC 0007 examples.
The environments are created under ``.tools/`` on first use (see
``tests/a2a_sdk_envs.py``), which needs the package index.
"""

from __future__ import annotations

import pytest

from a2a_sdk_envs import CHECK_03, CHECK_1, SDK_03, SDK_1, check
from test_cards import all_cards

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(
    ("env", "script", "version"),
    [
        (SDK_03, CHECK_03, "0.3.0"),
        (SDK_1, CHECK_1, "1.0"),
    ],
    ids=["a2a-sdk-0.3", "a2a-sdk-1"],
)
def test_sdk_accepts_every_derived_card(env: object, script: str, version: str) -> None:
    cards = all_cards(version)
    verdicts = check(env, script, cards)  # type: ignore[arg-type]
    assert len(verdicts) == len(cards)
    rejected = [v for v in verdicts if not v["ok"]]
    assert rejected == []


def test_sdk_1_rejects_a_0_3_card() -> None:
    # The oracle is not a rubber stamp: a 0.3.0 card has fields 1.0 does not know.
    cards = dict(list(all_cards("0.3.0").items())[:1])
    verdicts = check(SDK_1, CHECK_1, cards)
    assert [v["ok"] for v in verdicts] == [False]


def test_sdk_0_3_rejects_a_card_without_skills() -> None:
    label, card = next(iter(all_cards("0.3.0").items()))
    broken = {k: v for k, v in card.items() if k != "skills"}
    verdicts = check(SDK_03, CHECK_03, {label: broken})
    assert [v["ok"] for v in verdicts] == [False]
