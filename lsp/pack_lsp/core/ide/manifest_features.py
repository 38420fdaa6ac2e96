"""Editor features of agent-extension manifests, across the workspace.

Completion of extension ids in ``depends_on`` / ``agent.uses_tools``, go to
definition (the ``id`` of the other manifest), hover (its name, description and
what it provides) and rename of an extension id in every manifest that declares or
names it. Each function takes the workspace index explicitly and returns plain data
(spans per file); the server converts them to protocol objects.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pack_lsp.core.base.text import Span
from pack_lsp.core.checks.analysis import Analysis
from pack_lsp.core.ide.completion import Completion, CompletionKind
from pack_lsp.core.ide.rename import Edit
from pack_lsp.core.model.manifest.model import CORE_TOOLS, Manifest
from pack_lsp.core.model.manifest.workspace import ManifestIndex

REFERENCE_FIELDS = ("uses_tools", "depends_on")
#: What a new id may be: a folder name yodoca can import the entrypoint from (hyphens
#: are fine for ``importlib``; a dot or a space is not).
_ID = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")
_FLOW_ITEM = re.compile(r"^\s*(?:-\s+)?(uses_tools|depends_on)\s*:\s*\[[^\]#]*\Z")
_DASH_ITEM = re.compile(r"^(\s*)-\s*[\w.-]*\Z")
_KEY_LINE = re.compile(r"^(\s*)(?:-\s+)?([\w-]+)\s*:\s*(?:#.*)?$")
_WORD_BEFORE = re.compile(r"[\w.-]*\Z")
_WORD_AFTER = re.compile(r"[\w.-]*")


@dataclass(frozen=True, slots=True)
class Location:
    """A span in a file (``path`` ``None``: the document itself, unsaved)."""

    path: str | None
    span: Span


@dataclass(frozen=True, slots=True)
class FileEdits:
    path: str | None
    edits: tuple[Edit, ...]


# ------------------------------------------------------------------------ completion


def _field_at(text: str, offset: int) -> str | None:
    """The reference list (``uses_tools``/``depends_on``) whose item is typed at ``offset``."""
    line_start = text.rfind("\n", 0, offset) + 1
    line = text[line_start:offset]
    flow = _FLOW_ITEM.match(line)
    if flow is not None:
        return flow.group(1)
    dash = _DASH_ITEM.match(line)
    if dash is None:
        return None
    indent = len(dash.group(1))
    pos = line_start - 1
    while pos > 0:
        start = text.rfind("\n", 0, pos) + 1
        previous = text[start:pos]
        pos = start - 1
        stripped = previous.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if _DASH_ITEM.match(previous) and len(previous) - len(previous.lstrip()) == indent:
            continue
        if stripped.startswith("- ") and len(previous) - len(previous.lstrip()) == indent:
            continue
        key = _KEY_LINE.match(previous)
        if key is not None and len(key.group(1)) <= indent:
            return key.group(2) if key.group(2) in REFERENCE_FIELDS else None
        return None
    return None


def _summary(m: Manifest) -> str:
    if m.agent is not None:
        return "agent" + (" (declarative)" if m.declarative else " (with code)")
    return "extension with code (may provide tools)"


def complete_ids(analysis: Analysis, offset: int, index: ManifestIndex) -> list[Completion]:
    """Extension ids to insert in ``depends_on`` or ``agent.uses_tools`` at ``offset``.

    Only extensions yodoca loads (enabled, in a ``manifest.yaml``) are offered, and in
    ``uses_tools`` only tool-providing ones, after ``core_tools`` (yodoca's built-in
    tools). The manifest's own id and ids already listed in the same field are left out.
    """
    text = analysis.text
    field = _field_at(text, offset)
    if field is None:
        return []
    before = _WORD_BEFORE.search(text, 0, offset)
    after = _WORD_AFTER.match(text, offset)
    start = before.start() if before is not None else offset
    end = after.end() if after is not None else offset
    replace = Span(start, end)
    own = analysis.manifest
    taken = {r.id for r in own.uses(field)} if own is not None else set()
    if own is not None and own.ext_id is not None:
        taken.add(own.ext_id)
    out: list[Completion] = []
    if field == "uses_tools" and CORE_TOOLS not in taken:
        out.append(
            Completion(
                label=CORE_TOOLS,
                kind=CompletionKind.EXTENSION,
                detail="yodoca's built-in tools",
                documentation="The tool set yodoca itself provides (not an extension).",
                replace=replace,
            )
        )
    for ext_id in index.ids():
        if ext_id in taken:
            continue
        target = next((m for m in index.defining(ext_id) if m.loaded), None)
        if target is None or (field == "uses_tools" and not target.provides_tools):
            continue
        out.append(
            Completion(
                label=ext_id,
                kind=CompletionKind.EXTENSION,
                detail=_summary(target),
                documentation=target.description.text if target.description else "",
                replace=replace,
            )
        )
    return out


# ---------------------------------------------------------- definition, hover, rename


def _id_at(manifest: Manifest | None, offset: int) -> tuple[str, Span] | None:
    """The extension id under ``offset``: a reference or the manifest's own ``id``."""
    if manifest is None:
        return None
    for ref in manifest.references:
        if ref.span.start <= offset <= ref.span.end:
            return ref.id, ref.span
    if manifest.id is not None and manifest.id.span.start <= offset <= manifest.id.span.end:
        return manifest.id.text, manifest.id.span
    return None


