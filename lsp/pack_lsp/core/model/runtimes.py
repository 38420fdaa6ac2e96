"""What each deploy target does with a pack: the facts behind the PT rules.

Three runtimes besides PromptKit were read at a pinned commit (``targets.RUNTIMES``):

* **Omnia**, the Kubernetes operator that deploys packs from ConfigMaps. Its schema
  gate (the operator and every readiness probe) validates the ConfigMap's
  ``pack.json`` with gojsonschema v1.2.0 against the schema the pack's ``$schema``
  names (``latest`` when none), fetched at run time, and silently falls back to a copy
  it embeds when the fetch fails. That copy is labelled 1.3.1 and closes every
  object: ``OMNIA_SHAPES`` is what it lets through, in our words, and
  ``OMNIA_FORMATS`` the formats gojsonschema enforces with either schema.
* **promptpack-python**: pydantic models that forbid unknown keys and copy the 1.0
  closed lists (``V1_SHAPES``), and one placeholder pattern (``PYTHON_PLACEHOLDER``).
* **promptpack-langchainjs**: reads the keys of 1.0 and ignores the others
  (``V1_SHAPES`` again, as what it reads), builds its placeholder pattern from
  ``template_engine.syntax`` (``langchainjs_pattern``) and substitutes fragments,
  by bare name, before variables (``fragment_chain``).

``mismatches`` compares a pack's tree with a runtime's closed lists. A key the
specification does not know at all is left to the schema (PP102): only keys the
specification has and a runtime lacks are a target's finding.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from pack_lsp.core.base.text import Span
from pack_lsp.core.syntax.yamltree import MappingNode, Node, ScalarNode, SequenceNode, deref

# ------------------------------------------------------------------ closed lists

Container = Literal["one", "map", "list"]


@dataclass(frozen=True, slots=True)
class Shape:
    """What a runtime accepts in one kind of object.

    ``keys`` is the closed list of its keys (None: any key); ``children`` says how
    to walk into a key's value (one object, a map of them or a list of them);
    ``values`` the closed list of a string (or of each string of a list);
    ``required`` the keys the runtime requires where the specification does not;
    ``formats`` the keys whose string must be a ``date``, ``uri`` or ``date-time``.
    """

    what: str  # "a validator"
    spec: str  # where the specification's schema defines it: "$defs/Validator"
    keys: frozenset[str] | None = None
    children: Mapping[str, tuple[Container, str]] = field(default_factory=dict)
    values: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    formats: Mapping[str, str] = field(default_factory=dict)


def _keys(text: str) -> frozenset[str]:
    return frozenset(text.split())


VALIDATOR_TYPES = (
    "banned_words",
    "max_length",
    "min_length",
    "regex_match",
    "json_schema",
    "sentiment",
    "toxicity",
    "pii_detection",
    "custom",
)
VARIABLE_TYPES = ("string", "number", "boolean", "object", "array")
IMAGE_FORMATS = ("jpeg", "jpg", "png", "webp", "gif", "bmp")
AUDIO_FORMATS = ("mp3", "wav", "opus", "flac", "m4a", "aac")
VIDEO_FORMATS = ("mp4", "webm", "mov", "avi", "mkv")
FEATURES = ("basic_substitution", "fragments", "conditionals", "loops", "filters")

_PROMPT_KEYS = (
    "id name description version system_template variables tools tool_policy pipeline "
    "parameters validators tested_models model_overrides media"
)
_ROOT_KEYS = (
    "$schema id name version description template_engine prompts fragments tools "
    "metadata compilation"
)


def _common(media_keys: frozenset[str] | None) -> dict[str, Shape]:
    """The objects Omnia's fallback schema and the 1.0 runtimes close alike."""
    return {
        "template_engine": Shape(
            "`template_engine`",
            "$defs/TemplateEngine",
            _keys("version syntax features"),
            values={"features": FEATURES},
        ),
        "variable": Shape(
            "a variable",
            "$defs/Variable",
            _keys("name type required default description example validation"),
            {"validation": ("one", "validation")},
            values={"type": VARIABLE_TYPES},
        ),
        "validation": Shape(
            "a variable's `validation`",
            "$defs/Validation",
            _keys("pattern min_length max_length minimum maximum enum"),
        ),
        "tool": Shape("a tool", "$defs/Tool", _keys("name description parameters")),
        "tool_policy": Shape(
            "`tool_policy`",
            "$defs/ToolPolicy",
            _keys("tool_choice max_rounds max_tool_calls_per_turn blocklist"),
        ),
        "pipeline": Shape(
            "`pipeline`",
            "$defs/PipelineConfig",
            _keys("stages middleware"),
            {"middleware": ("list", "middleware")},
        ),
        "middleware": Shape("a middleware", "$defs/MiddlewareConfig", _keys("type config")),
        "parameters": Shape(
            "`parameters`",
            "$defs/Parameters",
            _keys("temperature max_tokens top_p top_k frequency_penalty presence_penalty"),
        ),
        "validator": Shape(
            "a validator",
            "$defs/Validator",
            _keys("type enabled fail_on_violation params"),
            values={"type": VALIDATOR_TYPES},
            required=("enabled",),
        ),
        "tested_model": Shape(
            "a tested model",
            "$defs/TestedModel",
            _keys("provider model date success_rate avg_tokens avg_cost avg_latency_ms notes"),
        ),
        "model_override": Shape(
            "a model override",
            "$defs/ModelOverride",
            _keys("system_template_prefix system_template_suffix system_template parameters"),
            {"parameters": ("one", "parameters")},
        ),
        "media": Shape(
            "`media`",
            "$defs/MediaConfig",
            media_keys,
            {
                "image": ("one", "image"),
                "audio": ("one", "audio"),
                "video": ("one", "video"),
                "examples": ("list", "media_example"),
            },
        ),
        "image": Shape(
            "`media.image`",
            "$defs/ImageConfig",
            _keys("max_size_mb allowed_formats default_detail require_caption max_images_per_msg"),
            values={"allowed_formats": IMAGE_FORMATS},
        ),
        "audio": Shape(
            "`media.audio`",
            "$defs/AudioConfig",
            _keys("max_size_mb allowed_formats max_duration_sec require_metadata"),
            values={"allowed_formats": AUDIO_FORMATS},
        ),
        "video": Shape(
            "`media.video`",
            "$defs/VideoConfig",
            _keys("max_size_mb allowed_formats max_duration_sec require_metadata"),
            values={"allowed_formats": VIDEO_FORMATS},
        ),
        "media_example": Shape(
            "a media example",
            "$defs/MultimodalExample",
            _keys("name description role parts"),
            {"parts": ("list", "part")},
        ),
        "part": Shape(
            "a content part",
            "$defs/ContentPart",
            _keys("type text media"),
            {"media": ("one", "media_ref")},
        ),
        "media_ref": Shape(
            "a media reference",
            "$defs/MediaReference",
            _keys("file_path url base64 mime_type detail caption"),
        ),
    }


