"""What a name written in a pack refers to: the one answer every feature asks.

Rules (undefined tools, agents, workflow and composition references), completion,
hover, go-to-definition, references, rename, the agents topology and the cards all
resolve names here, so a name never means one thing to a diagnostic and another to
navigation.

**Tools.** A name in a prompt's ``tools`` list resolves, in this order, to:

- ``Wildcard`` — an entry ending in ``*`` is a prefix pattern (PromptKit v1.5.6+,
  ``mcp__kb__*``): it matches the pack tools with that prefix and, when the prefix
  lies in a runtime namespace, tools the runtime provides;
- ``ToolAndMember`` — a key of the pack's ``tools`` that is also an agents member.
  RFC 0007 routes a member key over A2A; PromptKit registers the member as the tool
  ``a2a__<key>`` (always offered to the model) and keeps the pack tool under the
  bare name. Either way the agent is called; the pack tool is reachable by that
  name only under PromptKit (``Resolution.tool_kept``);
- ``PackTool``, then ``SelfCall`` (the prompt's own key), ``Member`` (an agents
  member), ``NonMemberPrompt`` (another prompt, RFC 0007 rule 4);
- when ``a2a__`` is a configured namespace: ``SelfCall`` for ``a2a__<own key>``,
  ``A2A`` for ``a2a__<member>``, ``Incomplete`` for a bare ``a2a__`` and
  ``UndefinedAgent`` for anything else after the prefix;
- ``RuntimeNamespace`` / ``Incomplete`` for another configured namespace
  (``mcp__<server>__<tool>``, ``workflow__<name>``, ...);
- ``Undefined`` otherwise.

**Other references** (prompts, agents members, states, fragments, variables,
compositions, steps, providers, validators, evals, obligations) resolve to
``Defined`` or ``Missing`` (with the names it may have meant) through ``resolve_ref``
(in a pack) or ``resolve_name`` (among names a caller has already: a per-prompt
check's summary, the obligations of an effective governance object). What a kind's
names are is ``names_of`` / ``defined_names``: completion offers exactly them, and a
rule reports exactly the references that are not among them.

What changes the answer is an input: the pack, and ``ToolSettings`` (the configured
namespaces, hence whether ``a2a__`` names are valid, and the profile).
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from weakref import ref

from pack_lsp.core.base.suggest import suggestions
from pack_lsp.core.model.config import A2A_PREFIX, Config, Profile
from pack_lsp.core.model.pack import Pack
from pack_lsp.core.model.summary import ToolNames

MCP_PREFIX = "mcp__"
WILDCARD = "*"


class Kind(enum.StrEnum):
    """What a pack defines by name (the symbol kinds of the language features)."""

    PROMPT = "prompt"
    TOOL = "tool"
    MEMBER = "member"
    FRAGMENT = "fragment"
    VARIABLE = "variable"
    STATE = "state"
    ARTIFACT = "artifact"
    COMPOSITION = "composition"
    STEP = "step"
    PROVIDER = "provider"
    VALIDATOR = "validator"
    EVAL = "eval"
    OBLIGATION = "obligation"


@dataclass(frozen=True, slots=True)
class ToolSettings:
    """The configuration that changes what a tool name means."""

    namespaces: tuple[str, ...]
    profile: Profile = Profile.SPEC

    @classmethod
    def of(cls, config: Config) -> ToolSettings:
        return cls(tuple(config.tool_namespaces), config.profile)

    @property
    def a2a(self) -> bool:
        """Whether ``a2a__<member>`` names an agent (``a2a__`` is a namespace)."""
        return A2A_PREFIX in self.namespaces


DEFAULT_SETTINGS = ToolSettings.of(Config())


# --------------------------------------------------------------------- tool results


@dataclass(frozen=True, slots=True)
class PackTool:
    key: str


@dataclass(frozen=True, slots=True)
class Member:
    """An agents member, called over A2A by its bare key."""

    key: str


@dataclass(frozen=True, slots=True)
class A2A:
    """``a2a__<member>``: the member called over A2A."""

    member: str


@dataclass(frozen=True, slots=True)
class ToolAndMember:
    """A pack tool's key that is also an agents member: the agent is called;
    ``tool_kept`` says whether the pack tool stays callable under that name."""

    key: str
    tool_kept: bool


@dataclass(frozen=True, slots=True)
class SelfCall:
    """The calling prompt's own key (``qualified``: written ``a2a__<key>``)."""

    key: str
    qualified: bool


