"""The symbol index of one pack: every definition and every reference, with spans.

A *symbol* is something a pack defines by name: a prompt, a tool, a fragment, a
prompt's variable, a workflow state, an artifact slot, a composition, a step of a
composition (scoped to its composition), a provider requirement, a validator id or
an eval id. Each place that writes the
name is an ``Occurrence`` — the definition (the map key, or a variable's ``name``)
or a reference (``agents.entry``, a member key, a prompt's ``tools`` item,
``a2a__<member>``, ``prompt_task``, an ``on_event`` target, a template placeholder,
...). The occurrence span covers exactly the characters of the name in the source
(inside the quotes of a quoted scalar, after the ``a2a__`` prefix, the name inside a
``{{ }}`` placeholder), so go-to-definition, references, highlights and rename all
work from the same table.

Scopes: variables belong to a prompt (``SymbolId.scope`` is the prompt key); a
placeholder inside a fragment refers to the variable of every prompt that includes
the fragment. Artifacts are identified by name across the workflow (a prompt reads
``{{artifacts.x}}`` from whichever state runs it).
"""

from __future__ import annotations

import enum
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from pack_lsp.core.base.text import Span
from pack_lsp.core.checks.analysis import Analysis
from pack_lsp.core.model import resolve
from pack_lsp.core.model.config import A2A_PREFIX, Config
from pack_lsp.core.model.pack import Located, Pack
from pack_lsp.core.model.resolve import Kind as Kind
from pack_lsp.core.model.resolve import ToolSettings
from pack_lsp.core.model.templates import PackTemplates, Placeholder, pack_templates

#: Kinds that can be renamed.
RENAMEABLE = frozenset(
    {
        Kind.PROMPT,
        Kind.TOOL,
        Kind.FRAGMENT,
        Kind.VARIABLE,
        Kind.STATE,
        Kind.COMPOSITION,
        Kind.STEP,
        Kind.PROVIDER,
        Kind.VALIDATOR,
        Kind.EVAL,
    }
)


class Role(enum.StrEnum):
    """Where an occurrence is written; decides how it is rewritten on rename."""

    KEY = "key"  # the map key defining a prompt/tool/fragment/state/artifact
    VARIABLE_NAME = "variable-name"  # `name:` of a variable declaration
    PROMPT_ID = "prompt-id"  # a prompt's `id` equal to its key
    TOOL_NAME = "tool-name"  # a tool's `name` equal to its key
    MEMBER_KEY = "member-key"  # agents.members key → prompt
    AGENTS_ENTRY = "agents-entry"
    TOOL_ITEM = "tool-item"  # a prompt's tools list item
    A2A_TOOL = "a2a-tool"  # `a2a__<member>` tools item (span covers <member>)
    BLOCKLIST = "blocklist"  # tool_policy.blocklist item
    PROMPT_TASK = "prompt-task"
    WORKFLOW_ENTRY = "workflow-entry"
    TARGET = "on-event-target"
    ON_MAX_VISITS = "on-max-visits"
    MEMBER_STATE = "member-state"
    PLACEHOLDER = "placeholder"
    ID = "id"  # a step, validator, eval or provider requirement naming itself
    COMPOSITION_REF = "composition-ref"  # a state's `composition`
    STEP_REF = "step-ref"  # then / else / depends_on / a composition's output
    STEP_PATH = "step-path"  # the first segment of a `${step.output...}` reference
    PROVIDER_REF = "provider-ref"  # `provider:` of a prompt or a step
    CONTROL = "control"  # a governance control or review naming a validator or an eval


@dataclass(frozen=True, slots=True, order=True)
class SymbolId:
    kind: Kind
    name: str
    scope: str | None = None  # the prompt key for variables, the composition for steps

    def describe(self) -> str:
        if self.kind is Kind.VARIABLE and self.scope is not None:
            return f"variable `{self.name}` of prompt `{self.scope}`"
        if self.kind is Kind.STEP and self.scope is not None:
            return f"step `{self.name}` of composition `{self.scope}`"
        return f"{self.kind.value} `{self.name}`"


@dataclass(frozen=True, slots=True)
class Occurrence:
    symbol: SymbolId
    span: Span  # exactly the name's characters
    role: Role
    definition: bool = False
    #: The whole scalar (quotes included) that holds the name. When the name's
    #: characters could not be located inside it (escapes), ``exact`` is False and a
    #: rename rewrites the whole scalar.
    node_span: Span | None = None
    exact: bool = True
    #: For placeholders: the whole ``{{ ... }}``.
    outer: Span | None = None
    #: Text written before the name inside the same scalar (``a2a__``).
    prefix: str = ""
    #: The template (prompt key or ``fragment:<key>``) a placeholder belongs to.
    owner: str | None = None


