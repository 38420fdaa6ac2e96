"""PT0xx — deploy targets: what the runtime that loads a pack will refuse or misread.

Reported only for the targets a pack is checked for (``targets`` in the
configuration, ``--target``; ``omnia`` by default for a pack embedded in a
Kubernetes ConfigMap): a pack with no target gets none of these. Each message names
the runtime and what it will do; an error when the runtime refuses the pack (it does
not load, or a prompt never renders), a warning when it loads the pack and reads it
differently from the specification. The facts and the commit each was read at are
in ``core/model/targets.py`` (docs/rules.md prints a table per target).

PT001–PT019 are Omnia's, PT020–PT039 promptpack-python's, PT040–PT059
promptpack-langchainjs'. The ``promptkit`` target is the ``promptkit`` profile and
has no code of its own.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from pack_lsp.core.base.diagnostics import Diagnostic, ExampleKind, Rule, Severity, make
from pack_lsp.core.model.targets import LANGCHAINJS, OMNIA, PYTHON, deploy_targets

if TYPE_CHECKING:
    from pack_lsp.core.model.context import CheckContext
    from pack_lsp.core.model.hosts import Stream

CATEGORY = "Deploy targets"


def example_pack_data(extra: Mapping[str, Any] | None = None, **prompt: Any) -> dict[str, Any]:
    """The smallest valid pack, with ``extra`` top-level keys and ``prompt`` keys added to
    its one prompt (the examples of the PT rules, and their tests)."""
    data: dict[str, Any] = {
        "id": "support",
        "name": "Support",
        "version": "1.0.0",
        "template_engine": {"version": "v1", "syntax": "{{variable}}"},
        "prompts": {
            "support": {
                "id": "support",
                "name": "Support",
                "version": "1.0.0",
                "system_template": "Help",
                **prompt,
            }
        },
    }
    data.update(extra or {})
    return data


def _pack(extra: Mapping[str, Any] | None = None, **prompt: Any) -> str:
    """A rule's example: ``example_pack_data`` as JSON."""
    return json.dumps(example_pack_data(extra, **prompt), indent=2) + "\n"


_YAML_PACK = (
    "id: support\n"
    "name: Support\n"
    "version: 1.0.0\n"
    'template_engine: {version: v1, syntax: "{{variable}}"}\n'
    "prompts:\n"
    "  support: {id: support, name: Support, version: 1.0.0, system_template: Help}\n"
)


def _config(target: str, extra: str = "") -> str:
    return f'targets = ["{target}"]\n{extra}'


_VALIDATOR_SCHEMA = "https://promptpack.org/schema/v1.6.0/promptpack.schema.json"

# ---------------------------------------------------------------------------- Omnia

OMNIA_CONFIGMAP_WITHOUT_PACK_JSON = Rule(
    "PT001",
    "omnia-configmap-without-pack-json",
    Severity.ERROR,
    "A ConfigMap holds a pack under a data key other than `pack.json`, and has no "
    '`pack.json` entry. Omnia\'s operator reads only `data["pack.json"]` and refuses the '
    "`PromptPack` resource that points at this ConfigMap.",
    (
        "apiVersion: v1\n"
        "kind: ConfigMap\n"
        "metadata: {name: support-pack}\n"
        "data:\n"
        "  support.json: |\n"
        '    {"id": "support", "name": "Support", "version": "1.0.0",\n'
        '     "template_engine": {"version": "v1", "syntax": "{{variable}}"},\n'
        '     "prompts": {"support": {"id": "support", "name": "Support",\n'
        '       "version": "1.0.0", "system_template": "Help"}}}\n'
    ),
    "Rename the data key to `pack.json` (one pack per ConfigMap).",
    CATEGORY,
    example_kind=ExampleKind.KUBERNETES,
)

