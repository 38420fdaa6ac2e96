"""Diagnostics: conversion to LSP, push or pull (``scheduling`` decides when), re-checks."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.uris import to_fs_path

from pack_lsp.core.base.diagnostics import Diagnostic, Related, Severity, Tag
from pack_lsp.core.base.text import LineIndex, Span
from pack_lsp.core.checks.analysis import Analysis
from pack_lsp.server import baseline
from pack_lsp.server.positions import PositionConverter
from pack_lsp.server.protocol import PackProtocol, converter
from pack_lsp.server.scheduling import AnalysisScheduler
from pack_lsp.server.snapshot import ByKind, DocumentSnapshot

if TYPE_CHECKING:
    from pack_lsp.server.app import PackServer

log = logging.getLogger(__name__)

_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFORMATION: types.DiagnosticSeverity.Information,
    Severity.HINT: types.DiagnosticSeverity.Hint,
}
#: Types whose values are their own JSON (``_plain``'s fast path).
_JSON_SCALARS = frozenset({str, int, float, bool, type(None)})
#: The converter between lsprotocol objects and their JSON (the protocol's).
_CONVERTER = converter()
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
    #: Per document: the rules URL and, by identity of each core diagnostic last
    #: converted, the object and its JSON without positions (``diagnostics_json``).
    _diagnostic_json: dict[str, tuple[str, dict[int, tuple[Diagnostic, dict[str, Any]]]]]

    def lsp_diagnostics(self, uri: str, result: Analysis) -> list[types.Diagnostic]:
        """The diagnostics of ``result`` as lsprotocol objects (``diagnostics_json``)."""
        return [
            _CONVERTER.structure(d, types.Diagnostic) for d in self.diagnostics_json(uri, result)
        ]

    def diagnostics_json(self, uri: str, result: Analysis) -> list[dict[str, Any]]:
        """The diagnostics of ``result`` as the JSON of LSP diagnostics.

        Built as JSON, not as lsprotocol objects that the serialiser would then walk
        again (at 70,000 lines, with ~400 diagnostics, that took ~30 ms per
        publication on the event loop). Incremental analysis keeps the diagnostic
        objects of what an edit did not touch, so everything but the positions is
        kept per object from the last conversion for the same document and reused;
        positions are always computed again, since the text before them may have
        changed.
        """
        conv = self.converter
        lines = result.lines
        old_url, old = self._diagnostic_json.get(uri, ("", {}))
        if old_url != self.rules_url:
            old = {}
        fresh: dict[int, tuple[Diagnostic, dict[str, Any]]] = {}
        fs_path = to_fs_path(uri)
        out: list[dict[str, Any]] = []
        for d in result.diagnostics:
            hit = old.get(id(d))
            fixed = hit[1] if hit is not None and hit[0] is d else self._fixed_json(d)
            fresh[id(d)] = (d, fixed)
            item = {"range": conv.range_json(lines, d.span), **fixed}
            if d.related:
                item["relatedInformation"] = [
                    self._related_json(uri, fs_path, lines, conv, r) for r in d.related
                ]
            out.append(item)
        self._diagnostic_json[uri] = (self.rules_url, fresh)
        if result.config.baseline:
            out, problem = baseline.apply(
                fs_path, result, out, getattr(self, "baseline_mode", "hint")
            )
            if problem is not None:
                self.show_once(problem)
        return out

    def _fixed_json(self, d: Diagnostic) -> dict[str, Any]:
        """The JSON of everything of ``d`` that does not depend on positions."""
        item: dict[str, Any] = {
            "severity": int(_SEVERITY[d.severity]),
            "code": d.code,
            "codeDescription": {"href": f"{self.rules_url}#{d.code.lower()}"},
            "source": "pack-lsp",
            "message": d.message,
        }
        if d.tags:
            item["tags"] = [int(_TAGS[t]) for t in d.tags]
        if d.data:
            item["data"] = _plain(d.data)
        return item

    def _related_json(
        self,
        uri: str,
        fs_path: str | None,
        lines: LineIndex,
        conv: PositionConverter,
        r: Related,
    ) -> dict[str, Any]:
        if r.path is not None and r.path != fs_path and self.manifests is not None:
            location = _CONVERTER.unstructure(self.workspace_index.location(r.path, r.span))
        else:
            location = {"uri": uri, "range": conv.range_json(lines, r.span)}
        return {"location": location, "message": r.message}

    def close_document(self, uri: str) -> None:
        super().close_document(uri)
        self._diagnostic_json.pop(uri, None)

    def forget_converted(self, uri: str) -> None:
        """Drop what ``diagnostics_json`` kept of ``uri`` unless it is open (a file
        checked for the workspace diagnostics is converted once)."""
        if uri not in self.documents:
            self._diagnostic_json.pop(uri, None)

    def publish_result(self, uri: str, version: int | None, result: Analysis | None) -> None:
        """Push the diagnostics of the current version (never for pull clients, never
        older than what was published)."""
        doc = self.documents.get(uri)
        if self.pull_diagnostics or doc is None or doc.version != version:
            return
        known = uri in self.published
        last = self.published.get(uri)
        if last is not None and version is not None and version < last:
            return
        self.published[uri] = version
        if result is None and not known:
            return  # not a PromptPack: leave the document alone
        items = self.diagnostics_json(uri, result) if result is not None else []
        params: dict[str, Any] = {"uri": uri, "diagnostics": items}
        if version is not None:
            params["version"] = version
        protocol = self.protocol
        assert isinstance(protocol, PackProtocol)
        protocol.notify_json(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, params)

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
        if ls.workspace_diagnostics:
            # ``workspaceDiagnostics`` in ``initializationOptions``: the provider
            # declares workspace diagnostics (pygls does when the handler is there).
            ls.feature(types.WORKSPACE_DIAGNOSTIC)(workspace_diagnostics)


def _pulled(snap: DocumentSnapshot, params: types.DocumentDiagnosticParams) -> Analysis | None:
    """The analysis whose diagnostics are pulled; the server converts them (its
    conversion keeps per-document state, ``diagnostics_json``)."""
    return snap.analysis


_PULLED = ByKind(pack=_pulled)


async def pull_diagnostics(
    ls: PackServer, params: types.DocumentDiagnosticParams
) -> types.DocumentDiagnosticReport:
    """``textDocument/diagnostic``: the diagnostics of the current version."""
    uri = params.text_document.uri
    empty: types.DocumentDiagnosticReport = types.RelatedFullDocumentDiagnosticReport(items=[])
    result = await ls.answer(uri, _PULLED, params, None, feature="diagnostics", diagnostics=True)
    if result is None:
        return empty
    try:
        return types.RelatedFullDocumentDiagnosticReport(items=ls.lsp_diagnostics(uri, result))
    except Exception as exc:
        ls.request_failed("diagnostics", uri, exc)
        return empty


async def workspace_diagnostics(
    ls: PackServer, params: types.WorkspaceDiagnosticParams
) -> types.WorkspaceDiagnosticReport:
    """``workspace/diagnostic``: the problems of the pack files that are not open
    (``server.workspace_problems``)."""
    problems = ls.workspace_index.problems
    if problems is None:
        return types.WorkspaceDiagnosticReport(items=[])
    return await problems.report(params)


def _register_pull(server: PackServer) -> None:
    server.feature(
        types.TEXT_DOCUMENT_DIAGNOSTIC,
        types.DiagnosticOptions(
            identifier="pack-lsp", inter_file_dependencies=False, workspace_diagnostics=False
        ),
    )(pull_diagnostics)


def _plain(value: Any) -> Any:
    """JSON-ready copy of diagnostic data (mapping proxies, tuples, spans)."""
    kind = type(value)
    if kind in _JSON_SCALARS:
        return value
    if kind is MappingProxyType or kind is dict:
        return {str(k): _plain(v) for k, v in value.items()}
    if kind is tuple or kind is list:
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_plain(v) for v in value]
    if isinstance(value, Span):
        return {"start": value.start, "end": value.end}
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)
