"""The root of a project: the folder the files it names must stay in.

A repository is untrusted input: an arena config's ``file:`` entry, or a configured
``baseline``, may name ``../../etc/passwd``, an absolute path, or a link inside the
repository that points out of it. Such a path is not read (its file is reported as
outside the root) unless the configuration sets ``read-outside-root = true``.

The root of a file is the nearest folder above it that holds a version-control
directory (``.git``, ``.hg``, ``.svn``: the repository), else the folder of the
pack-lsp configuration that applies to it, else the file's own folder. Paths are
compared with their symbolic links resolved.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

#: Entries that mark the top folder of a repository.
MARKERS = (".git", ".hg", ".svn")
#: The configuration key that lets a project read files outside its root.
ALLOW_KEY = "read-outside-root"


def resolved(path: str | Path) -> Path:
    """``path`` absolute, its links resolved as far as they go (never raises)."""
    try:
        return Path(os.path.realpath(path))
    except (OSError, ValueError):
        return Path(os.path.abspath(path))


@lru_cache(maxsize=256)
def _root_of_folder(folder: Path, config_file: str | None) -> Path:
    for candidate in (folder, *folder.parents):
        if any(os.path.lexists(candidate / marker) for marker in MARKERS):
            return candidate
    if config_file is not None:
        return resolved(Path(config_file).parent)
    return folder


def project_root(path: str | Path, config_source: str | None = None) -> Path:
    """The root of the file at ``path`` (module docstring); ``config_source`` is the
    configuration file that applies to it (``Config.source``), if any."""
    source = config_source.split("#", 1)[0] if config_source else None
    return _root_of_folder(resolved(path).parent, source)


def inside(path: str | Path, root: Path) -> bool:
    """Whether ``path`` (links resolved) is ``root`` or below it."""
    found = resolved(path)
    return found == root or root in found.parents


def outside_message(written: str) -> str:
    """Why a path is not read, for the user (the same words on every machine: the
    root's own path is left out)."""
    return (
        f"`{written}` is outside the project's root (its repository): not read "
        f"(set `{ALLOW_KEY} = true` in the configuration to allow it)"
    )
