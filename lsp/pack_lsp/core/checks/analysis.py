"""``analyze()``: the one entry point the CLI and the server both call.

text → YAML tree with spans → data → schema diagnostics → pack model → semantic
checks → configuration (select/ignore/severity) → sorted, frozen diagnostics.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from pack_lsp.core.base import kinds
from pack_lsp.core.base.diagnostics import Diagnostic, make
from pack_lsp.core.base.problems.document import INTERNAL_ERROR, NOT_A_PACK
from pack_lsp.core.base.problems.suppressions import UNUSED_SUPPRESSION
from pack_lsp.core.base.source import strip_bom
from pack_lsp.core.base.text import LineIndex, Span
from pack_lsp.core.checks.registry import MODULE_CHECKS, PROMPT_CHECKS, ModuleChecks
from pack_lsp.core.checks.rules import kubernetes, targets
from pack_lsp.core.checks.suppress import apply_suppressions
from pack_lsp.core.model import hosts
from pack_lsp.core.model.config import Config
from pack_lsp.core.model.context import (
    CheckContext,
    Derived,
    PackUnit,
    PromptUnit,
    RuleEdit,
    RuleUnits,
)
from pack_lsp.core.model.pack import Pack, Prompt, build_pack
from pack_lsp.core.model.profiles import apply_profile, schema_units
from pack_lsp.core.model.recognize import Recognition, recognize
from pack_lsp.core.model.recording import TARGET, TEMPLATE_CONTEXT, Reads, fingerprint
from pack_lsp.core.model.schema import merge_units
from pack_lsp.core.model.summary import PackSummary, PromptContext, same_after, summarize
from pack_lsp.core.model.targets import deploy_targets
from pack_lsp.core.syntax import reuse
from pack_lsp.core.syntax.jsontree import (
    is_json_path,
    parse_json,
    parse_json_region,
)
from pack_lsp.core.syntax.yamltree import Node, ParseResult, parse, parse_region, to_data

if TYPE_CHECKING:
    import logging

    # What other kinds of documents need is imported where they are analysed: a
    # pack's cold check loads nothing of manifests or arena documents.
    from pack_lsp.core.model.arena.documents import ArenaDocument
    from pack_lsp.core.model.manifest.model import Manifest
    from pack_lsp.core.model.manifest.workspace import ManifestIndex


def _log() -> logging.Logger:
    """This module's logger, for a rule that fails: ``logging`` is imported then, not
    by every cold check (a few milliseconds of its start-up)."""
    import logging

    return logging.getLogger(__name__)


_UNSET: Any = object()


@dataclass(frozen=True, slots=True)
class Bookkeeping:
    """What incremental analysis (``core/checks/incremental.py``) takes from an analysis
    to update it after an edit instead of starting over; nothing a feature reads."""

    parse_diagnostics: tuple[Diagnostic, ...] = ()
    """The problems the parser found (before configuration)."""
    plain_tree: bool | None = None
    """Known to hold no anchor, alias, tag or merge key (``None``: not looked at)."""
    schema_units: tuple[tuple[str | None, tuple[Diagnostic, ...]], ...] | None = None
    """Schema diagnostics per unit (root, then each prompt)."""
    rule_units: RuleUnits | None = None
    """Per-prompt rule results and their interface fingerprint."""
    conforming: bool = False
    """The text was read by the conforming parser (``ParseResult.conforming``)."""


#: The bookkeeping of an analysis nothing can be updated from.
NO_BOOKKEEPING = Bookkeeping()


@dataclass(frozen=True, slots=True)
class Analysis:
    """Everything known about one version of one document. Every ``Analysis`` is made
    by ``build_analysis``."""

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
    bookkeeping: Bookkeeping = NO_BOOKKEEPING
    """What incremental analysis updates this analysis from."""
    embedded: tuple[Embedded, ...] = ()
    """For a Kubernetes manifest: the packs its ConfigMaps hold (``core.hosts``)."""
    arena: ArenaDocument | None = None
    """For a document of an arena project: the PromptKit kind it declares."""

    @property
    def parse_diagnostics(self) -> tuple[Diagnostic, ...]:
        return self.bookkeeping.parse_diagnostics

    @property
    def plain_tree(self) -> bool | None:
        return self.bookkeeping.plain_tree

    @property
    def conforming(self) -> bool:
        return self.bookkeeping.conforming

    @property
    def schema_units(self) -> tuple[tuple[str | None, tuple[Diagnostic, ...]], ...] | None:
        return self.bookkeeping.schema_units

    @property
    def rule_units(self) -> RuleUnits | None:
        return self.bookkeeping.rule_units

    def at(self, offset: int) -> Analysis | None:
        """The analysis that answers requests at ``offset``: this one for a pack or a
        manifest, the embedded pack written there for a Kubernetes manifest (None
        outside every embedded pack)."""
        if self.kind != kinds.KUBERNETES:
            return self
        for part in self.embedded:
            # (the place first: a pack's analysis is made when first asked for)
            if part.span.start <= offset <= part.span.end and part.analysis is not None:
                return part.analysis
        return None

    def own_text_at(self, offset: int) -> tuple[Analysis, int, str | None] | None:
        """``at(offset)`` as an analysis of the pack's own text, where that text
        starts in this document, and the line break this document writes: the pack
        embedded there analysed in its own text when the manifest's diagnostics come
        from it (D82), whose spans are this document's less that start; else
        ``(at(offset), 0, None)``."""
        if self.kind == kinds.KUBERNETES:
            for part in self.embedded:
                if part.own is not None and part.span.start <= offset <= part.span.end:
                    return part.own, part.span.start, part.eol
        inner = self.at(offset)
        return None if inner is None else (inner, 0, None)


class Embedded:
    """A pack held by a ConfigMap entry of a Kubernetes manifest.

    ``analysis`` is the pack's analysis at the host's offsets (its text is the host
    text with everything else blanked: spans, lines and columns are the host's), or
    None when the entry is not written verbatim and its problems are shown on the
    entry's key. It is made when first asked for (by an editor request at the
    pack, a quick fix in it, its card): a shadow is as long as the host, and the
    host's diagnostics come from the pack analysed in its own text (D82).
    """

    __slots__ = ("_analysis", "_lock", "_make", "eol", "key", "own", "span")

    def __init__(
        self,
        span: Span,
        key: str,
        analysis: Analysis | None = None,
        make: Callable[[], Analysis] | None = None,
        own: Analysis | None = None,
        eol: str | None = None,
    ) -> None:
        self.span = span
        self.key = key
        self._analysis = analysis
        self._make = make
        self._lock = threading.Lock() if make is not None else None
        self.own = own
        """The pack analysed in its own text (the text of ``span``), whose
        diagnostics moved by ``span.start`` are the manifest's (D82); None when the
        manifest's come from ``analysis``."""
        self.eol = eol
        """With ``own``: the line break the manifest writes (``\\r\\n`` when it holds
        one), which quick fixes insert, as they do in the shadow."""

    @property
    def analysis(self) -> Analysis | None:
        if self._analysis is None and self._lock is not None:
            with self._lock:  # requests may ask from several threads at once
                if self._analysis is None and self._make is not None:
                    self._analysis = self._make()
                    self._make = None
        return self._analysis


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
    recognition: Recognition | None = None,
) -> Analysis:
    """Analyse one document.

    ``kind`` forces the document kind (otherwise it is detected from the file name
    and content; an explicitly checked file defaults to PromptPack).
    ``pre_diagnostics`` are problems found before parsing (such as bad bytes).
    ``workspace`` is the index of agent-extension manifests a manifest's ids are
    looked up in (cross-file rules run only with one; this document's entry in it
    is brought up to date). ``previous_derived`` is the derived data of the
    document's previous version, whose unchanged template scans are reused.
    ``recognition`` is how the file was recognised, when the caller has it (it says
    what a ``NOT_A_PACK`` file is).
    """
    config = config or Config()
    stripped = strip_bom(text)
    # A recognition of the text before its BOM was removed has other offsets.
    same_text = stripped is text
    text = stripped
    file_path = Path(path) if path is not None else None
    if kind is None:
        recognition = recognize(str(path) if path is not None else None, text, config.manifests)
        kind = recognition.kind
    if kind == kinds.NOT_A_PACK:
        if recognition is None or recognition.kind != kinds.NOT_A_PACK:
            recognition = recognize(
                str(path) if path is not None else None, text, config.manifests, explicit=True
            )
        return _not_a_pack(text, recognition, config, file_path, pre_diagnostics)
    if kind == kinds.KUBERNETES:
        stream = recognition.stream if recognition is not None and same_text else None
        if stream is None:
            stream = hosts.read_stream(text)
        if stream is not None:
            return _analyze_host(text, stream, config, file_path, pre_diagnostics)
        kind = kinds.PROMPTPACK
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    known = recognition.parsed if recognition is not None and same_text else None
    if is_json_path(file_path):
        parsed = parse_json(text)
    elif known is not None and recognition is not None and recognition.kind == kind:
        parsed = known  # recognition parsed the text already, as YAML
    else:
        parsed = parse(text)
    timings["parse"] = time.perf_counter() - t0
    if kind == kinds.ARENA:
        return _analyze_arena(parsed, config, file_path, timings, pre_diagnostics, previous_derived)
    if kind == kinds.MANIFEST:
        return _analyze_manifest(
            parsed, config, file_path, timings, pre_diagnostics, previous_derived, workspace
        )
    # A PromptPack, or a document of no kind of ours (parsed, nothing checked).
    return complete(
        parsed,
        kind=kind,
        config=config,
        file_path=file_path,
        timings=timings,
        pre_diagnostics=pre_diagnostics,
        reused=Reuse(previous_derived=previous_derived),
    )