_PROMPT_CHILDREN: dict[str, tuple[Container, str]] = {
    "variables": ("list", "variable"),
    "tool_policy": ("one", "tool_policy"),
    "pipeline": ("one", "pipeline"),
    "parameters": ("one", "parameters"),
    "validators": ("list", "validator"),
    "tested_models": ("list", "tested_model"),
    "model_overrides": ("map", "model_override"),
    "media": ("one", "media"),
}

#: What Omnia's embedded fallback schema (``internal/schema/promptpack.schema.json``,
#: labelled 1.3.1) lets through: every object is closed (``additionalProperties:
#: false``) except `metadata`, `compilation`, tool `parameters`, `workflow.engine`
#: and eval `params`/`metric`.
OMNIA_SHAPES: Mapping[str, Shape] = MappingProxyType(
    {
        **_common(None),
        "root": Shape(
            "the pack",
            "",
            _keys(_ROOT_KEYS + " evals workflow agents skills"),
            {
                "template_engine": ("one", "template_engine"),
                "prompts": ("map", "prompt"),
                "tools": ("map", "tool"),
                "evals": ("list", "eval"),
                "workflow": ("one", "workflow"),
                "agents": ("one", "agents"),
            },
        ),
        "prompt": Shape(
            "a prompt",
            "$defs/Prompt",
            _keys(_PROMPT_KEYS + " evals"),
            {**_PROMPT_CHILDREN, "evals": ("list", "eval")},
        ),
        "eval": Shape(
            "an eval",
            "$defs/Eval",
            _keys("id description type trigger sample_percentage enabled params metric"),
            values={
                "trigger": ("every_turn", "on_session_complete", "sample_turns", "sample_sessions")
            },
        ),
        "workflow": Shape(
            "`workflow`",
            "$defs/WorkflowConfig",
            _keys("version entry states engine"),
            {"states": ("map", "state")},
        ),
        "state": Shape(
            "a workflow state",
            "$defs/WorkflowState",
            _keys("prompt_task description on_event persistence orchestration skills"),
            values={
                "persistence": ("transient", "persistent"),
                "orchestration": ("internal", "external", "hybrid"),
            },
            required=("prompt_task", "on_event"),
        ),
        "agents": Shape(
            "`agents`", "$defs/AgentsConfig", _keys("entry members"), {"members": ("map", "member")}
        ),
        "member": Shape(
            "an agents member", "$defs/AgentDef", _keys("description tags input_modes output_modes")
        ),
    }
)

