"""Agents (PP2xx), tools (PP3xx), pack rules (PP6xx) and checking profiles.

The golden cases under tests/golden/{agents,tools,other,profiles} pin the exact
ranges and messages; these tests cover what golden files cannot show: quick-fix
data, the resolution order of tool names, the profile machinery, the promptkit
schema against the reference runtime's schema, and robustness.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from pack_lsp.core.base import kinds
from pack_lsp.core.base.diagnostics import Diagnostic, Severity, Tag, make
from pack_lsp.core.base.text import Span
from pack_lsp.core.checks.analysis import Analysis, analyze
from pack_lsp.core.checks.rules.agents import ENTRY_NOT_A_MEMBER, MEDIA_TYPE, media_type_replacement
from pack_lsp.core.model import resolve
from pack_lsp.core.model.config import Config, Profile
from pack_lsp.core.model.pack import build_pack
from pack_lsp.core.model.profiles import PROFILE_SEVERITY, apply_profile, profile_schema
from pack_lsp.core.model.resolve import ToolSettings, resolve_tool
from pack_lsp.core.syntax.yamltree import parse
from paths import SHARED

HEAD = (
    'id: demo\nname: Demo\nversion: 1.0.0\ntemplate_engine: {version: v1, syntax: "{{variable}}"}\n'
)


def run(body: str, profile: str = "spec", path: Path | None = None) -> Analysis:
    return analyze(HEAD + body, path=path, kind=kinds.PROMPTPACK, config=Config(profile=profile))  # type: ignore[arg-type]


def only(analysis: Analysis, code: str) -> list[Diagnostic]:
    return [d for d in analysis.diagnostics if d.code == code]


def text_of(analysis: Analysis, d: Diagnostic) -> str:
    return analysis.text[d.span.start : d.span.end]


# ----------------------------------------------------------------- quick-fix data


def test_undefined_tool_data_carries_the_suggestions() -> None:
    a = run(
        "prompts:\n"
        "  router: {id: router, name: R, version: 1.0.0, description: d, system_template: x,"
        " tools: [billing, lookup_ordr]}\n"
        "  billing_agent: {id: billing_agent, name: B, version: 1.0.0, description: d,"
        " system_template: x}\n"
        "tools:\n  lookup_order: {name: lookup_order, description: Find}\n"
        "agents:\n  entry: router\n  members: {router: {}, billing_agent: {}}\n"
    )
    found = {text_of(a, d): dict(d.data) for d in only(a, "PP301")}
    assert found == {
        "billing": {"kind": "undefined-tool", "name": "billing", "suggestions": ["billing_agent"]},
        "lookup_ordr": {
            "kind": "undefined-tool",
            "name": "lookup_ordr",
            "suggestions": ["lookup_order"],
        },
    }


def test_tool_listed_by_its_name_instead_of_its_key_suggests_the_key() -> None:
    a = run(
        "prompts:\n  p: {id: p, name: P, version: 1.0.0, system_template: x, tools: [search]}\n"
        "tools:\n  web_search: {name: search, description: Search}\n"
    )
    (d,) = only(a, "PP301")
    assert d.data["suggestions"] == ["web_search"]
    assert "prompts list tools by key" in d.message


def test_non_member_prompt_data_names_the_prompt_for_the_add_member_fix() -> None:
    a = run(
        "prompts:\n"
        "  router: {id: router, name: R, version: 1.0.0, description: d, system_template: x,"
        " tools: [billing]}\n"
        "  billing: {id: billing, name: B, version: 1.0.0, description: d, system_template: x}\n"
        "agents:\n  entry: router\n  members: {router: {}}\n"
    )
    (d,) = only(a, "PP205")
    assert d.severity == Severity.WARNING
    assert dict(d.data) == {"kind": "not-a-member", "prompt": "billing"}
    assert text_of(a, d) == "billing"
    assert not only(a, "PP301")  # rule 4, not "undefined tool"


@pytest.mark.parametrize(
    ("mode", "replacement"),
    [
        ("text", "text/plain"),
        ("TEXT", "text/plain"),
        ("image", "image/*"),
        ("json", "application/json"),
        ("Plain", "text/plain"),
        (" text/plain", "text/plain"),
        ("plain text", None),
        ("", None),
        ("text/", None),
    ],
)
def test_media_type_replacements(mode: str, replacement: str | None) -> None:
    assert not MEDIA_TYPE.match(mode)
    assert media_type_replacement(mode) == replacement


@pytest.mark.parametrize(
    "mode",
    [
        "text/plain",
        "image/*",
        "*/*",
        "application/vnd.api+json",
        "text/plain; charset=utf-8",
        "Text/Markdown",
    ],
)
def test_media_types_accepted(mode: str) -> None:
    assert MEDIA_TYPE.match(mode)


def test_mode_data_carries_the_replacement() -> None:
    a = run(
        "prompts:\n  d: {id: d, name: D, version: 1.0.0, description: x, system_template: x}\n"
        "agents:\n  entry: d\n  members:\n    d: {input_modes: [text], output_modes: [wav]}\n"
    )
    data = [dict(d.data) for d in only(a, "PP206")]
    assert data == [
        {"kind": "media-type", "value": "text", "replacement": "text/plain"},
        {"kind": "media-type", "value": "wav"},
    ]


def test_prompt_id_data_gives_the_expected_id() -> None:
    a = run("prompts:\n  support: {id: helpdesk, name: S, version: 1.0.0, system_template: x}\n")
    (d,) = only(a, "PP601")
    assert dict(d.data) == {"kind": "prompt-id", "expected": "support"}
    assert text_of(a, d) == "helpdesk"


def test_duplicate_prompt_id_points_at_the_other_prompt() -> None:
    a = run(
        "prompts:\n"
        "  a: {id: shared, name: A, version: 1.0.0, system_template: x}\n"
        "  b: {id: shared, name: B, version: 1.0.0, system_template: x}\n"
    )
    (d,) = only(a, "PP602")
    assert d.severity == Severity.ERROR
    (rel,) = d.related
    assert a.lines.position(rel.span.start).line == 5
    assert a.lines.position(d.span.start).line == 6


def test_unused_tool_is_a_faded_hint_on_the_key() -> None:
    a = run(
        "prompts:\n  p: {id: p, name: P, version: 1.0.0, system_template: x}\n"
        "tools:\n  old: {name: old, description: Old}\n"
    )
    (d,) = only(a, "PP307")
    assert d.severity == Severity.HINT
    assert d.tags == (Tag.UNNECESSARY,)
    assert text_of(a, d) == "old"


def test_tools_used_by_composition_steps_are_not_unused() -> None:
    a = run(
        "prompts:\n  p: {id: p, name: P, version: 1.0.0, system_template: x}\n"
        "tools:\n  extract: {name: extract, description: E}\n"
        "  finish: {name: finish, description: F}\n"
        "compositions:\n  c:\n    version: 1\n    steps:\n"
        "      - {id: s, kind: tool, tool: extract}\n"
        "      - {id: t, kind: agent, prompt_task: p, termination: {tool_called: finish}}\n",
        profile="promptkit",
    )
    assert only(a, "PP307") == []
    assert [d for d in a.diagnostics if d.severity == Severity.ERROR] == []


# ----------------------------------------------------------------- tool resolution


def _pack(body: str) -> Any:
    pack = build_pack(parse(HEAD + body).root)
    assert pack is not None
    return pack


PACK = (
    "prompts:\n  router: {}\n  billing: {}\n  notes: {}\n"
    "tools:\n  router: {name: router, description: x}\n  search: {name: search, description: x}\n"
    "agents:\n  entry: router\n  members: {billing: {}}\n"
)
SETTINGS = ToolSettings.of(Config())


@pytest.mark.parametrize(
    ("name", "owner", "expected"),
    [
        ("search", "billing", resolve.PackTool("search")),
        # A pack tool wins over the prompt's own key (router is not a member).
        ("router", "router", resolve.PackTool("router")),
        ("billing", "billing", resolve.SelfCall("billing", False)),
        ("a2a__billing", "billing", resolve.SelfCall("billing", True)),
        ("billing", "router", resolve.Member("billing")),
        ("notes", "router", resolve.NonMemberPrompt("notes")),
        ("a2a__billing", "router", resolve.A2A("billing")),
        ("a2a__notes", "router", resolve.UndefinedAgent("notes", ())),
        ("a2a__", "router", resolve.Incomplete("a2a__", ("a2a__billing",))),
        ("a2a__", "billing", resolve.Incomplete("a2a__", ())),  # never the caller itself
        ("mcp__crm__find", "router", resolve.RuntimeNamespace("mcp__")),
        ("mcp__crm", "router", resolve.Incomplete("mcp__")),
        ("workflow__", "router", resolve.Incomplete("workflow__")),
        ("skill__load", "router", resolve.RuntimeNamespace("skill__")),
        ("nothing", "router", resolve.Undefined("nothing", ())),
        ("mcp__kb__*", "router", resolve.Wildcard("mcp__kb__*", (), "mcp__")),
        ("se*", "router", resolve.Wildcard("se*", ("search",), None)),
        ("zz*", "router", resolve.Wildcard("zz*", (), None)),
    ],
)
def test_resolution_order(name: str, owner: str, expected: object) -> None:
    assert resolve_tool(name, owner, _pack(PACK), SETTINGS) == expected


def test_namespaces_come_from_the_configuration() -> None:
    pack = _pack(PACK)
    acme = ToolSettings(("acme_",))
    assert resolve_tool("acme_x", "router", pack, acme) == resolve.RuntimeNamespace("acme_")
    assert isinstance(resolve_tool("mcp__a__b", "router", pack, acme), resolve.Undefined)
    # Without `a2a__` among the namespaces, `a2a__billing` is no agent call.
    assert isinstance(resolve_tool("a2a__billing", "router", pack, acme), resolve.Undefined)


def test_a_tool_that_is_also_a_member_calls_the_agent_under_both_profiles() -> None:
    pack = _pack(PACK.replace("members: {billing: {}}", "members: {billing: {}, search: {}}"))
    spec = resolve_tool("search", "router", pack, SETTINGS)
    promptkit = resolve_tool(
        "search", "router", pack, ToolSettings(SETTINGS.namespaces, Profile.PROMPTKIT)
    )
    assert spec == resolve.ToolAndMember("search", tool_kept=False)
    assert promptkit == resolve.ToolAndMember("search", tool_kept=True)
    assert resolve.agent_called(spec) == resolve.agent_called(promptkit) == "search"


# ----------------------------------------------------------------- profiles


def test_profile_table_is_applied_before_user_overrides() -> None:
    d = make(ENTRY_NOT_A_MEMBER, "entry not a member", Span(0, 1))
    assert d.severity == Severity.WARNING
    (raised,) = apply_profile("promptkit", [d])
    assert raised.severity == Severity.ERROR
    assert apply_profile("spec", [d]) == [d]
    config = Config(profile="promptkit", severity={"PP202": "hint"})
    assert config.apply(apply_profile("promptkit", [d]))[0].severity == Severity.HINT


def test_profile_table_names_only_registered_codes() -> None:
    from pack_lsp.core.checks.registry import REGISTRY

    for table in PROFILE_SEVERITY.values():
        assert set(table) <= set(REGISTRY)


def test_member_state_is_checked_in_every_profile() -> None:
    """RFC 0011: a member's `state` needs a workflow that has that state."""
    body = (
        "prompts:\n  s: {id: s, name: S, version: 1.0.0, description: x, system_template: x}\n"
        "agents:\n  entry: s\n  members:\n    s: {state: intake}\n"
    )
    pinned = "$schema: https://promptpack.org/schema/v1.4.0/promptpack.schema.json\n" + body
    assert [d.code for d in run(pinned).diagnostics] == ["PP110", "PP210"]  # state is v1.4.1+
    for profile in ("spec", "promptkit"):
        found = [(d.code, d.data["kind"]) for d in run(body, profile).diagnostics]
        assert found == [("PP210", "undefined-state")], profile
    with_workflow = body + (
        "workflow:\n  version: 1\n  entry: intake\n  states:\n"
        "    intake: {prompt_task: s, terminal: true}\n"
    )
    assert not [d for d in run(with_workflow).diagnostics if d.code == "PP210"]