OMNIA_PACK_NOT_JSON = Rule(
    "PT002",
    "omnia-pack-not-json",
    Severity.ERROR,
    "The pack is YAML. Omnia reads a ConfigMap's `pack.json` as JSON (the operator's "
    "schema gate, every readiness probe, the PromptKit SDK that runs it): a YAML pack "
    "never loads.",
    _YAML_PACK,
    "Deploy the JSON form of the pack (`packc` compiles one) under `pack.json`.",
    CATEGORY,
    example_config=_config(OMNIA),
)

OMNIA_FALLBACK_UNKNOWN_KEY = Rule(
    "PT003",
    "omnia-fallback-unknown-key",
    Severity.ERROR,
    "A key Omnia's embedded fallback schema (labelled 1.3.1, every object closed) does not "
    "have. Omnia validates the pack against the schema its `$schema` names, fetched at run "
    "time, and silently falls back to that copy when promptpack.org cannot be reached: the "
    "operator then marks the pack invalid and the readiness probe fails.",
    _pack(provider="default"),
    "Leave the key out of packs deployed where promptpack.org may be unreachable, or make "
    "sure Omnia can fetch the schema.",
    CATEGORY,
    example_kind=ExampleKind.PACK_JSON,
    example_config=_config(OMNIA),
)

OMNIA_FALLBACK_CLOSED_VALUE = Rule(
    "PT004",
    "omnia-fallback-closed-value",
    Severity.ERROR,
    "A value outside a closed list of Omnia's fallback schema: a validator `type` beyond "
    "the nine of 1.0, a variable `type` beyond string, number, boolean, object and array, "
    "a media format outside its lists, an eval `trigger`, a state's `persistence` or "
    "`orchestration`, a template feature. Refused whenever Omnia falls back to that schema.",
    _pack(
        system_template="Show {{count}} orders",
        variables=[{"name": "count", "type": "integer", "required": True}],
    ),
    "Use a value of the closed list (`number` for an integer), or make sure Omnia can "
    "fetch the schema the pack names.",
    CATEGORY,
    example_kind=ExampleKind.PACK_JSON,
    example_config=_config(OMNIA),
)

OMNIA_FALLBACK_MISSING_KEY = Rule(
    "PT005",
    "omnia-fallback-missing-key",
    Severity.ERROR,
    "An object lacks a key Omnia's fallback schema requires where the specification does "
    "not: a validator's `enabled`, a workflow state's `prompt_task` and `on_event` (so a "
    "terminal state is refused). Refused whenever Omnia falls back to that schema.",
    _pack(validators=[{"type": "max_length", "params": {"max_characters": 500}}]),
    "Write the key (`enabled: true`).",
    CATEGORY,
    example_kind=ExampleKind.PACK_JSON,
    example_config=_config(OMNIA),
)

OMNIA_FALLBACK_MEDIA = Rule(
    "PT006",
    "omnia-fallback-media",
    Severity.ERROR,
    "A prompt has `media`. Omnia's fallback schema matches every lower-case key of `media` "
    "(`enabled` too) against its media-type configurations, which are objects, so any "
    "`media` block is refused whenever Omnia falls back to that schema.",
    _pack(media={"enabled": True}),
    "Make sure Omnia can fetch the schema the pack names; the fallback refuses every "
    "`media` block.",
    CATEGORY,
    example_kind=ExampleKind.PACK_JSON,
    example_config=_config(OMNIA),
)

OMNIA_FORMAT = Rule(
    "PT007",
    "omnia-format",
    Severity.ERROR,
    "A string that breaks the `format` its schema gives it: Omnia's validator "
    "(gojsonschema v1.2.0) enforces formats, with the fetched schema as with the fallback: "
    "a tested model's `date` must be a full date (YYYY-MM-DD), a media reference's `url` an "
    "absolute URL, `compilation.created_at` an RFC 3339 time.",
    _pack(tested_models=[{"provider": "openai", "model": "gpt-4o", "date": "2025-10"}]),
    "Write the value in its format (`2025-10-01`).",
    CATEGORY,
    example_kind=ExampleKind.PACK_JSON,
    example_config=_config(OMNIA),
)