#: What promptpack-python's pydantic models accept (``extra="forbid"``; `metadata`,
#: `media` and tool `parameters` allow more) and the only keys promptpack-langchainjs
#: reads (its ``src/types.ts``): the 1.0 lists.
V1_SHAPES: Mapping[str, Shape] = MappingProxyType(
    {
        **_common(None),
        "root": Shape(
            "the pack",
            "",
            _keys(_ROOT_KEYS),
            {
                "template_engine": ("one", "template_engine"),
                "prompts": ("map", "prompt"),
                "tools": ("map", "tool"),
                "compilation": ("one", "compilation"),
                "metadata": ("one", "metadata"),
            },
        ),
        "prompt": Shape("a prompt", "$defs/Prompt", _keys(_PROMPT_KEYS), _PROMPT_CHILDREN),
        "compilation": Shape(
            "`compilation`", "$defs/Compilation", _keys("compiled_with created_at schema source")
        ),
        "metadata": Shape(
            "`metadata`", "$defs/Metadata", None, {"cost_estimate": ("one", "cost_estimate")}
        ),
        "cost_estimate": Shape(
            "`metadata.cost_estimate`",
            "$defs/Metadata/properties/cost_estimate",
            _keys("min_cost_usd max_cost_usd avg_cost_usd"),
        ),
    }
)

#: Where gojsonschema enforces ``format`` (in the fetched schema and in the fallback):
#: a tested model's `date`, a media reference's `url`, `compilation.created_at`.
OMNIA_FORMATS: Mapping[str, Mapping[str, str]] = MappingProxyType(
    {
        "tested_model": {"date": "date"},
        "media_ref": {"url": "uri"},
        "compilation": {"created_at": "date-time"},
    }
)


def spec_keys(shape: Shape) -> frozenset[str]:
    """The keys the specification's schema (any version) gives the object ``shape``
    models: a key outside them is the schema's to report (PP102), not a target's."""
    return _spec_keys(shape.spec)


@functools.cache
def _spec_keys(where: str) -> frozenset[str]:
    from pack_lsp.core.base.resources import load_schema
    from pack_lsp.core.model.schema import PROMPTPACK_SCHEMA

    node: Any = load_schema(PROMPTPACK_SCHEMA)
    for part in where.split("/") if where else ():
        node = node.get(part, {}) if isinstance(node, dict) else {}
    properties = node.get("properties") if isinstance(node, dict) else None
    return frozenset(properties) if isinstance(properties, dict) else frozenset()


# ------------------------------------------------------------------------ the walk


@dataclass(frozen=True, slots=True)
class Mismatch:
    """One place where a pack leaves a runtime's closed lists.

    ``kind``: ``key`` (a key the object does not have: ``span`` is the key's),
    ``value`` (a string outside its closed list: the string's span), ``missing``
    (a required key is absent: the span of the object's first key, or of the object)
    or ``format`` (a string that is not a ``date``/``uri``/``date-time``).
    """

    kind: Literal["key", "value", "missing", "format"]
    shape: str  # the name of the shape ("validator")
    what: str  # how messages name the object ("a validator")
    key: str
    span: Span
    found: str = ""
    allowed: tuple[str, ...] = ()


