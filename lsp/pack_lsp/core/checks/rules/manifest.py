"""PM0xx — agent-extension manifests, as yodoca loads them.

The manifests are yodoca's ``manifest.yaml`` files (one folder per extension).
The rules follow what yodoca's code does with a manifest (docs/manifests.md pins
the commit read): what makes it refuse the manifest or stop before loading any
extension is an error, and says so; what it silently reads otherwise than the
author meant (a file path taken as the prompt text, an id ignored, a key it does
not know) is a warning or a note, and says what yodoca does instead.

Single-file rules look at one manifest; cross-file rules look the ids it names up
in the workspace index (the other manifests of the checked directory, or of the
editor's workspace). Schema problems of a manifest are the schema rules' PP1xx and
YAML problems (duplicate keys among them) the document rules' PP0xx, as for packs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any

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
from pack_lsp.core.base.problemdata import (
    AgentWithoutInstructions,
    DependencyCycle,
    DependsOnDisabled,
    EntrypointRequired,
    FolderNotId,
    IgnoredKey,
    InstructionsReadAsText,
    ManifestYmlIgnored,
    MisspelledKey,
    ModuleNotFound,
    UnknownExtension,
    UnknownToolExtension,
)
from pack_lsp.core.base.suggest import did_you_mean, suggestions
from pack_lsp.core.syntax.yamltree.nodes import MappingNode, Node, SequenceNode, deref

if TYPE_CHECKING:
    # The registry imports this module for its rules: the manifest model is loaded
    # when a manifest is checked (``checks.manifest.check``), not by a pack's check.
    from pack_lsp.core.model.manifest.model import Manifest, Reference
    from pack_lsp.core.model.manifest.workspace import ManifestIndex

CATEGORY = "Extension manifests"
E, W, INFO = Severity.ERROR, Severity.WARNING, Severity.INFORMATION

#: What follows a problem that makes yodoca refuse a manifest or its extension graph.
LOADS_NOTHING = "then loads no extension"

ENTRYPOINT_REQUIRED = Rule(
    "PM001",
    "entrypoint-required",
    E,
    "An extension without an `agent` section has nothing to load but its code, so it "
    "needs an `entrypoint`. yodoca refuses such a manifest when it validates it, and "
    "then loads no extension at all.",
    ("id: weather\nname: Weather lookup     # no entrypoint and no agent section\n"),
    "Add `entrypoint: module:Class` naming the extension's class, or add an `agent` "
    "section if the extension is an agent.",
    CATEGORY,
    example_kind=ExampleKind.MANIFEST,
)

AGENT_WITHOUT_INSTRUCTIONS = Rule(
    "PM002",
    "agent-without-instructions",
    W,
    "An agent without an `entrypoint` is built from its manifest alone, and its system "
    "prompt is the `prompt.jinja2` beside the manifest followed by `agent.instructions`; "
    "it has neither, so yodoca runs it with an empty prompt. Checked for manifests "
    "saved as files (the folder is looked at).",
    (
        "id: summarizer\n"
        "name: Summarizer\n"
        "agent:\n"
        "  model: gpt-4o-mini     # no instructions, and the folder has no prompt.jinja2\n"
    ),
    "Write the prompt in `prompt.jinja2` next to the manifest, or inline in `agent.instructions`.",
    CATEGORY,
    example_kind=ExampleKind.MANIFEST,
)

INSTRUCTIONS_READ_AS_TEXT = Rule(
    "PM003",
    "instructions-read-as-text",
    W,
    "`agent.instructions` reads as a file path (one word ending in a prompt-file "
    "extension such as `.jinja2`, `.j2`, `.md` or `.txt`), but yodoca never opens a "
    "file named there: the text itself becomes the agent's prompt. The prompt file "
    "yodoca reads is `prompt.jinja2` beside the manifest.",
    (
        "id: reviewer\n"
        "name: Reviewer\n"
        "agent:\n"
        "  model: gpt-4o-mini\n"
        "  instructions: prompts/reviewer.md     # the prompt would be these words\n"
    ),
    "Move the prompt to `prompt.jinja2` next to the manifest (read automatically) and "
    "drop `instructions`, or write the prompt text inline.",
    CATEGORY,
    example_kind=ExampleKind.MANIFEST,
)

ENTRYPOINT_FORM = Rule(
    "PM004",
    "entrypoint-form",
    E,
    "`entrypoint` is not of the form `module:Class` (a dotted Python module, a colon, "
    "a class name), so yodoca cannot import it: the extension fails to load and the "
    "extensions that depend on it are skipped.",
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
    "`module.py` nor `module/__init__.py`, dots read as folders), so the import fails: "
    "the extension does not load and the extensions that depend on it are skipped.",
    ("id: shell\nname: Shell commands\nentrypoint: main:Shell     # the folder has no main.py\n"),
    "Create the module file next to the manifest or correct the module name.",
    CATEGORY,
    example_kind=ExampleKind.MANIFEST,
)

UNKNOWN_EXTENSION = Rule(
    "PM006",
    "unknown-extension",
    E,
    "`depends_on` names an id that no enabled `manifest.yaml` of the workspace "
    "declares. yodoca's dependency resolver stops at the missing id, and then loads "
    "no extension.",
    (
        "id: planner\n"
        "name: Planner\n"
        "agent:\n"
        "  instructions: Plan the work.\n"
        "depends_on: [file_manger]     # did you mean `file_manager`?\n"
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
    W,
    "`agent.uses_tools` names an agent built from its manifest alone. Tools come from "
    "an extension's code, and such an agent has none: yodoca gives the agent no tools "
    "from it, without a message. Agents reach other agents through the orchestrator's "
    "`delegate_task`, not through `uses_tools`.",
    (
        "id: planner\n"
        "name: Planner\n"
        "agent:\n"
        "  instructions: Plan the work.\n"
        "  uses_tools: [code_reviewer]     # an agent without code: no tools\n"
        "---\n"
        "# code_reviewer/manifest.yaml\n"
        "id: code_reviewer\n"
        "name: Code reviewer\n"
        "agent:\n"
        "  instructions: Review what you are given.\n"
    ),
    "Name tool-providing extensions only; to combine agents, let the orchestrator "
    "delegate to them.",
    CATEGORY,
    example_kind=ExampleKind.MANIFEST,
)

DEPENDENCY_CYCLE = Rule(
    "PM008",
    "dependency-cycle",
    E,
    "Enabled extensions name each other in a cycle through `depends_on`, so no load "
    "order exists: yodoca's resolver stops at the cycle and then loads no extension. "
    "Reported in each manifest of the cycle, on the entry that leads back to it. "
    "`uses_tools` orders nothing (tools are looked up after every extension is "
    "loaded), so a cycle through it is no problem.",
    (
        "id: a\n"
        "name: A\n"
        "agent:\n"
        "  instructions: Review what you are given.\n"
        "depends_on: [b]     # and b depends on a\n"
        "---\n"
        "# b/manifest.yaml\n"
        "id: b\n"
        "name: B\n"
        "agent:\n"
        "  instructions: Review what you are given.\n"
        "depends_on: [a]\n"
    ),
    "Remove one of the entries of the cycle.",
    CATEGORY,
    example_kind=ExampleKind.MANIFEST,
)

DUPLICATE_EXTENSION_ID = Rule(
    "PM009",
    "duplicate-extension-id",
    E,
    "Two enabled manifests of the workspace declare the same `id`. yodoca loads the "
    "code of the first one (folders in name order) only, reads the settings of the last "
    "one for it, and says nothing. Reported in each, with the others as related "
    "locations.",
    (
        "id: kv\n"
        "name: Key-value store\n"
        "agent:\n"
        "  instructions: Remember what you are told.\n"
        "---\n"
        "# kv2/manifest.yaml\n"
        "id: kv     # the same id\n"
        "name: Another store\n"
        "agent:\n"
        "  instructions: Remember what you are told.\n"
    ),
    "Give each extension its own id (the name of its folder).",
    CATEGORY,
    example_kind=ExampleKind.MANIFEST,
)

HANDOFF_INVOKED_AS_TOOL = Rule(
    "PM011",
    "handoff-invoked-as-tool",
    INFO,
    "`integration_mode: handoff` is accepted and recorded, but yodoca invokes every "
    "agent the same way — the orchestrator's `delegate_task` hands it one task and gets "
    "its answer back — so the agent does not take over the conversation.",
    (
        "id: travel_desk\n"
        "name: Travel desk\n"
        "agent:\n"
        "  integration_mode: handoff\n"
        "  instructions: Help the user plan and book a trip.\n"
    ),
    "Write the agent for one task at a time, or leave `integration_mode` at `tool`.",
    CATEGORY,
    example_kind=ExampleKind.MANIFEST,
)

UNKNOWN_TOOL_EXTENSION = Rule(
    "PM012",
    "unknown-tool-extension",
    W,
    "`agent.uses_tools` names an id that is neither `core_tools` (the built-in tools) "
    "nor an enabled extension of the workspace. yodoca drops it without a message, so "
    "the agent gets none of the tools the author expected.",
    (
        "id: planner\n"
        "name: Planner\n"
        "agent:\n"
        "  instructions: Plan the work.\n"
        "  uses_tools: [core_tools, file_manger]     # did you mean `file_manager`?\n"
        "---\n"
        "# file_manager/manifest.yaml\n"
        "id: file_manager\n"
        "name: File manager\n"
        "entrypoint: main:Files\n"
    ),
    "Use the id of an enabled tool extension (completion lists them), or enable it.",
    CATEGORY,
    fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
    safe_fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
    example_kind=ExampleKind.MANIFEST,
)

DEPENDS_ON_DISABLED = Rule(
    "PM013",
    "depends-on-disabled",
    E,
    "`depends_on` names an extension whose manifest says `enabled: false`. yodoca "
    "drops disabled extensions before it resolves dependencies, so the resolver finds "
    "the id missing, and then loads no extension.",
    (
        "id: digest\n"
        "name: Daily digest\n"
        "agent:\n"
        "  instructions: Summarise the day's mail.\n"
        "depends_on: [mail]     # mail is disabled\n"
        "---\n"
        "# mail/manifest.yaml\n"
        "id: mail\n"
        "name: Mail\n"
        "entrypoint: main:Mail\n"
        "enabled: false\n"
    ),
    "Enable the extension it depends on, or disable this one too.",
    CATEGORY,
    example_kind=ExampleKind.MANIFEST,
)

ENTRYPOINT_FOLDER_NOT_ID = Rule(
    "PM014",
    "entrypoint-folder-not-id",
    E,
    "The folder of a `manifest.yaml` with an `entrypoint` is not named after its `id`. "
    "yodoca imports the entrypoint from the folder named after the id, so the import "
    "fails: the extension does not load and the extensions that depend on it are "
    "skipped.",
    (
        "# weather_tool/manifest.yaml\n"
        "id: weather     # the folder is weather_tool\n"
        "name: Weather lookup\n"
        "entrypoint: main:Weather\n"
    ),
    "Rename the folder to the id, or set the id to the folder's name.",
    CATEGORY,
    example_kind=ExampleKind.MANIFEST,
)

AGENT_FOLDER_NOT_ID = Rule(
    "PM015",
    "agent-folder-not-id",
    W,
    "The folder of an agent's `manifest.yaml` (without `entrypoint`) is not named after "
    "its `id`. yodoca reads the agent's `prompt.jinja2` from the folder named after the "
    "id, not from this one.",
    (
        "# helper/manifest.yaml\n"
        "id: assistant     # the folder is helper\n"
        "name: Assistant\n"
        "agent:\n"
        "  instructions: Answer briefly.\n"
    ),
    "Rename the folder to the id, or set the id to the folder's name.",
    CATEGORY,
    example_kind=ExampleKind.MANIFEST,
)

MANIFEST_YML_IGNORED = Rule(
    "PM016",
    "manifest-yml-ignored",
    W,
    "yodoca reads `manifest.yaml` only: a `manifest.yml` is never loaded, and the "
    "extension it declares does not exist for the other manifests.",
    (
        "# weather/manifest.yml\n"
        "id: weather\n"
        "name: Weather lookup\n"
        "agent:\n"
        "  instructions: Answer with the forecast.\n"
    ),
    "Rename the file to `manifest.yaml`.",
    CATEGORY,
    example_kind=ExampleKind.MANIFEST,
)

MISSPELLED_KEY = Rule(
    "PM017",
    "misspelled-key",
    W,
    "A key yodoca does not know is close to one it knows. yodoca ignores unknown keys "
    "without a message, so the setting the author meant is not applied.",
    (
        "id: digest\n"
        "name: Daily digest\n"
        "agent:\n"
        "  instructions: Summarise the day's mail.\n"
        "depend_on: [mail]     # did you mean `depends_on`?\n"
    ),
    "Correct the key (a quick fix does it).",
    CATEGORY,
    fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
    example_kind=ExampleKind.MANIFEST,
)

IGNORED_KEY = Rule(
    "PM018",
    "ignored-key",
    INFO,
    "A key yodoca does not know and that resembles none it knows: yodoca ignores it. "
    "Harmless for notes kept in the manifest; a sign of a mistake otherwise.",
    (
        "id: digest\n"
        "name: Daily digest\n"
        "agent:\n"
        "  instructions: Summarise the day's mail.\n"
        "owner: ops-team     # not read by yodoca\n"
    ),
    "Remove the key, or keep it as a note knowing that yodoca does not read it.",
    CATEGORY,
    example_kind=ExampleKind.MANIFEST,
)

RULES = (
    ENTRYPOINT_REQUIRED,
    AGENT_WITHOUT_INSTRUCTIONS,
    INSTRUCTIONS_READ_AS_TEXT,
    ENTRYPOINT_FORM,
    ENTRYPOINT_MODULE_NOT_FOUND,
    UNKNOWN_EXTENSION,
    NOT_A_TOOL_PROVIDER,
    DEPENDENCY_CYCLE,
    DUPLICATE_EXTENSION_ID,
    HANDOFF_INVOKED_AS_TOOL,
    UNKNOWN_TOOL_EXTENSION,
    DEPENDS_ON_DISABLED,
    ENTRYPOINT_FOLDER_NOT_ID,
    AGENT_FOLDER_NOT_ID,
    MANIFEST_YML_IGNORED,
    MISSPELLED_KEY,
    IGNORED_KEY,
)

#: PM010 (agent tool name `agent_<id>` equal to another id) is gone: yodoca has no
#: `agent_<id>` tools (agents are reached through `delegate_task`). A configuration
#: naming it stays valid.
RETIRED = ("PM010",)

_ENTRYPOINT = re.compile(r"^([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*):([A-Za-z_]\w*)$")
#: One word ending in a prompt-file extension: a path, not a sentence naming a file.
_PROMPT_FILE = re.compile(r"^\S+\.(?:jinja2|jinja|j2|md|txt|prompt)$", re.IGNORECASE)
#: The prompt file yodoca reads beside an agent's manifest.
PROMPT_TEMPLATE = "prompt.jinja2"


def _folder(path: str | None) -> str:
    return PurePath(path).parent.name if path else "?"


# ----------------------------------------------------------------- single-file rules


def _check_shape(m: Manifest) -> Iterator[Diagnostic]:
    if m.agent is None and not m.has_entrypoint:
        yield make(
            ENTRYPOINT_REQUIRED,
            "An extension without an `agent` section needs an `entrypoint` (module:Class): "
            f"yodoca refuses this manifest, and {LOADS_NOTHING}",
            m.anchor,
            data=EntrypointRequired(),
        )
    if m.agent is not None and m.agent.integration_mode is not None:
        mode = m.agent.integration_mode
        if mode.text == "handoff":
            yield make(
                HANDOFF_INVOKED_AS_TOOL,
                "yodoca invokes a `handoff` agent like a `tool` one: `delegate_task` hands "
                "it one task and takes its answer back; it does not take over the "
                "conversation",
                mode.span,
            )


def _check_instructions(m: Manifest) -> Iterator[Diagnostic]:
    agent = m.agent
    if agent is None:
        return
    instructions = agent.instructions
    text = instructions.text.strip() if instructions is not None else ""
    if instructions is not None and _PROMPT_FILE.match(text):
        base = Path(m.path).parent if m.path is not None else None
        exists = base is not None and (base / text).is_file()
        yield make(
            INSTRUCTIONS_READ_AS_TEXT,
            f"yodoca does not open `{text}`: the agent's prompt would be that text itself"
            + (
                f" (the file exists: rename it to `{PROMPT_TEMPLATE}` beside the manifest "
                "and drop `instructions`)"
                if exists
                else f"; its prompt file is `{PROMPT_TEMPLATE}` beside the manifest"
            ),
            instructions.span,
            data=InstructionsReadAsText(path=text, exists=exists),
        )
    if m.path is None or m.has_entrypoint or text:
        return
    if instructions is None and agent.has_instructions:
        return  # a value of the wrong type: the schema reports it
    if (Path(m.path).parent / PROMPT_TEMPLATE).is_file():
        return
    yield make(
        AGENT_WITHOUT_INSTRUCTIONS,
        f"This agent has no prompt: no `{PROMPT_TEMPLATE}` in {_folder(m.path)}/ and "
        "no `agent.instructions`, so yodoca runs it with an empty prompt",
        agent.key_span,
        data=AgentWithoutInstructions(),
    )


def _check_entrypoint(m: Manifest) -> Iterator[Diagnostic]:
    entry = m.entrypoint
    if entry is None or not entry.text:
        return
    match = _ENTRYPOINT.match(entry.text.strip())
    if match is None:
        yield make(
            ENTRYPOINT_FORM,
            f"`entrypoint: {entry.text}` must be written module:Class, e.g. "
            "`main:MyExtension`: yodoca cannot import it, so the extension does not load",
            entry.span,
        )
        return
    if m.path is None or _folder_not_id(m):
        return  # PM014 says where yodoca looks for the module
    module = match.group(1)
    base = Path(m.path).parent
    rel = Path(*module.split("."))
    if not (base / rel.with_suffix(".py")).is_file() and not (base / rel / "__init__.py").is_file():
        yield make(
            ENTRYPOINT_MODULE_NOT_FOUND,
            f"Module `{module}` of the entrypoint has no file `{rel.as_posix()}.py` "
            f"in {_folder(m.path)}/: the import fails, so the extension does not load",
            entry.span,
            data=ModuleNotFound(module=module),
        )


def _folder_not_id(m: Manifest) -> bool:
    """A ``manifest.yaml`` whose folder is not named after its id."""
    from pack_lsp.core.model.manifest.model import MANIFEST_FILE

    return (
        m.path is not None
        and m.id is not None
        and PurePath(m.path).name == MANIFEST_FILE
        and _folder(m.path) != m.id.text
    )


def _check_file(m: Manifest) -> Iterator[Diagnostic]:
    """What yodoca makes of the file's name and folder."""
    if m.path is None:
        return
    from pack_lsp.core.model.manifest.model import IGNORED_FILE

    name = PurePath(m.path).name
    if name == IGNORED_FILE:
        yield make(
            MANIFEST_YML_IGNORED,
            "yodoca reads only `manifest.yaml`: this `manifest.yml` is never loaded",
            m.anchor,
            data=ManifestYmlIgnored(),
        )
        return
    if m.id is None or not m.enabled or not _folder_not_id(m):
        return
    folder = _folder(m.path)
    ext_id = m.id.text
    if m.has_entrypoint:
        yield make(
            ENTRYPOINT_FOLDER_NOT_ID,
            f"The folder `{folder}` is not named after the id `{ext_id}`: yodoca imports "
            f"the entrypoint from `{ext_id}/`, so this extension does not load",
            m.id.span,
            data=FolderNotId(folder=folder, id=ext_id),
        )
    elif m.agent is not None:
        yield make(
            AGENT_FOLDER_NOT_ID,
            f"The folder `{folder}` is not named after the id `{ext_id}`: yodoca reads "
            f"this agent's `{PROMPT_TEMPLATE}` from `{ext_id}/`, not from here",
            m.id.span,
            data=FolderNotId(folder=folder, id=ext_id),
        )


