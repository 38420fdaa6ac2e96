"""PP90x — `compositions` (RFC 0010): named step graphs a workflow state hands over to.

The schema checks the shape of each step; these rules check what JSON Schema cannot:
that every name a step or a state uses resolves, that step ids are unique, and that
the step graph is acyclic and reachable.

The step graph: a step follows the step before it in ``steps`` unless it lists
``depends_on`` (then it follows those) or the step before it is a ``branch`` (whose
successors are its ``then`` and ``else``). Steps inside a ``parallel`` step's
``branches`` run as part of that step and are not nodes of the outer sequence, but
their ids share the composition's namespace.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import replace

from pack_lsp.core.base.diagnostics import Diagnostic, FixKind, Related, Rule, Severity, make
from pack_lsp.core.base.example_pack import pack_example
from pack_lsp.core.base.fixes import Quote, RemoveEntry, suggest
from pack_lsp.core.base.graphs import strongly_connected
from pack_lsp.core.base.problemdata import (
    CompositionOnNonCompositionState,
    DuplicateStepId,
    StepCycle,
    UndefinedComposition,
    UndefinedPrompt,
    UndefinedStep,
    UndefinedStepEval,
    UndefinedStepTool,
    UnreachableStep,
    UnresolvedStepReference,
)
from pack_lsp.core.base.suggest import hint_for
from pack_lsp.core.base.text import Span
from pack_lsp.core.model.context import CheckContext
from pack_lsp.core.model.pack import Composition, Located, Pack, Step
from pack_lsp.core.model.resolve import Defined, Kind, Missing, resolve_name

CATEGORY = "Compositions"
COMPOSITION = "composition"
#: A `${...}` reference and the first segment of its path.
REFERENCE = re.compile(r"\$\{\s*([A-Za-z_][A-Za-z0-9_]*)[^}]*\}")
#: The longest cycle listed in full; longer cycles are summarised.
MAX_LISTED = 8

UNDEFINED_COMPOSITION = Rule(
    "PP901",
    "undefined-composition",
    Severity.ERROR,
    "A workflow state's `composition` is not a key of the pack's `compositions`.",
    pack_example(
        "prompts:\n"
        "  draft: {id: draft, name: Draft, version: 1.0.0, system_template: Draft it}\n"
        "workflow:\n"
        "  version: 1\n"
        "  entry: writing\n"
        "  states:\n"
        "    writing:\n"
        "      orchestration: composition\n"
        "      composition: writting   # did you mean `write`?\n"
        "      terminal: true\n"
        "compositions:\n"
        "  write:\n"
        "    version: 1\n"
        "    steps:\n"
        "      - {id: first, kind: prompt, prompt_task: draft}\n"
    ),
    "Use the key of a composition (a quick fix offers close names), or add it.",
    CATEGORY,
    fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
    safe_fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
)

COMPOSITION_ON_NON_COMPOSITION_STATE = Rule(
    "PP903",
    "composition-on-non-composition-state",
    Severity.ERROR,
    "A state names a `composition` but its `orchestration` is not `composition`, so the "
    "composition never runs (the state runs its `prompt_task`).",
    pack_example(
        "prompts:\n"
        "  draft: {id: draft, name: Draft, version: 1.0.0, system_template: Draft it}\n"
        "workflow:\n"
        "  version: 1\n"
        "  entry: writing\n"
        "  states:\n"
        "    writing:\n"
        "      prompt_task: draft\n"
        "      composition: write   # the state is not `orchestration: composition`\n"
        "      terminal: true\n"
        "compositions:\n"
        "  write:\n"
        "    version: 1\n"
        "    steps:\n"
        "      - {id: first, kind: prompt, prompt_task: draft}\n"
    ),
    "Set `orchestration: composition`, or remove `composition` (a quick fix does).",
    CATEGORY,
    fixes=(FixKind.REMOVE_ENTRY,),
    safe_fixes=(FixKind.REMOVE_ENTRY,),
)

DUPLICATE_STEP_ID = Rule(
    "PP904",
    "duplicate-step-id",
    Severity.ERROR,
    "Two steps of one composition (counting the steps nested in `parallel` branches) "
    "have the same `id`; references to it are ambiguous.",
    pack_example(
        "prompts:\n"
        "  draft: {id: draft, name: Draft, version: 1.0.0, system_template: Draft it}\n"
        "compositions:\n"
        "  write:\n"
        "    version: 1\n"
        "    steps:\n"
        "      - {id: first, kind: prompt, prompt_task: draft}\n"
        "      - id: both\n"
        "        kind: parallel\n"
        "        branches:\n"
        "          - {id: first, kind: prompt, prompt_task: draft}\n"
        "          - {id: second, kind: prompt, prompt_task: draft}\n"
        "        reduce: {strategy: append, into: results}\n"
    ),
    "Give each step its own id.",
    CATEGORY,
)

UNDEFINED_STEP_PROMPT = Rule(
    "PP905",
    "undefined-step-prompt",
    Severity.ERROR,
    "A `prompt` or `agent` step's `prompt_task` is not a key of the pack's `prompts`.",
    pack_example(
        "prompts:\n"
        "  draft: {id: draft, name: Draft, version: 1.0.0, system_template: Draft it}\n"
        "compositions:\n"
        "  write:\n"
        "    version: 1\n"
        "    steps:\n"
        "      - {id: first, kind: prompt, prompt_task: darft}   # did you mean `draft`?\n"
    ),
    "Use the key of a prompt, or add the prompt.",
    CATEGORY,
    fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
    safe_fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
)

UNDEFINED_STEP_TOOL = Rule(
    "PP906",
    "undefined-step-tool",
    Severity.ERROR,
    "A `tool` step's `tool`, or an entry of an `agent` step's `tools`, is not a key of "
    "the pack's `tools`. When the pack declares no `tools` at all the tools can only "
    "come from the host, which cannot be checked here: then it is a warning.",
    pack_example(
        "prompts:\n"
        "  draft: {id: draft, name: Draft, version: 1.0.0, system_template: Draft it}\n"
        "compositions:\n"
        "  write:\n"
        "    version: 1\n"
        "    steps:\n"
        "      - {id: fetch, kind: tool, tool: extract_text}   # the pack has no tools\n"
    ),
    "Use the key of a tool, or define the tool under `tools`.",
    CATEGORY,
    fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
    safe_fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
)

UNDEFINED_STEP = Rule(
    "PP907",
    "undefined-step",
    Severity.ERROR,
    "A `then`, `else` or `depends_on` entry, or the composition's `output`, names a "
    "step id that the composition does not have.",
    pack_example(
        "prompts:\n"
        "  draft: {id: draft, name: Draft, version: 1.0.0, system_template: Draft it}\n"
        "compositions:\n"
        "  write:\n"
        "    version: 1\n"
        "    steps:\n"
        "      - {id: first, kind: prompt, prompt_task: draft}\n"
        "      - id: gate\n"
        "        kind: branch\n"
        '        predicate: {path: "${first.output.ok}", op: equals, value: true}\n'
        "        then: frist   # did you mean `first`?\n"
    ),
    "Use the id of a step of the same composition.",
    CATEGORY,
    fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
    safe_fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
)

UNDEFINED_STEP_EVAL = Rule(
    "PP908",
    "undefined-step-eval",
    Severity.ERROR,
    "An `eval` modifier of a step names an eval id that neither the pack's `evals` nor a "
    "prompt's `evals` define. When the pack declares no evals at all they can only come "
    "from the host, which cannot be checked here: then it is a warning.",
    pack_example(
        "prompts:\n"
        "  draft: {id: draft, name: Draft, version: 1.0.0, system_template: Draft it}\n"
        "compositions:\n"
        "  write:\n"
        "    version: 1\n"
        "    steps:\n"
        "      - {id: first, kind: prompt, prompt_task: draft, modifiers: {eval: [tone]}}\n"
    ),
    "Use the id of a declared eval, or declare it.",
    CATEGORY,
    fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
    safe_fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
)

UNRESOLVED_STEP_REFERENCE = Rule(
    "PP909",
    "unresolved-step-reference",
    Severity.ERROR,
    "A `${...}` reference in a step's `input`, `args` or `predicate` starts with neither "
    "`input` (the composition's input) nor the id of a step that runs before this one.",
    pack_example(
        "prompts:\n"
        "  draft: {id: draft, name: Draft, version: 1.0.0, system_template: Draft it}\n"
        "compositions:\n"
        "  write:\n"
        "    version: 1\n"
        "    steps:\n"
        "      - {id: first, kind: prompt, prompt_task: draft}\n"
        '      - {id: second, kind: prompt, prompt_task: draft, input: "${frist.output}"}\n'
    ),
    "Start the path with `input` or with the id of the step whose output it reads.",
    CATEGORY,
    fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
    safe_fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
)

UNREACHABLE_STEP = Rule(
    "PP910",
    "unreachable-step",
    Severity.WARNING,
    "No path of the step graph leads from the first step to this step: it follows a "
    "`branch` step that never names it and nothing `depends_on` it.",
    pack_example(
        "prompts:\n"
        "  draft: {id: draft, name: Draft, version: 1.0.0, system_template: Draft it}\n"
        "compositions:\n"
        "  write:\n"
        "    version: 1\n"
        "    steps:\n"
        "      - id: gate\n"
        "        kind: branch\n"
        '        predicate: {path: "${input.urgent}", op: equals, value: true}\n'
        "        then: finish\n"
        "      - {id: skipped, kind: prompt, prompt_task: draft}   # nothing runs it\n"
        "      - {id: finish, kind: prompt, prompt_task: draft, depends_on: [gate]}\n"
    ),
    "Name the step in a branch's `then`/`else`, give it `depends_on`, or remove it.",
    CATEGORY,
)

STEP_CYCLE = Rule(
    "PP911",
    "step-cycle",
    Severity.ERROR,
    "The steps of a composition form a cycle (through `then`/`else`, `depends_on` or "
    "the order of `steps`). Compositions must be acyclic; loops belong in the workflow.",
    pack_example(
        "prompts:\n"
        "  draft: {id: draft, name: Draft, version: 1.0.0, system_template: Draft it}\n"
        "compositions:\n"
        "  write:\n"
        "    version: 1\n"
        "    steps:\n"
        "      - {id: first, kind: prompt, prompt_task: draft}\n"
        "      - id: gate\n"
        "        kind: branch\n"
        '        predicate: {path: "${first.output.ok}", op: equals, value: true}\n'
        "        then: first\n"
        "        else: done\n"
        "      - {id: done, kind: prompt, prompt_task: draft}\n"
    ),
    "Remove the edge that closes the cycle, or move the loop to workflow states.",
    CATEGORY,
)

RULES = (
    UNDEFINED_COMPOSITION,
    COMPOSITION_ON_NON_COMPOSITION_STATE,
    DUPLICATE_STEP_ID,
    UNDEFINED_STEP_PROMPT,
    UNDEFINED_STEP_TOOL,
    UNDEFINED_STEP,
    UNDEFINED_STEP_EVAL,
    UNRESOLVED_STEP_REFERENCE,
    UNREACHABLE_STEP,
    STEP_CYCLE,
)


def check(ctx: CheckContext) -> Iterable[Diagnostic]:
    pack = ctx.pack
    yield from _states(pack)
    eval_ids = _eval_ids(pack)
    for comp in pack.compositions.values():
        yield from _composition(ctx.text, pack, comp, eval_ids)


def _eval_ids(pack: Pack) -> set[str]:
    ids = {e.id.text for e in pack.evals if e.id is not None}
    for prompt in pack.prompts.values():
        ids.update(e.id.text for e in prompt.evals if e.id is not None)
    return ids


def _states(pack: Pack) -> Iterator[Diagnostic]:
    wf = pack.workflow
    if wf is None:
        return
    comps = pack.compositions
    for key, state in wf.states.items():
        is_comp = state.orchestration is not None and state.orchestration.value == COMPOSITION
        ref = state.composition
        if ref is None:
            continue
        if not is_comp:
            yield make(
                COMPOSITION_ON_NON_COMPOSITION_STATE,
                f"State `{key}` names composition `{ref.text}` but its orchestration is not "
                "`composition`, so the composition never runs",
                ref.span,
                data=CompositionOnNonCompositionState(
                    state=key, path=["workflow", "states", key, "composition"], key="composition"
                ),
                fixes=(RemoveEntry(("workflow", "states", key, "composition"), "composition"),),
            )
        resolved = resolve_name(Kind.COMPOSITION, ref.value, comps)
        if isinstance(resolved, Missing):
            found = list(resolved.suggestions)
            yield make(
                UNDEFINED_COMPOSITION,
                f"State `{key}` runs composition `{ref.text}`, which is not defined in "
                "`compositions`" + hint_for(found),
                ref.span,
                data=UndefinedComposition(name=ref.text, state=key, suggestions=found),
                fixes=suggest(ref.span, found),
            )


def _undefined(
    rule: Rule,
    what: str,
    ref: Located,
    missing: str,
    resolved: Missing,
    data: type[UndefinedPrompt | UndefinedStep | UndefinedStepTool | UndefinedStepEval],
    composition: str,
) -> Diagnostic:
    """``what `name`, missing`` with the closest defined names (``core.model.resolve``)."""
    found = list(resolved.suggestions)
    return make(
        rule,
        f"{what} `{ref.text}`, {missing}" + hint_for(found),
        ref.span,
        data=data(name=ref.text, suggestions=found, composition=composition),
        fixes=suggest(ref.span, found),
    )


def _host_or_error(diagnostic: Diagnostic, *, declares: bool, what: str) -> Diagnostic:
    """A reference into a section the pack does not declare at all can only be resolved
    by the host (a tool registry, an eval service): a warning that says so."""
    if declares:
        return diagnostic
    return replace(
        diagnostic,
        severity=Severity.WARNING,
        message=diagnostic.message + f" (the pack declares no {what}; the host must provide it)",
    )


def _composition(
    source: str, pack: Pack, comp: Composition, eval_ids: set[str]
) -> Iterator[Diagnostic]:
    name = comp.key
    steps = comp.all_steps()
    ids: dict[str, Step] = {}
    for step in steps:
        if step.id is None:
            continue
        first = ids.get(step.id.text)
        if first is None:
            ids[step.id.text] = step
            continue
        assert first.id is not None
        yield make(
            DUPLICATE_STEP_ID,
            f"Step id `{step.id.text}` is used twice in composition `{name}`",
            step.id.span,
            related=[Related(first.id.span, "first used here")],
            data=DuplicateStepId(name=step.id.text, composition=name),
        )
    # Position of each step in the sequence (a parallel step's branches share its own).
    order: dict[str, int] = {}
    for i, top in enumerate(comp.steps):
        for inner in top.walk():
            if inner.id is not None:
                order.setdefault(inner.id.text, i)
    for step in steps:
        label = f"step `{step.id.text}`" if step.id is not None else "a step"
        where = f"{label[0].upper()}{label[1:]} of composition `{name}`"
        task = step.prompt_task
        resolved = resolve_name(Kind.PROMPT, task.value, pack.prompts) if task is not None else None
        if task is not None and isinstance(resolved, Missing):
            yield _undefined(
                UNDEFINED_STEP_PROMPT,
                f"{where} runs prompt",
                task,
                "which is not defined in `prompts`",
                resolved,
                UndefinedPrompt,
                composition=name,
            )
        for tool in ([step.tool] if step.tool is not None else []) + step.tools:
            # A step names a pack tool by its key (not a prompt's tools list).
            resolved = resolve_name(Kind.TOOL, tool.value, pack.tools)
            if isinstance(resolved, Missing):
                yield _host_or_error(
                    _undefined(
                        UNDEFINED_STEP_TOOL,
                        f"{where} uses tool",
                        tool,
                        "which is not defined in `tools`",
                        resolved,
                        UndefinedStepTool,
                        composition=name,
                    ),
                    declares=bool(pack.tools),
                    what="tools",
                )
        targets = [("then", step.then), ("else", step.else_)] + [
            ("depends_on", d) for d in step.depends_on
        ]
        for field, target in targets:
            if target is None:
                continue
            resolved = resolve_name(Kind.STEP, target.value, ids, name)
            if isinstance(resolved, Missing):
                yield _undefined(
                    UNDEFINED_STEP,
                    f"`{field}` of {label} in composition `{name}` names step",
                    target,
                    "which the composition does not have",
                    resolved,
                    UndefinedStep,
                    composition=name,
                )
        for ev in step.evals:
            resolved = resolve_name(Kind.EVAL, ev.value, eval_ids)
            if isinstance(resolved, Missing):
                yield _host_or_error(
                    _undefined(
                        UNDEFINED_STEP_EVAL,
                        f"The `eval` modifier of {label} in composition `{name}` names eval",
                        ev,
                        "which is not defined in the pack's or a prompt's `evals`",
                        resolved,
                        UndefinedStepEval,
                        composition=name,
                    ),
                    declares=bool(eval_ids),
                    what="evals",
                )
        yield from _references(source, step, ids, name, order)
    output = comp.output
    resolved = resolve_name(Kind.STEP, output.value, ids, name) if output is not None else None
    if output is not None and isinstance(resolved, Missing):
        yield _undefined(
            UNDEFINED_STEP,
            f"The `output` of composition `{name}` names step",
            output,
            "which the composition does not have",
            resolved,
            UndefinedStep,
            composition=name,
        )
    yield from _graph(comp, ids)


def _name_span(source: str, ref: Located, offset: int, name: str) -> Span:
    """The span of ``name`` inside the scalar ``ref`` when the source writes the value
    as is or between quotes (no escapes before it); the whole scalar otherwise."""
    extra = (ref.span.end - ref.span.start) - len(ref.text)
    for lead in (0, 1) if extra >= 0 else ():
        at = ref.span.start + lead + offset
        if source[at : at + len(name)] == name:
            return Span(at, at + len(name))
    return ref.span


def _references(
    source: str, step: Step, ids: dict[str, Step], comp: str, order: dict[str, int]
) -> Iterator[Diagnostic]:
    here = order.get(step.id.text, -1) if step.id is not None else -1
    for ref in step.references:
        text = ref.text
        for match in REFERENCE.finditer(text):
            head = match.group(1)
            if head == "input":
                continue
            # The head of `${step.output...}` is `input` or a step of the composition.
            resolved = resolve_name(Kind.STEP, head, ids, comp, extra=("input",))
            if isinstance(resolved, Defined):
                if order.get(head, -1) < here or here < 0:
                    continue
                yield make(
                    UNRESOLVED_STEP_REFERENCE,
                    f"`{match.group(0)}` in step `{step.id.text if step.id else '?'}` of "
                    f"composition `{comp}` reads step `{head}`, which does not run before it",
                    _name_span(source, ref, match.start(1), head),
                    related=[Related(ids[head].span, f"step `{head}`")],
                    data=UnresolvedStepReference(name=head, composition=comp),
                )
                continue
            span = _name_span(source, ref, match.start(1), head)
            found = list(resolved.suggestions)
            # The name inside the scalar is replaced; not when it could not be found
            # (escapes before it), where only the whole scalar is known.
            exact = source[span.start : span.end] == head
            yield make(
                UNRESOLVED_STEP_REFERENCE,
                f"`{match.group(0)}` in step "
                f"`{step.id.text if step.id is not None else '?'}` of composition `{comp}` "
                f"reads `{head}`, which is neither `input` nor a step of the composition"
                + hint_for(found),
                span,
                data=UnresolvedStepReference(name=head, composition=comp, suggestions=found),
                fixes=suggest(span, found, Quote.BARE) if exact else (),
            )


def _edges(comp: Composition, ids: dict[str, Step]) -> dict[str, list[str]]:
    """Successors of every top-level step id (see the module docstring)."""
    succ: dict[str, list[str]] = {}
    top = [s for s in comp.steps if s.id is not None]
    for s in top:
        assert s.id is not None
        succ.setdefault(s.id.text, [])
    previous: Step | None = None
    for s in top:
        assert s.id is not None
        sid = s.id.text
        if s.depends_on:
            for d in s.depends_on:
                if d.text in succ:
                    succ[d.text].append(sid)
        elif previous is not None and not _is_branch(previous):
            assert previous.id is not None
            succ[previous.id.text].append(sid)
        if _is_branch(s):
            for target in (s.then, s.else_):
                if target is not None and target.text in succ:
                    succ[sid].append(target.text)
        previous = s
    return succ


def _is_branch(step: Step) -> bool:
    return step.kind is not None and step.kind.value == "branch"


def _graph(comp: Composition, ids: dict[str, Step]) -> Iterator[Diagnostic]:
    top = [s for s in comp.steps if s.id is not None]
    if not top:
        return
    succ = _edges(comp, ids)
    assert top[0].id is not None
    first = top[0].id.text
    seen = {first}
    stack = [first]
    while stack:
        for nxt in succ.get(stack.pop(), []):
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    reported: set[str] = set()
    for s in top:
        assert s.id is not None
        if s.id.text not in seen and s.id.text not in reported:
            reported.add(s.id.text)
            yield make(
                UNREACHABLE_STEP,
                f"Step `{s.id.text}` of composition `{comp.key}` can never run: no branch "
                "names it and it follows a `branch` step (add `depends_on` or name it in "
                "`then`/`else`)",
                s.id.span,
                data=UnreachableStep(name=s.id.text, composition=comp.key),
            )
    for cycle in _cycles(succ):
        head = ids[cycle[0]]
        assert head.id is not None
        listed = " → ".join(f"`{c}`" for c in cycle[:MAX_LISTED])
        more = f" … ({len(cycle)} steps)" if len(cycle) > MAX_LISTED else ""
        yield make(
            STEP_CYCLE,
            f"The steps of composition `{comp.key}` form a cycle: {listed} → `{cycle[0]}`"
            f"{more}; compositions must be acyclic",
            head.id.span,
            related=[
                Related(ids[c].id.span, f"step `{c}` is on the cycle")  # type: ignore[union-attr]
                for c in cycle[1:MAX_LISTED]
            ],
            data=StepCycle(steps=cycle, composition=comp.key),
        )


def _cycles(succ: dict[str, list[str]]) -> list[list[str]]:
    """One cycle per strongly connected component with a cycle, each listed in graph
    order from the component's first step."""
    return [
        _cycle_in(comp, succ)
        for comp in strongly_connected(succ)
        if len(comp) > 1 or comp[0] in succ.get(comp[0], [])
    ]


def _cycle_in(component: list[str], succ: dict[str, list[str]]) -> list[str]:
    """A simple cycle through the component, found by walking inside it."""
    members = set(component)
    order = {n: i for i, n in enumerate(succ)}
    start = min(component, key=lambda n: order[n])
    path = [start]
    seen = {start}
    node = start
    while True:
        nxt = next(n for n in succ[node] if n in members)
        if nxt == start or nxt in seen:
            return path[path.index(nxt) :] if nxt in seen else path
        path.append(nxt)
        seen.add(nxt)
        node = nxt
