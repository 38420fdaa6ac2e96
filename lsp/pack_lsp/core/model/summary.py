"""What a per-prompt check may read outside its prompt: ``PackSummary``.

A rule module's ``check_prompt(ctx, prompt)`` gets a ``PromptContext``: the prompt's
own templates and a ``PackSummary`` built once per analysis from the pack. It has no
pack, tree, data or text to read anything else from, so the summary is by
construction everything a per-prompt result depends on besides the prompt; it is
also the fingerprint incremental analysis compares (``same_after``) before reusing
a prompt's results. A check that needs something new outside its prompt adds a
field here, and that field is compared from then on: nothing to declare twice,
nothing to forget (docs/decisions.md, D31).

Fields hold plain values only (strings, numbers, tuples, frozen dataclasses of
them, spans, the configuration); ``tests/test_rule_units.py`` checks the annotations.
Spans are compared as moved by the edit (``same_after``): a span outside the edited
block that moved with the text is unchanged, one inside it never is.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Literal

from pack_lsp.core.base.text import Span
from pack_lsp.core.model.config import Config
from pack_lsp.core.model.pack import Pack
from pack_lsp.core.model.templates import PackTemplates, Placeholder, TemplateInfo, workflow_tasks

Owner = Literal["prompt", "fragment"]


@dataclass(frozen=True, slots=True)
class ToolNames:
    """What a name in a prompt's ``tools`` list resolves against (``tools.resolve_tool``).

    ``tools`` are the pack tools' keys with their ``name`` (or None), in order;
    ``members`` the keys of ``agents.members`` in order (None without an ``agents``
    section); ``prompts`` the prompt keys in order; ``namespaces`` the configured
    tool namespaces.
    """

    tools: tuple[tuple[str, str | None], ...]
    members: tuple[str, ...] | None
    prompts: tuple[str, ...]
    namespaces: tuple[str, ...]
    # Lookup tables made from the fields above (not compared: they add nothing).
    _tool_keys: frozenset[str] = field(default=frozenset(), compare=False, repr=False)
    _member_keys: frozenset[str] = field(default=frozenset(), compare=False, repr=False)
    _prompt_keys: frozenset[str] = field(default=frozenset(), compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_tool_keys", frozenset(k for k, _ in self.tools))
        object.__setattr__(self, "_member_keys", frozenset(self.members or ()))
        object.__setattr__(self, "_prompt_keys", frozenset(self.prompts))

    @classmethod
    def of(cls, pack: Pack, namespaces: Sequence[str]) -> ToolNames:
        return cls(
            tuple(
                (key, tool.name.value if tool.name is not None else None)
                for key, tool in pack.tools.items()
            ),
            tuple(pack.agents.members) if pack.agents is not None else None,
            tuple(pack.prompts),
            tuple(namespaces),
        )

    @property
    def has_agents(self) -> bool:
        return self.members is not None

    def is_tool(self, name: str) -> bool:
        return name in self._tool_keys

    def is_member(self, name: str) -> bool:
        return name in self._member_keys

    def is_prompt(self, name: str) -> bool:
        return name in self._prompt_keys

    def tool_keys(self) -> list[str]:
        return [key for key, _ in self.tools]

    def member_keys(self) -> list[str]:
        return list(self.members or ())

    def keys_named(self, name: str) -> list[str]:
        """The keys of the pack tools whose ``name`` is ``name``."""
        return [key for key, named in self.tools if named == name]


@dataclass(frozen=True, slots=True)
class Use:
    """A placeholder as per-prompt checks see it: what it names and where, without
    its offsets inside its template's text (which an edit before it in the same
    template moves)."""

    kind: str
    name: str
    span: Span
    name_span: Span
    syntax: str
    scoped: bool

    @classmethod
    def of(cls, p: Placeholder) -> Use:
        return cls(p.kind, p.name, p.span, p.name_span, p.syntax, p.scoped)


@dataclass(frozen=True, slots=True)
class FragmentSummary:
    """A fragment as per-prompt checks see it: its key and its templates' placeholders."""

    key: str
    placeholders: tuple[Use, ...]


