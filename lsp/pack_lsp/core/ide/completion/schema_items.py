"""Keys and values the schema documents: properties not yet present, enums, examples."""

from __future__ import annotations

from pack_lsp.core.checks.analysis import Analysis
from pack_lsp.core.ide import schema_docs
from pack_lsp.core.ide.completion.context import Place, path_matches, present_keys
from pack_lsp.core.ide.completion.items import Completion, CompletionKind
from pack_lsp.core.ide.completion.references import member_key_items
from pack_lsp.core.ide.completion.snippets import snippet_items


def key_items(analysis: Analysis, place: Place) -> list[Completion]:
    """Keys to type at ``place``: the schema's properties not yet present, and snippets.

    Under ``agents.members`` the keys are prompt keys (the prompts not yet members).
    """
    pack = analysis.pack
    path = place.path
    present = present_keys(analysis, path)
    typed = place.prefix
    present.discard(typed)
    if path_matches(path, ("agents", "members")) and pack is not None:
        return member_key_items(pack, place)
    out: list[Completion] = []
    schema = schema_docs.schema_key(analysis.config, analysis.data)
    for name, doc in schema_docs.properties_at(path, schema).items():
        if name in present:
            continue
        detail = doc.type + (" (required)" if doc.required else "")
        out.append(
            Completion(
                label=name,
                kind=CompletionKind.PROPERTY,
                detail=detail.strip(),
                documentation=doc.description,
                insert_text=name + ("" if place.quoted else ": "),
                replace=place.replace,
                sort=("0" if doc.required else "1") + name,
            )
        )
    if not place.quoted:
        out.extend(snippet_items(analysis, place))
    return out


def value_items(analysis: Analysis, place: Place) -> list[Completion]:
    """The values the schema allows or documents at ``place`` (enums, examples, booleans)."""
    out: list[Completion] = []
    for value in schema_docs.values_at(
        place.path, schema_docs.schema_key(analysis.config, analysis.data)
    ):
        out.append(
            Completion(
                label=value.text,
                kind=CompletionKind.VALUE,
                detail={
                    "enum": "allowed value",
                    "example": "documented example",
                    "boolean": "boolean",
                }.get(value.source, ""),
                documentation=value.description,
                insert_text=value.text,
                replace=place.replace,
                sort=("0" if value.source == "enum" else "1") + value.text,
            )
        )
    return out
