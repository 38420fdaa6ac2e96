"""A typed model of a PromptPack, built from the YAML tree.

Every entity keeps the span of its key and of its value, and every reference
(tool names, agent entry/members, workflow targets, ...) keeps the span of the
string that names it. The builder never rejects input: a field of the wrong type is
simply absent from the model (the schema validation reports it), so a document
that is mid-edit still yields every part that can be read.

``entities`` holds the entities (frozen dataclasses), ``build`` the builder
(``build_pack`` and its parts); this package re-exports both.
"""

from __future__ import annotations

from pack_lsp.core.model.pack.build import (
    TERM_FIELDS,
    build_agents,
    build_compositions,
    build_evals,
    build_governance,
    build_pack,
    build_prompt,
    build_providers,
    build_skills,
    build_state,
    build_step,
    build_variable,
    build_workflow,
)
from pack_lsp.core.model.pack.entities import (
    Agents,
    Artifact,
    Composition,
    Control,
    Entry,
    Eval,
    Fragment,
    Governance,
    Located,
    Member,
    ModelOverride,
    Obligation,
    Pack,
    Prompt,
    ProviderRequirement,
    Review,
    Skill,
    State,
    Step,
    Template,
    TemplateEngine,
    Tool,
    ToolPolicy,
    Transition,
    ValidatorDef,
    Variable,
    Workflow,
)

__all__ = [
    "TERM_FIELDS",
    "Agents",
    "Artifact",
    "Composition",
    "Control",
    "Entry",
    "Eval",
    "Fragment",
    "Governance",
    "Located",
    "Member",
    "ModelOverride",
    "Obligation",
    "Pack",
    "Prompt",
    "ProviderRequirement",
    "Review",
    "Skill",
    "State",
    "Step",
    "Template",
    "TemplateEngine",
    "Tool",
    "ToolPolicy",
    "Transition",
    "ValidatorDef",
    "Variable",
    "Workflow",
    "build_agents",
    "build_compositions",
    "build_evals",
    "build_governance",
    "build_pack",
    "build_prompt",
    "build_providers",
    "build_skills",
    "build_state",
    "build_step",
    "build_variable",
    "build_workflow",
]