@dataclass(frozen=True, slots=True)
class PackSummary:
    """Everything a per-prompt check may read outside the prompt it checks.

    ``prompt_spans`` are the prompts' key spans, in the order of ``names.prompts``;
    ``dialect`` and ``template_context`` what the placeholders of every template
    depend on besides its text (the fragment dialect, the delimiters and, for the
    ``promptkit`` dialect, the fragment names: ``PackTemplates.context``);
    ``fragments`` every fragment in order; ``tasks`` the prompts a workflow state runs.
    """

    config: Config
    names: ToolNames
    prompt_spans: tuple[Span, ...]
    dialect: str
    template_context: tuple[object, ...]
    fragments: tuple[FragmentSummary, ...]
    tasks: frozenset[str]
    _fragments: dict[str, FragmentSummary] = field(default_factory=dict, compare=False, repr=False)
    _spans: dict[str, Span] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_fragments", {f.key: f for f in self.fragments})
        object.__setattr__(
            self, "_spans", dict(zip(self.names.prompts, self.prompt_spans, strict=True))
        )

    def fragment_keys(self) -> list[str]:
        return [f.key for f in self.fragments]

    def is_fragment(self, name: str) -> bool:
        return name in self._fragments

    def prompt_key_span(self, key: str) -> Span:
        """The span of prompt ``key``'s key (``KeyError`` for a key that is no prompt)."""
        return self._spans[key]

    def reached(self, own: Sequence[TemplateInfo]) -> Iterator[tuple[Owner, str, Use]]:
        """The placeholders of a prompt's templates ``own``, then those of the fragments
        they include, directly or through other fragments (breadth first): the order
        of ``PackTemplates.placeholders_of_prompt``, as (owner, owner's key, placeholder)."""
        queue: deque[str] = deque()
        for t in own:
            for p in t.placeholders:
                yield t.owner, t.key, Use.of(p)
                if p.kind == "fragment":
                    queue.append(p.name)
        seen: dict[str, None] = {}
        while queue:
            name = queue.popleft()
            if name in seen:
                continue
            seen[name] = None
            queue.extend(u.name for u in self._placeholders(name) if u.kind == "fragment")
        for name in seen:
            for use in self._placeholders(name):
                yield "fragment", name, use

    def _placeholders(self, name: str) -> tuple[Use, ...]:
        found = self._fragments.get(name)
        return found.placeholders if found is not None else ()


def summarize(pack: Pack, config: Config, templates: PackTemplates) -> PackSummary:
    """The summary of ``pack`` (built once per analysis)."""
    fragments: dict[str, list[Use]] = {key: [] for key in pack.fragments}
    for t in templates.templates:
        if t.owner == "fragment":
            fragments.setdefault(t.key, []).extend(map(Use.of, t.placeholders))
    return PackSummary(
        config,
        ToolNames.of(pack, config.tool_namespaces),
        tuple(prompt.key_span for prompt in pack.prompts.values()),
        templates.dialect,
        templates.context,
        tuple(FragmentSummary(key, tuple(found)) for key, found in fragments.items()),
        workflow_tasks(pack),
    )


@dataclass(frozen=True, slots=True)
class PromptContext:
    """What ``check_prompt`` receives besides the prompt: the summary of the rest of
    the pack and the prompt's own templates (scanned under
    ``summary.template_context``, in document order)."""

    summary: PackSummary
    templates: tuple[TemplateInfo, ...]


# --------------------------------------------------------------------- comparison


#: Types compared with ``==``: no spans inside (the configuration holds none).
_EQUAL = frozenset({str, int, float, bool, type(None), frozenset, Config})
#: The compared fields of each dataclass met so far.
_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields(kind: type) -> tuple[str, ...]:
    found = _FIELDS.get(kind)
    if found is None:
        found = _FIELDS[kind] = tuple(f.name for f in fields(kind) if f.compare)
    return found


def same_after(old: object, new: object, start: int, end: int, delta: int) -> bool:
    """Whether ``new`` is ``old`` after an edit of the old ``[start, end)`` that moved
    what follows by ``delta``: equal, with every span of ``old`` moved to the span at
    the same place of ``new`` (a span inside the edit is never the same).

    Walks tuples, lists, dicts and dataclasses (compared fields only); anything else
    is compared with ``==``.
    """
    if old is new:
        # One object in both versions: only what lies before the edit is shared (the
        # nodes, plain data and prompt models before it), and its spans are the same.
        return True
    kind = type(old)
    if kind is not type(new):
        return False
    if kind in _EQUAL:
        return old == new
    if kind is Span:
        assert isinstance(old, Span) and isinstance(new, Span)
        a, b = old.start, old.end
        if b <= start:
            return a == new.start and b == new.end
        if a >= end:
            return a + delta == new.start and b + delta == new.end
        return False
    if kind is tuple or kind is list:
        assert isinstance(old, tuple | list) and isinstance(new, tuple | list)
        if len(old) != len(new):
            return False
        for x, y in zip(old, new, strict=True):
            if type(x) in _EQUAL:
                if type(y) is not type(x) or x != y:
                    return False
            elif not same_after(x, y, start, end, delta):
                return False
        return True
    if kind is dict:
        assert isinstance(old, dict) and isinstance(new, dict)
        return list(old) == list(new) and all(
            same_after(v, new[k], start, end, delta) for k, v in old.items()
        )
    if is_dataclass(old):
        return all(
            same_after(getattr(old, name), getattr(new, name), start, end, delta)
            for name in _fields(kind)
        )
    return old == new
