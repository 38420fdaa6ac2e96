"""What a diagnostic's ``data`` says, as one typed class per kind of problem.

A diagnostic's ``data`` holds plain facts about the problem and is sent to editors as
the LSP diagnostic's ``data``. A rule builds it as an object of one of the classes
below, as it builds a fix's payload (``core/base/fixes.py``): the fields are named
and typed, so a misspelt key or a missing fact is a type error, not a silently
different message to editors. Each object *is* the mapping editors receive: ``kind``
first (the class's ``KIND``), then its fields in declaration order, an ``optional``
field left out while it is None; ``make`` keeps that mapping, so what is sent is what
a hand-written dict with the same keys in the same order would send.

Every kind has its class (a test forbids a hand-written dict with a ``"kind"`` key);
``PROBLEM_DATA`` lists the classes. Two classes share a ``KIND`` when
one kind of problem is reported with two sets of facts (``undefined-obligation``).

Every process that analyses a pack creates these ~110 classes at import, so they are
cheap to create (docs/decisions.md, D91): they are not dataclasses (``dataclass``
writes and compiles an ``__init__``, a ``__repr__`` and a docstring per class), but
declare their fields the same way, and ``ProblemData`` reads them once per class; an
object compares as the mapping it is (``Mapping.__eq__``).
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar, dataclass_transform


class _Optional:
    """The default of an ``optional`` field (``_fields`` reads it off the class)."""

    def __repr__(self) -> str:
        return "optional()"


_OPTIONAL = _Optional()


def optional() -> Any:
    """A field that is left out of the mapping while it is None (written only when the
    problem has it, as ``**({"state": state} if state is not None else {})`` was)."""
    return _OPTIONAL


class FrozenDataError(AttributeError):
    """Problem data is not changed once made."""


@dataclass_transform(kw_only_default=True, frozen_default=True)
class ProblemData(Mapping[str, object]):
    """The facts of one kind of problem; read as the mapping sent to editors.

    A subclass declares ``KIND`` and its fields as annotations, as a frozen
    keyword-only dataclass would (type checkers read it as one: ``dataclass_transform``);
    the fields are read once when the class is made, with no code generated for it.
    """

    KIND: ClassVar[str]
    #: Each field's name and whether it is ``optional``, in declaration order.
    FIELDS: ClassVar[tuple[tuple[str, bool], ...]] = ()

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        own = tuple(
            (name, cls.__dict__.get(name) is _OPTIONAL)
            for name, annotation in inspect.get_annotations(cls).items()
            if not str(annotation).startswith("ClassVar")
        )
        names = {name for name, _ in own}
        cls.FIELDS = tuple(f for f in cls.FIELDS if f[0] not in names) + own
        if not cls.__doc__:
            cls.__doc__ = f"The facts of a problem of kind ``{cls.KIND}``."

    def __init__(self, **values: Any) -> None:
        for name, is_optional in self.FIELDS:
            if name in values:
                value = values.pop(name)
            elif is_optional:
                value = None
            else:
                raise TypeError(f"{type(self).__name__}() needs the keyword argument `{name}`")
            object.__setattr__(self, name, value)
        if values:
            unknown = ", ".join(sorted(values))
            raise TypeError(f"{type(self).__name__}() takes no argument {unknown}")

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenDataError(f"cannot assign to field `{name}`")

    def __delattr__(self, name: str) -> None:
        raise FrozenDataError(f"cannot delete field `{name}`")

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name, _ in self.FIELDS)
        return f"{type(self).__name__}({fields})"

    def plain(self) -> dict[str, object]:
        """The mapping as a plain dict (what ``make`` keeps)."""
        out: dict[str, object] = {"kind": self.KIND}
        for name, is_optional in self.FIELDS:
            value = getattr(self, name)
            if value is None and is_optional:
                continue
            out[name] = value
        return out

    def __iter__(self) -> Iterator[str]:
        return iter(self.plain())

    def __len__(self) -> int:
        return len(self.plain())

    def __getitem__(self, key: str) -> object:
        return self.plain()[key]


# -------------------------------------------------------------- unresolved names
# A reference the resolver (``core/model/resolve.py``) leaves undefined: the name,
# the names it may have meant (``suggestions``) and where it was written.


class UndefinedState(ProblemData):
    KIND: ClassVar[str] = "undefined-state"
    name: object
    suggestions: Sequence[str]
    #: The state whose transition names it (None: the workflow's or a member's).
    state: str | None = optional()


class UndefinedPrompt(ProblemData):
    KIND: ClassVar[str] = "undefined-prompt"
    name: object
    #: The state that runs it (a workflow's ``prompt_task``).
    state: str | None = optional()
    suggestions: Sequence[str]
    #: The composition whose step runs it.
    composition: str | None = optional()


class UndefinedComposition(ProblemData):
    KIND: ClassVar[str] = "undefined-composition"
    name: str
    state: str
    suggestions: Sequence[str]


class UndefinedStep(ProblemData):
    KIND: ClassVar[str] = "undefined-step"
    name: str
    suggestions: Sequence[str]
    composition: str


class UndefinedStepTool(ProblemData):
    KIND: ClassVar[str] = "undefined-step-tool"
    name: str
    suggestions: Sequence[str]
    composition: str


class UndefinedStepEval(ProblemData):
    KIND: ClassVar[str] = "undefined-step-eval"
    name: str
    suggestions: Sequence[str]
    composition: str


class UnresolvedStepReference(ProblemData):
    KIND: ClassVar[str] = "unresolved-step-reference"
    name: str
    composition: str
    #: None when the step exists but does not run before the reference.
    suggestions: Sequence[str] | None = optional()


class UndeclaredArtifact(ProblemData):
    KIND: ClassVar[str] = "undeclared-artifact"
    name: str
    state: str
    prompt: str
    suggestions: Sequence[str]


class UndeclaredVariable(ProblemData):
    KIND: ClassVar[str] = "undeclared-variable"
    name: str
    prompt: str
    suggestions: Sequence[str]


class UndefinedFragment(ProblemData):
    KIND: ClassVar[str] = "undefined-fragment"
    name: str
    suggestions: Sequence[str]


class UndefinedProvider(ProblemData):
    KIND: ClassVar[str] = "undefined-provider"
    name: str
    suggestions: Sequence[str]


class UndefinedTool(ProblemData):
    KIND: ClassVar[str] = "undefined-tool"
    name: object
    #: For ``a2a__<agent>``: the agent named ("" for a bare ``a2a__``).
    agent: str | None = optional()
    suggestions: Sequence[str]


class UnknownBlocklistedTool(ProblemData):
    KIND: ClassVar[str] = "unknown-blocklisted-tool"
    name: str
    suggestions: Sequence[str]


class UndefinedControlValidator(ProblemData):
    KIND: ClassVar[str] = "undefined-control-validator"
    name: str
    suggestions: Sequence[str]


class UndefinedControlEval(ProblemData):
    KIND: ClassVar[str] = "undefined-control-eval"
    name: str
    suggestions: Sequence[str]


class UndefinedEval(ProblemData):
    KIND: ClassVar[str] = "undefined-eval"
    name: str
    suggestions: Sequence[str]


class UndefinedControlField(ProblemData):
    KIND: ClassVar[str] = "undefined-control-field"
    name: str
    suggestions: Sequence[str]


class UndefinedOwnObligation(ProblemData):
    """``satisfies`` of a review names no obligation of its own governance object."""

    KIND: ClassVar[str] = "undefined-obligation"
    name: str
    suggestions: Sequence[str]


class UndefinedObligation(ProblemData):
    """``satisfies`` names an obligation the effective object of ``member`` hides."""

    KIND: ClassVar[str] = "undefined-obligation"
    name: str
    #: The member whose effective governance it is resolved in (None: the pack's).
    member: str | None
    suggestions: Sequence[str]


# ------------------------------------------------------------ the rule families


class AgentControlLoop(ProblemData):
    KIND: ClassVar[str] = "agent-control-loop"
    states: Sequence[str]


class AgentControlOnTerminalState(ProblemData):
    KIND: ClassVar[str] = "agent-control-on-terminal-state"
    state: str
    path: Sequence[str | int]
    key: str


class AgentCycle(ProblemData):
    KIND: ClassVar[str] = "agent-cycle"
    agents: Sequence[str]
    #: How many cycles there are, when more than one is reported at once.
    cycles: int | None = optional()


class BlankTag(ProblemData):
    KIND: ClassVar[str] = "blank-tag"


class BudgetBelowMaxVisits(ProblemData):
    KIND: ClassVar[str] = "budget-below-max-visits"
    budget: int
    total: int


class CardsConfig(ProblemData):
    KIND: ClassVar[str] = "cards-config"


class CompositionOnNonCompositionState(ProblemData):
    KIND: ClassVar[str] = "composition-on-non-composition-state"
    state: str
    path: Sequence[str | int]
    key: str


class ConversationalPromptOnNonLlmProvider(ProblemData):
    KIND: ClassVar[str] = "conversational-prompt-on-non-llm-provider"
    name: str


class DependencyCycle(ProblemData):
    KIND: ClassVar[str] = "dependency-cycle"
    cycle: Sequence[str]


class DuplicateEvalId(ProblemData):
    KIND: ClassVar[str] = "duplicate-eval-id"
    id: str


class DuplicateGovernanceId(ProblemData):
    KIND: ClassVar[str] = "duplicate-governance-id"
    name: str


class DuplicatePromptConfigId(ProblemData):
    KIND: ClassVar[str] = "duplicate-prompt-config-id"
    id: str


class DuplicatePromptId(ProblemData):
    KIND: ClassVar[str] = "duplicate-prompt-id"
    id: str
    other: str


class DuplicateProviderKey(ProblemData):
    KIND: ClassVar[str] = "duplicate-provider-key"
    name: str


class DuplicateStepId(ProblemData):
    KIND: ClassVar[str] = "duplicate-step-id"
    name: str
    composition: str


class DuplicateTag(ProblemData):
    KIND: ClassVar[str] = "duplicate-tag"
    tag: str


class DuplicateTaskType(ProblemData):
    KIND: ClassVar[str] = "duplicate-task-type"
    task_type: str


class DuplicateValidatorId(ProblemData):
    KIND: ClassVar[str] = "duplicate-validator-id"
    name: str


class EmptyToolPattern(ProblemData):
    KIND: ClassVar[str] = "empty-tool-pattern"
    name: str


class EntryNotMember(ProblemData):
    KIND: ClassVar[str] = "entry-not-member"
    name: str


class EntrypointRequired(ProblemData):
    KIND: ClassVar[str] = "entrypoint-required"


class EventNameCase(ProblemData):
    KIND: ClassVar[str] = "event-name-case"
    name: str
    suggestion: str


class FragmentIncludeCycle(ProblemData):
    KIND: ClassVar[str] = "fragment-include-cycle"
    name: str
    cycle: Sequence[str]


class IncompleteToolName(ProblemData):
    KIND: ClassVar[str] = "incomplete-tool-name"
    name: str
    namespace: str


class ListedAndBlocklisted(ProblemData):
    KIND: ClassVar[str] = "listed-and-blocklisted"
    name: str


class MissingDescription(ProblemData):
    KIND: ClassVar[str] = "missing-description"
    member: str


class MissingProjectFile(ProblemData):
    KIND: ClassVar[str] = "missing-project-file"
    file: str


class MissingProperty(ProblemData):
    KIND: ClassVar[str] = "missing-property"
    property: object
    path: Sequence[str | int]


class ModuleNotFound(ProblemData):
    KIND: ClassVar[str] = "module-not-found"
    module: str


class NoTerminalState(ProblemData):
    KIND: ClassVar[str] = "no-terminal-state"
    entry: str


class NotAMember(ProblemData):
    KIND: ClassVar[str] = "not-a-member"
    prompt: str


class OnMaxVisitsChain(ProblemData):
    KIND: ClassVar[str] = "on-max-visits-chain"
    state: str
    target: str


class OnMaxVisitsWithoutMaxVisits(ProblemData):
    KIND: ClassVar[str] = "on-max-visits-without-max-visits"
    state: str


class OptionalProviderReferenced(ProblemData):
    KIND: ClassVar[str] = "optional-provider-referenced"
    name: str


class ProjectFileWrongKind(ProblemData):
    KIND: ClassVar[str] = "project-file-wrong-kind"
    expected: str


class PromptConfigIdNotTaskType(ProblemData):
    KIND: ClassVar[str] = "prompt-config-id-not-task-type"
    task_type: str


class PromptId(ProblemData):
    KIND: ClassVar[str] = "prompt-id"
    expected: str


class PromptStepOnNonLlmProvider(ProblemData):
    KIND: ClassVar[str] = "prompt-step-on-non-llm-provider"
    name: str


class RefusedCheckParams(ProblemData):
    KIND: ClassVar[str] = "refused-check-params"
    type: object
    check: object


class SelfReference(ProblemData):
    KIND: ClassVar[str] = "self-reference"
    name: str


class SkillNotFound(ProblemData):
    KIND: ClassVar[str] = "skill-not-found"
    path: Sequence[str | int]


class SkillOutside(ProblemData):
    KIND: ClassVar[str] = "skill-outside"
    path: Sequence[str | int]


class StateWithoutExit(ProblemData):
    KIND: ClassVar[str] = "state-without-exit"
    state: str


class StateWithoutTransitions(ProblemData):
    KIND: ClassVar[str] = "state-without-transitions"
    state: str


class StepCycle(ProblemData):
    KIND: ClassVar[str] = "step-cycle"
    steps: Sequence[str]
    composition: str


class TerminalWithTransitions(ProblemData):
    KIND: ClassVar[str] = "terminal-with-transitions"
    state: str


class ToolIsMember(ProblemData):
    KIND: ClassVar[str] = "tool-and-member"
    name: str
    tool_kept: bool


class ToolChoice(ProblemData):
    KIND: ClassVar[str] = "tool-choice"
    replacement: str


class ToolName(ProblemData):
    KIND: ClassVar[str] = "tool-name"
    expected: str


class UnbalancedBraces(ProblemData):
    KIND: ClassVar[str] = "unbalanced-braces"
    which: str
    name: str


class UndeclaredVocabularyPrefix(ProblemData):
    KIND: ClassVar[str] = "undeclared-vocabulary-prefix"
    name: str


class UnknownExtension(ProblemData):
    KIND: ClassVar[str] = "unknown-extension"
    id: str
    suggestions: Sequence[str]


class UnknownPersona(ProblemData):
    KIND: ClassVar[str] = "unknown-persona"
    name: str


class UnknownProvider(ProblemData):
    KIND: ClassVar[str] = "unknown-provider"
    name: str


class UnknownProviderRole(ProblemData):
    KIND: ClassVar[str] = "unknown-provider-role"
    value: object
    suggestions: Sequence[str]


class UnknownScenarioTaskType(ProblemData):
    KIND: ClassVar[str] = "unknown-scenario-task-type"
    task_type: str


class UnknownVocabularyTerm(ProblemData):
    KIND: ClassVar[str] = "unknown-vocabulary-term"
    name: str
    prefix: str


class UnreachableAgent(ProblemData):
    KIND: ClassVar[str] = "unreachable-agent"
    member: str
    callers: Sequence[str]


class UnreachableState(ProblemData):
    KIND: ClassVar[str] = "unreachable-state"
    state: str


class UnreachableStep(ProblemData):
    KIND: ClassVar[str] = "unreachable-step"
    name: str
    composition: str


class UnresolvedNamespacedTool(ProblemData):
    KIND: ClassVar[str] = "unresolved-namespaced-tool"
    name: str


class UnusedFragment(ProblemData):
    KIND: ClassVar[str] = "unused-fragment"
    name: str


class UnusedTool(ProblemData):
    KIND: ClassVar[str] = "unused-tool"
    name: str


class UnusedVariable(ProblemData):
    KIND: ClassVar[str] = "unused-variable"
    name: str
    prompt: str


class WorkflowVersion(ProblemData):
    KIND: ClassVar[str] = "workflow-version"
    value: object


class Yaml11Reading(ProblemData):
    KIND: ClassVar[str] = "yaml11-reading"
    text: str
    reading: str


#: Every class of typed data.
# ------------------------------------------------ manifests, arena, cards, schema
# The facts of the manifest, arena-project, card and schema problems.


class AgentWithoutInstructions(ProblemData):
    KIND: ClassVar[str] = "agent-without-instructions"


class ArenaKindUnknown(ProblemData):
    KIND: ClassVar[str] = "arena-kind-unknown"
    name: str


class DefaultNotInEnum(ProblemData):
    KIND: ClassVar[str] = "default-not-in-enum"
    allowed: Sequence[object]
    name: str
    prompt: str


class DefaultTypeMismatch(ProblemData):
    KIND: ClassVar[str] = "default-type-mismatch"
    type: str
    name: str
    prompt: str


class DependsOnDisabled(ProblemData):
    KIND: ClassVar[str] = "depends-on-disabled"
    id: str


class EmptyTags(ProblemData):
    KIND: ClassVar[str] = "empty-tags"
    member: str


class FolderNotId(ProblemData):
    KIND: ClassVar[str] = "folder-not-id"
    folder: str
    id: str


class FragmentExpansionTooLarge(ProblemData):
    KIND: ClassVar[str] = "fragment-expansion-too-large"
    size: int
    budget: int
    path: Sequence[str]


class IgnoredKey(ProblemData):
    KIND: ClassVar[str] = "ignored-key"
    key: str


class InstructionsReadAsText(ProblemData):
    KIND: ClassVar[str] = "instructions-read-as-text"
    path: str
    exists: bool


class InvalidValue(ProblemData):
    KIND: ClassVar[str] = "invalid-value"
    path: Sequence[str | int]
    suggestions: Sequence[str]
    allowed: Sequence[str | int | float]


class ManifestYmlIgnored(ProblemData):
    KIND: ClassVar[str] = "manifest-yml-ignored"


class MisspelledKey(ProblemData):
    KIND: ClassVar[str] = "misspelled-key"
    key: str
    suggestions: Sequence[str]


class ProjectFileOutsideRoot(ProblemData):
    KIND: ClassVar[str] = "project-file-outside-root"
    file: object
    root: str | None


class RenamedProperty(ProblemData):
    KIND: ClassVar[str] = "renamed-property"
    key: str
    renamed: str
    suggestions: Sequence[str]
    path: Sequence[str | int]


class RequiredVariableWithDefault(ProblemData):
    KIND: ClassVar[str] = "required-variable-with-default"
    name: str
    prompt: str


class UnknownAgent(ProblemData):
    KIND: ClassVar[str] = "unknown-agent"
    name: str
    suggestions: Sequence[str]


class UnknownCardSkill(ProblemData):
    KIND: ClassVar[str] = "unknown-skill"
    skill: str | None
    suggestions: Sequence[str]


class UnknownProperty(ProblemData):
    KIND: ClassVar[str] = "unknown-property"
    key: str
    suggestions: Sequence[str]
    path: Sequence[str | int]


class UnknownScheme(ProblemData):
    KIND: ClassVar[str] = "unknown-scheme"
    name: str
    suggestions: Sequence[str]


class UnknownToolExtension(ProblemData):
    KIND: ClassVar[str] = "unknown-tool-extension"
    id: str
    suggestions: Sequence[str]


class UnknownPersistence(ProblemData):
    KIND: ClassVar[str] = "unknown-persistence"
    value: str
    allowed: Sequence[str]
    suggestions: Sequence[str]


class UnknownOrchestration(ProblemData):
    KIND: ClassVar[str] = "unknown-orchestration"
    value: str
    allowed: Sequence[str]
    suggestions: Sequence[str]


PROBLEM_DATA: tuple[type[ProblemData], ...] = (
    AgentControlLoop,
    AgentControlOnTerminalState,
    AgentCycle,
    AgentWithoutInstructions,
    ArenaKindUnknown,
    BlankTag,
    BudgetBelowMaxVisits,
    CardsConfig,
    CompositionOnNonCompositionState,
    ConversationalPromptOnNonLlmProvider,
    DefaultNotInEnum,
    DefaultTypeMismatch,
    DependencyCycle,
    DependsOnDisabled,
    DuplicateEvalId,
    DuplicateGovernanceId,
    DuplicatePromptConfigId,
    DuplicatePromptId,
    DuplicateProviderKey,
    DuplicateStepId,
    DuplicateTag,
    DuplicateTaskType,
    DuplicateValidatorId,
    EmptyTags,
    EmptyToolPattern,
    EntryNotMember,
    EntrypointRequired,
    EventNameCase,
    FolderNotId,
    FragmentExpansionTooLarge,
    FragmentIncludeCycle,
    IgnoredKey,
    IncompleteToolName,
    InstructionsReadAsText,
    InvalidValue,
    ListedAndBlocklisted,
    ManifestYmlIgnored,
    MissingDescription,
    MissingProjectFile,
    MissingProperty,
    MisspelledKey,
    ModuleNotFound,
    NoTerminalState,
    NotAMember,
    OnMaxVisitsChain,
    OnMaxVisitsWithoutMaxVisits,
    OptionalProviderReferenced,
    ProjectFileOutsideRoot,
    ProjectFileWrongKind,
    PromptConfigIdNotTaskType,
    PromptId,
    PromptStepOnNonLlmProvider,
    RefusedCheckParams,
    RenamedProperty,
    RequiredVariableWithDefault,
    SelfReference,
    SkillNotFound,
    SkillOutside,
    StateWithoutExit,
    StateWithoutTransitions,
    StepCycle,
    TerminalWithTransitions,
    ToolChoice,
    ToolIsMember,
    ToolName,
    UnbalancedBraces,
    UndeclaredArtifact,
    UndeclaredVariable,
    UndeclaredVocabularyPrefix,
    UndefinedComposition,
    UndefinedControlEval,
    UndefinedControlField,
    UndefinedControlValidator,
    UndefinedEval,
    UndefinedFragment,
    UndefinedObligation,
    UndefinedOwnObligation,
    UndefinedPrompt,
    UndefinedProvider,
    UndefinedState,
    UndefinedStep,
    UndefinedStepEval,
    UndefinedStepTool,
    UndefinedTool,
    UnknownAgent,
    UnknownBlocklistedTool,
    UnknownCardSkill,
    UnknownExtension,
    UnknownOrchestration,
    UnknownPersistence,
    UnknownPersona,
    UnknownProperty,
    UnknownProvider,
    UnknownProviderRole,
    UnknownScenarioTaskType,
    UnknownScheme,
    UnknownToolExtension,
    UnknownVocabularyTerm,
    UnreachableAgent,
    UnreachableState,
    UnreachableStep,
    UnresolvedNamespacedTool,
    UnresolvedStepReference,
    UnusedFragment,
    UnusedTool,
    UnusedVariable,
    WorkflowVersion,
    Yaml11Reading,
)
