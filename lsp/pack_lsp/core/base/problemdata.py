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
kept cheap to create (docs/decisions.md, D91): no ``__slots__`` (``slots=True`` makes
``dataclass`` build each class twice, and an object lives only until ``make`` copies
it), no generated ``__eq__`` and ``__hash__`` (an object compares as the mapping it is,
``Mapping.__eq__``), and a docstring per class from its ``KIND`` (``dataclass``
otherwise writes one from ``inspect.signature``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar


def optional() -> Any:
    """A field that is left out of the mapping while it is None (written only when the
    problem has it, as ``**({"state": state} if state is not None else {})`` was)."""
    return dataclasses.field(default=None, metadata={"optional": True})


#: Per class: each field's name and whether it is ``optional`` (``_layout``).
_LAYOUTS: dict[type, tuple[tuple[str, bool], ...]] = {}


def _layout(cls: type) -> tuple[tuple[str, bool], ...]:
    found = _LAYOUTS.get(cls)
    if found is None:
        found = _LAYOUTS[cls] = tuple(
            (f.name, bool(f.metadata.get("optional"))) for f in dataclasses.fields(cls)
        )
    return found


@dataclass(frozen=True, kw_only=True, eq=False)
class ProblemData(Mapping[str, object]):
    """The facts of one kind of problem; read as the mapping sent to editors."""

    KIND: ClassVar[str]

    def __init_subclass__(cls) -> None:
        # Before ``dataclass`` would write one (see the module docstring).
        if not cls.__doc__:
            cls.__doc__ = f"The facts of a problem of kind ``{cls.KIND}``."

    def plain(self) -> dict[str, object]:
        """The mapping as a plain dict (what ``make`` keeps)."""
        out: dict[str, object] = {"kind": self.KIND}
        for name, is_optional in _layout(type(self)):
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


@dataclass(frozen=True, kw_only=True, eq=False)
class UndefinedState(ProblemData):
    KIND: ClassVar[str] = "undefined-state"
    name: object
    suggestions: Sequence[str]
    #: The state whose transition names it (None: the workflow's or a member's).
    state: str | None = optional()


@dataclass(frozen=True, kw_only=True, eq=False)
class UndefinedPrompt(ProblemData):
    KIND: ClassVar[str] = "undefined-prompt"
    name: object
    #: The state that runs it (a workflow's ``prompt_task``).
    state: str | None = optional()
    suggestions: Sequence[str]
    #: The composition whose step runs it.
    composition: str | None = optional()


@dataclass(frozen=True, kw_only=True, eq=False)
class UndefinedComposition(ProblemData):
    KIND: ClassVar[str] = "undefined-composition"
    name: str
    state: str
    suggestions: Sequence[str]


@dataclass(frozen=True, kw_only=True, eq=False)
class UndefinedStep(ProblemData):
    KIND: ClassVar[str] = "undefined-step"
    name: str
    suggestions: Sequence[str]
    composition: str


@dataclass(frozen=True, kw_only=True, eq=False)
class UndefinedStepTool(ProblemData):
    KIND: ClassVar[str] = "undefined-step-tool"
    name: str
    suggestions: Sequence[str]
    composition: str


@dataclass(frozen=True, kw_only=True, eq=False)
class UndefinedStepEval(ProblemData):
    KIND: ClassVar[str] = "undefined-step-eval"
    name: str
    suggestions: Sequence[str]
    composition: str


@dataclass(frozen=True, kw_only=True, eq=False)
class UnresolvedStepReference(ProblemData):
    KIND: ClassVar[str] = "unresolved-step-reference"
    name: str
    composition: str
    #: None when the step exists but does not run before the reference.
    suggestions: Sequence[str] | None = optional()


@dataclass(frozen=True, kw_only=True, eq=False)
class UndeclaredArtifact(ProblemData):
    KIND: ClassVar[str] = "undeclared-artifact"
    name: str
    state: str
    prompt: str
    suggestions: Sequence[str]


@dataclass(frozen=True, kw_only=True, eq=False)
class UndeclaredVariable(ProblemData):
    KIND: ClassVar[str] = "undeclared-variable"
    name: str
    prompt: str
    suggestions: Sequence[str]


@dataclass(frozen=True, kw_only=True, eq=False)
class UndefinedFragment(ProblemData):
    KIND: ClassVar[str] = "undefined-fragment"
    name: str
    suggestions: Sequence[str]


@dataclass(frozen=True, kw_only=True, eq=False)
class UndefinedProvider(ProblemData):
    KIND: ClassVar[str] = "undefined-provider"
    name: str
    suggestions: Sequence[str]


@dataclass(frozen=True, kw_only=True, eq=False)
class UndefinedTool(ProblemData):
    KIND: ClassVar[str] = "undefined-tool"
    name: object
    #: For ``a2a__<agent>``: the agent named ("" for a bare ``a2a__``).
    agent: str | None = optional()
    suggestions: Sequence[str]


@dataclass(frozen=True, kw_only=True, eq=False)
class UnknownBlocklistedTool(ProblemData):
    KIND: ClassVar[str] = "unknown-blocklisted-tool"
    name: str
    suggestions: Sequence[str]


@dataclass(frozen=True, kw_only=True, eq=False)
class UndefinedControlValidator(ProblemData):
    KIND: ClassVar[str] = "undefined-control-validator"
    name: str
    suggestions: Sequence[str]


@dataclass(frozen=True, kw_only=True, eq=False)
class UndefinedControlEval(ProblemData):
    KIND: ClassVar[str] = "undefined-control-eval"
    name: str
    suggestions: Sequence[str]


@dataclass(frozen=True, kw_only=True, eq=False)
class UndefinedEval(ProblemData):
    KIND: ClassVar[str] = "undefined-eval"
    name: str
    suggestions: Sequence[str]


@dataclass(frozen=True, kw_only=True, eq=False)
class UndefinedControlField(ProblemData):
    KIND: ClassVar[str] = "undefined-control-field"
    name: str
    suggestions: Sequence[str]


@dataclass(frozen=True, kw_only=True, eq=False)
class UndefinedOwnObligation(ProblemData):
    """``satisfies`` of a review names no obligation of its own governance object."""

    KIND: ClassVar[str] = "undefined-obligation"
    name: str
    suggestions: Sequence[str]


@dataclass(frozen=True, kw_only=True, eq=False)
class UndefinedObligation(ProblemData):
    """``satisfies`` names an obligation the effective object of ``member`` hides."""

    KIND: ClassVar[str] = "undefined-obligation"
    name: str
    #: The member whose effective governance it is resolved in (None: the pack's).
    member: str | None
    suggestions: Sequence[str]


# ------------------------------------------------------------ the rule families


@dataclass(frozen=True, kw_only=True, eq=False)
class AgentControlLoop(ProblemData):
    KIND: ClassVar[str] = "agent-control-loop"
    states: Sequence[str]


@dataclass(frozen=True, kw_only=True, eq=False)
class AgentControlOnTerminalState(ProblemData):
    KIND: ClassVar[str] = "agent-control-on-terminal-state"
    state: str
    path: Sequence[str | int]
    key: str


@dataclass(frozen=True, kw_only=True, eq=False)
class AgentCycle(ProblemData):
    KIND: ClassVar[str] = "agent-cycle"
    agents: Sequence[str]
    #: How many cycles there are, when more than one is reported at once.
    cycles: int | None = optional()


@dataclass(frozen=True, kw_only=True, eq=False)
class BlankTag(ProblemData):
    KIND: ClassVar[str] = "blank-tag"


@dataclass(frozen=True, kw_only=True, eq=False)
class BudgetBelowMaxVisits(ProblemData):
    KIND: ClassVar[str] = "budget-below-max-visits"
    budget: int
    total: int


@dataclass(frozen=True, kw_only=True, eq=False)
class CardsConfig(ProblemData):
    KIND: ClassVar[str] = "cards-config"


@dataclass(frozen=True, kw_only=True, eq=False)
class CompositionOnNonCompositionState(ProblemData):
    KIND: ClassVar[str] = "composition-on-non-composition-state"
    state: str
    path: Sequence[str | int]
    key: str


@dataclass(frozen=True, kw_only=True, eq=False)
class ConversationalPromptOnNonLlmProvider(ProblemData):
    KIND: ClassVar[str] = "conversational-prompt-on-non-llm-provider"
    name: str


@dataclass(frozen=True, kw_only=True, eq=False)
class DependencyCycle(ProblemData):
    KIND: ClassVar[str] = "dependency-cycle"
    cycle: Sequence[str]


@dataclass(frozen=True, kw_only=True, eq=False)
class DuplicateEvalId(ProblemData):
    KIND: ClassVar[str] = "duplicate-eval-id"
    id: str


@dataclass(frozen=True, kw_only=True, eq=False)
class DuplicateGovernanceId(ProblemData):
    KIND: ClassVar[str] = "duplicate-governance-id"
    name: str


@dataclass(frozen=True, kw_only=True, eq=False)
class DuplicatePromptConfigId(ProblemData):
    KIND: ClassVar[str] = "duplicate-prompt-config-id"
    id: str


@dataclass(frozen=True, kw_only=True, eq=False)
class DuplicatePromptId(ProblemData):
    KIND: ClassVar[str] = "duplicate-prompt-id"
    id: str
    other: str


@dataclass(frozen=True, kw_only=True, eq=False)
class DuplicateProviderKey(ProblemData):
    KIND: ClassVar[str] = "duplicate-provider-key"
    name: str


@dataclass(frozen=True, kw_only=True, eq=False)
class DuplicateStepId(ProblemData):
    KIND: ClassVar[str] = "duplicate-step-id"
    name: str
    composition: str


@dataclass(frozen=True, kw_only=True, eq=False)
class DuplicateTag(ProblemData):
    KIND: ClassVar[str] = "duplicate-tag"
    tag: str


@dataclass(frozen=True, kw_only=True, eq=False)
class DuplicateTaskType(ProblemData):
    KIND: ClassVar[str] = "duplicate-task-type"
    task_type: str


@dataclass(frozen=True, kw_only=True, eq=False)
class DuplicateValidatorId(ProblemData):
    KIND: ClassVar[str] = "duplicate-validator-id"
    name: str


@dataclass(frozen=True, kw_only=True, eq=False)
class EmptyToolPattern(ProblemData):
    KIND: ClassVar[str] = "empty-tool-pattern"
    name: str


@dataclass(frozen=True, kw_only=True, eq=False)
class EntryNotMember(ProblemData):
    KIND: ClassVar[str] = "entry-not-member"
    name: str


@dataclass(frozen=True, kw_only=True, eq=False)
class EntrypointRequired(ProblemData):
    KIND: ClassVar[str] = "entrypoint-required"


@dataclass(frozen=True, kw_only=True, eq=False)
class EventNameCase(ProblemData):
    KIND: ClassVar[str] = "event-name-case"
    name: str
    suggestion: str


@dataclass(frozen=True, kw_only=True, eq=False)
class FragmentIncludeCycle(ProblemData):
    KIND: ClassVar[str] = "fragment-include-cycle"
    name: str
    cycle: Sequence[str]


@dataclass(frozen=True, kw_only=True, eq=False)
class IncompleteToolName(ProblemData):
    KIND: ClassVar[str] = "incomplete-tool-name"
    name: str
    namespace: str


@dataclass(frozen=True, kw_only=True, eq=False)
class ListedAndBlocklisted(ProblemData):
    KIND: ClassVar[str] = "listed-and-blocklisted"
    name: str


@dataclass(frozen=True, kw_only=True, eq=False)
class MissingDescription(ProblemData):
    KIND: ClassVar[str] = "missing-description"
    member: str


@dataclass(frozen=True, kw_only=True, eq=False)
class MissingProjectFile(ProblemData):
    KIND: ClassVar[str] = "missing-project-file"
    file: str


@dataclass(frozen=True, kw_only=True, eq=False)
class MissingProperty(ProblemData):
    KIND: ClassVar[str] = "missing-property"
    property: object
    path: Sequence[str | int]


@dataclass(frozen=True, kw_only=True, eq=False)
class ModuleNotFound(ProblemData):
    KIND: ClassVar[str] = "module-not-found"
    module: str


@dataclass(frozen=True, kw_only=True, eq=False)
class NoTerminalState(ProblemData):
    KIND: ClassVar[str] = "no-terminal-state"
    entry: str


@dataclass(frozen=True, kw_only=True, eq=False)
class NotAMember(ProblemData):
    KIND: ClassVar[str] = "not-a-member"
    prompt: str


@dataclass(frozen=True, kw_only=True, eq=False)
class OnMaxVisitsChain(ProblemData):
    KIND: ClassVar[str] = "on-max-visits-chain"
    state: str
    target: str


@dataclass(frozen=True, kw_only=True, eq=False)
class OnMaxVisitsWithoutMaxVisits(ProblemData):
    KIND: ClassVar[str] = "on-max-visits-without-max-visits"
    state: str


@dataclass(frozen=True, kw_only=True, eq=False)
class OptionalProviderReferenced(ProblemData):
    KIND: ClassVar[str] = "optional-provider-referenced"
    name: str


@dataclass(frozen=True, kw_only=True, eq=False)
class ProjectFileWrongKind(ProblemData):
    KIND: ClassVar[str] = "project-file-wrong-kind"
    expected: str


@dataclass(frozen=True, kw_only=True, eq=False)
class PromptConfigIdNotTaskType(ProblemData):
    KIND: ClassVar[str] = "prompt-config-id-not-task-type"
    task_type: str


@dataclass(frozen=True, kw_only=True, eq=False)
class PromptId(ProblemData):
    KIND: ClassVar[str] = "prompt-id"
    expected: str


@dataclass(frozen=True, kw_only=True, eq=False)
class PromptStepOnNonLlmProvider(ProblemData):
    KIND: ClassVar[str] = "prompt-step-on-non-llm-provider"
    name: str


@dataclass(frozen=True, kw_only=True, eq=False)
class RefusedCheckParams(ProblemData):
    KIND: ClassVar[str] = "refused-check-params"
    type: object
    check: object


@dataclass(frozen=True, kw_only=True, eq=False)
class SelfReference(ProblemData):
    KIND: ClassVar[str] = "self-reference"
    name: str


@dataclass(frozen=True, kw_only=True, eq=False)
class SkillNotFound(ProblemData):
    KIND: ClassVar[str] = "skill-not-found"
    path: Sequence[str | int]


@dataclass(frozen=True, kw_only=True, eq=False)
class SkillOutside(ProblemData):
    KIND: ClassVar[str] = "skill-outside"
    path: Sequence[str | int]


@dataclass(frozen=True, kw_only=True, eq=False)
class StateWithoutExit(ProblemData):
    KIND: ClassVar[str] = "state-without-exit"
    state: str


@dataclass(frozen=True, kw_only=True, eq=False)
class StateWithoutTransitions(ProblemData):
    KIND: ClassVar[str] = "state-without-transitions"
    state: str


@dataclass(frozen=True, kw_only=True, eq=False)
class StepCycle(ProblemData):
    KIND: ClassVar[str] = "step-cycle"
    steps: Sequence[str]
    composition: str


@dataclass(frozen=True, kw_only=True, eq=False)
class TerminalWithTransitions(ProblemData):
    KIND: ClassVar[str] = "terminal-with-transitions"
    state: str


@dataclass(frozen=True, kw_only=True, eq=False)
class ToolIsMember(ProblemData):
    KIND: ClassVar[str] = "tool-and-member"
    name: str
    tool_kept: bool


@dataclass(frozen=True, kw_only=True, eq=False)
class ToolChoice(ProblemData):
    KIND: ClassVar[str] = "tool-choice"
    replacement: str


@dataclass(frozen=True, kw_only=True, eq=False)
class ToolName(ProblemData):
    KIND: ClassVar[str] = "tool-name"
    expected: str


@dataclass(frozen=True, kw_only=True, eq=False)
class UnbalancedBraces(ProblemData):
    KIND: ClassVar[str] = "unbalanced-braces"
    which: str
    name: str


@dataclass(frozen=True, kw_only=True, eq=False)
class UndeclaredVocabularyPrefix(ProblemData):
    KIND: ClassVar[str] = "undeclared-vocabulary-prefix"
    name: str


@dataclass(frozen=True, kw_only=True, eq=False)
class UnknownExtension(ProblemData):
    KIND: ClassVar[str] = "unknown-extension"
    id: str
    suggestions: Sequence[str]


@dataclass(frozen=True, kw_only=True, eq=False)
class UnknownPersona(ProblemData):
    KIND: ClassVar[str] = "unknown-persona"
    name: str


@dataclass(frozen=True, kw_only=True, eq=False)
class UnknownProvider(ProblemData):
    KIND: ClassVar[str] = "unknown-provider"
    name: str


@dataclass(frozen=True, kw_only=True, eq=False)
class UnknownProviderRole(ProblemData):
    KIND: ClassVar[str] = "unknown-provider-role"
    value: object
    suggestions: Sequence[str]


@dataclass(frozen=True, kw_only=True, eq=False)
class UnknownScenarioTaskType(ProblemData):
    KIND: ClassVar[str] = "unknown-scenario-task-type"
    task_type: str


@dataclass(frozen=True, kw_only=True, eq=False)
class UnknownVocabularyTerm(ProblemData):
    KIND: ClassVar[str] = "unknown-vocabulary-term"
    name: str
    prefix: str


@dataclass(frozen=True, kw_only=True, eq=False)
class UnreachableAgent(ProblemData):
    KIND: ClassVar[str] = "unreachable-agent"
    member: str
    callers: Sequence[str]


@dataclass(frozen=True, kw_only=True, eq=False)
class UnreachableState(ProblemData):
    KIND: ClassVar[str] = "unreachable-state"
    state: str


@dataclass(frozen=True, kw_only=True, eq=False)
class UnreachableStep(ProblemData):
    KIND: ClassVar[str] = "unreachable-step"
    name: str
    composition: str


@dataclass(frozen=True, kw_only=True, eq=False)
class UnresolvedNamespacedTool(ProblemData):
    KIND: ClassVar[str] = "unresolved-namespaced-tool"
    name: str


@dataclass(frozen=True, kw_only=True, eq=False)
class UnusedFragment(ProblemData):
    KIND: ClassVar[str] = "unused-fragment"
    name: str


@dataclass(frozen=True, kw_only=True, eq=False)
class UnusedTool(ProblemData):
    KIND: ClassVar[str] = "unused-tool"
    name: str


@dataclass(frozen=True, kw_only=True, eq=False)
class UnusedVariable(ProblemData):
    KIND: ClassVar[str] = "unused-variable"
    name: str
    prompt: str


@dataclass(frozen=True, kw_only=True, eq=False)
class WorkflowVersion(ProblemData):
    KIND: ClassVar[str] = "workflow-version"
    value: object


@dataclass(frozen=True, kw_only=True, eq=False)
class Yaml11Reading(ProblemData):
    KIND: ClassVar[str] = "yaml11-reading"
    text: str
    reading: str


#: Every class of typed data.
# ------------------------------------------------ manifests, arena, cards, schema
# The facts of the manifest, arena-project, card and schema problems.


@dataclass(frozen=True, kw_only=True, eq=False)
class AgentWithoutInstructions(ProblemData):
    KIND: ClassVar[str] = "agent-without-instructions"


@dataclass(frozen=True, kw_only=True, eq=False)
class ArenaKindUnknown(ProblemData):
    KIND: ClassVar[str] = "arena-kind-unknown"
    name: str


@dataclass(frozen=True, kw_only=True, eq=False)
class DefaultNotInEnum(ProblemData):
    KIND: ClassVar[str] = "default-not-in-enum"
    allowed: Sequence[object]
    name: str
    prompt: str


@dataclass(frozen=True, kw_only=True, eq=False)
class DefaultTypeMismatch(ProblemData):
    KIND: ClassVar[str] = "default-type-mismatch"
    type: str
    name: str
    prompt: str


@dataclass(frozen=True, kw_only=True, eq=False)
class DependsOnDisabled(ProblemData):
    KIND: ClassVar[str] = "depends-on-disabled"
    id: str


@dataclass(frozen=True, kw_only=True, eq=False)
class EmptyTags(ProblemData):
    KIND: ClassVar[str] = "empty-tags"
    member: str


@dataclass(frozen=True, kw_only=True, eq=False)
class FolderNotId(ProblemData):
    KIND: ClassVar[str] = "folder-not-id"
    folder: str
    id: str


@dataclass(frozen=True, kw_only=True, eq=False)
class FragmentExpansionTooLarge(ProblemData):
    KIND: ClassVar[str] = "fragment-expansion-too-large"
    size: int
    budget: int
    path: Sequence[str]


@dataclass(frozen=True, kw_only=True, eq=False)
class IgnoredKey(ProblemData):
    KIND: ClassVar[str] = "ignored-key"
    key: str


@dataclass(frozen=True, kw_only=True, eq=False)
class InstructionsReadAsText(ProblemData):
    KIND: ClassVar[str] = "instructions-read-as-text"
    path: str
    exists: bool


@dataclass(frozen=True, kw_only=True, eq=False)
class InvalidValue(ProblemData):
    KIND: ClassVar[str] = "invalid-value"
    path: Sequence[str | int]
    suggestions: Sequence[str]
    allowed: Sequence[str | int | float]


@dataclass(frozen=True, kw_only=True, eq=False)
class ManifestYmlIgnored(ProblemData):
    KIND: ClassVar[str] = "manifest-yml-ignored"


@dataclass(frozen=True, kw_only=True, eq=False)
class MisspelledKey(ProblemData):
    KIND: ClassVar[str] = "misspelled-key"
    key: str
    suggestions: Sequence[str]


@dataclass(frozen=True, kw_only=True, eq=False)
class ProjectFileOutsideRoot(ProblemData):
    KIND: ClassVar[str] = "project-file-outside-root"
    file: object
    root: str | None


@dataclass(frozen=True, kw_only=True, eq=False)
class RenamedProperty(ProblemData):
    KIND: ClassVar[str] = "renamed-property"
    key: str
    renamed: str
    suggestions: Sequence[str]
    path: Sequence[str | int]


@dataclass(frozen=True, kw_only=True, eq=False)
class RequiredVariableWithDefault(ProblemData):
    KIND: ClassVar[str] = "required-variable-with-default"
    name: str
    prompt: str


@dataclass(frozen=True, kw_only=True, eq=False)
class UnknownAgent(ProblemData):
    KIND: ClassVar[str] = "unknown-agent"
    name: str
    suggestions: Sequence[str]


@dataclass(frozen=True, kw_only=True, eq=False)
class UnknownCardSkill(ProblemData):
    KIND: ClassVar[str] = "unknown-skill"
    skill: str | None
    suggestions: Sequence[str]


@dataclass(frozen=True, kw_only=True, eq=False)
class UnknownProperty(ProblemData):
    KIND: ClassVar[str] = "unknown-property"
    key: str
    suggestions: Sequence[str]
    path: Sequence[str | int]


@dataclass(frozen=True, kw_only=True, eq=False)
class UnknownScheme(ProblemData):
    KIND: ClassVar[str] = "unknown-scheme"
    name: str
    suggestions: Sequence[str]


@dataclass(frozen=True, kw_only=True, eq=False)
class UnknownToolExtension(ProblemData):
    KIND: ClassVar[str] = "unknown-tool-extension"
    id: str
    suggestions: Sequence[str]


@dataclass(frozen=True, kw_only=True, eq=False)
class UnknownPersistence(ProblemData):
    KIND: ClassVar[str] = "unknown-persistence"
    value: str
    allowed: Sequence[str]
    suggestions: Sequence[str]


@dataclass(frozen=True, kw_only=True, eq=False)
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
