"""An arena project: an arena config (``kind: Arena``) and the files it names.

PromptKit's arena loader reads ``config.arena.yaml`` and, for every ``file:`` of
``prompt_configs``, ``providers`` (and the typed provider lists), ``scenarios``,
``evals``, ``tools`` and ``self_play.personas``, the file at that path relative to
the config's folder (an absolute path stays as it is). A project here is that same
set of files, each parsed into our tree with spans, and the names they define and
use, each with the file and span it is written at. Cross-file rules
(``core.arena.rules``), the compiled pack (``core.arena.compile``) and navigation
(``core.arena.navigation``) all read this one model.

Reading goes through a ``Reader`` (path → text, None when there is no such file), so
an editor's unsaved text is what the project sees. Nothing here touches an editor.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pack_lsp.core.base import kinds
from pack_lsp.core.base.roots import inside, project_root
from pack_lsp.core.base.source import decode, read_source
from pack_lsp.core.base.text import Span
from pack_lsp.core.model.recognize import template_package
from pack_lsp.core.syntax.yamltree import (
    MappingNode,
    Node,
    ScalarNode,
    SequenceNode,
    deref,
    parse,
    to_data,
)

API_VERSION = "promptkit.altairalabs.ai/v1alpha1"
ARENA = "Arena"
PROMPT_CONFIG = "PromptConfig"
TOOL = "Tool"
SCENARIO = "Scenario"
PROVIDER = "Provider"
PERSONA = "Persona"
EVAL = "Eval"
KINDS = (ARENA, PROMPT_CONFIG, TOOL, SCENARIO, PROVIDER, PERSONA, EVAL)

#: The lists of file references in an arena config's ``spec``, and the kind each
#: file must declare (the paths under ``spec``; ``self_play.personas`` is nested).
FILE_SECTIONS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("prompt_configs",), PROMPT_CONFIG),
    (("providers",), PROVIDER),
    (("tts_providers",), PROVIDER),
    (("stt_providers",), PROVIDER),
    (("embedding_providers",), PROVIDER),
    (("image_providers",), PROVIDER),
    (("scenarios",), SCENARIO),
    (("evals",), EVAL),
    (("tools",), TOOL),
    (("self_play", "personas"), PERSONA),
)

Reader = Callable[[str], "str | None"]
"""Path → the file's text, or None when it cannot be read."""


def disk_reader(path: str) -> str | None:
    """Read a file from disk (None when missing, not a file, or unreadable)."""
    try:
        return decode(read_source(path))[0]
    except (OSError, ValueError):
        return None


def overlay_reader(open_texts: dict[str, str], fallback: Reader = disk_reader) -> Reader:
    """A reader that prefers the editor's text of open documents."""

    def read(path: str) -> str | None:
        text = open_texts.get(path)
        return text if text is not None else fallback(path)

    return read


CONFIG_PATTERNS = kinds.ARENA_CONFIG_PATTERNS
is_config_name = kinds.is_arena_config_name


def norm(path: str | Path) -> str:
    """The one spelling of a path used as a key (absolute, normalised)."""
    return os.path.normpath(os.path.abspath(str(path)))


# --------------------------------------------------------------------------- nodes


def scalar(node: Node | None) -> ScalarNode | None:
    node = deref(node)
    return node if isinstance(node, ScalarNode) else None


def mapping(node: Node | None) -> MappingNode | None:
    node = deref(node)
    return node if isinstance(node, MappingNode) else None


def sequence(node: Node | None) -> SequenceNode | None:
    node = deref(node)
    return node if isinstance(node, SequenceNode) else None


@dataclass(frozen=True, slots=True)
class Name:
    """A string written in a file, with the file and the span of its value."""

    value: str
    span: Span
    path: str


def name_at(node: MappingNode | None, key: str, path: str) -> Name | None:
    """The string value of ``key`` in ``node`` (None when absent or not a string)."""
    if node is None:
        return None
    value = scalar(node.get(key))
    if value is None or not isinstance(value.value, str) or not value.value:
        return None
    return Name(value.value, value.span, path)