OMNIA_SCHEMA_UNCOMPILABLE = Rule(
    "PT008",
    "omnia-schema-uncompilable",
    Severity.ERROR,
    "The pack's `$schema` names v1.8.0. Omnia fetches that schema and compiles it with "
    "Go's regular expressions, which have no look-ahead: a pattern of v1.8.0 (a review's "
    '`cadence`) does not compile ("pattern must be a valid regex"), so every pack naming '
    "it is refused.",
    _pack({"$schema": "https://promptpack.org/schema/v1.8.0/promptpack.schema.json"}),
    "Name v1.8.1, which fixes the pattern, or a later version.",
    CATEGORY,
    example_kind=ExampleKind.PACK_JSON,
    example_config=_config(OMNIA),
)

OMNIA_NO_ENTRY_PROMPT = Rule(
    "PT009",
    "omnia-no-entry-prompt",
    Severity.ERROR,
    "Omnia opens a pack at `workflow.entry`, else `agents.entry`, else its only prompt, "
    "else the prompt named `default` (the operator's default prompt name): a pack with "
    "several prompts, no entry and no `default` prompt fails to open unless its "
    "AgentRuntime names a prompt.",
    json.dumps(
        {
            "id": "support",
            "name": "Support",
            "version": "1.0.0",
            "template_engine": {"version": "v1", "syntax": "{{variable}}"},
            "prompts": {
                "billing": {
                    "id": "billing",
                    "name": "Billing",
                    "version": "1.0.0",
                    "system_template": "Bill",
                },
                "support": {
                    "id": "support",
                    "name": "Support",
                    "version": "1.0.0",
                    "system_template": "Help",
                },
            },
        },
        indent=2,
    )
    + "\n",
    "Name the entry prompt `default`, or declare a `workflow` or `agents` entry.",
    CATEGORY,
    example_kind=ExampleKind.PACK_JSON,
    example_config=_config(OMNIA),
)

OMNIA_AGENT_CARD_FROM_RESOURCE = Rule(
    "PT010",
    "omnia-agent-card-from-resource",
    Severity.WARNING,
    "The pack declares `agents`. Omnia builds the Agent Card it serves from the "
    "AgentRuntime resource's `a2a` card settings, not from the pack: the members' "
    "descriptions, tags and modes are not what clients see.",
    _pack(
        {
            "agents": {
                "entry": "support",
                "members": {"support": {"description": "Answers order questions"}},
            }
        }
    ),
    "Write the card in the AgentRuntime resource as well.",
    CATEGORY,
    example_kind=ExampleKind.PACK_JSON,
    example_config=_config(OMNIA),
)

# ------------------------------------------------------------------ promptpack-python

PYTHON_PACK_NOT_JSON = Rule(
    "PT020",
    "python-pack-not-json",
    Severity.ERROR,
    "The pack is YAML. promptpack-python parses a pack with `json.loads`: a YAML pack is "
    "refused (`PromptPackParseError: Invalid JSON`).",
    _YAML_PACK,
    "Load the JSON form of the pack (`packc` compiles one).",
    CATEGORY,
    example_config=_config(PYTHON),
)

PYTHON_UNKNOWN_KEY = Rule(
    "PT021",
    "python-unknown-key",
    Severity.ERROR,
    "A key promptpack-python's models do not have. They copy the 1.0 schema and forbid "
    "unknown keys, so `agents`, `evals`, `workflow`, `skills`, `compositions`, `requires`, a "
    "prompt's `provider` or `extensions`, a tool's `action_scope`, a variable's `binding`, "
    "a validator's `id` or `message` make it refuse the whole pack.",
    _pack(provider="default"),
    "Leave the key out of packs loaded by promptpack-python.",
    CATEGORY,
    example_kind=ExampleKind.PACK_JSON,
    example_config=_config(PYTHON),
)

