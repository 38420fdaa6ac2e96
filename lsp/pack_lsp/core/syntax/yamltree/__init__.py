"""YAML/JSON text → a tree of nodes with exact spans.

The tree is composed by us from the event stream of libyaml (through ruamel.yaml's
C extension), never by a YAML constructor: no tag ever builds an object, aliases
are kept as references with a bounded expansion budget, merge keys (``<<``) are
resolved into each mapping's *effective* entries while the merged pairs keep the
spans of the place they were written, and duplicate keys are reported with both
locations.

Scalars are resolved with the YAML 1.2 core schema (``yes``/``no`` are strings),
which is also right for JSON.

The package re-exports its public names; each concern has its module:

- ``nodes``: the node classes and ``deref``;
- ``resolution``: plain scalars and the standard tags (``resolve_plain``);
- ``events``: libyaml's events and the conforming parser's, with syntax errors at
  offsets of the user's text;
- ``guards``: the limits on nesting and aliases, the flow-depth pre-scan;
- ``compose``: the composer (events → nodes, merges, duplicates, YAML 1.2 checks);
- ``parsing``: ``parse`` and ``ParseResult``, syntax errors confirmed and recovered;
- ``data``: ``to_data``; ``navigate``: ``resolve``, ``walk``, ``node_path_at``;
- ``copy``: ``shifted_copy`` and ``shifted_pairs`` for incremental analysis,
  ``shifted_tree`` for the documents of a stream.
"""

from __future__ import annotations

from pack_lsp.core.syntax.yamltree.copy import shifted_copy, shifted_pairs, shifted_tree
from pack_lsp.core.syntax.yamltree.data import to_data
from pack_lsp.core.syntax.yamltree.guards import ALIAS_EXPANSION_BUDGET, MAX_DEPTH, MAX_FLOW_DEPTH
from pack_lsp.core.syntax.yamltree.navigate import node_path_at, resolve, through_broken_alias, walk
from pack_lsp.core.syntax.yamltree.nodes import (
    AliasNode,
    MappingNode,
    Node,
    Pair,
    Path,
    PathItem,
    Scalar,
    ScalarNode,
    SequenceNode,
    deref,
)
from pack_lsp.core.syntax.yamltree.parsing import (
    LOCAL_CONFIRM_MIN,
    MAX_RECOVERIES,
    ParseResult,
    parse,
    parse_region,
)
from pack_lsp.core.syntax.yamltree.resolution import MAX_INT_CHARS, TAG_PREFIX, resolve_plain

__all__ = [
    "ALIAS_EXPANSION_BUDGET",
    "LOCAL_CONFIRM_MIN",
    "MAX_DEPTH",
    "MAX_FLOW_DEPTH",
    "MAX_INT_CHARS",
    "MAX_RECOVERIES",
    "TAG_PREFIX",
    "AliasNode",
    "MappingNode",
    "Node",
    "Pair",
    "ParseResult",
    "Path",
    "PathItem",
    "Scalar",
    "ScalarNode",
    "SequenceNode",
    "deref",
    "node_path_at",
    "parse",
    "parse_region",
    "resolve",
    "resolve_plain",
    "shifted_copy",
    "shifted_pairs",
    "shifted_tree",
    "through_broken_alias",
    "to_data",
    "walk",
]
