"""The schemas of the PromptKit kinds an arena project is made of (our own words,
under ``schemas/promptkit-v1alpha1/``) and of the kinds of PromptKit's template
packages (``schemas/promptkit-templates/``): which file holds each kind's, and loading it.

Kept apart from ``core.arena_documents`` (which checks documents against them) so
that the schema walk (``core.schemawalk``) can read them without the rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from pack_lsp.core.base.resources import load_schema

#: The folder of ``schemas/`` holding the schema of each kind.
SCHEMA_FOLDER = "promptkit-v1alpha1"

#: The kinds PromptKit loads as parts of an arena project, and their schema files.
SCHEMAS: Mapping[str, str] = MappingProxyType(
    {
        "Arena": "arena.schema.json",
        "PromptConfig": "promptconfig.schema.json",
        "Tool": "tool.schema.json",
        "Scenario": "scenario.schema.json",
        "Provider": "provider.schema.json",
        "Persona": "persona.schema.json",
        "Eval": "eval.schema.json",
    }
)


#: Kinds PromptKit's SDK loads outside an arena project (the runtime configuration
#: and the logging configuration): known, and not checked against a schema here.
OTHER_KINDS = frozenset({"RuntimeConfig", "LoggingConfig"})


#: The kinds of PromptKit's template packages, which ``promptarena init`` reads (not
#: parts of an arena project), and their schema files under ``schemas/``: a package's
#: ``template.yaml`` (promptarena ``arena/templates/loader.go``) and a registry's
#: ``index.yaml`` (``arena/templates/registry.go``).
TEMPLATE_SCHEMAS: Mapping[str, str] = MappingProxyType(
    {
        "Template": "promptkit-templates/template.schema.json",
        "TemplateIndex": "promptkit-templates/templateindex.schema.json",
    }
)


def schema_file(kind: str) -> str | None:
    """The path under ``schemas/`` of the schema of ``kind`` (None: not a kind)."""
    name = SCHEMAS.get(kind)
    if name is not None:
        return f"{SCHEMA_FOLDER}/{name}"
    return TEMPLATE_SCHEMAS.get(kind)


def schema_of(kind: str) -> dict[str, Any] | None:
    """The schema documents of ``kind`` are validated against (None: not a kind)."""
    path = schema_file(kind)
    if path is None:
        return None
    loaded: dict[str, Any] = load_schema(path)
    return loaded