@dataclass(slots=True)
class Index:
    occurrences: list[Occurrence] = field(default_factory=list)
    by_symbol: dict[SymbolId, list[Occurrence]] = field(default_factory=dict)
    #: Which prompts include each fragment (directly or through other fragments).
    fragment_users: dict[str, set[str]] = field(default_factory=dict)

    def add(self, occ: Occurrence) -> None:
        self.occurrences.append(occ)
        self.by_symbol.setdefault(occ.symbol, []).append(occ)

    def at(self, offset: int) -> list[Occurrence]:
        """Occurrences whose name contains ``offset`` (innermost first).

        A placeholder is also found from anywhere inside its ``{{ }}``.
        """
        hits = [o for o in self.occurrences if o.span.contains(offset)]
        if not hits:
            hits = [
                o
                for o in self.occurrences
                if o.outer is not None and o.outer.start <= offset < o.outer.end
            ]
        hits.sort(key=lambda o: o.span.length)
        if hits:
            best = hits[0].span
            hits = [o for o in hits if o.span == best]
        return hits

    def symbols_at(self, offset: int) -> list[SymbolId]:
        return list(dict.fromkeys(o.symbol for o in self.at(offset)))

    def definitions(self, symbol: SymbolId) -> list[Occurrence]:
        return [o for o in self.by_symbol.get(symbol, ()) if o.definition]

    def references(self, symbol: SymbolId) -> list[Occurrence]:
        return [o for o in self.by_symbol.get(symbol, ()) if not o.definition]

    def all(self, symbol: SymbolId) -> list[Occurrence]:
        return list(self.by_symbol.get(symbol, ()))

    def defined(self, kind: Kind, scope: str | None = None) -> set[str]:
        return {
            s.name
            for s, occs in self.by_symbol.items()
            if s.kind is kind and s.scope == scope and any(o.definition for o in occs)
        }


# ------------------------------------------------------------------------- helpers


def name_span(text: str, span: Span, value: str) -> tuple[Span, bool]:
    """The span of ``value``'s characters inside the scalar written at ``span``.

    Plain scalars are the value itself; quoted scalars without escapes are the
    value between the quotes. Otherwise the whole scalar is returned with
    ``exact=False``.
    """
    seg = text[span.start : span.end]
    if seg == value:
        return span, True
    if len(seg) >= 2 and seg[0] in "\"'" and seg[-1] == seg[0] and seg[1:-1] == value:
        return Span(span.start + 1, span.end - 1), True
    return span, False


