"""Conformance of schemas/promptpack.schema.json with the official PromptPack schemas.

Our schema is written in our own words (descriptions, hints, examples) and describes the
latest version; cut to a version (``versions.restrict``) it must give the same verdict and
the same error locations as that version's official schema, for every official version
from 1.3.0 to 1.9.0 (and have the same assertions for 1.0 and 1.1 too). The official
schemas are used here as test oracles only; they live in the shared directory next to
the repository. Every official copy declares the same $id, so they are keyed by version.

1.5.0 and 1.6.0 were released without a schema file of their own; their oracles are
derived from the next official one as the release history describes them: 1.5.1
without `requires`, 1.7.0 without a state's `control` and without the deprecation of
`fail_on_violation`.
"""

from __future__ import annotations

import copy
import functools
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from ruamel.yaml import YAML

from pack_lsp.core.base import versions

REPO = Path(__file__).resolve().parents[1]
OUR_SCHEMA_PATH = REPO / "schemas" / "promptpack.schema.json"
SHARED = REPO.parent / "shared"
CORPUS = SHARED / "corpus"
MANIFEST = CORPUS / "manifest.json"
REFERENCE = SHARED / "reference" / "promptpack"
OFFICIAL_SCHEMA_PATH = REFERENCE / "v1.4.0_promptpack.schema.json"

if not (CORPUS.is_dir() and OFFICIAL_SCHEMA_PATH.is_file()):
    pytest.skip(
        f"shared test material not found at {SHARED} (needs corpus/ and "
        "reference/promptpack/v1.4.0_promptpack.schema.json)",
        allow_module_level=True,
    )

SUFFIXES = {".json", ".yaml", ".yml"}
METADATA = {"manifest.json", "SOURCES.json", "v1_9_errors.json"}
ANNOTATIONS = {"description", "title", "examples", "default", "$comment"}

# Keywords whose value is a single subschema / a map of subschemas / a list of subschemas.
_SUB_ONE = (
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
)
_SUB_MAP = ("properties", "patternProperties", "$defs", "dependentSchemas")
_SUB_LIST = ("allOf", "anyOf", "oneOf", "prefixItems")


def _load_json(path: Path) -> Any:
    with path.open(encoding="utf-8") as fh:
        return json.load(fh)


def load_document(path: Path) -> Any:
    if path.suffix == ".json":
        return _load_json(path)
    yaml = YAML(typ="safe", pure=False)
    with path.open(encoding="utf-8") as fh:
        return yaml.load(fh)


def _official_version(path: Path) -> str | None:
    """``v1.4.0_promptpack...`` → ``1.4.0``; None for snapshots and forks."""
    label = path.name.split("_", 1)[0]
    match = re.fullmatch(r"v(1\.\d+)(\.\d+)?", label)
    if match is None:
        return None
    return match.group(1) + (match.group(2) or ".0")


OFFICIAL_BY_VERSION: dict[str, dict[str, Any]] = {
    version: _load_json(path)
    for path in sorted(REFERENCE.glob("v*_promptpack.schema.json"))
    if (version := _official_version(path)) is not None
}


