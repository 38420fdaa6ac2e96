"""PP4xx — the `workflow` section: states, transitions, reachability and artifacts.

A state is *terminal* when it says ``terminal: true`` or has no transitions at all
(no ``on_event`` entries and no ``on_max_visits``): packs written before v1.4 end a
workflow with an empty ``on_event``. Reachability follows ``on_event`` targets and
``on_max_visits`` from ``entry``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from pack_lsp.core.base import versions
from pack_lsp.core.base.diagnostics import Diagnostic, FixKind, Related, Rule, Severity, Tag, make
from pack_lsp.core.base.example_pack import pack_example
from pack_lsp.core.base.fixes import Quote, RemoveEntry, RenameEvent, suggest
from pack_lsp.core.base.problemdata import (
    AgentControlLoop,
    AgentControlOnTerminalState,
    BudgetBelowMaxVisits,
    EventNameCase,
    NoTerminalState,
    OnMaxVisitsChain,
    OnMaxVisitsWithoutMaxVisits,
    StateWithoutExit,
    StateWithoutTransitions,
    TerminalWithTransitions,
    UndeclaredArtifact,
    UndefinedPrompt,
    UndefinedState,
    UnknownOrchestration,
    UnknownPersistence,
    UnreachableState,
    WorkflowVersion,
)
from pack_lsp.core.base.suggest import hint_for, suggestions
from pack_lsp.core.checks.rules.templates import templates_of
from pack_lsp.core.model.config import Profile
from pack_lsp.core.model.context import CheckContext
from pack_lsp.core.model.pack import Located, State, Workflow
from pack_lsp.core.model.resolve import Defined, Kind, Missing, resolve_name

CATEGORY = "Workflow"
PERSISTENCE = ("transient", "persistent")
ORCHESTRATION = ("internal", "external", "hybrid")
#: Orchestration values the ``promptkit`` profile also accepts (its compositions).
ORCHESTRATION_PROMPTKIT = ("composition",)
PASCAL_CASE = re.compile(r"^[A-Z][A-Za-z0-9]*$")

UNSUPPORTED_WORKFLOW_VERSION = Rule(
    "PP401",
    "unsupported-workflow-version",
    Severity.WARNING,
    "`workflow.version` is neither 1 nor 2, the versions runtimes understand. PromptKit "
    "refuses such a pack: an error under the `promptkit` profile.",
    pack_example(
        "prompts:\n"
        "  triage: {id: triage, name: Triage, version: 1.0.0, system_template: Help}\n"
        "workflow:\n"
        "  version: 3\n"
        "  entry: triage\n"
        "  states:\n"
        "    triage: {prompt_task: triage, terminal: true}\n"
    ),
    "Use `version: 1`.",
    CATEGORY,
)

UNDEFINED_STATE = Rule(
    "PP402",
    "undefined-state",
    Severity.ERROR,
    "`workflow.entry`, an `on_event` target or an `on_max_visits` target names a state "
    "that is not a key of `workflow.states`.",
    pack_example(
        "prompts:\n"
        "  triage: {id: triage, name: Triage, version: 1.0.0, system_template: Help}\n"
        "workflow:\n"
        "  version: 1\n"
        "  entry: triag   # did you mean `triage`?\n"
        "  states:\n"
        "    triage: {prompt_task: triage, terminal: true}\n"
    ),
    "Correct the name (a quick fix offers the suggestions) or add the state.",
    CATEGORY,
    fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
    safe_fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
)

UNDEFINED_PROMPT_TASK = Rule(
    "PP403",
    "undefined-prompt-task",
    Severity.ERROR,
    "A state's `prompt_task` is not a key of the pack's `prompts`.",
    pack_example(
        "prompts:\n"
        "  triage: {id: triage, name: Triage, version: 1.0.0, system_template: Help}\n"
        "workflow:\n"
        "  version: 1\n"
        "  entry: triage\n"
        "  states:\n"
        "    triage: {prompt_task: triag, terminal: true}   # did you mean `triage`?\n"
    ),
    "Use the key of a prompt, or add the prompt.",
    CATEGORY,
    fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
    safe_fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
)

TERMINAL_STATE_WITH_TRANSITIONS = Rule(
    "PP404",
    "terminal-state-with-transitions",
    Severity.WARNING,
    "A state marked `terminal: true` declares `on_event` transitions. The workflow ends "
    "in a terminal state, so the transitions can never fire.",
    pack_example(
        "prompts:\n"
        "  triage: {id: triage, name: Triage, version: 1.0.0, system_template: Help}\n"
        "  closing: {id: closing, name: Closing, version: 1.0.0, system_template: Help}\n"
        "workflow:\n"
        "  version: 1\n"
        "  entry: triage\n"
        "  states:\n"
        "    triage: {prompt_task: triage, on_event: {Done: closing}}\n"
        "    closing:\n"
        "      prompt_task: closing\n"
        "      terminal: true\n"
        "      on_event: {Reopen: triage}\n"
    ),
    "Remove the `on_event` transitions, or remove `terminal: true` if the state should continue.",
    CATEGORY,
)

EVENT_NAME_NOT_PASCAL_CASE = Rule(
    "PP405",
    "event-name-not-pascal-case",
    Severity.INFORMATION,
    "An `on_event` event name is not PascalCase (`Resolved`, `NeedsReview`), the "
    "convention runtimes use for workflow events.",
    pack_example(
        "prompts:\n"
        "  triage: {id: triage, name: Triage, version: 1.0.0, system_template: Help}\n"
        "  closing: {id: closing, name: Closing, version: 1.0.0, system_template: Help}\n"
        "workflow:\n"
        "  version: 1\n"
        "  entry: triage\n"
        "  states:\n"
        "    triage:\n"
        "      prompt_task: triage\n"
        "      on_event: {resolved: closing}   # events are PascalCase: Resolved\n"
        "    closing: {prompt_task: closing, terminal: true}\n"
    ),
    "Rename the event (`Resolved`) here and wherever it is emitted.",
    CATEGORY,
    fixes=(FixKind.RENAME_EVENT,),
)

UNREACHABLE_STATE = Rule(
    "PP406",
    "unreachable-state",
    Severity.WARNING,
    "No chain of `on_event`/`on_max_visits` transitions leads from `entry` to this state.",
    pack_example(
        "prompts:\n"
        "  triage: {id: triage, name: Triage, version: 1.0.0, system_template: Help}\n"
        "  closing: {id: closing, name: Closing, version: 1.0.0, system_template: Help}\n"
        "workflow:\n"
        "  version: 1\n"
        "  entry: triage\n"
        "  states:\n"
        "    triage: {prompt_task: triage, terminal: true}\n"
        "    closing: {prompt_task: closing, terminal: true}   # nothing leads here\n"
    ),
    "Add a transition to the state, or remove it.",
    CATEGORY,
)

NO_TERMINAL_STATE_REACHABLE = Rule(
    "PP407",
    "no-terminal-state-reachable",
    Severity.INFORMATION,
    "No terminal state (one with `terminal: true` or without transitions) can be reached "
    "from `entry`: the workflow only ends when a budget or `max_visits` stops it.",
    pack_example(
        "prompts:\n"
        "  triage: {id: triage, name: Triage, version: 1.0.0, system_template: Help}\n"
        "  closing: {id: closing, name: Closing, version: 1.0.0, system_template: Help}\n"
        "workflow:\n"
        "  version: 1\n"
        "  entry: triage\n"
        "  states:\n"
        "    triage: {prompt_task: triage, on_event: {Next: closing}}\n"
        "    closing: {prompt_task: closing, on_event: {Back: triage}}\n"
    ),
    "Add a terminal state (`terminal: true`) and a transition that leads to it.",
    CATEGORY,
)

UNKNOWN_PERSISTENCE = Rule(
    "PP408",
    "unknown-persistence",
    Severity.WARNING,
    "A state's `persistence` is neither `transient` nor `persistent`. The specification's "
    "schema leaves the field open, but runtimes only know these two values (under the "
    "`promptkit` profile PromptKit's schema refuses other values: PP104).",
    pack_example(
        "prompts:\n"
        "  triage: {id: triage, name: Triage, version: 1.0.0, system_template: Help}\n"
        "workflow:\n"
        "  version: 1\n"
        "  entry: triage\n"
        "  states:\n"
        "    triage: {prompt_task: triage, terminal: true, persistence: permanent}\n"
    ),
    "Use `persistent` (keep the conversation) or `transient` (start afresh).",
    CATEGORY,
    fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
    safe_fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
)

UNKNOWN_ORCHESTRATION = Rule(
    "PP409",
    "unknown-orchestration",
    Severity.WARNING,
    "A state's `orchestration` is not `internal`, `external` or `hybrid` (for packs "
    "targeting v1.5 or later, and under the `promptkit` profile, the schema itself "
    "reports it, as PP104, and also accepts `composition`).",
    (
        "$schema: https://promptpack.org/schema/v1.4.0/promptpack.schema.json\n"
        "id: support\n"
        "name: Support\n"
        "version: 1.0.0\n"
        'template_engine: {version: v1, syntax: "{{variable}}"}\n'
        "prompts:\n"
        "  triage: {id: triage, name: Triage, version: 1.0.0, system_template: Help}\n"
        "workflow:\n"
        "  version: 1\n"
        "  entry: triage\n"
        "  states:\n"
        "    triage: {prompt_task: triage, terminal: true, orchestration: manual}\n"
    ),
    "Use `internal` (the runtime drives the state), `external` (the caller does) or `hybrid`.",
    CATEGORY,
    fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
    safe_fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
)

UNDECLARED_ARTIFACT = Rule(
    "PP410",
    "undeclared-artifact",
    Severity.WARNING,
    "A prompt run by a workflow state reads `{{artifacts.name}}`, but no state of the "
    "workflow declares an artifact `name` in its `artifacts`, so nothing is ever "
    "substituted. (Artifacts flow between states: one state declares and writes an "
    "artifact, the states after it may read it.)",
    pack_example(
        "prompts:\n"
        '  review: {id: review, name: Review, version: 1.0.0, system_template: "Check'
        ' {{artifacts.diff}}"}\n'
        "workflow:\n"
        "  version: 1\n"
        "  entry: review\n"
        "  states:\n"
        "    review:\n"
        "      prompt_task: review\n"
        "      terminal: true\n"
        "      artifacts: {summary: {type: text/plain}}   # no `diff`\n"
    ),
    "Declare the artifact under the `artifacts` of the state that produces it (with its "
    "media `type`), or correct the placeholder.",
    CATEGORY,
    fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
    safe_fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
)

STATE_WITHOUT_TRANSITIONS = Rule(
    "PP411",
    "state-without-transitions",
    Severity.WARNING,
    "Profile `promptkit` only: a state that is not `terminal: true` has an empty "
    "`on_event`. PromptKit's schema asks only for the key (without it the state is "
    "PP101), so the pack loads, and the runtime then treats the state as terminal: the "
    "workflow ends there although the state does not say so.",
    pack_example(
        "prompts:\n"
        "  triage: {id: triage, name: Triage, version: 1.0.0, system_template: Help}\n"
        "workflow:\n"
        "  version: 1\n"
        "  entry: triage\n"
        "  states:\n"
        "    triage: {prompt_task: triage, on_event: {}}   # no event leaves it\n"
    ),
    "Mark the state `terminal: true`, or give it `on_event` transitions.",
    CATEGORY,
    example_config='profile = "promptkit"\n',
)

STATE_WITHOUT_EXIT = Rule(
    "PP412",
    "state-without-exit",
    Severity.WARNING,
    "In a version 2 workflow, a state that is not `terminal: true` has no `on_event` "
    "transitions and no `on_max_visits`: version 2 marks the end of a workflow "
    "explicitly, so the conversation is stuck in this state.",
    pack_example(
        "prompts:\n"
        "  triage: {id: triage, name: Triage, version: 1.0.0, system_template: Help}\n"
        "workflow:\n"
        "  version: 2\n"
        "  entry: triage\n"
        "  states:\n"
        "    triage: {prompt_task: triage}   # not terminal, no on_event\n"
    ),
    "Mark the state `terminal: true`, or give it transitions.",
    CATEGORY,
)

ON_MAX_VISITS_WITHOUT_MAX_VISITS = Rule(
    "PP413",
    "on-max-visits-without-max-visits",
    Severity.WARNING,
    "A state declares `on_max_visits` but no `max_visits`, so the redirect never fires.",
    pack_example(
        "prompts:\n"
        "  triage: {id: triage, name: Triage, version: 1.0.0, system_template: Help}\n"
        "  closing: {id: closing, name: Closing, version: 1.0.0, system_template: Help}\n"
        "workflow:\n"
        "  version: 1\n"
        "  entry: triage\n"
        "  states:\n"
        "    triage: {prompt_task: triage, on_max_visits: closing, on_event: {Again: "
        "triage, Done: closing}}\n"
        "    closing: {prompt_task: closing, terminal: true}\n"
    ),
    "Add `max_visits: <n>` to the state, or remove `on_max_visits`.",
    CATEGORY,
)

ON_MAX_VISITS_CHAIN = Rule(
    "PP414",
    "on-max-visits-chain",
    Severity.WARNING,
    "The `on_max_visits` target of a state itself has `max_visits`: when the budget of "
    "the first state runs out, the workflow is redirected to a state whose own budget "
    "may already be spent, a chain of redirects that is hard to follow.",
    pack_example(
        "prompts:\n"
        "  triage: {id: triage, name: Triage, version: 1.0.0, system_template: Help}\n"
        "  closing: {id: closing, name: Closing, version: 1.0.0, system_template: Help}\n"
        "workflow:\n"
        "  version: 1\n"
        "  entry: triage\n"
        "  states:\n"
        "    triage: {prompt_task: triage, max_visits: 3, on_max_visits: review, on_e"
        "vent: {Done: closing}}\n"
        "    review: {prompt_task: triage, max_visits: 2, on_max_visits: closing, on_"
        "event: {Done: closing}}\n"
        "    closing: {prompt_task: closing, terminal: true}\n"
    ),
    "Redirect to a state without `max_visits` (a fallback or a terminal state).",
    CATEGORY,
)

AGENT_CONTROL_ON_TERMINAL_STATE = Rule(
    "PP415",
    "agent-control-on-terminal-state",
    Severity.WARNING,
    "A `terminal: true` state says `control: agent`; a terminal state ends the "
    "conversation whoever holds the turn, so the setting has no effect (RFC 0014).",
    pack_example(
        "prompts:\n"
        "  triage: {id: triage, name: Triage, version: 1.0.0, system_template: Help}\n"
        "  closing: {id: closing, name: Closing, version: 1.0.0, system_template: Help}\n"
        "workflow:\n"
        "  version: 1\n"
        "  entry: triage\n"
        "  states:\n"
        "    triage: {prompt_task: triage, on_event: {Done: closing}}\n"
        "    closing: {prompt_task: closing, terminal: true, control: agent}\n"
    ),
    "Remove `control: agent` (a quick fix does), or `terminal: true` if the state should continue.",
    CATEGORY,
    fixes=(FixKind.REMOVE_ENTRY,),
    safe_fixes=(FixKind.REMOVE_ENTRY,),
)

AGENT_CONTROL_LOOP = Rule(
    "PP416",
    "agent-control-loop",
    Severity.WARNING,
    "States with `control: agent` form a cycle from which no `control: user` or terminal "
    "state can be reached and none of them has `max_visits`: the agent keeps the turn "
    "until a budget stops it (RFC 0014).",
    pack_example(
        "prompts:\n"
        "  triage: {id: triage, name: Triage, version: 1.0.0, system_template: Help}\n"
        "  closing: {id: closing, name: Closing, version: 1.0.0, system_template: Help}\n"
        "workflow:\n"
        "  version: 1\n"
        "  entry: triage\n"
        "  states:\n"
        "    triage: {prompt_task: triage, on_event: {Plan: plan, Done: closing}}\n"
        "    plan: {prompt_task: triage, control: agent, on_event: {Next: act}}\n"
        "    act: {prompt_task: triage, control: agent, on_event: {Next: plan}}\n"
        "    closing: {prompt_task: closing, terminal: true}\n"
    ),
    "Give one of the states `max_visits` (with `on_max_visits`), or a transition to a "
    "`control: user` or terminal state.",
    CATEGORY,
)

BUDGET_BELOW_MAX_VISITS = Rule(
    "PP417",
    "budget-below-max-visits",
    Severity.WARNING,
    "`engine.budget.max_total_visits` is smaller than the sum of the `max_visits` of the "
    "states reachable from `entry`: the global budget runs out first, so some per-state "
    "limits (and their `on_max_visits` redirects) can never be reached (RFC 0009).",
    pack_example(
        "prompts:\n"
        "  triage: {id: triage, name: Triage, version: 1.0.0, system_template: Help}\n"
        "  closing: {id: closing, name: Closing, version: 1.0.0, system_template: Help}\n"
        "workflow:\n"
        "  version: 1\n"
        "  entry: triage\n"
        "  engine: {budget: {max_total_visits: 2}}\n"
        "  states:\n"
        "    triage: {prompt_task: triage, max_visits: 3, on_event: {Again: triage, D"
        "one: closing}}\n"
        "    closing: {prompt_task: closing, terminal: true}\n"
    ),
    "Raise the budget to at least the sum of the reachable limits, or lower the limits.",
    CATEGORY,
)

RULES = (
    UNSUPPORTED_WORKFLOW_VERSION,
    UNDEFINED_STATE,
    UNDEFINED_PROMPT_TASK,
    TERMINAL_STATE_WITH_TRANSITIONS,
    EVENT_NAME_NOT_PASCAL_CASE,
    UNREACHABLE_STATE,
    NO_TERMINAL_STATE_REACHABLE,
    UNKNOWN_PERSISTENCE,
    UNKNOWN_ORCHESTRATION,
    UNDECLARED_ARTIFACT,
    STATE_WITHOUT_TRANSITIONS,
    STATE_WITHOUT_EXIT,
    ON_MAX_VISITS_WITHOUT_MAX_VISITS,
    ON_MAX_VISITS_CHAIN,
    AGENT_CONTROL_ON_TERMINAL_STATE,
    AGENT_CONTROL_LOOP,
    BUDGET_BELOW_MAX_VISITS,
)
#: The longest list of states a loop diagnostic names in full.
MAX_LISTED = 8


def check(ctx: CheckContext) -> Iterable[Diagnostic]:
    wf = ctx.pack.workflow
    if wf is None:
        return
    states = wf.states
    yield from _version(wf)
    if wf.entry is not None:
        yield from _state_ref(wf.entry, states, "The workflow `entry`", None)
    for key, state in states.items():
        yield from _state(ctx, key, state, states)
    yield from _reachability(wf)
    yield from _artifacts(ctx, wf)
    yield from _agent_loops(wf)
    yield from _budget(wf)


def _version(wf: Workflow) -> Iterator[Diagnostic]:
    v = wf.version
    if v is None:
        return
    value = v.value
    if isinstance(value, bool) or not isinstance(value, int):
        return  # the schema reports a version that is not an integer
    if value not in (1, 2):
        yield make(
            UNSUPPORTED_WORKFLOW_VERSION,
            f"Workflow version {value} is not supported; runtimes understand versions 1 and 2",
            v.span,
            data=WorkflowVersion(value=value),
        )


def _state_ref(
    ref: Located, states: dict[str, State], what: str, state: str | None
) -> Iterator[Diagnostic]:
    """A reference to a workflow state: nothing when it resolves (``core.model.resolve``)."""
    resolved = resolve_name(Kind.STATE, ref.value, states)
    if isinstance(resolved, Defined):
        return
    name = ref.text
    found = list(resolved.suggestions)
    yield make(
        UNDEFINED_STATE,
        f"{what} names `{name}`, which is not a state of the workflow" + hint_for(found),
        ref.span,
        data=UndefinedState(name=name, suggestions=found, state=state),
        fixes=suggest(ref.span, found),
    )


def _is_terminal(state: State) -> bool:
    return state.is_terminal or (not state.on_event and state.on_max_visits is None)


def _state(
    ctx: CheckContext, key: str, state: State, states: dict[str, State]
) -> Iterator[Diagnostic]:
    prompts = ctx.pack.prompts
    task = state.prompt_task
    resolved = resolve_name(Kind.PROMPT, task.value, prompts) if task is not None else None
    if task is not None and isinstance(resolved, Missing):
        found = list(resolved.suggestions)
        yield make(
            UNDEFINED_PROMPT_TASK,
            f"State `{key}` runs prompt `{task.text}`, which is not defined in `prompts`"
            + hint_for(found),
            task.span,
            data=UndefinedPrompt(name=task.text, state=key, suggestions=found),
            fixes=suggest(task.span, found),
        )
    for transition in state.on_event:
        target = transition.target
        if target is not None:
            yield from _state_ref(
                target, states, f"Event `{transition.event.text}` of state `{key}`", key
            )
        event = transition.event.text
        if not PASCAL_CASE.match(event):
            better = _pascal(event)
            yield make(
                EVENT_NAME_NOT_PASCAL_CASE,
                f"Event `{event}` is not PascalCase"
                + (f"; runtimes expect names like `{better}`" if better else ""),
                transition.event.span,
                data=EventNameCase(name=event, suggestion=better),
                fixes=(RenameEvent(transition.event.span, better),) if better else (),
            )
    if state.on_max_visits is not None:
        yield from _state_ref(state.on_max_visits, states, f"`on_max_visits` of state `{key}`", key)
    if state.is_terminal and state.on_event:
        yield make(
            TERMINAL_STATE_WITH_TRANSITIONS,
            f"State `{key}` is terminal but declares `on_event` transitions, which can never fire",
            state.on_event_key_span or state.key_span,
            related=[Related(state.terminal.span, "marked terminal here")]
            if state.terminal is not None
            else [],
            data=TerminalWithTransitions(state=key),
        )
    for field, allowed in (
        ("persistence", PERSISTENCE),
        (
            "orchestration",
            ORCHESTRATION
            + (ORCHESTRATION_PROMPTKIT if ctx.config.profile is Profile.PROMPTKIT else ()),
        ),
    ):
        value = getattr(state, field)
        if not isinstance(value, Located) or value.value in allowed:
            continue
        if _schema_closes(ctx, field):
            continue  # the schema reports it (PP104)
        rule = UNKNOWN_PERSISTENCE if field == "persistence" else UNKNOWN_ORCHESTRATION
        options = ", ".join(f"`{a}`" for a in allowed)
        found = suggestions(value.text, allowed)
        yield make(
            rule,
            f"`{field}: {value.text}` of state `{key}` is not a known value (expected "
            f"{options})" + hint_for(found),
            value.span,
            data=(UnknownPersistence if field == "persistence" else UnknownOrchestration)(
                value=value.text, allowed=list(allowed), suggestions=found
            ),
            fixes=suggest(value.span, found),
        )
    if ctx.config.profile is Profile.PROMPTKIT and not state.is_terminal and not state.on_event:
        # Without the key at all, PromptKit's schema refuses the state (PP101).
        if state.on_event_key_span is not None:
            yield make(
                STATE_WITHOUT_TRANSITIONS,
                f"State `{key}` is not terminal and its `on_event` is empty; PromptKit runs it as "
                "a terminal state (add `terminal: true`, or transitions)",
                state.on_event_key_span,
                data=StateWithoutTransitions(state=key),
            )
    elif (
        _version_of(ctx) == 2
        and not state.is_terminal
        and not state.on_event
        and state.on_max_visits is None
    ):
        yield make(
            STATE_WITHOUT_EXIT,
            f"State `{key}` is not `terminal: true` and has no way out (no `on_event`, no "
            "`on_max_visits`); a version 2 workflow would be stuck here",
            state.key_span,
            data=StateWithoutExit(state=key),
        )
    yield from _loop_guards(key, state, states)


def _schema_closes(ctx: CheckContext, field: str) -> bool:
    """Whether the schema itself restricts ``field`` of a state: PromptKit's closes
    `persistence` and `orchestration`, the specification's `orchestration` from v1.5."""
    if ctx.config.profile is Profile.PROMPTKIT:
        return True
    if field != "orchestration":
        return False
    target = ctx.target
    return versions.key(target.version) >= versions.key("1.5.0")


