"""What a pack means: call graph, inlay hints, rendered prompt, governance preview
(core functions and the command line); the LSP side is in tests/lsp/test_meaning_lsp.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pack_lsp.cli import main
from pack_lsp.core.base.text import Span
from pack_lsp.core.checks.analysis import analyze
from pack_lsp.core.ide import callhierarchy, links, terms
from pack_lsp.core.ide.governance import GovernanceError, governance_preview
from pack_lsp.core.ide.index import Kind, SymbolId
from pack_lsp.core.ide.inlayhints import inlay_hints
from pack_lsp.core.ide.render import RenderError, estimate_tokens, render
from pack_lsp.core.model import vocabulary
from paths import SHARED, needs_shared

HEAD = """\
id: demo
name: Demo
version: 1.0.0
"""

COMPOSED = (
    HEAD
    + """\
template_engine: {version: v1, syntax: "{{variable}}"}
requires: {providers: [default, {key: judge, role: llm}]}
prompts:
  classify: {id: classify, name: Classify, version: 1.0.0, provider: judge, system_template: C}
  reply: {id: reply, name: Reply, version: 1.0.0, system_template: R}
tools:
  crm: {name: crm, description: CRM}
compositions:
  handle:
    version: 1
    steps:
      - {id: intent, kind: prompt, prompt_task: classify}
      - {id: gate, kind: branch, then: answer, else: escalate, predicate: {path: x, op: exists}}
      - {id: answer, kind: prompt, prompt_task: reply}
      - {id: escalate, kind: agent, prompt_task: reply, provider: default, tools: [crm]}
"""
)


def _analysis(text: str, name: str = "demo.promptpack.yaml"):  # type: ignore[no-untyped-def]
    return analyze(text, path=Path(name))


def test_composition_calls() -> None:
    a = _analysis(COMPOSED)
    gate = SymbolId(Kind.STEP, "gate", "handle")
    out = {c.item.symbol.name: c.sites for c in callhierarchy.outgoing(a, gate)}
    assert set(out) == {"answer", "escalate"}
    assert [COMPOSED[s.start : s.end] for s in out["answer"]] == ["answer"]
    escalate = SymbolId(Kind.STEP, "escalate", "handle")
    assert {c.item.symbol for c in callhierarchy.outgoing(a, escalate)} == {
        SymbolId(Kind.PROMPT, "reply"),
        SymbolId(Kind.TOOL, "crm"),
    }
    callers = callhierarchy.incoming(a, SymbolId(Kind.PROMPT, "reply"))
    assert sorted(c.item.symbol.name for c in callers) == ["answer", "escalate"]
    comp = callhierarchy.outgoing(a, SymbolId(Kind.COMPOSITION, "handle"))
    assert [c.item.symbol.name for c in comp] == ["intent", "gate", "answer", "escalate"]
    # prepare on a step's id gives the step, with its id as selection
    [item] = callhierarchy.prepare(a, COMPOSED.index("escalate,") + 1)
    assert item.symbol == escalate
    [item] = callhierarchy.prepare(a, COMPOSED.index("id: escalate") + 5)
    assert COMPOSED[item.selection.start : item.selection.end] == "escalate"
    assert callhierarchy.item_for(a, "no-such-kind", "x", None) is None


def test_provider_hints_follow_the_precedence() -> None:
    a = _analysis(COMPOSED)
    hints = inlay_hints(a, Span(0, len(COMPOSED)), frozenset({"provider"}))
    labels = {COMPOSED[: h.offset].splitlines()[-1].strip(): h.label for h in hints}
    # `reply` writes no provider; `intent` takes its prompt's; `escalate` writes one
    assert labels == {
        "reply": "(provider default)",
        "- {id: intent, kind: prompt, prompt_task: classify": "(provider judge)",
        "- {id: answer, kind: prompt, prompt_task: reply": "(provider default)",
    }


def test_no_provider_hints_in_a_pack_without_providers() -> None:
    text = HEAD + "prompts:\n  a: {id: a, name: A, version: 1.0.0, system_template: x}\n"
    assert inlay_hints(_analysis(text), Span(0, len(text))) == []


def test_budget_hints() -> None:
    text = (
        HEAD
        + """\
prompts:
  a: {id: a, name: A, version: 1.0.0, system_template: x}