def names_in(node: Node | None, path: str) -> tuple[Name, ...]:
    """The string items of a sequence."""
    seq = sequence(node)
    if seq is None:
        return ()
    out = []
    for item in seq.values():
        if isinstance(item, ScalarNode) and isinstance(item.value, str):
            out.append(Name(item.value, item.span, path))
    return tuple(out)


def item_names(holder: MappingNode | None, list_key: str, key: str, path: str) -> tuple[Name, ...]:
    """The string ``key`` of each mapping in the list ``holder[list_key]`` (the ``name``
    of each ``mcp_servers`` entry, the ``persona`` of each scenario turn …)."""
    seq = sequence(holder.get(list_key)) if holder is not None else None
    found = (name_at(mapping(item), key, path) for item in seq.values()) if seq else ()
    return tuple(name for name in found if name is not None)


# --------------------------------------------------------------------------- files


@dataclass(frozen=True, slots=True)
class SourceFile:
    """One file of a project, parsed."""

    path: str
    text: str
    root: Node | None
    data: Any
    syntax_error: bool

    @property
    def top(self) -> MappingNode | None:
        return mapping(self.root)

    @property
    def kind(self) -> str | None:
        kind = name_at(self.top, "kind", self.path)
        return kind.value if kind is not None else None

    @property
    def kind_name(self) -> Name | None:
        return name_at(self.top, "kind", self.path)

    @property
    def spec(self) -> MappingNode | None:
        top = self.top
        return mapping(top.get("spec")) if top is not None else None

    @property
    def metadata_name(self) -> Name | None:
        top = self.top
        meta = mapping(top.get("metadata")) if top is not None else None
        return name_at(meta, "name", self.path)

    @property
    def is_promptkit(self) -> bool:
        version = name_at(self.top, "apiVersion", self.path)
        return version is not None and version.value == API_VERSION and self.kind in KINDS


def parse_file(path: str, text: str) -> SourceFile:
    parsed = parse(text)
    data = to_data(parsed.root) if parsed.root is not None else None
    return SourceFile(path, text, parsed.root, data, parsed.syntax_error)


def is_arena_config(file: SourceFile) -> bool:
    return file.is_promptkit and file.kind == ARENA


# ---------------------------------------------------------------------- references


@dataclass(frozen=True, slots=True)
class FileRef:
    """A ``file:`` entry of an arena config."""

    section: str
    """The list it is in, as written (``prompt_configs``, ``self_play.personas``, …)."""
    expected: str
    """The kind the file must declare."""
    file: Name
    """The path as written, with its span in the config."""
    target: str
    """The path it resolves to (normalised)."""
    entry: MappingNode
    id: Name | None = None
    """``prompt_configs[].id``."""


def is_json_tool(ref: FileRef) -> bool:
    """A tool file in JSON: a raw tool descriptor (``name``, ``description``,
    ``input_schema``), which PromptKit loads without a kind."""
    return ref.expected == TOOL and ref.target.lower().endswith(".json")


def kind_matches(ref: FileRef, file: SourceFile) -> bool:
    """Whether the file is of the kind its list expects."""
    if is_json_tool(ref):
        return isinstance(file.data, dict)
    return file.kind == ref.expected


def _refs(config: SourceFile) -> Iterator[FileRef]:
    spec = config.spec
    if spec is None:
        return
    base = os.path.dirname(config.path)
    for keys, expected in FILE_SECTIONS:
        node: MappingNode | None = spec
        for key in keys[:-1]:
            node = mapping(node.get(key)) if node is not None else None
        seq = sequence(node.get(keys[-1])) if node is not None else None
        if seq is None:
            continue
        for item in seq.values():
            entry = mapping(item)
            written = name_at(entry, "file", config.path)
            if entry is None or written is None:
                continue
            target = norm(os.path.join(base, written.value))
            ref_id = name_at(entry, "id", config.path) if keys == ("prompt_configs",) else None
            yield FileRef(".".join(keys), expected, written, target, entry, ref_id)


