"""PP92x — provider requirements (RFC 0012) and provider references (RFC 0017).

``requires.providers`` declares the logical providers a pack needs, by ``key``; a
prompt or a composition step picks one with ``provider``. The key ``default`` (the
primary LLM) is always valid, declared or not. A step without ``provider`` uses its
prompt's, a prompt without one uses ``default``.

A step's ``provider`` in a pack that targets a version before 1.9.0 is the 1.9.0
feature written too early: the official schemas before 1.9.0 leave steps open, so
they accept the key, but give it no meaning, and a runtime of that version runs the
step on its prompt's provider. It is reported as PP110 (which version it needs),
like the prompt-level ``provider`` that those schemas refuse (a warning here, since the
schema of that version accepts the key), and PP923/PP924 check it as the reference it
is meant to be (docs/decisions.md, D54).
"""

from __future__ import annotations

import functools
from collections.abc import Generator, Iterable, Iterator
from dataclasses import replace

from pack_lsp.core.base import versions
from pack_lsp.core.base.diagnostics import Diagnostic, FixKind, Related, Rule, Severity, make
from pack_lsp.core.base.example_pack import pack_example
from pack_lsp.core.base.fixes import suggest
from pack_lsp.core.base.problemdata import (
    ConversationalPromptOnNonLlmProvider,
    DuplicateProviderKey,
    OptionalProviderReferenced,
    PromptStepOnNonLlmProvider,
    UndefinedProvider,
    UnknownProviderRole,
)
from pack_lsp.core.base.resources import load_schema
from pack_lsp.core.base.suggest import did_you_mean, hint_for, suggestions
from pack_lsp.core.model.context import CheckContext
from pack_lsp.core.model.pack import Located, Pack, ProviderRequirement
from pack_lsp.core.model.resolve import Kind, Missing, resolve_name
from pack_lsp.core.model.schema import needs_version

CATEGORY = "Providers"
DEFAULT = "default"
LLM = "llm"
#: The roles the specification suggests (an open set: others are legal).
KNOWN_ROLES = ("llm", "embedding", "tts", "stt", "image", "inference")

DUPLICATE_PROVIDER_KEY = Rule(
    "PP921",
    "duplicate-provider-key",
    Severity.ERROR,
    "Two entries of `requires.providers` have the same `key`; the key is what prompts "
    "and steps select a provider by, so it must be unique. A string entry is the "
    "requirement with that key (`default` is `{key: default, role: llm}`), so it "
    "counts too; keys are compared exactly (`Judge` and `judge` differ).",
    pack_example(
        "requires:\n"
        "  providers:\n"
        "    - default\n"
        "    - {key: default, role: llm}\n"
        "prompts:\n"
        "  support: {id: support, name: Support, version: 1.0.0, system_template: Help}\n"
    ),
    "Remove the second entry, or give it its own key.",
    CATEGORY,
)

UNKNOWN_PROVIDER_ROLE = Rule(
    "PP922",
    "unknown-provider-role",
    Severity.INFORMATION,
    "A provider requirement's `role` is not one of the suggested roles (`llm`, "
    "`embedding`, `tts`, `stt`, `image`, `inference`). Roles are an open set, so this is "
    "never an error; it may be a typo.",
    pack_example(
        "requires:\n"
        "  providers:\n"
        "    - {key: judge, role: lmm}   # did you mean `llm`?\n"
        "prompts:\n"
        "  support: {id: support, name: Support, version: 1.0.0, system_template: Help}\n"
    ),
    "Correct the role if it is a typo; otherwise make sure the runtime knows it.",
    CATEGORY,
    fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
    safe_fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
)

UNDEFINED_PROVIDER = Rule(
    "PP923",
    "undefined-provider",
    Severity.ERROR,
    "A prompt's or a composition step's `provider` is not the `key` of an entry of "
    "`requires.providers` (`default` is always allowed).",
    pack_example(
        "requires:\n"
        "  providers: [{key: triage, role: llm}]\n"
        "prompts:\n"
        "  support: {id: support, name: Support, version: 1.0.0, system_template: Hel"
        "p, provider: triag}\n"
    ),
    "Use a declared key (a quick fix offers close ones), or declare the requirement.",
    CATEGORY,
    fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
    safe_fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
)

OPTIONAL_PROVIDER_REFERENCED = Rule(
    "PP924",
    "optional-provider-referenced",
    Severity.WARNING,
    "A prompt or a step names a provider requirement declared `required: false`. A "
    "runtime rejects the pack when that optional provider is not bound, because a call "
    "site that names it has nothing to fall back to.",
    pack_example(
        "requires:\n"
        "  providers: [{key: vision, role: llm, required: false}]\n"
        "prompts:\n"
        "  support: {id: support, name: Support, version: 1.0.0, system_template: Hel"
        "p, provider: vision}\n"
    ),
    "Make the requirement required, or leave the call site on another provider.",
    CATEGORY,
)

