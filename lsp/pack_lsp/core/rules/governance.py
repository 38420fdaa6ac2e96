"""PP93x — governance declarations (RFC 0013) and obligations (RFC 0016).

A governance object (``metadata.governance``, or a member's ``governance``) lists
``obligations`` whose ``controls`` name validators and evals of the pack, and
``reviews`` that name obligations and evals. The schema checks the shapes; these rules
check that every name resolves and that validator ids are unique across the pack
(the form of a review's ``cadence``, an ISO 8601 duration, is the schema's to check).
"""

from __future__ import annotations

from collections.abc import Generator, Iterable, Iterator

from pack_lsp.core.context import CheckContext
from pack_lsp.core.diagnostics import Diagnostic, Related, Rule, Severity, make
from pack_lsp.core.model import Governance, Located, Pack
from pack_lsp.core.suggest import did_you_mean, suggestions
from pack_lsp.core.text import Span

CATEGORY = "Governance"

UNDEFINED_CONTROL_VALIDATOR = Rule(
    "PP931",
    "undefined-control-validator",
    Severity.ERROR,
    "An obligation control `validator:` names an id that no validator of the pack's "
    "prompts declares.",
    "obligations:\n  - {id: disclose, obligation: eu-aiact:Article50, "
    "controls: [{validator: ai-disclosur}]}",
    "Use the `id` of a validator of one of the prompts (a quick fix offers close ids), "
    "or give that validator an `id`.",
    CATEGORY,
)

UNDEFINED_CONTROL_EVAL = Rule(
    "PP932",
    "undefined-control-eval",
    Severity.ERROR,
    "An obligation control `eval:` or a review's `eval` names an id that neither the "
    "pack's `evals` nor a prompt's `evals` define.",
    "reviews:\n  - {id: bias, type: pp:BiasTesting, cadence: P3M, owner: ml-risk, eval: bias-chek}",
    "Use the `id` of a declared eval, or declare it.",
    CATEGORY,
)

DUPLICATE_VALIDATOR_ID = Rule(
    "PP933",
    "duplicate-validator-id",
    Severity.ERROR,
    "Two validators of the pack have the same `id`; ids are unique across the whole pack "
    "so that a governance control names exactly one.",
    "prompts:\n  a: {validators: [{id: pii, type: regex_match}]}\n"
    "  b: {validators: [{id: pii, type: banned_words}]}",
    "Give each validator its own id.",
    CATEGORY,
)

UNDEFINED_OBLIGATION = Rule(
    "PP935",
    "undefined-obligation",
    Severity.ERROR,
    "An entry of a review's `satisfies` is not the `id` of an obligation of the same "
    "governance object (or, for a member, of the pack's `metadata.governance`).",
    "reviews:\n  - {id: bias, type: pp:BiasTesting, cadence: P3M, owner: ml-risk, "
    "satisfies: [art50]}",
    "Use the id of a declared obligation.",
    CATEGORY,
)

DUPLICATE_GOVERNANCE_ID = Rule(
    "PP936",
    "duplicate-governance-id",
    Severity.ERROR,
    "Two obligations, or two reviews, of one governance object have the same `id`.",
    "obligations:\n  - {id: art50, ...}\n  - {id: art50, ...}",
    "Give each obligation and each review its own id.",
    CATEGORY,
)

RULES = (
    UNDEFINED_CONTROL_VALIDATOR,
    UNDEFINED_CONTROL_EVAL,
    DUPLICATE_VALIDATOR_ID,
    UNDEFINED_OBLIGATION,
    DUPLICATE_GOVERNANCE_ID,
)


def check(ctx: CheckContext) -> Iterable[Diagnostic]:
    pack = ctx.pack
    validators = yield from _validators(pack)
    evals = _eval_ids(pack)
    pack_level = next((g for g in pack.governance if g.where == "metadata.governance"), None)
    for gov in pack.governance:
        yield from _governance(gov, pack_level, validators, evals)