def _analyze_arena(
    parsed: ParseResult,
    config: Config,
    file_path: Path | None,
    timings: dict[str, float],
    pre: list[Diagnostic] | None,
    previous_derived: Derived | None,
) -> Analysis:
    """A document of an arena project: its PromptKit kind's schema and checks
    (``core/model/arena/documents.py``)."""
    diagnostics: list[Diagnostic] = list(pre or ()) + parsed.diagnostics
    data: Any = None
    arena: ArenaDocument | None = None
    if parsed.root is not None:
        from pack_lsp.core.model.arena.documents import check_document

        data = to_data(parsed.root)
        arena, found = check_document(parsed.root, data, schema=not parsed.syntax_error)
        diagnostics.extend(found)
    derived = derive(None, parsed.text, config, _reusable(previous_derived))
    return _finished(
        parsed, kinds.ARENA, config, file_path, timings, diagnostics, data, derived, arena=arena
    )


def _analyze_manifest(
    parsed: ParseResult,
    config: Config,
    file_path: Path | None,
    timings: dict[str, float],
    pre: list[Diagnostic] | None,
    previous_derived: Derived | None,
    workspace: ManifestIndex | None,
) -> Analysis:
    """An agent-extension manifest, with the other manifests of ``workspace``
    (``core/checks/manifest/check.py``)."""
    from pack_lsp.core.checks.manifest.check import analyze_manifest, as_yodoca_reads

    diagnostics: list[Diagnostic] = list(pre or ()) + as_yodoca_reads(parsed.diagnostics)
    data: Any = None
    manifest: Manifest | None = None
    if parsed.root is not None:
        data = to_data(parsed.root)
        manifest, found = analyze_manifest(
            parsed.root,
            data,
            str(file_path) if file_path is not None else None,
            workspace,
            schema=not parsed.syntax_error,
        )
        diagnostics.extend(found)
    derived = derive(None, parsed.text, config, _reusable(previous_derived))
    return _finished(
        parsed,
        kinds.MANIFEST,
        config,
        file_path,
        timings,
        diagnostics,
        data,
        derived,
        manifest=manifest,
    )