@dataclass(frozen=True, slots=True)
class NonMemberPrompt:
    """Another prompt of the pack that is not an agents member (RFC 0007 rule 4)."""

    key: str


@dataclass(frozen=True, slots=True)
class RuntimeNamespace:
    """A name the runtime provides itself (``mcp__crm__find``, ``memory__recall``)."""

    namespace: str


@dataclass(frozen=True, slots=True)
class Wildcard:
    """A prefix pattern: the pack tools it matches and the runtime namespace (if
    any) whose tools it may match too."""

    pattern: str
    matches: tuple[str, ...]
    namespace: str | None

    @property
    def prefix(self) -> str:
        return self.pattern[: -len(WILDCARD)]

    @property
    def empty(self) -> bool:
        """Nothing in the pack nor in a runtime namespace can match."""
        return not self.matches and self.namespace is None


@dataclass(frozen=True, slots=True)
class Incomplete:
    """A namespace prefix without the rest of the name (``mcp__crm``, ``a2a__``).
    ``suggestions`` are complete names to use instead."""

    namespace: str
    suggestions: tuple[str, ...] = ()

    @property
    def form(self) -> str:
        return (
            "mcp__<server>__<tool>" if self.namespace == MCP_PREFIX else f"{self.namespace}<name>"
        )


@dataclass(frozen=True, slots=True)
class UndefinedAgent:
    """``a2a__<agent>`` where ``<agent>`` is not an agents member."""

    agent: str
    suggestions: tuple[str, ...]  # complete ``a2a__`` names


@dataclass(frozen=True, slots=True)
class Undefined:
    """Nothing of that name. ``by_name``: pack tools whose ``name`` (not key) it is."""

    name: str
    suggestions: tuple[str, ...]
    by_name: tuple[str, ...] = ()


ToolResolution = (
    PackTool
    | Member
    | A2A
    | ToolAndMember
    | SelfCall
    | NonMemberPrompt
    | RuntimeNamespace
    | Wildcard
    | Incomplete
    | UndefinedAgent
    | Undefined
)

#: Results that name nothing the runtime can call (reported by the tools rules).
UNRESOLVED = (Incomplete, UndefinedAgent, Undefined)


#: The names of the last pack asked about (packs are immutable: identity is enough).
#: Completion, hover and the topology resolve every item of a pack in a row; building
#: the names once per pack keeps that linear. One entry, holding the pack weakly: a
#: pack the document has replaced, with its tree, is not kept alive by this cache.
_last: tuple[ref[Pack], tuple[str, ...], ToolNames] | None = None


def _names(source: Pack | ToolNames, settings: ToolSettings) -> ToolNames:
    """The names tools items resolve against: a per-prompt check has them in its
    summary (``core.summary``); other callers pass the pack."""
    global _last
    if isinstance(source, ToolNames):
        return source
    last = _last
    if last is not None and last[0]() is source and last[1] == settings.namespaces:
        return last[2]
    names = ToolNames.of(source, settings.namespaces)
    try:
        _last = (ref(source), tuple(settings.namespaces), names)
    except TypeError:  # a stand-in for a pack that cannot be referred to weakly
        _last = None
    return names


