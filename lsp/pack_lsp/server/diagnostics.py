"""Diagnostics: conversion to LSP, push or pull (``scheduling`` decides when), re-checks."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.uris import to_fs_path

from pack_lsp.core.analysis import Analysis
from pack_lsp.core.diagnostics import Diagnostic, Severity, Tag
from pack_lsp.core.text import LineIndex, Span
from pack_lsp.server.positions import PositionConverter
from pack_lsp.server.scheduling import AnalysisScheduler

if TYPE_CHECKING:
    from pack_lsp.server.app import DocumentContext, PackServer

log = logging.getLogger(__name__)

_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFORMATION: types.DiagnosticSeverity.Information,
    Severity.HINT: types.DiagnosticSeverity.Hint,
}
_TAGS = {
    Tag.UNNECESSARY: types.DiagnosticTag.Unnecessary,
    Tag.DEPRECATED: types.DiagnosticTag.Deprecated,
}


class DiagnosticsMixin(AnalysisScheduler):
    """Analyses published as diagnostics, or served to a pulling client."""

    #: Diagnostics channel: pulled by the client (``textDocument/diagnostic``) or pushed.
    pull_diagnostics: bool
    #: The client re-pulls on ``workspace/diagnostic/refresh``.
    refresh_support: bool

    def lsp_diagnostics(self, uri: str, result: Analysis) -> list[types.Diagnostic]:
        conv = self.converter
        return [self._convert(uri, result.lines, conv, d) for d in result.diagnostics]

    def _convert(
        self, uri: str, lines: LineIndex, conv: PositionConverter, d: Diagnostic
    ) -> types.Diagnostic:
        related = []
        for r in d.related:
            other = r.path is not None and r.path != to_fs_path(uri)
            if other and r.path is not None and self.manifests is not None:  # its own lines
                where = self.manifests.location(r.path, r.span)
            else:
                where = types.Location(uri=uri, range=conv.range(lines, r.span))
            related.append(types.DiagnosticRelatedInformation(location=where, message=r.message))
        return types.Diagnostic(
            range=conv.range(lines, d.span),
            severity=_SEVERITY[d.severity],
            code=d.code,
            code_description=types.CodeDescription(href=f"{self.rules_url}#{d.code.lower()}"),
            source="pack-lsp",
            message=d.message,
            related_information=related or None,
            tags=[_TAGS[t] for t in d.tags] or None,
            data=_plain(d.data) if d.data else None,
        )

    def publish_result(self, uri: str, version: int | None, result: Analysis | None) -> None:
        """Push the diagnostics of the current version (never for pull clients, never
        older than what was published)."""
        doc = self.documents.get(uri)
        if self.pull_diagnostics or doc is None or doc.version != version:
            return
        last = self.published.get(uri)
        if last is not None and version is not None and version < last:
            return
        self.published[uri] = version
        diagnostics = self.lsp_diagnostics(uri, result) if result is not None else []
        if result is None and last is None:
            return  # not a PromptPack: leave the document alone
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version)
        )

    def recheck_all(self) -> None:
        """Results may change without an edit (settings, files on disk): re-analyse.

        Every open document is analysed again from scratch; push clients get the new
        diagnostics, pull clients are asked to pull again
        (``workspace/diagnostic/refresh``) when they can be.
        """
        for uri in list(self.tracks):
            self.document_changed(uri, reuse=False, at_once=not self.pull_diagnostics)
        self.refresh_diagnostics()

    def refresh_diagnostics(self) -> None:
        """Ask a pull client to pull diagnostics again, if it declared refresh support."""
        if not (self.pull_diagnostics and self.refresh_support):
            return
        try:
            self.workspace_diagnostic_refresh(None)
        except Exception:
            log.exception("cannot send workspace/diagnostic/refresh")


def choose_diagnostics_channel(ls: PackServer, caps: types.ClientCapabilities) -> None:
    """One channel per client, so that no problem is shown twice.

    LSP 3.17 has two ways to deliver diagnostics: the server pushes
    ``textDocument/publishDiagnostics``, or the client pulls with
    ``textDocument/diagnostic`` when the server declares ``diagnosticProvider``.
    A client that supports pull (it declares ``textDocument.diagnostic``) keeps both
    result sets side by side (VS Code, Neovim 0.10+), so serving both shows every
    problem twice. Pull clients therefore get the provider and no push; the rest get
    push and no provider. The provider is registered here, inside ``initialize``,
    because pygls computes the server capabilities after this handler returns.
    """
    ls.pull_diagnostics = get_capability(caps, "text_document.diagnostic") is not None
    ls.refresh_support = get_capability(caps, "workspace.diagnostics.refresh_support", False)
    if ls.pull_diagnostics and types.TEXT_DOCUMENT_DIAGNOSTIC not in ls.protocol.fm.features:
        _register_pull(ls)


def _register_pull(server: PackServer) -> None:
    @server.feature(
        types.TEXT_DOCUMENT_DIAGNOSTIC,
        types.DiagnosticOptions(
            identifier="pack-lsp", inter_file_dependencies=False, workspace_diagnostics=False
        ),
    )
    async def pull_diagnostics(
        ls: PackServer, params: types.DocumentDiagnosticParams
    ) -> types.DocumentDiagnosticReport:
        def compute(doc: DocumentContext) -> types.DocumentDiagnosticReport:
            return types.RelatedFullDocumentDiagnosticReport(
                items=ls.lsp_diagnostics(doc.uri, doc.analysis)
            )

        empty: types.DocumentDiagnosticReport = types.RelatedFullDocumentDiagnosticReport(items=[])
        return await ls.answer(
            params.text_document.uri, compute, empty, feature="diagnostics", diagnostics=True
        )


def _plain(value: Any) -> Any:
    """JSON-ready copy of diagnostic data (mapping proxies, tuples, spans)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_plain(v) for v in value]
    if isinstance(value, Span):
        return {"start": value.start, "end": value.end}
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)