def test_promptkit_schema_is_derived_without_changing_ours() -> None:
    spec = profile_schema("spec", "1.4.0")
    before = json.dumps(spec, sort_keys=True)
    pk = profile_schema("promptkit")
    assert "compositions" in pk["properties"] and "compositions" not in spec["properties"]
    assert "state" in pk["$defs"]["AgentDef"]["properties"]
    assert "state" not in spec["$defs"]["AgentDef"]["properties"]
    assert json.dumps(profile_schema("spec", "1.4.0"), sort_keys=True) == before
    Draft202012Validator.check_schema(pk)


REFERENCE = SHARED / "reference" / "promptpack" / "promptkit-embedded-v1.5.0_promptpack.schema.json"

COMPOSITIONS: list[tuple[str, dict[str, Any]]] = [
    (
        "tool step",
        {
            "version": 1,
            "steps": [{"id": "s", "kind": "tool", "tool": "echo", "args": {"x": "${input.t}"}}],
        },
    ),
    (
        "all kinds",
        {
            "version": 1,
            "output": "d",
            "steps": [
                {"id": "a", "kind": "prompt", "prompt_task": "p", "input": "${input.x}"},
                {
                    "id": "b",
                    "kind": "branch",
                    "then": "c",
                    "else": "d",
                    "predicate": {
                        "all_of": [
                            {"path": "${a.output.k}", "op": "in", "value": [1, 2]},
                            {"not": {"path": "${a.output.z}", "exists": True}},
                        ]
                    },
                },
                {
                    "id": "c",
                    "kind": "agent",
                    "prompt_task": "p",
                    "tools": ["t"],
                    "termination": {"max_steps": 3},
                },
                {
                    "id": "d",
                    "kind": "parallel",
                    "reduce": {"strategy": "append", "into": "all"},
                    "branches": [
                        {"id": "e", "kind": "prompt", "prompt_task": "p"},
                        {"id": "f", "kind": "tool", "tool": "t"},
                    ],
                },
            ],
        },
    ),
    ("no steps", {"version": 1, "steps": []}),
    ("version 2", {"version": 2, "steps": [{"id": "s", "kind": "tool", "tool": "t"}]}),
    (
        "agent without termination",
        {"version": 1, "steps": [{"id": "s", "kind": "agent", "prompt_task": "p"}]},
    ),
    (
        "empty termination",
        {
            "version": 1,
            "steps": [{"id": "s", "kind": "agent", "prompt_task": "p", "termination": {}}],
        },
    ),
    (
        "one parallel branch",
        {
            "version": 1,
            "steps": [
                {
                    "id": "s",
                    "kind": "parallel",
                    "reduce": {"strategy": "append", "into": "x"},
                    "branches": [{"id": "e", "kind": "prompt", "prompt_task": "p"}],
                }
            ],
        },
    ),
    (
        "bad operator",
        {
            "version": 1,
            "steps": [
                {
                    "id": "s",
                    "kind": "branch",
                    "then": "s",
                    "predicate": {"path": "x", "op": "like", "value": 1},
                }
            ],
        },
    ),
    ("bad step id", {"version": 1, "steps": [{"id": "1st", "kind": "tool", "tool": "t"}]}),
    (
        "unknown property",
        {"version": 1, "steps": [{"id": "s", "kind": "tool", "tool": "t"}], "extra": True},
    ),
]