def members_except(source: Pack | ToolNames, owner: str | None) -> list[str]:
    """The agents members a prompt may call (all but itself, RFC 0007 rule 5)."""
    if isinstance(source, ToolNames):
        return [key for key in source.member_keys() if key != owner]
    members = source.agents.members if source.agents is not None else {}
    return [key for key in members if key != owner]


def wildcard(pattern: str, source: Pack | ToolNames, settings: ToolSettings) -> Wildcard:
    prefix = pattern[: -len(WILDCARD)]
    keys = source.tool_keys() if isinstance(source, ToolNames) else list(source.tools)
    matches = tuple(key for key in keys if key.startswith(prefix))
    # `mcp__kb__*` lies in `mcp__`; `mcp__*`, `m*` and `*` cover it.
    namespace = next(
        (
            ns
            for ns in settings.namespaces
            if ns and (prefix.startswith(ns) or ns.startswith(prefix))
        ),
        None,
    )
    return Wildcard(pattern, matches, namespace)


def resolve_tool(
    name: str,
    owner: str | None,
    source: Pack | ToolNames,
    settings: ToolSettings = DEFAULT_SETTINGS,
) -> ToolResolution:
    """What a name in the ``tools`` list of prompt ``owner`` refers to (``owner``
    None: a name outside any prompt's list, such as a blocklist entry). ``source``
    is the pack, or the names of a per-prompt check's summary (``ToolNames``)."""
    names = _names(source, settings)
    if name.endswith(WILDCARD):
        return wildcard(name, names, settings)
    if names.is_tool(name):
        if names.is_member(name):
            return ToolAndMember(name, settings.profile is Profile.PROMPTKIT)
        return PackTool(name)
    if owner is not None and name == owner:
        return SelfCall(name, False)
    if names.is_member(name):
        return Member(name)
    if names.is_prompt(name):
        return NonMemberPrompt(name)
    if settings.a2a and name.startswith(A2A_PREFIX):
        agent = name[len(A2A_PREFIX) :]
        callable_ = members_except(names, owner)
        if not agent:
            return Incomplete(A2A_PREFIX, tuple(A2A_PREFIX + m for m in callable_))
        if owner is not None and agent == owner:
            return SelfCall(agent, True)
        if names.is_member(agent):
            return A2A(agent)
        return UndefinedAgent(agent, tuple(A2A_PREFIX + s for s in suggestions(agent, callable_)))
    for space in settings.namespaces:
        if space and space != A2A_PREFIX and name.startswith(space):
            rest = name[len(space) :]
            if space == MCP_PREFIX:
                server, sep, tool = rest.partition("__")
                complete = bool(server and sep and tool)
            else:
                complete = bool(rest)
            return RuntimeNamespace(space) if complete else Incomplete(space)
    by_name = tuple(names.keys_named(name))
    candidates = [*names.tool_keys(), *members_except(names, owner)]
    found = by_name + tuple(s for s in suggestions(name, candidates) if s not in by_name)
    return Undefined(name, found, by_name)


def agent_called(result: ToolResolution) -> str | None:
    """The agents member a tools item calls over A2A (not the caller itself)."""
    if isinstance(result, Member | ToolAndMember):
        return result.key
    if isinstance(result, A2A):
        return result.member
    return None


@dataclass(frozen=True, slots=True)
class Target:
    """A symbol a reference resolves to (``scope``: the prompt of a variable, the
    composition of a step)."""

    kind: Kind
    name: str
    scope: str | None = None


def tool_targets(result: ToolResolution) -> tuple[Target, ...]:
    """The definitions a tools item leads to (go-to-definition's answer)."""
    if isinstance(result, PackTool):
        return (Target(Kind.TOOL, result.key),)
    if isinstance(result, ToolAndMember):
        agent = Target(Kind.PROMPT, result.key)
        return (agent, Target(Kind.TOOL, result.key)) if result.tool_kept else (agent,)
    if isinstance(result, Member | NonMemberPrompt | SelfCall):
        return (Target(Kind.PROMPT, result.key),)
    if isinstance(result, A2A):
        return (Target(Kind.PROMPT, result.member),)
    return ()