CONVERSATIONAL_PROMPT_ON_NON_LLM_PROVIDER = Rule(
    "PP925",
    "conversational-prompt-on-non-llm-provider",
    Severity.WARNING,
    "A prompt run by a conversational workflow state names a provider whose `role` is "
    "not `llm`; a conversation needs a model that produces text.",
    pack_example(
        "requires:\n"
        "  providers: [{key: triage, role: inference}]\n"
        "prompts:\n"
        "  support: {id: support, name: Support, version: 1.0.0, system_template: Hel"
        "p, provider: triage}\n"
        "workflow:\n"
        "  version: 1\n"
        "  entry: talk\n"
        "  states:\n"
        "    talk: {prompt_task: support, terminal: true}\n"
    ),
    "Run the state's prompt on an `llm` provider.",
    CATEGORY,
)

PROMPT_STEP_ON_NON_LLM_PROVIDER_WITHOUT_SCHEMA = Rule(
    "PP926",
    "prompt-step-on-non-llm-provider-without-schema",
    Severity.WARNING,
    "A `prompt` step runs on a provider whose `role` is not `llm` but declares no "
    "`output_schema`; a non-LLM provider can only answer a structured question.",
    pack_example(
        "requires:\n"
        "  providers: [{key: triage, role: inference}]\n"
        "prompts:\n"
        "  support: {id: support, name: Support, version: 1.0.0, system_template: Help}\n"
        "compositions:\n"
        "  handle:\n"
        "    version: 1\n"
        "    steps:\n"
        "      - {id: intent, kind: prompt, prompt_task: support, provider: triage}\n"
    ),
    "Add an `output_schema` to the step, or run it on an `llm` provider.",
    CATEGORY,
)

RULES = (
    DUPLICATE_PROVIDER_KEY,
    UNKNOWN_PROVIDER_ROLE,
    UNDEFINED_PROVIDER,
    OPTIONAL_PROVIDER_REFERENCED,
    CONVERSATIONAL_PROMPT_ON_NON_LLM_PROVIDER,
    PROMPT_STEP_ON_NON_LLM_PROVIDER_WITHOUT_SCHEMA,
)


def check(ctx: CheckContext) -> Iterable[Diagnostic]:
    pack = ctx.pack
    declared = yield from _declarations(pack.providers)
    for key, prompt in pack.prompts.items():
        if prompt.provider is not None:
            yield from _reference(prompt.provider, f"Prompt `{key}`", declared)
    steps = [
        (cname, step)
        for cname, comp in pack.compositions.items()
        for step in comp.all_steps()
        if step.provider is not None
    ]
    early = _early_target(ctx) if steps else None
    for cname, step in steps:
        assert step.provider is not None
        sid = step.id.text if step.id is not None else "?"
        if early is not None:
            yield _step_needs_version(cname, sid, step.provider, early)
        yield from _reference(step.provider, f"Step `{sid}` of composition `{cname}`", declared)
    yield from _roles(pack, declared)


@functools.cache
def _step_provider() -> dict[str, str]:
    """When a step's ``provider`` appeared (``x-since``/``x-rfc`` of our schema)."""
    prop = load_schema("promptpack.schema.json")["$defs"]["PromptStep"]["properties"]["provider"]
    return {"since": prop["x-since"], "rfc": prop["x-rfc"]}


def _step_needs_version(
    composition: str, sid: str, ref: Located, target: versions.Target
) -> Diagnostic:
    """PP110 for a step's ``provider`` in a pack that targets a version before it: a
    warning, since that version's schema accepts the key (its steps are open)."""
    path = ("compositions", composition, "steps", sid, "provider")
    found = needs_version("provider", _step_provider(), ref.span, path, target)
    return replace(
        found,
        severity=Severity.WARNING,
        message=f"{found.message}: the schema of that version accepts it on a step (steps "
        "are open there) but gives it no meaning, so a runtime of that version runs the "
        "step on its prompt's provider",
    )


def _early_target(ctx: CheckContext) -> versions.Target | None:
    """The target version when it is before a step's ``provider`` (None otherwise, and
    under a profile, whose schema says itself what its runtime reads)."""
    target = ctx.target
    since = _step_provider()["since"]
    if target.source == versions.SOURCE_PROFILE or versions.key(target.version) >= versions.key(
        since
    ):
        return None
    return target


