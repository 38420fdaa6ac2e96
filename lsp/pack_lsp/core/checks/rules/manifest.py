"""PM0xx — agent-extension manifests (``manifest.yaml`` with an ``agent`` section).

Single-file rules look at one manifest; cross-file rules look the ids it names up
in the workspace index (the other manifests of the checked directory, or of the
editor's workspace). Schema problems of a manifest are the schema rules' PP1xx
and YAML problems (duplicate keys among them) the document rules' PP0xx, as for
packs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from pack_lsp.core.base.diagnostics import (
    Diagnostic,
    ExampleKind,
    FixKind,
    Related,
    Rule,
    Severity,
    make,
)
from pack_lsp.core.base.fixes import suggest
from pack_lsp.core.base.suggest import did_you_mean, suggestions

if TYPE_CHECKING:
    # The registry imports this module for its rules: the manifest model is loaded
    # when a manifest is checked (``checks.manifest.check``), not by a pack's check.
    from pack_lsp.core.model.manifest.model import Manifest, Reference
    from pack_lsp.core.model.manifest.workspace import ManifestIndex

CATEGORY = "Extension manifests"
E, W, INFO = Severity.ERROR, Severity.WARNING, Severity.INFORMATION

ENTRYPOINT_REQUIRED = Rule(
    "PM001",
    "entrypoint-required",
    E,
    "An extension without an `agent` section has nothing to load but its code, so it "
    "needs an `entrypoint`.",
    ("id: weather\nname: Weather lookup     # no entrypoint and no agent section\n"),
    "Add `entrypoint: module:Class` naming the extension's class, or add an `agent` "
    "section if the extension is an agent.",
    CATEGORY,
    example_kind=ExampleKind.MANIFEST,
)

DECLARATIVE_AGENT_INCOMPLETE = Rule(
    "PM002",
    "declarative-agent-incomplete",
    E,
    "An agent without an `entrypoint` is built from its manifest alone, which needs the "
    "model to run and the instructions to follow: `agent.model` and `agent.instructions`.",
    ("id: summarizer\nname: Summarizer\nagent:\n  model: gpt-4o-mini     # no instructions\n"),
    "Add the missing key under `agent`, or give the extension an `entrypoint` whose code "
    "supplies it.",
    CATEGORY,
    example_kind=ExampleKind.MANIFEST,
)

INSTRUCTIONS_FILE_NOT_FOUND = Rule(
    "PM003",
    "instructions-file-not-found",
    W,
    "`agent.instructions` reads as a file path (one line ending in a prompt-file "
    "extension such as `.jinja2`, `.j2`, `.md` or `.txt`) but no such file exists in "
    "the extension's folder. Nothing is checked for a manifest that is not saved as a "
    "file.",
    (
        "id: reviewer\n"
        "name: Reviewer\n"
        "agent:\n"
        "  model: gpt-4o-mini\n"
        "  instructions: prompts/reviewer.md     # the folder has no such file\n"
    ),
    "Correct the path (relative to the folder of the manifest) or create the file.",
    CATEGORY,
    example_kind=ExampleKind.MANIFEST,
)

ENTRYPOINT_FORM = Rule(
    "PM004",
    "entrypoint-form",
    E,
    "`entrypoint` is not of the form `module:Class` (a dotted Python module, a colon, "
    "a class name).",
    ("id: shell\nname: Shell commands\nentrypoint: main.py     # module:Class, e.g. main:Shell\n"),
    "Write the module (without `.py`), a colon and the class name.",
    CATEGORY,
    example_kind=ExampleKind.MANIFEST,
)

ENTRYPOINT_MODULE_NOT_FOUND = Rule(
    "PM005",
    "entrypoint-module-not-found",
    W,
    "The module of `entrypoint` has no file in the extension's folder (neither "
    "`module.py` nor `module/__init__.py`, dots read as folders).",
    ("id: shell\nname: Shell commands\nentrypoint: main:Shell     # the folder has no main.py\n"),
    "Create the module file next to the manifest or correct the module name.",
    CATEGORY,
    example_kind=ExampleKind.MANIFEST,
)

UNKNOWN_EXTENSION = Rule(
    "PM006",
    "unknown-extension",
    E,
    "`depends_on` or `agent.uses_tools` names an id that no manifest of the workspace "
    "declares. The loader would fail when it starts the extension.",
    (
        "id: planner\n"
        "name: Planner\n"
        "agent:\n"
        "  model: gpt-4o\n"
        "  instructions: Plan the work.\n"
        "  uses_tools: [file_manger]     # did you mean `file_manager`?\n"
        "---\n"
        "# file_manager/manifest.yaml\n"
        "id: file_manager\n"
        "name: File manager\n"
        "entrypoint: main:Files\n"
    ),
    "Use the id of an existing extension (completion lists them) or add that extension.",
    CATEGORY,
    fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
    safe_fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
    example_kind=ExampleKind.MANIFEST,
)

NOT_A_TOOL_PROVIDER = Rule(
    "PM007",
    "not-a-tool-provider",
    E,
    "`agent.uses_tools` names an extension that cannot provide tools. Tools come from "
    "an extension's code; an agent without `entrypoint` has none (it is offered to the "
    "orchestrator as a tool itself, never to other agents).",
    (
        "id: planner\n"
        "name: Planner\n"
        "agent:\n"
        "  model: gpt-4o\n"
        "  instructions: Plan the work.\n"
        "  uses_tools: [code_reviewer]     # an agent without code: no tools\n"
        "---\n"
        "# code_reviewer/manifest.yaml\n"
        "id: code_reviewer\n"
        "name: Code reviewer\n"
        "agent:\n"
        "  model: gpt-4o-mini\n"
        "  instructions: Review what you are given.\n"
    ),
    "Name tool-providing extensions only; to combine agents, let the orchestrator call them.",
    CATEGORY,
    example_kind=ExampleKind.MANIFEST,
)

DEPENDENCY_CYCLE = Rule(
    "PM008",
    "dependency-cycle",
    E,
    "Extensions name each other in a cycle through `depends_on` and `agent.uses_tools` "
    "(both must be loaded first), so no load order exists. Reported in each manifest of "
    "the cycle, on the reference that leads back to it.",
    (
        "id: a\n"
        "name: A\n"
        "agent:\n"
        "  model: gpt-4o-mini\n"
        "  instructions: Review what you are given.\n"
        "depends_on: [b]     # and b depends on a\n"
        "---\n"
        "# b/manifest.yaml\n"
        "id: b\n"
        "name: B\n"
        "agent:\n"
        "  model: gpt-4o-mini\n"
        "  instructions: Review what you are given.\n"
        "depends_on: [a]\n"
    ),
    "Remove one of the references of the cycle.",
    CATEGORY,
    example_kind=ExampleKind.MANIFEST,
)

DUPLICATE_EXTENSION_ID = Rule(
    "PM009",
    "duplicate-extension-id",
    E,
    "Two manifests of the workspace declare the same `id`. Reported in each, with the "
    "others as related locations.",
    (
        "id: kv\n"
        "name: Key-value store\n"
        "agent:\n"
        "  model: gpt-4o-mini\n"
        "  instructions: Review what you are given.\n"
        "---\n"
        "# kv2/manifest.yaml\n"
        "id: kv     # the same id\n"
        "name: Another store\n"
        "agent:\n"
        "  model: gpt-4o-mini\n"
        "  instructions: Review what you are given.\n"
    ),
    "Give each extension its own id.",
    CATEGORY,
    example_kind=ExampleKind.MANIFEST,
)

AGENT_TOOL_NAME_COLLISION = Rule(
    "PM010",
    "agent-tool-name-collision",
    W,
    "An agent in `tool` mode is offered to the orchestrator as the tool `agent_<id>`; "
    "another extension of the workspace has exactly that id, and extensions commonly "
    "name their tools after their id, so the two tools would clash when wired.",
    (
        "id: reviewer     # offered to agents as the tool `agent_reviewer`\n"
        "name: Reviewer\n"
        "agent:\n"
        "  model: gpt-4o-mini\n"
        "  instructions: Review what you are given.\n"
        "---\n"
        "# agent_reviewer/manifest.yaml\n"
        "id: agent_reviewer\n"
        "name: Review checklist tool\n"
        "entrypoint: main:Checklist\n"
    ),
    "Rename one of the two extensions.",
    CATEGORY,
    example_kind=ExampleKind.MANIFEST,
)

HANDOFF_NOT_SUPPORTED = Rule(
    "PM011",
    "handoff-not-supported",
    INFO,
    "`integration_mode: handoff` is part of the design but a later phase of it; until "
    "a runtime supports it, only `tool` mode agents are wired.",
    (
        "id: travel_desk\n"
        "name: Travel desk\n"
        "agent:\n"
        "  integration_mode: handoff\n"
        "  model: gpt-4o\n"
        "  instructions: Help the user plan and book a trip.\n"
    ),
    "Use `tool` mode unless the runtime you deploy to supports hand-offs.",
    CATEGORY,
    example_kind=ExampleKind.MANIFEST,
)

RULES = (
    ENTRYPOINT_REQUIRED,
    DECLARATIVE_AGENT_INCOMPLETE,
    INSTRUCTIONS_FILE_NOT_FOUND,
    ENTRYPOINT_FORM,
    ENTRYPOINT_MODULE_NOT_FOUND,
    UNKNOWN_EXTENSION,
    NOT_A_TOOL_PROVIDER,
    DEPENDENCY_CYCLE,
    DUPLICATE_EXTENSION_ID,
    AGENT_TOOL_NAME_COLLISION,
    HANDOFF_NOT_SUPPORTED,
)

_ENTRYPOINT = re.compile(r"^([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*):([A-Za-z_]\w*)$")
_PROMPT_FILE = re.compile(r"^[^\n]*\.(?:jinja2|jinja|j2|md|txt|prompt)$", re.IGNORECASE)


def _where(path: str | None) -> str:
    return Path(path).parent.name if path else "?"


# ----------------------------------------------------------------- single-file rules


def _check_shape(m: Manifest) -> Iterator[Diagnostic]:
    if m.agent is None and not m.has_entrypoint:
        yield make(
            ENTRYPOINT_REQUIRED,
            "An extension without an `agent` section needs an `entrypoint` (module:Class)",
            m.anchor,
            data={"kind": "entrypoint-required"},
        )
    if m.agent is not None and not m.has_entrypoint:
        missing = [
            key
            for key, present in (
                ("model", m.agent.has_model),
                ("instructions", m.agent.has_instructions),
            )
            if not present
        ]
        for key in missing:
            yield make(
                DECLARATIVE_AGENT_INCOMPLETE,
                f"Agent without `entrypoint` needs `agent.{key}`: it is built from the "
                "manifest alone",
                m.agent.key_span,
                data={"kind": "missing-property", "property": key, "path": ["agent"]},
            )
    if m.agent is not None and m.agent.integration_mode is not None:
        mode = m.agent.integration_mode
        if mode.text == "handoff":
            yield make(
                HANDOFF_NOT_SUPPORTED,
                "`handoff` mode is not wired by the runtime yet; the agent is only "
                "reachable once hand-offs are supported",
                mode.span,
            )


def _check_files(m: Manifest) -> Iterator[Diagnostic]:
    entry = m.entrypoint
    module: str | None = None
    if entry is not None:
        match = _ENTRYPOINT.match(entry.text.strip())
        if match is None:
            yield make(
                ENTRYPOINT_FORM,
                f"`entrypoint: {entry.text}` must be written module:Class, e.g. `main:MyExtension`",
                entry.span,
            )
        else:
            module = match.group(1)
    if m.path is None:
        return
    base = Path(m.path).parent
    if module is not None and entry is not None:
        rel = Path(*module.split("."))
        if (
            not (base / rel.with_suffix(".py")).is_file()
            and not (base / rel / "__init__.py").is_file()
        ):
            yield make(
                ENTRYPOINT_MODULE_NOT_FOUND,
                f"Module `{module}` of the entrypoint has no file `{rel.as_posix()}.py` "
                f"in {_where(m.path)}/",
                entry.span,
                data={"kind": "module-not-found", "module": module},
            )
    instructions = m.agent.instructions if m.agent is not None else None
    if instructions is not None:
        text = instructions.text.strip()
        if _PROMPT_FILE.match(text) and not (base / text).is_file():
            yield make(
                INSTRUCTIONS_FILE_NOT_FOUND,
                f"Instructions file `{text}` does not exist in {_where(m.path)}/",
                instructions.span,
                data={"kind": "instructions-not-found", "path": text},
            )


# ------------------------------------------------------------------ cross-file rules


def _related(other: Manifest, message: str) -> Related:
    span = other.id.span if other.id is not None else other.anchor
    return Related(span, message, path=other.path)


def _check_reference(m: Manifest, ref: Reference, index: ManifestIndex) -> Iterator[Diagnostic]:
    where = "`agent.uses_tools`" if ref.field == "uses_tools" else "`depends_on`"
    target = index.first(ref.id)
    if target is None:
        known = index.ids()
        yield make(
            UNKNOWN_EXTENSION,
            f"{where} names `{ref.id}`, which no manifest of the workspace declares"
            + did_you_mean(ref.id, known),
            ref.span,
            data={
                "kind": "unknown-extension",
                "id": ref.id,
                "suggestions": suggestions(ref.id, known),
            },
            fixes=suggest(ref.span, suggestions(ref.id, known)),
        )
        return
    if ref.field == "uses_tools" and not target.provides_tools:
        yield make(
            NOT_A_TOOL_PROVIDER,
            f"`{ref.id}` is an agent built from its manifest alone and provides no tools",
            ref.span,
            related=[_related(target, f"`{ref.id}` is declared here, without entrypoint")],
        )
    if m.ext_id is None:
        return
    chain = [m.ext_id] if ref.id == m.ext_id else index.path_to(ref.id, m.ext_id)
    if chain is not None:
        shown = " → ".join([m.ext_id, *chain]) if ref.id != m.ext_id else f"{m.ext_id} → itself"
        yield make(
            DEPENDENCY_CYCLE,
            f"{where} entry `{ref.id}` closes a cycle: {shown}",
            ref.span,
            data={"kind": "dependency-cycle", "cycle": [m.ext_id, *chain]},
        )


def _check_ids(m: Manifest, index: ManifestIndex) -> Iterator[Diagnostic]:
    if m.id is None:
        return
    others = [o for o in index.defining(m.id.text) if o.path != m.path]
    if others:
        yield make(
            DUPLICATE_EXTENSION_ID,
            f"Extension id `{m.id.text}` is declared by {len(others) + 1} manifests",
            m.id.span,
            related=[_related(o, f"`{m.id.text}` is also declared here") for o in others],
        )
    mode = m.agent.integration_mode if m.agent is not None else None
    if m.agent is not None and (mode is None or mode.text == "tool"):
        from pack_lsp.core.model.manifest.workspace import AGENT_TOOL_PREFIX

        tool = AGENT_TOOL_PREFIX + m.id.text
        clash = index.defining(tool)
        if clash:
            yield make(
                AGENT_TOOL_NAME_COLLISION,
                f"The agent's tool name `{tool}` is also the id of another extension",
                m.id.span,
                related=[_related(o, f"extension `{tool}`") for o in clash],
            )


def check_manifest(m: Manifest, index: ManifestIndex | None) -> Iterator[Diagnostic]:
    """Every PM diagnostic of ``m``; cross-file rules only when ``index`` is given."""
    yield from _check_shape(m)
    yield from _check_files(m)
    if index is None:
        return
    yield from _check_ids(m, index)
    seen: set[tuple[str, str]] = set()
    for ref in m.references:
        if (ref.field, ref.id) in seen:
            continue
        seen.add((ref.field, ref.id))
        yield from _check_reference(m, ref, index)