def mismatches(
    root: Node | None,
    shapes: Mapping[str, Shape],
    formats: Mapping[str, Mapping[str, str]] = MappingProxyType({}),
    skip: frozenset[str] = frozenset(),
) -> Iterator[Mismatch]:
    """Every place where the pack tree ``root`` leaves ``shapes`` (and ``formats``),
    in document order; keys in ``skip`` (``shape.key``) are not walked into."""
    yield from _walk(deref(root), "root", shapes, formats, skip)


def _walk(
    node: Node | None,
    name: str,
    shapes: Mapping[str, Shape],
    formats: Mapping[str, Mapping[str, str]],
    skip: frozenset[str],
) -> Iterator[Mismatch]:
    shape = shapes.get(name)
    if not isinstance(node, MappingNode):
        return
    if shape is not None:
        for key in shape.required:
            if key not in node.effective:
                first = node.pairs[0].key.span if node.pairs else node.span
                yield Mismatch("missing", name, shape.what, key, first)
    for key, pair in node.items():
        value = deref(pair.value)
        if shape is not None and shape.keys is not None and key not in shape.keys:
            if key in spec_keys(shape):  # else the schema reports it (PP102)
                yield Mismatch("key", name, shape.what, key, pair.key.span)
            continue
        if shape is not None and key in shape.values:
            yield from _values(value, name, shape, key)
        fmt = formats.get(name, {}).get(key)
        if (
            fmt is not None
            and isinstance(value, ScalarNode)
            and isinstance(value.value, str)
            and not conforms(value.value, fmt)
        ):
            what = shape.what if shape is not None else name
            yield Mismatch("format", name, what, key, value.span, value.value, (fmt,))
        child = shape.children.get(key) if shape is not None else None
        if child is None or f"{name}.{key}" in skip:
            continue
        container, sub = child
        if container == "one":
            yield from _walk(value, sub, shapes, formats, skip)
        elif container == "map" and isinstance(value, MappingNode):
            for _, item in value.items():
                yield from _walk(deref(item.value), sub, shapes, formats, skip)
        elif container == "list" and isinstance(value, SequenceNode):
            for item_node in value.values():
                yield from _walk(item_node, sub, shapes, formats, skip)


def _values(value: Node | None, name: str, shape: Shape, key: str) -> Iterator[Mismatch]:
    allowed = shape.values[key]
    items: Sequence[Node] = (
        list(value.values()) if isinstance(value, SequenceNode) else [value] if value else []
    )
    for item in items:
        if (
            isinstance(item, ScalarNode)
            and isinstance(item.value, str)
            and item.value not in allowed
        ):
            yield Mismatch("value", name, shape.what, key, item.span, item.value, allowed)


_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_DATE_TIME = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})"
)
#: What Go's ``url.Parse`` takes as a scheme: a letter, then letters, digits, ``+-.``.
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def conforms(text: str, fmt: str) -> bool:
    """Whether gojsonschema v1.2.0 takes ``text`` as ``fmt``: ``date`` is Go's
    ``time.Parse("2006-01-02")``, ``date-time`` RFC 3339, ``uri`` a URL with a scheme
    and no backslash (``format_checkers.go``)."""
    if fmt == "date":
        m = _DATE.fullmatch(text)
        return m is not None and _valid_date(m)
    if fmt == "date-time":
        m = _DATE_TIME.fullmatch(text)
        return (
            m is not None
            and _valid_date(m)
            and int(m.group(4)) < 24
            and int(m.group(5)) < 60
            and int(m.group(6)) < 60
        )
    if fmt == "uri":
        return _SCHEME.match(text) is not None and "\\" not in text
    return True


def _valid_date(m: re.Match[str]) -> bool:
    year, month, day = int(m.group(1)), int(m.group(2)), int(m.group(3))
    if not 1 <= month <= 12 or day < 1:
        return False
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    return day <= (29 if month == 2 and leap else _DAYS[month - 1] if month != 2 else 28)


# ---------------------------------------------------------------------- templates

#: promptpack-python's one placeholder (``template.py``, ``VARIABLE_PATTERN``):
#: ``{{name}}`` or ``{{fragment:name}}``, no spaces, whatever ``template_engine.syntax``.
PYTHON_PLACEHOLDER = re.compile(r"\{\{([a-zA-Z_][a-zA-Z0-9_]*(?::[a-zA-Z_][a-zA-Z0-9_]*)?)\}\}")

