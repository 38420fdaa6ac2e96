"""Layer 3, model: what a document says.

``pack/`` is the PromptPack model (entities and builder), ``manifest/``, ``arena/`` and
``cards/`` the models of agent-extension manifests, arena projects and derived Agent
Cards; beside them recognition (``recognize``), the Kubernetes hosts of embedded packs
(``hosts``), name resolution (``resolve``), templates, configuration, schemas and
profiles.

The names of the pack model stay importable from here for one release (this package was
the pack model before the layer folders); new code imports them from
``pack_lsp.core.model.pack``. They load on first use, so importing ``model.config`` does
not build the pack model's classes.
"""

from __future__ import annotations

from pack_lsp.core.base.lazy import lazy_exports

_EXPORTS = {
    "Agents": "pack",
    "Artifact": "pack",
    "Composition": "pack",
    "Control": "pack",
    "Entry": "pack",
    "Eval": "pack",
    "Fragment": "pack",
    "Governance": "pack",
    "Located": "pack",
    "Member": "pack",
    "ModelOverride": "pack",
    "Obligation": "pack",
    "Pack": "pack",
    "Prompt": "pack",
    "ProviderRequirement": "pack",
    "Review": "pack",
    "Skill": "pack",
    "State": "pack",
    "Step": "pack",
    "TERM_FIELDS": "pack",
    "Template": "pack",
    "TemplateEngine": "pack",
    "Tool": "pack",
    "ToolPolicy": "pack",
    "Transition": "pack",
    "ValidatorDef": "pack",
    "Variable": "pack",
    "Workflow": "pack",
    "build_agents": "pack",
    "build_compositions": "pack",
    "build_evals": "pack",
    "build_governance": "pack",
    "build_pack": "pack",
    "build_prompt": "pack",
    "build_providers": "pack",
    "build_skills": "pack",
    "build_state": "pack",
    "build_step": "pack",
    "build_variable": "pack",
    "build_workflow": "pack",
}

__getattr__ = lazy_exports(__name__, _EXPORTS)