PYTHON_CLOSED_VALUE = Rule(
    "PT022",
    "python-closed-value",
    Severity.ERROR,
    "A value outside one of promptpack-python's closed lists (those of 1.0): a variable "
    "`type` beyond string, number, boolean, object and array (`integer` too), a validator "
    "`type` beyond the nine of 1.0, a media format outside its lists (`ogg`, `heic`), a "
    "template feature. It refuses the pack.",
    _pack(
        system_template="Show {{count}} orders",
        variables=[{"name": "count", "type": "integer", "required": True}],
    ),
    "Use a value of the closed list (`number` for an integer).",
    CATEGORY,
    example_kind=ExampleKind.PACK_JSON,
    example_config=_config(PYTHON),
)

PYTHON_MISSING_KEY = Rule(
    "PT023",
    "python-missing-key",
    Severity.ERROR,
    "A validator without `enabled`: promptpack-python requires it (the specification "
    "defaults it to true) and refuses the pack.",
    _pack(
        {"$schema": _VALIDATOR_SCHEMA},
        validators=[
            {"type": "max_length", "fail_on_violation": True, "params": {"max_characters": 500}}
        ],
    ),
    "Write `enabled: true`.",
    CATEGORY,
    example_kind=ExampleKind.PACK_JSON,
    example_config=_config(PYTHON),
)

PYTHON_LITERAL_PLACEHOLDER = Rule(
    "PT024",
    "python-literal-placeholder",
    Severity.WARNING,
    "A placeholder promptpack-python leaves in the prompt as written. Its one pattern is "
    "`{{name}}` or `{{fragment:name}}`, without spaces, whatever `template_engine.syntax` "
    "says: `{{fragments.name}}`, `${name}`, `{{ name }}`, blocks and filters reach the "
    "model verbatim.",
    _pack({"fragments": {"tone": "Be kind."}}, system_template="Help. {{fragments.tone}}"),
    "Write `{{fragment:name}}` for a fragment and `{{name}}` for a variable.",
    CATEGORY,
    example_kind=ExampleKind.PACK_JSON,
    example_config=_config(PYTHON),
)

PYTHON_TOOL_DROPPED = Rule(
    "PT025",
    "python-tool-dropped",
    Severity.WARNING,
    "A prompt's `tools` names a tool that is not in the pack's `tools` (a runtime "
    "namespace such as `mcp__`): promptpack-python looks each name up among the pack's "
    "tools and silently drops the ones it does not find, so the model never gets it.",
    _pack(tools=["mcp__docs__search"]),
    "Declare the tool in the pack's `tools`, or give it to the model outside the pack.",
    CATEGORY,
    example_kind=ExampleKind.PACK_JSON,
    example_config=_config(PYTHON),
)

PYTHON_VALIDATOR_NOT_BLOCKING = Rule(
    "PT026",
    "python-validator-not-blocking",
    Severity.WARNING,
    "An enabled validator promptpack-python does not enforce: it blocks a reply only with "
    "`fail_on_violation: true` (RFC 0015 enforces every triggered validator), and it runs "
    "only `banned_words`, `max_length`, `min_length` and `regex_match`.",
    _pack(validators=[{"type": "max_length", "enabled": True, "params": {"max_characters": 500}}]),
    "Write `fail_on_violation: true` for promptpack-python, or enforce the check in "
    "the application.",
    CATEGORY,
    example_kind=ExampleKind.PACK_JSON,
    example_config=_config(PYTHON),
)

# ------------------------------------------------------------- promptpack-langchainjs

LANGCHAINJS_PACK_NOT_JSON = Rule(
    "PT040",
    "langchainjs-pack-not-json",
    Severity.ERROR,
    "The pack is YAML. promptpack-langchainjs parses a pack with `JSON.parse` (a directory "
    "load skips every file not named `.json`): a YAML pack is refused.",
    _YAML_PACK,
    "Load the JSON form of the pack (`packc` compiles one).",
    CATEGORY,
    example_config=_config(LANGCHAINJS),
)

