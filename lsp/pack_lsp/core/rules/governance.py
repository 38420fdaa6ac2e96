"""PP93x — governance declarations (RFC 0013) and obligations (RFC 0016).

A governance object (``metadata.governance``, or a member's ``governance``) lists
``obligations`` whose ``controls`` name validators and evals of the pack, and
``reviews`` that name obligations and evals. The schema checks the shapes; these rules
check that every name resolves and that validator ids are unique across the pack
(the form of a review's ``cadence``, an ISO 8601 duration, is the schema's to check).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Generator, Iterable, Iterator

from pack_lsp.core.context import CheckContext
from pack_lsp.core.diagnostics import Diagnostic, FixKind, Related, Rule, Severity, make
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
    fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
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
    fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
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
    fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
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

UNDEFINED_CONTROL_FIELD = Rule(
    "PP937",
    "undefined-control-field",
    Severity.ERROR,
    "An obligation control `field:` names a property that is not a governance property, "
    "or one that the effective governance object (the member's own, then the pack's "
    "`metadata.governance`) does not declare: an obligation cannot be discharged by a "
    "field nobody filled in.",
    "governance:\n  obligations:\n    - {id: disclose, obligation: eu-aiact:Article50, "
    "controls: [{field: requires_ai_disclosure}]}   # not declared",
    "Declare the property in the governance object, or correct the field name.",
    CATEGORY,
    fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
)

UNDECLARED_VOCABULARY_PREFIX = Rule(
    "PP938",
    "undeclared-vocabulary-prefix",
    Severity.WARNING,
    "A governance term written as a CURIE (`prefix:Term`) uses a prefix that is neither "
    "declared in `vocabularies` nor one of the well-known prefixes (`dpv`, `eu-aiact`, "
    "`ai`, `pd`, `risk`, `tech`, `legal-eu-gdpr`, `legal-us`, `sector-*`, `hipaa`, `pp`). "
    "The value stays valid; consumers just cannot tell what it means.",
    "governance:\n  risk_classification: acme:Tier2     # `acme` is not declared",
    "Declare the prefix: `vocabularies: {acme: https://acme.example/vocab#}`, or use a "
    "well-known term.",
    CATEGORY,
)

RULES = (
    UNDEFINED_CONTROL_VALIDATOR,
    UNDEFINED_CONTROL_EVAL,
    DUPLICATE_VALIDATOR_ID,
    UNDEFINED_OBLIGATION,
    DUPLICATE_GOVERNANCE_ID,
    UNDEFINED_CONTROL_FIELD,
    UNDECLARED_VOCABULARY_PREFIX,
)

#: Prefixes every consumer knows (RFC 0013, extended by RFC 0016).
WELL_KNOWN_PREFIXES = frozenset(
    {
        "dpv",
        "eu-aiact",
        "ai",
        "pd",
        "risk",
        "tech",
        "legal-eu-gdpr",
        "legal-us",
        "sector-health",
        "sector-finance",
        "sector-education",
        "sector-law",
        "sector-publicservices",
        "sector-infra",
        "hipaa",
        "pp",
    }
)
#: IRI schemes: a value starting with one of these is an absolute IRI, not a CURIE.
IRI_SCHEMES = frozenset({"http", "https", "urn", "mailto", "tag", "did"})
_CURIE = re.compile(r"^([A-Za-z_][A-Za-z0-9_.-]*):(?!//)\S")


def check(ctx: CheckContext) -> Iterable[Diagnostic]:
    pack = ctx.pack
    validators = yield from _validators(pack)
    evals = _eval_ids(pack)
    pack_level = next((g for g in pack.governance if g.where == "metadata.governance"), None)
    for gov in pack.governance:
        yield from _governance(gov, pack_level, validators, evals)
        yield from _fields(gov, pack_level)
        yield from _terms(gov, pack_level)


@functools.cache
def _governance_properties() -> frozenset[str]:
    """The properties our schema gives a governance object."""
    from pack_lsp.core.resources import load_schema

    defs = load_schema("promptpack.schema.json").get("$defs", {})
    props = defs.get("Governance", {}).get("properties", {})
    return frozenset(props) if isinstance(props, dict) else frozenset()


def _fields(gov: Governance, pack_level: Governance | None) -> Iterator[Diagnostic]:
    declared = set(gov.fields)
    if pack_level is not None and pack_level is not gov:
        declared |= set(pack_level.fields)  # per-field replacement: the rest is inherited
    known = _governance_properties()
    for ob in gov.obligations:
        for control in ob.controls:
            if control.kind != "field":
                continue
            name = control.value.text
            label = f"obligation `{ob.id.text}`" if ob.id is not None else "an obligation"
            if known and name not in known:
                why = "which is not a governance property"
                candidates = sorted(known)
            elif name not in declared:
                why = "which the effective governance object does not declare"
                candidates = []
            else:
                continue
            yield make(
                UNDEFINED_CONTROL_FIELD,
                f"A control of {label} in `{gov.where}` names field `{name}`, {why}"
                + did_you_mean(name, candidates),
                control.value.span,
                data={
                    "kind": "undefined-control-field",
                    "name": name,
                    "suggestions": suggestions(name, candidates),
                },
            )


def _terms(gov: Governance, pack_level: Governance | None) -> Iterator[Diagnostic]:
    declared = set(gov.vocabularies)
    if pack_level is not None and pack_level is not gov:
        declared |= set(pack_level.vocabularies)
    for field, term in gov.terms:
        m = _CURIE.match(term.text)
        if m is None:
            continue
        prefix = m.group(1)
        if prefix in declared or prefix in WELL_KNOWN_PREFIXES or prefix.lower() in IRI_SCHEMES:
            continue
        at = term.span.start + (1 if term.span.length > len(term.text) else 0)
        yield make(
            UNDECLARED_VOCABULARY_PREFIX,
            f"`{term.text}` ({field} in `{gov.where}`) uses prefix `{prefix}`, which is not "
            "declared in `vocabularies` nor well-known"
            + did_you_mean(prefix, sorted(WELL_KNOWN_PREFIXES | declared)),
            Span(at, at + len(prefix)),
            data={"kind": "undeclared-vocabulary-prefix", "name": prefix},
        )


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
