"""Effective governance (RFC 0013 per-field replacement) and the PP93x rules over it."""

from __future__ import annotations

from language_support import analysis_of
from pack_lsp.core.checks.analysis import Analysis
from pack_lsp.core.checks.rules.governance import EffectiveGovernance, effective_governance
from pack_lsp.core.model.pack import Pack

HEAD = """\
id: demo
name: Demo
version: 1.0.0
template_engine: {version: v1, syntax: "{{variable}}"}
prompts:
  triage:
    {id: triage, name: Triage, version: 1.0.0, description: Sorts, system_template: Sort,
     tools: [remediator]}
  remediator:
    {id: remediator, name: Remediator, version: 1.0.0, description: Fixes, system_template: Fix}
"""

# RFC 0013, Example 2 (governance only): the remediator "inherits everything except
# `autonomy_level` and `foreseeable_misuse`, which it replaces wholesale".
RFC_0013_EXAMPLE = (
    HEAD
    + """\
metadata:
  governance:
    vocabularies: {acme: "https://acme.example/vocab#"}
    intended_purpose: Triage infrastructure alerts and propose remediation
    foreseeable_misuse:
      - Automated remediation in production without review
    autonomy_level: acts_with_oversight
    accountable_owner: platform-security
    operator_role: eu-aiact:AIProvider
    risk_classification: eu-aiact:HighRiskAI
    intended_deployment_contexts: [eu-aiact:CriticalInfrastructure]
    approved_environments: [staging]
    extensions:
      acme.example/control-set: SOC2-CC7
agents:
  entry: triage
  members:
    triage: {}
    remediator:
      description: Applies an approved remediation plan
      governance:
        autonomy_level: acts_with_approval
        foreseeable_misuse:
          - Applying a plan that no reviewer approved
"""
)


SIMPLE = """\
id: demo
name: Demo
version: 1.0.0
template_engine: {version: v1, syntax: "{{variable}}"}
prompts:
  support: {id: support, name: Support, version: 1.0.0, system_template: Help}
"""


def pack_of(text: str) -> tuple[Analysis, Pack]:
    analysis = analysis_of(text)
    assert analysis.pack is not None
    return analysis, analysis.pack


def member(pack: Pack, key: str) -> EffectiveGovernance:
    for eff in effective_governance(pack):
        if eff.member == key:
            return eff
    raise AssertionError(f"no governance for member {key!r}")


def codes(analysis: Analysis) -> list[str]:
    return [d.code for d in analysis.diagnostics]


def test_pack_level_governance_inherits_nothing() -> None:
    _, pack = pack_of(RFC_0013_EXAMPLE)
    first = effective_governance(pack)[0]
    assert first.member is None
    assert first.inherited is None
    assert first.vocabularies == ["acme"]


def test_rfc_0013_example_member_replaces_two_fields_and_inherits_the_rest() -> None:
    analysis, pack = pack_of(RFC_0013_EXAMPLE)
    assert not analysis.diagnostics
    eff = member(pack, "remediator")
    pack_level = effective_governance(pack)[0].own
    assert eff.inherited is pack_level
    for field in ("autonomy_level", "foreseeable_misuse"):
        assert eff.source(field) is eff.own
        assert eff.replaces(field)
    for field in (
        "vocabularies",
        "intended_purpose",
        "accountable_owner",
        "operator_role",
        "risk_classification",
        "intended_deployment_contexts",
        "approved_environments",
        "extensions",
    ):
        assert eff.source(field) is pack_level, field
        assert not eff.replaces(field)
    assert eff.source("reviews") is None
    assert eff.vocabularies == ["acme"]
    # The pack's terms are the member's too: none of their fields is replaced.
    assert sorted(term.text for _, term, _ in eff.terms()) == [
        "eu-aiact:AIProvider",
        "eu-aiact:CriticalInfrastructure",
        "eu-aiact:HighRiskAI",
    ]