def _version_of(ctx: CheckContext) -> int | None:
    wf = ctx.pack.workflow
    v = wf.version.value if wf is not None and wf.version is not None else None
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _loop_guards(key: str, state: State, states: dict[str, State]) -> Iterator[Diagnostic]:
    redirect = state.on_max_visits
    if redirect is not None and state.max_visits is None:
        yield make(
            ON_MAX_VISITS_WITHOUT_MAX_VISITS,
            f"State `{key}` has `on_max_visits` but no `max_visits`, so the redirect to "
            f"`{redirect.text}` never happens",
            redirect.span,
            data=OnMaxVisitsWithoutMaxVisits(state=key),
        )
    target = states.get(redirect.text) if redirect is not None else None
    # A redirect that can never fire (no `max_visits`: PP413) starts no chain.
    if (
        redirect is not None
        and state.max_visits is not None
        and target is not None
        and target.max_visits is not None
    ):
        yield make(
            ON_MAX_VISITS_CHAIN,
            f"`on_max_visits` of state `{key}` redirects to `{redirect.text}`, which has its "
            "own `max_visits`: a chain of redirects",
            redirect.span,
            related=[Related(target.max_visits.span, f"`max_visits` of `{redirect.text}`")],
            data=OnMaxVisitsChain(state=key, target=redirect.text),
        )
    control = state.control
    if control is not None and control.value == "agent" and state.is_terminal:
        yield make(
            AGENT_CONTROL_ON_TERMINAL_STATE,
            f"State `{key}` is terminal, so `control: agent` has no effect",
            control.span,
            related=[Related(state.terminal.span, "marked terminal here")]
            if state.terminal is not None
            else [],
            tags=[Tag.UNNECESSARY],
            data=AgentControlOnTerminalState(
                state=key, path=["workflow", "states", key, "control"], key="control: agent"
            ),
            fixes=(RemoveEntry(("workflow", "states", key, "control"), "control: agent"),),
        )