def _reusable(previous_derived: Derived | None) -> Derived | None:
    """``previous_derived``, unless ``PACK_LSP_INCREMENTAL=off`` (``core.syntax.reuse``)."""
    if previous_derived is not None and reuse.mode() == reuse.OFF:
        return None
    return previous_derived


@dataclass(frozen=True, slots=True)
class Reuse:
    """What ``complete`` may take from the previous version of the document instead
    of computing it again.

    ``data`` is the plain data of ``parsed.root`` when the caller already has it
    (incremental analysis splices it from the previous one); ``plain_tree`` whether
    the tree is known to hold no anchor, alias, tag or merge key; ``known_schema``
    the schema diagnostics of prompts whose data did not change; ``prompts`` the
    models of prompts whose nodes are the very same objects; ``previous_derived``
    the derived data of the previous version (see ``derive``); ``rule_edit`` what the
    edit changed and the previous per-prompt rule results (see ``run_rules``).
    """

    data: Any = _UNSET
    plain_tree: bool | None = None
    known_schema: Mapping[str, Sequence[Diagnostic]] | None = None
    prompts: Mapping[str, Prompt] | None = None
    previous_derived: Derived | None = None
    rule_edit: RuleEdit | None = None


#: Nothing to reuse: a full analysis.
NO_REUSE = Reuse()


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
    reused: Reuse = NO_REUSE,
) -> Analysis:
    """The pack pipeline, every stage after parsing: data and model, schema, rules,
    then the profile, configuration and suppressions (``kind`` is ``PROMPTPACK``, or
    None for a document of no kind of ours, which is parsed and modelled as data
    only).

    ``analyze`` and incremental analysis both end here, so a rule or a stage cannot
    differ between them. ``reused`` is what the previous version of the document
    provides (see ``Reuse``); ``PACK_LSP_INCREMENTAL`` (``core.reuse``) may turn it
    off or have every reused part verified.
    """
    text = parsed.text
    data = reused.data
    plain_tree = reused.plain_tree
    known_schema = reused.known_schema
    reuse_prompts = reused.prompts
    previous_derived = reused.previous_derived
    rule_edit = reused.rule_edit
    verifying = False
    if (
        known_schema is not None
        or reuse_prompts
        or previous_derived is not None
        or rule_edit is not None
    ):
        current = reuse.mode()
        verifying = current == reuse.VERIFY
        if current == reuse.OFF:
            known_schema = reuse_prompts = previous_derived = rule_edit = None
    diagnostics: list[Diagnostic] = list(pre_diagnostics or ()) + parsed.diagnostics
    pack: Pack | None = None
    units: list[tuple[str | None, tuple[Diagnostic, ...]]] | None = None
    derived: Derived | None = None
    rule_units: RuleUnits | None = None
    if parsed.root is not None:
        t0 = time.perf_counter()
        if data is _UNSET:
            data = to_data(parsed.root)
        pack = build_pack(parsed.root, reuse_prompts) if kind == kinds.PROMPTPACK else None
        if verifying and reuse_prompts and pack is not None:
            _verify_models(pack, build_pack(parsed.root))
        derived = derive(pack, text, config, previous_derived)
        timings["model"] = time.perf_counter() - t0
        listener = _structure_listener.get()
        if listener is not None and pack is not None and not parsed.syntax_error:
            listener(
                build_analysis(
                    text,
                    parsed.lines,
                    kind,
                    config,
                    derived,
                    root=parsed.root,
                    data=data,
                    pack=pack,
                    path=file_path,
                    bookkeeping=Bookkeeping(plain_tree=plain_tree),
                )
            )
        if derived is not None:
            # Scanned now, after the hand-over: requests answered from the
            # structure without the templates need not wait for the scan.
            t0 = time.perf_counter()
            derived.templates  # noqa: B018
            timings["templates"] = time.perf_counter() - t0
        # With a syntax error the recovered tree is incomplete: only the YAML
        # problem is reported, so the user is not flooded with follow-on errors.
        if kind == kinds.PROMPTPACK and not parsed.syntax_error:
            t0 = time.perf_counter()
            units = schema_units(config, parsed.root, data, known_schema)
            if verifying and known_schema:
                fresh = dict(schema_units(config, parsed.root, data))
                for key, kept in units:
                    if key in known_schema:
                        reuse.verify("schema diagnostics", f"prompt `{key}`", kept, fresh[key])
            diagnostics.extend(merge_units(units))
            timings["schema"] = time.perf_counter() - t0
            if pack is not None:
                t0 = time.perf_counter()
                found, rule_units = run_rules(
                    pack, parsed, data, config, file_path, derived, rule_edit, timings, verifying
                )
                diagnostics.extend(found)
                timings["rules"] = time.perf_counter() - t0
    else:
        data = None
    if derived is None:
        derived = derive(None, text, config, previous_derived)
    return _finished(
        parsed,
        kind,
        config,
        file_path,
        timings,
        diagnostics,
        data,
        derived,
        pack=pack,
        plain_tree=plain_tree,
        units=units,
        rule_units=rule_units,
    )


