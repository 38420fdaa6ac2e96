"""What two parse trees must agree on, node by node, for the tests that compare them
(incremental analysis against a full one, shifted copies against a re-parse).

The definition lives in the core (``core.reuse``), where the verify mode of
incremental analysis compares a spliced tree with a full parse by the same facts.
"""

from __future__ import annotations

from pack_lsp.core.syntax.reuse import node_facts, tree_facts

__all__ = ["node_facts", "tree_facts"]