workflow:
  version: 1
  entry: s
  engine: {budget: {max_total_visits: 4}}
  states:
    s: {prompt_task: a, max_visits: 9, on_max_visits: t}
    t: {prompt_task: a, terminal: true}
"""
    )
    labels = [h.label for h in inlay_hints(_analysis(text), Span(0, len(text)))]
    assert labels == ["capped at engine.budget 4", "after visit 9"]


def test_hints_only_in_the_range() -> None:
    text = (
        HEAD
        + """\
prompts:
  a:
    id: a
    name: A
    version: 1.0.0
    system_template: "{{x}} and {{x}}"
    variables:
      - {name: x, type: string, required: false,
         default: "a\\nlong value that goes on and on and on and on"}
"""
    )
    a = _analysis(text)
    first = text.index("{{x}}") + 5
    assert [h.offset for h in inlay_hints(a, Span(0, first))] == [first]
    [hint] = inlay_hints(a, Span(0, first))
    assert hint.label.startswith("= a⏎long") and hint.label.endswith("…")


def test_render_dollar_syntax_and_cycles() -> None:
    text = (
        HEAD
        + """\
template_engine: {version: v1, syntax: "${variable}"}
fragments:
  sig: "Regards, ${team} ${fragments.loop}"
  loop: "again ${fragments.sig}"
prompts:
  t:
    id: t
    name: T
    version: 1.0.0
    system_template: "Hi ${who}. ${fragments.sig} ${artifacts.plan}"
    variables:
      - {name: who, type: string, required: true, example: Ada}
      - {name: team, type: string, required: false}
"""
    )
    r = render(_analysis(text), "t", {})
    assert r.text == "Hi Ada. Regards, ${team} again ${fragments.sig} ${artifacts.plan}"
    assert r.includes == ("t > sig", "t > sig > loop")
    assert r.unfilled == ("team",)
    assert r.runtime == ("${artifacts.plan}",)
    assert r.problems and "includes itself" in r.problems[0]
    assert r.characters == len(r.text) and r.tokens == estimate_tokens(r.text)


@pytest.mark.parametrize(
    ("syntax", "template"),
    [
        ("{{variable}}", "{{fragments.f}}"),
        ("{{variable}}", "{{fragment:f}}"),
        ("{{variable}}", "{{f}}"),
    ],
)
def test_render_each_fragment_dialect(syntax: str, template: str) -> None:
    text = (
        HEAD
        + f"""\
template_engine: {{version: v1, syntax: "{syntax}"}}
fragments:
  f: "from the fragment"
prompts:
  t: {{id: t, name: T, version: 1.0.0, system_template: "<{template}>"}}
"""
    )
    assert render(_analysis(text), "t").text == "<from the fragment>"


def test_render_refuses_with_a_reason() -> None:
    text = HEAD + "prompts:\n  a: {id: a, name: A, version: 1.0.0}\n"
    with pytest.raises(RenderError, match="no `system_template`"):
        render(_analysis(text), "a")
    with pytest.raises(RenderError, match="not a prompt of this pack"):
        render(_analysis(text), "b")


def test_token_estimate() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("Hello, world!") == 2 + 2
    assert estimate_tokens("internationalisation") == 5


GOVERNED = (
    HEAD
    + """\
metadata:
  governance: {data_classes: ["pp:Confidential"], operator_role: support}
prompts:
  a: {id: a, name: A, version: 1.0.0, system_template: x, description: d}
  b: {id: b, name: B, version: 1.0.0, system_template: x, description: d}
agents:
  entry: a
  members:
    a: {}
    b: {governance: {data_classes: ["pp:Public"]}}
