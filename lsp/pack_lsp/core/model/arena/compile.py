"""The pack ``packc compile`` would make of an arena project, with every node's origin.

The mapping follows packc (promptarena ``packc/compiler``, PromptKit
``runtime/prompt/pack.go``): the pack id is the config folder's name made an id,
version ``v1.0.0``, description ``Pack containing N prompts``; one prompt per
PromptConfig, keyed by ``task_type``, with the fields ``createPackPrompt`` copies
(variables with ``type`` defaulting to ``string``, validators with ``enabled``
defaulting to true and ``message`` folded into ``params``) and PromptKit's default
pipeline; the template engine of the first prompt that declares one (PromptKit's
default otherwise); pack tools from the Tool files (``spec.name``, ``description``,
``input_schema`` as ``parameters``); a fragment placeholder per fragment a prompt
names; ``pack_evals``, ``workflow``, ``agents``, ``compositions`` and ``skills``
from the config. Where packc is ambiguous or lossy, docs/decisions.md (D39) says
what is done here.

Every value of the compiled pack remembers the file and span it came from
(``Origin``); values packc makes up (the pipeline, the pack's id) point at what
caused them. ``render`` writes the pack as JSON text and records where each value
landed, so a position in that text can be taken back to the source (``SourceMap``).
"""

from __future__ import annotations

import bisect
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pack_lsp.core.base.text import Span
from pack_lsp.core.model.arena.project import (
    Name,
    Project,
    PromptConfigFile,
    SourceFile,
    is_json_tool,
    mapping,
    scalar,
    sequence,
)
from pack_lsp.core.syntax.yamltree import MappingNode, Node, ScalarNode, SequenceNode, deref

SCHEMA_URL = "https://promptpack.org/schema/latest/promptpack.schema.json"
PACK_VERSION = "v1.0.0"
DEFAULT_TEMPLATE_ENGINE: dict[str, Any] = {
    "version": "v1",
    "syntax": "{{variable}}",
    "features": ["basic_substitution"],
}
DEFAULT_PIPELINE: dict[str, Any] = {
    "middleware": [
        {"config": {"allow_undefined": True, "strict_mode": False}, "type": "template"},
        {
            "config": {
                "retry_policy": {
                    "backoff": "exponential",
                    "initial_delay_ms": 100,
                    "max_retries": 3,
                },
                "timeout_ms": 30000,
            },
            "type": "provider",
        },
        {"config": {"collect_all_errors": True, "fail_fast": False}, "type": "validator"},
    ],
    "stages": ["template", "provider", "validator"],
}
#: Fields of a compiled pack that packc stamps at compile time.
STAMPED = ("compilation",)

_NOT_ID = re.compile(r"[^a-z0-9-]")
_DASHES = re.compile(r"-+")


def pack_id(folder: str) -> str:
    """packc's default pack id: the config folder's name, lower-cased, as an id."""
    name = os.path.basename(os.path.normpath(folder)).lower().replace(" ", "-")
    return _DASHES.sub("-", _NOT_ID.sub("", name)).strip("-")


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a value of the compiled pack was written: a file and a span in it."""

    path: str
    span: Span


@dataclass(slots=True)
class Out:
    """A value of the compiled pack: a dict of (key origin, value), a list or a scalar."""

    value: Any
    origin: Origin | None = None


def _const(value: Any, origin: Origin | None) -> Out:
    """A value made up by the compiler, all of it pointing at ``origin``."""
    if isinstance(value, dict):
        return Out({k: (origin, _const(v, origin)) for k, v in value.items()}, origin)
    if isinstance(value, list):
        return Out([_const(v, origin) for v in value], origin)
    return Out(value, origin)


def _copy(node: Node | None, path: str) -> Out:
    """A value as written in a file (merges applied, aliases followed)."""
    node = deref(node)
    if node is None:
        return Out(None)
    origin = Origin(path, node.span)
    if isinstance(node, MappingNode):
        out: dict[str, tuple[Origin | None, Out]] = {}
        for key, pair in node.items():
            out[key] = (Origin(path, pair.key.span), _copy(pair.value, path))
        return Out(out, origin)
    if isinstance(node, SequenceNode):
        return Out([_copy(item, path) for item in node.items], origin)
    if isinstance(node, ScalarNode):
        return Out(node.value, origin)
    return Out(None, origin)


def _field(node: MappingNode | None, key: str, path: str) -> tuple[Origin | None, Out] | None:
    if node is None:
        return None
    pair = node.pair(key)
    if pair is None or deref(pair.value) is None:
        return None
    return Origin(path, pair.key.span), _copy(pair.value, path)


class _Map:
    """Builds an ``Out`` dict in the compiled pack's field order."""

    def __init__(self, origin: Origin | None) -> None:
        self.entries: dict[str, tuple[Origin | None, Out]] = {}
        self.origin = origin

    def put(self, key: str, value: Out, key_origin: Origin | None = None) -> None:
        self.entries[key] = (key_origin or value.origin, value)

    def copy(
        self,
        key: str,
        node: MappingNode | None,
        path: str,
        src: str | None = None,
        keep_empty: bool = False,
    ) -> None:
        found = _field(node, src or key, path)
        if found is None:
            if keep_empty:
                self.entries[key] = (self.origin, Out("", self.origin))
            return
        key_origin, value = found
        if not keep_empty and value.value in (None, "", [], {}):
            return
        self.entries[key] = (key_origin, value)

    def out(self) -> Out:
        return Out(self.entries, self.origin)