def _finished(
    parsed: ParseResult,
    kind: str | None,
    config: Config,
    file_path: Path | None,
    timings: dict[str, float],
    diagnostics: list[Diagnostic],
    data: Any,
    derived: Derived,
    *,
    pack: Pack | None = None,
    manifest: Manifest | None = None,
    arena: ArenaDocument | None = None,
    plain_tree: bool | None = None,
    units: list[tuple[str | None, tuple[Diagnostic, ...]]] | None = None,
    rule_units: RuleUnits | None = None,
) -> Analysis:
    """The analysis of a parsed document, once its kind's checks ran: the profile's
    severities, the configuration and suppression comments applied, sorted."""
    t0 = time.perf_counter()
    final = config.apply(apply_profile(config.profile, diagnostics))
    final = apply_suppressions(final, parsed, config, file_path)
    final.sort(key=Diagnostic.sort_key)
    timings["finish"] = time.perf_counter() - t0
    return build_analysis(
        parsed.text,
        parsed.lines,
        kind,
        config,
        derived,
        root=parsed.root,
        data=data,
        pack=pack,
        diagnostics=tuple(final),
        syntax_error=parsed.syntax_error,
        path=file_path,
        timings=timings,
        manifest=manifest,
        arena=arena,
        bookkeeping=Bookkeeping(
            parse_diagnostics=tuple(parsed.diagnostics),
            plain_tree=plain_tree,
            schema_units=tuple(units) if units is not None else None,
            rule_units=rule_units,
            conforming=parsed.conforming,
        ),
    )


