"""The entities of the pack model: frozen dataclasses with the spans of what wrote them.

Every entity keeps the span of its key and of its value, and every reference
(tool names, agent entry/members, workflow targets, ...) keeps the span of the
string that names it.

The entities are frozen dataclasses, not pydantic models: the builder
(``pack_lsp.core.model.pack.build``) is the single place that checks types, so
validation would only repeat it, and a large pack has tens of thousands of
entities (pydantic's ``model_construct`` cost about five times a dataclass
constructor, plus the classes' creation at import; see D20 in docs/decisions.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field as _field
from typing import Any

from pack_lsp.core.base.text import Span
from pack_lsp.core.syntax.yamltree.nodes import MappingNode, ScalarNode

# Every entity class is declared immutable, with keyword arguments only (so that a
# subclass may add required fields after its base's defaults) and no per-instance dict.


@dataclass(frozen=True, kw_only=True, slots=True)
class Located:
    """A scalar value with the span of the text that wrote it."""

    value: Any
    span: Span

    @property
    def text(self) -> str:
        return self.value if isinstance(self.value, str) else str(self.value)


@dataclass(frozen=True, kw_only=True, slots=True)
class Template:
    """A template string (system template, fragment, override) and its scalar node.

    ``node`` gives access to the source so placeholders can be mapped back to exact
    positions (see ``pack_lsp.core.syntax.scalars``).
    """

    text: str
    span: Span
    node: ScalarNode = _field(repr=False)
    field: str = "system_template"


@dataclass(frozen=True, kw_only=True, slots=True)
class Entry:
    """Something defined as a key of a mapping: ``key`` and its spans."""

    key: str
    key_span: Span
    span: Span  # the value


@dataclass(frozen=True, kw_only=True, slots=True)
class TemplateEngine:
    """The pack's ``template_engine``: version, syntax and features."""

    version: Located | None = None
    syntax: Located | None = None
    features: list[Located] = _field(default_factory=list)
    span: Span


@dataclass(frozen=True, kw_only=True, slots=True)
class Variable:
    """A prompt's variable: name, type, whether it is required, default, enum."""

    name: Located | None = None
    type: Located | None = None
    required: Located | None = None
    default: Located | None = None
    default_key_span: Span | None = None
    description: Located | None = None
    enum: list[Located] | None = None
    span: Span


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolPolicy:
    """A prompt's ``tool_policy``: the tool choice and the blocklisted tools."""

    tool_choice: Located | None = None
    blocklist: list[Located] = _field(default_factory=list)
    span: Span


@dataclass(frozen=True, kw_only=True, slots=True)
class ModelOverride(Entry):
    """A prompt's override for one model (its own templates)."""

    templates: list[Template] = _field(default_factory=list)


@dataclass(frozen=True, kw_only=True, slots=True)
class Eval:
    """An eval of a prompt or of the pack (``id``, ``type``)."""

    id: Located | None = None
    type: Located | None = None
    span: Span


@dataclass(frozen=True, kw_only=True, slots=True)
class ValidatorDef:
    """A prompt's validator (guardrail); ``id`` lets a governance control name it."""

    id: Located | None = None
    type: Located | None = None
    span: Span


@dataclass(frozen=True, kw_only=True, slots=True)
class Prompt(Entry):
    """A prompt of the pack's ``prompts``, keyed by its task type."""

    id: Located | None = None
    provider: Located | None = None
    validators: list[ValidatorDef] = _field(default_factory=list)
    name: Located | None = None
    version: Located | None = None
    description: Located | None = None
    system_template: Template | None = None
    variables: list[Variable] = _field(default_factory=list)
    tools: list[Located] = _field(default_factory=list)
    tool_policy: ToolPolicy | None = None
    model_overrides: dict[str, ModelOverride] = _field(default_factory=dict)
    evals: list[Eval] = _field(default_factory=list)
    #: The prompt's mapping as written, for per-prompt checks that read what the model
    #: does not keep (how scalars are written); not compared.
    node: MappingNode | None = _field(default=None, repr=False, compare=False)

    def templates(self) -> list[Template]:
        out = [self.system_template] if self.system_template is not None else []
        for override in self.model_overrides.values():
            out.extend(override.templates)
        return out


@dataclass(frozen=True, kw_only=True, slots=True)
class Tool(Entry):
    """A tool of the pack's ``tools``."""

    name: Located | None = None
    description: Located | None = None
    parameters: Any = None


@dataclass(frozen=True, kw_only=True, slots=True)
class Fragment(Entry):
    """A reusable template of the pack's ``fragments``."""

    template: Template | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class Artifact(Entry):
    """An artifact a workflow state declares."""

    type: Located | None = None
    mode: Located | None = None
    description: Located | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class Transition:
    """One ``on_event`` entry of a workflow state: the event and the target state."""

    event: Located
    target: Located | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class State(Entry):
    """A workflow state: the prompt it runs, its transitions, whether it ends the run."""

    prompt_task: Located | None = None
    description: Located | None = None
    on_event: list[Transition] = _field(default_factory=list)
    on_event_key_span: Span | None = None
    terminal: Located | None = None
    max_visits: Located | None = None
    on_max_visits: Located | None = None
    persistence: Located | None = None
    orchestration: Located | None = None
    skills: Located | None = None
    artifacts: dict[str, Artifact] = _field(default_factory=dict)
    composition: Located | None = None
    control: Located | None = None

    @property
    def is_terminal(self) -> bool:
        return self.terminal is not None and self.terminal.value is True