def file_refs(config: SourceFile) -> tuple[FileRef, ...]:
    """The ``file:`` entries of an arena config, in the order written."""
    return tuple(_refs(config))


def named_files(config: SourceFile) -> frozenset[str]:
    """The paths the ``file:`` entries of an arena config resolve to."""
    return frozenset(ref.target for ref in _refs(config))


# ------------------------------------------------------------------------ entities


@dataclass(frozen=True, slots=True)
class PromptConfigFile:
    ref: FileRef
    file: SourceFile
    task_type: Name | None
    allowed_tools: tuple[Name, ...]
    variables: tuple[Name, ...]
    fragments: tuple[Name, ...]


@dataclass(frozen=True, slots=True)
class ScenarioFile:
    ref: FileRef
    file: SourceFile
    id: Name | None
    task_type: Name | None
    providers: tuple[Name, ...]
    personas: tuple[Name, ...]


@dataclass(frozen=True, slots=True)
class Defined:
    """A file that defines one name (tool ``spec.name``, provider or persona ``spec.id``)."""

    ref: FileRef
    file: SourceFile
    name: Name | None


def _prompt(ref: FileRef, file: SourceFile) -> PromptConfigFile:
    spec = file.spec
    return PromptConfigFile(
        ref,
        file,
        name_at(spec, "task_type", file.path),
        names_in(spec.get("allowed_tools") if spec is not None else None, file.path),
        item_names(spec, "variables", "name", file.path),
        item_names(spec, "fragments", "name", file.path),
    )


def _scenario(ref: FileRef, file: SourceFile) -> ScenarioFile:
    spec = file.spec
    return ScenarioFile(
        ref,
        file,
        name_at(spec, "id", file.path),
        name_at(spec, "task_type", file.path),
        names_in(spec.get("providers") if spec is not None else None, file.path),
        item_names(spec, "turns", "persona", file.path),
    )


@dataclass(frozen=True)
class Project:
    """An arena config and the files it names (those that could be read)."""

    config: SourceFile
    refs: tuple[FileRef, ...]
    files: dict[str, SourceFile]
    """Every file of the project that could be read, by normalised path."""
    prompts: tuple[PromptConfigFile, ...] = ()
    scenarios: tuple[ScenarioFile, ...] = ()
    tools: tuple[Defined, ...] = ()
    providers: tuple[Defined, ...] = ()
    personas: tuple[Defined, ...] = ()
    mcp_servers: tuple[Name, ...] = ()
    a2a_agents: tuple[Name, ...] = ()
    _by_task: dict[str, list[PromptConfigFile]] = field(default_factory=dict, repr=False)
    outside: frozenset[str] = frozenset()
    """Files named by the config that lie outside the project's root, not read
    (``core/base/roots.py``)."""
    root: str | None = None
    """The project's root (None: files anywhere may be read)."""
    templated: frozenset[str] = frozenset()
    """Files named by the config that hold Go-template placeholders of a template
    package (``recognize.template_package``): there, but not YAML until rendered."""

    @property
    def path(self) -> str:
        return self.config.path

    @property
    def folder(self) -> str:
        return os.path.dirname(self.config.path)

    def paths(self) -> list[str]:
        """The config's path, then every file of the project that could be read."""
        return [self.config.path, *(p for p in self.files if p != self.config.path)]

    def prompts_for(self, task_type: str) -> list[PromptConfigFile]:
        return self._by_task.get(task_type, [])

    def task_types(self) -> list[str]:
        return sorted(self._by_task)

    def file(self, path: str) -> SourceFile | None:
        return self.files.get(norm(path))

    def unknown_refs(self, expected: str | None = None) -> tuple[FileRef, ...]:
        """The ``file:`` entries (of ``expected`` kind) whose file says nothing the
        project can read: missing or unreadable, of another kind, or a template
        package's file not yet rendered. What such a file would declare (a task type,
        a tool, a provider id …) is unknown: a name that may be one is not an error."""
        out = []
        for ref in self.refs:
            if expected is not None and ref.expected != expected:
                continue
            file = self.files.get(ref.target)
            if file is None or not kind_matches(ref, file):
                out.append(ref)
        return tuple(out)