def build_analysis(
    text: str,
    lines: LineIndex,
    kind: str | None,
    config: Config,
    derived: Derived,
    *,
    root: Node | None = None,
    data: Any = None,
    pack: Pack | None = None,
    diagnostics: tuple[Diagnostic, ...] = (),
    syntax_error: bool = False,
    path: Path | None = None,
    timings: dict[str, float] | None = None,
    manifest: Manifest | None = None,
    arena: ArenaDocument | None = None,
    embedded: tuple[Embedded, ...] = (),
    bookkeeping: Bookkeeping = NO_BOOKKEEPING,
) -> Analysis:
    """Every ``Analysis`` is made here: a pack's, a manifest's, an arena document's, a
    Kubernetes manifest's, a file that is not a pack, and the structure handed to the
    server before the rules run."""
    return Analysis(
        text=text,
        lines=lines,
        kind=kind,
        root=root,
        data=data,
        pack=pack,
        diagnostics=diagnostics,
        config=config,
        derived=derived,
        syntax_error=syntax_error,
        path=path,
        timings=timings if timings is not None else {},
        manifest=manifest,
        bookkeeping=bookkeeping,
        embedded=embedded,
        arena=arena,
    )


def _verify_models(pack: Pack, fresh: Pack | None) -> None:
    """Raise ``ReuseMismatch`` when ``pack`` (built reusing prompt models) is not the
    pack built from scratch."""
    if pack == fresh:
        return
    for key, prompt in pack.prompts.items():
        built = fresh.prompts.get(key) if fresh is not None else None
        reuse.verify("prompt model", f"prompt `{key}`", prompt, built)
    reuse.verify("pack model", "the pack", pack, fresh)


def _finish(
    text: str,
    kind: str,
    diagnostics: list[Diagnostic],
    config: Config,
    file_path: Path | None,
    embedded: tuple[Embedded, ...] = (),
) -> Analysis:
    """The analysis of a document that is not a pack itself (nothing to navigate)."""
    final = config.apply(diagnostics)
    final.sort(key=Diagnostic.sort_key)
    return build_analysis(
        text,
        LineIndex(text),
        kind,
        config,
        derive(None, text, config),
        diagnostics=tuple(final),
        path=file_path,
        embedded=embedded,
    )


def _not_a_pack(
    text: str,
    recognition: Recognition,
    config: Config,
    file_path: Path | None,
    pre: list[Diagnostic] | None,
) -> Analysis:
    span = recognition.span or Span(0, 0)
    what = recognition.what or "this file is not a PromptPack"
    diag = make(NOT_A_PACK, f"Not a PromptPack: {what}", span)
    return _finish(text, kinds.NOT_A_PACK, [*(pre or ()), diag], config, file_path)


