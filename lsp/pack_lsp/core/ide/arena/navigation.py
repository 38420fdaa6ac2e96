"""Definition, references and rename across the files of an arena project.

The names that cross files, where each is defined and where it is used:

- a task type: defined by a PromptConfig's ``spec.task_type``; used by the config's
  ``prompt_configs[].id`` (when it spells the same), scenarios' ``task_type``, the
  workflow's ``prompt_task``, the keys of ``agents.members`` and ``agents.entry``;
- a tool: defined by a Tool file's ``metadata.name``; used in ``allowed_tools``;
- a provider: defined by a Provider file's ``spec.id``; used by scenarios'
  ``providers``, self-play roles' and judges' ``provider``;
- a persona: defined by a Persona file's ``spec.id``; used by scenario turns'
  ``persona``.

Renaming one changes every occurrence in every file of the project (each keeps its
quote style), so renaming a prompt config's task type updates the arena config, the
scenarios and the workflow at once.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from pack_lsp.core.base.text import Span
from pack_lsp.core.ide.rename import Edit, quote_like
from pack_lsp.core.model.arena.project import Name, Project, mapping, name_at, norm, role_providers
from pack_lsp.core.syntax.yamltree import ScalarNode

TASK_TYPE = "task type"
TOOL = "tool"
PROVIDER = "provider"
PERSONA = "persona"


@dataclass(frozen=True, slots=True)
class Occurrence:
    kind: str
    name: str
    path: str
    span: Span
    definition: bool


class RenameError(ValueError):
    """A rename that cannot be done (shown to the user as is)."""


def _key_name(node: object, key: str, path: str) -> Name | None:
    """The key ``key`` of a mapping as a name (its span is the key's)."""
    found = mapping(node)  # type: ignore[arg-type]
    pair = found.pair(key) if found is not None else None
    if pair is None or not isinstance(pair.key, ScalarNode):
        return None
    return Name(key, pair.key.span, path)


def occurrences(project: Project) -> Iterator[Occurrence]:
    """Every occurrence of a cross-file name in the project."""
    for prompt in project.prompts:
        if prompt.task_type is not None:
            t = prompt.task_type
            yield Occurrence(TASK_TYPE, t.value, t.path, t.span, True)
        for tool in prompt.allowed_tools:
            yield Occurrence(TOOL, tool.value, tool.path, tool.span, False)
        if prompt.ref.id is not None:
            i = prompt.ref.id
            yield Occurrence(TASK_TYPE, i.value, i.path, i.span, False)
    for scenario in project.scenarios:
        if scenario.task_type is not None:
            t = scenario.task_type
            yield Occurrence(TASK_TYPE, t.value, t.path, t.span, False)
        for name in scenario.providers:
            yield Occurrence(PROVIDER, name.value, name.path, name.span, False)
        for name in scenario.personas:
            yield Occurrence(PERSONA, name.value, name.path, name.span, False)
    defining = ((TOOL, project.tools), (PROVIDER, project.providers), (PERSONA, project.personas))
    for kind, defined in defining:
        for item in defined:
            if item.name is not None:
                n = item.name
                yield Occurrence(kind, n.value, n.path, n.span, True)
    yield from _config_uses(project)


def _config_uses(project: Project) -> Iterator[Occurrence]:
    path = project.path
    spec = project.config.spec
    if spec is None:
        return
    workflow = mapping(spec.get("workflow"))
    states = mapping(workflow.get("states")) if workflow is not None else None
    for _, pair in states.items() if states is not None else ():
        task = name_at(mapping(pair.value), "prompt_task", path)
        if task is not None:
            yield Occurrence(TASK_TYPE, task.value, path, task.span, False)
    agents = mapping(spec.get("agents"))
    if agents is not None:
        entry = name_at(agents, "entry", path)
        if entry is not None:
            yield Occurrence(TASK_TYPE, entry.value, path, entry.span, False)
        members = mapping(agents.get("members"))
        for key, pair in members.items() if members is not None else ():
            if isinstance(pair.key, ScalarNode):
                yield Occurrence(TASK_TYPE, key, path, pair.key.span, False)
    for found in role_providers(project.config):
        yield Occurrence(PROVIDER, found.value, path, found.span, False)


def at(project: Project, path: str, offset: int) -> Occurrence | None:
    """The occurrence written at ``offset`` of the file ``path``."""
    path = norm(path)
    for occ in occurrences(project):
        if occ.path == path and occ.span.start <= offset <= occ.span.end:
            return occ
    return None


def _same(project: Project, target: Occurrence) -> list[Occurrence]:
    return [o for o in occurrences(project) if o.kind == target.kind and o.name == target.name]


def definition(project: Project, path: str, offset: int) -> list[Occurrence]:
    """Where the name at ``offset`` is defined (in whichever file of the project)."""
    target = at(project, path, offset)
    if target is None:
        return []
    return [o for o in _same(project, target) if o.definition]


def references(
    project: Project, path: str, offset: int, include_declaration: bool = True
) -> list[Occurrence]:
    """Every occurrence of the name at ``offset`` across the project."""
    target = at(project, path, offset)
    if target is None:
        return []
    found = _same(project, target)
    if not include_declaration:
        found = [o for o in found if not o.definition]
    return sorted(found, key=lambda o: (o.path, o.span.start))


def rename(project: Project, path: str, offset: int, new_name: str) -> dict[str, list[Edit]]:
    """The edits, by file, that rename the name at ``offset`` everywhere in the project."""
    target = at(project, path, offset)
    if target is None:
        raise RenameError("Nothing to rename here")
    if not new_name or new_name != new_name.strip():
        raise RenameError(f"`{new_name}` is not a valid {target.kind} name")
    taken = {o.name for o in occurrences(project) if o.kind == target.kind and o.definition}
    if new_name != target.name and new_name in taken:
        raise RenameError(f"The project already has a {target.kind} `{new_name}`")
    edits: dict[str, list[Edit]] = {}
    for occ in _same(project, target):
        text = project.files[occ.path].text
        edits.setdefault(occ.path, []).append(Edit(occ.span, quote_like(text, occ.span, new_name)))
    return edits
