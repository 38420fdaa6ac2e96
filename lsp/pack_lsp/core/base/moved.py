"""The module paths from before the layer folders, kept importable for one release.

pack-lsp 0.x moved every module of ``pack_lsp.core`` into a layer folder (``base``,
``syntax``, ``model``, ``checks``, ``ide``). Code outside pack-lsp that imported an
old path (``pack_lsp.core.analysis``, ``pack_lsp.core.rules.tools``, ...) still gets the
module, under its new name, with a ``DeprecationWarning``; nothing inside pack-lsp uses
an old path (``tests/test_architecture.py`` checks it). The table goes with the next
release.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
import warnings
from types import ModuleType
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from importlib.abc import Loader

#: Old module (relative to ``pack_lsp.core``) -> its module now.
MOVED: dict[str, str] = {
    "analysis": "checks.analysis",
    "arena": "model.arena",
    "arena.callhierarchy": "ide.arena.callhierarchy",
    "arena.check": "checks.arena.check",
    "arena.compile": "model.arena.compile",
    "arena.fixes": "checks.arena.fixes",
    "arena.navigation": "ide.arena.navigation",
    "arena.project": "model.arena.project",
    "arena.workspace": "checks.arena.workspace",
    "arena_documents": "model.arena.documents",
    "arena_schemas": "base.arena_schemas",
    "cards": "model.cards",
    "cards.api": "model.cards.api",
    "cards.derive": "model.cards.derive",
    "cards.extensions": "model.cards.extensions",
    "cards.names": "model.cards.names",
    "cards.problems": "model.cards.problems",
    "cards.settings": "model.cards.settings",
    "cards.topology": "model.cards.topology",
    "config": "model.config",
    "context": "model.context",
    "diagnostics": "base.diagnostics",
    "discover": "model.discover",
    "examples": "checks.examples",
    "fixes": "base.fixes",
    "graphs": "base.graphs",
    "hosts": "model.hosts",
    "incremental": "checks.incremental",
    "jsontree": "syntax.jsontree",
    "kinds": "base.kinds",
    "language": "ide",
    "language.baseline": "ide.baseline",
    "language.callhierarchy": "ide.callhierarchy",
    "language.codeactions": "ide.codeactions",
    "language.compare": "ide.compare",
    "language.completion": "ide.completion",
    "language.completion.context": "ide.completion.context",
    "language.completion.items": "ide.completion.items",
    "language.completion.references": "ide.completion.references",
    "language.completion.schema_items": "ide.completion.schema_items",
    "language.completion.snippets": "ide.completion.snippets",
    "language.completion.summaries": "ide.completion.summaries",
    "language.completion.templates": "ide.completion.templates",
    "language.fixall": "ide.fixall",
    "language.fixsafety": "ide.fixsafety",
    "language.governance": "ide.governance",
    "language.hover": "ide.hover",
    "language.index": "ide.index",
    "language.inlayhints": "ide.inlayhints",
    "language.links": "ide.links",
    "language.manifest_features": "ide.manifest_features",
    "language.navigation": "ide.navigation",
    "language.ranges": "ide.ranges",
    "language.rename": "ide.rename",
    "language.render": "ide.render",
    "language.schema_docs": "ide.schema_docs",
    "language.semantic_tokens": "ide.semantic_tokens",
    "language.symbols": "ide.symbols",
    "language.terms": "ide.terms",
    "language.textedits": "ide.textedits",
    "lazy": "base.lazy",
    "manifest": "model.manifest",
    "manifest.check": "checks.manifest.check",
    "manifest.files": "model.manifest.files",
    "manifest.model": "model.manifest.model",
    "manifest.topology": "model.manifest.topology",
    "manifest.workspace": "model.manifest.workspace",
    "model.build": "model.pack.build",
    "model.entities": "model.pack.entities",
    "profiles": "model.profiles",
    "recognize": "model.recognize",
    "recording": "model.recording",
    "registry": "checks.registry",
    "resolve": "model.resolve",
    "resources": "base.resources",
    "reuse": "syntax.reuse",
    "rules": "checks.rules",
    "rules.agents": "checks.rules.agents",
    "rules.arena_documents": "base.problems.arena_documents",
    "rules.arena_project": "checks.rules.arena_project",
    "rules.cards": "checks.rules.cards",
    "rules.compositions": "checks.rules.compositions",
    "rules.document": "base.problems.document",
    "rules.governance": "checks.rules.governance",
    "rules.kubernetes": "checks.rules.kubernetes",
    "rules.manifest": "checks.rules.manifest",
    "rules.pack": "checks.rules.pack",
    "rules.providers": "checks.rules.providers",
    "rules.schema": "base.problems.schema",
    "rules.suppressions": "base.problems.suppressions",
    "rules.templates": "checks.rules.templates",
    "rules.tools": "checks.rules.tools",
    "rules.workflow": "checks.rules.workflow",
    "rules.yaml11": "checks.rules.yaml11",
    "rulesdoc": "checks.rulesdoc",
    "scalars": "syntax.scalars",
    "schema": "model.schema",
    "schemawalk": "model.schemawalk",
    "source": "base.source",
    "suggest": "base.suggest",
    "summary": "model.summary",
    "suppress": "checks.suppress",
    "templates": "model.templates",
    "text": "base.text",
    "tomlkeys": "base.tomlkeys",
    "validation": "base.validation",
    "versions": "base.versions",
    "vocabulary": "model.vocabulary",
    "yamltree": "syntax.yamltree",
    "yamltree.compose": "syntax.yamltree.compose",
    "yamltree.copy": "syntax.yamltree.copy",
    "yamltree.data": "syntax.yamltree.data",
    "yamltree.events": "syntax.yamltree.events",
    "yamltree.guards": "syntax.yamltree.guards",
    "yamltree.navigate": "syntax.yamltree.navigate",
    "yamltree.nodes": "syntax.yamltree.nodes",
    "yamltree.parsing": "syntax.yamltree.parsing",
    "yamltree.resolution": "syntax.yamltree.resolution",
}

_PREFIX = "pack_lsp.core."


# The finder and the loader are duck-typed: subclassing ``importlib.abc`` would load
# ``importlib.resources`` and more in every process, about 5 ms of a cold ``--check``.
class _Alias:
    def __init__(self, new: str) -> None:
        self.new = new

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return importlib.import_module(self.new)

    def exec_module(self, module: ModuleType) -> None:
        return None


class _MovedFinder:
    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith(_PREFIX):
            return None
        new = MOVED.get(fullname[len(_PREFIX) :])
        if new is None:
            return None
        warnings.warn(
            f"{fullname} moved to {_PREFIX}{new}; the old path goes with the next release",
            DeprecationWarning,
            stacklevel=2,
        )
        return importlib.machinery.ModuleSpec(fullname, cast("Loader", _Alias(_PREFIX + new)))


def install_moved_aliases() -> None:
    """Let the old module paths import (once per interpreter)."""
    if not any(isinstance(f, _MovedFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _MovedFinder())