class _Builder:
    def __init__(self, pack: Pack, text: str, config: Config, templates: PackTemplates) -> None:
        self.pack = pack
        self.text = text
        self.config = config
        self.templates = templates
        self.settings = ToolSettings.of(config)
        self.owner: str | None = None  # the prompt whose tools are being read
        self.index = Index()

    def located(
        self,
        loc: Located | None,
        symbol: SymbolId,
        role: Role,
        definition: bool = False,
        prefix: str = "",
    ) -> None:
        if loc is None or not isinstance(loc.value, str):
            return
        span, exact = name_span(self.text, loc.span, loc.value)
        if prefix and exact:
            span = Span(span.start + len(prefix), span.end)
        self.index.add(Occurrence(symbol, span, role, definition, loc.span, exact, None, prefix))

    def key(
        self,
        key: str,
        key_span: Span,
        symbol: SymbolId,
        role: Role = Role.KEY,
        definition: bool = True,
    ) -> None:
        span, exact = name_span(self.text, key_span, key)
        self.index.add(Occurrence(symbol, span, role, definition, key_span, exact))

    # -- tool-ish references ------------------------------------------------------

    def tool_ref(self, item: Located, role: Role) -> None:
        """A prompt's tools item or blocklist entry, as ``core/model/resolve.py`` reads it:
        its targets are the definitions go-to-definition finds."""
        name = item.value
        if not isinstance(name, str):
            return
        owner = self.owner if role is Role.TOOL_ITEM else None
        ref = resolve.resolve_tool(name, owner, self.pack, self.settings)
        if isinstance(ref, resolve.A2A) or (isinstance(ref, resolve.SelfCall) and ref.qualified):
            target = ref.member if isinstance(ref, resolve.A2A) else ref.key
            self.located(item, SymbolId(Kind.PROMPT, target), Role.A2A_TOOL, prefix=A2A_PREFIX)
            return
        for found in resolve.tool_targets(ref):
            self.located(item, SymbolId(found.kind, found.name), role)
        if isinstance(ref, resolve.Undefined):
            # An undefined tool: still a symbol, so highlights and quick fixes see it.
            self.located(item, SymbolId(Kind.TOOL, name), role)

    # -- placeholders -------------------------------------------------------------

    def placeholder(self, ph: Placeholder, scopes: Iterable[str | None], owner: str) -> None:
        name = ph.name
        if not name:
            return
        symbols: list[SymbolId]
        if ph.kind == "fragment":
            symbols = [SymbolId(Kind.FRAGMENT, name)]
        elif ph.kind == "artifact":
            symbols = [SymbolId(Kind.ARTIFACT, name)]
        elif ph.kind == "variable" and not ph.scoped:
            symbols = [SymbolId(Kind.VARIABLE, name, scope) for scope in scopes]
        else:
            return
        exact = self.text[ph.name_span.start : ph.name_span.end] == name
        for symbol in symbols:
            self.index.add(
                Occurrence(
                    symbol, ph.name_span, Role.PLACEHOLDER, False, None, exact, ph.span, "", owner
                )
            )

    # -- the pack -----------------------------------------------------------------

    def build(self) -> Index:
        pack = self.pack
        for key, prompt in pack.prompts.items():
            sym = SymbolId(Kind.PROMPT, key)
            self.key(key, prompt.key_span, sym)
            if prompt.id is not None and prompt.id.value == key:
                self.located(prompt.id, sym, Role.PROMPT_ID)
            for var in prompt.variables:
                if var.name is not None and isinstance(var.name.value, str):
                    self.located(
                        var.name,
                        SymbolId(Kind.VARIABLE, var.name.value, key),
                        Role.VARIABLE_NAME,
                        definition=True,
                    )
            self.owner = key
            for item in prompt.tools:
                self.tool_ref(item, Role.TOOL_ITEM)
            if prompt.tool_policy is not None:
                for item in prompt.tool_policy.blocklist:
                    self.tool_ref(item, Role.BLOCKLIST)
        for key, tool in pack.tools.items():
            sym = SymbolId(Kind.TOOL, key)
            self.key(key, tool.key_span, sym)
            if tool.name is not None and tool.name.value == key:
                self.located(tool.name, sym, Role.TOOL_NAME)
        for key, fragment in pack.fragments.items():
            self.key(key, fragment.key_span, SymbolId(Kind.FRAGMENT, key))
        if pack.agents is not None:
            self.located(
                pack.agents.entry,
                SymbolId(Kind.PROMPT, _text(pack.agents.entry)),
                Role.AGENTS_ENTRY,
            )
            for key, member in pack.agents.members.items():
                self.key(
                    key,
                    member.key_span,
                    SymbolId(Kind.PROMPT, key),
                    Role.MEMBER_KEY,
                    definition=False,
                )
                self.located(
                    member.state, SymbolId(Kind.STATE, _text(member.state)), Role.MEMBER_STATE
                )
        if pack.workflow is not None:
            wf = pack.workflow
            self.located(wf.entry, SymbolId(Kind.STATE, _text(wf.entry)), Role.WORKFLOW_ENTRY)
            for key, state in wf.states.items():
                self.key(key, state.key_span, SymbolId(Kind.STATE, key))
                self.located(
                    state.prompt_task,
                    SymbolId(Kind.PROMPT, _text(state.prompt_task)),
                    Role.PROMPT_TASK,
                )
                for tr in state.on_event:
                    self.located(tr.target, SymbolId(Kind.STATE, _text(tr.target)), Role.TARGET)
                self.located(
                    state.on_max_visits,
                    SymbolId(Kind.STATE, _text(state.on_max_visits)),
                    Role.ON_MAX_VISITS,
                )
                for akey, art in state.artifacts.items():
                    self.key(akey, art.key_span, SymbolId(Kind.ARTIFACT, akey))
        self.compositions()
        self.providers()
        self.governance()
        self.placeholders()
        return self.index

    def compositions(self) -> None:
        pack = self.pack
        if pack.workflow is not None:
            for state in pack.workflow.states.values():
                self.located(
                    state.composition,
                    SymbolId(Kind.COMPOSITION, _text(state.composition)),
                    Role.COMPOSITION_REF,
                )
        for key, comp in pack.compositions.items():
            self.key(key, comp.key_span, SymbolId(Kind.COMPOSITION, key))
            steps = comp.all_steps()
            for step in steps:
                if step.id is not None:
                    self.located(
                        step.id, SymbolId(Kind.STEP, step.id.text, key), Role.ID, definition=True
                    )
            for step in steps:
                self.located(
                    step.prompt_task,
                    SymbolId(Kind.PROMPT, _text(step.prompt_task)),
                    Role.PROMPT_TASK,
                )
                for tool in ([step.tool] if step.tool is not None else []) + step.tools:
                    self.located(tool, SymbolId(Kind.TOOL, _text(tool)), Role.TOOL_ITEM)
                for ref in [step.then, step.else_, *step.depends_on]:
                    self.located(ref, SymbolId(Kind.STEP, _text(ref), key), Role.STEP_REF)
                for ev in step.evals:
                    self.located(ev, SymbolId(Kind.EVAL, _text(ev)), Role.CONTROL)
                for ref in step.references:
                    self.step_paths(ref, key)
            self.located(comp.output, SymbolId(Kind.STEP, _text(comp.output), key), Role.STEP_REF)

    def step_paths(self, ref: Located, composition: str) -> None:
        """``${step.output...}`` inside a string: the step id's characters, when the
        scalar is written without escapes."""
        span, exact = name_span(self.text, ref.span, ref.text)
        if not exact:
            return
        for match in _STEP_PATH.finditer(ref.text):
            name = match.group(1)
            if name == "input":
                continue
            at = span.start + match.start(1)
            self.index.add(
                Occurrence(
                    SymbolId(Kind.STEP, name, composition),
                    Span(at, at + len(name)),
                    Role.STEP_PATH,
                    False,
                    ref.span,
                    True,
                )
            )

    def providers(self) -> None:
        pack = self.pack
        for req in pack.providers:
            self.located(req.key, SymbolId(Kind.PROVIDER, _text(req.key)), Role.ID, True)
        for prompt in pack.prompts.values():
            self.located(
                prompt.provider, SymbolId(Kind.PROVIDER, _text(prompt.provider)), Role.PROVIDER_REF
            )
        for comp in pack.compositions.values():
            for step in comp.all_steps():
                self.located(
                    step.provider, SymbolId(Kind.PROVIDER, _text(step.provider)), Role.PROVIDER_REF
                )

    def governance(self) -> None:
        pack = self.pack
        for prompt in pack.prompts.values():
            for v in prompt.validators:
                self.located(v.id, SymbolId(Kind.VALIDATOR, _text(v.id)), Role.ID, True)
            for ev in prompt.evals:
                self.located(ev.id, SymbolId(Kind.EVAL, _text(ev.id)), Role.ID, True)
        for ev in pack.evals:
            self.located(ev.id, SymbolId(Kind.EVAL, _text(ev.id)), Role.ID, True)
        for gov in pack.governance:
            for ob in gov.obligations:
                for control in ob.controls:
                    kind = {"validator": Kind.VALIDATOR, "eval": Kind.EVAL}.get(control.kind)
                    if kind is not None:
                        self.located(
                            control.value, SymbolId(kind, control.value.text), Role.CONTROL
                        )
            for review in gov.reviews:
                self.located(review.eval, SymbolId(Kind.EVAL, _text(review.eval)), Role.CONTROL)

    def placeholders(self) -> None:
        templates = self.templates
        users: dict[str, set[str]] = defaultdict(set)
        for key in self.pack.prompts:
            for name in templates.fragments_included_by(key):
                users[name].add(key)
        for info in templates.templates:
            if info.owner == "prompt":
                scopes: list[str | None] = [info.key]
                owner = info.key
            else:
                scopes = list(sorted(users.get(info.key, ()))) or [None]
                owner = f"fragment:{info.key}"
            for ph in info.placeholders:
                self.placeholder(ph, scopes, owner)
        self.index.fragment_users = dict(users)


