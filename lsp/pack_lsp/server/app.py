"""Server construction and document lifecycle handlers."""

from __future__ import annotations

import logging
from pathlib import Path

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from pack_lsp import __version__
from pack_lsp.core import documents
from pack_lsp.core.analysis import Analysis, analyze
from pack_lsp.core.config import Config, ConfigError, load_for
from pack_lsp.core.diagnostics import Severity
from pack_lsp.server.positions import PositionConverter

log = logging.getLogger(__name__)

_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFORMATION: types.DiagnosticSeverity.Information,
    Severity.HINT: types.DiagnosticSeverity.Hint,
}


class PackServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("pack-lsp", __version__)
        self.analyses: dict[str, tuple[int | None, Analysis]] = {}

    @property
    def converter(self) -> PositionConverter:
        return PositionConverter(self.workspace.position_encoding)

    def config_for(self, uri: str) -> Config:
        path = to_fs_path(uri)
        try:
            return load_for(Path(path)) if path else Config()
        except ConfigError as exc:
            self.window_show_message(
                types.ShowMessageParams(type=types.MessageType.Warning, message=str(exc))
            )
            return Config()

    def analysis(self, uri: str) -> Analysis | None:
        doc = self.workspace.get_text_document(uri)
        cached = self.analyses.get(uri)
        if cached is not None and cached[0] == doc.version and cached[1].text == doc.source:
            return cached[1]
        path = to_fs_path(uri)
        kind = documents.detect(path or uri, doc.source)
        if kind is None:
            return None
        result = analyze(doc.source, path=path, config=self.config_for(uri), kind=kind)
        self.analyses[uri] = (doc.version, result)
        return result

    def publish(self, uri: str) -> None:
        doc = self.workspace.get_text_document(uri)
        result = self.analysis(uri)
        if result is None:
            return
        conv = self.converter
        diagnostics = [
            types.Diagnostic(
                range=conv.range(result.lines, d.span),
                severity=_SEVERITY[d.severity],
                code=d.code,
                source="pack-lsp",
                message=d.message,
            )
            for d in result.diagnostics
        ]
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=doc.version)
        )


def create_server() -> PackServer:
    server = PackServer()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: PackServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.publish(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: PackServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.publish(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: PackServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.publish(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: PackServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.analyses.pop(params.text_document.uri, None)
        ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[])
        )

    return server
