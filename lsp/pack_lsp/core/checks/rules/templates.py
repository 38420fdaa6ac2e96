"""PP5xx — template placeholders, prompt variables and fragments.

Placeholders come from ``pack_lsp.core.model.templates`` (with the configured fragment
dialect). A prompt uses a variable when its templates — ``system_template`` and
every model override template — or a fragment they include (directly or through
other fragments) contain a placeholder naming it.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from pack_lsp.core.base.diagnostics import Diagnostic, FixKind, Related, Rule, Severity, Tag, make
from pack_lsp.core.base.example_pack import pack_example
from pack_lsp.core.base.fixes import DeclareVariable, FixData, Quote, suggest
from pack_lsp.core.base.problemdata import (
    DefaultNotInEnum,
    DefaultTypeMismatch,
    FragmentExpansionTooLarge,
    FragmentIncludeCycle,
    RequiredVariableWithDefault,
    UnbalancedBraces,
    UndeclaredVariable,
    UndefinedFragment,
    UnusedFragment,
    UnusedVariable,
)
from pack_lsp.core.base.suggest import did_you_mean, hint_for
from pack_lsp.core.base.text import Span
from pack_lsp.core.model.context import CheckContext
from pack_lsp.core.model.expansion import Expander, render_budget
from pack_lsp.core.model.pack import Pack, Prompt, Variable
from pack_lsp.core.model.resolve import Defined, Kind, resolve_name
from pack_lsp.core.model.summary import Owner, PackSummary, PromptContext, Use
from pack_lsp.core.model.templates import PackTemplates, TemplateInfo, implicit_variables

CATEGORY = "Templates, variables and fragments"

UNDEFINED_FRAGMENT = Rule(
    "PP501",
    "undefined-fragment",
    Severity.ERROR,
    "A fragment placeholder (`{{fragments.name}}`, `{{fragment:name}}`, or a bare "
    "`{{name}}` in the `promptkit` fragment dialect) names a fragment that is not a key "
    "of the pack's `fragments`.",
    (
        "id: support\n"
        "name: Support\n"
        "version: 1.0.0\n"
        'template_engine: {version: v1, syntax: "{{variable}}", features: [fragments]}\n'
        "prompts:\n"
        "  support:\n"
        "    id: support\n"
        "    name: Support\n"
        "    version: 1.0.0\n"
        '    system_template: "Help. {{fragments.tone}}"   # the pack has no fragments\n'
    ),
    "Correct the name (a quick fix offers the suggestions) or add the fragment under `fragments`.",
    CATEGORY,
    fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
    safe_fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
)

UNDECLARED_VARIABLE = Rule(
    "PP502",
    "undeclared-variable",
    Severity.WARNING,
    "A template placeholder names a variable that the prompt does not declare in its "
    "`variables`. For a placeholder inside a fragment, every prompt that includes the "
    "fragment is checked. Runtimes substitute nothing (or fail) for an undeclared "
    "variable, and callers cannot know they must supply it. Two names the reference "
    "runtime supplies itself are not reported: `input` (the whole structured input) and, "
    "in prompts run by a workflow state, `workflow_context` (the hand-over text of the "
    "transition). PromptKit refuses a prompt that uses variables and declares none: "
    "that case is an error under the `promptkit` profile.",
    pack_example(
        "prompts:\n"
        "  support:\n"
        "    id: support\n"
        "    name: Support\n"
        "    version: 1.0.0\n"
        '    system_template: "Hello {{customer}}"   # not declared\n'
    ),
    "Declare the variable in the prompt's `variables` (a quick fix adds it) or correct "
    "the placeholder's name.",
    CATEGORY,
    fixes=(
        FixKind.DECLARE_VARIABLE,
        FixKind.REPLACE_WITH_SUGGESTION,
    ),
    safe_fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
)

UNUSED_VARIABLE = Rule(
    "PP503",
    "unused-variable",
    Severity.HINT,
    "A prompt declares a variable that none of its templates (nor the fragments they "
    "include) uses.",
    pack_example(
        "prompts:\n"
        "  support:\n"
        "    id: support\n"
        "    name: Support\n"
        "    version: 1.0.0\n"
        "    system_template: Hello\n"
        "    variables: [{name: company, type: string, required: false}]\n"
    ),
    "Use the variable in the template (`{{company}}`) or remove its declaration.",
    CATEGORY,
)

UNUSED_FRAGMENT = Rule(
    "PP504",
    "unused-fragment",
    Severity.HINT,
    "A fragment is never included by any template of the pack.",
    (
        "id: support\n"
        "name: Support\n"
        "version: 1.0.0\n"
        'template_engine: {version: v1, syntax: "{{variable}}", features: [fragments]}\n'
        "fragments:\n"
        "  legal_notice: All calls are recorded.   # no template includes it\n"
        "prompts:\n"
        "  support:\n"
        "    id: support\n"
        "    name: Support\n"
        "    version: 1.0.0\n"
        "    system_template: Hello\n"
    ),
    "Include it where it belongs (`{{fragments.legal_notice}}`) or remove it.",
    CATEGORY,
)

REQUIRED_VARIABLE_WITH_DEFAULT = Rule(
    "PP505",
    "required-variable-with-default",
    Severity.WARNING,
    "A variable is `required: true` and also has a `default`. A required variable must "
    "always be supplied, so its default is never used.",
    pack_example(
        "prompts:\n"
        "  support:\n"
        "    id: support\n"
        "    name: Support\n"
        "    version: 1.0.0\n"
        '    system_template: "Hello from {{company}}"\n'
        "    variables:\n"
        "      - {name: company, type: string, required: true, default: Acme}\n"
    ),
    "Set `required: false` to make the default apply, or remove the `default`.",
    CATEGORY,
)

DEFAULT_TYPE_MISMATCH = Rule(
    "PP506",
    "default-type-mismatch",
    Severity.WARNING,
    "A variable's `default` is not of the variable's `type` (`string`, `number`, "
    "`integer`, `boolean`, `array` or `object`; other types are not checked).",
    pack_example(
        "prompts:\n"
        "  support:\n"
        "    id: support\n"
        "    name: Support\n"
        "    version: 1.0.0\n"
        '    system_template: "Show {{max_items}} items"\n'
        "    variables:\n"
        '      - {name: max_items, type: number, required: false, default: "ten"}\n'
    ),
    "Give a default of the declared type, or correct the `type`.",
    CATEGORY,
)

DEFAULT_NOT_IN_ENUM = Rule(
    "PP507",
    "default-not-in-enum",
    Severity.WARNING,
    "A variable's `default` is not one of the values its `validation.enum` allows.",
    pack_example(
        "prompts:\n"
        "  support:\n"
        "    id: support\n"
        "    name: Support\n"
        "    version: 1.0.0\n"
        '    system_template: "Plan: {{tier}}"\n'
        "    variables:\n"
        "      - name: tier\n"
        "        type: string\n"
        "        required: false\n"
        "        default: gold\n"
        "        validation: {enum: [free, pro]}\n"
    ),
    "Use one of the allowed values as the default, or add the default to the enum.",
    CATEGORY,
)

UNBALANCED_BRACES = Rule(
    "PP508",
    "unbalanced-braces",
    Severity.WARNING,
    "A template opens a placeholder with `{{` that is never closed (another `{{` or the "
    "end of the text comes first), or closes `{name}}` with only one opening brace. "
    "The text is passed to the model literally instead of being substituted.",
    pack_example(
        "prompts:\n"
        "  support:\n"
        "    id: support\n"
        "    name: Support\n"
        "    version: 1.0.0\n"
        '    system_template: "Hello {{customer_name, how can I help?"\n'
    ),
    "Add the missing braces: `{{customer_name}}`.",
    CATEGORY,
)

FRAGMENT_INCLUDE_CYCLE = Rule(
    "PP509",
    "fragment-include-cycle",
    Severity.ERROR,
    "Fragments include each other in a circle (`a` includes `b`, `b` includes `a`, or a "
    "fragment includes itself): expanding them never ends, and runtimes either fail or "
    "leave a placeholder in the text.",
    (
        "id: support\n"
        "name: Support\n"
        "version: 1.0.0\n"
        'template_engine: {version: v1, syntax: "{{variable}}", features: [fragments]}\n'
        "fragments:\n"
        '  header: "{{fragments.footer}} Welcome"\n'
        '  footer: "Bye {{fragments.header}}"\n'
        "prompts:\n"
        "  support:\n"
        "    id: support\n"
        "    name: Support\n"
        "    version: 1.0.0\n"
        '    system_template: "{{fragments.header}}"\n'
    ),
    "Remove one of the includes; move shared text into a third fragment both include.",
    CATEGORY,
)

FRAGMENT_EXPANSION_TOO_LARGE = Rule(
    "PP016",
    "fragment-expansion-too-large",
    Severity.ERROR,
    "A prompt's system template is larger than the render budget (a million characters "
    "by default, about 250,000 tokens) once its fragments are expanded: fragments that "
    "include fragments several times multiply. A runtime expanding it spends minutes "
    "and gigabytes, and no model takes the result. The message gives the include path "
    "that makes most of it.",
    (
        "id: support\n"
        "name: Support\n"
        "version: 1.0.0\n"
        'template_engine: {version: v1, syntax: "{{variable}}", features: [fragments]}\n'
        "fragments:\n"
        '  a: "{{fragments.b}}{{fragments.b}}{{fragments.b}}{{fragments.b}}{{fragments.b}}"\n'
        '  b: "{{fragments.c}}{{fragments.c}}{{fragments.c}}{{fragments.c}}{{fragments.c}}"\n'
        '  c: "{{fragments.d}}{{fragments.d}}{{fragments.d}}{{fragments.d}}{{fragments.d}}"\n'
        '  d: "{{fragments.e}}{{fragments.e}}{{fragments.e}}{{fragments.e}}{{fragments.e}}"\n'
        '  e: "{{fragments.f}}{{fragments.f}}{{fragments.f}}{{fragments.f}}{{fragments.f}}"\n'
        '  f: "{{fragments.g}}{{fragments.g}}{{fragments.g}}{{fragments.g}}{{fragments.g}}"\n'
        "  g: Be polite, be brief, and answer in the customer's own language, always.\n"
        "prompts:\n"
        "  support:\n"
        "    id: support\n"
        "    name: Support\n"
        "    version: 1.0.0\n"
        '    system_template: "{{fragments.a}}"\n'
    ),
    "Include each fragment once where it is needed instead of nesting repeated "
    "includes; `PACK_LSP_MAX_RENDER_SIZE` raises the budget if the size is intended.",
    CATEGORY,
)

RULES = (
    UNDEFINED_FRAGMENT,
    UNDECLARED_VARIABLE,
    UNUSED_VARIABLE,
    UNUSED_FRAGMENT,
    REQUIRED_VARIABLE_WITH_DEFAULT,
    DEFAULT_TYPE_MISMATCH,
    DEFAULT_NOT_IN_ENUM,
    UNBALANCED_BRACES,
    FRAGMENT_INCLUDE_CYCLE,
    FRAGMENT_EXPANSION_TOO_LARGE,
)
#: The longest cycle of fragments listed in full in a message.
MAX_LISTED = 8

_TYPES: dict[str, str] = {
    "string": "a string",
    "number": "a number",
    "integer": "an integer",
    "boolean": "true or false",
    "array": "a list",
    "object": "a mapping",
}

# ------------------------------------------------------------------------ shared state


def templates_of(ctx: CheckContext) -> PackTemplates:
    """The pack's templates and placeholders, computed once per analysis."""
    return ctx.templates