def _derived_oracles(official: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The released versions without a schema file, from the next official one."""
    out: dict[str, dict[str, Any]] = {}
    if "1.5.1" in official:
        v150 = copy.deepcopy(official["1.5.1"])
        del v150["properties"]["requires"]
        for name in ("ProviderRequirement", "ProviderCapabilities"):
            v150["$defs"].pop(name, None)
        v150["version"] = "1.5.0"
        out["1.5.0"] = v150
    if "1.7.0" in official:
        v160 = copy.deepcopy(official["1.7.0"])
        del v160["$defs"]["WorkflowState"]["properties"]["control"]
        del v160["$defs"]["Validator"]["properties"]["fail_on_violation"]["deprecated"]
        v160["version"] = "1.6.0"
        out["1.6.0"] = v160
    return out


OFFICIAL_BY_VERSION.update(_derived_oracles(OFFICIAL_BY_VERSION))
OFFICIAL_BY_VERSION = dict(sorted(OFFICIAL_BY_VERSION.items(), key=lambda kv: versions.key(kv[0])))
#: Versions compared file by file (1.3.0 on); 1.0 and 1.1 are compared by assertions.
COMPARED = sorted(
    (v for v in OFFICIAL_BY_VERSION if versions.key(v) >= (1, 3, 0)), key=versions.key
)
ASSERTION_VERSIONS = sorted(OFFICIAL_BY_VERSION, key=versions.key)

OURS: dict[str, Any] = _load_json(OUR_SCHEMA_PATH)
OURS_AT: dict[str, dict[str, Any]] = {v: versions.restrict(OURS, v) for v in OFFICIAL_BY_VERSION}
OFFICIAL: dict[str, Any] = OFFICIAL_BY_VERSION["1.4.0"]
FMT = Draft202012Validator.FORMAT_CHECKER
# Separate validators, no shared registry: every official copy declares the same $id.
OURS_V = {v: Draft202012Validator(s) for v, s in OURS_AT.items()}
OFFICIAL_V = {v: Draft202012Validator(s) for v, s in OFFICIAL_BY_VERSION.items()}
OURS_FMT_V = {v: Draft202012Validator(s, format_checker=FMT) for v, s in OURS_AT.items()}
OFFICIAL_FMT_V = {
    v: Draft202012Validator(s, format_checker=FMT) for v, s in OFFICIAL_BY_VERSION.items()
}
OUR_VALIDATOR = OURS_V["1.4.0"]
OFFICIAL_VALIDATOR = OFFICIAL_V["1.4.0"]

CORPUS_FILES = sorted(
    p for p in CORPUS.rglob("*") if p.is_file() and p.suffix in SUFFIXES and p.name not in METADATA
)
DOCUMENTS: dict[Path, Any] = {p: load_document(p) for p in CORPUS_FILES}


def _rel(path: Path) -> str:
    return path.relative_to(CORPUS).as_posix()


def pointer(parts: Any) -> str:
    """JSON pointer (RFC 6901) of a jsonschema error path; "" is the document root."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in parts)


def error_pointers(validator: Draft202012Validator, instance: Any) -> set[str]:
    return {pointer(err.absolute_path) for err in validator.iter_errors(instance)}


def assert_same_errors(
    instance: Any, label: str, *, formats: bool = False, version: str = "1.4.0"
) -> set[str]:
    ours_v, official_v = (
        (OURS_FMT_V[version], OFFICIAL_FMT_V[version])
        if formats
        else (OURS_V[version], OFFICIAL_V[version])
    )
    ours = error_pointers(ours_v, instance)
    official = error_pointers(official_v, instance)
    assert ours_v.is_valid(instance) == official_v.is_valid(instance), label
    assert ours == official, (
        f"{label}: only ours {sorted(ours - official)}, only official {sorted(official - ours)}"
    )
    return ours


def iter_subschemas(schema: Any, where: str = "#") -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield (location, subschema) for every schema object reachable by keyword."""
    if not isinstance(schema, dict):
        return
    yield where, schema
    for key in _SUB_ONE:
        if key in schema:
            yield from iter_subschemas(schema[key], f"{where}/{key}")
    for key in _SUB_MAP:
        for name, sub in schema.get(key, {}).items():
            yield from iter_subschemas(sub, f"{where}/{key}/{name}")
    for key in _SUB_LIST:
        for i, sub in enumerate(schema.get(key, [])):
            yield from iter_subschemas(sub, f"{where}/{key}/{i}")


# --------------------------------------------------------------------------- schema itself


def test_corpus_is_present() -> None:
    assert len(CORPUS_FILES) >= 90, f"only {len(CORPUS_FILES)} corpus files found"


def test_our_schema_is_valid_draft_2020_12() -> None:
    Draft202012Validator.check_schema(OURS)
    for restricted in OURS_AT.values():
        Draft202012Validator.check_schema(restricted)
    assert OURS["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert OURS["$id"] == "https://pack-lsp.dev/schemas/promptpack.schema.json"
    assert OURS["x-promptpack-version"] == versions.LATEST


@pytest.mark.parametrize("version", ["latest", *sorted(OURS_AT, key=versions.key)])
def test_every_pattern_has_a_hint(version: str) -> None:
    schema = OURS if version == "latest" else OURS_AT[version]
    missing = [
        where
        for where, sub in iter_subschemas(schema)
        if isinstance(sub.get("pattern"), str)
        and not (isinstance(sub.get("x-pattern-hint"), str) and sub["x-pattern-hint"].strip())
    ]
    assert missing == []


def test_version_annotations_name_known_versions_and_rfcs() -> None:
    for where, sub in iter_subschemas(OURS):
        for name, prop in sub.get("properties", {}).items():
            since = prop.get("x-since")
            if since is not None:
                assert since in versions.KNOWN_VERSIONS, f"{where}/{name}"
            rfc = prop.get("x-rfc")
            if rfc is not None:
                assert re.fullmatch(r"\d{4}", rfc), f"{where}/{name}"
                assert (
                    (SHARED / "spec" / "rfcs").is_dir() is False
                    or any((SHARED / "spec" / "rfcs").glob(f"{rfc}-*"))
                    or int(rfc) <= 7
                ), f"{where}/{name}: RFC {rfc}"


def test_newer_keys_are_listed_where_they_were_removed() -> None:
    v14 = OURS_AT["1.4.0"]
    assert v14["x-later"]["compositions"] == {"since": "1.5.0", "rfc": "0010"}
    state = v14["$defs"]["WorkflowState"]
    assert state["x-later"]["control"] == {"since": "1.7.0", "rfc": "0014"}
    assert "control" not in state["properties"]
    assert state["required"] == ["prompt_task"]
    fov = OURS_AT["1.5.1"]["$defs"]["Validator"]["properties"]["fail_on_violation"]
    assert "x-deprecated" not in fov
    assert (
        "x-deprecated" in OURS_AT["1.7.0"]["$defs"]["Validator"]["properties"]["fail_on_violation"]
    )


def test_every_property_and_definition_has_a_description() -> None:
    missing = [
        f"{where}/properties/{name}"
        for where, sub in iter_subschemas(OURS)
        for name, prop in sub.get("properties", {}).items()
        if not (isinstance(prop.get("description"), str) and prop["description"].strip())
    ]
    missing += [
        f"#/$defs/{name}"
        for name, sub in OURS["$defs"].items()
        if not (isinstance(sub.get("description"), str) and sub["description"].strip())
    ]
    assert missing == []


def test_prompts_map_refers_to_prompt_definition() -> None:
    prompts = OURS["properties"]["prompts"]
    assert prompts["type"] == "object"
    assert prompts["minProperties"] == 1
    assert prompts["additionalProperties"] == {"$ref": "#/$defs/Prompt"}
    for name in (
        "Prompt",
        "Variable",
        "Tool",
        "ToolPolicy",
        "WorkflowConfig",
        "WorkflowState",
        "ArtifactDef",
        "AgentsConfig",
        "AgentDef",
        "SkillSource",
        "InlineSkill",
        "SkillPathSource",
        "Eval",
        "MetricDef",
    ):
        assert name in OURS["$defs"], name


def _inline(node: Any, root: dict[str, Any], depth: int = 0) -> Any:
    """Resolve local $refs and drop annotations, leaving only the assertions.

    Recursive definitions (composition steps, predicates) are unrolled a few levels and
    then compared by the name of the definition they refer to.
    """
    if isinstance(node, list):
        return [_inline(item, root, depth) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target = node["$ref"].rsplit("/", 1)[-1]
        if depth > 6:
            return {"$ref": target}
        defs = root.get("$defs") or root.get("definitions") or {}
        return _inline(defs[target], root, depth + 1)
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in ANNOTATIONS or key.startswith("x-") or key in ("$defs", "definitions"):
            continue
        if key == "properties":
            out[key] = {name: _inline(sub, root, depth) for name, sub in value.items()}
        else:
            out[key] = _inline(value, root, depth)
    return out


@pytest.mark.parametrize("version", ASSERTION_VERSIONS)
def test_assertions_match_official_schema(version: str) -> None:
    """After inlining $refs and dropping annotations both schemas are identical."""
    root_only = ("$schema", "$id", "version", "x-promptpack-version")
    mine, theirs = OURS_AT[version], OFFICIAL_BY_VERSION[version]
    ours = {k: v for k, v in _inline(mine, mine).items() if k not in root_only}
    official = {k: v for k, v in _inline(theirs, theirs).items() if k not in root_only}
    assert ours == official


# --------------------------------------------------------------------------- corpus


#: Every version plain; the format checker (a superset of checks) for the first and last.
VERSION_CHECKS = [(v, False) for v in COMPARED] + [("1.4.0", True), (versions.LATEST, True)]


@pytest.mark.parametrize(
    ("version", "formats"),
    VERSION_CHECKS,
    ids=[f"{v}-{'format-checker' if f else 'plain'}" for v, f in VERSION_CHECKS],
)
@pytest.mark.parametrize("path", CORPUS_FILES, ids=_rel)
def test_corpus_file_same_verdict_and_locations(path: Path, formats: bool, version: str) -> None:
    assert_same_errors(
        DOCUMENTS[path], f"{_rel(path)} @ {version}", formats=formats, version=version
    )


def _manifest_entries() -> list[dict[str, Any]]:
    if not MANIFEST.is_file():
        return []
    entries: list[dict[str, Any]] = _load_json(MANIFEST)
    return [e for e in entries if "spec_v1_4_errors" in e]


def _manifest_pointer(entry: str) -> str:
    ptr = entry.split(": ", 1)[0]
    return "" if ptr == "/" else ptr


@pytest.mark.parametrize("entry", _manifest_entries(), ids=lambda e: e["file"])
def test_manifest_spec_v1_4_errors(entry: dict[str, Any]) -> None:
    path = CORPUS / entry["file"]
    expected = {_manifest_pointer(e) for e in entry["spec_v1_4_errors"]}
    assert error_pointers(OUR_VALIDATOR, load_document(path)) == expected


PROMPT_VALIDATOR = Draft202012Validator(
    {"$schema": OURS["$schema"], "$defs": OURS_AT["1.4.0"]["$defs"], "$ref": "#/$defs/Prompt"}
)


@pytest.mark.parametrize("path", CORPUS_FILES, ids=_rel)
def test_single_prompt_validation_matches_whole_pack(path: Path) -> None:
    """Validating one prompt against #/$defs/Prompt reports what the pack check reports."""
    doc = DOCUMENTS[path]
    prompts = doc.get("prompts") if isinstance(doc, dict) else None
    if not isinstance(prompts, dict):
        pytest.skip("no prompts map")
    whole = error_pointers(OUR_VALIDATOR, doc)
    for key, prompt in prompts.items():
        prefix = pointer(["prompts", key])
        from_pack = {p[len(prefix) :] for p in whole if p == prefix or p.startswith(prefix + "/")}
        assert error_pointers(PROMPT_VALIDATOR, prompt) == from_pack, f"{_rel(path)}: {key}"


# --------------------------------------------------------------------------- mutations

Mutation = Callable[[dict[str, Any]], bool]


def _first_prompt(doc: dict[str, Any]) -> dict[str, Any]:
    prompt: dict[str, Any] = next(iter(doc["prompts"].values()))
    return prompt


def _first_key(doc: dict[str, Any]) -> str:
    return str(next(iter(doc["prompts"])))


def _ensure_agents(doc: dict[str, Any]) -> dict[str, Any]:
    key = _first_key(doc)
    agents: dict[str, Any] = doc.setdefault("agents", {"entry": key, "members": {key: {}}})
    return agents


def _ensure_workflow(doc: dict[str, Any]) -> dict[str, Any]:
    key = _first_key(doc)
    workflow: dict[str, Any] = doc.setdefault(
        "workflow", {"version": 1, "entry": "start", "states": {"start": {"prompt_task": key}}}
    )
    return workflow


def _first_state(doc: dict[str, Any]) -> dict[str, Any]:
    state: dict[str, Any] = next(iter(_ensure_workflow(doc)["states"].values()))
    return state


def _ensure_eval(doc: dict[str, Any]) -> dict[str, Any]:
    evals = doc.setdefault("evals", [])
    if not evals:
        evals.append({"id": "e1", "type": "contains", "trigger": "every_turn"})
    first: dict[str, Any] = evals[0]
    return first


def _set(target: dict[str, Any], key: str, value: Any) -> bool:
    target[key] = value
    return True


def _drop(target: dict[str, Any], key: str) -> bool:
    return target.pop(key, None) is not None


MUTATIONS: dict[str, Mutation] = {
    "prompt-missing-id": lambda d: _drop(_first_prompt(d), "id"),
    "prompt-missing-system-template": lambda d: _drop(_first_prompt(d), "system_template"),
    "prompt-unknown-key": lambda d: _set(_first_prompt(d), "temperature", 0.2),
    "prompt-id-wrong-type": lambda d: _set(_first_prompt(d), "id", 7),
    "prompt-id-bad-pattern": lambda d: _set(_first_prompt(d), "id", "Support Bot"),
    "prompt-empty-template": lambda d: _set(_first_prompt(d), "system_template", ""),
    "prompt-empty-name": lambda d: _set(_first_prompt(d), "name", ""),
    "root-missing-template-engine": lambda d: _drop(d, "template_engine"),
    "root-unknown-key": lambda d: _set(d, "prompt", {}),
    "root-id-uppercase": lambda d: _set(d, "id", "My-Pack"),
    "root-version-two-parts": lambda d: _set(d, "version", "1.0"),
    "root-name-too-long": lambda d: _set(d, "name", "x" * 201),
    "prompts-empty": lambda d: _set(d, "prompts", {}),
    "template-feature-not-in-enum": lambda d: _set(d["template_engine"], "features", ["macros"]),
    "agents-unknown-key": lambda d: _set(_ensure_agents(d), "router", "x"),
    "agents-member-unknown-key": lambda d: _set(
        next(iter(_ensure_agents(d)["members"].values())), "skills", []
    ),
    "agents-missing-entry": lambda d: _drop(_ensure_agents(d), "entry"),
    "agents-members-empty": lambda d: _set(_ensure_agents(d), "members", {}),
    "workflow-version-string": lambda d: _set(_ensure_workflow(d), "version", "1"),
    "workflow-version-zero": lambda d: _set(_ensure_workflow(d), "version", 0),
    "workflow-states-empty": lambda d: _set(_ensure_workflow(d), "states", {}),
    "workflow-state-missing-prompt-task": lambda d: _drop(_first_state(d), "prompt_task"),
    "workflow-state-max-visits-zero": lambda d: _set(_first_state(d), "max_visits", 0),
    "workflow-budget-unknown-key": lambda d: _set(
        _ensure_workflow(d), "engine", {"budget": {"max_steps": 3}, "timeout": 5}
    ),
    "artifact-mode-not-in-enum": lambda d: _set(
        _first_state(d), "artifacts", {"log": {"type": "text/plain", "mode": "merge"}}
    ),
    "tool-choice-not-in-enum": lambda d: _set(
        _first_prompt(d), "tool_policy", {"tool_choice": "sometimes", "max_rounds": 0}
    ),
    "parameters-out-of-range": lambda d: _set(
        _first_prompt(d), "parameters", {"temperature": 3, "top_k": 0, "top_p": -1}
    ),
    "parameters-top-k-null-ok": lambda d: _set(_first_prompt(d), "parameters", {"top_k": None}),
    "variable-missing-required": lambda d: _set(
        _first_prompt(d), "variables", [{"name": "9lives", "type": "string"}]
    ),
    "tool-name-with-hyphen": lambda d: _set(
        d.setdefault("tools", {}), "bad-tool", {"name": "bad-tool", "description": "x"}
    ),
    "tool-parameters-type-not-object": lambda d: _set(
        d.setdefault("tools", {}),
        "t",
        {"name": "t", "description": "x", "parameters": {"type": "array", "properties": {}}},
    ),
    "metric-type-not-in-enum": lambda d: _set(
        _ensure_eval(d), "metric", {"name": "bad name", "type": "summary"}
    ),
    "eval-sample-percentage-too-high": lambda d: _set(_ensure_eval(d), "sample_percentage", 150),
    "skills-entries-matching-no-form": lambda d: _set(
        d,
        "skills",
        [
            "./ok",
            {},
            {"path": "p", "name": "n"},
            {"name": "", "description": "d", "instructions": "i"},
            3,
        ],
    ),
    "media-custom-type-ambiguous": lambda d: _set(
        _first_prompt(d), "media", {"enabled": True, "model3d": {}, "scan": {"max_size_mb": 1}}
    ),
    "media-bad-detail-and-role": lambda d: _set(
        _first_prompt(d),
        "media",
        {
            "enabled": True,
            "supported_types": ["Image"],
            "document": {"extraction_mode": "ocr"},
            "examples": [
                {
                    "name": "x",
                    "role": "tool",
                    "parts": [
                        {"type": "image", "media": {"mime_type": "image/png", "detail": "ultra"}}
                    ],
                },
                {"name": "y", "role": "user", "parts": []},
            ],
        },
    ),
    "tested-model-bad-date-type": lambda d: _set(
        _first_prompt(d), "tested_models", [{"provider": "p", "model": "m", "date": 20250101}]
    ),
}


@functools.cache
def _mutation_bases() -> list[Path]:
    return [
        p
        for p in CORPUS_FILES
        if isinstance(DOCUMENTS[p], dict)
        and isinstance(DOCUMENTS[p].get("prompts"), dict)
        and DOCUMENTS[p]["prompts"]
        and isinstance(DOCUMENTS[p].get("template_engine"), dict)
        and OFFICIAL_VALIDATOR.is_valid(DOCUMENTS[p])
    ]


@pytest.mark.parametrize("version", [versions.LATEST])
@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_mutation_same_locations(name: str, version: str) -> None:
    bases = _mutation_bases()
    assert bases, "no valid corpus file to mutate"
    error_seen = False
    for path in bases:
        doc = copy.deepcopy(DOCUMENTS[path])
        if not MUTATIONS[name](doc):
            continue
        errors = assert_same_errors(doc, f"{name} on {_rel(path)}", version=version)
        error_seen = error_seen or bool(errors)
    if name.endswith("-ok"):
        assert not error_seen
    else:
        assert error_seen, f"mutation {name} never produced an error"


# --------------------------------------------------------------------------- additions

#: A pack every version accepts, and small packs each using what one version added.
BASE: dict[str, Any] = {
    "id": "demo",
    "name": "Demo",
    "version": "1.0.0",
    "template_engine": {"version": "v1", "syntax": "{{variable}}"},
    "prompts": {"p": {"id": "p", "name": "P", "version": "1.0.0", "system_template": "Hi"}},
}
_WORKFLOW = {"version": 1, "entry": "s", "states": {"s": {"prompt_task": "p"}}}
_AGENTS = {"entry": "p", "members": {"p": {}}}
_TOOL = {"name": "t", "description": "A tool"}
_COMPOSITIONS = {"c": {"version": 1, "steps": [{"id": "a", "kind": "prompt", "prompt_task": "p"}]}}


def _with(**changes: Any) -> dict[str, Any]:
    doc = copy.deepcopy(BASE)
    doc.update(copy.deepcopy(changes))
    return doc


def _prompt(**changes: Any) -> dict[str, Any]:
    doc = _with()
    doc["prompts"]["p"].update(changes)
    return doc


def _state(**changes: Any) -> dict[str, Any]:
    return _with(workflow={**_WORKFLOW, "states": {"s": {"prompt_task": "p", **changes}}})


def _member_governance(**governance: Any) -> dict[str, Any]:
    return _with(agents={"entry": "p", "members": {"p": {"governance": governance}}})


def _review(cadence: str) -> dict[str, Any]:
    return _member_governance(
        reviews=[{"id": "r", "type": "accuracy", "cadence": cadence, "owner": "audit"}]
    )


#: name → (the versions that accept the pack: first and, when it stops, first not, pack).
ADDITIONS: dict[str, tuple[str | None, str | None, dict[str, Any]]] = {
    "base": ("1.0.0", None, _with()),
    "media": ("1.1.0", None, _prompt(media={"enabled": True})),
    "workflow": ("1.3.0", None, _with(workflow=_WORKFLOW)),
    "agents": ("1.3.0", None, _with(agents=_AGENTS)),
    "eval-threshold": (
        "1.3.0",
        None,
        _with(evals=[{"id": "e", "type": "contains", "trigger": "every_turn", "threshold": {}}]),
    ),
    "skills": ("1.3.1", None, _with(skills=["./skills"])),
    "state-skills": ("1.3.1", None, _state(skills="./skills")),
    "terminal-and-max-visits": ("1.4.0", None, _state(terminal=True, max_visits=3)),
    "member-state": (
        "1.4.1",
        None,
        _with(workflow=_WORKFLOW, agents={"entry": "p", "members": {"p": {"state": "s"}}}),
    ),
    "orchestration-open": ("1.3.0", "1.5.0", _state(orchestration="manual")),
    "compositions": ("1.5.0", None, _with(compositions=_COMPOSITIONS)),
    "composition-state-without-prompt-task": (
        "1.5.0",
        None,
        _with(
            compositions=_COMPOSITIONS,
            workflow={
                **_WORKFLOW,
                "states": {"s": {"orchestration": "composition", "composition": "c"}},
            },
        ),
    ),
    "requires-providers": ("1.5.1", None, _with(requires={"providers": ["default"]})),
    "metadata-governance-in-open-metadata": (
        "1.0.0",
        None,
        _with(metadata={"governance": {"intended_purpose": "Helps"}}),
    ),
    "member-governance-with-curie-terms": (
        "1.6.0",
        None,
        _member_governance(
            vocabularies={"acme": "https://acme.example/vocab#"},
            risk_classification="acme:Low",
            autonomy_level="suggests",
        ),
    ),
    "tool-action-scope": (
        "1.6.0",
        None,
        _with(tools={"t": {**_TOOL, "action_scope": {"effect": "read"}}}),
    ),
    "tool-extensions": ("1.6.0", None, _with(tools={"t": {**_TOOL, "extensions": {"a": 1}}})),
    "state-control": ("1.7.0", None, _state(control="agent")),
    "fail-on-violation": (
        "1.0.0",
        None,
        _prompt(validators=[{"type": "max_length", "enabled": True, "fail_on_violation": True}]),
    ),
    "review-cadence": ("1.8.0", None, _review("P3M")),
    "review-cadence-time-only": ("1.8.0", None, _review("PT12H")),
    "review-cadence-empty-duration": (None, None, _review("P")),
    "review-cadence-empty-time": (None, None, _review("P1DT")),
    "validator-id": (
        "1.8.0",
        None,
        _prompt(validators=[{"type": "max_length", "enabled": True, "id": "v1"}]),
    ),
    "extension-step": (
        "1.8.0",
        None,
        _with(compositions={"c": {"version": 1, "steps": [{"id": "a", "kind": "acme.notify"}]}}),
    ),
    "prompt-provider": ("1.9.0", None, _prompt(provider="default")),
}


def _accepted_in(first: str | None, stop: str | None, version: str) -> bool:
    if first is None or versions.key(version) < versions.key(first):
        return False
    return stop is None or versions.key(version) < versions.key(stop)


@pytest.mark.parametrize("version", list(OFFICIAL_BY_VERSION))
@pytest.mark.parametrize("name", sorted(ADDITIONS))
def test_each_version_accepts_exactly_its_additions(name: str, version: str) -> None:
    """Our cut and the official (or derived) schema agree on each small pack, and the
    verdict is the release history's: accepted from the version that added it on."""
    first, stop, doc = ADDITIONS[name]
    expected = _accepted_in(first, stop, version)
    official = OFFICIAL_V[version].is_valid(doc)
    ours = OURS_V[version].is_valid(doc)
    assert (ours, official) == (expected, expected), (
        f"{name} @ {version}: ours {ours}, official {official}, history says {expected}"
    )
