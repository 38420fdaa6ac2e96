"""PP93x — governance declarations (RFC 0013) and obligations (RFC 0016).

A governance object (``metadata.governance``, or a member's ``governance``) lists
``obligations`` whose ``controls`` name validators and evals of the pack, and
``reviews`` that name obligations and evals. The schema checks the shapes; these rules
check that every name resolves and that validator ids are unique across the pack
(the form of a review's ``cadence``, an ISO 8601 duration, is the schema's to check).

What is in force for an agents member is its *effective* governance
(``effective_governance``): the pack's ``metadata.governance`` with each field the
member declares replacing the pack's whole — arrays, ``vocabularies`` and
``extensions`` included, never merged (RFC 0013, "Override semantics"). References
a member's object makes resolve in its effective object (RFC 0016 rules 6, 7 and 10),
and so do the pack's declarations the member inherits. Nothing looks inside an
``extensions`` object (RFC 0013 rule 3, RFC 0016 rule 12): the model never reads one.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass

from pack_lsp.core.base.diagnostics import Diagnostic, FixKind, Related, Rule, Severity, make
from pack_lsp.core.base.example_pack import pack_example
from pack_lsp.core.base.fixes import suggest
from pack_lsp.core.base.problemdata import (
    DuplicateGovernanceId,
    DuplicateValidatorId,
    UndeclaredVocabularyPrefix,
    UndefinedControlEval,
    UndefinedControlField,
    UndefinedControlValidator,
    UndefinedEval,
    UndefinedObligation,
    UndefinedOwnObligation,
    UnknownVocabularyTerm,
)
from pack_lsp.core.base.suggest import did_you_mean, hint_for, suggestions
from pack_lsp.core.base.text import Span
from pack_lsp.core.model import vocabulary
from pack_lsp.core.model.context import CheckContext
from pack_lsp.core.model.pack import Governance, Located, Obligation, Pack, Review
from pack_lsp.core.model.resolve import Defined, Kind, Missing, resolve_name

CATEGORY = "Governance"

UNDEFINED_CONTROL_VALIDATOR = Rule(
    "PP931",
    "undefined-control-validator",
    Severity.ERROR,
    "An obligation control `validator:` names an id that no validator of the pack's "
    "prompts declares.",
    pack_example(
        "metadata:\n"
        "  governance:\n"
        "    obligations:\n"
        "      - id: disclose\n"
        "        obligation: eu-aiact:Article50\n"
        "        controls: [{validator: ai-disclosure}]   # no validator has this id\n"
        "prompts:\n"
        "  support: {id: support, name: Support, version: 1.0.0, system_template: Help}\n"
    ),
    "Use the `id` of a validator of one of the prompts (a quick fix offers close ids), "
    "or give that validator an `id`.",
    CATEGORY,
    fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
    safe_fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
)

UNDEFINED_CONTROL_EVAL = Rule(
    "PP932",
    "undefined-control-eval",
    Severity.ERROR,
    "An obligation control `eval:` or a review's `eval` names an id that neither the "
    "pack's `evals` nor a prompt's `evals` define.",
    pack_example(
        "metadata:\n"
        "  governance:\n"
        "    reviews:\n"
        "      - {id: bias, type: pp:BiasTesting, cadence: P3M, owner: ml-risk, eval:"
        " bias-check}\n"
        "prompts:\n"
        "  support: {id: support, name: Support, version: 1.0.0, system_template: Help}\n"
    ),
    "Use the `id` of a declared eval, or declare it.",
    CATEGORY,
    fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
    safe_fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
)

DUPLICATE_VALIDATOR_ID = Rule(
    "PP933",
    "duplicate-validator-id",
    Severity.ERROR,
    "Two validators of the pack have the same `id`; ids are unique across the whole pack "
    "so that a governance control names exactly one.",
    pack_example(
        "prompts:\n"
        "  support:\n"
        "    id: support\n"
        "    name: Support\n"
        "    version: 1.0.0\n"
        "    system_template: Help\n"
        "    validators:\n"
        "      - {id: pii, type: regex_match}\n"
        "      - {id: pii, type: banned_words}\n"
    ),
    "Give each validator its own id.",
    CATEGORY,
)

UNDEFINED_OBLIGATION = Rule(
    "PP935",
    "undefined-obligation",
    Severity.ERROR,
    "An entry of a review's `satisfies` is not the `id` of an obligation of the "
    "effective governance object (RFC 0016 rule 7). For an agents member that is its own "
    "`obligations` when it declares any — they replace the pack's whole, no merge (RFC "
    "0013) — and the pack's `metadata.governance` ones otherwise. The pack's reviews a "
    "member inherits (it declares no `reviews`) must resolve among its obligations too.",
    pack_example(
        "metadata:\n"
        "  governance:\n"
        "    reviews:\n"
        "      - {id: bias, type: pp:BiasTesting, cadence: P3M, owner: ml-risk, satis"
        "fies: [art50]}\n"
        "prompts:\n"
        "  support: {id: support, name: Support, version: 1.0.0, system_template: Help}\n"
    ),
    "Use the id of an obligation of the effective object, or declare it among the "
    "member's own `obligations` (or give the member its own `reviews`).",
    CATEGORY,
    fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
    safe_fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
)

DUPLICATE_GOVERNANCE_ID = Rule(
    "PP936",
    "duplicate-governance-id",
    Severity.ERROR,
    "Two obligations, or two reviews, of one governance object have the same `id`.",
    pack_example(
        "metadata:\n"
        "  governance:\n"
        "    obligations:\n"
        "      - {id: art50, obligation: eu-aiact:Article50, controls: [{external: Le"
        "gal review}]}\n"
        "      - {id: art50, obligation: eu-aiact:Article52, controls: [{external: Au"
        "dit}]}\n"
        "prompts:\n"
        "  support: {id: support, name: Support, version: 1.0.0, system_template: Help}\n"
    ),
    "Give each obligation and each review its own id.",
    CATEGORY,
)

UNDEFINED_CONTROL_FIELD = Rule(
    "PP937",
    "undefined-control-field",
    Severity.ERROR,
    "An obligation control `field:` names a property that is not a governance property, "
    "or one that the effective governance object does not declare (RFC 0016 rule 6): for "
    "an agents member, a property counts when the member or the pack's "
    "`metadata.governance` declares it, since the member inherits every field it does not "
    "replace. An obligation cannot be discharged by a field nobody filled in.",
    pack_example(
        "metadata:\n"
        "  governance:\n"
        "    obligations:\n"
        "      - id: disclose\n"
        "        obligation: eu-aiact:Article50\n"
        "        controls: [{field: requires_ai_disclosure}]   # not declared\n"
        "prompts:\n"
        "  support: {id: support, name: Support, version: 1.0.0, system_template: Help}\n"
    ),
    "Declare the property in the governance object, or correct the field name.",
    CATEGORY,
    fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
    safe_fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
)

UNDECLARED_VOCABULARY_PREFIX = Rule(
    "PP938",
    "undeclared-vocabulary-prefix",
    Severity.WARNING,
    "A governance term written as a CURIE (`prefix:Term`) uses a prefix that is neither "
    "declared in the effective `vocabularies` nor one of the well-known prefixes (`dpv`, "
    "`eu-aiact`, `ai`, `pd`, `risk`, `tech`, `legal-eu-gdpr`, `legal-us`, `sector-*`, "
    "`hipaa`, `pp`). An agents member's `vocabularies` replaces the pack's whole (RFC 0013: "
    "per-field replacement, no key-wise merge), so a member that declares one sees only its "
    "own prefixes, for its own terms and for the terms it inherits from the pack. The value "
    "stays valid (RFC 0013 rule 5, RFC 0016 rule 10); consumers just cannot tell what it "
    "means. Nothing inside an `extensions` object is read.",
    pack_example(
        "metadata:\n"
        "  governance:\n"
        "    risk_classification: acme:Tier2     # `acme` is not declared\n"
        "prompts:\n"
        "  support: {id: support, name: Support, version: 1.0.0, system_template: Help}\n"
    ),
    "Declare the prefix: `vocabularies: {acme: https://acme.example/vocab#}` (in the "
    "member's own map when it has one), or use a well-known term.",
    CATEGORY,
)

UNKNOWN_VOCABULARY_TERM = Rule(
    "PP939",
    "unknown-vocabulary-term",
    Severity.WARNING,
    "A governance term uses one of the prefixes PromptPack mints itself (`pp:`, `hipaa:`, "
    "RFC 0016), whose terms are a fixed list, but names no term of that list: a typo, or a "
    "term that belongs to another vocabulary. A pack that declares the prefix in "
    "`vocabularies` gives it its own namespace and is not checked.",
    pack_example(
        "metadata:\n"
        "  governance:\n"
        "    operator_role: hipaa:CoveredEntitty   # did you mean `hipaa:CoveredEntity`?\n"
        "prompts:\n"
        "  support: {id: support, name: Support, version: 1.0.0, system_template: Help}\n"
    ),
    "Correct the term (a quick fix offers the closest ones), or use a prefix whose "
    "vocabulary has it.",
    CATEGORY,
    fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
)

RULES = (
    UNDEFINED_CONTROL_VALIDATOR,
    UNDEFINED_CONTROL_EVAL,
    DUPLICATE_VALIDATOR_ID,
    UNDEFINED_OBLIGATION,
    DUPLICATE_GOVERNANCE_ID,
    UNDEFINED_CONTROL_FIELD,
    UNDECLARED_VOCABULARY_PREFIX,
    UNKNOWN_VOCABULARY_TERM,
)

#: Prefixes every consumer knows (RFC 0013, extended by RFC 0016).
WELL_KNOWN_PREFIXES = frozenset(vocabulary.WELL_KNOWN)
#: IRI schemes: a value starting with one of these is an absolute IRI, not a CURIE.
IRI_SCHEMES = frozenset({"http", "https", "urn", "mailto", "tag", "did"})
_CURIE = re.compile(r"^([A-Za-z_][A-Za-z0-9_.-]*):(?!//)\S")


@dataclass(frozen=True, slots=True)
class EffectiveGovernance:
    """The governance in force for the pack or for one agents member (RFC 0013).

    ``own`` is the object as written; for a member, ``inherited`` is the pack's
    ``metadata.governance`` (``None`` for the pack itself, or when the pack declares
    none). A field the member declares replaces the pack's whole — an array, the
    ``vocabularies`` map and ``extensions`` alike, with no element-wise or key-wise
    merge — and a field it does not declare is the pack's.
    """

    own: Governance
    inherited: Governance | None = None

    @property
    def member(self) -> str | None:
        """The agents member key, or ``None`` for ``metadata.governance``."""
        if self.inherited is None and self.own.where == PACK_LEVEL:
            return None
        return self.own.where.removeprefix("agents.members.").removesuffix(".governance")

    def source(self, field: str) -> Governance | None:
        """The object whose value of ``field`` is in force, if either declares it."""
        if field in self.own.fields:
            return self.own
        if self.inherited is not None and field in self.inherited.fields:
            return self.inherited
        return None

    def replaces(self, field: str) -> bool:
        """Whether the member's own ``field`` hides a value the pack declares."""
        return (
            self.inherited is not None
            and field in self.own.fields
            and field in self.inherited.fields
        )

    @property
    def fields(self) -> frozenset[str]:
        """Every property the effective object declares."""
        inherited = self.inherited.fields if self.inherited is not None else ()
        return frozenset((*self.own.fields, *inherited))

    @property
    def obligations(self) -> list[Obligation]:
        src = self.source("obligations")
        return src.obligations if src is not None else []

    @property
    def reviews(self) -> list[Review]:
        src = self.source("reviews")
        return src.reviews if src is not None else []

    @property
    def vocabularies(self) -> list[str]:
        src = self.source("vocabularies")
        return src.vocabularies if src is not None else []

    def terms(self) -> Iterator[tuple[str, Located, Governance]]:
        """Every term of the effective object: field, value, and the object that wrote it."""
        for field, term in self.own.terms:
            yield field, term, self.own
        if self.inherited is not None:
            for field, term in self.inherited.terms:
                if _top_field(field) not in self.own.fields:
                    yield field, term, self.inherited