# ----------------------------------------------------------------------------- check


def check_prompt(ctx: PromptContext, prompt: Prompt) -> Iterable[Diagnostic]:
    summary = ctx.summary
    own = ctx.templates
    fragments = summary.fragment_keys()
    yield from _undefined_fragments(fragments, own)
    reached = list(summary.reached(own))
    yield from _undeclared_variables(
        summary, reached, prompt, summary.config.profile == "promptkit"
    )
    yield from _unused_variables(own, reached, prompt)
    for variable in prompt.variables:
        yield from _variable_defaults(prompt, variable)
    yield from _unbalanced(own)


def check(ctx: CheckContext) -> Iterable[Diagnostic]:
    pack = ctx.pack
    info = templates_of(ctx)
    fragments = [t for t in info.templates if t.owner == "fragment"]
    yield from _undefined_fragments(list(pack.fragments), fragments)
    yield from _unused_fragments(pack, info)
    yield from _include_cycles(pack, info)
    yield from _unbalanced(fragments)
    yield from _expansions(pack, info)


def _unbalanced(templates: Iterable[TemplateInfo]) -> Iterator[Diagnostic]:
    for t in templates:
        for problem in t.unbalanced:
            if problem.which == "{{":
                message = (
                    f"`{{{{` opens a placeholder that is never closed in {_where(t.owner, t.key)}"
                    "; add `}}`"
                )
            else:
                message = (
                    f"`}}}}` closes a placeholder opened with a single `{{` in "
                    f"{_where(t.owner, t.key)}; write `{{{{{problem.name}}}}}`"
                )
            yield make(
                UNBALANCED_BRACES,
                message,
                problem.span,
                data=UnbalancedBraces(which=problem.which, name=problem.name),
            )


