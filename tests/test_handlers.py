"""Feature handlers never receive the server object: each takes the request's snapshot
and its params, and returns its result (``server.snapshot``, D78).

The handlers are found the way the server finds them: every ``ByKind`` of every
module of ``app.FEATURE_MODULES``. Their signatures are read, and a request is
answered through ``PackServer.answer`` with a handler that records what it got.
"""

from __future__ import annotations

import importlib
import inspect
import typing
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from pack_lsp.server import arena_calls, symbols
from pack_lsp.server.app import FEATURE_MODULES
from pack_lsp.server.snapshot import ByKind, ClientFeatures, DocumentSnapshot
from pack_lsp.server.workspace import WorkspaceSnapshot
from recording_server import recording_server

PACK = """\
id: p
name: P
version: 1.0.0
template_engine: {version: v1, syntax: "{{variable}}"}
prompts:
  a:
    id: a
    name: A
    version: 1.0.0
    system_template: Hello.
"""


def _handlers() -> list[tuple[str, Any]]:
    found: list[tuple[str, Any]] = []
    for name in FEATURE_MODULES:
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            if not isinstance(value, ByKind):
                continue
            for kind in ("pack", "manifest", "arena"):
                handler = getattr(value, kind)
                if handler is not None:
                    found.append((f"{name}.{attr}.{kind}", handler))
    return found


#: Names the modules import for type checking only.
_LOCAL = {"WorkspaceSnapshot": WorkspaceSnapshot}


def _is_server(hint: Any) -> bool:
    return inspect.isclass(hint) and issubclass(hint, LanguageServer)


def test_every_feature_handler_takes_a_snapshot_and_params_only() -> None:
    handlers = _handlers()
    assert len(handlers) >= 30  # every feature module declares its handlers in a ByKind
    for where, handler in handlers:
        params = list(inspect.signature(handler).parameters.values())
        assert len(params) == 2, where
        hints = typing.get_type_hints(handler, localns=_LOCAL)
        assert hints[params[0].name] is DocumentSnapshot, where
        assert not any(_is_server(h) for h in hints.values()), where


def test_what_a_handler_reads_holds_no_server() -> None:
    """Neither the snapshot nor what it holds is typed as a server or reaches one."""
    for cls in (DocumentSnapshot, ClientFeatures, WorkspaceSnapshot):
        hints = typing.get_type_hints(cls, localns=_LOCAL)
        assert not any(_is_server(h) for h in hints.values()), cls
    for handler in (arena_calls.incoming, arena_calls.outgoing):
        hints = typing.get_type_hints(handler, localns=_LOCAL)
        first = next(iter(inspect.signature(handler).parameters))
        assert hints[first] is WorkspaceSnapshot
        assert not any(_is_server(h) for h in hints.values())


def test_the_workspace_symbol_search_reads_a_snapshot(tmp_path: Path) -> None:
    """workspace/symbol is answered by ``_search`` from a ``SymbolSearch`` taken on the
    event loop: the server object reaches neither."""
    hints = typing.get_type_hints(symbols._search)
    assert hints["snap"] is symbols.SymbolSearch
    assert not any(_is_server(h) for h in hints.values())
    assert not any(_is_server(h) for h in typing.get_type_hints(symbols.SymbolSearch).values())
    pack = tmp_path / "shop.promptpack.yaml"
    pack.write_text(
        "id: shop\nname: Shop\nversion: 1.0.0\n"
        'template_engine: {version: v1, syntax: "{{variable}}"}\n'
        "prompts:\n  refund_desk: {id: refund_desk, name: Refunds, version: 1.0.0, "
        "system_template: Hi}\n",
        encoding="utf-8",
    )
    from pack_lsp.core.ide.symbols import WorkspaceSymbols

    snap = symbols.SymbolSearch(None, {}, WorkspaceSymbols(), (tmp_path,), {})
    found = symbols._search(snap, types.WorkspaceSymbolParams(query="refund"))
    assert [s.name for s in found] == ["refund_desk"]


async def test_answer_calls_the_handler_with_the_snapshot_and_the_params(tmp_path: Path) -> None:
    server, _, _ = recording_server(tmp_path)
    server.pull_diagnostics = True  # nothing to push: no client is connected
    uri = (tmp_path / "p.promptpack.yaml").as_uri()
    server.open_document(types.TextDocumentItem(uri, "yaml", 1, PACK))
    server.track_document(uri)
    got: list[tuple[Any, ...]] = []

    def record(*args: Any) -> str:
        got.append(args)
        return "answered"

    params = types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=types.Position(line=0, character=0),
    )
    try:
        answer = await server.answer(uri, ByKind(pack=record), params, "empty", at=params.position)
    finally:
        server.untrack_document(uri)
    assert answer == "answered"
    ((snap, passed),) = got
    assert isinstance(snap, DocumentSnapshot) and passed is params
    assert snap.uri == uri and snap.version == 1 and snap.analysis.pack is not None
    assert isinstance(snap.workspace, WorkspaceSnapshot)
    assert not any(isinstance(v, LanguageServer) for v in (snap, passed))