def test_vocabularies_and_extensions_are_replaced_whole_not_merged() -> None:
    text = (
        HEAD
        + """\
metadata:
  governance:
    vocabularies: {corp: "https://corp.example/#", shared: "https://shared.example/#"}
    extensions: {corp.example/tier: gold}
    capabilities: ["corp:Sorting"]
agents:
  entry: triage
  members:
    triage: {}
    remediator:
      governance:
        vocabularies: {shared: "https://shared.example/#"}
        extensions: {acme.example/tier: silver}
        capabilities: ["shared:Fixing"]
"""
    )
    analysis, pack = pack_of(text)
    eff = member(pack, "remediator")
    assert eff.vocabularies == ["shared"]
    assert eff.source("extensions") is eff.own
    # Its own `capabilities` replaces the pack's: the pack's term is not the member's.
    assert [term.text for _, term, _ in eff.terms()] == ["shared:Fixing"]
    assert not analysis.diagnostics


def test_member_own_term_with_a_prefix_only_the_pack_declares_warns() -> None:
    text = (
        HEAD
        + """\
metadata:
  governance:
    vocabularies: {corp: "https://corp.example/#"}
agents:
  entry: triage
  members:
    triage: {}
    remediator:
      governance:
        vocabularies: {acme: "https://acme.example/#"}
        operator_role: "corp:Owner"
"""
    )
    analysis, _ = pack_of(text)
    [diag] = analysis.diagnostics
    assert diag.code == "PP938"
    assert diag.severity.name == "WARNING"  # RFC 0013 rule 5: SHOULD warn, MUST NOT error
    assert "replaces the pack's whole" in diag.message
    # Without its own map the member inherits the pack's, and the prefix resolves.
    analysis, _ = pack_of(
        text.replace('        vocabularies: {acme: "https://acme.example/#"}\n', "")
    )
    assert not analysis.diagnostics


def test_obligations_replace_whole_rather_than_merging_element_wise() -> None:
    # RFC 0016, testing strategy: "AgentDef.governance replaces `obligations` whole".
    text = (
        HEAD
        + """\
metadata:
  governance:
    obligations:
      - {id: disclose, obligation: "eu-aiact:Article50", controls: [{external: Legal}]}
agents:
  entry: triage
  members:
    triage: {}
    remediator:
      governance:
        obligations:
          - {id: approve, obligation: "dpv:HumanApproval", controls: [{external: Ops}]}
        reviews:
          - {id: check, type: "dpv:Audit", cadence: P3M, owner: ops, satisfies: [approve, disclose]}
"""
    )
    analysis, pack = pack_of(text)
    eff = member(pack, "remediator")
    assert [o.id.text for o in eff.obligations if o.id is not None] == ["approve"]
    [diag] = analysis.diagnostics
    assert diag.code == "PP935"
    assert "`disclose`" in diag.message and "replaces the pack's whole" in diag.message
    assert diag.data["suggestions"] == []  # no "fix" towards an obligation it cannot see
    # A member that declares no `obligations` inherits the pack's: both resolve only
    # if it declares no obligation of its own, so `approve` is then the one missing.
    inherited = text.replace(
        "        obligations:\n"
        '          - {id: approve, obligation: "dpv:HumanApproval", controls: [{external: Ops}]}\n',
        "",
    )
    analysis, _ = pack_of(inherited)
    assert [(d.code, "`approve`" in d.message) for d in analysis.diagnostics] == [("PP935", True)]