def _where(owner: str, key: str) -> str:
    return f"prompt `{key}`" if owner == "prompt" else f"fragment `{key}`"


def _undefined_fragments(
    names: list[str], templates: Iterable[TemplateInfo]
) -> Iterator[Diagnostic]:
    """Fragment placeholders of ``templates`` naming none of the fragment keys ``names``."""
    known = set(names)
    for t in templates:
        for p in t.placeholders:
            if p.kind != "fragment":
                continue
            resolved = resolve_name(Kind.FRAGMENT, p.name, known)
            if isinstance(resolved, Defined):
                continue
            found = list(resolved.suggestions)
            if not names:
                message = f"Fragment `{p.name}` is not defined: the pack has no `fragments`"
            else:
                message = f"Fragment `{p.name}` is not defined in `fragments`" + hint_for(found)
            yield make(
                UNDEFINED_FRAGMENT,
                message,
                p.name_span,
                data=UndefinedFragment(name=p.name, suggestions=found),
                fixes=suggest(p.name_span, found, Quote.BARE),
            )


def _declared(prompt: Prompt) -> dict[str, Variable]:
    out: dict[str, Variable] = {}
    for v in prompt.variables:
        if v.name is not None and isinstance(v.name.value, str):
            out.setdefault(v.name.value, v)
    return out