PACK_LEVEL = "metadata.governance"


def effective_governance(pack: Pack) -> list[EffectiveGovernance]:
    """The effective governance of the pack and of each member that declares its own.

    One entry per governance object of the pack, in document order. A member without a
    ``governance`` has the pack's as it is, which the pack's entry already covers.
    """
    pack_level = next((g for g in pack.governance if g.where == PACK_LEVEL), None)
    return [
        EffectiveGovernance(gov, None if gov is pack_level else pack_level)
        for gov in pack.governance
    ]


def _top_field(field: str) -> str:
    """The governance property a term's field label is under (``reviews[].type`` → ``reviews``)."""
    return re.split(r"[\[.]", field, maxsplit=1)[0]


def check(ctx: CheckContext) -> Iterable[Diagnostic]:
    pack = ctx.pack
    validators = yield from _validators(pack)
    evals = _eval_ids(pack)
    for eff in effective_governance(pack):
        yield from _governance(eff, validators, evals)
        yield from _fields(eff)
        yield from _terms(eff)
        yield from _minted_terms(eff)


@functools.cache
def _governance_properties() -> frozenset[str]:
    """The properties our schema gives a governance object."""
    from pack_lsp.core.base.resources import load_schema

    defs = load_schema("promptpack.schema.json").get("$defs", {})
    props = defs.get("Governance", {}).get("properties", {})
    return frozenset(props) if isinstance(props, dict) else frozenset()