def _origin_of(name: Name | None, file: SourceFile) -> Origin | None:
    if name is not None:
        return Origin(name.path, name.span)
    top = file.top
    if top is not None:
        pair = top.pair("spec") or top.pair("kind")
        if pair is not None:
            return Origin(file.path, pair.key.span)
    return None


def _map_list(
    node: Node | None, path: str, build: Callable[[MappingNode, _Map], None]
) -> Out | None:
    """A list of mappings, each compiled by ``build`` (which fills the entries from the
    item as written); an item that is not a mapping is copied as written, for the pack
    schema to report. None when the list is absent or empty."""
    seq = sequence(node)
    if seq is None or not seq.items:
        return None
    items = []
    for item in seq.values():
        source = mapping(item)
        if source is None:
            items.append(_copy(item, path))
            continue
        out = _Map(Origin(path, source.span))
        build(source, out)
        items.append(out.out())
    return Out(items, Origin(path, seq.span))


def _variables(spec: MappingNode, path: str) -> Out | None:
    def build(var: MappingNode, out: _Map) -> None:
        out.copy("name", var, path, keep_empty=True)
        type_ = _field(var, "type", path)
        if type_ is not None and type_[1].value not in (None, ""):
            out.entries["type"] = type_
        else:
            out.put("type", Out("string", out.origin))
        required = _field(var, "required", path)
        out.entries["required"] = required or (out.origin, Out(False, out.origin))
        for key in ("default", "description", "example", "validation"):
            out.copy(key, var, path)

    return _map_list(spec.get("variables"), path, build)


def _validators(spec: MappingNode, path: str) -> Out | None:
    def build(val: MappingNode, out: _Map) -> None:
        out.copy("type", val, path, keep_empty=True)
        enabled = _field(val, "enabled", path)
        out.entries["enabled"] = enabled or (out.origin, Out(True, out.origin))
        out.copy("fail_on_violation", val, path)
        params = _field(val, "params", path)
        message = _field(val, "message", path)
        if message is not None and message[1].value not in (None, ""):
            if params is None or not isinstance(params[1].value, dict):
                params = (message[0], Out({}, message[0]))
            if "message" not in params[1].value:
                params[1].value["message"] = message
        if params is not None and params[1].value not in (None, {}):
            out.entries["params"] = params

    return _map_list(spec.get("validators"), path, build)


def _prompt(prompt: PromptConfigFile) -> Out:
    file = prompt.file
    path = file.path
    spec = file.spec or MappingNode(Span(0, 0), flow=False)
    origin = _origin_of(prompt.task_type, file)
    out = _Map(origin)
    task = prompt.task_type
    out.put("id", Out(task.value if task else "", origin), origin)
    meta = mapping(file.top.get("metadata")) if file.top is not None else None
    out.copy("name", meta, path, keep_empty=True)
    out.copy("description", spec, path, keep_empty=True)
    out.copy("version", spec, path, keep_empty=True)
    out.copy("system_template", spec, path, keep_empty=True)
    variables = _variables(spec, path)
    if variables is not None:
        out.put("variables", variables, _key(spec, "variables", path))
    out.copy("tools", spec, path, src="allowed_tools")
    out.copy("tool_policy", spec, path)
    out.copy("media", spec, path)
    out.put("pipeline", _const(DEFAULT_PIPELINE, origin), origin)
    out.copy("parameters", spec, path)
    validators = _validators(spec, path)
    if validators is not None:
        out.put("validators", validators, _key(spec, "validators", path))
    for key in ("evals", "tested_models", "model_overrides"):
        out.copy(key, spec, path)
    return out.out()


