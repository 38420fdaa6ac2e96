"""What a diagnostic's ``data`` says, as one typed class per kind of problem.

A diagnostic's ``data`` holds plain facts about the problem and is sent to editors as
the LSP diagnostic's ``data``. A rule builds it as an object of one of the classes
below, as it builds a fix's payload (``core/base/fixes.py``): the fields are named
and typed, so a misspelt key or a missing fact is a type error, not a silently
different message to editors. Each object *is* the mapping editors receive: ``kind``
first (the class's ``KIND``), then its fields in declaration order, an ``optional``
field left out while it is None; ``make`` keeps that mapping, so what is sent is what
a hand-written dict with the same keys in the same order would send.

A kind whose data is not built from a class yet is still written as a dict with a
``"kind"`` key; ``PROBLEM_DATA`` lists the classes. Two classes share a ``KIND`` when
one kind of problem is reported with two sets of facts (``undefined-obligation``).
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


@dataclass(frozen=True, slots=True, kw_only=True)
class ProblemData(Mapping[str, object]):
    """The facts of one kind of problem; read as the mapping sent to editors."""

    KIND: ClassVar[str]

    def _present(self) -> Iterator[str]:
        for f in dataclasses.fields(self):
            if not (f.metadata.get("optional") and getattr(self, f.name) is None):
                yield f.name

    def __iter__(self) -> Iterator[str]:
        yield "kind"
        yield from self._present()

    def __len__(self) -> int:
        return 1 + sum(1 for _ in self._present())

    def __getitem__(self, key: str) -> object:
        if key == "kind":
            return self.KIND
        if key in self._present():
            return getattr(self, key)
        raise KeyError(key)


# -------------------------------------------------------------- unresolved names
# A reference the resolver (``core/model/resolve.py``) leaves undefined: the name,
# the names it may have meant (``suggestions``) and where it was written.


@dataclass(frozen=True, slots=True, kw_only=True)
class UndefinedState(ProblemData):
    KIND: ClassVar[str] = "undefined-state"
    name: object
    suggestions: Sequence[str]
    #: The state whose transition names it (None: the workflow's or a member's).
    state: str | None = optional()


@dataclass(frozen=True, slots=True, kw_only=True)
class UndefinedPrompt(ProblemData):
    KIND: ClassVar[str] = "undefined-prompt"
    name: object
    #: The state that runs it (a workflow's ``prompt_task``).
    state: str | None = optional()
    suggestions: Sequence[str]
    #: The composition whose step runs it.
    composition: str | None = optional()


@dataclass(frozen=True, slots=True, kw_only=True)
class UndefinedComposition(ProblemData):
    KIND: ClassVar[str] = "undefined-composition"
    name: str
    state: str
    suggestions: Sequence[str]


@dataclass(frozen=True, slots=True, kw_only=True)
class UndefinedStep(ProblemData):
    KIND: ClassVar[str] = "undefined-step"
    name: str
    suggestions: Sequence[str]
    composition: str


@dataclass(frozen=True, slots=True, kw_only=True)
class UndefinedStepTool(ProblemData):
    KIND: ClassVar[str] = "undefined-step-tool"
    name: str
    suggestions: Sequence[str]
    composition: str


@dataclass(frozen=True, slots=True, kw_only=True)
class UndefinedStepEval(ProblemData):
    KIND: ClassVar[str] = "undefined-step-eval"
    name: str
    suggestions: Sequence[str]
    composition: str


@dataclass(frozen=True, slots=True, kw_only=True)
class UnresolvedStepReference(ProblemData):
    KIND: ClassVar[str] = "unresolved-step-reference"
    name: str
    composition: str
    #: None when the step exists but does not run before the reference.
    suggestions: Sequence[str] | None = optional()


@dataclass(frozen=True, slots=True, kw_only=True)
class UndeclaredArtifact(ProblemData):
    KIND: ClassVar[str] = "undeclared-artifact"
    name: str
    state: str
    prompt: str
    suggestions: Sequence[str]


@dataclass(frozen=True, slots=True, kw_only=True)
class UndeclaredVariable(ProblemData):
    KIND: ClassVar[str] = "undeclared-variable"
    name: str
    prompt: str
    suggestions: Sequence[str]


@dataclass(frozen=True, slots=True, kw_only=True)
class UndefinedFragment(ProblemData):
    KIND: ClassVar[str] = "undefined-fragment"
    name: str
    suggestions: Sequence[str]


@dataclass(frozen=True, slots=True, kw_only=True)
class UndefinedProvider(ProblemData):
    KIND: ClassVar[str] = "undefined-provider"
    name: str
    suggestions: Sequence[str]


@dataclass(frozen=True, slots=True, kw_only=True)
class UndefinedTool(ProblemData):
    KIND: ClassVar[str] = "undefined-tool"
    name: object
    #: For ``a2a__<agent>``: the agent named ("" for a bare ``a2a__``).
    agent: str | None = optional()
    suggestions: Sequence[str]


@dataclass(frozen=True, slots=True, kw_only=True)
class UnknownBlocklistedTool(ProblemData):
    KIND: ClassVar[str] = "unknown-blocklisted-tool"
    name: str
    suggestions: Sequence[str]


@dataclass(frozen=True, slots=True, kw_only=True)
class UndefinedControlValidator(ProblemData):
    KIND: ClassVar[str] = "undefined-control-validator"
    name: str
    suggestions: Sequence[str]


@dataclass(frozen=True, slots=True, kw_only=True)
class UndefinedControlEval(ProblemData):
    KIND: ClassVar[str] = "undefined-control-eval"
    name: str
    suggestions: Sequence[str]


@dataclass(frozen=True, slots=True, kw_only=True)
class UndefinedEval(ProblemData):
    KIND: ClassVar[str] = "undefined-eval"
    name: str
    suggestions: Sequence[str]


@dataclass(frozen=True, slots=True, kw_only=True)
class UndefinedControlField(ProblemData):
    KIND: ClassVar[str] = "undefined-control-field"
    name: str
    suggestions: Sequence[str]


@dataclass(frozen=True, slots=True, kw_only=True)
class UndefinedOwnObligation(ProblemData):
    """``satisfies`` of a review names no obligation of its own governance object."""

    KIND: ClassVar[str] = "undefined-obligation"
    name: str
    suggestions: Sequence[str]


@dataclass(frozen=True, slots=True, kw_only=True)
class UndefinedObligation(ProblemData):
    """``satisfies`` names an obligation the effective object of ``member`` hides."""

    KIND: ClassVar[str] = "undefined-obligation"
    name: str
    #: The member whose effective governance it is resolved in (None: the pack's).
    member: str | None
    suggestions: Sequence[str]


#: Every class of typed data.
PROBLEM_DATA: tuple[type[ProblemData], ...] = (
    UndefinedState,
    UndefinedPrompt,
    UndefinedComposition,
    UndefinedStep,
    UndefinedStepTool,
    UndefinedStepEval,
    UnresolvedStepReference,
    UndeclaredArtifact,
    UndeclaredVariable,
    UndefinedFragment,
    UndefinedProvider,
    UndefinedTool,
    UnknownBlocklistedTool,
    UndefinedControlValidator,
    UndefinedControlEval,
    UndefinedEval,
    UndefinedControlField,
    UndefinedOwnObligation,
    UndefinedObligation,
)