def _undeclared_variables(
    summary: PackSummary,
    reached: list[tuple[Owner, str, Use]],
    prompt: Prompt,
    promptkit: bool,
) -> Iterator[Diagnostic]:
    key = prompt.key
    declared = _declared(prompt)
    implicit = implicit_variables(key, summary.tasks)
    for owner, owner_key, p in reached:
        if p.kind != "variable" or p.scoped or p.name in implicit:
            continue
        resolved = resolve_name(Kind.VARIABLE, p.name, declared, key)
        if isinstance(resolved, Defined):
            continue
        found = list(resolved.suggestions)
        message = f"`{p.name}` is not declared in the `variables` of prompt `{key}`"
        if owner == "fragment":
            message += f" (it is used in fragment `{owner_key}`, which the prompt includes)"
        message += hint_for(found)
        if summary.dialect != "promptkit" and summary.is_fragment(p.name) and p.syntax == "bare":
            # The form the dialect's runtime resolves: promptpack-python never resolves
            # `{{fragments.x}}`, only `{{fragment:x}}`.
            form = f"fragment:{p.name}" if summary.dialect == "python" else f"fragments.{p.name}"
            message += f"; to include the fragment, write `{{{{{form}}}}}`"
        related = [Related(prompt.key_span, f"prompt `{key}`")] if owner == "fragment" else []
        fixes: tuple[FixData, ...] = (DeclareVariable(p.name, (key,)),)
        fixes += suggest(p.name_span, found, Quote.BARE)
        diagnostic = make(
            UNDECLARED_VARIABLE,
            message,
            p.name_span,
            related=related,
            data=UndeclaredVariable(name=p.name, prompt=key, suggestions=found),
            fixes=fixes,
        )
        if promptkit and not declared:
            # PromptKit refuses a prompt whose templates use variables when it
            # declares none (with some declared it only warns, as we do).
            diagnostic = diagnostic.with_severity(Severity.ERROR)
        yield diagnostic