"""
)


def test_governance_preview_replaces_whole_fields() -> None:
    preview = governance_preview(_analysis(GOVERNED))
    b = preview["agents"]["b"]
    assert b["governance"] == {"data_classes": ["pp:Public"], "operator_role": "support"}
    assert b["replaced"] == ["data_classes"] and b["own"] is True
    assert preview["agents"]["a"]["governance"] == preview["pack"]
    with pytest.raises(GovernanceError, match="not an agent"):
        governance_preview(_analysis(GOVERNED), "c")


def test_cli_render_and_governance(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pack = tmp_path / "demo.promptpack.yaml"
    pack.write_text(GOVERNED, encoding="utf-8")
    assert main(["--render", str(pack), "--prompt", "a", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["text"] == "x"
    assert main(["--governance", str(pack), "--agent", "b"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["sources"] == {"data_classes": "member", "operator_role": "pack"}
    assert main(["--render", str(pack), "--prompt", "zz"]) == 2
    assert "not a prompt" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main(["--render", str(pack)])
    assert exit_.value.code == 2
    assert "--render needs --prompt" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--render", str(pack), "--prompt", "a", "--var", "novalue"])
    assert "NAME=VALUE" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--governance", str(pack), "--card", str(pack)])
    assert "--card and --governance cannot be combined" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--render", str(pack), "--governance", str(pack), "--prompt", "a"])
    assert "--render and --governance cannot be combined" in capsys.readouterr().err
    assert main(["--render", str(pack), "--prompt", "a", "--var", "k=v=w"]) == 0
    assert capsys.readouterr().out.endswith("\nx\n")


def _corpus_packs() -> list[Path]:
    corpus = SHARED / "corpus"
    if not corpus.is_dir():
        return []
    return sorted(
        p
        for folder in ("valid", "v1.5plus")
        for p in (corpus / folder).glob("*")
        if p.suffix in (".json", ".yaml") and p.name != "SOURCES.json"
    )


@needs_shared
@pytest.mark.parametrize("path", _corpus_packs(), ids=lambda p: p.name)
def test_every_corpus_pack_answers(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    a = analyze(text, path=path)
    if a.pack is None:
        pytest.skip("not read as a pack")
    hints = inlay_hints(a, Span(0, len(text)))
    assert all(0 <= h.offset <= len(text) and h.label for h in hints)
    graph = callhierarchy.call_graph(a)
    for edge in graph.edges:
        assert graph.items[edge.source] and text[edge.site.start : edge.site.end]
    for key, prompt in a.pack.prompts.items():
        if prompt.system_template is None:
            continue
        r = render(a, key)
        assert r.characters == len(r.text)
        assert "{{fragments." not in r.text or r.problems


# ------------------------------------------------------------------ governance terms

TERMS_PACK = (
    HEAD
    + """\
metadata:
  governance:
    vocabularies: {acme: "https://acme.example/terms#"}
    operator_role: hipaa:CoveredEntity
    capabilities: [pp:SyntheticMedia, acme:Thing, hipaa:PHI]
    reviews:
      - {id: r1, type: pp:RedTeaming, cadence: P1Y, owner: security}
tools:
  pay: {name: pay, description: Pay, action_scope: {data_classes: [pp:FinancialAccount]}}
prompts:
  a: {id: a, name: A, version: 1.0.0, system_template: x, tools: [pay]}
