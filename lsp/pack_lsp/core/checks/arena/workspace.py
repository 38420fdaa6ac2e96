"""Arena projects of a workspace: which configs there are, which files each names,
and what an edit to one file affects.

A file can belong to several projects (promptarena examples keep a mock and a live
config side by side that name the same prompt configs); its problems are those of
every project it is part of, each once. ``ArenaWorkspace`` keeps each project's
check and the reverse index file → configs, so that after an edit of one file the
projects that name it are checked again, and every file of those projects gets its
diagnostics anew, open in the editor or not. A check is cached per text of every
file it read: an unchanged project is not checked twice.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from pack_lsp.core.base.diagnostics import Diagnostic
from pack_lsp.core.base.source import read_head
from pack_lsp.core.checks.arena.check import ProjectCheck, check_project, unique
from pack_lsp.core.model.arena.project import (
    Reader,
    SourceFile,
    build_project,
    disk_reader,
    is_arena_config,
    is_config_name,
    named_files,
    norm,
    parse_file,
)
from pack_lsp.core.model.config import Config
from pack_lsp.core.model.discover import SKIP_DIRS, is_virtualenv
from pack_lsp.core.model.recognize import template_package

_ARENA_HEAD = re.compile(r"^kind:[ \t]*[\"']?Arena[\"']?[ \t]*(?:#.*)?$", re.MULTILINE)
_PROMPTKIT_HEAD = re.compile(r"^apiVersion:[ \t]*[\"']?promptkit\.altairalabs\.ai/", re.MULTILINE)


def declares_arena(path: str | Path) -> bool:
    """Whether a YAML file declares ``kind: Arena`` of PromptKit at its top level
    (read from its first 8 KB), and is not a template package's file waiting for
    ``promptarena init`` to render it (``recognize.template_package``)."""
    try:
        # Never opens a FIFO or a device: it could block.
        head = read_head(path, 8192).decode("utf-8", errors="replace")
    except OSError:
        return False
    if not (_ARENA_HEAD.search(head) and _PROMPTKIT_HEAD.search(head)):
        return False
    return template_package(str(path), head) is None


def find_configs(directory: str | Path, exclude: Iterable[str] = ()) -> Iterator[str]:
    """Arena config files below ``directory``, sorted: YAML files that declare
    ``kind: Arena`` (``config.arena.yaml`` by convention, but also
    ``config.arena.k8s.yaml``, ``arena-audio-test.yaml``, …)."""
    patterns = tuple(exclude)
    root = Path(directory)
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not is_virtualenv(here / d))
        for name in sorted(files):
            if not name.endswith((".yaml", ".yml")) or not declares_arena(here / name):
                continue
            rel = (here / name).relative_to(root).as_posix()
            if any(fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(name, p) for p in patterns):
                continue
            yield str(here / name)


#: How many folders above an opened file's own are searched for the arena configs naming it
#: (PromptKit's examples name files one folder down; a deeper layout still fits).
UPWARD_LEVELS = 4
#: A folder holding one of these is a repository's root: the search for configs ends there.
VCS_MARKERS = (".git", ".hg", ".svn", ".jj", ".bzr")


def configs_naming(
    path: str | Path,
    read: Reader = disk_reader,
    levels: int = UPWARD_LEVELS,
    home: str | Path | None = None,
) -> list[str]:
    """The arena configs that name the file at ``path``, found by looking upward: the
    YAML files declaring ``kind: Arena`` in the file's folder and in up to ``levels``
    folders above it, whose ``file:`` entries resolve to ``path``. The search ends after
    a repository's root (a folder holding ``.git``, ``.hg``…) and before the home folder
    (``home``, the user's by default) and the filesystem root, which are not searched."""
    target = norm(path)
    stop = {norm(home if home is not None else Path.home()), norm(Path(target).anchor or "/")}
    folder = Path(target).parent
    found: list[str] = []
    for _ in range(levels + 1):
        if norm(folder) in stop:
            break
        found.extend(_configs_in(folder, target, read))
        if any((folder / marker).exists() for marker in VCS_MARKERS) or folder.parent == folder:
            break
        folder = folder.parent
    return found


def _configs_in(folder: Path, target: str, read: Reader) -> Iterator[str]:
    """The arena configs directly in ``folder`` that name ``target``."""
    try:
        names = sorted(
            entry.name
            for entry in os.scandir(folder)
            if entry.name.endswith((".yaml", ".yml")) and entry.is_file()
        )
    except OSError:
        return
    for name in names:
        candidate = norm(folder / name)
        if candidate == target or not declares_arena(candidate):
            continue
        text = read(candidate)
        if text is None:
            continue
        config = parse_file(candidate, text)
        if is_arena_config(config) and target in named_files(config):
            yield candidate


class ArenaWorkspace:
    """Every arena project of a workspace, checked, with the files each one names."""

    def __init__(
        self,
        config: Config | None = None,
        read: Reader = disk_reader,
        config_for: Callable[[str], Config] | None = None,
    ) -> None:
        self.config = config or Config()
        self.read = read
        #: The configuration of a project, from its config's path (``.pack-lsp.toml``
        #: and the editor's settings in the server); ``config`` for all by default.
        self.config_for = config_for
        self._settings: dict[
            str, Config
        ] = {}  # config path → the configuration it was checked with
        self._checks: dict[str, ProjectCheck] = {}  # config path → its check
        self._texts: dict[str, dict[str, str | None]] = {}  # config → texts it read
        self._members: dict[str, set[str]] = {}  # file path → configs naming it
        self._parsed: dict[str, SourceFile] = {}
        self._looked_up: set[str] = set()  # files whose configs were searched upward

    # ----------------------------------------------------------------- queries

    def configs(self) -> list[str]:
        return sorted(self._checks)

    def check(self, config_path: str | Path) -> ProjectCheck | None:
        return self._checks.get(norm(config_path))

    def projects_of(self, path: str | Path) -> list[ProjectCheck]:
        """The checked projects ``path`` is part of (its config's own included)."""
        return [self._checks[c] for c in sorted(self._members.get(norm(path), ()))]

    def project_files(self) -> list[str]:
        """Every file of every project, sorted."""
        return sorted(self._members)

    def diagnostics_for(self, path: str | Path) -> tuple[Diagnostic, ...]:
        """The problems of ``path`` in every project it is part of, each once."""
        return tuple(unique(d for c in self.projects_of(path) for d in c.diagnostics_for(path)))

    # ---------------------------------------------------------------- updates

    def add_config(
        self, config_path: str | Path, config: Config | None = None
    ) -> ProjectCheck | None:
        """Load and check the project of ``config_path`` (None when it is not an arena
        config) with ``config`` (by default ``config_for(config_path)``, else the
        workspace's); a project whose files all read the same as last time, checked
        with the same configuration, is kept."""
        path = norm(config_path)
        if config is None:
            config = self.config_for(path) if self.config_for is not None else self.config
        texts = self._texts.get(path)
        if (
            texts is not None
            and self._settings.get(path) == config
            and all(self.read(p) == t for p, t in texts.items())
        ):
            return self._checks.get(path)
        text = self.read(path)
        config_file = self._parse(path, text) if text is not None else None
        if (
            text is None
            or config_file is None
            or not is_arena_config(config_file)
            or template_package(path, text) is not None  # rendered by `promptarena init`
        ):
            self._drop(path)
            return None
        project = build_project(config_file, self.read, self._parsed)
        for file in project.files.values():
            self._parsed[file.path] = file
        checked = check_project(project, config)
        self._drop(path)
        self._checks[path] = checked
        self._settings[path] = config
        read: dict[str, str | None] = {path: text}
        for ref in project.refs:
            if ref.target in project.files:
                read[ref.target] = project.files[ref.target].text
            else:
                read[ref.target] = (
                    self.read(ref.target) if ref.target in project.templated else None
                )
        self._texts[path] = read
        for member in read:
            self._members.setdefault(member, set()).add(path)
        return checked

    def find_projects(
        self, path: str | Path, config_for: Callable[[str], Config] | None = None
    ) -> set[str]:
        """Load the projects of ``path`` when it is part of none yet: the arena configs
        above it that name it (``configs_naming``, searched once per file), each checked
        with ``config_for(config path)`` (the workspace's configuration by default).
        Return the files of the projects loaded."""
        path = norm(path)
        if path in self._members or path in self._looked_up:
            return set()
        self._looked_up.add(path)
        loaded: set[str] = set()
        for found in configs_naming(path, self.read):
            if found in self._checks:
                continue
            if self.add_config(found, config_for(found) if config_for else None) is not None:
                loaded |= set(self._texts.get(found, {}))
        return loaded

    def changed(self, path: str | Path) -> set[str]:
        """Re-check what the change of ``path`` affects (the projects naming it, or its
        own project when it is a config); return the files whose diagnostics must be
        published again, open or not: ``path`` itself and every file of those
        projects whose project problems are not what they were."""
        path = norm(path)
        configs = set(self._members.get(path, ()))
        if is_config_name(path) or path in self._checks or declares_arena(path):
            configs.add(path)
        members: set[str] = set()
        for config in configs:
            members |= set(self._texts.get(config, {}))
        before = {m: self.diagnostics_for(m) for m in members}
        for config in configs:
            self.add_config(config)
            members |= set(self._texts.get(config, {}))
        out = {path} if configs else set()
        for member in members:
            if self.diagnostics_for(member) != before.get(member, ()):
                out.add(member)
        return out

    def _parse(self, path: str, text: str) -> SourceFile:
        known = self._parsed.get(path)
        if known is not None and known.text == text:
            return known
        parsed = parse_file(path, text)
        self._parsed[path] = parsed
        return parsed

    def refresh(self) -> set[str]:
        """Re-check every project whose configuration or files changed (after a change
        of settings, say); return the files whose project problems changed."""
        members = set(self._members)
        before = {m: self.diagnostics_for(m) for m in members}
        for config in list(self._checks):
            self.add_config(config)
        members |= set(self._members)
        return {m for m in members if self.diagnostics_for(m) != before.get(m, ())}

    def _drop(self, config: str) -> None:
        self._checks.pop(config, None)
        self._settings.pop(config, None)
        for member in self._texts.pop(config, {}):
            owners = self._members.get(member)
            if owners is not None:
                owners.discard(config)
                if not owners:
                    del self._members[member]


def projects_in(paths: Iterable[str | Path], config: Config | None = None) -> ArenaWorkspace:
    """A workspace of the arena configs below (or at) ``paths``, checked."""
    workspace = ArenaWorkspace(config)
    for raw in paths:
        path = Path(raw)
        found = find_configs(path) if path.is_dir() else ([str(path)] if path.is_file() else [])
        for config_path in found:
            workspace.add_config(config_path)
    return workspace
