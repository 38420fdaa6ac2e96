"""Documents of PromptKit arena projects: recognition, schemas, per-file checks, editor help."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pack_lsp.cli.check import check_file
from pack_lsp.core.base import kinds
from pack_lsp.core.base.arena_schemas import SCHEMAS, schema_file
from pack_lsp.core.base.resources import load_schema
from pack_lsp.core.checks.analysis import analyze
from pack_lsp.core.ide.completion import complete
from pack_lsp.core.ide.hover import hover
from pack_lsp.core.model.arena.documents import KINDS
from pack_lsp.core.model.config import Config
from pack_lsp.core.model.discover import find_packs
from pack_lsp.core.model.recognize import recognize
from paths import SHARED, needs_shared

ARENA_CORPUS = SHARED / "corpus" / "arena"
REFERENCE = SHARED / "reference" / "promptkit" / "v1alpha1"

TOOL = """\
apiVersion: promptkit.altairalabs.ai/v1alpha1
kind: Tool
metadata:
  name: lookup-order
spec:
  name: lookup_order
  description: Find an order
  input_schema: {type: object}
  output_schema: {type: object}
  mode: mock
"""


def _analyse(text: str, name: str = "project/tools/lookup.tool.yaml") -> Any:
    return analyze(text, path=name, kind=recognize(name, text).kind)


# ------------------------------------------------------------------ per-file checks


def test_a_valid_document_has_no_diagnostics_and_knows_its_kind() -> None:
    analysis = _analyse(TOOL)
    assert analysis.kind == kinds.ARENA
    assert analysis.arena is not None and analysis.arena.kind == "Tool"
    assert analysis.diagnostics == ()


def test_schema_problems_are_on_the_key_or_value_with_did_you_mean() -> None:
    text = TOOL.replace("  description:", "  descriptin:").replace("mode: mock", "mode: [x]")
    found = {(d.code, text[d.span.start : d.span.end]): d for d in _analyse(text).diagnostics}
    unknown = found[("PP102", "descriptin")]
    assert "did you mean `description`?" in unknown.message
    assert unknown.fixes and unknown.fixes[0].suggestions == ("description",)  # type: ignore[attr-defined]
    assert ("PP103", "[x]") in found
    assert "pack" not in " ".join(d.message for d in found.values())


def test_the_same_document_in_json_is_checked_alike() -> None:
    data = {
        "apiVersion": "promptkit.altairalabs.ai/v1alpha1",
        "kind": "Provider",
        "metadata": {"name": "mock"},
        "spec": {"id": "mock", "type": "mock", "model": "m", "temperatur": 1},
    }
    text = json.dumps(data, indent=2)
    analysis = analyze(text, path="providers/mock.json", kind=kinds.ARENA)
    codes = [(d.code, text[d.span.start : d.span.end]) for d in analysis.diagnostics]
    assert ("PP102", '"temperatur"') in codes


def test_unknown_and_missing_kinds_are_one_diagnostic_each() -> None:
    text = TOOL.replace("kind: Tool", "kind: Tol")
    (diag,) = _analyse(text).diagnostics
    assert diag.code == "PA001" and text[diag.span.start : diag.span.end] == "Tol"
    assert diag.fixes and diag.fixes[0].suggestions == ("Tool",)  # type: ignore[attr-defined]
    (diag,) = _analyse(TOOL.replace("kind: Tool\n", "")).diagnostics
    assert diag.code == "PA002"
    (diag,) = _analyse(TOOL.replace("kind: Tool", "kind: Pipeline")).diagnostics
    assert diag.code == "PA001" and "`Pipeline`" in diag.message


@pytest.mark.parametrize("kind", ["RuntimeConfig", "LoggingConfig"])
def test_kinds_the_sdk_reads_are_accepted(kind: str) -> None:
    """PromptKit's SDK reads runtime and logging configurations (not parts of an arena
    project): such a file is a PromptKit document and gets no diagnostic."""
    text = (
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\n"
        f"kind: {kind}\nmetadata:\n  name: dev\nspec:\n  defaultLevel: debug\n"
    )
    analysis = _analyse(text)
    assert analysis.kind == kinds.ARENA and analysis.diagnostics == ()


def test_persona_unknown_keys_are_warnings_since_promptkit_ignores_them() -> None:
    text = (
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: Persona\n"
        "metadata: {name: busy}\nspec:\n  system_prompt: You are busy.\n"
        "  style: {verbosity: short, formality: casual}\n"
    )
    (diag,) = _analyse(text, "personas/busy.persona.yaml").diagnostics
    assert (diag.code, diag.severity.label) == ("PP102", "warning")
    assert "PromptKit ignores it" in diag.message
    no_prompt = text.replace("  system_prompt: You are busy.\n", "")
    assert [d.code for d in _analyse(no_prompt).diagnostics] == ["PP109", "PP102"]


def test_a_syntax_error_reports_only_the_yaml_problem() -> None:
    text = TOOL + "  timeout_ms: [1\n"
    codes = {d.code for d in _analyse(text).diagnostics}
    assert codes and all(code.startswith("PP0") for code in codes)


def test_a_directory_scan_finds_documents_and_leaves_other_yaml_alone(tmp_path: Path) -> None:
    files = {
        "config.arena.yaml": TOOL.replace("kind: Tool", "kind: Arena"),
        "tools/lookup.tool.yaml": TOOL,
        "mock-responses.yaml": "scenarios:\n  default:\n    turns: {1: hello}\n",
        "docker-compose.yaml": "services:\n  vllm:\n    image: vllm/vllm-openai\n",
        "k8s/deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, "utf-8")
    found = sorted(p.relative_to(tmp_path).as_posix() for p in find_packs(tmp_path))
    assert found == ["config.arena.yaml", "tools/lookup.tool.yaml"]


# ------------------------------------------------------------------ editor help


def test_hover_on_a_key_shows_our_description() -> None:
    at = TOOL.index("input_schema") + 2
    result = hover(_analyse(TOOL), at)
    assert result is not None and "**input_schema**" in result.markdown
    assert "JSON Schema of the arguments" in result.markdown


def test_completion_offers_missing_keys_and_enum_values() -> None:
    text = TOOL.replace("  mode: mock\n", "  \n")
    labels = [c.label for c in complete(_analyse(text), text.index("  \n") + 2)]
    assert "mode" in labels and "timeout_ms" in labels and "name" not in labels
    persona = (
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: Persona\n"
        "metadata: {name: busy}\nspec:\n  system_prompt: Hi\n  style:\n    verbosity: \n"
    )
    analysis = _analyse(persona, "personas/busy.persona.yaml")
    at = persona.index("verbosity: ") + len("verbosity: ")
    assert [c.label for c in complete(analysis, at)] == ["short", "medium", "long"]


# ------------------------------------------------------------------ our schemas


def test_every_kind_has_a_schema_written_for_it() -> None:
    for kind in KINDS:
        path = schema_file(kind)
        assert path is not None
        schema = load_schema(path)
        assert schema["properties"]["kind"] == {"const": kind}
        assert schema["title"] and schema["description"]


#: Where our schemas differ from PromptKit's on purpose: PromptKit reads Persona
#: files without its schema (arenaconfig/persona.go), and our schemas follow the
#: loader there; ``kind`` is fixed per schema.
DELIBERATE = {
    ("Persona", "/$defs/UserPersonaPack/required"),
    ("Persona", "/$defs/UserPersonaPack/anyOf"),
    ("Persona", "/$defs/PersonaStyle/required"),
    ("Persona", "/$defs/PersonaStyle/properties/verbosity/enum"),
    ("Persona", "/$defs/PersonaStyle/properties/challenge_level/enum"),
    ("Persona", "/$defs/PersonaStyle/properties/friction_tags/maxItems"),
    ("Persona", "/$defs/ObjectMeta/required"),
    ("Persona", "/required"),
}
_WORDS = {"description", "title", "examples", "$id", "$comment"}


def _differences(kind: str, ours: Any, theirs: Any, at: str = "") -> list[str]:
    if ours is True:
        ours = {}
    if theirs is True:
        theirs = {}
    if (kind, at) in DELIBERATE:
        return []
    if isinstance(ours, dict) and isinstance(theirs, dict):
        out: list[str] = []
        named = at.endswith(("/properties", "/$defs"))
        for key in sorted(set(ours) | set(theirs)):
            if not named and key in _WORDS:
                continue
            if at == "/properties" and key == "kind":
                continue
            if key not in ours or key not in theirs:
                if (kind, f"{at}/{key}") not in DELIBERATE:
                    out.append(f"{at}/{key} only in {'ours' if key in ours else 'theirs'}")
                continue
            out.extend(_differences(kind, ours[key], theirs[key], f"{at}/{key}"))
        return out
    if isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
        return [
            d
            for i, (a, b) in enumerate(zip(ours, theirs, strict=True))
            for d in _differences(kind, a, b, f"{at}/{i}")
        ]
    return [] if ours == theirs else [f"{at}: {ours!r} != {theirs!r}"]


@needs_shared
@pytest.mark.parametrize("kind", KINDS)
def test_our_schemas_have_the_structure_of_promptkits(kind: str) -> None:
    path = schema_file(kind)
    assert path is not None
    ours = load_schema(path)
    theirs = json.loads((REFERENCE / f"{SCHEMAS[kind].split('.')[0]}.json").read_text("utf-8"))
    assert _differences(kind, ours, theirs) == []


@needs_shared
@pytest.mark.parametrize("kind", KINDS)
def test_our_descriptions_are_not_promptkits(kind: str) -> None:
    path = schema_file(kind)
    assert path is not None
    theirs = (REFERENCE / f"{SCHEMAS[kind].split('.')[0]}.json").read_text("utf-8")
    texts: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("description", "title") and isinstance(value, str):
                    texts.append(value)
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(load_schema(path))
    assert texts and not [t for t in texts if json.dumps(t) in theirs]


# ------------------------------------------------------------------ the corpus

#: Every diagnostic the per-file checks report on the 34 projects, reviewed: each is
#: what PromptKit's loader does with the file (promptarena's arenaconfig.LoadConfig
#: validates Arena, PromptConfig, Scenario, Eval, Provider and YAML Tool files
#: against these schemas and refuses a file that fails; it reads Persona files
#: without the schema and ignores unknown keys there).
EXPECTED: dict[str, Counter[str]] = {
    # `defaults.output.markdown` without the five switches the schema requires:
    # LoadConfig refuses the config.
    "arena-media-test/arena-audio-test.yaml": Counter({"PP101": 5}),
    "vllm-local/config.arena.k8s.yaml": Counter({"PP101": 5}),
    # `formality` is no Persona style key: PromptKit ignores it (warnings).
    "duplex-streaming/personas/busy-professional.persona.yaml": Counter({"PP102": 1}),
    "duplex-streaming/personas/curious-customer.persona.yaml": Counter({"PP102": 1}),
    "duplex-streaming/personas/technical-user.persona.yaml": Counter({"PP102": 1}),
    "voice-refund-demo/personas/aggressive-entitled.persona.yaml": Counter({"PP102": 1}),
    "voice-refund-demo/personas/anxious-recipient.persona.yaml": Counter({"PP102": 1}),
    "voice-refund-demo/personas/impersonator.persona.yaml": Counter({"PP102": 1}),
    "voice-refund-demo/personas/patient-customer.persona.yaml": Counter({"PP102": 1}),
    # Fixtures of a shell script's tests (kits judged for orphans and idiom traps),
    # not loadable projects: configs without `defaults` (and `providers`), scenarios
    # without `description` and `task_type`, a provider with a `config` key.
    "test-a-codegen-agent/tools/testdata/empty-kit/config.arena.yaml": Counter({"PP101": 1}),
    "test-a-codegen-agent/tools/testdata/good-kit/config.arena.yaml": Counter({"PP101": 2}),
    "test-a-codegen-agent/tools/testdata/good-kit/scenarios/s1.scenario.yaml": Counter(
        {"PP101": 1, "PP109": 1}
    ),
    "test-a-codegen-agent/tools/testdata/trap-kit/config.arena.yaml": Counter({"PP101": 1}),
    "test-a-codegen-agent/tools/testdata/trap-kit/providers/mock-provider.yaml": Counter(
        {"PP102": 1}
    ),
    "test-a-codegen-agent/tools/testdata/trap-kit/scenarios/s1.scenario.yaml": Counter(
        {"PP101": 1, "PP109": 1}
    ),
    "test-a-codegen-agent/tools/testdata/trivial-kit/scenarios/s1.scenario.yaml": Counter(
        {"PP101": 1, "PP109": 1}
    ),
}


@needs_shared
def test_the_arena_corpus_reports_only_the_reviewed_problems() -> None:
    found = sorted(find_packs(ARENA_CORPUS))
    per_kind: Counter[str] = Counter()
    reported: dict[str, Counter[str]] = {}
    config = Config()
    for path in found:
        text = path.read_text("utf-8")
        recognition = recognize(str(path), text)
        if path.name.endswith(".pack.json"):  # the pack a project compiles to
            assert recognition.kind == kinds.PROMPTPACK
            continue
        assert recognition.kind == kinds.ARENA, path
        per_kind[recognition.promptkit_kind] += 1
        result = check_file(path, False, config)
        if result.diagnostics:
            reported[path.relative_to(ARENA_CORPUS).as_posix()] = Counter(
                d.code for d in result.diagnostics
            )
    assert reported == EXPECTED
    assert per_kind == Counter(
        Provider=118, Scenario=125, PromptConfig=56, Arena=44, Tool=27, Persona=10
    )
