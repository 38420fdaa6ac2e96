"""The extension graph of a manifest workspace, in the topology's structure.

Nodes are the extensions (agents marked as members, so the renderings tell them
from tool and other extensions); an edge goes from an extension to each id it
names, labelled with the field (``uses_tools: kv``, ``depends_on: kv``). There is
no entry: the orchestrator is outside the workspace. The same ``Topology`` class
as for packs means the same Mermaid, dot and JSON output and the same cycle search.
"""

from __future__ import annotations

from pack_lsp.core.model.cards.topology import Edge, Node, Topology
from pack_lsp.core.model.manifest.workspace import ManifestIndex


def build_manifest_topology(index: ManifestIndex) -> Topology:
    nodes: dict[str, Node] = {}
    for manifest in sorted(index, key=lambda m: (m.ext_id or "", m.path or "")):
        ext_id = manifest.ext_id
        if ext_id is None or ext_id in nodes:
            continue
        name = manifest.name.text if manifest.name is not None else ext_id
        span = manifest.id.span if manifest.id is not None else manifest.anchor
        nodes[ext_id] = Node(ext_id, name, span, False, manifest.agent is not None)
    edges: list[Edge] = []
    for ext_id in nodes:
        first = index.first(ext_id)
        if first is None:
            continue
        seen: set[tuple[str, str]] = set()
        for ref in first.references:
            if ref.id not in nodes or (ref.field, ref.id) in seen:
                continue
            seen.add((ref.field, ref.id))
            edges.append(Edge(ext_id, ref.id, f"{ref.field}: {ref.id}", ref.span))
    return Topology(entry=None, nodes=nodes, edges=tuple(edges))
