"""Agent Card derivation, settings, validation and extensions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pack_lsp.core.checks.analysis import analyze
from pack_lsp.core.model.cards import (
    CardsConfigError,
    card_markdown,
    cards_for,
    describe,
    parse_settings,
    validate,
)
from pack_lsp.core.model.cards.extensions import (
    BASE,
    BLAST,
    EFFECT_DOMAIN,
    HITL,
    KNOWN,
    check_params,
    check_skills,
)
from pack_lsp.core.model.cards.problems import schema_errors
from pack_lsp.core.model.config import Config, from_mapping
from pack_lsp.core.model.pack import Pack
from paths import ROOT, SHARED, needs_shared

FIXTURES = ROOT / "tests" / "fixtures" / "cards"
CORPUS = SHARED / "corpus" / "valid"


def pack_of(text: str) -> tuple[Pack, Any]:
    analysis = analyze(text, kind="promptpack")
    assert analysis.pack is not None
    return analysis.pack, analysis


def line_col(text: str, offset: int) -> tuple[int, int]:
    before = text[:offset]
    return before.count("\n") + 1, offset - (before.rfind("\n") + 1) + 1


TEAM = """\
id: team
name: Team
version: 2.0.0
template_engine: {version: v1, syntax: "{{variable}}"}
prompts:
  lead:
    id: lead
    name: Lead
    version: 1.4.0
    description: Leads the team
    system_template: Lead.
    tools: [helper]
  helper:
    id: helper
    version: 1.1.0
    description: Helps out
    system_template: Help.
agents:
  entry: lead
  members:
    lead:
      tags: [lead]
    helper:
      description: Helps with anything
      tags: [help]
      input_modes: [text/plain, image/png]
