"""PK0xx — Kubernetes manifests that deploy packs (the Omnia operator's resources).

The packs a manifest embeds in ConfigMap ``data`` entries are checked with every
pack rule, at their place in the manifest (``core.hosts``); these rules look at the
manifest itself. They declare rules only: ``analysis`` applies them to the stream
``core.hosts`` reads (a manifest has no pack model for rule checks to run on).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from pack_lsp.core.base.diagnostics import Diagnostic, ExampleKind, Rule, Severity, make
from pack_lsp.core.base.suggest import did_you_mean
from pack_lsp.core.model.hosts import Stream

CATEGORY = "Kubernetes manifests"

CONFIG_MAP_NOT_FOUND = Rule(
    "PK001",
    "configmap-not-found",
    Severity.WARNING,
    "A `PromptPack` resource's `spec.source.configMapRef.name` names a ConfigMap that "
    "is defined neither in the same file nor in a YAML file beside it (nor generated "
    "by a `kustomization.yaml` there), so the pack it deploys cannot be checked and "
    "may not exist in the cluster.",
    (
        "apiVersion: omnia.altairalabs.ai/v1alpha1\n"
        "kind: PromptPack\n"
        "metadata: {name: support}\n"
        "spec:\n"
        "  source:\n"
        "    type: configmap\n"
        "    configMapRef: {name: support-pack}     # not in this file nor beside it\n"
    ),
    "Correct the name, or define the ConfigMap (with the pack under a `pack.json` data "
    "entry) in the same file or beside it.",
    CATEGORY,
    example_kind=ExampleKind.KUBERNETES,
)

RULES = (CONFIG_MAP_NOT_FOUND,)


def check_refs(
    stream: Stream, siblings: Mapping[str, Path] | None, path: Path | None
) -> Iterator[Diagnostic]:
    """PK001 for every ConfigMap reference that names nothing in the file set.

    ``siblings`` are the ConfigMaps defined beside the file (None: not looked up,
    for text that is not a file on disk: only the file's own ConfigMaps count).
    """
    own = stream.config_maps
    for ref in stream.refs:
        if ref.name in own or (siblings is not None and ref.name in siblings):
            continue
        known = sorted(own | set(siblings or ()))
        where = "in this file or beside it" if path is not None else "in this document"
        message = f"ConfigMap `{ref.name}` is not defined {where}"
        hint = did_you_mean(ref.name, known)
        if hint:
            message += hint
        elif known:
            message += "; defined: " + ", ".join(f"`{k}`" for k in _first(known))
        yield make(CONFIG_MAP_NOT_FOUND, message, ref.span)


def _first(names: Iterable[str], limit: int = 8) -> list[str]:
    return list(names)[:limit]