def _analyze_host(
    text: str,
    stream: hosts.Stream,
    config: Config,
    file_path: Path | None,
    pre: list[Diagnostic] | None,
) -> Analysis:
    """A Kubernetes manifest: each embedded pack with every rule, at its place in the
    file, plus the manifest's own references (``rules.kubernetes``)."""
    diagnostics: list[Diagnostic] = list(pre or ())
    parts: list[Embedded] = []
    # Omnia deploys the packs of ConfigMaps: they are checked for it unless the
    # configuration names targets (D55).
    deployed = deploy_targets(config.targets, hosted=True)
    if config.targets is None:
        config = config.merged({"targets": deployed})
    diagnostics.extend(targets.check_configmaps(stream, deployed))
    token = _structure_listener.set(None)  # an embedded pack's structure is not the file's
    # A shadow has the host's line breaks: with only ASCII outside each pack, the
    # host's line index is each shadow's too.
    lines = LineIndex(text) if text.isascii() else None
    host_lines = lines
    eol = "\r\n" if "\r\n" in text else "\n"
    try:
        for entry in stream.embedded:
            if entry.verbatim:
                host_lines = host_lines or LineIndex(text)
                first_line = host_lines.position(entry.content.start).line
                alone = _in_own_text(entry, config, file_path, first_line)
                if alone is not None:
                    delta = entry.content.start
                    diagnostics.extend(moved_diagnostic(d, delta) for d in alone.diagnostics)
                    parts.append(
                        Embedded(
                            entry.content,
                            entry.key,
                            make=_shadow_analysis(entry, config, file_path, lines),
                            own=alone,
                            eol=eol,
                        )
                    )
                    continue
                sub = _in_shadow(entry, config, file_path, lines)
                diagnostics.extend(sub.diagnostics)
                parts.append(Embedded(entry.content, entry.key, sub))
            else:
                sub = _analyze_embedded(entry.value, entry.json, config, file_path)
                diagnostics.extend(_on_key(entry, sub))
                parts.append(Embedded(entry.content, entry.key, None))
    finally:
        _structure_listener.reset(token)
    own = stream.config_maps
    siblings = None
    if file_path is not None and any(ref.name not in own for ref in stream.refs):
        siblings = hosts.sibling_config_maps(file_path)
    diagnostics.extend(kubernetes.check_refs(stream, siblings, file_path))
    resources = stream.pack_resources
    if (
        not stream.embedded
        and resources
        and file_path is not None
        and kinds.kind_from_name(str(file_path))
    ):
        refs = ", ".join(f"`{ref.name}`" for ref in stream.refs) or "named in `spec.source`"
        diagnostics.append(
            make(
                NOT_A_PACK,
                f"Not a PromptPack: this is a Kubernetes `PromptPack` resource; its pack is "
                f"checked from its ConfigMap {refs}",
                resources[0].kind_span,
            )
        )
    return _finish(text, kinds.KUBERNETES, diagnostics, config, file_path, tuple(parts))


def _analyze_embedded(
    text: str,
    is_json: bool,
    config: Config,
    file_path: Path | None,
    region: Span | None = None,
    lines: LineIndex | None = None,
) -> Analysis:
    """An embedded pack: ``text`` is its value, or its shadow in the host when
    ``region`` says where in the host it stands (only that region is parsed)."""
    if is_json:
        parsed = parse_json(text) if region is None else parse_json_region(text, region, lines)
    elif region is not None:
        parsed = parse_region(text, region, lines)
    else:
        parsed = parse(text)
    return complete(parsed, kind=kinds.PROMPTPACK, config=config, file_path=file_path, timings={})


def _in_shadow(
    entry: hosts.EmbeddedPack, config: Config, file_path: Path | None, lines: LineIndex | None
) -> Analysis:
    """A pack written verbatim in its host, analysed in its shadow (D28)."""
    shadow = entry.shadow
    assert shadow is not None  # only for verbatim entries
    return _analyze_embedded(shadow, entry.json, config, file_path, entry.content, lines)


def _shadow_analysis(
    entry: hosts.EmbeddedPack, config: Config, file_path: Path | None, lines: LineIndex | None
) -> Callable[[], Analysis]:
    """What makes ``_in_shadow``'s analysis when an editor first asks for it."""

    def make() -> Analysis:
        token = _structure_listener.set(None)
        try:
            return _in_shadow(entry, config, file_path, lines)
        finally:
            _structure_listener.reset(token)

    return make


def _in_own_text(
    entry: hosts.EmbeddedPack, config: Config, file_path: Path | None, first_line: int
) -> Analysis | None:
    """A pack written verbatim in its host, analysed in its own text (the region,
    indentation included): its diagnostics moved to the host's offsets
    (``moved_diagnostic``) are what ``_in_shadow`` reports, at a cost that does not
    grow with the host (D82).

    A broken pack (its YAML, or its JSON for a `.json` entry) is analysed in its own
    text too: it reports what its shadow does, except that an unclosed pack's
    end-of-text problem, or an empty pack's, lies in the pack rather than at the end
    or the start of the host (and a stream of broken packs costs its length, not its
    square). None for a pack on one line after its key (a one-line scalar), whose
    columns in its own text would not be the host's.
    ``first_line`` is the host's line the text starts at, for messages that name a
    line.
    """
    written = entry.written
    assert written is not None  # only for verbatim entries
    start = entry.content.start
    if start and entry.host is not None and entry.host.text[start - 1] not in "\r\n":
        return None  # a one-line scalar: its columns are not the text's own
    parsed = parse_json(written) if entry.json else parse(written)
    parsed.first_line = first_line  # the line the host writes the pack's text at
    return complete(parsed, kind=kinds.PROMPTPACK, config=config, file_path=file_path, timings={})


