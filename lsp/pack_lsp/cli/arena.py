"""Arena projects on the command line.

``pack-lsp --compile CONFIG`` prints the pack ``packc compile`` would make of the
arena project whose config is CONFIG (JSON, as packc writes it), and the project's
problems on the standard error; the exit status is 1 when one of them is an error.

``--check`` on a directory also checks the arena projects below it (configs named
``*.arena.yaml``): every file a project names is reported with its own problems,
those of the project's cross-file rules and those the pack rules find in the
compiled pack, each on the line of the file it comes from (``results``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from pack_lsp import __version__
from pack_lsp.core.base.diagnostics import Severity
from pack_lsp.core.checks.analysis import analyze
from pack_lsp.core.checks.registry import check_codes
from pack_lsp.core.model.config import Config, ConfigError, load_for
from pack_lsp.render import FileResult, renderer


def load_config(path: Path) -> Config:
    """The configuration of the file at ``path``, its codes checked (``ConfigError``)."""
    return check_codes(load_for(path))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("arena projects")
    group.add_argument(
        "--compile",
        metavar="CONFIG",
        default=None,
        help="print the pack `packc compile` would make of the arena project CONFIG "
        "(config.arena.yaml) as JSON; its problems go to the standard error",
    )


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int | None:
    if args.compile is None:
        return None
    if args.check:
        parser.error("--compile and --check are separate modes")
    path = Path(args.compile)
    try:
        config = load_config(path)
    except ConfigError as exc:
        print(f"pack-lsp: error: {exc}", file=sys.stderr)
        return 2
    from pack_lsp.core.model.arena.project import load_project

    project = load_project(path)
    if project is None:
        what = "cannot be read" if not path.is_file() else "is not an arena config (kind: Arena)"
        print(f"pack-lsp: error: {args.compile} {what}", file=sys.stderr)
        return 2
    from pack_lsp.core.checks.arena.check import check_project
    from pack_lsp.core.model.arena.compile import plain

    stamp = datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    checked = check_project(
        project, config, compiled_with=f"pack-lsp {__version__}", created_at=stamp
    )
    sys.stdout.write(json.dumps(plain(checked.compiled), indent=2, ensure_ascii=False) + "\n")
    results = []
    for file_path in project.paths():
        found = checked.diagnostics_for(file_path)
        if found:
            text = project.files[file_path].text
            analysis = analyze(text, path=file_path, config=config, pre_diagnostics=list(found))
            results.append(FileResult(_shown(file_path), analysis.diagnostics, analysis.lines))
    if results:
        sys.stderr.write(renderer("text")(results))
    failing = any(d.severity is Severity.ERROR for r in results for d in r.diagnostics)
    return 1 if failing else 0


def _shown(path: str) -> str:
    """A project file's path as the user would write it (relative when below here)."""
    rel = Path(path).relative_to(Path.cwd()) if Path(path).is_relative_to(Path.cwd()) else None
    return str(rel) if rel is not None else path


def _may_be_arena(path: Path) -> bool:
    """Whether a file may be an arena config (a YAML file that writes `Arena`): read
    before the project machinery is imported."""
    if path.suffix.lower() not in (".yaml", ".yml"):
        return False
    try:
        with path.open(encoding="utf-8", errors="replace") as fh:
            return "Arena" in fh.read(8192)
    except OSError:
        return False


def has_configs(directory: Path) -> bool:
    from pack_lsp.core.checks.arena.workspace import find_configs

    return next(find_configs(directory), None) is not None


def results(
    raw: str,
    apply: Callable[[Config], Config],
    exclude_more: tuple[str, ...],
    problems: list[str],
    done: set[str],
) -> list[FileResult]:
    """The files of the arena projects at or below the PATH ``raw`` (each file once
    over the whole run: ``done`` holds the files already reported). ``apply`` puts the
    command line's options over a file's configuration; ``exclude_more`` are the
    command line's ``--exclude`` patterns."""
    # The project machinery is imported only when there may be a project: checking
    # a pack named on the command line does not pay for it.
    path = Path(raw)
    directory = path.is_dir()
    if not directory and not (path.is_file() and _may_be_arena(path)):
        return []
    from pack_lsp.core.checks.arena.workspace import ArenaWorkspace, declares_arena, find_configs
    from pack_lsp.core.model.arena.project import norm

    if not directory and not declares_arena(path):
        return []  # an arena config is a `kind: Arena` document, whatever its name

    if directory:
        try:
            exclude = load_config(path / "_").exclude + exclude_more
        except ConfigError:
            exclude = exclude_more
        configs = list(find_configs(path, exclude))
    else:
        configs = [str(path)]
    workspace = ArenaWorkspace()
    settings: dict[str, Config] = {}
    for config_path in configs:
        try:
            config = apply(load_config(Path(config_path)))
        except ConfigError as exc:
            problems.append(str(exc))
            continue
        if workspace.add_config(config_path, config) is not None:
            settings[norm(config_path)] = config
    out = []
    for file_path in workspace.project_files():
        if file_path in done:
            continue
        owner = workspace.projects_of(file_path)[0].project.path
        file = next(
            (
                c.project.files[file_path]
                for c in workspace.projects_of(file_path)
                if file_path in c.project.files
            ),
            None,
        )
        if file is None:
            continue  # a missing file: its config reports it
        done.add(file_path)
        config = settings.get(owner, Config())
        analysis = analyze(
            file.text,
            path=file_path,
            config=config,
            pre_diagnostics=list(workspace.diagnostics_for(file_path)),
        )
        out.append(FileResult(_shown(file_path), analysis.diagnostics, analysis.lines))
    return out
