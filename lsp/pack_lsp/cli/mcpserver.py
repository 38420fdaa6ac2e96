"""``pack-lsp mcp``: a Model Context Protocol server on stdio, for coding agents.

Built on the official ``mcp`` Python SDK, an optional dependency (the ``mcp``
extra; ``install_hint`` says how to add it to the running environment). Tools, each
with a JSON Schema for its arguments (from the signatures below):

- ``check``: the diagnostics of a pack file (``path``) or of inline ``text``, each
  with its quick fixes as text edits, as ``pack-lsp --check --format json`` gives;
- ``fix``: apply the safe fixes (``unsafe``: all); a ``path`` is rewritten, inline
  ``text`` comes back fixed; what is left is listed;
- ``explain_rule``: the documentation of a code (``PP301``);
- ``cards``: the derived A2A Agent Cards; ``topology``: the agent-to-agent graph;
- ``compare``: the public-surface changes between two texts or files.

Resources: ``pack-lsp://docs/rules.md``, the rules reference, and one
``pack-lsp://rules/{code}`` per rule.

The tools work inside their *roots*: the ``file:`` roots the client declares
(``roots/list``), else the server's working directory. A ``path`` whose file (its
links followed) is outside them is refused, so nothing is read or written
elsewhere (docs/reliability.md).
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import json
import os
import shlex
import sys
import threading
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pack_lsp import __version__

#: The SDK versions the ``mcp`` extra of pyproject.toml accepts.
MCP_REQUIREMENT = "mcp>=2,<3"


def install_hint() -> str:
    """How to add the SDK to the environment pack-lsp runs in, as a command that works
    as written (pack-lsp is not on PyPI, so ``pip install 'pack-lsp[mcp]'`` would not)."""
    return (
        "pack-lsp mcp needs the Model Context Protocol SDK; install it into pack-lsp's "
        f"environment: {shlex.quote(sys.executable)} -m pip install '{MCP_REQUIREMENT}'"
    )


INLINE_NAME = "inline.promptpack.yaml"

#: The folders the tools of the call being answered may read and write (None: the
#: working directory; set by ``_reported`` for each call).
_ROOTS: contextvars.ContextVar[tuple[Path, ...] | None] = contextvars.ContextVar(
    "pack_lsp_mcp_roots", default=None
)


def roots() -> tuple[Path, ...]:
    """The roots of the call being answered (resolved folders)."""
    return _ROOTS.get() or (Path.cwd().resolve(),)


def inside_roots(path: str, within: Sequence[Path] | None = None) -> Path:
    """The file ``path`` names, links followed, when it lies inside the roots
    (``ValueError`` otherwise); a relative path is taken from the first root."""
    folders = tuple(within) if within is not None else roots()
    given = Path(path).expanduser()
    if not given.is_absolute():
        given = folders[0] / given
    try:
        found = Path(os.path.realpath(given))
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: {exc}") from None
    if not any(found == root or root in found.parents for root in folders):
        listed = ", ".join(str(r) for r in folders)
        raise ValueError(
            f"{path} is outside the folders this server works in ({listed}): declare the "
            "folder as an MCP root, or start `pack-lsp mcp` there"
        )
    return found


def _source(path: str | None, text: str | None, name: str | None) -> tuple[bytes, str, bool]:
    """(bytes, shown name, on disk) of a tool's input: a file inside the roots, or
    inline text."""
    from pack_lsp.core.base.source import read_source

    if (path is None) == (text is None):
        raise ValueError("give either `path` (a file) or `text` (the pack's content)")
    if path is not None:
        return read_source(inside_roots(path)), path, True
    assert text is not None
    return text.encode("utf-8"), name or INLINE_NAME, False


def _config(name: str, on_disk: bool) -> Any:
    from pack_lsp.cli.check import load_config
    from pack_lsp.core.model.config import Config

    return load_config(Path(name)) if on_disk else Config()


def check(
    path: str | None = None, text: str | None = None, name: str | None = None
) -> dict[str, Any]:
    """Check a PromptPack (a file `path`, or inline `text` with an optional file `name`
    such as `x.promptpack.json`): its diagnostics, each with its quick fixes as text
    edits (`safe` ones are applied by the `fix` tool)."""
    from pack_lsp.cli.check import check_text
    from pack_lsp.render.json_format import document

    raw, shown, on_disk = _source(path, text, name)
    result = check_text(raw, shown, _config(shown, on_disk), on_disk=on_disk, fixes=True)
    return document([result])


def fix(
    path: str | None = None,
    text: str | None = None,
    name: str | None = None,
    unsafe: bool = False,
) -> dict[str, Any]:
    """Apply the quick fixes of a PromptPack: the safe ones, or all with `unsafe`. A
    file `path` is rewritten in place; inline `text` is returned fixed. Returns the
    fixes applied and the diagnostics left."""
    from pack_lsp.cli.check import check_text
    from pack_lsp.cli.fix import encoded_like, write_atomically
    from pack_lsp.core.ide.fixall import fix_document
    from pack_lsp.render.json_format import document
    from pack_lsp.render.result import FileResult

    raw, shown, on_disk = _source(path, text, name)
    config = _config(shown, on_disk)
    keep: list[Any] = []

    def analyse(data: bytes) -> Any:
        keep.clear()
        check_text(data, shown, config, on_disk=on_disk, keep=keep)
        return keep[0]

    run = fix_document(analyse(raw), lambda t: analyse(t.encode("utf-8")), unsafe=unsafe)
    if run.changed and path is not None:
        # The file the link points to, checked inside the roots: nothing is written
        # elsewhere; and only if it still holds what was read.
        write_atomically(inside_roots(path), encoded_like(raw, run.text), expected=raw)
    left = FileResult(shown, run.analysis.diagnostics, run.analysis.lines)
    out: dict[str, Any] = {
        "applied": [f"{f.diagnostic.code}: {f.title}" for f in run.applied],
        "remaining": document([left])["files"][0]["diagnostics"],
    }
    if run.refused is not None:
        out["refused"] = run.refused
    if path is None:
        out["text"] = run.text
    else:
        out["written"] = run.changed
    return out


def explain_rule(code: str) -> dict[str, Any]:
    """The documentation of a diagnostic code such as `PP301`: what it means, an
    example that triggers it, how to fix it, and the quick fixes offered."""
    from pack_lsp.core.checks.registry import REGISTRY

    rule = REGISTRY.get(code.strip().upper())
    if rule is None:
        raise ValueError(f"unknown code {code!r}; codes look like PP301")
    return {
        "code": rule.code,
        "name": rule.name,
        "severity": rule.severity.label,
        "summary": rule.summary,
        "example": rule.example,
        "fix": rule.fix,
        "quickFixes": [k.value for k in rule.fixes],
        "safeFixes": [k.value for k in rule.safe_fixes],
    }


def _pack(path: str | None, text: str | None, name: str | None) -> Any:
    from pack_lsp.core.base import kinds
    from pack_lsp.core.base.source import decode
    from pack_lsp.core.checks.analysis import analyze

    raw, shown, on_disk = _source(path, text, name)
    analysis = analyze(
        decode(raw)[0],
        path=Path(shown) if on_disk else None,
        config=_config(shown, on_disk),
        kind=kinds.PROMPTPACK,
    )
    if analysis.pack is None:
        raise ValueError(f"{shown} is not a PromptPack that can be read (run `check`)")
    return analysis


def cards(
    path: str | None = None, text: str | None = None, name: str | None = None
) -> dict[str, Any]:
    """The A2A Agent Cards derived from a pack's agents (RFC 0007), with the entry
    agent and which fields come from configuration rather than from the pack."""
    from pack_lsp.core.model.cards.api import cards_for, describe

    analysis = _pack(path, text, name)
    return describe(cards_for(analysis.pack, analysis.config))


def topology(
    path: str | None = None, text: str | None = None, name: str | None = None
) -> dict[str, Any]:
    """The graph of agent-to-agent calls of a pack (nodes and edges), as JSON."""
    from pack_lsp.core.model.cards.topology import build, render
    from pack_lsp.core.model.config import Profile
    from pack_lsp.core.model.resolve import ToolSettings

    analysis = _pack(path, text, name)
    profile = analysis.config.profile
    settings = ToolSettings(tuple(analysis.config.tool_namespaces), profile)
    graph = build(analysis.pack, include_entry=profile is Profile.SPEC, settings=settings)
    result: dict[str, Any] = json.loads(render(graph, "json"))
    return result


def render_prompt(
    prompt: str,
    path: str | None = None,
    text: str | None = None,
    name: str | None = None,
    variables: dict[str, str] | None = None,
    target: str | None = None,
) -> dict[str, Any]:
    """A prompt's system template as the model gets it: fragments expanded (with the
    include path of each), variables filled from `variables`, then their defaults, then
    their examples (unfilled ones listed); its size in characters and an offline token
    estimate. With `target` (a deploy target: omnia, promptpack-python,
    promptpack-langchainjs), as that runtime renders it: what it leaves as written and
    whether it throws."""
    from pack_lsp.core.ide.render import render

    analysis = _pack(path, text, name)
    result: dict[str, Any] = render(analysis, prompt, variables or {}, target or None).to_json()
    return result


def compare(
    base_path: str | None = None,
    head_path: str | None = None,
    base_text: str | None = None,
    head_text: str | None = None,
) -> dict[str, Any]:
    """What changed for the callers of a pack's agents from BASE to HEAD (files or
    texts): each change with its kind and whether it breaks callers."""
    from pack_lsp.cli.compare import _json, compare_texts
    from pack_lsp.core.base.source import decode

    def text_of(path: str | None, text: str | None, which: str) -> str:
        if (path is None) == (text is None):
            raise ValueError(f"give either `{which}_path` or `{which}_text`")
        return decode(_source(path, text, None)[0])[0]

    base = text_of(base_path, base_text, "base")
    head = text_of(head_path, head_text, "head")
    compared = compare_texts(head_path or INLINE_NAME, base, head, base_path or "base")
    out = _json([compared])["files"][0]
    out["breaking"] = any(c["breaking"] for c in out["changes"]) and not compared.excused
    result: dict[str, Any] = out
    return result


async def client_roots(ctx: Any) -> tuple[Path, ...]:
    """The ``file:`` roots the client declares, resolved; else the working directory."""
    import mcp_types
    from mcp.shared.exceptions import MCPDeprecationWarning

    session = ctx.request_context.session
    wanted = mcp_types.ClientCapabilities(roots=mcp_types.RootsCapability())
    found: list[Path] = []
    if session.check_client_capability(wanted):
        from urllib.parse import unquote, urlparse

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            listed = await session.list_roots()
        for root in listed.roots:
            uri = urlparse(str(root.uri))
            if uri.scheme == "file":
                found.append(Path(os.path.realpath(unquote(uri.path))))
    return tuple(found) or (Path.cwd().resolve(),)


def _reported(tool: Callable[..., dict[str, Any]]) -> Callable[..., Any]:
    """``tool`` run inside the client's roots, with bad input (a ValueError, a file
    that cannot be read) answered as the tool's error, in one sentence, rather than
    as an unexpected failure."""
    import anyio.to_thread
    from mcp.server.mcpserver import Context
    from mcp.server.mcpserver.exceptions import ToolError

    def within(folders: tuple[Path, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        token = _ROOTS.set(folders)
        try:
            return tool(**kwargs)
        finally:
            _ROOTS.reset(token)

    @functools.wraps(tool)
    async def call(ctx: Context, **kwargs: Any) -> dict[str, Any]:
        try:
            folders = await client_roots(ctx)
            return await anyio.to_thread.run_sync(functools.partial(within, folders, kwargs))
        except ValueError as exc:
            raise ToolError(str(exc)) from None
        except OSError as exc:
            raise ToolError(f"{exc.filename or ''}: {exc.strerror or exc}".lstrip(": ")) from None

    # The tool's own parameters (the arguments' schema), and the context.
    signature = inspect.signature(tool)
    context = inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context)
    call.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[*signature.parameters.values(), context]
    )
    call.__annotations__ = {**tool.__annotations__, "ctx": Context}
    return call


def build_server() -> Any:
    """The MCP server with pack-lsp's tools and resources."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer(
        "pack-lsp",
        version=__version__,
        instructions="Check, fix and explain PromptPack files (YAML or JSON). Call `check` "
        "on a pack, `fix` to apply its safe fixes, `explain_rule` for a code.",
    )
    for tool in (check, fix, explain_rule, cards, topology, render_prompt, compare):
        server.tool()(_reported(tool))

    @server.resource("pack-lsp://docs/rules.md", mime_type="text/markdown")
    def rules_reference() -> str:
        """The reference of every rule pack-lsp checks (docs/rules.md)."""
        from pack_lsp.core.checks.rulesdoc import render

        return render()

    @server.resource("pack-lsp://rules/{code}", mime_type="application/json")
    def rule_resource(code: str) -> str:
        """The documentation of one rule, as `explain_rule` gives it."""
        return json.dumps(explain_rule(code), indent=2)

    return server


