"""Files re-checked because another file changed (cross-file rules: manifests, arena
projects), open in the editor or not.

An open file is analysed again through the scheduler (published or refreshed as any
edit is); a file that is not open is read (from disk, safely) and, for a push client,
analysed and published at once; a pull client is asked to refresh.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.uris import from_fs_path

from pack_lsp.core.base.source import decode, read_source, strip_bom
from pack_lsp.core.checks.analysis import Analysis

if TYPE_CHECKING:
    from pack_lsp.server.app import PackServer

log = logging.getLogger(__name__)

#: How a file that is not open is analysed: (text, path, uri) → its analysis.
Analyse = Callable[[str, str, str], Analysis]


def text_of(server: PackServer, path: str) -> str | None:
    """The open buffer of ``path``, else the file on disk (read safely), else None."""
    uri = from_fs_path(path) or Path(path).as_uri()
    doc = server.documents.get(uri)
    if doc is not None:
        return strip_bom(doc.text)
    try:
        return decode(read_source(path))[0]
    except (OSError, ValueError):
        return None


def recheck(server: PackServer, paths: Iterable[str], analyse: Analyse) -> None:
    """Re-check ``paths`` (files whose problems depend on a change elsewhere)."""
    for path in sorted(paths):
        uri = from_fs_path(path) or Path(path).as_uri()
        if uri in server.documents:
            server.document_changed(uri, reuse=False, at_once=not server.pull_diagnostics)
        elif not server.pull_diagnostics:
            _publish_unopened(server, uri, path, analyse)
    server.refresh_diagnostics()


def _publish_unopened(server: PackServer, uri: str, path: str, analyse: Analyse) -> None:
    text = text_of(server, path)
    if text is None:
        return
    try:
        result = analyse(text, path, uri)
        server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=server.lsp_diagnostics(uri, result))
        )
    except Exception as exc:
        log.exception("re-check failed for %s", uri)
        server.log_message(f"pack-lsp: re-check failed for {uri}: {exc}", types.MessageType.Error)
