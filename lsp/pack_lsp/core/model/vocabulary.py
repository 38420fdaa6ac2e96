"""Governance vocabularies: the well-known prefixes of RFC 0013 and RFC 0016, and the
terms of the two namespaces PromptPack mints (``pp:`` and ``hipaa:``).

Term values in governance are CURIEs (``prefix:Term``). A prefix expands to a
namespace IRI through the governance object's ``vocabularies`` map or the
well-known table below. ``pp:`` and ``hipaa:`` are published by PromptPack itself
with a fixed list of terms, each meant for one *slot* (``data_classes``,
``capabilities``, ``reviews.type``, ``operator_role``); the summaries here are
pack-lsp's own one-line explanations, not the published definitions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

#: Well-known prefixes and their namespaces (RFC 0013, extended by RFC 0016).
WELL_KNOWN: dict[str, str] = {
    "dpv": "https://w3id.org/dpv#",
    "eu-aiact": "https://w3id.org/dpv/legal/eu/aiact#",
    "ai": "https://w3id.org/dpv/ai#",
    "pd": "https://w3id.org/dpv/pd#",
    "risk": "https://w3id.org/dpv/risk#",
    "tech": "https://w3id.org/dpv/tech#",
    "legal-eu-gdpr": "https://w3id.org/dpv/legal/eu/gdpr#",
    "legal-us": "https://w3id.org/dpv/legal/us#",
    "sector-health": "https://w3id.org/dpv/sector/health#",
    "sector-finance": "https://w3id.org/dpv/sector/finance#",
    "sector-education": "https://w3id.org/dpv/sector/education#",
    "sector-law": "https://w3id.org/dpv/sector/law#",
    "sector-publicservices": "https://w3id.org/dpv/sector/publicservices#",
    "sector-infra": "https://w3id.org/dpv/sector/infra#",
    "hipaa": "https://promptpack.org/vocab/hipaa#",
    "pp": "https://promptpack.org/vocab/pp#",
}

#: The namespaces PromptPack mints: their terms are a closed list.
MINTED = ("pp", "hipaa")

DATA_CLASSES = "data_classes"
CAPABILITIES = "capabilities"
REVIEW_TYPE = "reviews.type"
OPERATOR_ROLE = "operator_role"
RISK_CLASSIFICATION = "risk_classification"
DEPLOYMENT_CONTEXTS = "intended_deployment_contexts"
OBLIGATION = "obligation"


@dataclass(frozen=True, slots=True)
class Term:
    """A term of a controlled vocabulary: prefix, id, label and summary."""

    prefix: str
    id: str
    slot: str
    label: str
    summary: str

    @property
    def curie(self) -> str:
        return f"{self.prefix}:{self.id}"

    @property
    def iri(self) -> str:
        return WELL_KNOWN[self.prefix] + self.id


TERMS: tuple[Term, ...] = (
    Term(
        "pp",
        "Confidential",
        DATA_CLASSES,
        "Confidential",
        "Data whose leak beyond its intended readers would do harm (in-house levels map to it).",
    ),
    Term(
        "pp",
        "Restricted",
        DATA_CLASSES,
        "Restricted",
        "Data limited to named roles, whose leak would do serious harm (above Confidential).",
    ),
    Term("pp", "Public", DATA_CLASSES, "Public", "Data cleared for release to anyone."),
    Term(
        "pp",
        "Credentials",
        DATA_CLASSES,
        "Credentials",
        "Secrets that prove an identity: passwords, API keys, tokens, private keys.",
    ),
    Term(
        "pp",
        "FinancialAccount",
        DATA_CLASSES,
        "Financial account",
        "Account or card numbers and what they hold: balances, transactions.",
    ),
    Term(
        "pp",
        "SyntheticMedia",
        CAPABILITIES,
        "Synthetic media",
        "The agent makes or alters images, audio, video or text that could pass for real.",
    ),
    Term(
        "pp",
        "BiasTesting",
        REVIEW_TYPE,
        "Bias testing",
        "Checks whether outputs or their effects treat groups of people unequally without reason.",
    ),
    Term(
        "pp",
        "AccuracyReview",
        REVIEW_TYPE,
        "Accuracy review",
        "Checks the agent's outputs against the accuracy it claims for its purpose.",
    ),
    Term(
        "pp",
        "RedTeaming",
        REVIEW_TYPE,
        "Red teaming",
        "Adversarial testing: testers try to push the agent outside its purpose or limits.",
    ),
    Term(
        "pp",
        "DataQualityReview",
        REVIEW_TYPE,
        "Data quality review",
        "Checks that the data the agent reads or writes is fit for its purpose.",
    ),
    Term(
        "pp",
        "HumanOversightReview",
        REVIEW_TYPE,
        "Human oversight review",
        "Checks that the people overseeing the agent can follow, step in and override it.",
    ),
    Term(
        "hipaa",
        "CoveredEntity",
        OPERATOR_ROLE,
        "Covered entity",
        "A health plan, clearinghouse or provider bound directly by HIPAA.",
    ),
    Term(
        "hipaa",
        "BusinessAssociate",
        OPERATOR_ROLE,
        "Business associate",
        "A party handling protected health information for a covered entity.",
    ),
    Term(
        "hipaa",
        "PHI",
        DATA_CLASSES,
        "Protected health information",
        "Health information that identifies a person, held under HIPAA.",
    ),
    Term(
        "hipaa",
        "ePHI",
        DATA_CLASSES,
        "Electronic PHI",
        "Protected health information kept or sent electronically.",
    ),
    Term(
        "hipaa",
        "LimitedDataSet",
        DATA_CLASSES,
        "Limited data set",
        "PHI without direct identifiers, shared under a data use agreement.",
    ),
    Term(
        "hipaa",
        "DeIdentified",
        DATA_CLASSES,
        "De-identified",
        "Health information that no longer identifies anyone, so no longer PHI.",
    ),
)

_BY_CURIE = {t.curie: t for t in TERMS}


def term(curie: str) -> Term | None:
    """The minted term written ``curie`` (``pp:Public``), if there is one."""
    return _BY_CURIE.get(curie)


def terms_of(prefix: str) -> list[Term]:
    return [t for t in TERMS if t.prefix == prefix]


def for_slot(slot: str | None) -> list[Term]:
    """The minted terms meant for ``slot`` (every term when ``slot`` is None)."""
    return [t for t in TERMS if slot is None or t.slot == slot]


def split(value: str) -> tuple[str, str] | None:
    """``(prefix, local name)`` of a CURIE, or None for a value that is not one."""
    prefix, sep, local = value.partition(":")
    if not sep or not prefix or local.startswith("//"):
        return None
    return prefix, local


def expand(value: str, declared: dict[str, str]) -> str | None:
    """The IRI a CURIE stands for, through ``declared`` (the governance object's
    ``vocabularies``) then the well-known table; None when the prefix is unknown."""
    parts = split(value)
    if parts is None:
        return None
    prefix, local = parts
    namespace = declared.get(prefix) or WELL_KNOWN.get(prefix)
    return namespace + local if namespace else None


def slot_at(path: Sequence[str | int]) -> str | None:
    """The vocabulary slot of a value at data ``path`` (None: not a term slot).

    Governance objects are ``metadata.governance`` and each member's ``governance``;
    ``data_classes`` also appears in a tool's ``action_scope``.
    """
    names = [p for p in path if isinstance(p, str)]
    if len(names) >= 2 and names[-2] == "action_scope" and names[-1] == DATA_CLASSES:
        return DATA_CLASSES
    if "governance" not in names:
        return None
    after = names[len(names) - 1 - names[::-1].index("governance") + 1 :]
    if after in ([OPERATOR_ROLE], [RISK_CLASSIFICATION], [CAPABILITIES], [DEPLOYMENT_CONTEXTS]):
        return after[0]
    if after == ["reviews", "type"]:
        return REVIEW_TYPE
    if after == ["obligations", "obligation"]:
        return OBLIGATION
    if after[:2] == ["obligations", "applies_to"] and len(after) == 3:
        return {
            "capability": CAPABILITIES,
            "data_class": DATA_CLASSES,
            "risk_classification": RISK_CLASSIFICATION,
        }.get(after[2])
    return None
