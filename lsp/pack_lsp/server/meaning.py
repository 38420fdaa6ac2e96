"""What a pack means, over LSP: inlay hints, the rendered prompt and the governance
preview.

- ``textDocument/inlayHint``: ``core.language.inlayhints``; the ``inlayHints``
  setting (``{"provider": false, ...}``) turns kinds off.
- ``workspace/executeCommand`` ``pack-lsp.renderPrompt`` with
  ``[uri, promptKey, {variable: value}?, target?]`` answers ``core.ide.render``'s
  result as JSON plus ``document``, the plain-text view an editor shows (``error``
  says why when the prompt cannot be rendered); ``target`` renders as that deploy
  target's runtime does. With ``[uri]`` alone, ``{"prompts": [keys], "targets":
  [names]}``: the prompts that have a system template to render and the deploy
  targets the document is checked for.
- ``promptpack/governance`` with ``{"textDocument": {"uri"}, "agent"?}`` answers
  ``core.language.governance``'s preview (``error`` when it cannot be made); the
  command ``pack-lsp.showGovernance`` with ``[uri, agent?]`` answers the same.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from pack_lsp.core.base.text import Span
from pack_lsp.core.ide.governance import GovernanceError, governance_preview
from pack_lsp.core.ide.inlayhints import KINDS, inlay_hints
from pack_lsp.core.ide.render import RenderError, render
from pack_lsp.core.model.targets import deploy_targets
from pack_lsp.server.app import PackServer
from pack_lsp.server.snapshot import ByKind, DocumentSnapshot, PositionOutsideDocument

RENDER_PROMPT = "pack-lsp.renderPrompt"
GOVERNANCE = "promptpack/governance"
SHOW_GOVERNANCE = "pack-lsp.showGovernance"


def _hints(snap: DocumentSnapshot, params: types.InlayHintParams) -> list[types.InlayHint]:
    kinds = frozenset(KINDS) - snap.client.inlay_hints_off
    if not kinds:
        return []
    start = snap.offset(params.range.start)
    try:
        end = snap.offset(params.range.end)
    except PositionOutsideDocument:  # a range to the line after the last: the whole rest
        end = len(snap.analysis.text)
    return [
        types.InlayHint(
            position=snap.position(h.offset),
            label=h.label,
            kind=types.InlayHintKind.Type,
            tooltip=h.tooltip,
            padding_left=True,
        )
        for h in inlay_hints(snap.analysis, Span(start, max(start, end)), kinds)
    ]


def _render(snap: DocumentSnapshot, args: tuple[str, dict[str, str], str | None]) -> Any:
    key, values, target = args
    try:
        rendered = render(snap.analysis, key, values, target)
    except RenderError as exc:
        return {"prompt": key, "error": str(exc)}
    out = rendered.to_json()
    out["document"] = rendered.document()
    return out


def _renderable(snap: DocumentSnapshot, params: None) -> Any:
    pack = snap.analysis.pack
    if pack is None:
        return {"prompts": [], "error": "the document is not a PromptPack"}
    return {
        "prompts": [k for k, p in pack.prompts.items() if p.system_template is not None],
        "targets": list(deploy_targets(snap.analysis.config.targets)),
    }


def _governance(snap: DocumentSnapshot, agent: str | None) -> Any:
    try:
        return governance_preview(snap.analysis, agent)
    except GovernanceError as exc:
        return {"pack": None, "agents": {}, "error": str(exc)}


HINTS = ByKind(pack=_hints)
RENDER = ByKind(pack=_render)
RENDERABLE = ByKind(pack=_renderable)
GOVERN = ByKind(pack=_governance)


async def on_inlay_hint(ls: PackServer, params: types.InlayHintParams) -> list[types.InlayHint]:
    return await ls.answer(params.text_document.uri, HINTS, params, [], feature="inlay hints")


def _values(raw: Any) -> dict[str, str] | None:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        return None
    return {str(k): v if isinstance(v, str) else str(v) for k, v in raw.items()}


async def on_render_prompt(ls: PackServer, *args: Any) -> Any:
    if len(args) == 1 and isinstance(args[0], list):  # arguments passed as one list
        args = tuple(args[0])
    if len(args) == 1 and isinstance(args[0], str):
        empty = {"prompts": [], "error": f"{args[0]} is not an open PromptPack"}
        return await ls.answer(args[0], RENDERABLE, None, empty, feature="render prompt")
    if len(args) < 2 or not isinstance(args[0], str) or not isinstance(args[1], str):
        return {"error": USAGE}
    values = _values(args[2] if len(args) > 2 else None)
    if values is None:
        return {"error": "the variables of pack-lsp.renderPrompt must be an object"}
    target = args[3] if len(args) > 3 else None
    if target is not None and not isinstance(target, str):
        return {"error": USAGE}
    empty = {"prompt": args[1], "error": f"{args[0]} is not an open PromptPack"}
    return await ls.answer(
        args[0], RENDER, (args[1], values, target), empty, feature="render prompt"
    )


USAGE = "pack-lsp.renderPrompt takes [uri, promptKey, {variable: value}?, target?]"


def _get(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


async def on_governance(ls: PackServer, params: Any) -> Any:
    doc = _get(params, "textDocument") or _get(params, "text_document")
    uri = _get(doc, "uri")
    agent = _get(params, "agent")
    empty: dict[str, Any] = {"pack": None, "agents": {}}
    if not isinstance(uri, str):
        return empty
    return await ls.answer(
        uri, GOVERN, agent if isinstance(agent, str) else None, empty, feature="governance"
    )


async def on_show_governance(ls: PackServer, *args: Any) -> Any:
    if len(args) == 1 and isinstance(args[0], list):
        args = tuple(args[0])
    if not args or not isinstance(args[0], str):
        return {"pack": None, "agents": {}, "error": "pack-lsp.showGovernance takes [uri, agent?]"}
    agent = args[1] if len(args) > 1 and isinstance(args[1], str) else None
    empty: dict[str, Any] = {"pack": None, "agents": {}}
    return await ls.answer(args[0], GOVERN, agent, empty, feature="governance")


def register(server: PackServer) -> None:
    server.feature(types.TEXT_DOCUMENT_INLAY_HINT)(on_inlay_hint)
    server.command(RENDER_PROMPT)(on_render_prompt)
    server.feature(GOVERNANCE)(on_governance)
    server.command(SHOW_GOVERNANCE)(on_show_governance)
