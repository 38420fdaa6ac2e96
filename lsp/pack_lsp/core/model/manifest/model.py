"""The model of one agent-extension manifest, built from the YAML tree with spans.

Only what the rules and editor features need is kept: each value with the span
that wrote it, so a diagnostic, a definition or a rename edit can point at it.
Values of the wrong type are left out here; the schema reports them. What decides
how yodoca treats the extension is read as yodoca reads it (``reading``): an empty
or null ``entrypoint`` is no entrypoint, and ``enabled: no`` or ``enabled: "off"``
disables the extension.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath

from pack_lsp.core.base.text import Span
from pack_lsp.core.model.manifest.reading import lax_bool, yaml11_data
from pack_lsp.core.syntax.yamltree.nodes import (
    MappingNode,
    Node,
    ScalarNode,
    SequenceNode,
    deref,
)

#: The id in ``uses_tools`` that names yodoca's built-in tools, not an extension.
CORE_TOOLS = "core_tools"
#: The one file name yodoca reads a manifest from (``manifest.yml`` is ignored).
MANIFEST_FILE = "manifest.yaml"
IGNORED_FILE = "manifest.yml"


@dataclass(frozen=True, slots=True)
class Value:
    """A string as written and the span of its scalar."""

    text: str
    span: Span


@dataclass(frozen=True, slots=True)
class Reference:
    """An extension id named in ``depends_on`` or ``agent.uses_tools``."""

    field: str  # "depends_on" or "uses_tools"
    id: str
    span: Span


@dataclass(frozen=True, slots=True)
class AgentSection:
    key_span: Span  # the `agent` key
    integration_mode: Value | None
    model: Value | None
    instructions: Value | None
    has_model: bool  # the key is present (even with an empty or non-string value)
    has_instructions: bool


@dataclass(frozen=True, slots=True)
class Manifest:
    """One extension as its manifest declares it; ``path`` is ``None`` for an unsaved text."""

    path: str | None
    id: Value | None
    name: Value | None
    description: Value | None
    entrypoint: Value | None
    has_entrypoint: bool  # a non-empty entrypoint (yodoca treats "" and null as none)
    agent: AgentSection | None
    references: tuple[Reference, ...]
    anchor: Span  # where to report a problem of the manifest as a whole
    enabled: bool = True
    ignored: bool = False  # a ``manifest.yml``, which yodoca never reads

    @property
    def ext_id(self) -> str | None:
        return self.id.text if self.id is not None else None

    @property
    def declarative(self) -> bool:
        """An agent built from the manifest alone (no code to load)."""
        return self.agent is not None and not self.has_entrypoint

    @property
    def provides_tools(self) -> bool:
        """Whether the extension can provide tools to an agent's ``uses_tools``.

        A tool is provided by code that implements the tool-provider protocol. An
        extension with an ``entrypoint`` loads code, which may implement it (this
        cannot be known without running it); a declarative agent has no code of its
        own: the orchestrator reaches it through ``delegate_task``.
        """
        return self.has_entrypoint

    @property
    def loaded(self) -> bool:
        """Whether yodoca takes the extension into its dependency resolution."""
        return self.enabled and not self.ignored

    def uses(self, field: str) -> list[Reference]:
        return [r for r in self.references if r.field == field]


def _string(node: Node | None) -> Value | None:
    node = deref(node)
    if isinstance(node, ScalarNode) and isinstance(node.value, str):
        return Value(node.value, node.span)
    return None


def _references(node: Node | None, field: str) -> list[Reference]:
    node = deref(node)
    out: list[Reference] = []
    if isinstance(node, SequenceNode):
        for item in node.values():
            if isinstance(item, ScalarNode) and isinstance(item.value, str) and item.value:
                out.append(Reference(field, item.value, item.span))
    return out


def build_manifest(root: Node | None, path: str | None) -> Manifest:
    root = deref(root)
    if not isinstance(root, MappingNode):
        anchor = Span(0, 0) if root is None else Span(root.span.start, root.span.start)
        ignored = path is not None and PurePath(path).name == IGNORED_FILE
        return Manifest(path, None, None, None, None, False, None, (), anchor, ignored=ignored)
    anchor = root.pairs[0].key.span if root.pairs else Span(root.span.start, root.span.start)
    refs = _references(root.get("depends_on"), "depends_on")
    agent: AgentSection | None = None
    agent_pair = root.pair("agent")
    agent_node = deref(agent_pair.value) if agent_pair is not None else None
    if agent_pair is not None and isinstance(agent_node, MappingNode):
        agent = AgentSection(
            key_span=agent_pair.key.span,
            integration_mode=_string(agent_node.get("integration_mode")),
            model=_string(agent_node.get("model")),
            instructions=_string(agent_node.get("instructions")),
            has_model=agent_node.pair("model") is not None,
            has_instructions=agent_node.pair("instructions") is not None,
        )
        refs = _references(agent_node.get("uses_tools"), "uses_tools") + refs
    entrypoint = _string(root.get("entrypoint"))
    return Manifest(
        path=path,
        id=_string(root.get("id")),
        name=_string(root.get("name")),
        description=_string(root.get("description")),
        entrypoint=entrypoint,
        has_entrypoint=entrypoint is not None and entrypoint.text != "",
        agent=agent,
        references=tuple(refs),
        anchor=anchor,
        enabled=_enabled(root.get("enabled")),
        ignored=path is not None and PurePath(path).name == IGNORED_FILE,
    )


def _enabled(node: Node | None) -> bool:
    """``enabled`` as yodoca reads it: PyYAML's YAML 1.1, then pydantic's lax ``bool``
    (a value it refuses makes the schema fail; the extension counts as enabled)."""
    if node is None:
        return True
    return lax_bool(yaml11_data(node)) is not False
