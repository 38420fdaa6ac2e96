"""PromptPack versions: which one a pack targets, the schema cut to it, and what the
user sees (PP110, PP111, their quick fixes, hover and completion, the CLI flags)."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest

from pack_lsp.cli import main
from pack_lsp.core.base import kinds, versions
from pack_lsp.core.base.diagnostics import Diagnostic, Severity, Tag
from pack_lsp.core.base.resources import load_schema
from pack_lsp.core.checks.analysis import Analysis, analyze
from pack_lsp.core.ide.codeactions import quick_fixes
from pack_lsp.core.ide.completion import complete
from pack_lsp.core.ide.hover import hover
from pack_lsp.core.ide.rename import apply_edits
from pack_lsp.core.model.config import Config, ConfigError, Profile, from_mapping

V14 = "https://promptpack.org/schema/v1.4.0/promptpack.schema.json"

HEAD = (
    "id: demo\nname: Demo\nversion: 1.0.0\n"
    'template_engine: {version: v1, syntax: "{{variable}}"}\n'
    "prompts:\n  triage:\n    id: triage\n    name: Triage\n    version: 1.0.0\n"
    "    system_template: Sort the request.\n"
)
WORKFLOW = (
    "workflow:\n  version: 1\n  entry: intake\n  states:\n"
    "    intake:\n      prompt_task: triage\n      control: agent\n"
    "      on_event: {Done: closed}\n"
    "    closed:\n      prompt_task: triage\n      terminal: true\n"
)


def run(text: str, config: Config | None = None, path: str = "pack.yaml") -> Analysis:
    return analyze(text, path=path, config=config, kind=kinds.PROMPTPACK)


def codes(analysis: Analysis) -> list[str]:
    return [d.code for d in analysis.diagnostics]


def one(analysis: Analysis, code: str) -> Diagnostic:
    found = [d for d in analysis.diagnostics if d.code == code]
    assert len(found) == 1, analysis.diagnostics
    return found[0]


# --------------------------------------------------------------------- target version


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://promptpack.org/schema/v1.7.0/promptpack.schema.json", "1.7.0"),
        ("https://promptpack.org/schema/v1.4.1/promptpack.schema.json", "1.4.1"),
        ("https://promptpack.org/schema/latest/promptpack.schema.json", versions.LATEST),
        ("https://promptpack.org/schema/v1/promptpack.schema.json", versions.LATEST),
        # Without its patch a version is its .0 release, not the newest patch.
        ("https://promptpack.org/schema/v1.8/promptpack.schema.json", "1.8.0"),
        ("https://promptpack.org/schema/v1.3/promptpack.schema.json", "1.3.0"),
        ("https://promptpack.org/schema/v1.0/promptpack.schema.json", "1.0.0"),
        ("https://promptpack.org/schema/v1.2/promptpack.schema.json", "1.2.0"),
        # Released without an official schema file, known all the same.
        ("https://promptpack.org/schema/v1.6.0/promptpack.schema.json", "1.6.0"),
        ("https://promptpack.org/schema/v1.5.0/promptpack.schema.json", "1.5.0"),
        # Unknown versions: the newest known one not above them.
        ("https://promptpack.org/schema/v1.4.5/promptpack.schema.json", "1.4.1"),
        ("https://promptpack.org/schema/v1.10.0/promptpack.schema.json", versions.LATEST),
        ("https://promptpack.org/schema/v2.0.0/promptpack.schema.json", versions.LATEST),
        ("https://promptpack.org/schema/v0.9/promptpack.schema.json", None),
        ("https://example.com/my-schema.json", None),
        (42, None),
    ],
)
def test_declared_version(url: object, expected: str | None) -> None:
    assert versions.declared_version(url) == expected


def test_target_precedence() -> None:
    data = {"$schema": V14}
    assert versions.target_for(data) == versions.Target("1.4.0", versions.SOURCE_SCHEMA)
    assert versions.target_for({}) == versions.Target(versions.LATEST, versions.SOURCE_DEFAULT)
    pinned = versions.target_for(data, setting="1.7")
    assert pinned == versions.Target("1.7.0", versions.SOURCE_SETTING, declared="1.7")
    assert pinned.describe() == "the `spec-version` setting is 1.7"
    promptkit = versions.target_for(data, setting="1.7", profile="promptkit")
    assert promptkit == versions.Target(
        versions.PROMPTKIT_VERSION, versions.SOURCE_PROFILE, declared=versions.PROMPTKIT_DEFAULT
    )
    assert promptkit.describe() == (
        "the promptkit profile checks against the schema PromptKit 1.5.11 embeds (labelled 1.5.0)"
    )
    older = versions.target_for(data, profile="promptkit", promptkit="1.5.3")
    assert older.version == versions.PROMPTKIT_VERSION and "PromptKit 1.5.3" in older.explain()


@pytest.mark.parametrize("bad", ["2.0.0", "one", "1", ""])
def test_bad_spec_version_setting_is_a_configuration_error(bad: str) -> None:
    with pytest.raises(ConfigError, match=r"spec.version"):
        from_mapping({"spec-version": bad}, "x.toml")


def test_spec_version_setting_in_every_spelling() -> None:
    for key in ("spec-version", "spec_version", "specVersion"):
        assert from_mapping({key: "latest"}).spec_version == "latest"


def test_restrict_leaves_our_schema_untouched_and_marks_removed_keys() -> None:
    full = load_schema("promptpack.schema.json")
    before = repr(full)
    v13 = versions.restrict(full, "1.3.0")
    assert repr(full) == before
    assert "skills" not in v13["properties"]
    assert v13["x-later"]["skills"] == {"since": "1.3.1", "rfc": "0008"}
    assert v13["x-promptpack-version"] == "1.3.0"


# --------------------------------------------------------------------- PP110


def test_newer_key_gets_one_clear_diagnostic() -> None:
    analysis = run(f"$schema: {V14}\n" + HEAD + WORKFLOW)
    assert codes(analysis) == ["PP110"]
    d = analysis.diagnostics[0]
    assert d.message == (
        "`control` needs PromptPack ≥ 1.7.0 (RFC 0014); this pack declares 1.4.0 in `$schema`"
    )
    assert analysis.text[d.span.start : d.span.end] == "control"
    assert d.severity == Severity.ERROR


def test_same_pack_is_clean_when_it_declares_a_version_that_has_the_key() -> None:
    url = versions.schema_url("1.7.0")
    assert codes(run(f"$schema: {url}\n" + HEAD + WORKFLOW)) == []
    assert codes(run(HEAD + WORKFLOW)) == []  # no $schema: the latest version


def test_setting_wins_over_schema_and_offers_no_schema_fix() -> None:
    analysis = run(HEAD + WORKFLOW, Config(spec_version="1.4.0"))
    d = one(analysis, "PP110")
    assert d.message.endswith("the `spec-version` setting is 1.4.0")
    assert quick_fixes(analysis, d) == []


def test_promptkit_profile_calls_newer_spec_keys_unknown() -> None:
    analysis = run(HEAD + WORKFLOW, Config(profile=Profile.PROMPTKIT))
    assert "PP110" not in codes(analysis)
    assert any(d.code == "PP102" and "`control`" in d.message for d in analysis.diagnostics), (
        analysis.diagnostics
    )


@pytest.mark.parametrize("quote", ["", "'", '"'], ids=["plain", "single", "double"])
def test_quick_fix_raises_schema(quote: str) -> None:
    text = f"$schema: {quote}{V14}{quote}\n" + HEAD + WORKFLOW
    analysis = run(text)
    d = one(analysis, "PP110")
    (fix,) = quick_fixes(analysis, d)
    assert fix.title == "Raise `$schema` to PromptPack 1.7.0"
    fixed = apply_edits(text, fix.edits)
    assert fixed.splitlines()[0] == f"$schema: {quote}{versions.schema_url('1.7.0')}{quote}"
    assert fixed.splitlines()[1:] == text.splitlines()[1:]
    after = run(fixed)
    assert after.data["$schema"] == versions.schema_url("1.7.0")
    assert codes(after) == []


def test_quick_fix_raises_schema_in_json_to_a_published_version() -> None:
    text = (
        '{"$schema": "https://promptpack.org/schema/v1.4.0/promptpack.schema.json",\n'
        ' "id": "demo", "name": "Demo", "version": "1.0.0",\n'
        ' "template_engine": {"version": "v1", "syntax": "{{variable}}"},\n'
        ' "prompts": {"p": {"id": "p", "name": "P", "version": "1.0.0",'
        ' "system_template": "x"}},\n'
        ' "requires": {"providers": ["default"]}}\n'
    )
    analysis = run(text, path="pack.json")
    d = one(analysis, "PP110")
    assert "`requires` needs PromptPack ≥ 1.5.1 (RFC 0012)" in d.message
    (fix,) = quick_fixes(analysis, d)
    fixed = apply_edits(text, fix.edits)
    assert '"$schema": "https://promptpack.org/schema/v1.5.1/promptpack.schema.json"' in fixed
    assert codes(run(fixed, path="pack.json")) == []


# --------------------------------------------------------------------- PP111

VALIDATORS = (
    "    validators:\n"
    "      - type: banned_words\n"
    "        fail_on_violation: true\n"
    "        params: {words: [refund]}\n"
    "      - fail_on_violation: true\n"
    "        type: max_length\n"
    "      - type: min_length\n"
    "        fail_on_violation: false\n"
)


def test_deprecation_warnings_name_the_replacement() -> None:
    analysis = run(HEAD + VALIDATORS)
    found = [d for d in analysis.diagnostics if d.code == "PP111"]
    assert len(found) == 3 and codes(analysis) == ["PP111"] * 3
    assert all(d.severity == Severity.WARNING and Tag.DEPRECATED in d.tags for d in found)
    assert "remove it" in found[0].message
    assert "RFC 0015" in found[2].message and "`evals`" in found[2].message
    assert "`enabled: false`" in found[2].message


def test_no_deprecation_before_it_was_deprecated() -> None:
    url = versions.schema_url("1.5.1")
    assert codes(run(f"$schema: {url}\n" + HEAD + VALIDATORS)) == []


def test_quick_fix_removes_inert_true_only() -> None:
    text = HEAD + VALIDATORS
    analysis = run(text)
    first, _, third = [d for d in analysis.diagnostics if d.code == "PP111"]
    assert quick_fixes(analysis, third) == []  # `false` needs a decision: no blind fix
    (fix,) = quick_fixes(analysis, first)
    assert fix.title == "Remove `fail_on_violation`"
    fixed = apply_edits(text, fix.edits)
    assert "      - type: banned_words\n        params: {words: [refund]}\n" in fixed
    after = run(fixed)
    (fix2,) = quick_fixes(after, next(d for d in after.diagnostics if d.code == "PP111"))
    fixed2 = apply_edits(fixed, fix2.edits)
    assert "      - type: max_length\n" in fixed2  # the key after the dash moves up
    assert [d.code for d in run(fixed2).diagnostics] == ["PP111"]  # only the `false` one


def test_quick_fix_removes_from_json_and_flow() -> None:
    text = (
        '{"id": "demo", "name": "Demo", "version": "1.0.0",\n'
        ' "template_engine": {"version": "v1", "syntax": "{{variable}}"},\n'
        ' "prompts": {"p": {"id": "p", "name": "P", "version": "1.0.0",'
        ' "system_template": "x",\n'
        '   "validators": [{"type": "a", "fail_on_violation": true},'
        ' {"fail_on_violation": true, "type": "b"}]}}}\n'
    )
    for _ in range(2):
        analysis = run(text, path="pack.json")
        d = next(d for d in analysis.diagnostics if d.code == "PP111")
        (fix,) = quick_fixes(analysis, d)
        text = apply_edits(text, fix.edits)
    assert '"validators": [{"type": "a"}, {"type": "b"}]' in text
    assert codes(run(text, path="pack.json")) == []


# --------------------------------------------------------------------- editor help


def labels(text: str) -> list[str]:
    offset = text.index("|")
    analysis = run(text.replace("|", "", 1))
    return [c.label for c in complete(analysis, offset)]


def test_completion_offers_only_keys_of_the_declared_version() -> None:
    body = HEAD + (
        "workflow:\n  version: 1\n  entry: s\n  states:\n    s:\n      prompt_task: triage\n      |"
    )
    latest = labels(body)
    assert "control" in latest and "composition" in latest
    old = labels(f"$schema: {V14}\n" + body)
    assert "control" not in old and "composition" not in old
    assert "max_visits" in old
    assert "max_visits" not in labels(f"$schema: {versions.schema_url('1.3.1')}\n" + body)


def test_hover_says_since_which_version() -> None:
    text = HEAD + WORKFLOW
    analysis = run(text)
    result = hover(analysis, text.index("control") + 2)
    assert result is not None
    assert "since 1.7.0" in result.markdown
    assert "user" in result.markdown  # our description of the values
    fov = run(HEAD + VALIDATORS)
    deprecated = hover(fov, fov.text.index("fail_on_violation") + 2)
    assert deprecated is not None and "deprecated" in deprecated.markdown


# --------------------------------------------------------------------- command line


def test_check_profile_flag_acts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pack = tmp_path / "pack.yaml"
    # An unknown `persistence` is a warning under the spec; PromptKit's schema refuses it.
    pack.write_text(
        HEAD + WORKFLOW.replace("      control: agent\n", "      persistence: forever\n"),
        encoding="utf-8",
    )
    assert main(["--check", str(pack)]) == 0
    spec_out = capsys.readouterr().out
    assert main(["--check", "--profile", "promptkit", str(pack)]) == 1
    promptkit_out = capsys.readouterr().out
    assert "warning" in spec_out and "PP408" in spec_out
    assert "error" in promptkit_out and "PP104" in promptkit_out and "PP408" not in promptkit_out


def test_check_spec_version_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pack = tmp_path / "pack.yaml"
    pack.write_text(HEAD + WORKFLOW, encoding="utf-8")
    assert main(["--check", str(pack)]) == 0
    assert main(["--check", "--spec-version", "1.4.0", str(pack)]) == 1
    assert "PP110" in capsys.readouterr().out
    (tmp_path / ".pack-lsp.toml").write_text('spec-version = "1.4.0"\n', encoding="utf-8")
    assert main(["--check", str(pack)]) == 1
    assert main(["--check", "--spec-version", "latest", str(pack)]) == 0
    with pytest.raises(SystemExit) as exit_info:
        main(["--check", "--spec-version", "3.0", str(pack)])
    assert exit_info.value.code == 2
    assert "--spec-version" in capsys.readouterr().err


# --------------------------------------------------------------------- released versions

RELEASED = (
    "1.0.0",
    "1.1.0",
    "1.2.0",
    "1.3.0",
    "1.3.1",
    "1.4.0",
    "1.4.1",
    "1.5.0",
    "1.5.1",
    "1.6.0",
    "1.7.0",
    "1.8.0",
    "1.8.1",
    "1.9.0",
)

#: What each release added, as (where, property) pairs: "root" is the pack itself,
#: any other name a definition of the schema. From the release history of the format.
ADDED: dict[str, set[tuple[str, str]]] = {
    "1.1.0": {("Prompt", "media"), ("Variable", "binding"), ("Validator", "message")},
    "1.2.0": {("root", "evals"), ("Prompt", "evals")},
    "1.3.0": {
        ("root", "workflow"),
        ("root", "agents"),
        ("Eval", "threshold"),
        ("Eval", "message"),
        ("Eval", "when"),
        ("Eval", "groups"),
    },
    "1.3.1": {("root", "skills"), ("WorkflowState", "skills")},
    "1.4.0": {
        ("WorkflowState", "terminal"),
        ("WorkflowState", "max_visits"),
        ("WorkflowState", "on_max_visits"),
        ("WorkflowState", "artifacts"),
        ("WorkflowEngine", "budget"),
    },
    "1.4.1": {("AgentDef", "state")},
    "1.5.0": {("root", "compositions"), ("WorkflowState", "composition")},
    "1.5.1": {("root", "requires")},
    "1.6.0": {
        ("Metadata", "governance"),
        ("AgentDef", "governance"),
        ("Tool", "action_scope"),
        ("Tool", "extensions"),
    },
    "1.7.0": {("WorkflowState", "control")},
    "1.8.0": {
        ("Governance", "independent_of"),
        ("Governance", "obligations"),
        ("Governance", "reviews"),
        ("Validator", "id"),
        ("Validator", "extensions"),
        ("Prompt", "extensions"),
        ("Eval", "extensions"),
        ("WorkflowState", "extensions"),
        ("AgentDef", "extensions"),
        ("Composition", "extensions"),
    },
    "1.8.1": set(),
    "1.9.0": {("Prompt", "provider"), ("PromptStep", "provider"), ("AgentStep", "provider")},
}


def _properties(schema: dict[str, Any]) -> set[tuple[str, str]]:
    found = {("root", name) for name in schema.get("properties", {})}
    for where, sub in schema.get("$defs", {}).items():
        found |= {(where, name) for name in sub.get("properties", {})}
    return found


FULL = load_schema("promptpack.schema.json")


def test_known_versions_are_every_release() -> None:
    assert versions.KNOWN_VERSIONS == RELEASED
    assert RELEASED[-1] == versions.LATEST
    assert set(ADDED) == set(RELEASED[1:])


@functools.cache
def cut(version: str) -> dict[str, Any]:
    return versions.restrict(FULL, version)


@pytest.mark.parametrize("version", RELEASED[1:])
def test_each_release_adds_exactly_what_the_history_gives_it(version: str) -> None:
    before = RELEASED[RELEASED.index(version) - 1]
    added = _properties(cut(version)) - _properties(cut(before))
    # Definitions are never cut, only their properties: a definition a release starts
    # using (Composition in 1.5.0) is counted by the property that refers to it.
    assert {(w, n) for w, n in added if _reachable(before, w)} == ADDED[version]


def _reachable(version: str, definition: str) -> bool:
    """Whether the schema of ``version`` uses ``definition`` ("root": the pack)."""
    if definition == "root":
        return True
    defs = cut(version)["$defs"]
    todo = [json.dumps({k: v for k, v in cut(version).items() if k != "$defs"})]
    seen: set[str] = set()
    while todo:
        body = todo.pop()
        for name in defs:
            if name not in seen and f'"#/$defs/{name}"' in body:
                seen.add(name)
                todo.append(json.dumps(defs[name]))
    return definition in seen


def test_constraints_that_changed_follow_the_history() -> None:
    def state(version: str) -> dict[str, Any]:
        result: dict[str, Any] = cut(version)["$defs"]["WorkflowState"]
        return result

    # 1.5.0 closed `orchestration` and made `prompt_task` conditional.
    assert state("1.4.1")["required"] == ["prompt_task"]
    assert "enum" not in state("1.4.1")["properties"]["orchestration"]
    assert "required" not in state("1.5.0") and "if" in state("1.5.0")
    assert "composition" in state("1.5.0")["properties"]["orchestration"]["enum"]
    # 1.8.0 added extension steps; 1.8.1 rewrote the `cadence` pattern.
    steps = [s["$ref"] for s in cut("1.7.0")["$defs"]["Step"]["oneOf"]]
    assert "#/$defs/ExtensionStep" not in steps
    steps = [s["$ref"] for s in cut("1.8.0")["$defs"]["Step"]["oneOf"]]
    assert "#/$defs/ExtensionStep" in steps
    cadence = {
        v: cut(v)["$defs"]["Review"]["properties"]["cadence"]["pattern"]
        for v in ("1.8.0", "1.8.1", "1.9.0")
    }
    assert "(?=" in cadence["1.8.0"] and "(?!" in cadence["1.8.0"]
    assert "(?=" not in cadence["1.8.1"] and "(?!" not in cadence["1.8.1"]
    assert cadence["1.9.0"] == cadence["1.8.1"]
    # `fail_on_violation` is deprecated from 1.7.0 on, not in 1.6.0.
    fov = "fail_on_violation"
    assert "x-deprecated" not in cut("1.6.0")["$defs"]["Validator"]["properties"][fov]
    assert "x-deprecated" in cut("1.7.0")["$defs"]["Validator"]["properties"][fov]


# ------------------------------------------------------------- every version compiles

GOVERNED = (
    "agents:\n  entry: triage\n  members:\n    triage:\n      description: Sorts requests\n"
    "      governance:\n"
    "        reviews:\n          - {id: audit, type: accuracy, cadence: CADENCE, owner: audit}\n"
)
CADENCES = {
    "P3M": True,
    "P1Y2M3W4D": True,
    "PT12H": True,
    "P1DT30M": True,
    "P": False,
    "PT": False,
    "P1DT": False,
    "3M": False,
    "P3m": False,
}


@pytest.mark.parametrize("version", RELEASED)
def test_every_version_compiles_with_both_validators(version: str) -> None:
    from jsonschema import Draft202012Validator

    from pack_lsp.core.model.schema import promptpack_validator

    validator = promptpack_validator(version)
    # jsonschema-rs compiles every unit (else the project would silently fall back
    # to the slow path), and jsonschema accepts the cut as a draft 2020-12 schema.
    assert validator.root.fast is not None and validator.prompt.fast is not None
    Draft202012Validator.check_schema(validator.schema)


@pytest.mark.parametrize("version", RELEASED)
def test_reviews_cadence_in_every_version(version: str) -> None:
    from pack_lsp.core.model.schema import promptpack_validator

    url = versions.schema_url(version)
    validator = promptpack_validator(version)
    for cadence, valid in CADENCES.items():
        text = f"$schema: {url}\n" + HEAD + GOVERNED.replace("CADENCE", cadence)
        analysis = run(text)
        if versions.key(version) >= (1, 8, 0):
            # Both validators give the same verdict on the unit; the pack reports
            # nothing or the pattern, with its hint.
            assert validator.root.fast.is_valid(analysis.data) is valid, cadence
            assert validator.root.full().is_valid(analysis.data) is valid, cadence
            if valid:
                assert codes(analysis) == [], (cadence, analysis.diagnostics)
            else:
                d = one(analysis, "PP105")
                assert "ISO 8601 duration" in d.message, d.message
            continue
        # Without `reviews`: one PP110 naming the first missing level and the version
        # that added it, the declared version, and nothing else.
        (d,) = analysis.diagnostics
        assert d.code == "PP110"
        missing, since = (
            ("agents", "1.3.0")
            if versions.key(version) < (1, 3, 0)
            else ("governance", "1.6.0")
            if versions.key(version) < (1, 6, 0)
            else ("reviews", "1.8.0")
        )
        assert d.message.startswith(f"`{missing}` needs PromptPack ≥ {since}"), d.message
        assert d.message.endswith(f"this pack declares {_written(version)} in `$schema`")


def _written(version: str) -> str:
    """How ``schema_url(version)`` writes the version (v1.3 for 1.3.0)."""
    segment = versions.schema_url(version).split("/schema/v", 1)[1].split("/", 1)[0]
    return segment


# ------------------------------------------------------------- unknown versions

UNKNOWN_USES = (
    HEAD
    + WORKFLOW
    + "compositions:\n  c:\n    version: 1\n    steps:\n"
    + "      - {id: a, kind: prompt, prompt_task: triage}\n"
    + "requires:\n  providers: [default]\n"
)


@pytest.mark.parametrize(
    ("segment", "checked", "relation"),
    [
        ("v1.4.5", "1.4.1", versions.BETWEEN),
        ("v1.2.7", "1.2.0", versions.BETWEEN),
        ("v1.5", "1.5.0", versions.EXACT),
        ("v1.3", "1.3.0", versions.EXACT),
        ("v1.3.0", "1.3.0", versions.EXACT),
        ("v1.10.0", versions.LATEST, versions.ABOVE),
        ("v1.9.1", versions.LATEST, versions.ABOVE),
        ("v2.0.0", versions.LATEST, versions.ABOVE),
        ("v2", versions.LATEST, versions.ABOVE),
        ("v1", versions.LATEST, versions.ALIAS),
        ("latest", versions.LATEST, versions.ALIAS),
    ],
)
def test_declared_versions_resolve(segment: str, checked: str, relation: str) -> None:
    url = f"https://promptpack.org/schema/{segment}/promptpack.schema.json"
    target = versions.target_for({"$schema": url})
    assert (target.version, target.source, target.relation) == (
        checked,
        versions.SOURCE_SCHEMA,
        relation,
    )


@pytest.mark.parametrize("declared", ["1.4.5", "1.5.7", "1.6.3", "1.2.9"])
def test_messages_name_the_declared_version_never_the_one_checked_as_declared(
    declared: str,
) -> None:
    url = f"https://promptpack.org/schema/v{declared}/promptpack.schema.json"
    target = versions.target_for({"$schema": url})
    analysis = run(f"$schema: {url}\n" + UNKNOWN_USES)
    needs = [d for d in analysis.diagnostics if d.code == "PP110"]
    assert needs, analysis.diagnostics
    for d in analysis.diagnostics:
        assert f"declares {target.version}" not in d.message, d.message
    for d in needs:
        assert d.message.endswith(
            f"this pack declares {declared} in `$schema` (checked as {target.version})"
        ), d.message
        assert d.data["target"] == target.version


def test_setting_messages_name_the_setting() -> None:
    analysis = run(UNKNOWN_USES, Config(spec_version="1.4.5"))
    needs = [d for d in analysis.diagnostics if d.code == "PP110"]
    assert {d.data["key"] for d in needs} == {"compositions", "requires", "control"}
    for d in needs:
        assert d.message.endswith("the `spec-version` setting is 1.4.5 (checked as 1.4.1)")
        assert quick_fixes(analysis, d) == []


@pytest.mark.parametrize(
    ("setting", "checked"),
    [("1.8", "1.8.0"), ("1.3", "1.3.0"), ("v1.6", "1.6.0"), ("1.5.0", "1.5.0"), ("1.4.5", "1.4.1")],
)
def test_setting_without_patch_is_the_dot_zero_release(setting: str, checked: str) -> None:
    assert versions.parse_setting(setting) == checked
    assert versions.target_for({}, setting=setting).version == checked


def test_setting_above_the_newest_is_checked_as_the_newest_without_a_note() -> None:
    target = versions.target_for({}, setting="1.10")
    assert (target.version, target.relation) == (versions.LATEST, versions.ABOVE)
    assert target.describe() == f"the `spec-version` setting is 1.10 (checked as {versions.LATEST})"
    # PP112 is about what `$schema` declares; a setting is the project's own choice.
    url = "https://promptpack.org/schema/v1.10.0/promptpack.schema.json"
    assert "PP112" not in codes(run(f"$schema: {url}\n" + HEAD, Config(spec_version="1.10")))


@pytest.mark.parametrize("segment", ["v1.10.0", "v1.9.1", "v2.0.0", "v3"])
def test_version_above_the_newest_gets_one_note_on_the_schema_value(segment: str) -> None:
    url = f"https://promptpack.org/schema/{segment}/promptpack.schema.json"
    text = f"$schema: '{url}'\n" + HEAD + WORKFLOW
    analysis = run(text)
    assert codes(analysis) == ["PP112"]
    d = analysis.diagnostics[0]
    assert d.severity == Severity.INFORMATION
    assert analysis.text[d.span.start : d.span.end] == f"'{url}'"
    declared = segment.removeprefix("v")
    named = declared if "." in declared else segment
    assert d.message.startswith(f"`$schema` declares PromptPack {named}, newer than every")
    assert f"checked as {versions.LATEST}" in d.message
    assert ("new major version" in d.message) is (not declared.startswith("1."))


@pytest.mark.parametrize(
    "segment", ["v1.9.0", "v1.4.5", "latest", "v1", "v1.0", "v0.9", "not-a-version"]
)
def test_no_note_for_known_or_lower_versions(segment: str) -> None:
    url = f"https://promptpack.org/schema/{segment}/promptpack.schema.json"
    assert "PP112" not in codes(run(f"$schema: {url}\n" + HEAD))


def test_quick_fix_writes_the_published_url_of_each_version() -> None:
    assert versions.schema_url("1.3.0").endswith("/schema/v1.3/promptpack.schema.json")
    assert versions.schema_url("1.3.1").endswith("/schema/v1.3.1/promptpack.schema.json")
    assert versions.schema_url("1.0.0").endswith("/schema/v1.0/promptpack.schema.json")
    # A key added in 1.8.0 raises to 1.8.1: same features, a pattern every engine reads.
    assert versions.raise_to("1.8.0") == "1.8.1"
    assert versions.raise_to("1.5.0") == "1.5.0"
    assert versions.raise_to("1.6.0") == "1.6.0"
    for version in RELEASED:
        assert versions.declared_version(versions.schema_url(version)) == version


def _schema_hover(text: str, config: Config | None = None) -> str:
    analysis = run(text, config)
    value = hover(analysis, text.index("https://") + 5)
    key = hover(analysis, text.index("$schema") + 2)
    assert value is not None and key is not None
    assert key.markdown.endswith(value.markdown)
    return value.markdown


@pytest.mark.parametrize(
    ("segment", "expected"),
    [
        (
            "v1.4.5",
            "This `$schema` declares PromptPack 1.4.5, which pack-lsp does not know; "
            "checked with the features of 1.4.1, the newest known version below it.",
        ),
        ("v1.5.0", "This `$schema` declares PromptPack 1.5.0: the pack is checked against 1.5.0."),
        ("v1.3", "This `$schema` declares PromptPack 1.3: the pack is checked against 1.3.0."),
        (
            "v1.10.0",
            "This `$schema` declares PromptPack 1.10.0, newer than every version pack-lsp "
            f"knows; checked with the features of {versions.LATEST}, the newest known version.",
        ),
        (
            "latest",
            f"This `$schema` declares PromptPack `latest`: the pack is checked against "
            f"{versions.LATEST}, the newest version pack-lsp knows.",
        ),
    ],
)
def test_hover_on_schema_tells_the_version_checked(segment: str, expected: str) -> None:
    url = f"https://promptpack.org/schema/{segment}/promptpack.schema.json"
    assert _schema_hover(f"$schema: {url}\n" + HEAD) == expected


def test_hover_on_schema_names_the_setting_or_profile_when_they_win() -> None:
    text = f"$schema: {V14}\n" + HEAD
    assert _schema_hover(text, Config(spec_version="1.6")) == (
        "The `spec-version` setting, which wins over `$schema`, is 1.6: the pack is "
        "checked against 1.6.0."
    )
    assert "promptkit profile" in _schema_hover(text, Config(profile=Profile.PROMPTKIT))
    odd = "$schema: https://example.com/my-schema.json\n" + HEAD
    assert "names no PromptPack version" in _schema_hover(odd)
