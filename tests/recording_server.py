"""A ``pack-lsp`` server without a client, for the core tests of its hooks.

The server is created as ``pack-lsp`` creates it; what it would send the client is
recorded instead of written, so a test can drive it without an editor.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.workspace import Workspace

from pack_lsp.server.app import create_server


def recording_server(root: Path) -> tuple[Any, list[types.PublishDiagnosticsParams], list[str]]:
    """A server whose workspace folder is ``root``, with the diagnostics it publishes and
    the URIs it rechecks recorded in the two lists returned with it."""
    server = create_server()
    published: list[types.PublishDiagnosticsParams] = []
    rechecked: list[str] = []
    server.text_document_publish_diagnostics = published.append  # type: ignore[method-assign]
    server.document_changed = lambda uri, **_: rechecked.append(uri)  # type: ignore[method-assign]
    server.refresh_diagnostics = lambda: None  # type: ignore[method-assign]
    server.workspace_folders = lambda: [root]  # type: ignore[method-assign]
    server.protocol._workspace = Workspace(root.as_uri())
    return server, published, rechecked
