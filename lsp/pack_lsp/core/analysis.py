"""``analyze()``: the one entry point the CLI and the server both call.

text → YAML tree with spans → data → schema diagnostics → pack model → semantic
checks → configuration (select/ignore/severity) → sorted, frozen diagnostics.
"""

from __future__ import annotations

import gc
import logging
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pack_lsp.core import kinds
from pack_lsp.core.config import Config
from pack_lsp.core.context import CheckContext, Derived
from pack_lsp.core.diagnostics import Diagnostic, make
from pack_lsp.core.jsontree import is_json_path, parse_json
from pack_lsp.core.manifest.check import analyze_manifest
from pack_lsp.core.manifest.model import Manifest
from pack_lsp.core.manifest.workspace import ManifestIndex
from pack_lsp.core.model import Pack, Prompt, build_pack
from pack_lsp.core.profiles import apply_profile, schema_units
from pack_lsp.core.registry import CHECKS
from pack_lsp.core.rules.document import INTERNAL_ERROR
from pack_lsp.core.schema import merge_units
from pack_lsp.core.source import strip_bom
from pack_lsp.core.suppress import apply_suppressions
from pack_lsp.core.text import LineIndex, Span
from pack_lsp.core.yamltree import Node, ParseResult, parse, to_data

log = logging.getLogger(__name__)

_UNSET: Any = object()


@dataclass(frozen=True, slots=True)
class Analysis:
    """Everything known about one version of one document."""

    text: str
    lines: LineIndex
    kind: str | None
    root: Node | None
    data: Any
    pack: Pack | None
    diagnostics: tuple[Diagnostic, ...]
    config: Config
    derived: Derived
    """Data computed from this analysis on first use (templates, symbol index)."""
    syntax_error: bool = False
    path: Path | None = None
    timings: dict[str, float] = field(default_factory=dict)
    manifest: Manifest | None = None  # for an agent-extension manifest
    parse_diagnostics: tuple[Diagnostic, ...] = ()
    """The problems the parser found (before configuration), for incremental analysis."""
    plain_tree: bool | None = None
    """Known to hold no anchor, alias, tag or merge key (``None``: not looked at)."""
    schema_units: tuple[tuple[str | None, tuple[Diagnostic, ...]], ...] | None = None
    """Schema diagnostics per unit (root, then each prompt), for incremental analysis."""


#: Called by ``complete`` with a PromptPack's structure before its schema and rules.
_structure_listener: ContextVar[Callable[[Analysis], None] | None] = ContextVar(
    "structure_listener", default=None
)


@contextmanager
def structure_listener(listener: Callable[[Analysis], None]) -> Iterator[None]:
    """Hand every analysis's structure to ``listener`` as soon as it is known.

    Within this context (in the current thread), ``complete`` calls ``listener``
    once the pack model of a PromptPack without syntax errors is built, with an
    ``Analysis`` that has everything but the diagnostics (``diagnostics`` is empty,
    ``schema_units`` None): the text, tree, data, pack and derived data that editor
    features read. The server answers requests from it while schema validation and
    the rules still run; the call blocks the analysis for as long as it lasts.
    """
    token = _structure_listener.set(listener)
    try:
        yield
    finally:
        _structure_listener.reset(token)


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector.

    An analysis allocates many small objects that all stay alive until it ends, so
    collections during it only cost time (about a quarter of it on large packs).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@_gc_paused()
def analyze(
    text: str,
    *,
    path: str | Path | None = None,
    config: Config | None = None,
    kind: str | None = None,
    pre_diagnostics: list[Diagnostic] | None = None,
    workspace: ManifestIndex | None = None,
    previous_derived: Derived | None = None,
) -> Analysis:
    """Analyse one document.

    ``kind`` forces the document kind (otherwise it is detected from the file name
    and content; an explicitly checked file defaults to PromptPack).
    ``pre_diagnostics`` are problems found before parsing (such as bad bytes).
    ``workspace`` is the index of agent-extension manifests a manifest's ids are
    looked up in (cross-file rules run only with one; this document's entry in it
    is brought up to date). ``previous_derived`` is the derived data of the
    document's previous version, whose unchanged template scans are reused.
    """
    config = config or Config()
    text = strip_bom(text)
    file_path = Path(path) if path is not None else None
    if kind is None:
        kind = kinds.detect(str(path) if path is not None else None, text, config.manifests)
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    parsed = parse_json(text) if is_json_path(file_path) else parse(text)
    timings["parse"] = time.perf_counter() - t0
    return complete(
        parsed,
        kind=kind,
        config=config,
        file_path=file_path,
        timings=timings,
        pre_diagnostics=pre_diagnostics,
        workspace=workspace,
        previous_derived=previous_derived,
    )


