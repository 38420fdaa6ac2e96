"""Governance terms in the editor: hover on a CURIE, completion in a term slot.

Hover on a governance term (``dpv:PersonalData``, ``pp:Restricted``) shows the IRI it
expands to — through the governance object's ``vocabularies`` (a member that
declares none uses the pack's, RFC 0013) or the well-known prefixes — and, for a
term PromptPack mints, its label, slot and summary (``core/model/vocabulary.py``).

Completion in a term slot (``data_classes``, ``capabilities``, ``reviews[].type``,
``operator_role``, ``obligations[].applies_to.*``, ...) offers the minted terms meant
for that slot, then the prefixes the pack declares and the well-known ones
(``dpv:``, ``ai:``, ...), each inserting ``prefix:``.
"""

from __future__ import annotations

from typing import Any

from pack_lsp.core.checks.analysis import Analysis
from pack_lsp.core.ide.completion import Completion, CompletionKind, complete
from pack_lsp.core.ide.completion.context import VALUE, Place, place_at
from pack_lsp.core.ide.hover import HoverResult, hover
from pack_lsp.core.model import vocabulary
from pack_lsp.core.syntax.yamltree.navigate import node_path_at
from pack_lsp.core.syntax.yamltree.nodes import PathItem, ScalarNode


def _declared(data: Any, path: tuple[PathItem, ...]) -> dict[str, str]:
    """The ``vocabularies`` in force at ``path``: its governance object's, else the
    pack's ``metadata.governance`` ones (a tool's ``action_scope`` uses the pack's)."""
    steps = list(path)
    cut = len(steps) - 1 - steps[::-1].index("governance") if "governance" in steps else -1
    maps: list[Any] = []
    if cut >= 0:
        node: Any = data
        for step in path[: cut + 1]:
            node = node.get(step) if isinstance(node, dict) else None
        maps.append(node.get("vocabularies") if isinstance(node, dict) else None)
    metadata = data.get("metadata") if isinstance(data, dict) else None
    pack_gov = metadata.get("governance") if isinstance(metadata, dict) else None
    maps.append(pack_gov.get("vocabularies") if isinstance(pack_gov, dict) else None)
    for found in maps:
        if isinstance(found, dict):
            return {str(k): v for k, v in found.items() if isinstance(v, str)}
    return {}


def _has_slots(analysis: Analysis) -> bool:
    """Whether the pack may have a term slot (a governance object, an ``action_scope``):
    known once per analysis, so packs without any spare the features a second look."""
    pack = analysis.pack
    if pack is None:
        return False
    return analysis.derived.memo(
        _has_slots, lambda: bool(pack.governance) or "action_scope" in analysis.text
    )


def term_hover(analysis: Analysis, offset: int) -> HoverResult | None:
    """The hover of the governance term at ``offset`` (None: not on one)."""
    if not _has_slots(analysis) or analysis.root is None:
        return None
    chain = node_path_at(analysis.root, offset)
    node = chain[-1][1] if chain else None
    if not isinstance(node, ScalarNode) or not isinstance(node.value, str):
        return None
    path = tuple(s for s, _ in chain[1:] if s is not None)
    slot = vocabulary.slot_at(path)
    parts = vocabulary.split(node.value)
    if slot is None or parts is None:
        return None
    declared = _declared(analysis.data, path)
    iri = vocabulary.expand(node.value, declared)
    lines = [f"**`{node.value}`** — governance term"]
    if iri is not None:
        lines.append(f"IRI: <{iri}>")
    else:
        lines.append(
            f"Prefix `{parts[0]}` is neither declared in `vocabularies` nor well-known: "
            "the term stays an opaque string."
        )
    minted = vocabulary.term(node.value) if parts[0] not in declared else None
    if minted is not None:
        lines.append(f"{minted.label} ({minted.slot}): {minted.summary}")
        if slot != minted.slot and slot != vocabulary.OBLIGATION:
            lines.append(f"This term is meant for `{minted.slot}`, not `{slot}`.")
    return HoverResult(node.span, "\n\n".join(lines))


def hover_with_terms(analysis: Analysis, offset: int) -> HoverResult | None:
    """``hover``, with the term's expansion and summary first on a governance term."""
    found = hover(analysis, offset)
    term = term_hover(analysis, offset)
    if term is None:
        return found
    if found is None:
        return term
    return HoverResult(term.span, term.markdown + "\n\n---\n\n" + found.markdown)


def term_items(analysis: Analysis, place: Place) -> list[Completion]:
    """Terms and prefixes for a value in a term slot (empty elsewhere)."""
    if place.what != VALUE or analysis.pack is None:
        return []
    slot = vocabulary.slot_at(place.path)
    if slot is None:
        return []
    declared = _declared(analysis.data, place.path)
    out: list[Completion] = []
    for term in vocabulary.for_slot(None if slot == vocabulary.OBLIGATION else slot):
        if term.prefix in declared:
            continue  # the pack gives this prefix a namespace of its own
        out.append(
            Completion(
                label=term.curie,
                kind=CompletionKind.VALUE,
                detail=f"{term.label} · {term.slot}",
                documentation=f"{term.summary}\n\n<{term.iri}>",
                insert_text=term.curie,
                replace=place.replace,
                sort="0" + term.curie,
            )
        )
    prefixes = {**vocabulary.WELL_KNOWN, **declared}
    for prefix, namespace in prefixes.items():
        out.append(
            Completion(
                label=f"{prefix}:",
                kind=CompletionKind.VALUE,
                detail="declared prefix" if prefix in declared else "well-known prefix",
                documentation=f"<{namespace}>",
                insert_text=f"{prefix}:",
                replace=place.replace,
                sort=("1" if prefix in declared else "2") + prefix,
            )
        )
    return out


def complete_with_terms(analysis: Analysis, offset: int) -> list[Completion]:
    """``complete``, with governance terms first in a term slot."""
    found = complete(analysis, offset)
    if not _has_slots(analysis):
        return found
    place = place_at(analysis, max(0, min(offset, len(analysis.text))))
    if place is None:
        return found
    terms = term_items(analysis, place)
    if not terms:
        return found
    seen = {c.label for c in terms}
    return terms + [c for c in found if c.label not in seen]