"""


# ----------------------------------------------------------------------------- derivation


def test_spec_mapping() -> None:
    pack, _ = pack_of(TEAM)
    cards = cards_for(pack)
    assert list(cards.cards) == ["lead", "helper"]
    lead = cards.cards["lead"].document
    assert lead["protocolVersion"] == "0.3.0"
    assert lead["name"] == "Lead"
    assert lead["description"] == "Leads the team"
    assert lead["version"] == "1.4.0"  # the prompt's version under the spec profile
    assert lead["url"] == "http://localhost:8080/lead"
    assert lead["preferredTransport"] == "JSONRPC"
    assert lead["skills"] == [
        {
            "id": "lead",
            "name": "Lead",
            "description": "Leads the team",
            "tags": ["lead"],
            "inputModes": ["text/plain"],
            "outputModes": ["text/plain"],
        }
    ]
    helper = cards.cards["helper"].document
    assert helper["name"] == "helper"  # the prompt has no name: the key
    assert helper["description"] == "Helps with anything"  # the member's override
    assert helper["skills"][0]["description"] == "Helps with anything"
    assert helper["defaultInputModes"] == ["text/plain", "image/png"]
    assert helper["skills"][0]["inputModes"] == ["text/plain", "image/png"]
    assert cards.entry == "lead" and cards.cards["lead"].entry
    assert cards.cards["lead"].local_default


def test_promptkit_profile_takes_the_pack_version() -> None:
    pack, _ = pack_of(TEAM)
    cards = cards_for(pack, Config(profile="promptkit"))
    assert cards.cards["lead"].document["version"] == "2.0.0"
    assert cards_for(pack, profile="promptkit").cards["helper"].document["version"] == "2.0.0"
    assert cards_for(pack, profile="spec").cards["helper"].document["version"] == "1.1.0"


def test_entry_outside_members_gets_no_card_in_either_profile() -> None:
    # As PromptKit reads RFC 0007: only members are agents. PP202 says so on the
    # entry, and PP205 on a prompt that names it as a tool.
    text = TEAM.replace("    lead:\n      tags: [lead]\n", "")
    pack, _ = pack_of(text)
    assert list(cards_for(pack).cards) == ["helper"]
    assert list(cards_for(pack, profile="promptkit").cards) == ["helper"]
    codes = {d.code for d in analyze(text).diagnostics}
    assert "PP202" in codes


def test_a2a_1_0_shape() -> None:
    pack, _ = pack_of(TEAM)
    config = from_mapping(
        {
            "cards": {
                "a2a-version": "1.0",
                "url": "https://agents.example.com/{pack}/{agent}",
                "transport": "HTTP+JSON",
                "extended-card": True,
                "provider": {"organization": "Example", "url": "https://example.com"},
                "security-schemes": {"key": {"type": "apiKey", "name": "X-Key", "in": "header"}},
                "security": [{"key": []}],
            }
        }
    )
    doc = cards_for(pack, config).cards["lead"].document
    assert "protocolVersion" not in doc and "url" not in doc
    assert doc["supportedInterfaces"] == [
        {
            "url": "https://agents.example.com/team/lead",
            "protocolBinding": "HTTP+JSON",
            "protocolVersion": "1.0",
        }
    ]
    assert doc["capabilities"] == {"extendedAgentCard": True}
    assert doc["securitySchemes"] == {
        "key": {"apiKeySecurityScheme": {"location": "header", "name": "X-Key"}}
    }
    assert doc["securityRequirements"] == [{"schemes": {"key": {"list": []}}}]
    assert doc["provider"] == {"url": "https://example.com", "organization": "Example"}
    assert schema_errors(doc, "1.0") == []
    # The same configuration in 0.3.0 form.
    doc03 = cards_for(pack, config, version="0.3.0").cards["lead"].document
    assert doc03["securitySchemes"] == {"key": {"type": "apiKey", "name": "X-Key", "in": "header"}}
    assert doc03["security"] == [{"key": []}]
    assert doc03["supportsAuthenticatedExtendedCard"] is True
    assert schema_errors(doc03, "0.3.0") == []


def test_configured_fields_are_marked() -> None:
    pack, _ = pack_of(TEAM)
    shown = describe(cards_for(pack))
    assert shown["localDefault"] is True
    assert shown["discoveryPath"] == "/.well-known/agent-card.json"
    assert "/url" in shown["configured"]["lead"]
    assert "/name" not in shown["configured"]["lead"]
    configured = describe(cards_for(pack, from_mapping({"cards": {"url": "https://x/{agent}"}})))
    assert configured["localDefault"] is False
    assert configured["cards"]["helper"]["url"] == "https://x/helper"


def test_vision_assistant_describer_modes() -> None:
    pack, _ = pack_of((FIXTURES / "rfc0007-vision-assistant.yaml").read_text())
    for version in ("0.3.0", "1.0"):
        doc = cards_for(pack, version=version).cards["describer"].document
        assert doc["skills"][0]["inputModes"] == ["text/plain", "image/*"]
        assert doc["defaultInputModes"] == ["text/plain", "image/*"]
        assert doc["skills"][0]["outputModes"] == ["text/plain"]


def test_no_agents_no_cards() -> None:
    pack, _ = pack_of(TEAM.split("agents:")[0])
    assert cards_for(pack).cards == {}
    assert validate(cards_for(pack), pack) == []
    assert card_markdown(pack, "lead") is None


def test_card_markdown() -> None:
    pack, _ = pack_of(TEAM)
    text = card_markdown(pack, "lead")
    assert text is not None
    assert "Agent Card (entry agent)" in text and "`lead`" in text
    assert "local default" in text and '"protocolVersion": "0.3.0"' in text
    helper = card_markdown(pack, "helper", from_mapping({"cards": {"url": "https://x/{agent}"}}))
    assert helper is not None and "(from configuration)" in helper
    assert "`image/png`" in helper
    assert card_markdown(pack, "nobody") is None
    broken = from_mapping({"cards": {"url": "https://x/{who}"}})
    bad = card_markdown(pack, "lead", broken)
    assert bad is not None and "unavailable" in bad and "{who}" in bad


# ----------------------------------------------------------------------------- settings


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"url": "https://x/{name}"}, "url: unknown placeholder {name}"),
        ({"a2a-version": "2.0"}, "a2a_version: Input should be '0.3.0' or '1.0'"),
        ({"colour": "red"}, "colour: Extra inputs are not permitted"),
        ({"security-schemes": {"k": {"type": "apiKey", "name": "X"}}}, "a apiKey scheme needs in"),
        (
            {"security-schemes": {"o": {"type": "oauth2", "flows": {"magic": {}}}}},
            "unknown OAuth flow 'magic'",
        ),
        (
            {"security-schemes": {"o": {"type": "oauth2", "flows": {"client_credentials": {}}}}},
            "flow client_credentials needs token_url",
        ),
        (
            {"capabilities": {"extensions": [{"required": True}]}},
            "capabilities.extensions.0.uri: Field required",
        ),
        ({"provider": {"organization": "X"}}, "provider.url: Field required"),
    ],
)
def test_settings_errors_name_the_key(raw: dict[str, Any], expected: str) -> None:
    with pytest.raises(CardsConfigError) as info:
        parse_settings(raw, "/somewhere/.pack-lsp.toml")
    assert expected in str(info.value)
    assert "in .pack-lsp.toml" in str(info.value)


def test_settings_accept_every_key_style() -> None:
    for key in ("push-notifications", "push_notifications", "pushNotifications"):
        s = parse_settings({"capabilities": {key: True}, "a2aVersion": 1.0})
        assert s.capabilities.push_notifications is True
        assert s.a2a_version == "1.0"
    s = parse_settings(
        {
            "supportsAuthenticatedExtendedCard": True,
            "securitySchemes": {"oidc": {"type": "openIdConnect", "openIdConnectUrl": "https://o"}},
        }
    )
    assert s.extended_card is True
    assert s.security_schemes["oidc"].open_id_connect_url == "https://o"


def test_unknown_version_override() -> None:
    pack, _ = pack_of(TEAM)
    with pytest.raises(CardsConfigError, match="unknown A2A version"):
        cards_for(pack, version="9")


# ----------------------------------------------------------------------------- validation


def _problems(text: str, config: Config | None = None) -> list[tuple[str, int, int]]:
    pack, analysis = pack_of(text)
    cards = cards_for(pack, config)
    return [(p.code, *line_col(analysis.text, p.span.start)) for p in validate(cards, pack)]


def test_missing_description_lands_on_the_member() -> None:
    text = TEAM.replace("    description: Leads the team\n", "")
    assert ("PP209", 20, 5) in _problems(text)  # `lead:` under members (one line up)
    analysis = analyze(text, kind="promptpack")
    found = [d for d in analysis.diagnostics if d.code in ("PP209", "PP707")]
    assert [d.code for d in found] == ["PP209"]  # reported once, by the agents rule


def test_non_media_type_mode_lands_on_the_item() -> None:
    text = TEAM.replace("[text/plain, image/png]", "[text/plain, png]")
    assert ("PP206", 26, 33) in _problems(text)
    codes = [d.code for d in analyze(text, kind="promptpack").diagnostics]
    assert codes.count("PP206") == 1


def test_empty_tags_in_1_0_lands_on_the_tags_list() -> None:
    text = TEAM.replace("tags: [help]", "tags: []")
    config = from_mapping({"cards": {"a2a-version": "1.0"}})
    assert ("PP702", 25, 13) in _problems(text, config)
    assert not [p for p in _problems(text) if p[0] == "PP702"]  # 0.3.0 allows no tags


def test_security_requirement_naming_no_scheme() -> None:
    config = from_mapping({"cards": {"security": [{"nope": []}]}})
    problems = _problems(TEAM, config)
    assert ("PP703", 18, 1) in problems  # the `agents` key


def test_configured_value_refused_by_the_schema() -> None:
    config = from_mapping({"cards": {"a2a-version": "1.0", "url": ""}})
    problems = _problems(TEAM, config)
    assert problems.count(("PP707", 18, 1)) == 1  # once, not once per card


# ----------------------------------------------------------------------------- extensions


def test_known_extension_params() -> None:
    assert check_params(BLAST, {"skills": {"a": {"radius": "repo"}}}) == []
    assert [p.message for p in check_params(BLAST, {"skills": {"a": {"radius": "slef"}}})] == [
        "blast-v1: skill 'a': radius 'slef' is not one of self, project, repo, fleet, public; "
        "did you mean `self`?"
    ]
    assert check_params(HITL, {"skills": {"a": {"mode": "notification"}}}) == []
    assert len(check_params(HITL, {"skills": {"a": {}}})) == 1
    assert len(check_params(HITL, {"skills": {"a": "autonomous"}})) == 1
    good = {"domain": "board", "path": "data.count", "delta": -2, "confidence": 0}
    assert check_params(EFFECT_DOMAIN, {"skills": {"a": {"effects": [good]}}}) == []
    bad = {"domain": "", "path": "p", "delta": True, "confidence": -0.1}
    messages = [
        p.message for p in check_params(EFFECT_DOMAIN, {"skills": {"a": {"effects": [bad, "x"]}}})
    ]
    assert len(messages) == 4
    assert "needs a non-empty domain" in messages[0]
    assert "delta must be a number" in messages[1]
    assert "confidence must be a number from 0 to 1" in messages[2]
    assert "effect 2 must be a table" in messages[3]
    assert len(check_params(BLAST, {"radius": "self"})) == 1  # no skills table
    assert check_params("https://example.com/other", {"anything": 1}) == []


#: The declarations protoLabs' hub documents for blast-v1 and hitl-mode-v1
#: (protoLabsAI/protoWorkstacean docs/extensions/*.md at the commit D47 pins).
WORKSTACEAN_BLAST = {
    "skills": {
        "sitrep": {"radius": "self"},
        "pr_review": {"radius": "repo"},
        "bulk_migration": {"radius": "fleet", "note": "Rewrites every repo in the org"},
        "production_deploy": {"radius": "public"},
    }
}
WORKSTACEAN_HITL = {
    "skills": {
        "sitrep": {"mode": "autonomous"},
        "open_pr": {"mode": "notification"},
        "merge_pr": {"mode": "veto", "vetoTtlMs": 300000},
        "rebase_pr": {"mode": "gated"},
        "production_deploy": {"mode": "gated", "reviewer": "operator"},
        "publish_post": {"mode": "compound"},
    }
}


def test_workstaceans_documented_values_are_accepted() -> None:
    assert check_params(BLAST, WORKSTACEAN_BLAST) == []
    assert check_params(HITL, WORKSTACEAN_HITL) == []


def test_values_workstacean_skips_are_reported() -> None:
    skills = {
        "a": {"mode": "veto", "vetoTtlMs": "5m"},
        "b": {"mode": "gated", "reviewer": "human"},
        "c": {"mode": "manual"},
    }
    messages = [p.message for p in check_params(HITL, {"skills": skills})]
    assert len(messages) == 3
    assert "vetoTtlMs must be a number" in messages[0]
    assert "reviewer 'human' is not 'operator'" in messages[1]
    assert (
        "mode 'manual' is not one of autonomous, notification, veto, gated, compound"
        in (messages[2])
    )
    assert [p.message for p in check_params(BLAST, {"skills": {"a": {"radius": "world"}}})] == [
        "blast-v1: skill 'a': radius 'world' is not one of self, project, repo, fleet, public"
    ]


def test_the_four_protolabs_telemetry_extensions_are_known() -> None:
    for name in ("cost-v1", "confidence-v1", "worldstate-delta-v1", "tool-call-v1"):
        assert BASE + name in KNOWN
        assert check_params(BASE + name, None) == []


def test_extension_skill_ids_follow_renamed_prompts() -> None:
    problems = check_skills(
        HITL,
        {"skills": {"researcher": {"mode": "autonomous"}}},
        ["research_agent"],
        ["research_agent", "lead"],
    )
    assert [p.skill for p in problems] == ["researcher"]
    assert check_skills(BLAST, {"skills": {"lead": {}}}, ["lead"], ["lead"]) == []
    assert check_skills("https://example.com/x", {"skills": {"z": {}}}, ["a"], ["a"]) == []


def test_renamed_prompt_breaks_a_declared_extension() -> None:
    config = from_mapping(
        {
            "cards": {
                "agents": {
                    "helper": {
                        "extensions": [
                            {"uri": BLAST, "params": {"skills": {"helper": {"radius": "self"}}}}
                        ]
                    }
                }
            }
        }
    )
    assert not [p for p in _problems(TEAM, config) if p[0].startswith("PP70")]
    renamed = (
        TEAM.replace("  helper:\n    id: helper", "  assistant:\n    id: assistant")
        .replace("    helper:\n      description", "    assistant:\n      description")
        .replace("tools: [helper]", "tools: [assistant]")
    )
    problems = _problems(renamed, config)
    assert ("PP706", 18, 1) in problems  # the config table names no agent any more


def test_shared_extension_is_split_per_card() -> None:
    config = from_mapping(
        {
            "cards": {
                "capabilities": {
                    "extensions": [
                        {"uri": HITL, "params": {"skills": {"lead": {"mode": "autonomous"}}}},
                        {"uri": "https://proto-labs.ai/a2a/ext/cost-v1", "required": False},
                    ]
                }
            }
        }
    )
    pack, _ = pack_of(TEAM)
    cards = cards_for(pack, config)
    lead = cards.cards["lead"].document["capabilities"]["extensions"]
    helper = cards.cards["helper"].document["capabilities"]["extensions"]
    assert lead[0] == {"uri": HITL, "params": {"skills": {"lead": {"mode": "autonomous"}}}}
    assert [e["uri"] for e in helper] == ["https://proto-labs.ai/a2a/ext/cost-v1"]


# ----------------------------------------------------------------------------- schemas


def _variants() -> list[dict[str, Any]]:
    pack, _ = pack_of(TEAM)
    base = cards_for(pack).cards["helper"].document
    out = [base]
    for field in ("name", "url", "skills", "capabilities", "protocolVersion"):
        out.append({k: v for k, v in base.items() if k != field})
    out.append({**base, "skills": [{"id": "x", "name": "x", "description": "d"}]})
    out.append({**base, "capabilities": {"streaming": "yes"}})
    out.append({**base, "securitySchemes": {"k": {"type": "apiKey", "name": "n"}}})
    out.append({**base, "securitySchemes": {"k": {"type": "http", "scheme": "bearer"}}})
    out.append({**base, "provider": {"organization": "o"}})
    out.append({**base, "capabilities": {"extensions": [{"required": True}]}})
    return out


@needs_shared
def test_own_0_3_schema_agrees_with_the_official_one() -> None:
    from jsonschema import Draft7Validator

    official = json.loads((SHARED / "reference" / "a2a" / "a2a-0.3.0.json").read_text())
    validator = Draft7Validator({**official, "$ref": "#/definitions/AgentCard"})
    variants = _variants()
    verdicts = [(validator.is_valid(v), not schema_errors(v, "0.3.0")) for v in variants]
    assert all(a == b for a, b in verdicts), verdicts
    assert verdicts[0] == (True, True) and sum(a for a, _ in verdicts) == 2


@needs_shared
def test_own_1_0_schema_agrees_with_the_derived_one() -> None:
    from jsonschema import Draft202012Validator

    derived = json.loads(
        (SHARED / "reference" / "a2a" / "a2a-1.0.1.agentcard.derived.schema.json").read_text()
    )
    validator = Draft202012Validator(derived)
    pack, _ = pack_of(TEAM)
    base = cards_for(pack, version="1.0").cards["helper"].document
    variants = [base]
    for field in ("name", "description", "supportedInterfaces", "skills", "version"):
        variants.append({k: v for k, v in base.items() if k != field})
    variants.append({**base, "url": "https://x"})  # 0.3 field: unknown in 1.0
    variants.append({**base, "skills": [{**base["skills"][0], "tags": []}]})
    variants.append({**base, "defaultInputModes": []})
    variants.append({**base, "supportedInterfaces": [{"url": "u", "protocolBinding": "JSONRPC"}]})
    variants.append({**base, "securitySchemes": {"k": {"httpAuthSecurityScheme": {}}}})
    variants.append(
        {**base, "securitySchemes": {"k": {"httpAuthSecurityScheme": {"scheme": "bearer"}}}}
    )
    verdicts = [(validator.is_valid(v), not schema_errors(v, "1.0")) for v in variants]
    assert all(a == b for a, b in verdicts), verdicts
    assert verdicts[0] == (True, True) and verdicts[-1] == (True, True)


def test_1_0_scheme_is_exactly_one_kind() -> None:
    # Deliberately stricter than the derived reference: a scheme names one kind.
    pack, _ = pack_of(TEAM)
    base = cards_for(pack, version="1.0").cards["helper"].document
    two = {
        **base,
        "securitySchemes": {
            "k": {"httpAuthSecurityScheme": {"scheme": "bearer"}, "mtlsSecurityScheme": {}}
        },
    }
    assert schema_errors(two, "1.0")
    assert schema_errors({**base, "securitySchemes": {"k": {}}}, "1.0")


# ----------------------------------------------------------------------------- oracles


def corpus_packs() -> list[Path]:
    out = []
    for path in sorted(CORPUS.glob("*")):
        if path.is_file() and path.suffix in (".json", ".yaml", ".yml"):
            text = path.read_text(encoding="utf-8")
            if '"agents"' in text or "\nagents:" in text:
                out.append(path)
    return out + sorted(FIXTURES.glob("*.yaml"))


def all_cards(version: str) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for path in corpus_packs():
        analysis = analyze(path.read_text(encoding="utf-8"), path=path, kind="promptpack")
        assert analysis.pack is not None, path
        for profile in ("spec", "promptkit"):
            cards = cards_for(analysis.pack, profile=profile, version=version)  # type: ignore[arg-type]
            for key, card in cards.cards.items():
                out[f"{path.name}#{profile}#{key}"] = card.document
    return out


@needs_shared
def test_corpus_has_agent_packs() -> None:
    names = [p.name for p in corpus_packs()]
    assert len(names) >= 8
    assert any("vision-assistant" in n for n in names)
    assert len(all_cards("0.3.0")) >= 30


@needs_shared
def test_cards_validate_under_the_official_0_3_schema() -> None:
    from jsonschema import Draft7Validator

    official = json.loads((SHARED / "reference" / "a2a" / "a2a-0.3.0.json").read_text())
    validator = Draft7Validator({**official, "$ref": "#/definitions/AgentCard"})
    for label, card in all_cards("0.3.0").items():
        errors = [e.message for e in validator.iter_errors(card)]
        assert errors == [], label
        assert schema_errors(card, "0.3.0") == [], label


@needs_shared
def test_cards_validate_under_the_derived_1_0_schema() -> None:
    from jsonschema import Draft202012Validator

    derived = json.loads(
        (SHARED / "reference" / "a2a" / "a2a-1.0.1.agentcard.derived.schema.json").read_text()
    )
    validator = Draft202012Validator(derived)
    for label, card in all_cards("1.0").items():
        errors = [e.message for e in validator.iter_errors(card)]
        assert errors == [], label
        assert schema_errors(card, "1.0") == [], label


def test_exported_names_are_not_shadowed_by_submodules() -> None:
    # A name the package exports lazily must not be a submodule's name too: importing
    # that submodule would make the package attribute the module (a test importing
    # `validate` after another one loaded the submodule got a module, not the function).
    import importlib
    import pkgutil
    import types

    import pack_lsp.core.model.cards as package

    for info in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{package.__name__}.{info.name}")
    for name in package.__all__:
        assert not isinstance(getattr(package, name), types.ModuleType), name