def moved_diagnostic(diag: Diagnostic, delta: int) -> Diagnostic:
    """A diagnostic of a pack analysed in its own text, at the host's offsets
    (``delta``: where the text starts in the host; negative, the other way): its
    span, the spans of its fixes and of its related locations in the pack, and the
    range an unused suppression's removal takes (``data["remove"]``)."""
    moved = diag.shifted(delta)
    if any(r.path is None for r in diag.related):
        related = tuple(
            r if r.path is not None else replace(r, span=r.span.shifted(delta))
            for r in diag.related
        )
        moved = replace(moved, related=related)
    remove = diag.data.get("remove") if diag.code == UNUSED_SUPPRESSION.code else None
    if remove is not None:
        data = MappingProxyType({**diag.data, "remove": [remove[0] + delta, remove[1] + delta]})
        moved = replace(moved, data=data)
    return moved


def _on_key(entry: hosts.EmbeddedPack, sub: Analysis) -> Iterator[Diagnostic]:
    """The diagnostics of a pack that is not written verbatim in the host, shown on
    its entry's key with their place in the pack's own text."""
    for diag in sub.diagnostics:
        at = sub.lines.position(diag.span.start)
        yield replace(
            diag,
            message=f"{diag.message} (line {at.line + 1}, column {at.character + 1} of the "
            f"`{entry.key}` entry's text)",
            span=entry.key_span,
            related=(),
            data={},
        )


#: Keys of ``Analysis.timings`` (present when the rules ran): how many prompts took
#: their per-prompt rule results from the previous version, and how many modules
#: their pack-wide results.
RULES_REUSED = "rules-reused"
RULES_REUSED_PACK = "rules-reused-pack"


def run_rules(
    pack: Pack,
    parsed: ParseResult,
    data: Any,
    config: Config,
    file_path: Path | None,
    derived: Derived,
    edit: RuleEdit | None = None,
    timings: dict[str, float] | None = None,
    verifying: bool = False,
) -> tuple[list[Diagnostic], RuleUnits | None]:
    """Every semantic check of ``MODULE_CHECKS`` on one pack; a failing check is reported.

    Returns the diagnostics and what a next version may reuse (``None`` when a
    check failed: nothing is reused from such a version). For each module, its
    per-prompt part's results come first (prompt by prompt, in the pack's order),
    then its pack-wide part's: one order whether results are computed or reused.
    With ``edit`` (incremental analysis), a prompt other than the edited one keeps
    its previous results, moved, when the pack's summary (``core.summary``) is the
    same after the edit and none of them points into the edited block; a pack-wide
    part keeps its results while what it read last time is unchanged
    (``core.recording``). ``verifying``: compute every reused result again and raise
    ``reuse.ReuseMismatch`` when it differs.
    """
    ctx = CheckContext(
        pack,
        parsed.root,
        data,
        config,
        parsed.lines,
        parsed.text,
        file_path,
        derived,
        region=parsed.region,
    )
    failed: set[str] = set()
    templates = derived.templates
    summary: PackSummary | None = None
    try:
        assert templates is not None  # a pack has templates
        summary = summarize(pack, config, templates)
    except Exception:  # a broken summary must not hide the pack-wide rules
        _log().exception("the summary of the pack failed")
        failed.update(m.name for m in PROMPT_CHECKS)
    previous = edit.previous if edit is not None and not failed else None
    if (
        previous is None
        or edit is None
        or previous.summary is None
        or summary is None
        or not same_after(previous.summary, summary, *edit.compared())
    ):
        previous = None
    units: dict[str, PromptUnit] = {}
    reused = 0
    for key, prompt in pack.prompts.items():
        unit: PromptUnit | None = None
        if previous is not None and edit is not None and key != edit.edited:
            before = previous.prompts.get(key)
            unit = edit.moved(before) if before is not None else None
        if unit is None or verifying:
            scope = (
                PromptContext(summary, tuple(templates.of_prompt(key)))
                if summary is not None and templates is not None
                else None
            )
            fresh = tuple(_prompt_part(m, scope, prompt, failed) for m in PROMPT_CHECKS)
            if unit is None:
                unit = fresh
            else:
                for m, kept, found in zip(PROMPT_CHECKS, unit, fresh, strict=True):
                    reuse.verify("per-prompt results", f"{m.name} on prompt `{key}`", kept, found)
                reused += 1
        else:
            reused += 1
        units[key] = unit
    out: list[Diagnostic] = []
    pack_units: dict[str, PackUnit] = {}
    reused_parts: list[str] = []
    values: dict[str, Callable[[], object]] = {
        TEMPLATE_CONTEXT: ctx.template_context,
        TARGET: ctx.target_value,
    }
    index = 0
    for m in MODULE_CHECKS:
        reported = False
        if m.check_prompt is not None:
            for unit in units.values():
                out.extend(unit[index])
            index += 1
            if m.name in failed:
                out.append(_internal_error(m.name))
                reported = True
        if m.check is not None:
            part = _pack_part(m, ctx, edit, failed, pack_units, reused_parts, values, verifying)
            if part is not None:
                out.extend(part)
            elif not reported:
                out.append(_internal_error(m.name))
    if timings is not None:
        timings[RULES_REUSED] = float(reused)
        timings[RULES_REUSED_PACK] = float(len(reused_parts))
    if failed:
        return out, None
    return out, RuleUnits(summary, units, MappingProxyType(pack_units))