_STEP_PATH = re.compile(r"\$\{\s*([A-Za-z_][A-Za-z0-9_]*)")


def _text(loc: Located | None) -> str:
    return loc.value if loc is not None and isinstance(loc.value, str) else ""


def build_index(
    pack: Pack, text: str, config: Config | None = None, templates: PackTemplates | None = None
) -> Index:
    config = config or Config()
    if templates is None:
        templates = pack_templates(pack, text, config.fragment_dialect)
    return _Builder(pack, text, config, templates).build()


def index_for(analysis: Analysis) -> Index:
    """The index of an analysis, built once per analysis (kept in ``analysis.derived``)."""

    def build() -> Index:
        if analysis.pack is None:
            return Index()
        return build_index(
            analysis.pack, analysis.text, analysis.config, analysis.derived.templates
        )

    return analysis.derived.memo(index_for, build)


#: Kinds whose names the resolver knows in a pack (``resolve.names_of``).
_RESOLVED = frozenset(Kind) - {Kind.MEMBER, Kind.OBLIGATION}


def definitions_of(analysis: Analysis, symbol: SymbolId) -> list[Occurrence]:
    """Where ``symbol`` is defined in the pack of ``analysis``: the resolver decides
    whether it is defined (``core/model/resolve.py``, as the rules do), the index knows where
    it is written. Go-to-definition and rename ask here."""
    pack = analysis.pack
    if pack is None:
        return []
    if symbol.kind in _RESOLVED:
        found = resolve.resolve_ref(symbol.kind, symbol.name, pack, symbol.scope)
        if not isinstance(found, resolve.Defined):
            return []
    return index_for(analysis).definitions(symbol)


def iter_symbols(index: Index, kind: Kind) -> Iterator[SymbolId]:
    return (s for s in index.by_symbol if s.kind is kind)