def _declarations(
    providers: list[ProviderRequirement],
) -> Generator[Diagnostic, None, dict[str, ProviderRequirement]]:
    declared: dict[str, ProviderRequirement] = {}
    for req in providers:
        key = req.key
        if key is None or not isinstance(key.value, str):
            continue
        first = declared.get(key.value)
        if first is not None and first.key is not None:
            shorthand = (
                f" (the string `{key.text}` is the requirement `{{key: {key.text}, role: llm}}`)"
                if req.shorthand or first.shorthand
                else ""
            )
            yield make(
                DUPLICATE_PROVIDER_KEY,
                f"Provider key `{key.text}` is already declared in `requires.providers`"
                f"{shorthand}; a requirement is known by its key alone, so keys are unique "
                "(RFC 0012)",
                key.span,
                related=[Related(first.key.span, "first declared here")],
                data=DuplicateProviderKey(name=key.text),
            )
            continue
        declared[key.value] = req
        role = req.role
        if role is not None and not req.shorthand and role.text not in KNOWN_ROLES:
            yield make(
                UNKNOWN_PROVIDER_ROLE,
                f"Provider role `{role.text}` is not one of the suggested roles "
                f"({', '.join(KNOWN_ROLES)}); roles are open, check that the runtime knows it"
                + did_you_mean(role.text, KNOWN_ROLES),
                role.span,
                data=UnknownProviderRole(
                    value=role.text, suggestions=suggestions(role.text, KNOWN_ROLES)
                ),
                fixes=suggest(role.span, suggestions(role.text, KNOWN_ROLES)),
            )
    return declared


def _reference(
    ref: Located, what: str, declared: dict[str, ProviderRequirement]
) -> Iterator[Diagnostic]:
    name = ref.text
    # `default` is the runtime's own provider unless the pack declares one so named.
    resolved = resolve_name(Kind.PROVIDER, name, declared, extra=(DEFAULT,))
    if isinstance(resolved, Missing):
        found = list(resolved.suggestions)
        yield make(
            UNDEFINED_PROVIDER,
            f"{what} names provider `{name}`, which is not a key of `requires.providers`"
            + hint_for(found),
            ref.span,
            data=UndefinedProvider(name=name, suggestions=found),
            fixes=suggest(ref.span, found),
        )
        return
    req = declared.get(name)
    if req is None:  # the runtime's `default`
        return
    if not req.is_required:
        yield make(
            OPTIONAL_PROVIDER_REFERENCED,
            f"{what} names provider `{name}`, which is declared `required: false`; the pack is "
            "rejected whenever it is not bound",
            ref.span,
            related=[Related(req.span, "declared optional here")],
            data=OptionalProviderReferenced(name=name),
        )


def _role_of(name: str, declared: dict[str, ProviderRequirement]) -> str:
    req = declared.get(name)
    return req.role_name if req is not None else LLM


def _roles(pack: Pack, declared: dict[str, ProviderRequirement]) -> Iterator[Diagnostic]:
    wf = pack.workflow
    if wf is not None:
        reported: set[str] = set()
        for key, state in wf.states.items():
            if state.orchestration is not None and state.orchestration.value == "composition":
                continue
            task = state.prompt_task
            prompt = pack.prompts.get(task.text) if task is not None else None
            if prompt is None or prompt.provider is None or prompt.key in reported:
                continue
            ref = prompt.provider
            if ref.text not in declared or _role_of(ref.text, declared) == LLM:
                continue
            reported.add(prompt.key)
            yield make(
                CONVERSATIONAL_PROMPT_ON_NON_LLM_PROVIDER,
                f"Prompt `{prompt.key}` runs conversational state `{key}` but names provider "
                f"`{ref.text}`, whose role is `{_role_of(ref.text, declared)}`, not `llm`",
                ref.span,
                related=[Related(state.key_span, f"state `{key}` runs this prompt")],
                data=ConversationalPromptOnNonLlmProvider(name=ref.text),
            )
    for cname, comp in pack.compositions.items():
        for step in comp.all_steps():
            if step.kind is None or step.kind.value != "prompt" or step.output_schema is not None:
                continue
            step_ref = step.provider
            if step_ref is None and step.prompt_task is not None:
                task_prompt = pack.prompts.get(step.prompt_task.text)
                step_ref = task_prompt.provider if task_prompt is not None else None
            if step_ref is None or step_ref.text not in declared:
                continue
            role = _role_of(step_ref.text, declared)
            if role == LLM:
                continue
            sid = step.id.text if step.id is not None else "?"
            yield make(
                PROMPT_STEP_ON_NON_LLM_PROVIDER_WITHOUT_SCHEMA,
                f"Prompt step `{sid}` of composition `{cname}` runs on provider "
                f"`{step_ref.text}` (role `{role}`, not `llm`) but declares no `output_schema`",
                step.id.span if step.id is not None else step.span,
                related=[Related(step_ref.span, f"provider `{step_ref.text}` named here")],
                data=PromptStepOnNonLlmProvider(name=step_ref.text),
            )