def _budget(wf: Workflow) -> Iterator[Diagnostic]:
    budget = wf.max_total_visits
    if budget is None or wf.entry is None or wf.entry.value not in wf.states:
        return
    reachable = _reachable(wf)
    limits = [
        (key, state.max_visits)
        for key, state in wf.states.items()
        if key in reachable and state.max_visits is not None
    ]
    total = sum(int(v.value) for _, v in limits if v is not None)
    if not limits or total <= budget.value:
        return
    yield make(
        BUDGET_BELOW_MAX_VISITS,
        f"`max_total_visits: {budget.value}` is below the {total} visits the reachable "
        "states' `max_visits` allow ("
        + ", ".join(f"`{k}`: {v.value}" for k, v in limits if v is not None)
        + "); the budget ends the workflow first",
        budget.span,
        data=BudgetBelowMaxVisits(budget=budget.value, total=total),
    )


def _is_agent(state: State) -> bool:
    return state.control is not None and state.control.value == "agent" and not state.is_terminal


def _successors(state: State) -> list[str]:
    out = [t.target.text for t in state.on_event if t.target is not None]
    if state.on_max_visits is not None:
        out.append(state.on_max_visits.text)
    return out


def _agent_loops(wf: Workflow) -> Iterator[Diagnostic]:
    """Groups of `control: agent` states that can only reach each other (RFC 0014 rule 4).

    A group is the set of agent states reachable from a cycle of agent states; it is a
    problem when every state reachable from it is an agent state, none of them has
    ``max_visits``, and none is terminal.
    """
    states = wf.states
    agents = {k for k, s in states.items() if _is_agent(s)}
    reported: set[str] = set()
    for start in sorted(agents, key=list(states).index):
        if start in reported:
            continue
        closure: list[str] = []
        seen = {start}
        stack = [start]
        escapes = False
        while stack:
            name = stack.pop()
            closure.append(name)
            state = states[name]
            if name not in agents or state.max_visits is not None or _is_terminal(state):
                escapes = True
                break
            for nxt in _successors(state):
                if nxt not in states:
                    escapes = True  # an undefined target is reported on its own
                    break
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
            if escapes:
                break
        if escapes or start not in _reaches_itself(start, states):
            continue
        group = sorted(seen, key=list(states).index)
        reported.update(group)
        listed = ", ".join(f"`{g}`" for g in group[:MAX_LISTED])
        more = f" and {len(group) - MAX_LISTED} more" if len(group) > MAX_LISTED else ""
        yield make(
            AGENT_CONTROL_LOOP,
            f"The `control: agent` states {listed}{more} only lead to each other: no "
            "`control: user` or terminal state is reachable and none has `max_visits`",
            states[group[0]].key_span,
            related=[Related(states[g].key_span, f"state `{g}`") for g in group[1:MAX_LISTED]],
            data=AgentControlLoop(states=group),
        )