def derive(
    pack: Pack | None, text: str, config: Config, previous: Derived | None = None
) -> Derived:
    """The derived data of one analysis; every ``Derived`` is made here.

    ``previous`` is the derived data of the document's previous version: what of it
    is provably unchanged (template scans) is reused, nothing else is kept.
    """
    return Derived(pack, text, config, previous)


def complete(
    parsed: ParseResult,
    *,
    kind: str | None,
    config: Config,
    file_path: Path | None,
    timings: dict[str, float],
    pre_diagnostics: list[Diagnostic] | None = None,
    workspace: ManifestIndex | None = None,
    data: Any = _UNSET,
    plain_tree: bool | None = None,
    known_schema: Mapping[str, Sequence[Diagnostic]] | None = None,
    reuse_prompts: Mapping[str, Prompt] | None = None,
    previous_derived: Derived | None = None,
) -> Analysis:
    """Every stage after parsing: data and model, schema, rules, then the profile,
    configuration and suppressions.

    ``analyze`` and incremental analysis both end here, so a rule or a stage cannot
    differ between them. ``data`` is the plain data of ``parsed.root`` when the
    caller already has it (incremental analysis splices it from the previous one);
    ``known_schema`` the schema diagnostics of prompts whose data did not change,
    ``reuse_prompts`` the models of prompts whose nodes are the very same objects,
    ``previous_derived`` the derived data of the previous version (see ``derive``).
    """
    text = parsed.text
    diagnostics: list[Diagnostic] = list(pre_diagnostics or ()) + parsed.diagnostics
    pack: Pack | None = None
    manifest: Manifest | None = None
    units: list[tuple[str | None, tuple[Diagnostic, ...]]] | None = None
    derived: Derived | None = None
    if kind == kinds.MANIFEST and parsed.root is not None:
        data = to_data(parsed.root)
        manifest, found = analyze_manifest(
            parsed.root,
            data,
            str(file_path) if file_path is not None else None,
            workspace,
            schema=not parsed.syntax_error,
        )
        diagnostics.extend(found)
    elif parsed.root is not None:
        t0 = time.perf_counter()
        if data is _UNSET:
            data = to_data(parsed.root)
        pack = build_pack(parsed.root, reuse_prompts) if kind == kinds.PROMPTPACK else None
        derived = derive(pack, text, config, previous_derived)
        timings["model"] = time.perf_counter() - t0
        listener = _structure_listener.get()
        if listener is not None and pack is not None and not parsed.syntax_error:
            listener(
                Analysis(
                    text=text,
                    lines=parsed.lines,
                    kind=kind,
                    root=parsed.root,
                    data=data,
                    pack=pack,
                    diagnostics=(),
                    config=config,
                    derived=derived,
                    path=file_path,
                    plain_tree=plain_tree,
                )
            )
        # With a syntax error the recovered tree is incomplete: only the YAML
        # problem is reported, so the user is not flooded with follow-on errors.
        if kind == kinds.PROMPTPACK and not parsed.syntax_error:
            t0 = time.perf_counter()
            units = schema_units(config, parsed.root, data, known_schema)
            diagnostics.extend(merge_units(units))
            timings["schema"] = time.perf_counter() - t0
            if pack is not None:
                t0 = time.perf_counter()
                diagnostics.extend(run_rules(pack, parsed, data, config, file_path, derived))
                timings["rules"] = time.perf_counter() - t0
    else:
        data = None
    if derived is None:
        derived = derive(None, text, config, previous_derived)
    t0 = time.perf_counter()
    final = config.apply(apply_profile(config.profile, diagnostics))
    final = apply_suppressions(final, parsed, config, file_path)
    final.sort(key=Diagnostic.sort_key)
    timings["finish"] = time.perf_counter() - t0
    return Analysis(
        text=text,
        lines=parsed.lines,
        kind=kind,
        root=parsed.root,
        data=data,
        pack=pack,
        diagnostics=tuple(final),
        config=config,
        syntax_error=parsed.syntax_error,
        path=file_path,
        timings=timings,
        derived=derived,
        manifest=manifest,
        parse_diagnostics=tuple(parsed.diagnostics),
        plain_tree=plain_tree,
        schema_units=tuple(units) if units is not None else None,
    )


def run_rules(
    pack: Pack,
    parsed: ParseResult,
    data: Any,
    config: Config,
    file_path: Path | None,
    derived: Derived,
) -> list[Diagnostic]:
    """Every semantic check of ``CHECKS`` on one pack; a failing check is reported."""
    out: list[Diagnostic] = []
    ctx = CheckContext(
        pack, parsed.root, data, config, parsed.lines, parsed.text, file_path, derived
    )
    for check in CHECKS:
        try:
            out.extend(check(ctx))
        except Exception:  # a broken rule must not hide the others
            log.exception("rule %s failed", getattr(check, "__module__", check))
            out.append(
                make(
                    INTERNAL_ERROR,
                    f"pack-lsp internal error in {check.__module__}; please report it",
                    Span(0, 0),
                )
            )
    return out