def _key(node: MappingNode, key: str, path: str) -> Origin | None:
    pair = node.pair(key)
    return Origin(path, pair.key.span) if pair is not None else None


def _skills(node: Node | None, path: str, base: str) -> Out | None:
    seq = sequence(node)
    if seq is None or not seq.items:
        return None
    items = []
    for item in seq.values():
        if isinstance(item, ScalarNode) and isinstance(item.value, str):
            origin = Origin(path, item.span)
            rel = os.path.normpath(item.value)
            items.append(Out({"path": (origin, Out(rel, origin))}, origin))
            continue
        skill = mapping(item)
        if skill is None:
            items.append(_copy(item, path))
            continue
        copied = _copy(skill, path)
        entries = copied.value
        where = entries.pop("dir", None) or entries.get("path")
        if where is not None and isinstance(where[1].value, str) and where[1].value:
            written = where[1].value
            resolved = written if os.path.isabs(written) else os.path.join(base, written)
            rel = os.path.relpath(os.path.normpath(resolved), base)
            entries.pop("path", None)
            entries["path"] = (where[0], Out(rel, where[1].origin))
        items.append(copied)
    return Out(items, Origin(path, seq.span))


def compile_project(
    project: Project, *, compiled_with: str = "pack-lsp", created_at: str = ""
) -> Out:
    """The compiled pack of ``project``, every value with its origin."""
    config = project.config
    path = config.path
    spec = config.spec or MappingNode(Span(0, 0), flow=False)
    meta = mapping(config.top.get("metadata")) if config.top is not None else None
    root_origin = _origin_of(None, config)
    id_node = scalar(meta.get("name")) if meta is not None else None
    id_origin = Origin(path, id_node.span) if id_node is not None else root_origin
    prompts = sorted(
        (p for p in project.prompts if p.task_type is not None),
        key=lambda p: p.task_type.value if p.task_type else "",
    )
    pack = _Map(root_origin)
    pack.put("$schema", Out(SCHEMA_URL, root_origin))
    ident = pack_id(project.folder)
    pack.put("id", Out(ident, id_origin))
    pack.put("name", Out(ident, id_origin))
    pack.put("version", Out(PACK_VERSION, id_origin))
    pack.put("description", Out(f"Pack containing {len(prompts)} prompts", id_origin))
    engine: Out | None = None
    for prompt in prompts:
        found = _field(prompt.file.spec, "template_engine", prompt.file.path)
        if found is not None:
            engine = found[1]
            break
    pack.put("template_engine", engine or _const(DEFAULT_TEMPLATE_ENGINE, root_origin))
    prompt_map = _Map(_key(spec, "prompt_configs", path) or root_origin)
    for prompt in prompts:
        assert prompt.task_type is not None
        if prompt.task_type.value not in prompt_map.entries:
            value = _prompt(prompt)
            prompt_map.put(prompt.task_type.value, value, value.origin)
    pack.put("prompts", prompt_map.out())
    tools = _Map(_key(spec, "tools", path) or root_origin)
    for tool in sorted(project.tools, key=lambda t: t.name.value if t.name else ""):
        if tool.name is None:
            continue
        tool_spec = tool.file.top if is_json_tool(tool.ref) else tool.file.spec
        entry = _Map(Origin(tool.name.path, tool.name.span))
        entry.put("name", Out(tool.name.value, entry.origin))
        entry.copy("description", tool_spec, tool.file.path, keep_empty=True)
        params = _field(tool_spec, "input_schema", tool.file.path)
        if params is not None:
            entry.entries["parameters"] = params
        else:
            entry.put("parameters", Out(None, entry.origin))
        tools.put(tool.name.value, entry.out(), entry.origin)
    if tools.entries:
        pack.put("tools", tools.out())
    fragments = _Map(root_origin)
    for prompt in prompts:
        for fragment in prompt.fragments:
            if fragment.value not in fragments.entries:
                origin = Origin(fragment.path, fragment.span)
                fragments.put(fragment.value, Out(f"{{{{{fragment.value}}}}}", origin), origin)
    if fragments.entries:
        fragments.origin = next(iter(fragments.entries.values()))[0]
        pack.put("fragments", fragments.out())
    stamp = _Map(root_origin)
    stamp.put("compiled_with", Out(compiled_with, root_origin))
    stamp.put("created_at", Out(created_at, root_origin))
    stamp.put("schema", Out("v1", root_origin))
    pack.put("compilation", stamp.out())
    pack.copy("evals", spec, path, src="pack_evals")
    for key in ("workflow", "compositions"):
        pack.copy(key, spec, path)
    agents = _field(spec, "agents", path)
    if agents is not None and isinstance(agents[1].value, dict):
        _filter_agents(agents[1])
        pack.entries["agents"] = agents
    skills = _skills(spec.get("skills"), path, project.folder)
    if skills is not None:
        pack.put("skills", skills, _key(spec, "skills", path))
    return pack.out()


