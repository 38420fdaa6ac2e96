"""Render docs/rules.md from the rule declarations.

``python -m pack_lsp.core.rulesdoc > docs/rules.md`` regenerates it;
``python -m pack_lsp.core.rulesdoc --check docs/rules.md`` exits with status 1 when the
file is out of date (the contributors' pre-commit hook).
"""

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


def main(argv: list[str]) -> int:
    if argv[:1] == ["--check"] and len(argv) == 2:
        with open(argv[1], encoding="utf-8", newline="") as fh:
            if fh.read() == render():
                return 0
        print(f"{argv[1]} is out of date: python -m pack_lsp.core.rulesdoc > {argv[1]}")
        return 1
    sys.stdout.write(render())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
