"""Placeholders in templates, with exact document spans.

A *template* is a prompt's ``system_template``, a model override's
``system_template``/``system_template_prefix``/``system_template_suffix``, or a
fragment's text. Placeholders are written ``{{ ... }}``, or between the delimiters
that ``template_engine.syntax`` declares (``${...}`` for ``${variable}``, see
``delimiters``); this module finds them,
classifies them and maps them back to the document through
``pack_lsp.core.syntax.scalars`` (so escapes, folding and block scalars are handled).

Kinds of placeholder
--------------------
- ``variable``: ``{{name}}``, ``{{ name }}``, ``{{user.name}}`` (the root ``user``
  is the variable), ``{{name | upper}}`` (filters), ``{{{name}}}`` (unescaped), and
  the argument of a block helper ``{{#if name}}`` / ``{{#each items}}``.
- ``fragment``: ``{{fragments.name}}`` (the PromptPack spec), ``{{fragment:name}}``
  (the Python runtime), and — in the ``promptkit`` dialect only — a bare
  ``{{name}}`` whose name is a key of the pack's ``fragments`` (PromptKit and the
  LangChain.js runtime substitute fragments that way).
- ``artifact``: ``{{artifacts.name}}`` (workflow state artifacts).
- ``unknown``: anything else inside braces that is not a block-helper tag
  (``{{this}}`` inside a loop, ``{{@index}}``, an expression).

Tags that are template syntax rather than references are not placeholders:
``{{/if}}``, ``{{else}}``, ``{{^x}}``'s closing tag, comments ``{{! ... }}`` and
partials ``{{> x}}``. Their arguments, when they name something, are.

Dialects
--------
``dialect_for(pack, configured)`` resolves the configuration's
``fragment_dialect``: ``spec``/``promptkit``/``python`` are taken as given;
``auto`` looks at what the pack's templates use (``{{fragment:x}}`` → python,
``{{fragments.x}}`` → spec, a bare ``{{x}}`` naming a fragment → promptkit) and
falls back to ``spec``. The explicit forms ``fragments.x`` and ``fragment:x`` are
fragments in every dialect; the dialect only decides what a bare name is.

API
---
- ``placeholders(template, source, dialect, fragment_names)`` →
  ``list[Placeholder]`` (kind, name, span of the whole ``{{...}}``, ``name_span``,
  ``syntax``, value indexes).
- ``unbalanced(template, source)`` → ``list[Unbalanced]``: a ``{{`` never closed,
  and a ``}}`` that closes a single-brace ``{name}}``.
- ``pack_templates(pack, source, configured_dialect)`` → ``PackTemplates``: every
  template of the pack with its owner and placeholders, plus look-ups used by
  rules and editor features (``at(offset)``, ``fragment_uses(name)``,
  ``fragments_included_by(prompt_key)``, ``variables_used_by(prompt_key)``).
- ``artifact_names(pack)`` → the names an ``{{artifacts.x}}`` placeholder can refer
  to (artifacts declared by any workflow state).

``source`` is always the document text the pack was parsed from.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from typing import Literal

from pack_lsp.core.base.text import Span
from pack_lsp.core.model.pack import Pack, Template
from pack_lsp.core.syntax.scalars import ScalarMap, scalar_map

Kind = Literal["variable", "fragment", "artifact", "unknown"]
Dialect = Literal["spec", "promptkit", "python"]

__all__ = [
    "Dialect",
    "Kind",
    "PackTemplates",
    "Placeholder",
    "TemplateInfo",
    "TemplateScans",
    "Unbalanced",
    "artifact_names",
    "dialect_for",
    "pack_templates",
    "placeholders",
    "scan",
    "unbalanced",
]

_IDENT = r"[A-Za-z_][A-Za-z0-9_-]*"
_PATH_RE = re.compile(rf"({_IDENT})((?:\.{_IDENT}|\[[0-9]+\])*)")
_IDENT_RE = re.compile(_IDENT)
_HELPER_RE = re.compile(rf"\s*({_IDENT})(?:\s+({_IDENT}))?")
_BLOCK_HELPERS = frozenset({"if", "unless", "each", "with"})


@dataclass(frozen=True, slots=True)
class Placeholder:
    """One ``{{...}}`` reference.

    ``name`` is the variable, fragment or artifact name (for ``unknown``: the
    trimmed expression). ``syntax`` says how it was written: ``bare``,
    ``fragments.``, ``fragment:``, ``artifacts.``, ``path`` (``{{a.b}}``),
    ``block`` (``{{#if a}}``) or ``expression``. ``start``/``end`` and
    ``name_start``/``name_end`` are indexes into the template's value.
    """

    kind: Kind
    name: str
    span: Span
    name_span: Span
    syntax: str
    start: int
    end: int
    name_start: int
    name_end: int
    scoped: bool = False  # inside {{#each}}/{{#with}}: names may be relative to an item


@dataclass(frozen=True, slots=True)
class Unbalanced:
    """A brace pair that does not close: ``which`` is ``"{{"`` or ``"}}"``."""

    which: str
    span: Span
    start: int
    name: str = ""  # for "}}": the name written between the braces


@dataclass(frozen=True, slots=True)
class _Raw:
    start: int  # index of the first "{"
    end: int  # index after the last "}"
    inner_start: int
    inner_end: int


# ------------------------------------------------------------------------- scanning


#: The placeholder delimiters of the default ``template_engine.syntax``.
DEFAULT_DELIMITERS = ("{{", "}}")
_SYNTAX_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def scan(
    text: str, delims: tuple[str, str] = DEFAULT_DELIMITERS
) -> tuple[list[_Raw], list[tuple[str, int, str]]]:
    """Find the placeholder regions of a value between ``delims``; also the
    unbalanced delimiters.

    Returns the regions and a list of ``(which, index, name)`` problems: an opening
    delimiter never closed (``which`` is the opening delimiter), and, for the
    default ``{{ }}`` only, a ``}}`` that closes a single-brace ``{name}}``.

    An opening delimiter is left open when no closing one follows on its line, or
    when another opening delimiter comes first (its placeholder starts there).
    The default delimiters have three more rules, for braces: ``{{{name}}}`` is one
    region (unescaped), a single ``{`` before the ``}}`` leaves the ``{{`` open
    (``{{name, ... {id}}``: the ``}}`` closes something later), and a ``{name}}``
    is reported. Any other pair is found by the same code, so the two cannot
    drift (a randomized test compares them on ``{{ }}`` texts without single
    braces, rewritten into other pairs).

    Linear in the length of the text: the next closing delimiter, opening
    delimiter, ``{`` and line break after a position are found once and reused
    until passed (searching again from every unclosed delimiter made 100,000 of
    them quadratic).
    """
    opening, closing = delims
    braces = delims == DEFAULT_DELIMITERS
    regions: list[_Raw] = []
    problems: list[tuple[str, int, str]] = []
    n = len(text)
    i = 0
    next_close = next_brace = next_break = next_open = -2

    def after(what: str, cached: int, start: int) -> int:
        # The first ``what`` at or after ``start``, given ``cached``, the first at or
        # after an earlier position (-2: none asked yet).
        if cached == -1 or cached >= start:
            return cached
        return text.find(what, start)

    while True:
        open_ = next_open = after(opening, next_open, i)
        if open_ < 0:
            if braces:
                _stray_closes(text, i, n, problems)
            break
        if braces:
            _stray_closes(text, i, open_, problems)
        triple = braces and text.startswith("{{{", open_)
        inner_start = open_ + len(opening) + (1 if triple else 0)
        close = next_close = after(closing, next_close, inner_start)
        again = next_open = after(opening, next_open, inner_start)
        next_break = after("\n", next_break, inner_start)
        runs_on = 0 <= next_break < close
        if braces and not runs_on:
            # A single "{" before the "}}": the "}}" closes something later.
            next_brace = after("{", next_brace, inner_start)
            runs_on = 0 <= next_brace < close
        if close < 0 or (0 <= again < close) or runs_on:
            # Never closed: the next closing delimiter belongs to something else
            # (or is missing).
            problems.append((opening, open_, ""))
            i = inner_start
            continue
        end = close + len(closing)
        if triple and text.startswith("}}}", close):
            end = close + 3
        regions.append(_Raw(open_, end, inner_start, close))
        i = end
    return regions, problems


def delimiters(pack: Pack) -> tuple[str, str]:
    """The (open, close) delimiters ``template_engine.syntax`` declares.

    The syntax is written as a sample placeholder (``{{variable}}``, ``${variable}``,
    ``<%= name %>``): what surrounds the name is the delimiter pair. A sample with no
    name, or no delimiter on one side, falls back to ``{{ }}``.
    """
    te = pack.template_engine
    sample = te.syntax.text.strip() if te is not None and te.syntax is not None else ""
    m = _SYNTAX_NAME.search(sample)
    if m is None:
        return DEFAULT_DELIMITERS
    open_, close = sample[: m.start()].strip(), sample[m.end() :].strip()
    if not open_ or not close:
        return DEFAULT_DELIMITERS
    return open_, close


_STRAY_CLOSE_RE = re.compile(r"(?<!\{)\{\s*([A-Za-z_][\w.:]*)\s*\}\}")


def _stray_closes(text: str, start: int, end: int, out: list[tuple[str, int, str]]) -> None:
    """``{name}}``: a placeholder missing one opening brace."""
    if text.find("}}", start, end) < 0:  # the common case, without starting the regex
        return
    for m in _STRAY_CLOSE_RE.finditer(text, start, end):
        out.append(("}}", m.end() - 2, m.group(1)))


def _classify(
    text: str, raw: _Raw, dialect: Dialect, fragments: Collection[str]
) -> tuple[Kind, str, str, int, int] | None:
    """(kind, name, syntax, name_start, name_end) or None for a syntax-only tag."""
    inner = text[raw.inner_start : raw.inner_end]
    lead = len(inner) - len(inner.lstrip())
    body = inner.strip()
    base = raw.inner_start + lead
    if not body:
        return ("unknown", "", "expression", base, base)
    first = body[0]
    if first in "/!>" or body == "else" or body.startswith("else "):
        return None
    if first in "#^":
        hm = _HELPER_RE.match(body, 1)
        if hm is None:
            return None
        helper, arg = hm.group(1), hm.group(2)
        if first == "#" and helper in _BLOCK_HELPERS:
            if arg is None or arg == "this":
                return None
            ns = base + hm.start(2)
            return ("variable", arg, "block", ns, ns + len(arg))
        ns = base + hm.start(1)  # a Mustache section {{#name}} / {{^name}}
        return ("variable", helper, "block", ns, ns + len(helper))
    m = _PATH_RE.match(body)
    tail = body[m.end() :].strip() if m is not None else body
    if m is None or (tail and not tail.startswith("|")):
        if body.startswith("fragment:"):
            name = body[len("fragment:") :].strip()
            off = body.index(name, len("fragment:")) if name else len(body)
            if _IDENT_RE.fullmatch(name):
                return ("fragment", name, "fragment:", base + off, base + off + len(name))
        return ("unknown", body, "expression", base, base + len(body))
    root = m.group(1)
    path = m.group(2)
    if root in ("fragments", "artifacts") and path.startswith("."):
        name = path[1:].split(".")[0].split("[")[0]
        start = base + len(root) + 1
        kind: Kind = "fragment" if root == "fragments" else "artifact"
        return (kind, name, root + ".", start, start + len(name))
    if root in ("this", "@index", "@key"):
        return ("unknown", body, "expression", base, base + len(body))
    if not path and dialect == "promptkit" and root in fragments:
        return ("fragment", root, "bare", base, base + len(root))
    return ("variable", root, "path" if path else "bare", base, base + len(root))


_SCOPE_OPEN = re.compile(r"\{\{\{?\s*#\s*(each|with)\b")
_SCOPE_CLOSE = re.compile(r"\{\{\{?\s*/\s*(each|with)\b")


def _placeholders_in(
    text: str,
    dialect: Dialect,
    fragments: Collection[str],
    delims: tuple[str, str] = DEFAULT_DELIMITERS,
    regions: list[_Raw] | None = None,
) -> Iterator[tuple[Kind, str, str, int, int, int, int, bool]]:
    if regions is None:
        regions = scan(text, delims)[0]
    depth = 0
    for raw in regions:
        got = _classify(text, raw, dialect, fragments)
        if got is not None:
            kind, name, syntax, ns, ne = got
            yield kind, name, syntax, raw.start, raw.end, ns, ne, depth > 0
        if _SCOPE_OPEN.match(text, raw.start, raw.end):
            depth += 1
        elif _SCOPE_CLOSE.match(text, raw.start, raw.end):
            depth = max(0, depth - 1)


def _scan_template(
    text: str,
    smap: ScalarMap,
    dialect: Dialect,
    fragment_names: Collection[str],
    delims: tuple[str, str],
) -> tuple[list[Placeholder], list[Unbalanced]]:
    """The placeholders and unbalanced braces of one template, from a single scan."""
    regions, problems = scan(text, delims)
    if delims != DEFAULT_DELIMITERS:
        problems = []  # with another syntax, braces are plain text (``unbalanced``)
    span_of = smap.span_of
    found = [
        Placeholder(kind, name, span_of(s, e), span_of(ns, ne), syntax, s, e, ns, ne, scoped)
        for kind, name, syntax, s, e, ns, ne, scoped in _placeholders_in(
            text, dialect, fragment_names, delims, regions
        )
    ]
    return found, [Unbalanced(which, span_of(i, i + 2), i, name) for which, i, name in problems]


def placeholders(
    template: Template,
    source: str,
    dialect: Dialect = "spec",
    fragment_names: Collection[str] = (),
    *,
    smap: ScalarMap | None = None,
    delims: tuple[str, str] = DEFAULT_DELIMITERS,
) -> list[Placeholder]:
    """Every placeholder of ``template`` with document spans."""
    m = smap if smap is not None else scalar_map(template.node, source)
    out = []
    for kind, name, syntax, s, e, ns, ne, scoped in _placeholders_in(
        template.text, dialect, fragment_names, delims
    ):
        out.append(
            Placeholder(
                kind, name, m.span_of(s, e), m.span_of(ns, ne), syntax, s, e, ns, ne, scoped
            )
        )
    return out


def unbalanced(
    template: Template,
    source: str,
    *,
    smap: ScalarMap | None = None,
    delims: tuple[str, str] = DEFAULT_DELIMITERS,
) -> list[Unbalanced]:
    """Unclosed ``{{`` and single-brace ``{name}}`` in ``template`` (only checked for
    the default delimiters: with another syntax, braces are plain text)."""
    if delims != DEFAULT_DELIMITERS:
        return []
    _, problems = scan(template.text)
    if not problems:
        return []
    m = smap if smap is not None else scalar_map(template.node, source)
    return [Unbalanced(which, m.span_of(i, i + 2), i, name) for which, i, name in problems]


# ------------------------------------------------------------------------- dialects

_FRAGMENT_COLON = re.compile(r"\{\{\s*fragment:")
_FRAGMENTS_DOT = re.compile(r"\{\{\s*fragments\.")


def dialect_for(pack: Pack, configured: str = "auto") -> Dialect:
    """The fragment dialect for ``pack`` (see the module docstring)."""
    if configured == "spec":
        return "spec"
    if configured == "promptkit":
        return "promptkit"
    if configured == "python":
        return "python"
    texts = [t.text for t in _all_templates(pack)]
    if any(_FRAGMENT_COLON.search(t) for t in texts):
        return "python"
    if any(_FRAGMENTS_DOT.search(t) for t in texts):
        return "spec"
    if pack.fragments:
        names = set(pack.fragments)
        for t in texts:
            for kind, name, syntax, *_ in _placeholders_in(t, "promptkit", names):
                if kind == "fragment" and syntax == "bare" and name in names:
                    return "promptkit"
    return "spec"


def _all_templates(pack: Pack) -> Iterator[Template]:
    for prompt in pack.prompts.values():
        yield from prompt.templates()
    for fragment in pack.fragments.values():
        if fragment.template is not None:
            yield fragment.template


# ---------------------------------------------------------------------- pack level


@dataclass(frozen=True, slots=True)
class TemplateInfo:
    """One template of the pack: its owner (``prompt`` or ``fragment`` + key)."""

    owner: Literal["prompt", "fragment"]
    key: str
    template: Template
    placeholders: list[Placeholder]
    unbalanced: list[Unbalanced]
    smap: ScalarMap


@dataclass(frozen=True, slots=True)
class _Scanned:
    """One template's scan as a later version may reuse it."""

    start: int  # the scalar's span in the source it was scanned from
    end: int
    smap: ScalarMap
    placeholders: tuple[Placeholder, ...]
    unbalanced: tuple[Unbalanced, ...]


#: (scalar style, scalar text, template text): what a reusable scan is looked up by.
_ScanKey = tuple[str, str, str]

#: A scalar map that read further than this past its scalar (only a malformed
#: scalar does) is not kept: checking that its source is unchanged would cost too much.
_MAX_READ_AHEAD = 64
#: Places an equal template is remembered at (what follows each may differ).
_MAX_CANDIDATES = 8


@dataclass(frozen=True, slots=True)
class TemplateScans:
    """The template scans of one version of a document, for the next version.

    ``pack_templates(..., previous=scans)`` takes a template's scan from here instead
    of scanning again when the template is unchanged: same scalar style and value,
    and the same source text from the start of its node as far as its scalar map
    read (``ScalarMap.reach``); the scan is then moved to the template's new offset.
    Placeholders are taken as they are only when the context they depend on (the
    dialect, the delimiters and — for the ``promptkit`` dialect — the fragment
    names) is the same too; otherwise only the scalar map is reused. It holds the
    old source text and these scans, nothing else of the old version.
    """

    source: str
    context: tuple[object, ...]
    scans: dict[_ScanKey, list[_Scanned]]
    #: Every kept scan by the offset it was scanned at, with its key. An edit leaves a
    #: template where it was or moves it by the change in length, so these are tried
    #: first: equal templates (``scans``) may be more than the places remembered.
    starts: dict[int, tuple[_ScanKey, _Scanned]] = field(default_factory=dict)

    def reuse(self, template: Template, source: str) -> _Scanned | None:
        """The previous scan of ``template`` (in ``source``) when its source is unchanged."""
        node = template.node
        span = node.span
        key = (node.style, node.text, template.text)
        starts = self.starts
        if starts:
            at = starts.get(span.start)
            if at is not None and at[0] == key and self._unchanged(at[1], span, source):
                return at[1]
            moved = len(source) - len(self.source)
            if moved:
                at = starts.get(span.start - moved)
                if at is not None and at[0] == key and self._unchanged(at[1], span, source):
                    return at[1]
        # Equal templates are common (a suffix shared by many prompts); what follows
        # them may differ, so each place they were scanned at is a candidate.
        for found in self.scans.get(key, ()):
            if self._unchanged(found, span, source):
                return found
        return None

    def _unchanged(self, found: _Scanned, span: Span, source: str) -> bool:
        """Whether the scan ``found`` (of a template with the same key) read the same
        characters as a template at ``span`` of ``source`` would: its length and the
        source from its start as far as its map read."""
        if span.end - span.start != found.end - found.start:
            return False
        old = self.source
        read = found.smap.reach - found.start  # characters the map depends on
        piece = source[span.start : span.start + read]
        if len(piece) != min(read, len(old) - found.start):
            return False  # one text ends within that stretch, the other does not
        return old.startswith(piece, found.start)


@dataclass(slots=True)
class PackTemplates:
    dialect: Dialect
    templates: list[TemplateInfo] = field(default_factory=list)
    # What the placeholders depend on besides the template text (see TemplateScans).
    context: tuple[object, ...] = field(default=(), repr=False, compare=False)
    # (owner, key) → templates, built by ``pack_templates`` once every template is
    # in (and rebuilt should ``templates`` grow later): every rule asks for the
    # templates of every prompt, so a scan of all templates per question made
    # checking a pack quadratic in its number of prompts.
    _index: dict[tuple[str, str], list[TemplateInfo]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _indexed: int = field(default=-1, init=False, repr=False, compare=False)
    # Per-prompt results that several rules ask for (the placeholders a prompt
    # reaches through its fragments): computed once, dropped with the index. The
    # rules (in the analysis thread) and editor features (on the server's event
    # loop) may ask at the same time: an entry is a pure function of the frozen
    # templates, computed whole and then stored in one step, so a reader sees it
    # complete or not at all, and two threads at worst compute it twice; neither
    # waits for the other.
    _reached: dict[tuple[str, bool], list[tuple[TemplateInfo, Placeholder]]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _included: dict[str, list[str]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _uses: dict[str, list[tuple[TemplateInfo, Placeholder]]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def _refresh(self) -> None:
        if self._indexed == len(self.templates):
            return
        index: dict[tuple[str, str], list[TemplateInfo]] = {}
        uses: dict[str, list[tuple[TemplateInfo, Placeholder]]] = {}
        for t in self.templates:
            index.setdefault((t.owner, t.key), []).append(t)
            for p in t.placeholders:
                if p.kind == "fragment":
                    uses.setdefault(p.name, []).append((t, p))
        self._index = index
        self._uses = uses
        self._reached = {}
        self._included = {}
        self._indexed = len(self.templates)

    def _owned(self, owner: str, key: str) -> list[TemplateInfo]:
        self._refresh()
        return list(self._index.get((owner, key), ()))

    def of_prompt(self, key: str) -> list[TemplateInfo]:
        return self._owned("prompt", key)

    def of_fragment(self, key: str) -> list[TemplateInfo]:
        return self._owned("fragment", key)

    def at(self, offset: int) -> tuple[TemplateInfo, Placeholder] | None:
        """The placeholder whose ``{{...}}`` contains ``offset`` (ends included)."""
        for info in self.templates:
            if not info.template.span.contains(offset):
                continue
            for p in info.placeholders:
                if p.span.contains(offset):
                    return info, p
        return None

    def template_at(self, offset: int) -> TemplateInfo | None:
        for info in self.templates:
            if info.template.span.contains(offset):
                return info
        return None

    def fragment_uses(self, name: str) -> list[tuple[TemplateInfo, Placeholder]]:
        self._refresh()
        return list(self._uses.get(name, ()))

    def fragments_included_by(self, prompt_key: str) -> list[str]:
        """Fragment keys a prompt includes, directly or through other fragments."""
        self._refresh()
        cached = self._included.get(prompt_key)
        if cached is None:
            cached = self._included[prompt_key] = self._includes(prompt_key)
        return list(cached)

    def _includes(self, prompt_key: str) -> list[str]:
        seen: dict[str, None] = {}
        queue = deque(
            p.name
            for t in self.of_prompt(prompt_key)
            for p in t.placeholders
            if p.kind == "fragment"
        )
        while queue:
            name = queue.popleft()
            if name in seen:
                continue
            seen[name] = None
            queue.extend(
                p.name
                for t in self.of_fragment(name)
                for p in t.placeholders
                if p.kind == "fragment"
            )
        return list(seen)

    def placeholders_of_prompt(
        self, prompt_key: str, *, through_fragments: bool = True
    ) -> list[tuple[TemplateInfo, Placeholder]]:
        """The placeholders of a prompt's templates (and of the fragments they include).

        Computed once per prompt: the variable, artifact and unused-variable rules
        all ask for every prompt.
        """
        self._refresh()
        cached = self._reached.get((prompt_key, through_fragments))
        if cached is None:
            out = [(t, p) for t in self.of_prompt(prompt_key) for p in t.placeholders]
            if through_fragments:
                for name in self.fragments_included_by(prompt_key):
                    out.extend((t, p) for t in self.of_fragment(name) for p in t.placeholders)
            cached = self._reached[(prompt_key, through_fragments)] = out
        return list(cached)

    def variables_used_by(self, prompt_key: str) -> set[str]:
        return {p.name for _, p in self.placeholders_of_prompt(prompt_key) if p.kind == "variable"}

    def reusable(self, source: str) -> TemplateScans:
        """What the next version of the document can reuse of these scans.

        ``source`` is the text they were scanned from.
        """
        scans: dict[_ScanKey, list[_Scanned]] = {}
        starts: dict[int, tuple[_ScanKey, _Scanned]] = {}
        for info in self.templates:
            node = info.template.node
            span = node.span
            if info.smap.reach - span.end > _MAX_READ_AHEAD:
                continue
            key = (node.style, node.text, info.template.text)
            scanned = _Scanned(
                span.start,
                span.end,
                info.smap,
                tuple(info.placeholders),
                tuple(info.unbalanced),
            )
            starts[span.start] = (key, scanned)
            same = scans.setdefault(key, [])
            if len(same) < _MAX_CANDIDATES:
                same.append(scanned)
        return TemplateScans(source, self.context, scans, starts)


def artifact_names(pack: Pack) -> set[str]:
    """Artifacts declared by any workflow state: what ``{{artifacts.x}}`` can name."""
    names: set[str] = set()
    if pack.workflow is not None:
        for state in pack.workflow.states.values():
            names.update(state.artifacts)
    return names


def pack_templates(
    pack: Pack,
    source: str,
    configured_dialect: str = "auto",
    previous: TemplateScans | None = None,
) -> PackTemplates:
    """Every template of ``pack`` with its placeholders (see ``PackTemplates``).

    With ``previous`` (the scans of an earlier version of the document), unchanged
    templates take their earlier scan moved to their new offset: the result is the
    same as without it.
    """
    dialect = dialect_for(pack, configured_dialect)
    delims = delimiters(pack)
    names = set(pack.fragments)
    context = (dialect, delims, frozenset(names) if dialect == "promptkit" else None)
    result = PackTemplates(dialect, context=context)
    same_context = previous is not None and previous.context == context
    items: list[tuple[Literal["prompt", "fragment"], str, Template]] = []
    for key, prompt in pack.prompts.items():
        items.extend(("prompt", key, t) for t in prompt.templates())
    for key, fragment in pack.fragments.items():
        if fragment.template is not None:
            items.append(("fragment", key, fragment.template))
    for owner, key, template in items:
        node = template.node
        before = previous.reuse(template, source) if previous is not None else None
        if before is None:
            smap = scalar_map(node, source)
            found, problems = _scan_template(template.text, smap, dialect, names, delims)
        else:
            delta = node.span.start - before.start
            smap = before.smap.shifted(delta, node.text)
            if not same_context:
                found, problems = _scan_template(template.text, smap, dialect, names, delims)
            elif delta:
                found = [_moved(p, delta) for p in before.placeholders]
                problems = [
                    Unbalanced(u.which, u.span.shifted(delta), u.start, u.name)
                    for u in before.unbalanced
                ]
            else:
                found, problems = list(before.placeholders), list(before.unbalanced)
        result.templates.append(TemplateInfo(owner, key, template, found, problems, smap))
    result._refresh()  # complete before any reader (another thread may be one)
    return result


def _moved(p: Placeholder, delta: int) -> Placeholder:
    """``p`` in a template that moved by ``delta`` characters."""
    return Placeholder(
        p.kind,
        p.name,
        p.span.shifted(delta),
        p.name_span.shifted(delta),
        p.syntax,
        p.start,
        p.end,
        p.name_start,
        p.name_end,
        p.scoped,
    )


#: Variables the reference runtime binds itself: the whole structured input, and the
#: context handed over by a workflow transition (only in prompts run by a state).
RUNTIME_VARIABLES = frozenset({"input"})
WORKFLOW_VARIABLES = frozenset({"workflow_context"})


def workflow_tasks(pack: Pack) -> frozenset[str]:
    """Prompt keys that some workflow state runs."""
    if pack.workflow is None:
        return frozenset()
    return frozenset(
        s.prompt_task.text for s in pack.workflow.states.values() if s.prompt_task is not None
    )


def implicit_variables(prompt_key: str, tasks: Collection[str]) -> frozenset[str]:
    """Variables a prompt may use without declaring them (bound by the runtime)."""
    return RUNTIME_VARIABLES | (WORKFLOW_VARIABLES if prompt_key in tasks else frozenset())
