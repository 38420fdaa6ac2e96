"""PromptPack versions: which one a pack targets, the schema cut to it, and what the
user sees (PP110, PP111, their quick fixes, hover and completion, the CLI flags)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pack_lsp.cli import main
from pack_lsp.core import kinds, versions
from pack_lsp.core.analysis import Analysis, analyze
from pack_lsp.core.config import Config, ConfigError, from_mapping
from pack_lsp.core.diagnostics import Diagnostic, Severity, Tag
from pack_lsp.core.language.codeactions import quick_fixes
from pack_lsp.core.language.completion import complete
from pack_lsp.core.language.hover import hover
from pack_lsp.core.language.rename import apply_edits
from pack_lsp.core.resources import load_schema

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
    assert promptkit == versions.Target(versions.PROMPTKIT_VERSION, versions.SOURCE_PROFILE)


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
    analysis = run(HEAD + WORKFLOW, Config(profile="promptkit"))
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
    # An unknown `persistence` is a warning under the spec and an error in PromptKit.
    pack.write_text(
        HEAD + WORKFLOW.replace("      control: agent\n", "      persistence: forever\n"),
        encoding="utf-8",
    )
    assert main(["--check", str(pack)]) == 0
    spec_out = capsys.readouterr().out
    assert main(["--check", "--profile", "promptkit", str(pack)]) == 1
    promptkit_out = capsys.readouterr().out
    assert "warning" in spec_out and "PP408" in spec_out
    assert "error" in promptkit_out and "PP408" in promptkit_out


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