def test_inherited_review_must_resolve_in_the_member_that_replaces_obligations() -> None:
    text = (
        HEAD
        + """\
metadata:
  governance:
    obligations:
      - {id: disclose, obligation: "eu-aiact:Article50", controls: [{external: Legal}]}
      - {id: log, obligation: "dpv:Logging", controls: [{external: Ops}]}
    reviews:
      - id: audit
        type: "dpv:Audit"
        cadence: P1Y
        owner: audit
        satisfies: [disclose, log, missing]
agents:
  entry: triage
  members:
    triage: {}
    remediator:
      governance:
        obligations:
          - {id: log, obligation: "dpv:Logging", controls: [{external: Ops}]}
"""
    )
    analysis, _ = pack_of(text)
    found = sorted((d.code, d.message.split("names ")[1][:10]) for d in analysis.diagnostics)
    # `missing` is reported once, at the pack; `disclose` once more for the member,
    # which replaced it; `log` resolves in both.
    assert found == [("PP935", "`disclose`"), ("PP935", "`missing`,")]
    member_diag = next(d for d in analysis.diagnostics if "`disclose`" in d.message)
    assert "inherited by member `remediator`" in member_diag.message
    assert member_diag.data["member"] == "remediator"
    assert member_diag.related and "own obligations" in member_diag.related[0].message


def test_field_controls_resolve_against_every_field_of_the_effective_object() -> None:
    text = (
        HEAD
        + """\
metadata:
  governance:
    requires_ai_disclosure: true
agents:
  entry: triage
  members:
    triage: {}
    remediator:
      governance:
        obligations:
          - id: tell
            obligation: "eu-aiact:Article50"
            controls: [{field: requires_ai_disclosure}, {field: approved_environments}]
"""
    )
    analysis, _ = pack_of(text)
    [diag] = analysis.diagnostics
    assert diag.code == "PP937" and "`approved_environments`" in diag.message


def test_nothing_inside_extensions_is_read() -> None:
    text = (
        HEAD
        + """\
metadata:
  governance:
    extensions:
      risk_classification: "zzz:Undeclared"
      obligations: [{id: x, obligation: "odd:Term", controls: [{validator: nope}]}]
      reviews: [{id: r, type: "odd:Review", satisfies: [nope]}]
    obligations:
      - id: disclose
        obligation: "eu-aiact:Article50"
        controls: [{external: Legal}]
        extensions: {framework: "soc2:CC7", controls: [{eval: nope}]}
agents:
  entry: triage
  members:
    triage: {}
    remediator:
      governance:
        extensions: {vocabularies: {}, operator_role: "zzz:Role"}
"""
    )
    analysis, pack = pack_of(text)
    assert not analysis.diagnostics
    for eff in effective_governance(pack):
        assert [term.text for _, term, _ in eff.terms()] == ["eu-aiact:Article50"]
        assert [c.kind for o in eff.obligations for c in o.controls] == ["external"]


def test_independent_of_on_renamed_axes_is_one_diagnostic_not_two() -> None:
    text = (
        SIMPLE
        + """\
metadata:
  governance:
    independent_of:
      on: [model]
"""
    )
    analysis, _ = pack_of(text)
    assert codes(analysis) == ["PP102"]  # not also "missing `axes`"
    [diag] = analysis.diagnostics
    assert "renamed `axes` in RFC 0016" in diag.message
    assert "YAML 1.1" in diag.message
    assert diag.data["suggestions"] == ["axes"]
    # Renamed, the pack is clean; `axes` missing for another reason is still reported.
    analysis, _ = pack_of(text.replace("on: [model]", "axes: [model]"))
    assert not analysis.diagnostics
    analysis, _ = pack_of(text.replace("on: [model]", "enforcement: strict"))
    assert codes(analysis) == ["PP101"]


def test_independent_of_on_in_json() -> None:
    text = (
        '{"id": "demo", "name": "Demo", "version": "1.0.0",'
        ' "template_engine": {"version": "v1", "syntax": "{{variable}}"},'
        ' "prompts": {"p": {"id": "p", "name": "P", "version": "1.0.0", "system_template": "Hi"}},'
        ' "metadata": {"governance": {"independent_of": {"on": ["tools"]}}}}'
    )
    analysis = analysis_of(text, "test.promptpack.json")
    assert codes(analysis) == ["PP102"]
    assert analysis.diagnostics[0].data["suggestions"] == ["axes"]
