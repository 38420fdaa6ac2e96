"""Document links (``textDocument/documentLink``), from ``core.language.links``.

A link to a line of the same document is the document's URI with ``#L<line>``, the
form VS Code and other clients open at that line; a file is its ``file:`` URI.
"""

from __future__ import annotations

from lsprotocol import types
from pygls.uris import from_fs_path

from pack_lsp.core.ide.links import document_links
from pack_lsp.server.app import PackServer
from pack_lsp.server.snapshot import ByKind, DocumentSnapshot


def _links(snap: DocumentSnapshot, params: types.DocumentLinkParams) -> list[types.DocumentLink]:
    tooltips = snap.client.link_tooltips
    out = []
    for link in document_links(snap.analysis):
        if link.url is not None:
            target = link.url
        elif link.path is not None:
            target = from_fs_path(str(link.path)) or ""
        elif link.line is not None:
            target = f"{snap.uri.split('#', 1)[0]}#L{link.line + 1}"
        else:
            continue
        if target:
            out.append(
                types.DocumentLink(
                    range=snap.range(link.span),
                    target=target,
                    tooltip=(link.tooltip or None) if tooltips else None,
                )
            )
    return out


LINKS = ByKind(pack=_links)


async def on_document_link(
    ls: PackServer, params: types.DocumentLinkParams
) -> list[types.DocumentLink]:
    return await ls.answer(params.text_document.uri, LINKS, params, [], feature="document links")


def register(server: PackServer) -> None:
    server.feature(
        types.TEXT_DOCUMENT_DOCUMENT_LINK, types.DocumentLinkOptions(resolve_provider=False)
    )(on_document_link)
