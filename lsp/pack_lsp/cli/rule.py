"""``pack-lsp rule CODE``: a rule's documentation on the terminal.

``CODE`` is a rule's code (``PP301``, any case) or name (``tool-undefined``): the
rule's section of docs/rules.md is printed, its example and what pack-lsp reports on
it included (``core/checks/rulesdoc.py``, one text for both). A prefix (``PP3``) or ``ALL``
lists the rules it selects, one line each. Exit status 0, or 2 for a code that
names no rule (with the closest codes).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

USAGE = "usage: pack-lsp rule CODE (a code such as PP301, a rule name, or a prefix such as PP3)"


def main(argv: Sequence[str]) -> int:
    words = list(argv)
    if words in (["-h"], ["--help"]):
        print(USAGE)
        return 0
    if len(words) != 1 or words[0].startswith("-"):
        print(f"pack-lsp: error: {USAGE}", file=sys.stderr)
        return 2
    from pack_lsp.core.checks.registry import REGISTRY, unknown_selector

    wanted = words[0].strip()
    by_name = {r.name: r for r in REGISTRY.values()}
    rule = REGISTRY.get(wanted.upper()) or by_name.get(wanted.lower())
    if rule is not None:
        from pack_lsp.core.checks.rulesdoc import section

        sys.stdout.write(f"{rule.code} ({rule.name})\n\n{section(rule)}")
        return 0
    problem = unknown_selector(wanted)
    if problem is not None:
        print(f"pack-lsp: error: {problem}", file=sys.stderr)
        return 2
    prefix = wanted.upper()
    rules = sorted(
        (r for r in REGISTRY.values() if prefix == "ALL" or r.code.startswith(prefix)),
        key=lambda r: r.code,
    )
    for r in rules:
        print(f"{r.code}  {r.name}  ({r.severity.label}): {r.summary}")
    return 0