def _reaches_itself(start: str, states: dict[str, State]) -> set[str]:
    """The states reachable from ``start`` in one or more steps."""
    seen: set[str] = set()
    stack = list(_successors(states[start]))
    while stack:
        name = stack.pop()
        if name in seen or name not in states:
            continue
        seen.add(name)
        stack.extend(_successors(states[name]))
    return seen


def _pascal(name: str) -> str:
    parts = [p for p in re.split(r"[^A-Za-z0-9]+", name) if p]
    out = "".join(p[0].upper() + p[1:] for p in parts)
    return out if PASCAL_CASE.match(out) else ""


def _reachable(wf: Workflow) -> set[str]:
    assert wf.entry is not None
    seen: set[str] = set()
    queue = [wf.entry.text]
    while queue:
        name = queue.pop()
        if name in seen or name not in wf.states:
            continue
        seen.add(name)
        state = wf.states[name]
        for transition in state.on_event:
            if transition.target is not None:
                queue.append(transition.target.text)
        if state.on_max_visits is not None:
            queue.append(state.on_max_visits.text)
    return seen


def _reachability(wf: Workflow) -> Iterator[Diagnostic]:
    if wf.entry is None or wf.entry.value not in wf.states:
        return
    reachable = _reachable(wf)
    for key, state in wf.states.items():
        if key not in reachable:
            yield make(
                UNREACHABLE_STATE,
                f"State `{key}` cannot be reached from the entry state `{wf.entry.text}`",
                state.key_span,
                data=UnreachableState(state=key),
            )
    if not any(_is_terminal(wf.states[k]) for k in reachable):
        yield make(
            NO_TERMINAL_STATE_REACHABLE,
            f"No terminal state can be reached from the entry state `{wf.entry.text}`; the "
            "workflow only ends when a budget or `max_visits` stops it",
            wf.entry.span,
            data=NoTerminalState(entry=wf.entry.text),
        )


