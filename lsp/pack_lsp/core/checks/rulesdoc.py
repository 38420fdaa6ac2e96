"""Render docs/rules.md from the rule declarations.

``python -m pack_lsp.core.checks.rulesdoc > docs/rules.md`` regenerates it;
``python -m pack_lsp.core.checks.rulesdoc --check docs/rules.md`` exits with status 1 when the
file is out of date (the contributors' pre-commit hook).
"""

from __future__ import annotations

import sys
from itertools import groupby

from pack_lsp.core.base.diagnostics import ExampleKind, Rule
from pack_lsp.core.checks import examples
from pack_lsp.core.checks.registry import REGISTRY

HEADER = """# pack-lsp rules

Every diagnostic pack-lsp reports has a stable code. This page is generated from the
rule registry (`python -m pack_lsp.core.checks.rulesdoc > docs/rules.md`); a test keeps it in
sync. Severities are defaults: change them with `severity` in the configuration, and
turn rules on or off with `select` / `ignore` (see the README). `pack-lsp rule PP301`
prints a rule's section on the terminal.

| code | name | default severity | category |
|---|---|---|---|
"""


PROFILES = """
## Profiles: what `promptkit` checks differently

The `promptkit` profile (`profile = "promptkit"`, `--profile promptkit`) checks a pack
as PromptKit, the reference runtime, loads it. PromptKit {first} to {last} embed the
same schema, labelled {label}: a fork of the specification with its compositions and
workflow states as agents (our schema cut to {label}), not the published {label}. Every
pack is checked against it whatever its `$schema` declares, so a key that schema lacks
is unknown (PP102), never "needs a newer version" (PP110). `promptkit` alone models
PromptKit {default}; `promptkit@<release>` names another of those releases (the schema
is the same; some checks of the loader below began in a later release).

Where PromptKit's schema differs from the specification's:

{schema}
Severities the profile raises to errors, as PromptKit refuses these packs:

{severities}
Checks of PromptKit's loader beyond its schema, made only under the profile:

{loader}"""


def _profiles() -> str:
    from pack_lsp.core.base import versions
    from pack_lsp.core.model.config import Profile
    from pack_lsp.core.model.profiles import (
        PROFILE_SEVERITY,
        PROMPTKIT_LOADER_CHECKS,
        promptkit_differences,
    )

    schema = "".join(f"- `{d.where}`: {d.note}\n" for d in promptkit_differences())
    severities = "".join(
        f"- [{code}](#{code.lower()}) {REGISTRY[code].name}: "
        f"{REGISTRY[code].severity.label} → {level.label}\n"
        for code, level in sorted(PROFILE_SEVERITY[Profile.PROMPTKIT].items())
    )
    loader = "".join(
        f"- [{code}](#{code.lower()}) {REGISTRY[code].name}: {what}\n"
        for code, what in sorted(PROMPTKIT_LOADER_CHECKS.items())
    )
    return PROFILES.format(
        first=versions.PROMPTKIT_RELEASES[0],
        last=versions.PROMPTKIT_RELEASES[-1],
        default=versions.PROMPTKIT_DEFAULT,
        label=versions.PROMPTKIT_VERSION,
        schema=schema,
        severities=severities,
        loader=loader,
    )


TARGETS = """
## Deploy targets: what each runtime is modelled to do

`targets = [...]` (`--target NAME`, the editor's `packLsp.targets`) names the runtimes
a pack is deployed to; a pack in a Kubernetes ConfigMap is checked for `omnia` when no
target is configured. `promptkit` is the `promptkit` profile below. The PT codes report
what each other runtime refuses (errors) or reads differently (warnings); a pack checked
for no target gets none. Each runtime was read at the commit shown.
"""


def _targets() -> str:
    from pack_lsp.core.model import runtimes
    from pack_lsp.core.model.targets import RUNTIMES

    out = [TARGETS]
    lists = {"omnia": runtimes.OMNIA_SHAPES, "promptpack-python": runtimes.V1_SHAPES}
    for name, runtime in RUNTIMES.items():
        out.append(
            f"\n### {runtime.title}\n\n`{runtime.repository}` at `{runtime.commit}`; "
            f"modelled: {runtime.modelled}.\n\n"
            "| what it does | read in | reported as |\n|---|---|---|\n"
        )
        for fact in runtimes.FACTS:
            if fact.target == name:
                codes = ", ".join(f"[{c}](#{c.lower()})" for c in fact.codes) or "not reported"
                where = ", ".join(f"`{source}`" for source in fact.source)
                out.append(f"| {fact.what} | {where} | {codes} |\n")
        shapes = lists.get(name)
        if shapes is not None:
            out.append("\nWhat it accepts (`metadata` and objects not listed are open):\n\n")
            out.append("| object | accepted |\n|---|---|\n")
            for what, accepted in runtimes.closed_lists(shapes):
                out.append(f"| {what} | {accepted} |\n")
        if name == "promptpack-langchainjs":
            out.append("\nIt reads the keys promptpack-python accepts, and ignores the others.\n")
    return "".join(out)


def _example(rule: Rule) -> str:
    """The example of ``rule``, its configuration and what pack-lsp reports on it."""
    kind = rule.example_kind
    out = []
    if rule.example_config:
        out.append(
            "Configuration (`.pack-lsp.toml`):\n\n```toml\n"
            + rule.example_config.rstrip()
            + "\n```\n\n"
        )
    intro = {
        ExampleKind.ILLUSTRATIVE: "Example (illustrative only: no document triggers this on "
        "purpose, so it is not run)",
        ExampleKind.MANIFEST: "Example (`manifest.yaml`)",
        ExampleKind.PACK_BYTES: "Example (`\\xNN` stands for a raw byte)",
        ExampleKind.KUBERNETES: "Example (a file named on the command line)",
        ExampleKind.ARENA_PROJECT: "Example (an arena project: `config.arena.yaml` first)",
    }.get(kind, "Example")
    out.append(f"{intro}:\n\n```{examples.language(rule)}\n{rule.example.rstrip()}\n```\n\n")
    if kind is ExampleKind.MANIFEST and "\n---" in rule.example:
        out.append(
            "The first document is the checked manifest; the others are manifests of "
            "its workspace, at the path their first line names.\n\n"
        )
    if kind is ExampleKind.ARENA_PROJECT:
        out.append(
            "The first document is the arena config; the others are the files it names, "
            "at the path their first line names (relative to the config).\n\n"
        )
    if kind is not ExampleKind.ILLUSTRATIVE:
        reported = examples.run(rule)
        out.append("pack-lsp reports:\n\n")
        out.extend(f"- {r}: {r.message}\n" for r in reported)
        out.append("\n" if reported else "- nothing\n\n")
    return "".join(out)


def section(rule: Rule) -> str:
    """The documentation of one rule (its section of docs/rules.md, below the title;
    ``pack-lsp rule CODE`` prints it)."""
    return (
        f"**{rule.name}** — default severity *{rule.severity.label}*\n\n{rule.summary}\n\n"
        + _example(rule)
        + f"Fix: {rule.fix}\n"
    )


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
            out.append(f"\n### {r.code}\n\n{section(r)}")
    out.append(_targets())
    out.append(_profiles())
    return "".join(out)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--check"] and len(argv) == 2:
        with open(argv[1], encoding="utf-8", newline="") as fh:
            if fh.read() == render():
                return 0
        print(f"{argv[1]} is out of date: python -m pack_lsp.core.checks.rulesdoc > {argv[1]}")
        return 1
    sys.stdout.write(render())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