def _fields(eff: EffectiveGovernance) -> Iterator[Diagnostic]:
    # Only the object's own obligations: an inherited one was checked where it is
    # written, and the member's effective object declares every field the pack does.
    gov = eff.own
    declared = eff.fields
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
                data=UndefinedControlField(name=name, suggestions=suggestions(name, candidates)),
                fixes=suggest(control.value.span, suggestions(name, candidates)),
            )


def _prefix(term: Located) -> str | None:
    m = _CURIE.match(term.text)
    return m.group(1) if m is not None else None


def _known_prefix(prefix: str, declared: Iterable[str]) -> bool:
    return prefix in declared or prefix in WELL_KNOWN_PREFIXES or prefix.lower() in IRI_SCHEMES


def _terms(eff: EffectiveGovernance) -> Iterator[Diagnostic]:
    declared = eff.vocabularies
    member = eff.member
    for field, term, origin in eff.terms():
        prefix = _prefix(term)
        if prefix is None or _known_prefix(prefix, declared):
            continue
        pack_vocabularies = eff.inherited.vocabularies if eff.inherited is not None else []
        if origin is eff.own:
            where = f"{field} in `{origin.where}`"
            if eff.replaces("vocabularies") and prefix in pack_vocabularies:
                why = (
                    f"which this member's `vocabularies` does not declare: `{prefix}` is "
                    f"declared in `{PACK_LEVEL}`, but a member's `vocabularies` replaces "
                    "the pack's whole (RFC 0013), it is not merged with it"
                )
            else:
                why = "which is not declared in `vocabularies` nor well-known"
        elif prefix in origin.vocabularies:
            # Declared where the term is written, but the member replaced the map.
            where = f"{field} in `{origin.where}`, inherited by member `{member}`"
            why = (
                f"which member `{member}`'s `vocabularies` does not declare: it replaces "
                f"the pack's whole (RFC 0013), so `{prefix}` is undeclared in the member's "
                "effective governance"
            )
        else:
            continue  # reported where it is written, against the pack's own vocabularies
        at = term.span.start + (1 if term.span.length > len(term.text) else 0)
        yield make(
            UNDECLARED_VOCABULARY_PREFIX,
            f"`{term.text}` ({where}) uses prefix `{prefix}`, {why}"
            + did_you_mean(prefix, sorted(WELL_KNOWN_PREFIXES | set(declared))),
            Span(at, at + len(prefix)),
            data=UndeclaredVocabularyPrefix(name=prefix),
        )