def _artifacts(ctx: CheckContext, wf: Workflow) -> Iterator[Diagnostic]:
    """Artifacts flow between states (one state writes, the next reads), so a
    placeholder must name an artifact that some state of the workflow declares."""
    info = templates_of(ctx)
    declared: dict[str, str] = {}
    for key, state in wf.states.items():
        for name in state.artifacts:
            declared.setdefault(name, key)
    reported: set[tuple[int, int]] = set()
    for key, state in wf.states.items():
        task = state.prompt_task
        if task is None or task.value not in ctx.pack.prompts:
            continue
        for t, p in info.placeholders_of_prompt(task.text):
            if p.kind != "artifact":
                continue
            resolved = resolve_name(Kind.ARTIFACT, p.name, declared)
            if isinstance(resolved, Defined):
                continue
            where = (p.name_span.start, p.name_span.end)
            if where in reported:
                continue  # one report per placeholder, even when several states run it
            reported.add(where)
            place = (
                f"prompt `{task.text}`"
                if t.owner == "prompt"
                else (f"fragment `{t.key}` (included by prompt `{task.text}`)")
            )
            found = list(resolved.suggestions)
            yield make(
                UNDECLARED_ARTIFACT,
                f"`{{{{artifacts.{p.name}}}}}` in {place} is not declared in the `artifacts` "
                "of any workflow state" + hint_for(found),
                p.name_span,
                related=[Related(state.key_span, f"state `{key}` runs this prompt")],
                data=UndeclaredArtifact(
                    name=p.name, state=key, prompt=task.text, suggestions=found
                ),
                fixes=suggest(p.name_span, found, Quote.BARE),
            )
