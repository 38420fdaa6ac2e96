"""The open documents: pack-lsp keeps its own copy of their text.

LSP breaks lines only at ``\\n``, ``\\r\\n`` and ``\\r``. pygls keeps a copy of
every open document and applies incremental changes to it with Python's
``str.splitlines``, which also breaks at U+2028, U+2029, U+0085 (NEL), form feed,
vertical tab and U+001C-U+001E; a change after such a character would land at
another place in that copy, and the copy would drift from the client's text. So
``pack_lsp.server.protocol`` keeps pygls from touching its copy, and
``DocumentStore`` applies every change with LSP line breaks (``LineIndex``) and
the negotiated position encoding.
"""

from __future__ import annotations

from dataclasses import dataclass

from lsprotocol import types
from pygls.uris import to_fs_path

from pack_lsp.core.base import kinds
from pack_lsp.core.base.source import (
    DEFAULT_MAX_FILE_SIZE,
    decode,
    file_size_setting,
    format_size,
    read_source,
)
from pack_lsp.core.base.text import LineIndex
from pack_lsp.core.checks.analysis import Analysis, analyze
from pack_lsp.core.checks.incremental import reanalyze
from pack_lsp.core.model.config import Config
from pack_lsp.core.model.recognize import detect, still_a_pack
from pack_lsp.server.settings import SettingsMixin


@dataclass(slots=True)
class OpenDocument:
    """The text of an open document as the client last sent it."""

    uri: str
    version: int | None
    text: str
    language_id: str = ""


class DocumentStore(SettingsMixin):
    """Open documents and the files read from disk; ``scheduling`` analyses them."""

    documents: dict[str, OpenDocument]
    #: Per document published for: the newest version published (None: a version
    #: sequence that starts over, after a second didOpen).
    published: dict[str, int | None]
    #: The kind each document was last recognised as (``kind_of``).
    recognized: dict[str, str | None]

    def open_document(self, item: types.TextDocumentItem) -> None:
        self.documents[item.uri] = OpenDocument(item.uri, item.version, item.text, item.language_id)
        if item.uri in self.published:
            # Opened again without a close: its versions start over. What was
            # published stays in the client until the new text's publication
            # replaces it, so the document is still one to publish for.
            self.published[item.uri] = None

    def change_document(self, params: types.DidChangeTextDocumentParams) -> bool:
        """Apply full or incremental changes with the negotiated position encoding.

        False when the change is refused (logged): the text stays as it was.
        """
        uri = params.text_document.uri
        version = params.text_document.version
        doc = self.documents.get(uri)
        if doc is None:
            self.log_message(
                f"pack-lsp: ignored a change to {uri}: the document is not open",
                types.MessageType.Error,
            )
            return False
        if doc.version is not None and version <= doc.version:
            self.log_message(
                f"pack-lsp: ignored a change to {uri}: version {version} is not newer than "
                f"version {doc.version}; keeping the text of version {doc.version}",
                types.MessageType.Error,
            )
            return False
        text = doc.text
        conv = self.converter
        for change in params.content_changes:
            if isinstance(change, types.TextDocumentContentChangePartial):
                # Indexing the lines of a 70,000-line text takes ~25 ms; the analysis
                # of the current text usually has that index already.
                lines = self.known_lines(uri, text) or LineIndex(text)
                rng = change.range
                if max(rng.start.line, rng.end.line) >= lines.line_count:
                    self.log_message(
                        f"pack-lsp: ignored change version {version} of {uri}: range "
                        f"{rng.start.line}:{rng.start.character}-{rng.end.line}:"
                        f"{rng.end.character} is outside the document "
                        f"({lines.line_count} lines); keeping the text of version {doc.version}",
                        types.MessageType.Error,
                    )
                    return False
                # A character past the end of its line means the line end (LSP 3.17).
                start = conv.from_lsp(lines, rng.start)
                end = conv.from_lsp(lines, rng.end)
                if end < start:
                    start, end = end, start
                text = text[:start] + change.text + text[end:]
            else:
                text = change.text
        doc.text = text
        doc.version = version
        return True

    def known_lines(self, uri: str, text: str) -> LineIndex | None:
        """The line index of ``text`` if one is at hand (``scheduling``: its analysis)."""
        return None

    def report_file_size_setting(self) -> None:
        """Say, once, that ``PACK_LSP_MAX_FILE_SIZE`` is not a size: files read from
        disk are then held to the default limit (``read_source``)."""
        problem = file_size_setting()[1]
        if problem is None:
            return
        message = (
            f"pack-lsp: {problem}. Using the default limit, {format_size(DEFAULT_MAX_FILE_SIZE)}"
        )
        self.log_message(message, types.MessageType.Error)
        self.show_once(message, types.MessageType.Error)

    def close_document(self, uri: str) -> None:
        self.documents.pop(uri, None)
        self.published.pop(uri, None)
        self.recognized.pop(uri, None)

    def document(self, uri: str) -> OpenDocument | None:
        doc = self.documents.get(uri)
        if doc is not None:
            return doc
        # Not open: read the file itself through the core's reader, which refuses
        # FIFOs, devices and oversized files (reading those would block or never end).
        path = to_fs_path(uri)
        if not path:
            return None
        try:
            raw = read_source(path)
        except OSError:
            return None
        return OpenDocument(uri, None, decode(raw)[0])

    def kind_of(self, uri: str, text: str) -> str | None:
        """The kind of a document (``core.recognize``). An unnamed file recognised as a
        pack by its parsed top level keeps that kind while its top level still shows
        one (``still_a_pack``), so an edit is not parsed twice."""
        path = to_fs_path(uri) or uri
        if (
            self.recognized.get(uri) == kinds.PROMPTPACK
            and kinds.kind_from_name(path) is None
            and still_a_pack(text)
        ):
            return kinds.PROMPTPACK
        kind = detect(path, text)
        self.recognized[uri] = kind
        return kind

    def _analyze(
        self, uri: str, text: str, previous: Analysis | None, config: Config
    ) -> Analysis | None:
        """The one call of the core's analysis in the server (run in a worker thread).

        ``previous`` is the newest earlier analysis of the same document (None for
        the first one, an unopened file, or after a change of settings or of other
        files); ``reanalyze`` updates it instead of analysing from scratch when the
        edit allows it, with the same result as ``analyze``.
        ``config`` is resolved on the event loop (it may show a message).
        """
        kind = self.kind_of(uri, text)
        if kind is None:
            return None
        workspace = self.workspace_index
        if workspace.depends_on_scan(kind):
            # Its diagnostics depend on other files: never from half an index.
            workspace.wait_ready(kind)
            return self._analyze_kind(uri, text, previous, config, kind)
        with workspace.analysing():  # the workspace scan steps aside meanwhile
            return self._analyze_kind(uri, text, previous, config, kind)

    def _analyze_kind(
        self, uri: str, text: str, previous: Analysis | None, config: Config, kind: str
    ) -> Analysis:
        inputs = self.workspace_index.inputs(uri, manifest=kind == kinds.MANIFEST)
        if inputs.project_problems is not None:
            # A file of an arena project: its project problems come first (a small
            # file, analysed whole).
            return analyze(
                text,
                path=to_fs_path(uri),
                config=config,
                kind=kind,
                pre_diagnostics=list(inputs.project_problems),
            )
        workspace = inputs.manifests
        if previous is None:
            return analyze(
                text, path=to_fs_path(uri), config=config, kind=kind, workspace=workspace
            )
        return reanalyze(
            previous, text, path=to_fs_path(uri), config=config, kind=kind, workspace=workspace
        )
