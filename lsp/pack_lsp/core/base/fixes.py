"""What a quick fix needs, as one typed payload per kind of fix.

A rule that offers a fix builds its payload where it reports the diagnostic
(``make(RULE, message, span, fixes=(ReplaceValue(span, "auto"),))``): the payload
says exactly what to change — the characters to replace when they are not the
diagnostic's own span, the names to insert — so the handler in
``core/ide/codeactions.py`` computes edits from it without guessing. Each
payload class names its ``FixKind``; a rule lists the kinds it offers in
``Rule.fixes``, and a test keeps the payloads a rule builds and its declaration in
step.

Payloads are frozen, hashable and picklable (diagnostics cross process boundaries
in ``pack-lsp --check``). A span in a payload is an offset into the analysed text,
except ``RenameConfigKey.target``, which is an offset into the configuration file.
``moved`` gives the payload after an edit elsewhere in the text moved its spans
(incremental analysis), or ``None`` when a span it needs was edited.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, TypeVar

from pack_lsp.core.base.text import Span

#: Where a span lands after an edit (``None``: it was inside the edited text).
SpanMove = Callable[[Span], Span | None]


class _Targeted(Protocol):
    """A payload dataclass with a ``target`` span."""

    __dataclass_fields__: ClassVar[dict[str, Any]]

    @property
    def target(self) -> Span: ...


_T = TypeVar("_T", bound=_Targeted)


def _with_target_moved(fix: _T, move: SpanMove) -> _T | None:
    """``fix`` with its ``target`` moved, itself when the target did not move, ``None``
    when the target was edited: ``moved`` of the payloads whose only span is their
    target."""
    target = move(fix.target)
    if target is None:
        return None
    return fix if target == fix.target else dataclasses.replace(fix, target=target)


class FixKind(enum.Enum):
    """A kind of quick fix. Each rule lists the kinds it offers (``Rule.fixes``);
    each kind has one payload class below and one handler in
    ``core/ide/codeactions.py``."""

    REPLACE_WITH_SUGGESTION = "replace-with-suggestion"
    """Replace a name with each of a few did-you-mean suggestions (``ReplaceWithSuggestion``)."""
    REPLACE_VALUE = "replace-value"
    """Replace a value with the one the rule expects (``ReplaceValue``)."""
    RENAME_EVENT = "rename-event"
    """Rename a workflow event (``RenameEvent``)."""
    CREATE_TOOL = "create-tool"
    """Add a tool definition to the pack's ``tools`` (``CreateTool``)."""
    ADD_MEMBER = "add-member"
    """Add a prompt to ``agents.members`` (``AddMember``)."""
    DECLARE_VARIABLE = "declare-variable"
    """Declare a template variable in a prompt (``DeclareVariable``)."""
    RAISE_SCHEMA = "raise-schema"
    """Set ``$schema`` to a newer version (``RaiseSchema``)."""
    REMOVE_ENTRY = "remove-entry"
    """Delete an inert entry (``RemoveEntry``)."""
    RENAME_CONFIG_KEY = "rename-config-key"
    """Rename a key of the ``.pack-lsp.toml`` file (``RenameConfigKey``)."""
    QUOTE_SCALAR = "quote-scalar"
    """Quote a plain scalar so every YAML loader reads it as a string (``QuoteScalar``)."""


class Quote(enum.Enum):
    """How a replacement name is written at its target."""

    SCALAR = "scalar"
    """The target is a whole YAML or JSON scalar: the new name keeps its quote style
    (and gets quotes when it could not be written plain)."""
    BARE = "bare"
    """The target is a name inside a template placeholder: written as it is."""


@dataclass(frozen=True, slots=True)
class ReplaceWithSuggestion:
    """Replace the characters of ``target`` with each suggestion (the first preferred)."""

    kind: ClassVar[FixKind] = FixKind.REPLACE_WITH_SUGGESTION
    target: Span
    suggestions: tuple[str, ...]
    quote: Quote = Quote.SCALAR

    def moved(self, move: SpanMove) -> ReplaceWithSuggestion | None:
        return _with_target_moved(self, move)


@dataclass(frozen=True, slots=True)
class ReplaceValue:
    """Replace the scalar at ``target`` with ``replacement`` (keeping its quote style)."""

    kind: ClassVar[FixKind] = FixKind.REPLACE_VALUE
    target: Span
    replacement: str

    def moved(self, move: SpanMove) -> ReplaceValue | None:
        return _with_target_moved(self, move)