def main(argv: list[str]) -> int:
    if argv and argv[0] in ("-h", "--help"):
        print(
            "usage: pack-lsp mcp\n\nServe the Model Context Protocol on stdio for coding "
            "agents: tools check, fix, explain_rule, cards, topology, compare; the rules "
            "reference as a resource. Needs the MCP SDK: "
            f"{shlex.quote(sys.executable)} -m pip install '{MCP_REQUIREMENT}'."
        )
        return 0
    if argv:
        print(
            f"pack-lsp: error: `pack-lsp mcp` takes no arguments, got {argv[0]!r}", file=sys.stderr
        )
        return 2
    try:
        server = build_server()
    except ImportError:
        print(f"pack-lsp: error: {install_hint()}", file=sys.stderr)
        return 2
    threading.Thread(target=warm_up, args=(server,), name="pack-lsp warm-up", daemon=True).start()
    server.run("stdio")
    return 0


def warm_up(server: Any) -> None:
    """Call the ``check`` tool once on the warm-up pack while the client connects, so
    that an agent's first call finds the check path loaded, the schema validators
    compiled and the SDK's argument and result models built (``core.checks.warmup``);
    then keep the code compiled for the classes created so far
    (``core.base.codecache``). A failure changes nothing: the first call then does
    the work itself."""
    import asyncio
    import contextlib

    from pack_lsp.core.base import codecache
    from pack_lsp.core.checks.warmup import WARM_PACK

    try:
        asyncio.run(server.call_tool("check", {"text": WARM_PACK}))
    except Exception:
        # A tool that reads the request's context (the client's roots) cannot be called
        # outside a request: the check path itself is warmed. A warm-up that fails
        # leaves the work to the first call: nothing to report.
        with contextlib.suppress(Exception):
            from pack_lsp.cli.check import check_text
            from pack_lsp.core.model.config import Config
            from pack_lsp.render.json_format import document

            raw = WARM_PACK.encode("utf-8")
            document([check_text(raw, INLINE_NAME, Config(), on_disk=False, fixes=True)])
    codecache.save_all()
