"""The checks of the PT rules (``core/checks/rules/targets.py`` declares them and turns
these findings into diagnostics): what each deploy target's runtime will refuse or
misread, from the facts of ``core/model/runtimes.py``. Imported only when a pack is
checked for a target.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from pack_lsp.core.base.text import Span
from pack_lsp.core.model import runtimes
from pack_lsp.core.model.context import CheckContext
from pack_lsp.core.model.hosts import Stream
from pack_lsp.core.model.runtimes import Mismatch
from pack_lsp.core.model.targets import LANGCHAINJS, OMNIA, PYTHON
from pack_lsp.core.model.templates import Placeholder, TemplateInfo
from pack_lsp.core.syntax.yamltree import MappingNode, Node, ScalarNode, deref, parse


@dataclass(frozen=True, slots=True)
class Finding:
    """A PT finding before it is a diagnostic: the rule's name (the rule objects are
    declared in ``core/checks/rules/targets.py``, which makes the diagnostics)."""

    rule: str
    message: str
    span: Span
    data: Mapping[str, Any] = field(default_factory=dict)


def make(rule: str, message: str, span: Span, *, data: Mapping[str, Any]) -> Finding:
    return Finding(rule, message, span, data)


@dataclass(frozen=True, slots=True)
class _Refusal:
    """How a target's findings word one kind of closed-list mismatch: the rule's name
    and a message with the ``str.format`` fields ``key``, ``what``, ``found`` and
    ``allowed``."""

    rule: str
    message: str


def _refusal(m: Mismatch, target: str, words: Mapping[str, _Refusal]) -> Finding | None:
    """The finding ``words`` give for ``m`` (``None`` for a kind they do not word)."""
    said = words.get(m.kind)
    if said is None:
        return None
    data = {"target": target, "where": m.shape, "key": m.key}
    if m.kind == "value":
        data["value"] = m.found
    message = said.message.format(
        key=m.key, what=m.what, found=m.found, allowed=", ".join(m.allowed)
    )
    return make(said.rule, message, m.span, data=data)


#: Where Omnia's embedded fallback schema was read (docs and messages).
_FALLBACK = "Omnia's fallback schema (embedded, labelled 1.3.1)"
_FALLBACK_EFFECT = (
    "the operator marks the pack invalid and the readiness probe fails whenever "
    "promptpack.org cannot be reached"
)


def check(ctx: CheckContext, targets: tuple[str, ...]) -> Iterator[Finding]:
    """Every PT finding of the pack for ``targets``."""
    root = deref(ctx.root)
    as_json = runtimes.written_as_json(
        ctx.written, ctx.path is not None and ctx.path.suffix == ".json"
    )
    first = runtimes.first_key(root, ctx.text)
    if OMNIA in targets:
        yield from _omnia(ctx, root, as_json, first)
    if PYTHON in targets:
        yield from _python(ctx, root, as_json, first)
    if LANGCHAINJS in targets:
        yield from _langchainjs(ctx, root, as_json, first)


# ------------------------------------------------------------------------- Omnia


def _omnia(ctx: CheckContext, root: Node | None, as_json: bool, first: Span) -> Iterator[Finding]:
    data = {"target": OMNIA}
    if not as_json:
        yield make(
            "omnia-pack-not-json",
            "Omnia reads `pack.json` as JSON: this pack is YAML, so the operator's schema "
            "gate and the readiness probe refuse it",
            first,
            data=data,
        )
    mapping = root if isinstance(root, MappingNode) else None
    schema = runtimes.at(mapping, "$schema")
    url = runtimes.string(schema)
    if schema is not None and url is not None and _V180.search(url):
        yield make(
            "omnia-schema-uncompilable",
            "Omnia fetches this v1.8.0 schema and cannot compile it (Go's regular "
            'expressions have no look-ahead: "pattern must be a valid regex"), so it '
            "refuses every pack that names it; name v1.8.1 or later",
            schema.span,
            data=data,
        )
    for m in runtimes.mismatches(root, runtimes.OMNIA_SHAPES, runtimes.OMNIA_FORMATS):
        yield _omnia_mismatch(m)
    for key, prompt in runtimes.items(runtimes.at(mapping, "prompts")):
        pair = prompt.pair("media")
        if pair is not None:
            yield make(
                "omnia-fallback-media",
                f"{_FALLBACK} refuses the `media` of prompt `{key}` (every lower-case key of "
                f"`media`, `enabled` too, must there be a media-type object): {_FALLBACK_EFFECT}",
                pair.key.span,
                data=data,
            )
    yield from _omnia_entry(ctx, mapping)
    agents = mapping.pair("agents") if mapping is not None else None
    if agents is not None:
        yield make(
            "omnia-agent-card-from-resource",
            "Omnia serves the Agent Card built from the AgentRuntime resource's card "
            "settings, not from `agents`: write the card there too",
            agents.key.span,
            data=data,
        )


_V180 = re.compile(r"(?:^|/)v?1\.8\.0(?:/|$)")


#: How Omnia's findings word a pack that leaves its fallback schema's closed lists.
_OMNIA_REFUSALS = {
    "key": _Refusal(
        "omnia-fallback-unknown-key",
        f"{_FALLBACK} refuses `{{key}}` in {{what}}: {_FALLBACK_EFFECT}",
    ),
    "value": _Refusal(
        "omnia-fallback-closed-value",
        f"{_FALLBACK} refuses `{{found}}` in the `{{key}}` of {{what}} (it takes "
        f"{{allowed}}): {_FALLBACK_EFFECT}",
    ),
    "missing": _Refusal(
        "omnia-fallback-missing-key",
        f"{_FALLBACK} requires `{{key}}` in {{what}}: {_FALLBACK_EFFECT}",
    ),
}


def _omnia_mismatch(m: Mismatch) -> Finding:
    refused = _refusal(m, OMNIA, _OMNIA_REFUSALS)
    if refused is not None:
        return refused
    data = {"target": OMNIA, "where": m.shape, "key": m.key}
    fmt = m.allowed[0] if m.allowed else ""
    wanted = {
        "date": "a full date (YYYY-MM-DD)",
        "uri": "an absolute URL",
        "date-time": "an RFC 3339 time",
    }.get(fmt, fmt)
    return make(
        "omnia-format",
        f"Omnia's schema validator (gojsonschema) enforces `format: {fmt}` on the `{m.key}` "
        f"of {m.what}: `{m.found}` is not {wanted}, so the pack is refused",
        m.span,
        data={**data, "format": fmt},
    )


def _omnia_entry(ctx: CheckContext, mapping: MappingNode | None) -> Iterator[Finding]:
    pack = ctx.pack
    if len(pack.prompts) < 2 or "default" in pack.prompts:
        return
    for section in ("workflow", "agents"):
        if runtimes.string(runtimes.at(mapping, section, "entry")):
            return
    pair = mapping.pair("prompts") if mapping is not None else None
    if pair is None:
        return
    yield make(
        "omnia-no-entry-prompt",
        f"Omnia opens this pack at the prompt `default` (it has {len(pack.prompts)} prompts, "
        "no `workflow.entry`, no `agents.entry`, no `default` prompt): it fails to open "
        "unless the AgentRuntime names a prompt (`OMNIA_PROMPT_NAME`)",
        pair.key.span,
        data={"target": OMNIA},
    )


def check_configmaps(stream: Stream) -> Iterator[Finding]:
    """PT001 and PT002 on the ConfigMaps of a Kubernetes manifest, for the ``omnia``
    target: a pack under another key than `pack.json` in a ConfigMap that has none,
    and a `pack.json` entry holding YAML (which no pack analysis sees: its key says
    JSON)."""
    data = {"target": OMNIA}
    for obj in stream.objects:
        if obj.kind != "ConfigMap":
            continue
        entries = obj.root.get("data")
        if not isinstance(entries, MappingNode):
            continue
        pack_json = entries.pair("pack.json")
        if pack_json is None:
            for entry in stream.embedded:
                if entry.config_map == obj.name and obj.root.span.covers(entry.key_span):
                    yield make(
                        "omnia-configmap-without-pack-json",
                        f"Omnia reads only the `pack.json` entry of ConfigMap "
                        f"`{obj.name}`: this pack under `{entry.key}` is never read, and "
                        f'the operator refuses a PromptPack pointing here ("does not '
                        f"contain required 'pack.json' key\")",
                        entry.key_span,
                        data=data,
                    )
            continue
        value = deref(pack_json.value)
        text = value.text if isinstance(value, ScalarNode) else None
        if text is not None and not runtimes.written_as_json(text, False) and _yaml_pack(text):
            yield make(
                "omnia-pack-not-json",
                "Omnia reads `pack.json` as JSON: this entry holds a YAML pack, so the "
                "operator's schema gate and the readiness probe refuse it",
                pack_json.key.span,
                data=data,
            )


def _yaml_pack(text: str) -> bool:
    """Whether ``text`` is a pack written in YAML: it reads as YAML without a syntax
    error (a broken JSON pack is not one: its JSON syntax error is reported)."""
    from pack_lsp.core.model.hosts import pack_shaped_node

    parsed = parse(text)
    root = parsed.root
    return not parsed.syntax_error and isinstance(root, MappingNode) and pack_shaped_node(root)


# ------------------------------------------------------------- promptpack-python


#: How promptpack-python's findings word a pack its pydantic models refuse.
_PYTHON_REFUSALS = {
    "key": _Refusal(
        "python-unknown-key",
        "promptpack-python refuses the pack: its model of {what} has no `{key}` and "
        "forbids unknown keys",
    ),
    "value": _Refusal(
        "python-closed-value",
        "promptpack-python refuses `{found}` in the `{key}` of {what} (it takes {allowed})",
    ),
    "missing": _Refusal(
        "python-missing-key",
        "promptpack-python refuses {what} without `{key}`",
    ),
}


def _python(ctx: CheckContext, root: Node | None, as_json: bool, first: Span) -> Iterator[Finding]:
    data = {"target": PYTHON}
    if not as_json:
        yield make(
            "python-pack-not-json",
            "promptpack-python parses a pack with `json.loads`: it refuses this YAML pack",
            first,
            data=data,
        )
    for m in runtimes.mismatches(root, runtimes.V1_SHAPES):
        refused = _refusal(m, PYTHON, _PYTHON_REFUSALS)
        if refused is not None:
            yield refused
    for p, written in _left_as_written(ctx, runtimes.PYTHON_PLACEHOLDER):
        yield make(
            "python-literal-placeholder",
            f"promptpack-python leaves `{written}` as written: {_python_why(p, written)}",
            p.span,
            data={**data, "placeholder": written},
        )
    pack = ctx.pack
    namespaces = ctx.config.tool_namespaces
    for key, prompt in pack.prompts.items():
        for item in prompt.tools:
            name = item.value
            if not isinstance(name, str) or name in pack.tools:
                continue
            if any(name.startswith(ns) for ns in namespaces):
                yield make(
                    "python-tool-dropped",
                    f"promptpack-python drops `{name}` from prompt `{key}` without a word: it "
                    "gives the model only tools declared in the pack's `tools`",
                    item.span,
                    data={**data, "tool": name},
                )
    for key, validator in runtimes.validators(root):
        reason = runtimes.not_enforced(validator, python=True)
        if reason is not None:
            span = runtimes.validator_span(validator)
            yield make(
                "python-validator-not-blocking",
                f"promptpack-python does not enforce this validator of prompt `{key}`: {reason}",
                span,
                data=data,
            )


def _rendered_template(info: TemplateInfo) -> bool:
    """Whether a runtime of 1.0 renders this template: a prompt's `system_template`
    and the fragments (model overrides are left to the caller)."""
    return info.owner == "fragment" or info.template.field == "system_template"


def _left_as_written(
    ctx: CheckContext, pattern: re.Pattern[str] | None
) -> Iterator[tuple[Placeholder, str]]:
    """Each placeholder of a rendered template that a runtime reading only placeholders
    ``pattern`` matches leaves as written (every one when ``pattern`` is None), with
    its text."""
    for info in ctx.templates.templates:
        if not _rendered_template(info):
            continue
        for p in info.placeholders:
            written = info.template.text[p.start : p.end]
            if pattern is None or not pattern.fullmatch(written):
                yield p, written


def _python_why(p: Placeholder, written: str) -> str:
    if p.syntax == "fragments.":
        return f"it includes a fragment only as `{{{{fragment:{p.name}}}}}`"
    if not written.startswith("{{"):
        return "it ignores `template_engine.syntax` and reads only `{{name}}`"
    if p.syntax in ("bare", "fragment:") and p.name:
        spelled = p.name if p.syntax == "bare" else f"fragment:{p.name}"
        return f"it reads no spaces inside the braces (write `{{{{{spelled}}}}}`)"
    return "it has no blocks, paths, filters or expressions, only `{{name}}`"


# -------------------------------------------------------- promptpack-langchainjs


#: promptpack-langchainjs reads a pack without checking its keys: one it does not know
#: is ignored (its closed lists of values are not checked either, see below).
_LANGCHAINJS_IGNORES = {
    "key": _Refusal(
        "langchainjs-ignored-key",
        "promptpack-langchainjs never reads `{key}` in {what}: what it says does not happen",
    ),
}


def _langchainjs(
    ctx: CheckContext, root: Node | None, as_json: bool, first: Span
) -> Iterator[Finding]:
    data = {"target": LANGCHAINJS}
    if not as_json:
        yield make(
            "langchainjs-pack-not-json",
            "promptpack-langchainjs parses a pack with `JSON.parse` (and a directory load "
            "skips files not named `.json`): it refuses this YAML pack",
            first,
            data=data,
        )
    for m in runtimes.mismatches(root, runtimes.V1_SHAPES):
        ignored = _refusal(m, LANGCHAINJS, _LANGCHAINJS_IGNORES)
        if ignored is not None:
            yield ignored
        elif m.kind == "value" and m.shape == "variable" and m.found == "integer":
            yield make(
                "langchainjs-integer-unchecked",
                "promptpack-langchainjs does not check a variable of `type: integer`: any "
                "value passes",
                m.span,
                data=data,
            )
    pack = ctx.pack
    syntax = pack.template_engine.syntax if pack.template_engine is not None else None
    pattern = runtimes.langchainjs_pattern(
        syntax.value if syntax is not None and isinstance(syntax.value, str) else "{{variable}}"
    )
    for p, written in _left_as_written(ctx, pattern):
        yield make(
            "langchainjs-literal-placeholder",
            f"promptpack-langchainjs leaves `{written}` as written: "
            f"{_langchainjs_why(p, written, syntax)}",
            p.span,
            data={**data, "placeholder": written},
        )
    if pattern is None:
        return
    fragments = {
        key: f.template.text for key, f in pack.fragments.items() if f.template is not None
    }
    for key in pack.prompts:
        yield from _langchainjs_prompt(ctx, key, pattern, fragments)
    for key, validator in runtimes.validators(root):
        reason = runtimes.not_enforced(validator, python=False)
        if reason is not None:
            yield make(
                "langchainjs-validator-not-blocking",
                f"promptpack-langchainjs does not enforce this validator of prompt `{key}`: "
                f"{reason}",
                runtimes.validator_span(validator),
                data=data,
            )


def _langchainjs_why(p: Placeholder, written: str, syntax: Any) -> str:
    if p.syntax in ("fragments.", "fragment:"):
        return f"it includes a fragment by its bare name (`{{{{{p.name}}}}}`)"
    shown = syntax.value if syntax is not None else "{{variable}}"
    return f"it substitutes only `{shown}` with a name of letters, digits and underscores"


def _langchainjs_prompt(
    ctx: CheckContext, key: str, pattern: re.Pattern[str], fragments: Mapping[str, str]
) -> Iterator[Finding]:
    data = {"target": LANGCHAINJS}
    prompt = ctx.pack.prompts[key]
    own = [
        info for info in ctx.templates.of_prompt(key) if info.template.field == "system_template"
    ]
    if prompt.system_template is None or not own:
        return
    info = own[0]
    chain = runtimes.fragment_chain(info.template.text, fragments, pattern)
    if runtimes.chain_throws(chain):
        span = _placeholder_named(info, chain[0], pattern) or info.template.span
        shape = " > ".join(chain)
        yield make(
            "langchainjs-fragment-depth",
            f'promptpack-langchainjs throws "Maximum fragment substitution depth exceeded" '
            f"rendering prompt `{key}`: its fragments nest {len(chain)} deep ({shape})",
            span,
            data={**data, "chain": list(chain)},
        )
    declared = {
        v.name.value: v
        for v in prompt.variables
        if v.name is not None and isinstance(v.name.value, str)
    }
    infos = [info]
    for name in runtimes.langchainjs_includes(info.template.text, fragments, pattern):
        infos.extend(ctx.templates.of_fragment(name))
    for t in infos:
        for p in t.placeholders:
            m = pattern.fullmatch(t.template.text[p.start : p.end])
            if m is None or not m.groups() or m.group(1) not in declared:
                continue
            name = m.group(1)
            variable = declared[name]
            if name in fragments:
                yield make(
                    "langchainjs-fragment-shadows-variable",
                    f"promptpack-langchainjs puts fragment `{name}` here, not variable "
                    f"`{name}` of prompt `{key}` (it substitutes fragments first, by bare name)",
                    p.span,
                    data={**data, "name": name},
                )
            elif (
                variable.required is not None
                and variable.required.value is False
                and variable.default is None
            ):
                yield make(
                    "langchainjs-optional-variable-throws",
                    f"promptpack-langchainjs throws \"Variable '{name}' is not defined\" "
                    f"rendering prompt `{key}` when the caller leaves out `{name}` (optional, "
                    "no `default`)",
                    p.span,
                    data={**data, "name": name},
                )


def _placeholder_named(info: TemplateInfo, name: str, pattern: re.Pattern[str]) -> Span | None:
    for p in info.placeholders:
        written = info.template.text[p.start : p.end]
        m = pattern.fullmatch(written)
        if m is not None and m.groups() and m.group(1) == name:
            return p.span
    return None
