"""``pack-lsp --check --statistics``: how many problems of each code, most first.

Text: one line per code, ``count  code  [*] name`` (``[*]``: ``--fix`` fixes some of
them); JSON: a list of ``{"code", "name", "count", "fixable"}`` objects (``fixable``:
how many ``--fix`` fixes), in the same order.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence

from pack_lsp.core.checks.registry import REGISTRY
from pack_lsp.render.result import FileResult, chosen_fix


def counts(results: Sequence[FileResult]) -> list[tuple[str, int, int]]:
    """(code, problems, of them fixable by ``--fix``), most frequent first."""
    found: Counter[str] = Counter()
    fixable: Counter[str] = Counter()
    for result in results:
        for index, d in enumerate(result.diagnostics):
            found[d.code] += 1
            fix = chosen_fix(result, index)
            if fix is not None and fix.safe:
                fixable[d.code] += 1
    return [(code, n, fixable[code]) for code, n in sorted(found.items(), key=_order)]


def _order(item: tuple[str, int]) -> tuple[int, str]:
    return -item[1], item[0]


def _name(code: str) -> str:
    rule = REGISTRY.get(code)
    return rule.name if rule is not None else ""


def render(results: Sequence[FileResult], fmt: str = "text") -> str:
    rows = counts(results)
    if fmt == "json":
        data = [
            {"code": code, "name": _name(code), "count": n, "fixable": fix} for code, n, fix in rows
        ]
        return json.dumps(data, indent=2) + "\n"
    width = max((len(str(n)) for _, n, _ in rows), default=1)
    return "".join(
        f"{n:>{width}}  {code:<6} {'[*] ' if fix else '    '}{_name(code)}\n"
        for code, n, fix in rows
    )