#: The vocabulary slot of each term field of the model (``Governance.terms``).
_SLOTS = {
    "operator_role": vocabulary.OPERATOR_ROLE,
    "capabilities": vocabulary.CAPABILITIES,
    "reviews[].type": vocabulary.REVIEW_TYPE,
    "obligations[].applies_to.capability": vocabulary.CAPABILITIES,
    "obligations[].applies_to.data_class": vocabulary.DATA_CLASSES,
}


def _minted_terms(eff: EffectiveGovernance) -> Iterator[Diagnostic]:
    """Terms of ``pp:``/``hipaa:`` that the minted vocabulary lacks (each object's own
    terms, so a pack term inherited by several members is reported once)."""
    declared = eff.own.vocabularies
    for field, term in eff.own.terms:
        prefix = _prefix(term)
        if prefix not in vocabulary.MINTED or prefix in declared:
            continue
        if vocabulary.term(term.text) is not None:
            continue
        slot = _SLOTS.get(field)
        known = vocabulary.terms_of(prefix)
        preferred = [t.curie for t in known if slot is None or t.slot == slot]
        found = suggestions(term.text, preferred) or suggestions(
            term.text, [t.curie for t in known]
        )
        listed = ", ".join(f"`{c}`" for c in preferred) or "none"
        yield make(
            UNKNOWN_VOCABULARY_TERM,
            f"`{term.text}` ({field} in `{eff.own.where}`) is not a term of the `{prefix}:` "
            f"vocabulary"
            + (f" for `{slot}` ({listed})" if slot is not None else "")
            + did_you_mean(term.text, found),
            term.span,
            data=UnknownVocabularyTerm(name=term.text, prefix=prefix),
            fixes=suggest(term.span, found),
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
                data=DuplicateValidatorId(name=v.id.text),
            )
    return list(seen)