# ------------------------------------------------------------------ other references


@dataclass(frozen=True, slots=True)
class Defined:
    target: Target


@dataclass(frozen=True, slots=True)
class Missing:
    """An undefined reference, with the names it may have meant."""

    name: str
    suggestions: tuple[str, ...]


RefResolution = Defined | Missing


def names_of(pack: Pack, kind: Kind, scope: str | None = None) -> Collection[str]:
    """The names ``pack`` defines for ``kind``, in document order. Where the pack keeps
    them in a mapping, that mapping itself: a lookup in it reads one entry, and a
    pack-wide check's reads are recorded so (``core.recording``). ``scope`` is the
    prompt of a variable, the composition of a step."""
    if kind is Kind.PROMPT:
        return pack.prompts
    if kind is Kind.TOOL:
        return pack.tools
    if kind is Kind.MEMBER:
        return pack.agents.members if pack.agents is not None else {}
    if kind is Kind.FRAGMENT:
        return pack.fragments
    if kind is Kind.STATE:
        return pack.workflow.states if pack.workflow is not None else {}
    if kind is Kind.COMPOSITION:
        return pack.compositions
    if kind is Kind.STEP:
        comp = pack.compositions.get(scope) if scope is not None else None
        if comp is None:
            return []
        return [s.id.text for s in comp.all_steps() if s.id is not None]
    if kind is Kind.PROVIDER:
        return pack.provider_keys()
    if kind is Kind.VALIDATOR:
        return [v.id.text for p in pack.prompts.values() for v in p.validators if v.id is not None]
    if kind is Kind.EVAL:
        found = [e.id.text for p in pack.prompts.values() for e in p.evals if e.id is not None]
        return found + [e.id.text for e in pack.evals if e.id is not None]
    if kind is Kind.ARTIFACT:
        if pack.workflow is None:
            return []
        return [a for s in pack.workflow.states.values() for a in s.artifacts]
    if kind is Kind.VARIABLE:
        prompt = pack.prompts.get(scope) if scope is not None else None
        if prompt is None:
            return []
        return [
            v.name.value
            for v in prompt.variables
            if v.name is not None and isinstance(v.name.value, str)
        ]
    # Obligations resolve in an effective governance object, which the governance
    # rules compute (``rules.governance``): they pass its ids to ``resolve_name``.
    raise ValueError(f"unknown reference kind {kind!r}")


def defined_names(pack: Pack, kind: Kind, scope: str | None = None) -> list[str]:
    """The names ``pack`` defines for ``kind`` (in document order)."""
    return list(names_of(pack, kind, scope))


def resolve_name(
    kind: Kind,
    name: object,
    names: Collection[str],
    scope: str | None = None,
    *,
    extra: Iterable[str] = (),
) -> RefResolution:
    """What a reference to a ``kind`` named ``name`` resolves to among ``names`` (the
    names defined for it: ``names_of``, or those a caller holds already). ``extra``:
    names the runtime defines itself (the provider ``default``). A name that is not a
    string (a YAML number, a list) is defined by nothing."""
    text = name if isinstance(name, str) else str(name)
    if isinstance(name, str) and name in names:
        return Defined(Target(kind, name, scope))
    builtin = list(extra)
    if isinstance(name, str) and name in builtin:
        return Defined(Target(kind, name, scope))
    return Missing(text, tuple(suggestions(text, [*builtin, *names])))


def resolve_ref(
    kind: Kind, name: str, pack: Pack, scope: str | None = None, *, extra: Iterable[str] = ()
) -> RefResolution:
    """What a reference to a ``kind`` named ``name`` resolves to. ``extra``: names
    the runtime defines itself (the provider ``default``)."""
    return resolve_name(kind, name, names_of(pack, kind, scope), scope, extra=extra)