def role_providers(config: SourceFile) -> tuple[Name, ...]:
    """The provider ids the arena config names itself: its ``self_play.roles`` and
    ``judges`` entries' ``provider``."""
    spec = config.spec
    self_play = mapping(spec.get("self_play")) if spec is not None else None
    return item_names(self_play, "roles", "provider", config.path) + item_names(
        spec, "judges", "provider", config.path
    )


def load_project(config_path: str | Path, read: Reader = disk_reader) -> Project | None:
    """The project of the arena config at ``config_path`` (None when that file cannot
    be read or is not an arena config)."""
    path = norm(config_path)
    text = read(path)
    if text is None:
        return None
    config = parse_file(path, text)
    if not is_arena_config(config):
        return None
    return build_project(config, read)


def build_project(
    config: SourceFile, read: Reader, parsed: dict[str, SourceFile] | None = None
) -> Project:
    """The project of an arena config already parsed; ``parsed`` holds files already
    parsed from the same texts (reused as they are)."""
    refs = tuple(_refs(config))
    files: dict[str, SourceFile] = {config.path: config}
    root = boundary(config.path)
    outside: set[str] = set()
    templated: set[str] = set()
    for ref in refs:
        if ref.target in files or ref.target in templated:
            continue
        if root is not None and not inside(ref.target, root):
            outside.add(ref.target)  # never read: it could be /proc/self/environ
            continue
        known = parsed.get(ref.target) if parsed is not None else None
        text = read(ref.target)
        if text is None:
            continue
        if template_package(ref.target, text) is not None:
            templated.add(ref.target)
            continue
        files[ref.target] = (
            known if known is not None and known.text == text else parse_file(ref.target, text)
        )
    prompts: list[PromptConfigFile] = []
    scenarios: list[ScenarioFile] = []
    tools: list[Defined] = []
    providers: list[Defined] = []
    personas: list[Defined] = []
    for ref in refs:
        file = files.get(ref.target)
        if file is None or not kind_matches(ref, file):
            continue
        spec = file.spec
        if ref.expected == TOOL and is_json_tool(ref):
            tools.append(Defined(ref, file, name_at(file.top, "name", file.path)))
        elif ref.expected == PROMPT_CONFIG:
            prompts.append(_prompt(ref, file))
        elif ref.expected == SCENARIO:
            scenarios.append(_scenario(ref, file))
        elif ref.expected == TOOL:
            # PromptKit names a tool by its metadata.name (spec.name is ignored).
            tools.append(Defined(ref, file, file.metadata_name))
        elif ref.expected == PROVIDER:
            providers.append(Defined(ref, file, name_at(spec, "id", file.path)))
        elif ref.expected == PERSONA:
            found = name_at(spec, "id", file.path) or file.metadata_name
            personas.append(Defined(ref, file, found))
    spec = config.spec
    mcp = item_names(spec, "mcp_servers", "name", config.path)
    a2a = item_names(spec, "a2a_agents", "name", config.path)
    by_task: dict[str, list[PromptConfigFile]] = {}
    for prompt in prompts:
        if prompt.task_type is not None:
            by_task.setdefault(prompt.task_type.value, []).append(prompt)
    return Project(
        config,
        refs,
        files,
        tuple(prompts),
        tuple(scenarios),
        tuple(tools),
        tuple(providers),
        tuple(personas),
        mcp,
        a2a,
        by_task,
        frozenset(outside),
        str(root) if root is not None else None,
        frozenset(templated),
    )


def boundary(config_path: str) -> Path | None:
    """The root the files of the arena config at ``config_path`` must stay in, or
    None when its configuration sets ``read-outside-root = true``."""
    from pack_lsp.core.model.config import ConfigError, load_for

    try:
        config = load_for(Path(config_path))
    except ConfigError:
        config = None
    if config is not None and config.read_outside_root:
        return None
    return project_root(config_path, config.source if config is not None else None)