@pytest.mark.skipif(not REFERENCE.is_file(), reason="reference schema not available")
@pytest.mark.parametrize(("label", "composition"), COMPOSITIONS, ids=[c[0] for c in COMPOSITIONS])
def test_compositions_get_the_reference_runtimes_verdict(
    label: str, composition: dict[str, Any]
) -> None:
    reference = json.loads(REFERENCE.read_text(encoding="utf-8"))
    ours = profile_schema("promptkit")

    def verdict(schema: dict[str, Any], ref: str) -> bool:
        root = {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": ref}
        return Draft202012Validator(root).is_valid(copy.deepcopy(composition))

    assert verdict(ours, "#/$defs/Composition") == verdict(reference, "#/$defs/Composition")


# ----------------------------------------------------------------- skills


def test_skill_paths_outside_the_pack_are_never_touched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "skills" / "ok").mkdir(parents=True)
    pack_file = tmp_path / "pack.yaml"
    seen: list[str] = []
    original = Path.exists

    def spy(self: Path, *args: Any, **kwargs: Any) -> bool:
        seen.append(str(self))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Path, "exists", spy)
    a = run(
        "prompts:\n  p: {id: p, name: P, version: 1.0.0, system_template: x}\n"
        "skills:\n  - ./skills/ok\n  - ./skills/missing\n  - ../secret\n  - /etc/passwd\n"
        "  - '@acme/skills'\n  - https://example.com/skill\n",
        path=pack_file,
    )
    assert [(d.code, text_of(a, d)) for d in a.diagnostics] == [
        ("PP604", "./skills/missing"),
        ("PP605", "../secret"),
        ("PP605", "/etc/passwd"),
    ]
    assert not any("secret" in s or "passwd" in s or "acme" in s or "example" in s for s in seen)


