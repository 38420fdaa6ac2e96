"""Deploy targets (docs/decisions.md, D55–D59): each fact read in a runtime's code is
a finding of the PT family for packs checked for that target, and nothing changes for
a pack checked for none.

The facts were read at the commits ``core/model/targets.py`` pins; the cases below
are the issue's list, one test each.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pack_lsp.cli import main
from pack_lsp.core.base.diagnostics import Severity
from pack_lsp.core.checks.analysis import Analysis, analyze
from pack_lsp.core.checks.rules.targets import example_pack_data
from pack_lsp.core.ide.hover import hover
from pack_lsp.core.ide.render import render
from pack_lsp.core.model.config import Config, ConfigError, from_mapping
from pack_lsp.core.model.runtimes import conforms, fragment_chain, langchainjs_pattern

OMNIA, PYTHON, JS = "omnia", "promptpack-python", "promptpack-langchainjs"


def pack(extra: dict[str, Any] | None = None, **prompt: Any) -> dict[str, Any]:
    return example_pack_data(extra, **prompt)


def analysis(data: dict[str, Any] | str, *targets: str, **config: Any) -> Analysis:
    text = data if isinstance(data, str) else json.dumps(data, indent=2)
    name = "pack.promptpack.yaml" if isinstance(data, str) else "pack.promptpack.json"
    settings = {"targets": list(targets), **config} if targets else config
    return analyze(text, path=Path(name), config=from_mapping(settings))


def found(data: dict[str, Any] | str, *targets: str, **config: Any) -> list[tuple[str, str]]:
    """(code, message) of the PT findings."""
    return [
        (d.code, d.message)
        for d in analysis(data, *targets, **config).diagnostics
        if d.code.startswith("PT")
    ]


def codes(data: dict[str, Any] | str, *targets: str, **config: Any) -> list[str]:
    return [code for code, _ in found(data, *targets, **config)]


YAML = (
    "id: support\nname: Support\nversion: 1.0.0\n"
    'template_engine: {version: v1, syntax: "{{variable}}"}\n'
    "prompts:\n  support: {id: support, name: Support, version: 1.0.0, system_template: Help}\n"
)

#: Keys of later versions that the 1.0 runtimes and Omnia's fallback schema lack.
VARIABLE_BINDING = {
    "variables": [
        {"name": "x", "type": "string", "required": True, "binding": {"kind": "resource"}}
    ],
    "system_template": "Help {{x}}",
}


# ------------------------------------------------------------------------------- Omnia


def test_configmap_entry_other_than_pack_json_is_the_first_finding() -> None:
    text = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: support-pack}\ndata:\n"
        "  support.json: |\n    " + json.dumps(pack()) + "\n"
    )
    result = analyze(text, path=Path("resources.yaml"))
    assert [d.code for d in result.diagnostics] == ["PT001"]
    assert "pack.json" in result.diagnostics[0].message


def test_configmap_yaml_pack_is_refused_by_omnia() -> None:
    body = "".join(f"    {line}\n" for line in YAML.splitlines())
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: p}\ndata:\n  pack.yaml: |\n" + body
    result = analyze(text, path=Path("resources.yaml"))
    assert [d.code for d in result.diagnostics] == ["PT001", "PT002"]


def test_configmap_packs_follow_configured_targets() -> None:
    text = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: support-pack}\ndata:\n"
        "  support.json: |\n    " + json.dumps(pack()) + "\n"
    )
    assert analyze(text, path=Path("r.yaml"), config=Config(targets=())).diagnostics == ()


@pytest.mark.parametrize(
    ("extra", "prompt", "key"),
    [
        ({"requires": {"providers": [{"key": "triage", "role": "llm"}]}}, {}, "requires"),
        ({}, {"provider": "default"}, "provider"),
        ({}, {"validators": [{"type": "max_length", "enabled": True, "id": "v"}]}, "id"),
        ({}, {"validators": [{"type": "max_length", "enabled": True, "message": "m"}]}, "message"),
        ({}, VARIABLE_BINDING, "binding"),
        ({}, {"extensions": {"x-acme": {}}}, "extensions"),
        (
            {"tools": {"t": {"name": "t", "description": "T", "action_scope": {}}}},
            {"tools": ["t"]},
            "action_scope",
        ),
    ],
)
def test_omnia_fallback_refuses_later_keys(
    extra: dict[str, Any], prompt: dict[str, Any], key: str
) -> None:
    got = found(pack(extra, **prompt), OMNIA)
    assert ("PT003", got[0][1]) in got and f"`{key}`" in got[0][1]
    assert "readiness probe" in got[0][1]


def test_omnia_fallback_requires_validator_enabled() -> None:
    assert codes(pack(validators=[{"type": "max_length"}]), OMNIA) == ["PT005"]
    assert codes(pack(validators=[{"type": "max_length", "enabled": False}]), OMNIA) == []


@pytest.mark.parametrize(
    "prompt",
    [
        {"validators": [{"type": "max_sentences", "enabled": True}]},
        {
            "variables": [{"name": "n", "type": "integer", "required": True}],
            "system_template": "{{n}}",
        },
    ],
)
def test_omnia_fallback_closed_lists(prompt: dict[str, Any]) -> None:
    assert "PT004" in codes(pack(**prompt), OMNIA)


def test_omnia_fallback_refuses_every_media_and_its_formats() -> None:
    assert codes(pack(media={"enabled": True}), OMNIA) == ["PT006"]
    media = {"enabled": True, "image": {"allowed_formats": ["png", "heic"]}}
    assert codes(pack(media=media), OMNIA) == ["PT006", "PT004"]


def test_omnia_enforces_formats() -> None:
    tested = [{"provider": "openai", "model": "gpt-4o", "date": "2025-10"}]
    assert codes(pack(tested_models=tested), OMNIA) == ["PT007"]
    tested[0]["date"] = "2025-10-01"
    assert codes(pack(tested_models=tested), OMNIA) == []
    assert conforms("img/a.png", "uri") is False and conforms("https://x.test/a.png", "uri")
    assert conforms("2025-02-30", "date") is False


def test_omnia_cannot_compile_v180() -> None:
    url = "https://promptpack.org/schema/{}/promptpack.schema.json"
    assert codes(pack({"$schema": url.format("v1.8.0")}), OMNIA) == ["PT008"]
    assert codes(pack({"$schema": url.format("v1.8.1")}), OMNIA) == []


def test_omnia_entry_prompt() -> None:
    two = pack()
    two["prompts"]["billing"] = dict(two["prompts"]["support"], id="billing")
    assert codes(two, OMNIA) == ["PT009"]
    two["prompts"]["default"] = two["prompts"].pop("billing") | {"id": "default"}
    assert codes(two, OMNIA) == []
    assert codes(pack(), OMNIA) == []


def test_omnia_agent_card_comes_from_the_resource() -> None:
    agents = {"agents": {"entry": "support", "members": {"support": {}}}}
    result = analysis(pack(agents), OMNIA)
    pt = [d for d in result.diagnostics if d.code.startswith("PT")]
    assert [(d.code, d.severity) for d in pt] == [("PT010", Severity.WARNING)]


def test_yaml_is_refused_by_every_json_runtime() -> None:
    assert codes(YAML, OMNIA, PYTHON, JS) == ["PT002", "PT020", "PT040"]


# --------------------------------------------------------------------- promptpack-python


@pytest.mark.parametrize(
    ("extra", "prompt", "key"),
    [
        ({"agents": {"entry": "support", "members": {"support": {}}}}, {}, "agents"),
        ({"evals": []}, {}, "evals"),
        ({"skills": []}, {}, "skills"),
        ({"compositions": {}}, {}, "compositions"),
        ({"requires": {"providers": []}}, {}, "requires"),
        ({}, {"provider": "default"}, "provider"),
        ({}, {"extensions": {}}, "extensions"),
        ({}, VARIABLE_BINDING, "binding"),
        (
            {},
            {
                "validators": [
                    {"type": "max_length", "enabled": True, "id": "v", "fail_on_violation": True}
                ]
            },
            "id",
        ),
    ],
)
def test_python_forbids_unknown_keys(
    extra: dict[str, Any], prompt: dict[str, Any], key: str
) -> None:
    got = [m for c, m in found(pack(extra, **prompt), PYTHON) if c == "PT021"]
    assert any(f"`{key}`" in m for m in got), got


def test_python_forbids_workflow() -> None:
    flow = {"workflow": {"version": 1, "entry": "s", "states": {"s": {"prompt_task": "support"}}}}
    assert "PT021" in codes(pack(flow), PYTHON)


@pytest.mark.parametrize(
    "prompt",
    [
        {"media": {"enabled": True, "audio": {"allowed_formats": ["ogg"]}}},
        {"media": {"enabled": True, "image": {"allowed_formats": ["heic"]}}},
        {
            "variables": [{"name": "n", "type": "integer", "required": True}],
            "system_template": "{{n}}",
        },
    ],
)
def test_python_closed_lists(prompt: dict[str, Any]) -> None:
    assert codes(pack(**prompt), PYTHON) == ["PT022"]


def test_python_ignores_the_syntax_and_the_spec_fragment_form() -> None:
    dollar = pack(
        system_template="Help ${who}",
        variables=[{"name": "who", "type": "string", "required": True}],
    )
    dollar["template_engine"]["syntax"] = "${variable}"
    assert codes(dollar, PYTHON) == ["PT024"]
    spec_form = pack({"fragments": {"tone": "Be kind."}}, system_template="{{fragments.tone}}")
    [(code, message)] = found(spec_form, PYTHON)
    assert code == "PT024" and "`{{fragment:tone}}`" in message
    python_form = pack({"fragments": {"tone": "Be kind."}}, system_template="{{fragment:tone}}")
    assert codes(python_form, PYTHON) == []


def test_python_drops_tools_it_cannot_find() -> None:
    assert codes(pack(tools=["mcp__docs__search"]), PYTHON) == ["PT025"]


def test_python_blocks_only_with_fail_on_violation() -> None:
    validator = {"type": "max_length", "enabled": True}
    assert codes(pack(validators=[validator]), PYTHON) == ["PT026"]
    validator["fail_on_violation"] = True
    assert codes(pack(validators=[validator]), PYTHON) == []


# ---------------------------------------------------------------- promptpack-langchainjs


def test_langchainjs_ignores_unknown_keys() -> None:
    agents = {"agents": {"entry": "support", "members": {"support": {}}}}
    result = analysis(pack(agents), JS)
    pt = [(d.code, d.severity) for d in result.diagnostics if d.code.startswith("PT")]
    assert pt == [("PT041", Severity.WARNING)]


def test_langchainjs_follows_the_syntax_but_not_fragments_dot() -> None:
    dollar = pack(
        system_template="Help ${who}",
        variables=[{"name": "who", "type": "string", "required": True}],
    )
    dollar["template_engine"]["syntax"] = "${variable}"
    assert codes(dollar, JS) == []
    spec_form = pack({"fragments": {"tone": "Be kind."}}, system_template="{{fragments.tone}}")
    assert codes(spec_form, JS) == ["PT042"]


def test_langchainjs_fragment_shadows_variable() -> None:
    data = pack(
        {"fragments": {"name": "Ada"}},
        system_template="Hello {{name}}",
        variables=[{"name": "name", "type": "string", "required": True}],
    )
    assert codes(data, JS, fragment_dialect="spec") == ["PT043"]


def test_langchainjs_optional_variable_without_default_throws() -> None:
    variable = {"name": "tone", "type": "string", "required": False}
    data = pack(system_template="In a {{tone}} tone", variables=[variable])
    assert codes(data, JS) == ["PT044"]
    variable["default"] = ""
    assert codes(data, JS) == []


def chained(levels: int) -> dict[str, Any]:
    fragments = {f"f{i}": f"Part {i}. {{{{f{i + 1}}}}}" for i in range(1, levels)}
    fragments[f"f{levels}"] = "End."
    return pack({"fragments": fragments}, system_template="{{f1}}")


def test_langchainjs_nine_levels_of_fragments_throw() -> None:
    assert codes(chained(9), JS, fragment_dialect="promptkit") == ["PT045"]
    assert codes(chained(8), JS, fragment_dialect="promptkit") == []
    pattern = langchainjs_pattern("{{variable}}")
    assert pattern is not None
    assert fragment_chain("{{a}}", {"a": "{{b}}", "b": "{{a}}"}, pattern) == ("a", "b", "a")


def test_langchainjs_validators() -> None:
    assert codes(pack(validators=[{"type": "max_length", "fail_on_violation": True}]), JS) == [
        "PT046"
    ]
    unknown = {"type": "toxicity", "enabled": True, "fail_on_violation": True}
    assert codes(pack(validators=[unknown]), JS) == ["PT046"]
    blocking = {"type": "max_length", "enabled": True, "fail_on_violation": True}
    assert codes(pack(validators=[blocking]), JS) == []


def test_langchainjs_does_not_check_integers() -> None:
    data = pack(
        system_template="{{n}}", variables=[{"name": "n", "type": "integer", "required": True}]
    )
    assert codes(data, JS) == ["PT047"]


# ------------------------------------------------------------------------ no target


def test_no_target_reports_exactly_what_it_reported() -> None:
    """A pack checked for no target gets no PT finding, whatever it holds."""
    data = json.loads(
        Path(__file__).parent.joinpath("golden/targets/omnia-fallback.json").read_text()
    )
    plain = analysis(data)
    assert not [d for d in plain.diagnostics if d.code.startswith("PT")]
    assert plain.diagnostics == analysis(data, **{"targets": []}).diagnostics


# --------------------------------------------------------------------- configuration


def test_targets_configuration() -> None:
    assert from_mapping({"targets": ["omnia", "omnia"]}).targets == ("omnia",)
    assert Config().merged({"targets": ["promptkit@1.5.3"]}).profile == "promptkit"
    with pytest.raises(ConfigError, match="did you mean `omnia`"):
        from_mapping({"targets": ["omina"]})
    with pytest.raises(ConfigError, match="promptkit"):
        from_mapping({"targets": ["promptkit"], "profile": "spec"})


def test_fragment_dialect_python_suggests_its_own_form() -> None:
    data = pack({"fragments": {"tone": "Be kind."}}, system_template="Help. {{tone}}")
    messages = [d.message for d in analysis(data, fragment_dialect="python").diagnostics]
    assert any("write `{{fragment:tone}}`" in m for m in messages), messages
    assert not any("fragments.tone" in m for m in messages)


# ----------------------------------------------------------------------- render, hover


def test_render_as_python_leaves_the_spec_fragment_form() -> None:
    data = pack(
        {"fragments": {"tone": "Be kind."}},
        system_template="Hi {{who}}. {{fragments.tone}} ${who}",
        variables=[{"name": "who", "type": "string", "required": True}],
    )
    result = analysis(data)
    ours = render(result, "support", {"who": "Ann"})
    assert ours.text == "Hi Ann. Be kind. ${who}"
    python = render(result, "support", {"who": "Ann"}, PYTHON)
    assert python.text == "Hi Ann. {{fragments.tone}} ${who}"
    assert python.literal == ("{{fragments.tone}}", "${who}")
    js = render(result, "support", {}, JS)
    assert js.throws is not None and "'who' is missing" in js.throws and js.text == ""


def test_render_as_langchainjs_throws_at_nine_levels() -> None:
    result = analysis(chained(9), fragment_dialect="promptkit")
    thrown = render(result, "support", {}, JS).throws
    assert thrown is not None and "Maximum fragment substitution depth" in thrown
    assert render(analysis(chained(8)), "support", {}, JS).throws is None


def test_hover_on_schema_lists_each_target() -> None:
    url = "https://promptpack.org/schema/v1.8.0/promptpack.schema.json"
    text = json.dumps(pack({"$schema": url}), indent=2)
    config = from_mapping({"targets": [OMNIA, PYTHON, "promptkit"]})
    result = analyze(text, path=Path("pack.promptpack.json"), config=config)
    shown = hover(result, text.index("promptpack.org"))
    assert shown is not None
    assert "- Omnia (`c7428e31`): refuses it (1 problem: PT008)" in shown.markdown
    assert "- promptpack-python (`c78e36bd`): loads it" in shown.markdown
    assert "PromptKit 1.5.11: loads it" in shown.markdown


def test_cli_target(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    file = tmp_path / "pack.promptpack.json"
    file.write_text(json.dumps(pack(provider="default")))
    assert main(["--check", str(file)]) == 0
    assert main(["--check", "--target", "promptpack-python", str(file)]) == 1
    assert "PT021" in capsys.readouterr().out
    assert main(["--render", str(file), "--prompt", "support", "--target", JS]) == 0
    assert "as promptpack-langchainjs renders it" in capsys.readouterr().out


def test_every_code_is_in_a_target_table() -> None:
    """docs/rules.md prints a table per target from ``FACTS``: every PT code is there."""
    from pack_lsp.core.checks.registry import REGISTRY
    from pack_lsp.core.model.runtimes import FACTS
    from pack_lsp.core.model.targets import RUNTIMES

    listed = {code for fact in FACTS for code in fact.codes}
    assert listed == {code for code in REGISTRY if code.startswith("PT")}
    assert {fact.target for fact in FACTS} == set(RUNTIMES)


def test_cli_promptkit_target_is_the_profile(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    file = tmp_path / "pack.promptpack.json"
    file.write_text(json.dumps(pack(validators=[{"type": "max_length"}])))
    assert main(["--check", str(file)]) == 0
    assert main(["--check", "--target", "promptkit", str(file)]) == 1  # `enabled` required
    assert "enabled" in capsys.readouterr().out
    with pytest.raises(SystemExit) as refused:
        main(["--check", "--target", "promptkit", "--profile", "spec", str(file)])
    assert refused.value.code == 2
    assert "is the promptkit profile" in capsys.readouterr().err