def _include_cycles(pack: Pack, info: PackTemplates) -> Iterator[Diagnostic]:
    """One report per fragment on a cycle of includes, on its first include of the
    next fragment of the cycle (so each place can be fixed where it is written)."""
    edges: dict[str, list[tuple[str, Span]]] = {}
    for key in pack.fragments:
        edges[key] = [
            (p.name, p.name_span)
            for t in info.of_fragment(key)
            for p in t.placeholders
            if p.kind == "fragment" and p.name in pack.fragments
        ]
    reported: set[str] = set()
    cyclic = _on_cycles(edges)
    for start in pack.fragments:
        if start in reported or start not in cyclic:
            continue
        path = _cycle_from(start, edges)
        if path is None:
            continue
        listed = " → ".join(f"`{k}`" for k in path[:MAX_LISTED])
        more = f" … ({len(path)} fragments)" if len(path) > MAX_LISTED else ""
        for i, key in enumerate(path):
            if key in reported:
                continue
            reported.add(key)
            nxt = path[(i + 1) % len(path)]
            span = next(sp for name, sp in edges[key] if name == nxt)
            message = (
                f"Fragment `{key}` includes itself"
                if len(path) == 1
                else f"Fragment `{key}` includes `{nxt}`, which leads back to it: "
                f"{listed} → `{path[0]}`{more}"
            )
            yield make(
                FRAGMENT_INCLUDE_CYCLE,
                message,
                span,
                data=FragmentIncludeCycle(name=nxt, cycle=path),
            )


def _expansions(pack: Pack, info: PackTemplates) -> Iterator[Diagnostic]:
    """PP016: system templates over the render budget once expanded, reported on the
    first include of the path that makes most of the size."""
    budget = render_budget()
    if not budget or not pack.fragments:
        return
    expander: Expander | None = None
    for key, prompt in pack.prompts.items():
        if prompt.system_template is None:
            continue
        own = [t for t in info.of_prompt(key) if t.template is prompt.system_template]
        if not own or not any(p.kind == "fragment" for p in own[0].placeholders):
            continue
        if expander is None:
            expander = Expander({k: info.of_fragment(k) for k in pack.fragments})
        if expander.size(own[0]) <= budget:
            continue
        found = expander.expansion(own[0])
        if not found.path:
            continue
        yield make(
            FRAGMENT_EXPANSION_TOO_LARGE,
            f"The system template of prompt `{key}` is {found.size:,} characters once its "
            f"fragments are expanded, over the budget of {budget:,}; most of it comes from "
            f"{found.shown(key)}",
            found.path[0].placeholder.name_span,
            data=FragmentExpansionTooLarge(
                size=found.size, budget=budget, path=[step.fragment for step in found.path]
            ),
        )


def _on_cycles(edges: dict[str, list[tuple[str, Span]]]) -> set[str]:
    """Fragments that may lie on a cycle of includes.

    What remains after repeatedly removing fragments that include nothing left, and
    fragments that nothing left includes. Without it, searching for a cycle from
    every fragment of a long include chain is quadratic in the number of fragments.
    """
    targets = {key: {name for name, _ in out if name in edges} for key, out in edges.items()}
    sources: dict[str, set[str]] = {key: set() for key in edges}
    for key, names in targets.items():
        for name in names:
            sources[name].add(key)
    alive = set(edges)
    for forward, backward in ((targets, sources), (sources, targets)):
        count = {key: len(forward[key] & alive) for key in alive}
        queue = deque(key for key in alive if count[key] == 0)
        while queue:
            gone = queue.popleft()
            alive.discard(gone)
            for key in backward[gone]:
                if key in alive:
                    count[key] -= 1
                    if count[key] == 0:
                        queue.append(key)
    return alive


def _cycle_from(start: str, edges: dict[str, list[tuple[str, Span]]]) -> list[str] | None:
    """A cycle of includes through ``start`` (shortest by breadth-first search)."""
    parents: dict[str, str] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for nxt, _ in edges.get(node, ()):
            if nxt == start:
                path = [node]
                while path[-1] != start:
                    path.append(parents[path[-1]])
                return list(reversed(path))
            if nxt not in parents:
                parents[nxt] = node
                queue.append(nxt)
    return None