def definition(analysis: Analysis, offset: int, index: ManifestIndex) -> list[Location]:
    """The ``id`` values of the manifests declaring the id referenced at ``offset``."""
    found = _id_at(analysis.manifest, offset)
    if found is None:
        return []
    return [
        Location(m.path, m.id.span if m.id is not None else m.anchor)
        for m in index.defining(found[0])
    ]


def references(analysis: Analysis, offset: int, index: ManifestIndex) -> list[Location]:
    """Every place in the workspace that names the id at ``offset``."""
    found = _id_at(analysis.manifest, offset)
    if found is None:
        return []
    return [
        Location(m.path, r.span)
        for m in index.referring(found[0])
        for r in m.references
        if r.id == found[0]
    ]


def hover(analysis: Analysis, offset: int, index: ManifestIndex) -> str | None:
    """Markdown about the extension whose id is at ``offset``."""
    found = _id_at(analysis.manifest, offset)
    if found is None:
        return None
    target = index.first(found[0])
    if target is None:
        return f"`{found[0]}`: no manifest of the workspace declares this id"
    title = target.name.text if target.name is not None else found[0]
    parts = [f"**{title}** (`{found[0]}`): {_summary(target)}"]
    if target.description is not None:
        parts.append(target.description.text.strip())
    if target.agent is not None and target.agent.model is not None:
        parts.append(f"model: `{target.agent.model.text}`")
    return "\n\n".join(parts)


def _inner(span: Span, value: str) -> Span:
    """The span of the characters of ``value`` (inside the quotes of a quoted scalar)."""
    if span.end - span.start == len(value) + 2:
        return Span(span.start + 1, span.end - 1)
    return span


def rename(analysis: Analysis, offset: int, new_id: str, index: ManifestIndex) -> list[FileEdits]:
    """Edits, per file, renaming the extension id at ``offset`` everywhere.

    The declaring manifests' ``id`` and every ``depends_on``/``uses_tools`` entry
    naming it change; ``ValueError`` when there is no id at ``offset`` or
    ``new_id`` is not a valid id.
    """
    found = _id_at(analysis.manifest, offset)
    if found is None:
        raise ValueError("no extension id here")
    if not _ID.match(new_id):
        raise ValueError(
            f"`{new_id}` is not a valid extension id (letters, digits, underscores, hyphens)"
        )
    old = found[0]
    by_path: dict[str | None, list[Edit]] = {}
    for m in index.defining(old):
        if m.id is not None:
            by_path.setdefault(m.path, []).append(Edit(_inner(m.id.span, old), new_id))
    for m in index.referring(old):
        for ref in m.references:
            if ref.id == old:
                by_path.setdefault(m.path, []).append(Edit(_inner(ref.span, old), new_id))
    return [FileEdits(path, tuple(edits)) for path, edits in by_path.items()]