LANGCHAINJS_IGNORED_KEY = Rule(
    "PT041",
    "langchainjs-ignored-key",
    Severity.WARNING,
    "A key promptpack-langchainjs never reads: it knows the keys of 1.0 and ignores the "
    "others (`agents`, `workflow`, `evals`, `requires`, a prompt's `provider`, a "
    "validator's `message`, ...), so what they say does not happen.",
    _pack(provider="default"),
    "Do what the key says in the application, or deploy where it is read.",
    CATEGORY,
    example_kind=ExampleKind.PACK_JSON,
    example_config=_config(LANGCHAINJS),
)

LANGCHAINJS_LITERAL_PLACEHOLDER = Rule(
    "PT042",
    "langchainjs-literal-placeholder",
    Severity.WARNING,
    "A placeholder promptpack-langchainjs leaves in the prompt as written. It builds one "
    "pattern from `template_engine.syntax` (a name of letters, digits and underscores in "
    "place of `variable`) and substitutes fragments by that same bare name: "
    "`{{fragments.name}}`, `{{fragment:name}}`, `{{ name }}` and blocks reach the model "
    "verbatim.",
    _pack({"fragments": {"tone": "Be kind."}}, system_template="Help. {{fragments.tone}}"),
    "Write a fragment as `{{name}}` for promptpack-langchainjs.",
    CATEGORY,
    example_kind=ExampleKind.PACK_JSON,
    example_config=_config(LANGCHAINJS),
)

LANGCHAINJS_FRAGMENT_SHADOWS_VARIABLE = Rule(
    "PT043",
    "langchainjs-fragment-shadows-variable",
    Severity.WARNING,
    "A placeholder names both a fragment and a variable of the prompt. "
    "promptpack-langchainjs substitutes fragments first, by bare name, so the fragment's "
    "text takes the variable's place.",
    _pack(
        {"fragments": {"name": "Ada"}},
        system_template="Hello {{name}}",
        variables=[{"name": "name", "type": "string", "required": True}],
    ),
    "Rename the fragment or the variable.",
    CATEGORY,
    example_kind=ExampleKind.PACK_JSON,
    example_config=_config(LANGCHAINJS, 'fragment_dialect = "spec"\n'),
)

LANGCHAINJS_OPTIONAL_VARIABLE_THROWS = Rule(
    "PT044",
    "langchainjs-optional-variable-throws",
    Severity.WARNING,
    "A prompt uses an optional variable that has no `default`. promptpack-langchainjs "
    "throws (`Variable 'name' is not defined`) when the caller leaves it out, instead of "
    "rendering without it.",
    _pack(
        system_template="Help in a {{tone}} tone",
        variables=[{"name": "tone", "type": "string", "required": False}],
    ),
    "Give the variable a `default` (an empty string renders nothing).",
    CATEGORY,
    example_kind=ExampleKind.PACK_JSON,
    example_config=_config(LANGCHAINJS),
)

LANGCHAINJS_FRAGMENT_DEPTH = Rule(
    "PT045",
    "langchainjs-fragment-depth",
    Severity.ERROR,
    "Fragments nest nine deep (or include themselves) under a prompt. "
    'promptpack-langchainjs substitutes them in at most ten passes and throws "Maximum '
    'fragment substitution depth exceeded" after the tenth, even with no cycle: the '
    "prompt never renders.",
    _pack(
        {
            "fragments": {
                **{f"f{i}": f"Part {i}. {{{{f{i + 1}}}}}" for i in range(1, 9)},
                "f9": "Part 9.",
            }
        },
        system_template="{{f1}}",
    ),
    "Nest fragments at most eight deep.",
    CATEGORY,
    example_kind=ExampleKind.PACK_JSON,
    example_config=_config(LANGCHAINJS, 'fragment_dialect = "promptkit"\n'),
)