@dataclass(frozen=True, slots=True)
class RenameEvent:
    """Rename the event whose name is the scalar at ``target`` to ``name``."""

    kind: ClassVar[FixKind] = FixKind.RENAME_EVENT
    target: Span
    name: str

    def moved(self, move: SpanMove) -> RenameEvent | None:
        return _with_target_moved(self, move)


@dataclass(frozen=True, slots=True)
class CreateTool:
    """Add a definition of tool ``name`` to the pack's ``tools``."""

    kind: ClassVar[FixKind] = FixKind.CREATE_TOOL
    name: str

    def moved(self, move: SpanMove) -> CreateTool:
        return self


@dataclass(frozen=True, slots=True)
class AddMember:
    """Add prompt ``prompt`` to ``agents.members``."""

    kind: ClassVar[FixKind] = FixKind.ADD_MEMBER
    prompt: str

    def moved(self, move: SpanMove) -> AddMember:
        return self


@dataclass(frozen=True, slots=True)
class DeclareVariable:
    """Declare variable ``name`` in each prompt of ``prompts`` (one fix per prompt)."""

    kind: ClassVar[FixKind] = FixKind.DECLARE_VARIABLE
    name: str
    prompts: tuple[str, ...]

    def moved(self, move: SpanMove) -> DeclareVariable:
        return self


@dataclass(frozen=True, slots=True)
class RaiseSchema:
    """Set the pack's ``$schema`` to ``url``, the schema of PromptPack ``version``."""

    kind: ClassVar[FixKind] = FixKind.RAISE_SCHEMA
    version: str
    url: str

    def moved(self, move: SpanMove) -> RaiseSchema:
        return self


@dataclass(frozen=True, slots=True)
class RemoveEntry:
    """Delete the mapping entry at ``path`` (keys from the document's root), shown as
    ``key``. Built only when the entry may go without changing what the pack means."""

    kind: ClassVar[FixKind] = FixKind.REMOVE_ENTRY
    path: tuple[str | int, ...]
    key: str

    def moved(self, move: SpanMove) -> RemoveEntry:
        return self


@dataclass(frozen=True, slots=True)
class RenameConfigKey:
    """Rename a key of the configuration file ``path`` to each suggestion.

    ``targets`` are the places the key is written in that file's text as it was
    read (a table header, the headers of its sub-tables, dotted keys), and
    ``written`` the characters each covered then; the fix is offered only while the
    file still has them there. Each suggestion replaces every target.
    """

    kind: ClassVar[FixKind] = FixKind.RENAME_CONFIG_KEY
    path: str
    targets: tuple[Span, ...]
    written: tuple[str, ...]
    suggestions: tuple[str, ...]

    def moved(self, move: SpanMove) -> RenameConfigKey:
        return self  # spans of another file: edits of the document do not move them


@dataclass(frozen=True, slots=True)
class QuoteScalar:
    """Write the plain scalar at ``target`` (whose text is ``text``) in double quotes."""

    kind: ClassVar[FixKind] = FixKind.QUOTE_SCALAR
    target: Span
    text: str

    def moved(self, move: SpanMove) -> QuoteScalar | None:
        return _with_target_moved(self, move)


FixData = (
    ReplaceWithSuggestion
    | ReplaceValue
    | RenameEvent
    | CreateTool
    | AddMember
    | DeclareVariable
    | RaiseSchema
    | RemoveEntry
    | RenameConfigKey
    | QuoteScalar
)
"""Any fix payload."""

PAYLOADS: tuple[type[FixData], ...] = (
    ReplaceWithSuggestion,
    ReplaceValue,
    RenameEvent,
    CreateTool,
    AddMember,
    DeclareVariable,
    RaiseSchema,
    RemoveEntry,
    RenameConfigKey,
    QuoteScalar,
)
"""Every payload class, one per ``FixKind``."""


def suggest(
    target: Span, suggestions: Iterable[str], quote: Quote = Quote.SCALAR
) -> tuple[ReplaceWithSuggestion, ...]:
    """The did-you-mean fix for the name at ``target``: none without a suggestion."""
    found = tuple(suggestions)
    return (ReplaceWithSuggestion(target, found, quote),) if found else ()