#: The characters promptpack-langchainjs escapes in ``template_engine.syntax``.
_JS_SPECIAL = re.compile(r"[.*+?^${}()|\[\]\\]")

#: How many passes of fragment substitution promptpack-langchainjs makes before it
#: throws (``substituteFragments``: ``maxDepth = 10``; the pass after the ninth level
#: of nesting is the tenth, and then it throws even though nothing is left).
LANGCHAINJS_MAX_PASSES = 10


def langchainjs_pattern(syntax: str) -> re.Pattern[str] | None:
    """The placeholder pattern promptpack-langchainjs builds from ``syntax``
    (``getSyntaxPattern``): the syntax escaped, each ``variable`` (any case) made the
    name group. None when the result is not a pattern."""
    escaped = _JS_SPECIAL.sub(lambda m: "\\" + m.group(), syntax)
    try:
        return re.compile(
            re.sub("variable", "([a-zA-Z_][a-zA-Z0-9_]*)", escaped, flags=re.IGNORECASE)
        )
    except re.error:
        return None


def fragment_chain(
    text: str, fragments: Mapping[str, str], pattern: re.Pattern[str]
) -> tuple[str, ...]:
    """The longest chain of fragments promptpack-langchainjs substitutes into ``text``
    (each one named by ``pattern`` in the text before it); a chain that comes back to
    a fragment ends with that fragment again (it never ends)."""
    memo: dict[str, tuple[str, ...]] = {}

    def names(body: str) -> list[str]:
        out: list[str] = []
        for m in pattern.finditer(body):
            if m.groups() and m.group(1) in fragments and m.group(1) not in out:
                out.append(m.group(1))
        return out

    def longest(name: str, path: tuple[str, ...]) -> tuple[str, ...]:
        if name in path:
            return (name,)  # a cycle: the chain ends on the repeated name
        if name in memo:
            return memo[name]
        best: tuple[str, ...] = ()
        for sub in names(fragments[name]):
            found = longest(sub, (*path, name))
            if len(found) > len(best) or (found and found[-1] in (*path, name)):
                best = found
                if found[-1] in (*path, name):
                    break
        result = (name, *best)
        if not (best and best[-1] in (*path, name)):
            memo[name] = result
        return result

    best: tuple[str, ...] = ()
    for name in names(text):
        found = longest(name, ())
        if len(found) > len(best):
            best = found
    return best


def chain_throws(chain: Sequence[str]) -> bool:
    """Whether promptpack-langchainjs throws on a chain of that nesting (or a cycle)."""
    return len(chain) >= LANGCHAINJS_MAX_PASSES - 1 or len(set(chain)) < len(chain)


# ---------------------------------------------------------------- pack trees


def written_as_json(text: str, json_path: bool) -> bool:
    """Whether a JSON reader takes the text (a ``.json`` file is JSON: its own syntax
    errors are reported by the parser)."""
    if json_path:
        return True
    if not text.lstrip().startswith("{"):
        return False
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def first_key(root: Node | None, text: str) -> Span:
    if isinstance(root, MappingNode) and root.pairs:
        return root.pairs[0].key.span
    start = len(text) - len(text.lstrip())
    return Span(start, min(len(text), start + 1))


def at(node: MappingNode | None, *path: str) -> Node | None:
    current: Node | None = node
    for key in path:
        if not isinstance(current, MappingNode):
            return None
        current = current.get(key)
    return current


def items(node: Node | None) -> Iterator[tuple[str, MappingNode]]:
    if isinstance(node, MappingNode):
        for key, pair in node.items():
            value = deref(pair.value)
            if isinstance(value, MappingNode):
                yield key, value


def listed(node: Node | None) -> Iterator[MappingNode]:
    if isinstance(node, SequenceNode):
        for item in node.values():
            if isinstance(item, MappingNode):
                yield item


def string(node: Node | None) -> str | None:
    if isinstance(node, ScalarNode) and isinstance(node.value, str):
        return node.value
    return None


def validators(root: Node | None) -> Iterator[tuple[str, MappingNode]]:
    """Each prompt's validators, with the prompt's key."""
    for key, prompt in items(at(root if isinstance(root, MappingNode) else None, "prompts")):
        for validator in listed(prompt.get("validators")):
            yield key, validator


IMPLEMENTED_VALIDATORS = frozenset({"banned_words", "max_length", "min_length", "regex_match"})