def _pack_part(
    m: ModuleChecks,
    ctx: CheckContext,
    edit: RuleEdit | None,
    failed: set[str],
    pack_units: dict[str, PackUnit],
    reused: list[str],
    values: Mapping[str, Callable[[], object]],
    verifying: bool,
) -> tuple[Diagnostic, ...] | None:
    """The pack-wide part of ``m``: its previous results, moved, when what it read
    last time is unchanged and none of them points into the edited block; else
    computed with its reads recorded (``None`` when it fails). Adds what a next
    version may reuse to ``pack_units`` and the names of the modules whose results
    were reused to ``reused``."""
    assert m.check is not None
    pack, data = ctx.pack, ctx.data
    before = edit.previous.pack.get(m.name) if edit is not None else None
    if edit is not None and before is not None and before[1] is not None:
        reads, fingerprint_before, results = before
        try:
            now = fingerprint(reads, pack, data, values)
        except Exception:
            _log().exception("the fingerprint of what %s read failed", m.name)
            now = None
        same = now is not None and same_after(fingerprint_before, now, *edit.compared())
        moved = edit.moved((results,)) if same else None
        if moved is not None:
            if verifying:
                fresh = _run_pack_part(m, ctx, failed, Reads())
                reuse.verify("pack-wide results", m.name, moved[0], fresh)
            pack_units[m.name] = (reads, now, moved[0])
            reused.append(m.name)
            return moved[0]
    recorder = Reads()
    found = _run_pack_part(m, ctx, failed, recorder)
    if found is None:
        return None
    frozen = recorder.frozen()
    try:
        pack_units[m.name] = (frozen, fingerprint(frozen, pack, data, values), found)
    except Exception:
        _log().exception("the fingerprint of what %s read failed", m.name)
    return found


def _run_pack_part(
    m: ModuleChecks, ctx: CheckContext, failed: set[str], reads: Reads
) -> tuple[Diagnostic, ...] | None:
    assert m.check is not None
    try:
        return tuple(m.check(ctx.recording(reads)))
    except Exception:  # a broken rule must not hide the others
        _log().exception("rule %s failed", m.name)
        failed.add(m.name)
        return None


def _prompt_part(
    m: ModuleChecks, scope: PromptContext | None, prompt: Prompt, failed: set[str]
) -> tuple[Diagnostic, ...]:
    """The per-prompt part of ``m`` on ``prompt`` (nothing when it fails: the module's
    failure is reported once, after its results)."""
    assert m.check_prompt is not None
    if m.name in failed or scope is None:
        return ()
    try:
        return tuple(m.check_prompt(scope, prompt))
    except Exception:  # a broken rule must not hide the others
        _log().exception("rule %s failed on prompt %s", m.name, prompt.key)
        failed.add(m.name)
        return ()


def _internal_error(module: str) -> Diagnostic:
    return make(
        INTERNAL_ERROR,
        f"pack-lsp internal error in {module}; please report it",
        Span(0, 0),
    )
