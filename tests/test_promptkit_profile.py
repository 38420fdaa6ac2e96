"""The promptkit profile against PromptKit itself.

The schema part is compared with the schema PromptKit embeds (the reference
material; skipped without it): for small packs that each exercise one difference
between PromptKit's schema and the specification (every ``x-promptkit`` mark of our
schema has at least one), our promptkit schema accepts or rejects exactly as the
embedded one does under ``jsonschema``, and the spec profile differs where the mark
says it does. The checks PromptKit's loader makes beyond its schema (PP606) and the
``promptkit@<release>`` setting are tested on their own.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from functools import cache
from typing import Any

import jsonschema
import pytest
from ruamel.yaml import YAML

from pack_lsp.core.base import versions
from pack_lsp.core.base.diagnostics import Severity
from pack_lsp.core.checks.analysis import analyze
from pack_lsp.core.model.config import Config, ConfigError, Profile, from_mapping, split_profile
from pack_lsp.core.model.profiles import profile_schema, promptkit_differences
from paths import SHARED, needs_shared

EMBEDDED = SHARED / "reference" / "promptpack" / "promptkit-embedded-v1.5.0_promptpack.schema.json"

BASE: dict[str, Any] = {
    "id": "demo",
    "name": "Demo",
    "version": "1.0.0",
    "template_engine": {"version": "v1", "syntax": "{{variable}}"},
    "prompts": {
        "support": {
            "id": "support",
            "name": "Support",
            "version": "1.0.0",
            "system_template": "Help.",
        }
    },
}

Edit = Callable[[dict[str, Any]], None]


def _prompt(pack: dict[str, Any]) -> dict[str, Any]:
    prompt: dict[str, Any] = pack["prompts"]["support"]
    return prompt


def _variable(**fields: Any) -> Edit:
    def edit(pack: dict[str, Any]) -> None:
        _prompt(pack)["variables"] = [{"name": "n", "type": "string", "required": True, **fields}]

    return edit


def _validator(**fields: Any) -> Edit:
    def edit(pack: dict[str, Any]) -> None:
        _prompt(pack)["validators"] = [fields]

    return edit


def _eval(**fields: Any) -> Edit:
    def edit(pack: dict[str, Any]) -> None:
        pack["evals"] = [{"id": "e", "type": "contains", "trigger": "every_turn", **fields}]

    return edit


def _media(kind: str, **fields: Any) -> Edit:
    def edit(pack: dict[str, Any]) -> None:
        _prompt(pack)["media"] = {"enabled": True, kind: fields}

    return edit


def _state(**fields: Any) -> Edit:
    def edit(pack: dict[str, Any]) -> None:
        pack["workflow"] = {
            "version": 1,
            "entry": "a",
            "states": {
                "a": {"prompt_task": "support", **fields},
                "b": {"prompt_task": "support", "terminal": True},
            },
        }

    return edit


def _engine(engine: dict[str, Any]) -> Edit:
    def edit(pack: dict[str, Any]) -> None:
        _state(on_event={"Done": "b"})(pack)
        pack["workflow"]["engine"] = engine

    return edit


# (difference, name, edit, PromptKit accepts, the spec profile at the latest version accepts)
CASES: list[tuple[str, str, Edit, bool, bool]] = [
    ("Variable.type", "integer", _variable(type="integer"), False, True),
    ("Variable.type", "number", _variable(type="number"), True, True),
    ("Variable.binding", "binding", _variable(binding={"kind": "context"}), False, True),
    ("Validator", "no enabled", _validator(type="max_length", params={"max": 5}), False, True),
    ("Validator", "enabled", _validator(type="max_length", enabled=False), True, True),
    ("Validator.message", "message", _validator(type="x", enabled=True, message="m"), False, True),
    ("Eval.trigger", "conversation", _eval(trigger="on_conversation_complete"), False, True),
    ("Eval.trigger", "workflow step", _eval(trigger="on_workflow_step"), False, True),
    ("Eval.trigger", "sample", _eval(trigger="sample_sessions"), True, True),
    ("Eval.threshold", "threshold", _eval(threshold={"operator": "gte", "value": 1}), False, True),
    ("Eval.message", "message", _eval(message="low"), False, True),
    ("Eval.when", "when", _eval(when={"turn_count_gte": 3}), False, True),
    ("Eval.groups", "groups", _eval(groups=["quality"]), False, True),
    (
        "ImageConfig.allowed_formats[]",
        "tiff",
        _media("image", allowed_formats=["tiff"]),
        False,
        True,
    ),
    ("ImageConfig.allowed_formats[]", "png", _media("image", allowed_formats=["png"]), True, True),
    ("ImageConfig.default_detail", "medium", _media("image", default_detail="medium"), False, True),
    (
        "AudioConfig.allowed_formats[]",
        "midi",
        _media("audio", allowed_formats=["midi"]),
        False,
        True,
    ),
    ("VideoConfig.allowed_formats[]", "ogg", _media("video", allowed_formats=["ogg"]), False, True),
    (
        "WorkflowEngine.budget",
        "bad budget",
        _engine({"budget": {"max_tool_calls": "many"}}),
        True,
        False,
    ),
    ("WorkflowEngine.budget", "budget", _engine({"budget": {"max_tool_calls": 3}}), True, True),
    ("WorkflowState", "no on_event", _state(), False, True),
    ("WorkflowState", "empty on_event", _state(on_event={}), True, True),
    (
        "WorkflowState.persistence",
        "forever",
        _state(on_event={"Done": "b"}, persistence="forever"),
        False,
        True,
    ),
    (
        "WorkflowState.persistence",
        "persistent",
        _state(on_event={"Done": "b"}, persistence="persistent"),
        True,
        True,
    ),
]


def _pack(edit: Edit) -> dict[str, Any]:
    pack = copy.deepcopy(BASE)
    edit(pack)
    return pack


@cache
def _embedded() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(json.loads(EMBEDDED.read_text(encoding="utf-8")))


@cache
def _ours(profile: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(profile_schema(Profile(profile)))


def test_every_difference_has_a_case() -> None:
    marked = {d.where for d in promptkit_differences()}
    assert marked == {case[0] for case in CASES}
    assert all(d.note.strip() for d in promptkit_differences())


@pytest.mark.parametrize(
    ("where", "name", "edit", "promptkit", "spec"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES]
)
def test_difference_against_ours(
    where: str, name: str, edit: Edit, promptkit: bool, spec: bool
) -> None:
    pack = _pack(edit)
    assert _ours("promptkit").is_valid(pack) is promptkit, where
    assert _ours("spec").is_valid(pack) is spec, where


@needs_shared
@pytest.mark.parametrize(
    ("where", "name", "edit", "promptkit", "spec"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES]
)
def test_difference_against_embedded_schema(
    where: str, name: str, edit: Edit, promptkit: bool, spec: bool
) -> None:
    pack = _pack(edit)
    assert _embedded().is_valid(pack) is promptkit, f"{where}: the case's expectation is wrong"
    assert _ours("promptkit").is_valid(pack) is _embedded().is_valid(pack), where


@needs_shared
def test_corpus_verdicts_match_embedded_schema() -> None:
    yaml = YAML(typ="safe")
    checked = 0
    disagree = []
    for path in sorted((SHARED / "corpus").rglob("*")):
        if path.suffix not in (".json", ".yaml", ".yml") or path.name == "manifest.json":
            continue
        try:
            text = path.read_text(encoding="utf-8")
            data = json.loads(text) if path.suffix == ".json" else yaml.load(text)
        except Exception:
            continue
        if not isinstance(data, dict) or "prompts" not in data:
            continue
        checked += 1
        if _ours("promptkit").is_valid(data) is not _embedded().is_valid(data):
            disagree.append(str(path.relative_to(SHARED)))
    assert checked > 50
    assert disagree == []


# ------------------------------------------------------------- checks of the loader

HEAD = (
    "id: demo\nname: Demo\nversion: 1.0.0\n"
    'template_engine: {version: v1, syntax: "{{variable}}"}\n'
    "prompts:\n  support:\n    id: support\n    name: Support\n    version: 1.0.0\n"
    "    system_template: Help.\n"
)


def _pp606(body: str, config: Config) -> list[str]:
    found = analyze(HEAD + body, config=config).diagnostics
    return [d.message for d in found if d.code == "PP606"]


PROMPTKIT = Config(profile=Profile.PROMPTKIT)


@pytest.mark.parametrize(
    ("check", "refused"),
    [
        ("{type: max_length, enabled: true, params: {max_lenght: 5}}", True),
        ("{type: max_length, enabled: true, params: {max: 5}}", False),
        ("{type: max_length, enabled: true, params: {max_characters: 5.9}}", False),
        ("{type: max_length, enabled: true, params: {max: 0.5}}", True),
        ("{type: max_length, enabled: true, params: {max: true}}", True),
        ("{type: length, enabled: true}", True),
        ("{type: max_length, enabled: false, params: {}}", False),
        ("{type: min_length, enabled: true, params: {min_chars: 2}}", False),
        ("{type: min_length, enabled: true, params: {minimum: 2}}", True),
        ("{type: guardrail_triggered, enabled: true, params: {validator: x}}", False),
        ("{type: guardrail_triggered, enabled: true, params: {validator_type: ''}}", True),
        ("{type: banned_words, enabled: true, params: {wordz: [a]}}", False),
    ],
)
def test_validator_params(check: str, refused: bool) -> None:
    body = f"    validators:\n      - {check}\n"
    assert bool(_pp606(body, PROMPTKIT)) is refused
    assert _pp606(body, Config()) == []


def test_eval_params_and_releases() -> None:
    body = (
        "evals:\n"
        "  - {id: a, type: workflow_state_is, trigger: every_turn, params: {sate: x}}\n"
        "  - {id: b, type: workflow_spoke_in_state, trigger: every_turn}\n"
        "  - id: c\n    type: guardrail_triggered\n    trigger: every_turn\n"
        "    params: {validator_type: max_length, direction: sideways}\n"
    )
    newest = _pp606(body, PROMPTKIT)
    assert len(newest) == 3 and "the pack" in newest[0]
    # `direction` is checked from 1.5.8, `workflow_spoke_in_state` exists from 1.5.11.
    assert len(_pp606(body, from_mapping({"profile": "promptkit@1.5.10"}))) == 2
    assert len(_pp606(body, from_mapping({"profile": "promptkit@1.5.7"}))) == 1
    diagnostic = next(
        d for d in analyze(HEAD + body, config=PROMPTKIT).diagnostics if d.code == "PP606"
    )
    assert diagnostic.severity is Severity.ERROR
    assert diagnostic.data == {
        "kind": "refused-check-params",
        "type": "workflow_state_is",
        "check": "eval",
    }


# ------------------------------------------------------------------ the setting


def test_profile_release_setting() -> None:
    assert split_profile("promptkit") == (Profile.PROMPTKIT, versions.PROMPTKIT_DEFAULT)
    assert split_profile("promptkit@v1.5.3") == (Profile.PROMPTKIT, "1.5.3")
    assert split_profile("promptkit@1.5") == (Profile.PROMPTKIT, "1.5.0")
    assert from_mapping({"profile": "promptkit@1.5.4"}).promptkit_version == "1.5.4"
    pinned = from_mapping({"profile": "promptkit@1.5.4"})
    # `promptkit` alone, from the editor or the command line, is the default release.
    assert pinned.merged({"profile": "promptkit"}).promptkit_version == "1.5.11"
    assert pinned.merged({"severity": {"PP101": "warning"}}).promptkit_version == "1.5.4"
    for bad, said in [
        ("promptkit@1.6", "models PromptKit 1.5.0 to 1.5.11"),
        ("promptkit@1.4.16", "models PromptKit 1.5.0 to 1.5.11"),
        ("spec@1.5", "only `promptkit` takes a release"),
        ("promptkits", "profile must be"),
    ]:
        with pytest.raises(ConfigError, match=said):
            from_mapping({"profile": bad}, "pack-lsp.toml")


def test_every_modelled_release_embeds_one_schema() -> None:
    # One model for every release: the schema checked does not depend on it.
    a = analyze(HEAD, config=from_mapping({"profile": "promptkit@1.5.0"}))
    b = analyze(HEAD, config=PROMPTKIT)
    assert a.diagnostics == b.diagnostics
