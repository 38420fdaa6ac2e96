"""Render docs/rules.md from the rule registry (``python -m pack_lsp.core.rulesdoc``)."""

from __future__ import annotations

import sys
from itertools import groupby

from pack_lsp.core.registry import REGISTRY

HEADER = """# pack-lsp rules

Every diagnostic pack-lsp reports has a stable code. This page is generated from the
rule registry (`python -m pack_lsp.core.rulesdoc > docs/rules.md`); a test keeps it in
sync. Severities are defaults: change them with `severity` in the configuration, and
turn rules on or off with `select` / `ignore` (see the README).

| code | name | default severity | category |
|---|---|---|---|
"""


def render() -> str:
    rules = sorted(REGISTRY.values(), key=lambda r: r.code)
    out = [HEADER]
    for r in rules:
        out.append(
            f"| [{r.code}](#{r.code.lower()}) | {r.name} | {r.severity.label} | {r.category} |\n"
        )
    for category, group in groupby(rules, key=lambda r: r.category):
        out.append(f"\n## {category or 'Other'}\n")
        for r in group:
            out.append(
                f"\n### {r.code}\n\n**{r.name}** — default severity "
                f"*{r.severity.label}*\n\n{r.summary}\n\n"
            )
            out.append("Example:\n\n```yaml\n" + r.example.rstrip() + "\n```\n\n")
            out.append(f"Fix: {r.fix}\n")
    return "".join(out)


if __name__ == "__main__":
    sys.stdout.write(render())