def not_enforced(validator: MappingNode, *, python: bool) -> str | None:
    """Why promptpack-python (or -langchainjs) does not enforce ``validator``, or None."""
    enabled = validator.get("enabled")
    enabled_value = enabled.value if isinstance(enabled, ScalarNode) else None
    if enabled_value is False:
        return None  # switched off: nobody enforces it
    reasons = []
    if not python and enabled_value is not True:
        reasons.append("it skips a validator without `enabled: true`")
    kind = string(validator.get("type"))
    if kind is not None and kind not in IMPLEMENTED_VALIDATORS:
        reasons.append(
            f"it does not run `{kind}` (only banned_words, max_length, min_length, regex_match)"
        )
    fail = validator.get("fail_on_violation")
    if not (isinstance(fail, ScalarNode) and fail.value is True):
        reasons.append(
            "it blocks a reply only with `fail_on_violation: true` (deprecated by RFC 0015, "
            "which enforces every triggered validator, but this runtime still needs it)"
        )
    return "; ".join(reasons) if reasons else None


def validator_span(validator: MappingNode) -> Span:
    kind = validator.get("type")
    if kind is not None:
        return kind.span
    return validator.pairs[0].key.span if validator.pairs else validator.span


def langchainjs_includes(
    text: str, fragments: Mapping[str, str], pattern: re.Pattern[str]
) -> list[str]:
    """The fragments promptpack-langchainjs substitutes into ``text``, at any depth."""
    seen: dict[str, None] = {}
    queue = [text]
    while queue:
        for m in pattern.finditer(queue.pop()):
            name = m.group(1) if m.groups() else None
            if name is not None and name in fragments and name not in seen:
                seen[name] = None
                queue.append(fragments[name])
    return list(seen)


# ----------------------------------------------------------------------------- facts


@dataclass(frozen=True, slots=True)
class Fact:
    """One thing a runtime does with a pack, where it was read (a path at the commit
    ``targets.RUNTIMES`` pins) and the PT codes that report it (none: not reported)."""

    target: str
    what: str
    source: tuple[str, ...]
    codes: tuple[str, ...] = ()