def test_skill_existence_is_not_checked_without_a_file() -> None:
    a = run(
        "prompts:\n  p: {id: p, name: P, version: 1.0.0, system_template: x}\n"
        "skills: [./nowhere, ../outside]\n"
    )
    assert [d.code for d in a.diagnostics] == ["PP605"]


# ----------------------------------------------------------------- robustness

BROKEN = [
    "prompts:\n  p: {tools: lookup}\nagents: {entry: [1], members: [a, b]}\n",
    "prompts:\n  p: {tools: [1, null, {x: 1}, [a]], tool_policy: {blocklist: 3, tool_choice: 7}}\n",
    "prompts:\n  p: {tool_policy: {blocklist: [null, 2]}}\ntools: [a, b]\n",
    "prompts: []\nagents: {entry: x, members: {a: [1], b: null, c: {tags: [1, null],"
    " input_modes: text, state: 3}}}\n",
    "prompts:\n  p: {id: 5, evals: [{id: 1}, {id: 1}, x]}\nevals: {a: 1}\nskills: [1, {path: 2}]\n",
    "prompts:\n  p: {}\ntools:\n  t: {name: 5}\n  u: null\ncompositions: {c: [1]}\n",
    "prompts: {a: &x {tools: [*x]}}\n",
]


@pytest.mark.parametrize("profile", ["spec", "promptkit"])
@pytest.mark.parametrize("body", BROKEN)
def test_broken_packs_never_crash(body: str, profile: str) -> None:
    a = run(body, profile)
    assert not [d for d in a.diagnostics if d.code == "PP000"]