def _resolve(schema: Any, root: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with ``$ref`` followed and the object branch of an ``anyOf`` taken."""
    for _ in range(8):
        if not isinstance(schema, dict):
            return {}
        ref = schema.get("$ref")
        if isinstance(ref, str):
            target: Any = root
            for part in ref.removeprefix("#/").split("/"):
                target = target.get(part) if isinstance(target, dict) else None
            schema = target
            continue
        branches = schema.get("anyOf")
        if isinstance(branches, list):
            objects = [b for b in branches if isinstance(b, dict) and "type" not in b]
            schema = objects[0] if objects else {}
            continue
        return schema
    return {}


def _unknown_keys(
    node: Node | None, schema: Any, root: dict[str, Any], path: str, entry: bool
) -> Iterator[Diagnostic]:
    """PM017/PM018 below ``node``; ``path`` is its dotted path (empty: the manifest),
    ``entry`` whether it is an item of that list."""
    node = deref(node)
    resolved = _resolve(schema, root)
    if isinstance(node, SequenceNode):
        items = resolved.get("items")
        if isinstance(items, dict):
            for item in node.values():
                yield from _unknown_keys(item, items, root, path, True)
        return
    props = resolved.get("properties")
    if not isinstance(node, MappingNode) or not isinstance(props, dict):
        return  # a scalar, or a free-form table such as `config`
    known = list(props)
    where = "the manifest" if not path else f"an entry of `{path}`" if entry else f"`{path}`"
    for key, pair in node.items():
        if key in props:
            inner = f"{path}.{key}" if path else key
            yield from _unknown_keys(pair.value, props[key], root, inner, False)
            continue
        free = [k for k in known if k not in node.effective]  # no fix makes a duplicate
        found = suggestions(key, free)
        if found:
            yield make(
                MISSPELLED_KEY,
                f"yodoca ignores `{key}`, which is not a key of {where}" + did_you_mean(key, free),
                pair.key.span,
                data=MisspelledKey(key=key, suggestions=found),
                fixes=suggest(pair.key.span, found),
            )
        else:
            yield make(
                IGNORED_KEY,
                f"yodoca ignores `{key}`: it is not a key of {where}",
                pair.key.span,
                data=IgnoredKey(key=key),
            )


def check_keys(root: Node | None, schema: dict[str, Any]) -> Iterator[Diagnostic]:
    """PM017/PM018 for the keys of ``root`` that the manifest schema does not declare."""
    yield from _unknown_keys(root, schema, schema, "", False)


# ------------------------------------------------------------------ cross-file rules


def _related(other: Manifest, message: str) -> Related:
    span = other.id.span if other.id is not None else other.anchor
    return Related(span, message, path=other.path)


def _loaded_ids(index: ManifestIndex) -> list[str]:
    return sorted({m.ext_id for m in index if m.loaded and m.ext_id is not None})


def _check_dependency(m: Manifest, ref: Reference, index: ManifestIndex) -> Iterator[Diagnostic]:
    defining = index.defining(ref.id)
    loaded = [t for t in defining if t.loaded]
    if not loaded:
        disabled = [t for t in defining if not t.enabled and not t.ignored]
        if disabled:
            yield make(
                DEPENDS_ON_DISABLED,
                f"`depends_on` names `{ref.id}`, which is disabled (`enabled: false`): yodoca "
                f"drops it before resolving dependencies, finds it missing, and {LOADS_NOTHING}",
                ref.span,
                related=[_related(t, f"`{ref.id}` is disabled here") for t in disabled],
                data=DependsOnDisabled(id=ref.id),
            )
            return
        known = _loaded_ids(index)
        found = suggestions(ref.id, known)
        yield make(
            UNKNOWN_EXTENSION,
            f"`depends_on` names `{ref.id}`, which no enabled manifest.yaml of the workspace "
            f"declares: yodoca stops at the missing dependency, and {LOADS_NOTHING}"
            + did_you_mean(ref.id, known),
            ref.span,
            data=UnknownExtension(id=ref.id, suggestions=found),
            fixes=suggest(ref.span, found),
        )
        return
    if m.ext_id is None:
        return
    chain = [m.ext_id] if ref.id == m.ext_id else index.dependency_path(ref.id, m.ext_id)
    if chain is not None:
        shown = " → ".join([m.ext_id, *chain]) if ref.id != m.ext_id else f"{m.ext_id} → itself"
        yield make(
            DEPENDENCY_CYCLE,
            f"`depends_on` entry `{ref.id}` closes a cycle: {shown}; yodoca finds no load "
            f"order, and {LOADS_NOTHING}",
            ref.span,
            data=DependencyCycle(cycle=[m.ext_id, *chain]),
        )


def _check_tools(ref: Reference, index: ManifestIndex) -> Iterator[Diagnostic]:
    from pack_lsp.core.model.manifest.model import CORE_TOOLS

    if ref.id == CORE_TOOLS:
        return
    loaded = [t for t in index.defining(ref.id) if t.loaded]
    if not loaded:
        disabled = any(not t.enabled and not t.ignored for t in index.defining(ref.id))
        known = [CORE_TOOLS, *(i for i in _loaded_ids(index) if i != CORE_TOOLS)]
        found = [] if disabled else suggestions(ref.id, known)
        why = (
            "which is disabled (`enabled: false`)"
            if disabled
            else "which is neither `core_tools` nor an enabled extension of the workspace"
        )
        yield make(
            UNKNOWN_TOOL_EXTENSION,
            f"`agent.uses_tools` names `{ref.id}`, {why}: yodoca drops it, so the agent "
            "gets no tools from it" + ("" if disabled else did_you_mean(ref.id, known)),
            ref.span,
            data=UnknownToolExtension(id=ref.id, suggestions=found),
            fixes=suggest(ref.span, found),
        )
        return
    target = loaded[0]
    if not target.provides_tools:
        yield make(
            NOT_A_TOOL_PROVIDER,
            f"`{ref.id}` is an agent built from its manifest alone and provides no tools: "
            "yodoca gives this agent none from it",
            ref.span,
            related=[_related(target, f"`{ref.id}` is declared here, without entrypoint")],
        )


def _check_ids(m: Manifest, index: ManifestIndex) -> Iterator[Diagnostic]:
    if m.id is None:
        return
    others = [o for o in index.defining(m.id.text) if o.path != m.path and o.loaded]
    if others:
        yield make(
            DUPLICATE_EXTENSION_ID,
            f"Extension id `{m.id.text}` is declared by {len(others) + 1} enabled manifests: "
            "yodoca loads the code of the first folder only, with the settings of the last",
            m.id.span,
            related=[_related(o, f"`{m.id.text}` is also declared here") for o in others],
        )


def check_manifest(m: Manifest, index: ManifestIndex | None) -> Iterator[Diagnostic]:
    """Every PM diagnostic of ``m`` but the unknown keys (``check_keys``); cross-file
    rules only when ``index`` is given, and only for a manifest yodoca loads (enabled,
    named ``manifest.yaml``): disabled ones are dropped before dependencies are resolved."""
    yield from _check_shape(m)
    yield from _check_instructions(m)
    yield from _check_entrypoint(m)
    yield from _check_file(m)
    if index is None or not m.loaded:
        return
    yield from _check_ids(m, index)
    seen: set[tuple[str, str]] = set()
    for ref in m.references:
        if (ref.field, ref.id) in seen:
            continue
        seen.add((ref.field, ref.id))
        if ref.field == "depends_on":
            yield from _check_dependency(m, ref, index)
        else:
            yield from _check_tools(ref, index)