def _unused_variables(
    own: Sequence[TemplateInfo], reached: list[tuple[Owner, str, Use]], prompt: Prompt
) -> Iterator[Diagnostic]:
    key = prompt.key
    if not own:
        return  # no template to compare with (the schema reports a missing one)
    used = {p.name for _, _, p in reached if p.kind == "variable"}
    scoped = any(p.scoped for _, _, p in reached)
    for name, variable in _declared(prompt).items():
        if name in used or scoped:
            continue
        assert variable.name is not None
        yield make(
            UNUSED_VARIABLE,
            f"Variable `{name}` is declared by prompt `{key}` but no template uses it",
            variable.name.span,
            tags=[Tag.UNNECESSARY],
            data=UnusedVariable(name=name, prompt=key),
        )


def _unused_fragments(pack: Pack, info: PackTemplates) -> Iterator[Diagnostic]:
    used = {p.name for t in info.templates for p in t.placeholders if p.kind == "fragment"}
    for key, fragment in pack.fragments.items():
        if key in used:
            continue
        yield make(
            UNUSED_FRAGMENT,
            f"Fragment `{key}` is never included by any template",
            fragment.key_span,
            tags=[Tag.UNNECESSARY],
            data=UnusedFragment(name=key),
        )


def _variable_defaults(prompt: Prompt, variable: Variable) -> Iterator[Diagnostic]:
    default = variable.default
    if default is None:
        return
    name = variable.name.text if variable.name is not None else "(unnamed)"
    owner = prompt.key
    if variable.required is not None and variable.required.value is True:
        yield make(
            REQUIRED_VARIABLE_WITH_DEFAULT,
            f"Variable `{name}` is required, so its `default` is never used",
            variable.default_key_span or default.span,
            data=RequiredVariableWithDefault(name=name, prompt=owner),
        )
    vtype = variable.type.value if variable.type is not None else None
    if isinstance(vtype, str) and vtype in _TYPES and not _matches_type(default.value, vtype):
        yield make(
            DEFAULT_TYPE_MISMATCH,
            f"The default of variable `{name}` is {_describe(default.value)}, but its type "
            f"`{vtype}` expects {_TYPES[vtype]}",
            default.span,
            data=DefaultTypeMismatch(type=vtype, name=name, prompt=owner),
        )
    if variable.enum is not None and not any(_same(default.value, e.value) for e in variable.enum):
        allowed = ", ".join(f"`{_show(e.value)}`" for e in variable.enum[:8])
        if len(variable.enum) > 8:
            allowed += ", ..."
        extra = (
            did_you_mean(str(default.value), [str(e.value) for e in variable.enum])
            if isinstance(default.value, str)
            else ""
        )
        yield make(
            DEFAULT_NOT_IN_ENUM,
            f"The default `{_show(default.value)}` of variable `{name}` is not one of the "
            f"allowed values ({allowed or 'none'})" + extra,
            default.span,
            data=DefaultNotInEnum(
                allowed=[e.value for e in variable.enum], name=name, prompt=owner
            ),
        )


def _matches_type(value: Any, vtype: str) -> bool:
    if vtype == "string":
        return isinstance(value, str)
    if vtype == "boolean":
        return isinstance(value, bool)
    if vtype == "number":
        return (
            isinstance(value, int | float)
            and not isinstance(value, bool)
            and (not isinstance(value, float) or math.isfinite(value))
        )
    if vtype == "integer":
        if isinstance(value, bool):
            return False
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if vtype == "array":
        return isinstance(value, list)
    if vtype == "object":
        return isinstance(value, dict)
    return True


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"the boolean `{_show(value)}`"
    if isinstance(value, int | float):
        return f"the number `{value}`"
    if isinstance(value, str):
        return f"the string `{value}`"
    if isinstance(value, list):
        return "a list"
    return "a mapping"


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    return str(value)


def _same(a: Any, b: Any) -> bool:
    """Equality that does not confuse `true` with 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    return bool(a == b)