#: The reference kinds of an obligation control (``field`` and ``external`` name
#: no definition of the pack).
_CONTROL_KINDS = {"validator": Kind.VALIDATOR, "eval": Kind.EVAL}


def _missing(
    rule: Rule,
    what: str,
    ref: Located,
    missing: str,
    resolved: Missing,
    data: type[
        UndefinedControlValidator | UndefinedControlEval | UndefinedEval | UndefinedOwnObligation
    ],
) -> Diagnostic:
    found = list(resolved.suggestions)
    return make(
        rule,
        f"{what} `{ref.text}`, {missing}" + hint_for(found),
        ref.span,
        data=data(name=ref.text, suggestions=found),
        fixes=suggest(ref.span, found),
    )


def _governance(
    eff: EffectiveGovernance, validators: list[str], evals: list[str]
) -> Iterator[Diagnostic]:
    gov = eff.own
    where = f"`{gov.where}`"
    seen: dict[str, Span] = {}
    for ob in gov.obligations:
        if ob.id is not None:
            yield from _duplicate(ob.id, seen, "Obligation", where)
        label = f"obligation `{ob.id.text}`" if ob.id is not None else "an obligation"
        for control in ob.controls:
            kind = _CONTROL_KINDS.get(control.kind)
            if kind is None:
                continue
            resolved = resolve_name(
                kind, control.value.text, validators if kind is Kind.VALIDATOR else evals
            )
            if isinstance(resolved, Defined):
                continue
            if kind is Kind.VALIDATOR:
                yield _missing(
                    UNDEFINED_CONTROL_VALIDATOR,
                    f"A control of {label} in {where} names validator",
                    control.value,
                    "which no validator of the pack's prompts has as `id`",
                    resolved,
                    UndefinedControlValidator,
                )
            else:
                yield _missing(
                    UNDEFINED_CONTROL_EVAL,
                    f"A control of {label} in {where} names eval",
                    control.value,
                    "which is not defined in the pack's or a prompt's `evals`",
                    resolved,
                    UndefinedControlEval,
                )
    seen = {}
    for review in gov.reviews:
        if review.id is not None:
            yield from _duplicate(review.id, seen, "Review", where)
        label = f"Review `{review.id.text}`" if review.id is not None else "A review"
        if review.eval is None:
            continue
        resolved = resolve_name(Kind.EVAL, review.eval.text, evals)
        if isinstance(resolved, Missing):
            yield _missing(
                UNDEFINED_CONTROL_EVAL,
                f"{label} in {where} reads eval",
                review.eval,
                "which is not defined in the pack's or a prompt's `evals`",
                resolved,
                UndefinedEval,
            )
    yield from _satisfies(eff)