_AGENT_FIELDS = ("description", "tags", "input_modes", "output_modes", "state")


def _filter_agents(agents: Out) -> None:
    """Agents go through packc's ``AgentsConfig``: ``entry`` and ``members`` with the
    fields of ``AgentDef``, other keys dropped (as JSON round-tripping drops them)."""
    entries: dict[str, tuple[Origin | None, Out]] = agents.value
    for key in list(entries):
        if key not in ("entry", "members"):
            del entries[key]
    members = entries.get("members")
    if members is None or not isinstance(members[1].value, dict):
        return
    for _, member in members[1].value.values():
        if isinstance(member.value, dict):
            for key in list(member.value):
                if key not in _AGENT_FIELDS:
                    del member.value[key]


def plain(out: Out) -> Any:
    """The compiled pack as plain JSON data."""
    if isinstance(out.value, dict):
        return {k: plain(v) for k, (_, v) in out.value.items()}
    if isinstance(out.value, list):
        return [plain(v) for v in out.value]
    return out.value


# ----------------------------------------------------------------- text and map


@dataclass(frozen=True, slots=True)
class Mark:
    """A value or key of the rendered text and where it was written."""

    start: int
    end: int
    origin: Origin
    string: str | None = None
    """The decoded string of a string value (to place a part of it)."""


@dataclass
class SourceMap:
    """Positions of the rendered compiled pack → positions in the project's files."""

    marks: list[Mark] = field(default_factory=list)
    _starts: list[int] = field(default_factory=list)

    def seal(self) -> None:
        self.marks.sort(key=lambda m: (m.start, -m.end))
        self._starts = [m.start for m in self.marks]

    def find(self, span: Span) -> Mark | None:
        """The innermost mark holding ``span`` (None when nothing does)."""
        best: Mark | None = None
        hi = bisect.bisect_right(self._starts, span.start)
        for mark in self.marks[:hi]:
            if mark.end >= span.end and (
                best is None or mark.end - mark.start <= best.end - best.start
            ):
                best = mark
        return best

    def starting(self, lo: int, hi: int) -> list[Mark]:
        """The marks that start at an offset in ``[lo, hi]``."""
        return self.marks[
            bisect.bisect_left(self._starts, lo) : bisect.bisect_right(self._starts, hi)
        ]

    def place(self, span: Span, texts: dict[str, str]) -> Origin | None:
        """Where ``span`` of the rendered text was written. A span inside a string
        is placed on the same characters of the source when they can be found there
        (a placeholder in a template), else on the whole value."""
        mark = self.find(span)
        if mark is None:
            return None
        if (span.start, span.end) == (mark.start, mark.end) or mark.string is None:
            return mark.origin
        inner = _decoded_offsets(mark, span)
        source = texts.get(mark.origin.path)
        if inner is None or source is None:
            return mark.origin
        a, b = inner
        needle = mark.string[a:b]
        if not needle:
            return mark.origin
        nth = mark.string.count(needle, 0, a)
        region = source[mark.origin.span.start : mark.origin.span.end]
        at = -1
        for _ in range(nth + 1):
            at = region.find(needle, at + 1)
            if at < 0:
                return mark.origin
        start = mark.origin.span.start + at
        return Origin(mark.origin.path, Span(start, start + len(needle)))

    def written(self, span: Span, text: str, texts: dict[str, str]) -> Origin | None:
        """Where the characters ``span`` of the rendered ``text`` were written verbatim:
        a whole value whose source scalar reads as the same value (quotes aside, on
        one line), or a part of a string found unchanged in its source. None when
        the value was made up or transformed (a block scalar, a defaulted field)."""
        mark = self.find(span)
        if mark is None:
            return None
        origin = mark.origin
        source = texts.get(origin.path)
        if source is None:
            return None
        written = source[origin.span.start : origin.span.end]
        if (span.start, span.end) == (mark.start, mark.end):
            compiled = text[span.start : span.end]
            value = mark.string
            if value is None and compiled.startswith('"'):
                value = json.loads(compiled)  # a key
            if value is None:
                return origin if written == compiled else None
            return origin if _reads_as(written, value) else None
        if mark.string is None:
            return None
        inner = _decoded_offsets(mark, span)
        placed = self.place(span, texts)
        if inner is None or placed is None or placed.path != origin.path:
            return None
        part = mark.string[inner[0] : inner[1]]
        return placed if part and source[placed.span.start : placed.span.end] == part else None