FACTS: tuple[Fact, ...] = (
    Fact(
        "omnia",
        'The operator reads a ConfigMap\'s `data["pack.json"]` only; a ConfigMap without it '
        "is refused.",
        ("internal/controller/promptpack_controller.go",),
        ("PT001",),
    ),
    Fact(
        "omnia",
        "`pack.json` is parsed as JSON by the schema gate, the readiness probe and the "
        "PromptKit SDK 1.5.5 that runs the pack.",
        ("internal/schema/validator.go", "pkg/runtime/promptkit/health.go"),
        ("PT002",),
    ),
    Fact(
        "omnia",
        "The schema gate (operator and every `/readyz`) validates with gojsonschema v1.2.0 "
        "against the schema `$schema` names (`latest` if none), fetched with a 10 s timeout, "
        "and falls back silently to the embedded schema labelled 1.3.1 when the fetch fails.",
        ("internal/schema/validator.go", "go.mod"),
        ("PT003", "PT004", "PT005", "PT006"),
    ),
    Fact(
        "omnia",
        "The embedded schema closes every object (the lists below); it requires a validator's "
        "`enabled` and a state's `prompt_task` and `on_event`; its closed lists are those of "
        "1.0 plus eval triggers, state persistence and orchestration.",
        ("internal/schema/promptpack.schema.json",),
        ("PT003", "PT004", "PT005"),
    ),
    Fact(
        "omnia",
        "The embedded schema's `MediaConfig.patternProperties` (`^[a-z0-9_]+$`) makes every "
        "key of `media`, `enabled` included, a media-type object: every `media` is refused.",
        ("internal/schema/promptpack.schema.json",),
        ("PT006",),
    ),
    Fact(
        "omnia",
        "gojsonschema enforces `format` with either schema: `date` (Go `time.Parse` of "
        "2006-01-02), `uri` (a scheme, no backslash), `date-time` (RFC 3339).",
        ("xeipuuv/gojsonschema@v1.2.0 (82fcdeb2): format_checkers.go",),
        ("PT007",),
    ),
    Fact(
        "omnia",
        "A pattern that Go's `regexp` cannot compile fails the schema: the published v1.8.0 "
        "schema's review `cadence` uses look-ahead (fixed in 1.8.1).",
        (
            "xeipuuv/gojsonschema@v1.2.0: schema.go",
            "pack-lsp: schemas/promptpack.schema.json, Review.cadence",
        ),
        ("PT008",),
    ),
    Fact(
        "omnia",
        "The runtime opens the pack at `workflow.entry`, else `agents.entry`, else its only "
        "prompt, else `OMNIA_PROMPT_NAME` (the operator sets `default`).",
        ("internal/runtime/pack_entry.go", "internal/controller/constants.go"),
        ("PT009",),
    ),
    Fact(
        "omnia",
        "The Agent Card is built from the AgentRuntime resource, not from the pack.",
        ("internal/facade/a2a/card_provider.go",),
        ("PT010",),
    ),
    Fact(
        "omnia",
        "Every tool of the attached ToolRegistry is added to every prompt's `tools`; not "
        "reported, as it depends on the cluster, not on the pack.",
        ("internal/runtime/pack_tools.go",),
    ),
    Fact(
        "promptpack-python",
        "A pack is read with `json.loads` and validated by pydantic models.",
        ("packages/promptpack/src/promptpack/parser.py",),
        ("PT020",),
    ),
    Fact(
        "promptpack-python",
        'The models copy the 1.0 schema with `extra="forbid"` (`metadata`, `media` and tool '
        "`parameters` allow more): the lists below; a validator's `enabled` is required.",
        ("packages/promptpack/src/promptpack/types.py",),
        ("PT021", "PT022", "PT023"),
    ),
    Fact(
        "promptpack-python",
        "The template engine reads `{{name}}` and `{{fragment:name}}` only, whatever "
        "`template_engine.syntax`; the LangChain template renders with `strict=False`, so "
        "anything else stays as written.",
        (
            "packages/promptpack/src/promptpack/template.py",
            "packages/promptpack-langchain/src/promptpack_langchain/template.py",
        ),
        ("PT024",),
    ),
    Fact(
        "promptpack-python",
        "`get_tools_for_prompt` keeps only the names found in the pack's `tools`.",
        ("packages/promptpack/src/promptpack/types.py",),
        ("PT025",),
    ),
    Fact(
        "promptpack-python",
        "Validators run only when enabled, implement four types, and make a reply invalid "
        "only with `fail_on_violation: true`.",
        ("packages/promptpack-langchain/src/promptpack_langchain/validators.py",),
        ("PT026",),
    ),
    Fact(
        "promptpack-langchainjs",
        "A pack is read with `JSON.parse`; a directory load skips names not ending `.json`; "
        "`validate: true` checks six fields and nothing else is checked.",
        ("src/registry.ts",),
        ("PT040",),
    ),
    Fact(
        "promptpack-langchainjs",
        "Only the keys of its types (those of 1.0) are read; the others are ignored.",
        ("src/types.ts",),
        ("PT041",),
    ),
    Fact(
        "promptpack-langchainjs",
        "The placeholder pattern is `template_engine.syntax` escaped, with `variable` made a "
        "name; fragments are substituted first by that pattern, ten passes at most (then it "
        "throws), then variables (an undefined one throws).",
        ("src/template-engine.ts",),
        ("PT042", "PT043", "PT044", "PT045"),
    ),
    Fact(
        "promptpack-langchainjs",
        "Validators without `enabled` are skipped, unknown types pass, only "
        "`fail_on_violation` throws; `integer` has no type check.",
        ("src/validators.ts", "src/template-engine.ts"),
        ("PT046", "PT047"),
    ),
)


def closed_lists(shapes: Mapping[str, Shape]) -> list[tuple[str, str]]:
    """(object, what is accepted) rows of a runtime's closed lists, for the docs."""
    rows: list[tuple[str, str]] = []
    for shape in shapes.values():
        parts = []
        if shape.keys is not None:
            parts.append("keys " + ", ".join(f"`{k}`" for k in sorted(shape.keys)))
        for key, allowed in shape.values.items():
            parts.append(f"`{key}` one of " + ", ".join(f"`{v}`" for v in allowed))
        if shape.required:
            parts.append("requires " + ", ".join(f"`{k}`" for k in shape.required))
        if parts:
            rows.append((shape.what, "; ".join(parts)))
    return rows