@dataclass(frozen=True, kw_only=True, slots=True)
class Workflow(Entry):
    """The pack's ``workflow``: its entry and its states."""

    version: Located | None = None
    entry: Located | None = None
    max_total_visits: Located | None = None  # engine.budget.max_total_visits
    states: dict[str, State] = _field(default_factory=dict)


@dataclass(frozen=True, kw_only=True, slots=True)
class Member(Entry):
    """A member of the pack's ``agents.members``."""

    description: Located | None = None
    tags: list[Located] = _field(default_factory=list)
    tags_span: Span | None = None
    input_modes: list[Located] = _field(default_factory=list)
    input_modes_span: Span | None = None
    output_modes: list[Located] = _field(default_factory=list)
    output_modes_span: Span | None = None
    state: Located | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class Agents(Entry):
    """The pack's ``agents``: the entry agent and the members."""

    entry: Located | None = None
    members: dict[str, Member] = _field(default_factory=dict)


@dataclass(frozen=True, kw_only=True, slots=True)
class Step:
    """One step of a composition (RFC 0010); ``branches`` holds a parallel step's
    nested steps and ``parent`` the id of the parallel step a branch belongs to."""

    id: Located | None = None
    kind: Located | None = None
    prompt_task: Located | None = None
    provider: Located | None = None
    tool: Located | None = None
    tools: list[Located] = _field(default_factory=list)
    then: Located | None = None
    else_: Located | None = None
    depends_on: list[Located] = _field(default_factory=list)
    output_schema: Located | None = None
    evals: list[Located] = _field(default_factory=list)
    references: list[Located] = _field(
        default_factory=list
    )  # every `${...}` string of input, args and predicates
    branches: list[Step] = _field(default_factory=list)
    parent: str | None = None
    span: Span

    def walk(self) -> list[Step]:
        """This step and every step nested in its parallel branches."""
        out = [self]
        for branch in self.branches:
            out.extend(branch.walk())
        return out


@dataclass(frozen=True, kw_only=True, slots=True)
class Composition(Entry):
    """A named composition of steps (PromptKit's ``compositions``)."""

    steps: list[Step] = _field(default_factory=list)
    output: Located | None = None

    def all_steps(self) -> list[Step]:
        out: list[Step] = []
        for step in self.steps:
            out.extend(step.walk())
        return out


@dataclass(frozen=True, kw_only=True, slots=True)
class ProviderRequirement:
    """An entry of ``requires.providers``; a bare string is an `llm` requirement."""

    key: Located | None = None
    role: Located | None = None
    required: Located | None = None
    shorthand: bool = False
    span: Span

    @property
    def role_name(self) -> str:
        if self.shorthand:
            return "llm"
        return self.role.text if self.role is not None else "llm"

    @property
    def is_required(self) -> bool:
        return self.required is None or self.required.value is not False


@dataclass(frozen=True, kw_only=True, slots=True)
class Control:
    """One control of a governance obligation: exactly one of field/validator/eval/external."""

    kind: str
    value: Located
    span: Span


@dataclass(frozen=True, kw_only=True, slots=True)
class Obligation:
    """A governance obligation and the controls that satisfy it."""

    id: Located | None = None
    controls: list[Control] = _field(default_factory=list)
    span: Span


@dataclass(frozen=True, kw_only=True, slots=True)
class Review:
    """A governance review: its cadence, the obligations it satisfies, its eval."""

    id: Located | None = None
    cadence: Located | None = None
    satisfies: list[Located] = _field(default_factory=list)
    eval: Located | None = None
    span: Span


@dataclass(frozen=True, kw_only=True, slots=True)
class Governance:
    """``metadata.governance`` or an agents member's ``governance`` (RFC 0013/0016)."""

    where: str
    obligations: list[Obligation] = _field(default_factory=list)
    reviews: list[Review] = _field(default_factory=list)
    vocabularies: list[str] = _field(default_factory=list)
    #: The properties the object declares (for `field` controls).
    fields: list[str] = _field(default_factory=list)
    #: Open-list values that may be vocabulary terms (CURIEs), with where they are.
    terms: list[tuple[str, Located]] = _field(default_factory=list)
    span: Span


@dataclass(frozen=True, kw_only=True, slots=True)
class Skill:
    """A skill the pack uses (a path, or a name)."""

    path: Located | None = None
    name: Located | None = None
    span: Span


@dataclass(frozen=True, kw_only=True, slots=True, weakref_slot=True)
class Pack:
    """A PromptPack as the rules read it: every section, with the spans of its parts."""

    id: Located | None = None
    name: Located | None = None
    version: Located | None = None
    description: Located | None = None
    template_engine: TemplateEngine | None = None
    prompts: dict[str, Prompt] = _field(default_factory=dict)
    fragments: dict[str, Fragment] = _field(default_factory=dict)
    tools: dict[str, Tool] = _field(default_factory=dict)
    workflow: Workflow | None = None
    agents: Agents | None = None
    skills: list[Skill] = _field(default_factory=list)
    evals: list[Eval] = _field(default_factory=list)
    compositions: dict[str, Composition] = _field(default_factory=dict)
    compositions_span: Span | None = None
    providers: list[ProviderRequirement] = _field(default_factory=list)
    providers_span: Span | None = None
    governance: list[Governance] = _field(default_factory=list)
    span: Span

    def provider_keys(self) -> dict[str, ProviderRequirement]:
        """Declared provider requirements by key (the first declaration wins)."""
        out: dict[str, ProviderRequirement] = {}
        for req in self.providers:
            if req.key is not None and isinstance(req.key.value, str):
                out.setdefault(req.key.value, req)
        return out
