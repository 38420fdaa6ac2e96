"""Graph algorithms shared by the rules and the topology (pure, no pack knowledge)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence


def strongly_connected(succ: Mapping[str, Sequence[str]]) -> list[list[str]]:
    """The strongly connected components of ``succ`` (Tarjan's algorithm, iterative).

    Every node is a key of ``succ``; successors that are not keys are ignored. Each
    component is listed in the order its nodes leave the stack; components come in
    the order Tarjan's algorithm completes them (successors before predecessors).
    Iterative so that a long chain cannot exhaust Python's recursion limit.
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for root in succ:
        if root in index:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        work: list[tuple[str, Iterator[str]]] = [(root, iter(succ[root]))]
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in succ:
                    continue
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(succ[nxt])))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == node:
                        break
                out.append(component)
    return out