# ----------------------------------------------------------------- the corpus

CORPUS = SHARED / "corpus" / "valid"
# Reviewed by hand: every one is a real problem:
# 15 tools named by prompts and declared nowhere (RFC 0007 example 2 and 3 routers
# naming skills instead of member keys, spec examples with undeclared tools), two pack
# tools that no prompt lists, three skill directories that the documentation example
# refers to but that are not shipped next to it.
CORPUS_COUNTS = {"PP301": 15, "PP307": 2, "PP604": 3}


@pytest.mark.skipif(not CORPUS.is_dir(), reason="shared corpus not available")
def test_valid_corpus_counts() -> None:
    counts: dict[str, int] = {}
    for path in sorted(CORPUS.glob("*")):
        if path.suffix not in (".json", ".yaml", ".yml"):
            continue
        a = analyze(path.read_text(encoding="utf-8"), path=path, kind=kinds.PROMPTPACK)
        for d in a.diagnostics:
            if d.code[:3] in ("PP2", "PP3", "PP6"):
                counts[d.code] = counts.get(d.code, 0) + 1
    assert counts == CORPUS_COUNTS


def test_incomplete_namespace_and_blocklist_data_offer_no_tool_stub() -> None:
    a = run(
        "prompts:\n  p:\n    id: p\n    name: P\n    version: 1.0.0\n    system_template: x\n"
        "    tools: [mcp__crm, refund]\n    tool_policy: {blocklist: [refnd]}\n"
        "tools:\n  refund: {name: refund, description: R}\n"
    )
    (incomplete,) = only(a, "PP301")
    assert dict(incomplete.data) == {
        "kind": "incomplete-tool-name",
        "name": "mcp__crm",
        "namespace": "mcp__",
    }
    (blocked,) = only(a, "PP304")
    assert dict(blocked.data) == {
        "kind": "unknown-blocklisted-tool",
        "name": "refnd",
        "suggestions": ["refund"],
    }