def _satisfies(eff: EffectiveGovernance) -> Iterator[Diagnostic]:
    """RFC 0016 rule 7: ``satisfies`` resolves among the effective object's obligations.

    The object's own reviews are checked against them; for a member that replaces
    ``obligations`` but inherits the pack's ``reviews``, so are the inherited reviews
    (those the pack's own obligations satisfy: the others are reported at the pack).
    """
    effective = {o.id.text: o for o in eff.obligations if o.id is not None}
    pack = eff.inherited
    member = eff.member
    hidden = (
        {o.id.text: o for o in pack.obligations if o.id is not None}
        if pack is not None and eff.replaces("obligations")
        else {}
    )
    replaced_by = next((o.id for o in eff.own.obligations if o.id is not None), None)
    for review in eff.reviews:
        own = eff.source("reviews") is eff.own
        label = f"review `{review.id.text}`" if review.id is not None else "a review"
        for sat in review.satisfies:
            # `satisfies` resolves among the effective object's obligations.
            resolved = resolve_name(Kind.OBLIGATION, sat.text, effective, eff.member)
            if isinstance(resolved, Defined):
                continue
            found = list(resolved.suggestions)
            if own:
                prior = hidden.get(sat.text)
                if prior is None:
                    yield _missing(
                        UNDEFINED_OBLIGATION,
                        f"`satisfies` of {label} in `{eff.own.where}` names",
                        sat,
                        "which is not the id of an obligation",
                        resolved,
                        UndefinedOwnObligation,
                    )
                    continue
                message = (
                    f"`satisfies` of {label} in `{eff.own.where}` names `{sat.text}`, an "
                    f"obligation of `{PACK_LEVEL}` but not of this member: the member's own "
                    "`obligations` replaces the pack's whole (RFC 0013), so `satisfies` "
                    "resolves only among them"
                )
                related = (
                    []
                    if prior.id is None
                    else [
                        Related(prior.id.span, "the pack's obligation, hidden by the member's own")
                    ]
                )
            elif pack is not None and sat.text in hidden:
                message = (
                    f"`satisfies` of {label} in `{PACK_LEVEL}`, inherited by member "
                    f"`{member}`, names `{sat.text}`, which is not an obligation of the "
                    "member's effective governance: the member's own `obligations` replaces "
                    "the pack's whole (RFC 0013) while it inherits this review; give the "
                    f"member its own `reviews`, or declare `{sat.text}` among its `obligations`"
                )
                related = (
                    []
                    if replaced_by is None
                    else [Related(replaced_by.span, f"member `{member}`'s own obligations")]
                )
            else:
                continue
            yield make(
                UNDEFINED_OBLIGATION,
                message + hint_for(found) if own else message,
                sat.span,
                related=related,
                data=UndefinedObligation(
                    name=sat.text, member=member, suggestions=found if own else []
                ),
                fixes=suggest(sat.span, found) if own else (),
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
        data=DuplicateGovernanceId(name=ref.text),
    )
