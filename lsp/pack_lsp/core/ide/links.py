"""Document links: the places of a pack that name another file or location.

- ``$schema``: an ``http(s)`` URL is a link to itself (its tooltip says which
  PromptPack version the pack is checked against); a relative path, to that file.
- a skill's ``path``: to the skill's ``SKILL.md`` when the path is a directory that
  has one, else to the file or directory itself (PP604 reports a path that does not
  exist, PP605 one outside the pack's directory: neither is linked).
- a fragment placeholder (``{{fragments.x}}``, ``{{fragment:x}}``, a bare fragment
  name): to the fragment's key in the same document (PP501 reports an undefined one).
- a media reference's ``file_path``: to the file, when it exists beside the pack (no
  rule reports a missing one yet).
- in a Kubernetes manifest, ``spec.source.configMapRef.name``: to the ConfigMap's
  ``metadata.name`` in the same file, or to the file beside it that defines it
  (PK001 reports one found nowhere).
- in an arena config (``kind: Arena``), every ``file:`` of ``prompt_configs``,
  ``providers`` (and the typed provider lists), ``scenarios``, ``evals``, ``tools`` and
  ``self_play.personas``: to the file, resolved as PromptKit resolves it (PA101
  reports a missing one).

Links are computed once per analysis; only files the pack names are looked at (and
the manifest's folder for a ConfigMap it does not define itself).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from pack_lsp.core.base import kinds
from pack_lsp.core.base.roots import inside, project_root
from pack_lsp.core.base.text import Span
from pack_lsp.core.checks.analysis import Analysis
from pack_lsp.core.model import hosts
from pack_lsp.core.model.arena.project import ARENA, SourceFile, file_refs, norm
from pack_lsp.core.model.profiles import target_of
from pack_lsp.core.syntax.yamltree.navigate import walk
from pack_lsp.core.syntax.yamltree.nodes import MappingNode, ScalarNode

SKILL_FILE = "SKILL.md"
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


@dataclass(frozen=True, slots=True)
class Link:
    """``span`` links to ``url`` (an absolute URL), ``path`` (a file or directory), or,
    with neither, to ``line`` of this document."""

    span: Span
    url: str | None = None
    path: Path | None = None
    line: int | None = None
    tooltip: str = ""


def _inside(text: str, span: Span, value: str) -> Span:
    """The characters of ``value`` in the scalar at ``span`` (inside its quotes)."""
    written = text[span.start : span.end]
    at = written.find(value)
    return Span(span.start + at, span.start + at + len(value)) if at >= 0 else span


def _relative(base: Path | None, value: str) -> Path | None:
    value = value.strip()
    if base is None or not value or _SCHEME.match(value) or value.startswith("@"):
        return None
    if value.startswith("~") or os.path.isabs(value):
        return None
    try:
        found = (base / value).resolve()
        return found if found.exists() else None
    except (OSError, ValueError):
        return None


def _schema(analysis: Analysis, base: Path | None) -> Iterator[Link]:
    root = analysis.root
    if not isinstance(root, MappingNode):
        return
    node = root.get("$schema")
    if not isinstance(node, ScalarNode) or not isinstance(node.value, str):
        return
    span = _inside(analysis.text, node.span, node.value)
    version = target_of(analysis.config, analysis.data).version
    tip = f"PromptPack {version} schema (the version this pack is checked against)"
    if node.value.startswith(("https://", "http://")):
        yield Link(span, url=node.value, tooltip=tip)
        return
    found = _relative(base, node.value)
    if found is not None and found.is_file():
        yield Link(span, path=found, tooltip=tip)


def _skills(analysis: Analysis, base: Path | None) -> Iterator[Link]:
    assert analysis.pack is not None
    for skill in analysis.pack.skills:
        loc = skill.path
        if loc is None or not isinstance(loc.value, str) or loc.value.strip().startswith(".."):
            continue
        found = _relative(base, loc.value)
        if found is None:
            continue
        if found.is_dir() and (found / SKILL_FILE).is_file():
            found = found / SKILL_FILE
        yield Link(_inside(analysis.text, loc.span, loc.value), path=found, tooltip="Open skill")


def _fragments(analysis: Analysis) -> Iterator[Link]:
    pack = analysis.pack
    templates = analysis.derived.templates
    if pack is None or templates is None or not pack.fragments:
        return
    for info in templates.templates:
        for p in info.placeholders:
            fragment = pack.fragments.get(p.name) if p.kind == "fragment" else None
            if fragment is None:
                continue
            yield Link(
                p.name_span,
                line=analysis.lines.position(fragment.key_span.start).line,
                tooltip=f"Go to fragment `{p.name}`",
            )


def _media(analysis: Analysis, base: Path | None) -> Iterator[Link]:
    if base is None or "file_path" not in analysis.text:
        return
    for node in walk(analysis.root):
        if not isinstance(node, MappingNode):
            continue
        value = node.get("file_path")
        if not isinstance(value, ScalarNode) or not isinstance(value.value, str):
            continue
        found = _relative(base, value.value)
        if found is not None and found.is_file():
            span = _inside(analysis.text, value.span, value.value)
            yield Link(span, path=found, tooltip="Open media file")


def _config_map_refs(analysis: Analysis) -> Iterator[Link]:
    stream = hosts.read_stream(analysis.text)
    if stream is None:
        return
    own: dict[str, Span] = {}
    for obj in stream.objects:
        if obj.kind == "ConfigMap" and obj.name:
            metadata = obj.root.get("metadata")
            name = metadata.get("name") if isinstance(metadata, MappingNode) else None
            if name is not None:
                own.setdefault(obj.name, name.span)
    siblings: dict[str, Path] | None = None
    for ref in stream.refs:
        span = _inside(analysis.text, ref.span, ref.name)
        if ref.name in own:
            line = analysis.lines.position(own[ref.name].start).line
            yield Link(span, line=line, tooltip=f"Go to ConfigMap `{ref.name}`")
            continue
        if analysis.path is None:
            continue
        if siblings is None:
            siblings = hosts.sibling_config_maps(Path(analysis.path))
        found = siblings.get(ref.name)
        if found is not None:
            yield Link(span, path=found, tooltip=f"Open the file defining ConfigMap `{ref.name}`")


def _arena_files(analysis: Analysis) -> Iterator[Link]:
    arena = analysis.arena
    if arena is None or arena.kind != ARENA or analysis.path is None:
        return
    config = SourceFile(norm(analysis.path), analysis.text, analysis.root, analysis.data, False)
    for ref in file_refs(config):
        found = Path(ref.target)
        try:
            exists = found.is_file()
        except (OSError, ValueError):
            exists = False
        if exists:
            span = _inside(analysis.text, ref.file.span, ref.file.value)
            yield Link(span, path=found, tooltip=f"Open {ref.expected} file")


def _in_root(analysis: Analysis, links: Iterable[Link]) -> list[Link]:
    """``links`` without those to files outside the project's root (a repository
    must not lead the editor to ``/etc/passwd``; see ``core/base/roots.py``)."""
    found = list(links)
    if analysis.path is None or analysis.config.read_outside_root:
        return found
    root = project_root(analysis.path, analysis.config.source)
    return [link for link in found if link.path is None or inside(link.path, root)]


def document_links(analysis: Analysis) -> list[Link]:
    """Every link of the document (see the module docstring)."""

    def build() -> list[Link]:
        base = Path(analysis.path).parent if analysis.path is not None else None
        if analysis.kind == kinds.KUBERNETES:
            return _in_root(analysis, _config_map_refs(analysis))
        if analysis.kind == kinds.ARENA:
            return _in_root(analysis, _arena_files(analysis))
        if analysis.pack is None:
            return []
        out = [*_schema(analysis, base), *_skills(analysis, base), *_fragments(analysis)]
        out.extend(_media(analysis, base))
        return sorted(_in_root(analysis, out), key=lambda link: link.span.start)

    return analysis.derived.memo(document_links, build)