"""
)


def test_term_hover_expands_and_summarises() -> None:
    a = _analysis(TERMS_PACK)
    found = terms.term_hover(a, TERMS_PACK.index("hipaa:CoveredEntity") + 3)
    assert found is not None
    assert "<https://promptpack.org/vocab/hipaa#CoveredEntity>" in found.markdown
    assert "Covered entity (operator_role)" in found.markdown
    acme = terms.term_hover(a, TERMS_PACK.index("acme:Thing") + 1)
    assert acme is not None and "<https://acme.example/terms#Thing>" in acme.markdown
    # a minted term in a slot it is not meant for says so
    phi = terms.term_hover(a, TERMS_PACK.index("hipaa:PHI") + 1)
    assert phi is not None and "meant for `data_classes`, not `capabilities`" in phi.markdown
    scope = terms.term_hover(a, TERMS_PACK.index("pp:FinancialAccount") + 1)
    assert scope is not None and "Financial account" in scope.markdown
    assert terms.term_hover(a, TERMS_PACK.index("Pay,") + 1) is None


def test_term_completion_follows_the_slot() -> None:
    a = _analysis(TERMS_PACK)
    items = terms.complete_with_terms(a, TERMS_PACK.index("pp:RedTeaming") + 3)
    labels = [c.label for c in items]
    review_terms = [t.curie for t in vocabulary.for_slot(vocabulary.REVIEW_TYPE)]
    assert labels[: len(review_terms)] == review_terms
    assert "acme:" in labels and "dpv:" in labels and "hipaa:PHI" not in labels
    role = [c.label for c in terms.complete_with_terms(a, TERMS_PACK.index("hipaa:Cov") + 3)]
    assert role[:2] == ["hipaa:CoveredEntity", "hipaa:BusinessAssociate"]


def test_slots() -> None:
    assert vocabulary.slot_at(("metadata", "governance", "capabilities", 0)) == "capabilities"
    assert (
        vocabulary.slot_at(("agents", "members", "a", "governance", "reviews", 1, "type"))
        == "reviews.type"
    )
    assert (
        vocabulary.slot_at(("metadata", "governance", "obligations", 0, "applies_to", "data_class"))
        == "data_classes"
    )
    assert vocabulary.slot_at(("tools", "t", "action_scope", "data_classes", 0)) == "data_classes"
    assert vocabulary.slot_at(("metadata", "governance", "extensions", "x")) is None
    assert vocabulary.expand("pp:Public", {}) == "https://promptpack.org/vocab/pp#Public"
    assert vocabulary.expand("https://x.example/y", {}) is None


@needs_shared
@pytest.mark.parametrize("prefix", vocabulary.MINTED)
def test_shipped_terms_match_the_published_vocabulary(prefix: str) -> None:
    published = json.loads(
        (SHARED / "reference" / "promptpack" / "vocab" / f"{prefix}.json").read_text("utf-8")
    )
    assert published["namespace"] == vocabulary.WELL_KNOWN[prefix]
    assert [(t["id"], t["slot"]) for t in published["terms"]] == [
        (t.id, t.slot) for t in vocabulary.terms_of(prefix)
    ]
    for shipped, term in zip(vocabulary.terms_of(prefix), published["terms"], strict=True):
        # our own one-line summaries, not the published definitions
        assert shipped.summary and shipped.summary != term["definition"]


# --------------------------------------------------------------------- document links


def test_links_of_a_pack(tmp_path: Path) -> None:
    (tmp_path / "skills" / "greet").mkdir(parents=True)
    (tmp_path / "skills" / "greet" / "SKILL.md").write_text("# Greet\n", encoding="utf-8")
    (tmp_path / "media").mkdir()
    (tmp_path / "media" / "logo.png").write_bytes(b"\x89PNG")
    text = """\
$schema: https://promptpack.org/schema/v1.4.0/promptpack.schema.json
id: demo
name: Demo
version: 1.0.0
template_engine: {version: v1, syntax: "{{variable}}"}
skills:
  - path: ./skills/greet
  - path: ./skills/missing
fragments:
  hello: "Hello"
prompts:
  a:
    id: a
    name: A
    version: 1.0.0
    system_template: "{{fragments.hello}} {{fragments.nope}}"
    media:
      enabled: true
      examples:
        - role: user
          parts: [{type: image, media: {file_path: media/logo.png, mime_type: image/png}}]
"""
    path = tmp_path / "demo.promptpack.yaml"
    a = analyze(text, path=path)
    found = {text[link.span.start : link.span.end]: link for link in links.document_links(a)}
    assert set(found) == {
        "https://promptpack.org/schema/v1.4.0/promptpack.schema.json",
        "./skills/greet",
        "hello",
        "media/logo.png",
    }
    assert found["./skills/greet"].path == (tmp_path / "skills" / "greet" / "SKILL.md").resolve()
    assert found["hello"].line == text[: text.index("hello:")].count("\n")
    assert "1.4.0" in found["https://promptpack.org/schema/v1.4.0/promptpack.schema.json"].tooltip
    # the missing skill and the undefined fragment are not links: their rules report them
    codes = {d.code for d in a.diagnostics}
    assert {"PP604", "PP501"} <= codes


def test_links_of_a_kubernetes_manifest() -> None:
    from pack_lsp.core.base import kinds
    from paths import ROOT

    folder = ROOT / "tests" / "golden" / "kubernetes"
    same = folder / "configmap-json.yaml"
    text = same.read_text(encoding="utf-8")
    [link] = links.document_links(analyze(text, path=same, kind=kinds.KUBERNETES))
    assert text[link.span.start : link.span.end] == "support-pack" and link.line is not None
    assert "name: support-pack" in text.splitlines()[link.line]
    beside = folder / "refs" / "resources.yaml"
    text = beside.read_text(encoding="utf-8")
    [link] = links.document_links(analyze(text, path=beside, kind=kinds.KUBERNETES))
    assert link.path == folder / "refs" / "configmaps.yaml"
