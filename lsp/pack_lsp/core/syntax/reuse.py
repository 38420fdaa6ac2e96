"""Whether incremental analysis reuses results, and the check that reuse is exact.

``PACK_LSP_INCREMENTAL`` chooses (read at each analysis):

- ``on`` (the default, also when unset or empty): an edit re-parses only the block it
  touched and reuses whatever provably did not change (docs/decisions.md D17–D23, D31);
- ``off``: no reuse at all, every analysis from scratch (the user's kill switch);
- ``verify``: reuse as with ``on``, then compute every reused result again from
  scratch and compare; any difference raises ``ReuseMismatch``, naming the layer, the
  place (module, prompt) and both results. The test suite runs in this mode.

Any other value is reported once in the log and taken as ``on``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from pack_lsp.core.syntax.yamltree import (
    AliasNode,
    MappingNode,
    Node,
    ScalarNode,
    SequenceNode,
    walk,
)

ENV = "PACK_LSP_INCREMENTAL"
ON = "on"
OFF = "off"
VERIFY = "verify"
MODES = (ON, OFF, VERIFY)

_reported: set[str] = set()


def mode() -> str:
    """The reuse mode ``PACK_LSP_INCREMENTAL`` asks for (see the module docstring)."""
    raw = os.environ.get(ENV, "").strip().lower()
    if not raw:
        return ON
    if raw in MODES:
        return raw
    if raw not in _reported:
        import logging  # only to report a wrong value: not loaded by every cold check

        _reported.add(raw)
        logging.getLogger(__name__).warning(
            "%s=%r is not one of %s; incremental analysis stays on",
            ENV,
            raw,
            ", ".join(MODES),
        )
    return ON


class ReuseMismatch(RuntimeError):
    """A reused result differs from the same result computed from scratch (verify mode)."""


#: The longest part of a result a mismatch message shows.
_SHOWN = 2000


def _show(items: Iterable[object]) -> str:
    text = "\n".join(f"    {item!r}" for item in items) or "    (nothing)"
    return text if len(text) <= _SHOWN else text[:_SHOWN] + " …"


def mismatch(layer: str, where: str, reused: object, recomputed: object) -> ReuseMismatch:
    """The error for a reused result of ``layer`` at ``where`` that differs from
    ``recomputed``; sequences are shown as what only one side has."""
    if isinstance(reused, list | tuple) and isinstance(recomputed, list | tuple):
        only_reused = [x for x in reused if x not in recomputed]
        only_fresh = [x for x in recomputed if x not in reused]
        if not only_reused and not only_fresh:
            detail = (
                f"  the same items in another order or number\n  reused:\n{_show(reused)}\n"
                f"  recomputed:\n{_show(recomputed)}"
            )
        else:
            detail = (
                f"  reused only:\n{_show(only_reused)}\n  recomputed only:\n{_show(only_fresh)}"
            )
    else:
        detail = f"  reused:\n{_show([reused])}\n  recomputed:\n{_show([recomputed])}"
    return ReuseMismatch(
        f"{ENV}=verify: the reused {layer} of {where} differs from a fresh computation\n{detail}"
    )


def verify(layer: str, where: str, reused: Any, recomputed: Any) -> None:
    """Raise ``ReuseMismatch`` unless ``reused == recomputed``."""
    if reused != recomputed:
        raise mismatch(layer, where, reused, recomputed)


# ------------------------------------------------------------------------ tree facts


def node_facts(node: Node) -> tuple[object, ...]:
    """Everything observable of ``node`` itself: its kind, span, anchor, tag, size and
    content (the children are compared as their own entries of ``tree_facts``)."""
    facts: tuple[object, ...] = (type(node).__name__, node.span, node.anchor, node.tag, node.size)
    if isinstance(node, ScalarNode):
        return (*facts, node.text, repr(node.value), node.style)
    if isinstance(node, MappingNode):
        return (
            *facts,
            node.flow,
            tuple(p.key_text for p in node.pairs),
            tuple(node.effective),
            # Effective entries are pairs of the same mapping, in their own order, or
            # (-1) pairs merged from another mapping (``<<``), told apart by their spans.
            tuple(node.pairs.index(p) if p in node.pairs else -1 for p in node.effective.values()),
            tuple((p.key.span, p.value.span) for p in node.effective.values()),
        )
    if isinstance(node, SequenceNode):
        return (*facts, node.flow, len(node.items))
    assert isinstance(node, AliasNode)
    return (*facts, node.name)


def tree_facts(root: Node | None) -> list[tuple[object, ...]]:
    """``node_facts`` of every node of the tree, in ``walk`` order: what two trees of
    the same text must agree on (a spliced tree and a full parse, a shifted copy and
    a re-parse)."""
    return [node_facts(n) for n in walk(root)]