def _reads_as(written: str, value: str) -> bool:
    """Whether a one-line scalar written as ``written`` is the string ``value``
    (plain, or quoted without escapes)."""
    if "\n" in written or "\r" in written:
        return False
    if written == value:
        return True
    quote = written[:1]
    return (
        len(written) >= 2
        and quote in ("'", '"')
        and written[-1] == quote
        and written[1:-1] == value
        and quote not in value
        and "\\" not in value
    )


def _decoded_offsets(mark: Mark, span: Span) -> tuple[int, int] | None:
    """Offsets into the decoded string of a string mark for ``span`` of its JSON text."""
    assert mark.string is not None
    encoded = json.dumps(mark.string, ensure_ascii=False)[1:-1]
    lo, hi = span.start - mark.start - 1, span.end - mark.start - 1
    if lo < 0 or hi > len(encoded):
        return None
    decoded_at: list[int] = []
    i = count = 0
    while i < len(encoded):
        width = (6 if encoded[i + 1] == "u" else 2) if encoded[i] == "\\" else 1
        decoded_at.extend([count] * width)
        i += width
        count += 1
    decoded_at.append(count)
    return decoded_at[lo], decoded_at[hi]


def render(out: Out) -> tuple[str, SourceMap]:
    """The compiled pack as JSON text (two-space indent, as packc writes it) and the
    map from its positions to the source."""
    parts: list[str] = []
    pos = 0
    smap = SourceMap()

    def emit(text: str) -> None:
        nonlocal pos
        parts.append(text)
        pos += len(text)

    def value(node: Out, depth: int) -> None:
        start = pos
        pad = "  " * (depth + 1)
        if isinstance(node.value, dict) and node.value:
            emit("{\n")
            items = list(node.value.items())
            for i, (key, (key_origin, child)) in enumerate(items):
                emit(pad)
                key_start = pos
                emit(json.dumps(key, ensure_ascii=False))
                if key_origin is not None:
                    smap.marks.append(Mark(key_start, pos, key_origin))
                emit(": ")
                value(child, depth + 1)
                emit(",\n" if i < len(items) - 1 else "\n")
            emit("  " * depth + "}")
        elif isinstance(node.value, list) and node.value:
            emit("[\n")
            for i, child in enumerate(node.value):
                emit(pad)
                value(child, depth + 1)
                emit(",\n" if i < len(node.value) - 1 else "\n")
            emit("  " * depth + "]")
        elif isinstance(node.value, dict):
            emit("{}")
        elif isinstance(node.value, list):
            emit("[]")
        else:
            emit(json.dumps(node.value, ensure_ascii=False))
        if node.origin is not None:
            string = node.value if isinstance(node.value, str) else None
            smap.marks.append(Mark(start, pos, node.origin, string))

    value(out, 0)
    emit("\n")
    smap.seal()
    return "".join(parts), smap
