"""PA1xx: cross-file rules of arena projects (``config.arena.yaml`` and the files it names).

These rules read the project model (``core.arena.project``); each diagnostic lands in
the file where the fault is written (the config's ``file:`` entry, a scenario's
``task_type``, a prompt config's ``allowed_tools`` item). Everything a pack rule can
say of the compiled pack (undefined tools, workflow states naming no prompt, template
variables, fragments, agents …) is said by the pack rules themselves on the compiled
pack (``core.arena.check``); these rules cover what only the project knows.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from pack_lsp.core.base.diagnostics import (
    Diagnostic,
    ExampleKind,
    FixKind,
    Related,
    Rule,
    Severity,
    make,
)
from pack_lsp.core.base.fixes import Quote, ReplaceValue, suggest
from pack_lsp.core.base.problemdata import (
    DuplicatePromptConfigId,
    DuplicateTaskType,
    MissingProjectFile,
    ProjectFileOutsideRoot,
    ProjectFileWrongKind,
    PromptConfigIdNotTaskType,
    UnknownPersona,
    UnknownProvider,
    UnknownScenarioTaskType,
    UnresolvedNamespacedTool,
)
from pack_lsp.core.base.roots import outside_message
from pack_lsp.core.base.source import refusal
from pack_lsp.core.base.suggest import suggestions
from pack_lsp.core.base.text import Span
from pack_lsp.core.model.arena.project import (
    PROMPT_CONFIG,
    Name,
    Project,
    kind_matches,
    mapping,
    name_at,
    role_providers,
)

CATEGORY = "Arena projects"

_PROMPT = (
    "# prompts/support.yaml\n"
    "apiVersion: promptkit.altairalabs.ai/v1alpha1\n"
    "kind: PromptConfig\n"
    "metadata: {name: support}\n"
    "spec:\n"
    "  task_type: support\n"
    '  version: "v1.0.0"\n'
    "  description: Answers customers\n"
    "  system_template: You help customers.\n"
)
_PROVIDER = (
    "# providers/mock.yaml\n"
    "apiVersion: promptkit.altairalabs.ai/v1alpha1\n"
    "kind: Provider\n"
    "metadata: {name: mock}\n"
    "spec: {id: mock, type: mock, model: mock-model}\n"
)
_PERSONA = (
    "# personas/shopper.yaml\n"
    "apiVersion: promptkit.altairalabs.ai/v1alpha1\n"
    "kind: Persona\n"
    "metadata: {name: shopper}\n"
    "spec:\n"
    "  id: shopper\n"
    "  description: A shopper\n"
    "  system_prompt: You are shopping.\n"
)
_SCENARIOS = "  scenarios:\n    - file: scenarios/greeting.yaml\n"


def _arena(body: str) -> str:
    return (
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\n"
        "kind: Arena\n"
        "metadata: {name: demo}\n"
        "spec:\n"
        "  prompt_configs:\n"
        "    - {id: support, file: prompts/support.yaml}\n"
        "  providers:\n"
        "    - file: providers/mock.yaml\n"
        "  defaults: {temperature: 0.2}\n" + body
    )


def _scenario(task_type: str, more: str = "", turn: str = "{role: user, content: Hello}") -> str:
    """``scenarios/greeting.yaml`` with ``task_type``, ``more`` keys of its spec and one turn."""
    return (
        "# scenarios/greeting.yaml\n"
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\n"
        "kind: Scenario\n"
        "metadata: {name: greeting}\n"
        "spec:\n"
        "  id: greeting\n"
        f"  task_type: {task_type}\n"
        "  description: Greets the customer\n" + more + "  turns:\n"
        f"    - {turn}\n"
    )


def _project(config: str, *documents: str) -> str:
    """A rule example: the arena config and the documents of its files, one stream."""
    return "---\n".join((config, *documents))


def _example(body: str, *documents: str) -> str:
    """The demo project with ``body`` appended to its config's spec: the config, the
    support prompt, the mock provider and ``documents``."""
    return _project(_arena(body), _PROMPT, _PROVIDER, *documents)


MISSING_FILE = Rule(
    "PA101",
    "missing-project-file",
    Severity.ERROR,
    "A `file:` of the arena config names a file that does not exist (paths are "
    "relative to the config's folder). PromptKit refuses to load the project; pack-lsp "
    "still checks the rest of it, and a name the missing file may declare (a prompt "
    "config's task type, known by its entry's `id`; a tool; a provider or persona id) "
    "is not reported elsewhere.",
    _example("  scenarios:\n    - file: scenarios/greeting.yaml   # no such file\n"),
    "Correct the path (a quick fix offers files of the right kind nearby), or create the file.",
    CATEGORY,
    fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
    example_kind=ExampleKind.ARENA_PROJECT,
)

OUTSIDE_ROOT = Rule(
    "PA120",
    "project-file-outside-root",
    Severity.WARNING,
    "A `file:` of the arena config leaves the project's root (the repository holding "
    "the config): an absolute path, `..` going above it, or a link pointing out of "
    "it. pack-lsp does not read it, so that a repository cannot make the checker, the "
    "editor or `--compile` read files elsewhere on the machine.",
    _example("  scenarios:\n    - file: /etc/greeting.yaml   # outside the project\n"),
    "Move the file into the repository, or set `read-outside-root = true` in the "
    "configuration if reading it is intended.",
    CATEGORY,
    example_kind=ExampleKind.ARENA_PROJECT,
)

WRONG_KIND = Rule(
    "PA102",
    "project-file-wrong-kind",
    Severity.ERROR,
    "A file named by the arena config is not of the kind its list expects (a "
    "`prompt_configs` file must be a `kind: PromptConfig`, a `tools` file a `kind: "
    "Tool`, …), or declares no PromptKit kind at all.",
    _project(
        _arena("").replace("file: prompts/support.yaml", "file: providers/mock.yaml"), _PROVIDER
    ),
    "Point the entry at a file of the expected kind, or move it to the list of its kind.",
    CATEGORY,
    example_kind=ExampleKind.ARENA_PROJECT,
)

DUPLICATE_PROMPT_ID = Rule(
    "PA103",
    "duplicate-prompt-config-id",
    Severity.ERROR,
    "Two `prompt_configs` entries have the same `id`; PromptKit refuses the config.",
    _example("    \n").replace(
        "  providers:\n",
        "    - {id: support, file: prompts/support.yaml}\n  providers:\n",
        1,
    ),
    "Give each entry its own id (the task type of its file), or remove the duplicate.",
    CATEGORY,
    example_kind=ExampleKind.ARENA_PROJECT,
)

ID_NOT_TASK_TYPE = Rule(
    "PA104",
    "prompt-config-id-not-task-type",
    Severity.INFORMATION,
    "A `prompt_configs` entry's `id` differs from the `task_type` its file declares. "
    "Scenarios, workflow states and agents name prompts by `task_type`, and the "
    "compiled pack keys the prompt by it; only promptarena's `prompt-debug` and "
    "`inspect` look a prompt config up by its `id`, so there a task type finds nothing.",
    _example("").replace("{id: support,", "{id: helpdesk,", 1),
    "Use the file's `task_type` as the id (a quick fix does it).",
    CATEGORY,
    fixes=(FixKind.REPLACE_VALUE,),
    example_kind=ExampleKind.ARENA_PROJECT,
)

DUPLICATE_TASK_TYPE = Rule(
    "PA105",
    "duplicate-task-type",
    Severity.ERROR,
    "Two prompt configs of the project declare the same `task_type`; the compiled "
    "pack has one prompt per task type, so one of them is lost.",
    _project(
        _arena("").replace(
            "  providers:\n",
            "    - {id: support-v2, file: prompts/support-v2.yaml}\n  providers:\n",
        ),
        _PROMPT,
        _PROMPT.replace("prompts/support.yaml", "prompts/support-v2.yaml"),
        _PROVIDER,
    ),
    "Give each prompt config its own `task_type`, or remove one from `prompt_configs`.",
    CATEGORY,
    example_kind=ExampleKind.ARENA_PROJECT,
)

UNKNOWN_TASK_TYPE = Rule(
    "PA106",
    "unknown-scenario-task-type",
    Severity.ERROR,
    "A scenario's `task_type` names no prompt config of the project; PromptKit "
    "rejects the scenario.",
    _example(_SCENARIOS, _scenario("suport        # no such prompt config")),
    "Name the `task_type` of one of the project's prompt configs (a quick fix offers the closest).",
    CATEGORY,
    fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
    example_kind=ExampleKind.ARENA_PROJECT,
)

UNKNOWN_PROVIDER = Rule(
    "PA107",
    "unknown-provider",
    Severity.ERROR,
    "A provider id named by a scenario's `providers`, a self-play role or a judge is "
    "not the `id` of a provider file of the project.",
    _example(
        _SCENARIOS, _scenario("support", more="  providers: [mok]        # no such provider\n")
    ),
    "Name the `id` of one of the project's providers (a quick fix offers the closest), "
    "or add the provider's file to the config's `providers`.",
    CATEGORY,
    fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
    example_kind=ExampleKind.ARENA_PROJECT,
)

UNKNOWN_PERSONA = Rule(
    "PA108",
    "unknown-persona",
    Severity.ERROR,
    "A scenario turn's `persona` is not the id of a persona of the project (`self_play.personas`).",
    _example(
        _SCENARIOS + "  self_play:\n    personas:\n      - file: personas/shopper.yaml\n"
        "    roles:\n      - {id: user-sim, provider: mock}\n",
        _PERSONA,
        _scenario("support", turn="{role: user-sim, persona: shoper, turns: 2}"),
    ),
    "Name the id of one of the project's personas (a quick fix offers the closest), or "
    "add the persona's file to `self_play.personas`.",
    CATEGORY,
    fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
    example_kind=ExampleKind.ARENA_PROJECT,
)

UNRESOLVED_NAMESPACED_TOOL = Rule(
    "PA109",
    "unresolved-namespaced-tool",
    Severity.WARNING,
    "A prompt config's `allowed_tools` names `mcp__<server>__<tool>` for a server that "
    "is not in the config's `mcp_servers`, or `a2a__<agent>__<skill>` for an agent "
    "that is not in its `a2a_agents`: once compiled and deployed, the name resolves "
    "to no tool.",
    _project(
        _arena("  mcp_servers:\n    - {name: files, command: mcp-files}\n"),
        _PROMPT.replace(
            "  system_template: You help customers.\n",
            "  system_template: You help customers.\n  allowed_tools: [mcp__file__read]\n",
        ),
        _PROVIDER,
    ),
    "Name a configured server or agent (a quick fix offers the closest), or configure it.",
    CATEGORY,
    fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
    example_kind=ExampleKind.ARENA_PROJECT,
)

RULES = (
    MISSING_FILE,
    OUTSIDE_ROOT,
    WRONG_KIND,
    DUPLICATE_PROMPT_ID,
    ID_NOT_TASK_TYPE,
    DUPLICATE_TASK_TYPE,
    UNKNOWN_TASK_TYPE,
    UNKNOWN_PROVIDER,
    UNKNOWN_PERSONA,
    UNRESOLVED_NAMESPACED_TOOL,
)


def _kind_files(project: Project, expected: str, read_kinds: dict[str, str | None]) -> list[str]:
    """Paths (as written relative to the config's folder) of files of ``expected`` kind."""
    return sorted(p for p, k in read_kinds.items() if k == expected)


def _renamed(written: str, candidates: list[str]) -> list[str]:
    """Files of the same folder whose name extends the missing one's stem
    (``gemini.yaml`` → ``gemini.provider.yaml``, as PromptKit examples were renamed)."""
    folder, name = os.path.split(os.path.normpath(written))
    stem = name.split(".", 1)[0]
    return [
        c
        for c in candidates
        if os.path.dirname(c) == folder and os.path.basename(c).split(".", 1)[0] == stem
    ][:3]


def check_project(
    project: Project, nearby: dict[str, str | None] | None = None
) -> Iterator[tuple[str, Diagnostic]]:
    """Every cross-file problem of ``project``, with the path of the file it lands in.

    ``nearby`` maps paths relative to the config's folder to the PromptKit kind of
    the file there (for did-you-mean on a missing file); empty when unknown.
    """
    config = project.config
    here = config.path
    kinds_nearby = nearby or {}
    for ref in project.refs:
        file = project.files.get(ref.target)
        if file is None and ref.target in project.templated:
            continue  # there, but YAML only once its template package is rendered
        if file is None and ref.target in project.outside:
            yield (
                here,
                make(
                    OUTSIDE_ROOT,
                    outside_message(ref.file.value),
                    ref.file.span,
                    data=ProjectFileOutsideRoot(file=ref.file.value, root=project.root),
                ),
            )
            continue
        refused = refusal(ref.target) if file is None else None
        if refused is not None:
            yield (
                here,
                make(
                    MISSING_FILE,
                    f"`{ref.file.value}` cannot be read: {refused} (named in `{ref.section}`)",
                    ref.file.span,
                    data=MissingProjectFile(file=ref.file.value),
                ),
            )
            continue
        if file is None:
            candidates = _kind_files(project, ref.expected, kinds_nearby)
            found = suggestions(ref.file.value, candidates) or _renamed(ref.file.value, candidates)
            yield (
                here,
                make(
                    MISSING_FILE,
                    f"No file `{ref.file.value}` (named in `{ref.section}`)",
                    ref.file.span,
                    data=MissingProjectFile(file=ref.file.value),
                    fixes=suggest(ref.file.span, found),
                ),
            )
            continue
        if not kind_matches(ref, file):
            what = f"a `kind: {file.kind}` file" if file.kind else "not a PromptKit file"
            related: tuple[Related, ...] = ()
            if file.kind_name is not None:
                related = (Related(file.kind_name.span, "its kind", file.path),)
            yield (
                here,
                make(
                    WRONG_KIND,
                    f"`{ref.file.value}` is {what}; `{ref.section}` expects `kind: {ref.expected}`",
                    ref.file.span,
                    related=related,
                    data=ProjectFileWrongKind(expected=ref.expected),
                ),
            )
    yield from _prompt_ids(project)
    yield from _task_types(project)
    yield from _providers(project)
    yield from _personas(project)
    yield from _namespaced_tools(project)


def _prompt_ids(project: Project) -> Iterator[tuple[str, Diagnostic]]:
    here = project.config.path
    seen: dict[str, Name] = {}
    for ref in project.refs:
        if ref.section != "prompt_configs" or ref.id is None:
            continue
        first = seen.setdefault(ref.id.value, ref.id)
        if first is not ref.id:
            yield (
                here,
                make(
                    DUPLICATE_PROMPT_ID,
                    f"Prompt config id `{ref.id.value}` is used twice",
                    ref.id.span,
                    related=(Related(first.span, "first used here"),),
                    data=DuplicatePromptConfigId(id=ref.id.value),
                ),
            )
    for prompt in project.prompts:
        ref_id, task = prompt.ref.id, prompt.task_type
        if ref_id is None or task is None or ref_id.value == task.value:
            continue
        if len({p.file.path for p in project.prompts_for(task.value)}) > 1:
            continue  # two files with one task type: PA105 says so
        yield (
            here,
            make(
                ID_NOT_TASK_TYPE,
                f"Prompt config id `{ref_id.value}` differs from the task type "
                f"`{task.value}` its file declares",
                ref_id.span,
                related=(Related(task.span, "the file's task_type", task.path),),
                data=PromptConfigIdNotTaskType(task_type=task.value),
                fixes=(ReplaceValue(ref_id.span, task.value),),
            ),
        )


def _task_types(project: Project) -> Iterator[tuple[str, Diagnostic]]:
    for task in project.task_types():
        found = list({p.file.path: p for p in reversed(project.prompts_for(task))}.values())[::-1]
        first = found[0]
        assert first.task_type is not None
        for other in found[1:]:
            assert other.task_type is not None
            yield (
                other.file.path,
                make(
                    DUPLICATE_TASK_TYPE,
                    f"Task type `{task}` is also declared by `{first.ref.file.value}`",
                    other.task_type.span,
                    related=(
                        Related(first.task_type.span, "declared here first", first.file.path),
                    ),
                    data=DuplicateTaskType(task_type=task),
                ),
            )
    known = project.task_types()
    maybe = possible_task_types(project)
    if maybe is None:
        return  # a prompt config that could not be read may declare any task type
    if not maybe and not any(ref.expected == PROMPT_CONFIG for ref in project.refs):
        # No prompt config at all: promptarena then runs scenarios without a prompt
        # (no registry to look a task type up in), so their task type names nothing.
        return
    for scenario in project.scenarios:
        named = scenario.task_type
        if named is None or project.prompts_for(named.value) or named.value in maybe:
            continue
        yield (
            scenario.file.path,
            make(
                UNKNOWN_TASK_TYPE,
                f"Task type `{named.value}` is not declared by a prompt config of the project",
                named.span,
                data=UnknownScenarioTaskType(task_type=named.value),
                fixes=suggest(named.span, suggestions(named.value, known)),
            ),
        )


def complete(project: Project, expected: str | None = None) -> bool:
    """Whether every file the config names (of ``expected`` kind) was read and is of
    its kind: otherwise names it would define are unknown."""
    return not project.unknown_refs(expected)


def possible_task_types(project: Project) -> frozenset[str] | None:
    """The task types the prompt configs the project cannot read may declare: the
    `id` of each one's `prompt_configs` entry (the name PromptKit's loader keys it by,
    and the task type by convention, PA104); None when one has no `id`, so that any
    task type may be its (docs/decisions.md, D50)."""
    found = set(_inline_task_types(project))
    for ref in project.unknown_refs(PROMPT_CONFIG):
        if ref.id is None:
            return None
        found.add(ref.id.value)
    return frozenset(found)


def _inline_task_types(project: Project) -> Iterator[str]:
    """The task types of the config's inline ``prompt_specs`` (keyed by task type,
    promptarena ``mergePromptSpecs``): prompt configs the compiled pack here does not
    hold, so their names are taken as possible, never checked."""
    spec = project.config.spec
    inline = mapping(spec.get("prompt_specs")) if spec is not None else None
    if inline is None:
        return
    for key, pair in inline.items():
        yield key
        task = name_at(mapping(pair.value), "task_type", project.path)
        if task is not None:
            yield task.value


def _providers(project: Project) -> Iterator[tuple[str, Diagnostic]]:
    ids = sorted({p.name.value for p in project.providers if p.name is not None})
    if not any(ref.expected == "Provider" for ref in project.refs):
        return
    if any(p.name is None for p in project.providers) or len(project.providers) < sum(
        1 for ref in project.refs if ref.expected == "Provider"
    ):
        # A provider file that is missing, of another kind or without an id is
        # reported already; its id is unknown, so no name is flagged against it.
        return
    used = [n for s in project.scenarios for n in s.providers]
    used += role_providers(project.config)
    for name in used:
        if name.value in ids:
            continue
        yield (
            name.path,
            make(
                UNKNOWN_PROVIDER,
                f"Provider `{name.value}` is not a provider of the project",
                name.span,
                data=UnknownProvider(name=name.value),
                fixes=suggest(name.span, suggestions(name.value, ids)),
            ),
        )


def _personas(project: Project) -> Iterator[tuple[str, Diagnostic]]:
    ids = sorted({p.name.value for p in project.personas if p.name is not None})
    expected = sum(1 for ref in project.refs if ref.expected == "Persona")
    if len(project.personas) < expected or any(p.name is None for p in project.personas):
        return
    for scenario in project.scenarios:
        for name in scenario.personas:
            if name.value in ids:
                continue
            yield (
                name.path,
                make(
                    UNKNOWN_PERSONA,
                    f"Persona `{name.value}` is not a persona of the project",
                    name.span,
                    data=UnknownPersona(name=name.value),
                    fixes=suggest(name.span, suggestions(name.value, ids)),
                ),
            )


def a2a_names(project: Project) -> set[str]:
    """The agent names of the config's ``a2a_agents``."""
    return {a.value for a in project.a2a_agents}


def _namespaced_tools(project: Project) -> Iterator[tuple[str, Diagnostic]]:
    servers = sorted({s.value for s in project.mcp_servers})
    agents = sorted(a2a_names(project))
    for prompt in project.prompts:
        for tool in prompt.allowed_tools:
            parts = tool.value.split("__")
            if len(parts) < 2 or parts[0] not in ("mcp", "a2a"):
                continue
            known, what, where = (
                (servers, "MCP server", "mcp_servers")
                if parts[0] == "mcp"
                else (agents, "A2A agent", "a2a_agents")
            )
            if parts[0] == "a2a" and not agents:
                continue  # an `a2a__<member>` of the pack's agents: the pack rules' matter
            if not parts[1] or parts[1] in known:
                continue
            written = project.files[tool.path].text[tool.span.start : tool.span.end]
            start = tool.span.start + written.find(parts[0] + "__") + len(parts[0]) + 2
            target = Span(start, start + len(parts[1]))
            yield (
                tool.path,
                make(
                    UNRESOLVED_NAMESPACED_TOOL,
                    f"Tool `{tool.value}` names the {what} `{parts[1]}`, which is not in "
                    f"the config's `{where}`",
                    tool.span,
                    data=UnresolvedNamespacedTool(name=tool.value),
                    fixes=suggest(target, suggestions(parts[1], known), Quote.BARE),
                ),
            )


__all__ = ["CATEGORY", "PROMPT_CONFIG", "RULES", "check_project", "complete", "possible_task_types"]
