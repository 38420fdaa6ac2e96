"""What a request reads: one frozen snapshot of a document, and handlers by kind.

``PackServer.answer`` builds a ``DocumentSnapshot`` once per request: the document's
uri and version, the analysis that answers (for a position in a Kubernetes manifest,
that of the pack embedded there), its kind, the position converter, what the client
takes (``ClientFeatures``) and the other files of the workspace
(``WorkspaceSnapshot``). Everything in it is computed once, whole, before a handler
reads it (``core.context.Derived``: the template scan right after the hand-over,
under that document's own lock, D43); handlers only read it.

A handler is ``(snapshot, params) -> result``: it never sees the server object, so
what it answers depends on the snapshot and the request only (D78).

A feature declares its handlers in a ``ByKind``: one for PromptPacks (and for every
kind without a handler of its own, whose analysis has no pack and mostly answers
nothing) and, when they are answered differently, one for agent-extension manifests
and one for the documents of arena projects. ``answer`` picks the handler from the
snapshot's kind: that is the one place where the kinds are told apart.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Generic, TypeVar

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from pack_lsp.core.base import kinds
from pack_lsp.core.base.text import LineIndex, Span
from pack_lsp.core.checks.analysis import Analysis
from pack_lsp.server.positions import PositionConverter

if TYPE_CHECKING:
    from pack_lsp.server.workspace import WorkspaceSnapshot

P = TypeVar("P")
T = TypeVar("T")


class PositionOutsideDocument(JsonRpcInvalidParams):
    """A request position on a line the document does not have.

    LSP clamps a character past the end of its line to the line end, but a line
    beyond the last one means the client and server disagree about the text (a lost
    or refused change); answering "nothing here" would hide that, so the request
    gets an ``InvalidParams`` error instead.
    """


@dataclass(frozen=True, slots=True)
class ClientFeatures:
    """What the client takes, as far as the answers to its requests differ by it:
    from its capabilities (fixed at ``initialize``) and the settings (the defaults:
    a client that declared nothing)."""

    #: Completion items may be snippets (``completionItem.snippetSupport``).
    snippets: bool = False
    #: Formats of completion documentation and of hovers (None: Markdown).
    completion_formats: Sequence[types.MarkupKind] | None = None
    hover_formats: Sequence[types.MarkupKind] | None = None
    #: Workspace edits may be versioned ``documentChanges``.
    document_changes: bool = False
    #: Document links show their tooltip (``documentLink.tooltipSupport``).
    link_tooltips: bool = False
    #: Inlay hint kinds the ``inlayHints`` setting turns off.
    inlay_hints_off: frozenset[str] = frozenset()

    @classmethod
    def of(cls, caps: types.ClientCapabilities, inlay_hints_off: frozenset[str]) -> ClientFeatures:
        td = caps.text_document
        item = td.completion.completion_item if td and td.completion else None
        edit = caps.workspace.workspace_edit if caps.workspace is not None else None
        return cls(
            snippets=bool(item and item.snippet_support),
            completion_formats=item.documentation_format if item else None,
            hover_formats=td.hover.content_format if td and td.hover else None,
            document_changes=bool(edit is not None and edit.document_changes),
            link_tooltips=bool(td and td.document_link and td.document_link.tooltip_support),
            inlay_hints_off=inlay_hints_off,
        )


@dataclass(frozen=True, slots=True)
class DocumentSnapshot:
    """One document version as a request sees it.

    ``analysis`` is the analysis that answers (``kind`` is its kind); offsets are
    core code-point offsets into ``analysis.text``, which for a pack embedded in a
    Kubernetes manifest is the manifest's text (other parts blanked), so spans and
    positions are the manifest's own.
    """

    uri: str
    version: int | None
    kind: str | None
    analysis: Analysis
    converter: PositionConverter
    client: ClientFeatures = field(default_factory=ClientFeatures)
    #: The other files of the workspace (None: none known, as in a core test).
    workspace: WorkspaceSnapshot | None = None

    @classmethod
    def of(
        cls,
        uri: str,
        version: int | None,
        analysis: Analysis,
        converter: PositionConverter,
        client: ClientFeatures | None = None,
        workspace: WorkspaceSnapshot | None = None,
    ) -> DocumentSnapshot:
        return cls(
            uri, version, analysis.kind, analysis, converter, client or ClientFeatures(), workspace
        )

    def with_analysis(self, analysis: Analysis) -> DocumentSnapshot:
        """This request's snapshot answered from another analysis (an embedded pack,
        the compiled pack of an arena project), at the same uri and version."""
        return replace(self, kind=analysis.kind, analysis=analysis)

    def at(self, position: types.Position) -> DocumentSnapshot | None:
        """The snapshot that answers at ``position``: this one, except in a Kubernetes
        manifest, where it is that of the pack embedded there (None outside them)."""
        if self.kind != kinds.KUBERNETES:
            return self
        inner = self.analysis.at(self.offset(position))
        if inner is None:
            return None
        return self.with_analysis(inner)

    @property
    def lines(self) -> LineIndex:
        return self.analysis.lines

    def offset(self, position: types.Position) -> int:
        """The core offset of an LSP position in this document.

        Raises ``PositionOutsideDocument`` for a line past the document's last line.
        """
        lines = self.analysis.lines
        if position.line >= lines.line_count:
            raise PositionOutsideDocument(
                f"position {position.line}:{position.character} is outside {self.uri} "
                f"({lines.line_count} lines)"
            )
        return self.converter.from_lsp(lines, position)

    def position(self, offset: int) -> types.Position:
        return self.converter.to_lsp(self.analysis.lines, offset)

    def range(self, span: Span) -> types.Range:
        return self.converter.range(self.analysis.lines, span)

    def location(self, span: Span) -> types.Location:
        return types.Location(uri=self.uri, range=self.range(span))


Handler = Callable[[DocumentSnapshot, P], T]
"""A feature's answer for one kind: ``(snapshot, request params) -> result``; it runs
on the event loop and must stay cheap."""


@dataclass(frozen=True, slots=True)
class ByKind(Generic[P, T]):
    """A feature's handlers by document kind (see the module docstring)."""

    pack: Handler[P, T]
    """PromptPacks, packs embedded in a Kubernetes manifest, and every other kind
    without a handler here (their analyses have no pack)."""
    manifest: Handler[P, T] | None = None
    """Agent-extension manifests (None: ``pack``, which reads their tree)."""
    arena: Handler[P, T] | None = None
    """Documents of arena projects, PromptKit's own kinds (None: ``pack``); their
    names cross the files of a project (``WorkspaceSnapshot.arena``)."""

    def handler(self, kind: str | None) -> Handler[P, T]:
        if kind == kinds.MANIFEST and self.manifest is not None:
            return self.manifest
        if kind == kinds.ARENA and self.arena is not None:
            return self.arena
        return self.pack