LANGCHAINJS_VALIDATOR_NOT_BLOCKING = Rule(
    "PT046",
    "langchainjs-validator-not-blocking",
    Severity.WARNING,
    "A validator promptpack-langchainjs does not enforce: it skips a validator without "
    "`enabled: true` (the specification defaults it to true), runs only `banned_words`, "
    "`max_length`, `min_length` and `regex_match` (any other type passes), and blocks "
    "only with `fail_on_violation: true` (RFC 0015 enforces every triggered validator).",
    _pack(validators=[{"type": "max_length", "params": {"max_characters": 500}}]),
    "Write `enabled: true` and `fail_on_violation: true` for promptpack-langchainjs.",
    CATEGORY,
    example_kind=ExampleKind.PACK_JSON,
    example_config=_config(LANGCHAINJS),
)

LANGCHAINJS_INTEGER_UNCHECKED = Rule(
    "PT047",
    "langchainjs-integer-unchecked",
    Severity.WARNING,
    "A variable of `type: integer`: promptpack-langchainjs checks only string, number, "
    "boolean, object and array, so any value passes.",
    _pack(
        system_template="Show {{count}} orders",
        variables=[{"name": "count", "type": "integer", "required": True}],
    ),
    "Check the value in the application, or use `number` with a `validation`.",
    CATEGORY,
    example_kind=ExampleKind.PACK_JSON,
    example_config=_config(LANGCHAINJS),
)

RULES = (
    OMNIA_CONFIGMAP_WITHOUT_PACK_JSON,
    OMNIA_PACK_NOT_JSON,
    OMNIA_FALLBACK_UNKNOWN_KEY,
    OMNIA_FALLBACK_CLOSED_VALUE,
    OMNIA_FALLBACK_MISSING_KEY,
    OMNIA_FALLBACK_MEDIA,
    OMNIA_FORMAT,
    OMNIA_SCHEMA_UNCOMPILABLE,
    OMNIA_NO_ENTRY_PROMPT,
    OMNIA_AGENT_CARD_FROM_RESOURCE,
    PYTHON_PACK_NOT_JSON,
    PYTHON_UNKNOWN_KEY,
    PYTHON_CLOSED_VALUE,
    PYTHON_MISSING_KEY,
    PYTHON_LITERAL_PLACEHOLDER,
    PYTHON_TOOL_DROPPED,
    PYTHON_VALIDATOR_NOT_BLOCKING,
    LANGCHAINJS_PACK_NOT_JSON,
    LANGCHAINJS_IGNORED_KEY,
    LANGCHAINJS_LITERAL_PLACEHOLDER,
    LANGCHAINJS_FRAGMENT_SHADOWS_VARIABLE,
    LANGCHAINJS_OPTIONAL_VARIABLE_THROWS,
    LANGCHAINJS_FRAGMENT_DEPTH,
    LANGCHAINJS_VALIDATOR_NOT_BLOCKING,
    LANGCHAINJS_INTEGER_UNCHECKED,
)

_BY_NAME = {rule.name: rule for rule in RULES}


def check(ctx: CheckContext) -> Iterator[Diagnostic]:
    """Every PT finding of the pack for the targets ``ctx.config`` names (the checks
    are in ``core/checks/deploy.py``, imported only when there is a target)."""
    targets = deploy_targets(ctx.config.targets)
    if not any(t in targets for t in (OMNIA, PYTHON, LANGCHAINJS)):
        return  # nothing read: the result is reused like any other
    from pack_lsp.core.checks import deploy

    for f in deploy.check(ctx, targets):
        yield make(_BY_NAME[f.rule], f.message, f.span, data=f.data)


def check_configmaps(stream: Stream, targets: Iterable[str]) -> Iterator[Diagnostic]:
    """PT001 and PT002 on the ConfigMaps of a Kubernetes manifest, for the ``omnia``
    target (``core/checks/deploy.py``)."""
    if OMNIA not in targets:
        return
    from pack_lsp.core.checks import deploy

    for f in deploy.check_configmaps(stream):
        yield make(_BY_NAME[f.rule], f.message, f.span, data=f.data)
