"""Finding PromptPack files and agent-extension manifests under the paths given to ``--check``."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from pack_lsp.core.base import kinds
from pack_lsp.core.base.source import SourceError, check_regular, read_source
from pack_lsp.core.model.recognize import HEAD_LIMIT, PARSE_LIMIT, recognize

SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        ".venv",
        "venv",
        "__pycache__",
        ".tox",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
    }
)
#: Files larger than this are judged by their first ``HEAD_LIMIT`` characters
#: (their top-level keys) instead of a parse; see ``core.recognize``.
SNIFF_LIMIT = PARSE_LIMIT


def _excluded(path: Path, root: Path, exclude: Iterable[str]) -> bool:
    try:
        rel = path.relative_to(root).as_posix()
    except ValueError:
        rel = path.as_posix()
    for pattern in exclude:
        if (
            fnmatch.fnmatch(rel, pattern)
            or fnmatch.fnmatch(path.name, pattern)
            or fnmatch.fnmatch(path.as_posix(), pattern)
        ):
            return True
    return False


def _is_chart(folder: Path) -> bool:
    """A Helm chart: its ``templates/`` are YAML only once rendered, and are skipped."""
    return (folder / "Chart.yaml").is_file() or (folder / "Chart.yml").is_file()


def is_pack_file(path: Path, manifest_globs: tuple[str, ...] = ()) -> bool:
    """True for the files a directory scan checks: packs, manifests and Kubernetes
    manifests that carry packs, as ``core.recognize`` decides, and files named like
    packs that are something else (they get one line saying what they are).

    Anything named like a pack or a YAML/JSON file that is not a regular file (a
    FIFO, a device, a directory, a symbolic-link loop) also counts: it is never
    opened here, and reading it later fails with a message that says why.
    """
    named = kinds.kind_from_name(path.name) is not None
    if not named and not kinds.is_data_file(path.name):
        return False
    try:
        check_regular(path)
    except SourceError:
        return True
    except OSError:
        return named
    if named:
        return True
    try:
        size = path.stat().st_size
        if size > SNIFF_LIMIT:
            with path.open("rb") as handle:
                raw = handle.read(HEAD_LIMIT * 4)
            text = raw.decode("utf-8", errors="replace")[:HEAD_LIMIT]
            return recognize(str(path), text, manifest_globs, head_only=True).kind is not None
        raw = read_source(path, SNIFF_LIMIT)
        text = raw.decode("utf-8", errors="replace")
    except OSError:
        return False
    return recognize(str(path), text, manifest_globs).kind is not None


def is_virtualenv(folder: Path) -> bool:
    """Whether ``folder`` is a Python virtual environment, whatever its name (``env``,
    ``.tox/py311``, ``.nox/tests``): ``venv`` and virtualenv write a ``pyvenv.cfg``
    at its top. The packages installed there may ship packs of their own."""
    return os.path.isfile(os.path.join(folder, "pyvenv.cfg"))


def candidates(directory: Path, exclude: Iterable[str] = ()) -> Iterator[Path]:
    """The files below ``directory`` a directory scan looks at, sorted, skipping VCS and
    tool folders, Helm chart templates, virtual environments and what ``exclude``
    matches; nothing is opened (``is_pack_file`` tells which are packs)."""
    exclude = tuple(exclude)
    for folder, dirs, files in os.walk(directory):
        here = Path(folder)
        dirs[:] = sorted(
            d
            for d in dirs
            if d not in SKIP_DIRS
            and not _excluded(here / d, directory, exclude)
            and not (d == "templates" and _is_chart(here))
            and not is_virtualenv(here / d)
        )
        # A directory named like a pack is listed too: checking it then says that
        # it is a directory, instead of silently checking nothing.
        misnamed = [d for d in dirs if kinds.kind_from_name(d) is not None]
        for name in sorted([*files, *misnamed]):
            candidate = here / name
            if not _excluded(candidate, directory, exclude):
                yield candidate


def find_packs(
    directory: Path, exclude: Iterable[str] = (), manifest_globs: tuple[str, ...] = ()
) -> Iterator[Path]:
    """Pack files below ``directory``, sorted, skipping VCS and tool folders and
    virtual environments (``directory`` itself is searched whatever it is)."""
    for candidate in candidates(directory, exclude):
        if is_pack_file(candidate, manifest_globs):
            yield candidate