def _eval_ids(pack: Pack) -> list[str]:
    ids = [e.id.text for e in pack.evals if e.id is not None]
    for prompt in pack.prompts.values():
        ids.extend(e.id.text for e in prompt.evals if e.id is not None)
    return ids


def _validators(pack: Pack) -> Generator[Diagnostic, None, list[str]]:
    seen: dict[str, Span] = {}
    for key, prompt in pack.prompts.items():
        for v in prompt.validators:
            if v.id is None:
                continue
            first = seen.get(v.id.text)
            if first is None:
                seen[v.id.text] = v.id.span
                continue
            yield make(
                DUPLICATE_VALIDATOR_ID,
                f"Validator id `{v.id.text}` (prompt `{key}`) is already used by another "
                "validator; validator ids are unique across the pack",
                v.id.span,
                related=[Related(first, "first used here")],
                data={"kind": "duplicate-validator-id", "name": v.id.text},
            )
    return list(seen)


def _missing(
    rule: Rule, what: str, ref: Located, missing: str, known: list[str], kind: str
) -> Diagnostic:
    return make(
        rule,
        f"{what} `{ref.text}`, {missing}" + did_you_mean(ref.text, known),
        ref.span,
        data={"kind": kind, "name": ref.text, "suggestions": suggestions(ref.text, known)},
    )


def _governance(
    gov: Governance, pack_level: Governance | None, validators: list[str], evals: list[str]
) -> Iterator[Diagnostic]:
    where = f"`{gov.where}`"
    obligation_ids: list[str] = []
    seen: dict[str, Span] = {}
    for ob in gov.obligations:
        if ob.id is not None:
            yield from _duplicate(ob.id, seen, "Obligation", where)
            obligation_ids.append(ob.id.text)
        label = f"obligation `{ob.id.text}`" if ob.id is not None else "an obligation"
        for control in ob.controls:
            if control.kind == "validator" and control.value.text not in validators:
                yield _missing(
                    UNDEFINED_CONTROL_VALIDATOR,
                    f"A control of {label} in {where} names validator",
                    control.value,
                    "which no validator of the pack's prompts has as `id`",
                    validators,
                    "undefined-control-validator",
                )
            elif control.kind == "eval" and control.value.text not in evals:
                yield _missing(
                    UNDEFINED_CONTROL_EVAL,
                    f"A control of {label} in {where} names eval",
                    control.value,
                    "which is not defined in the pack's or a prompt's `evals`",
                    evals,
                    "undefined-control-eval",
                )
    known_obligations = list(obligation_ids)
    if pack_level is not None and pack_level is not gov:
        known_obligations += [o.id.text for o in pack_level.obligations if o.id is not None]
    seen = {}
    for review in gov.reviews:
        if review.id is not None:
            yield from _duplicate(review.id, seen, "Review", where)
        label = f"Review `{review.id.text}`" if review.id is not None else "A review"
        if review.eval is not None and review.eval.text not in evals:
            yield _missing(
                UNDEFINED_CONTROL_EVAL,
                f"{label} in {where} reads eval",
                review.eval,
                "which is not defined in the pack's or a prompt's `evals`",
                evals,
                "undefined-eval",
            )
        for sat in review.satisfies:
            if sat.text not in known_obligations:
                yield _missing(
                    UNDEFINED_OBLIGATION,
                    f"`satisfies` of {label[0].lower() + label[1:]} in {where} names",
                    sat,
                    "which is not the id of an obligation",
                    known_obligations,
                    "undefined-obligation",
                )


def _duplicate(ref: Located, seen: dict[str, Span], what: str, where: str) -> Iterator[Diagnostic]:
    first = seen.get(ref.text)
    if first is None:
        seen[ref.text] = ref.span
        return
    yield make(
        DUPLICATE_GOVERNANCE_ID,
        f"{what} id `{ref.text}` is used twice in {where}",
        ref.span,
        related=[Related(first, "first used here")],
        data={"kind": "duplicate-governance-id", "name": ref.text},
    )
