"""``pack-lsp --check PATH...``: check files for CI."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pack_lsp.core import documents
from pack_lsp.core.analysis import analyze
from pack_lsp.core.config import Config, ConfigError, load_for
from pack_lsp.core.diagnostics import Severity
from pack_lsp.core.discover import find_packs
from pack_lsp.core.source import decode
from pack_lsp.render import FileResult, renderers


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("checking")
    group.add_argument(
        "--check",
        action="store_true",
        help="check the PromptPack files given as PATHs; directories are searched recursively",
    )
    group.add_argument("paths", nargs="*", metavar="PATH", help="files or directories")
    group.add_argument(
        "--format",
        default="text",
        choices=sorted(renderers()),
        help="output format (default: text)",
    )
    group.add_argument(
        "--strict", action="store_true", help="exit with status 1 on warnings too"
    )


def _collect(paths: list[str], errors: list[str]) -> list[tuple[Path, bool]]:
    """(file, named explicitly) for every file to check, in a stable order."""
    out: list[tuple[Path, bool]] = []
    seen: set[Path] = set()
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            try:
                config = load_for(path / "_")
            except ConfigError:
                config = Config()
            for found in find_packs(path, config.exclude):
                if found.resolve() not in seen:
                    seen.add(found.resolve())
                    out.append((found, False))
        elif path.is_file():
            if path.resolve() not in seen:
                seen.add(path.resolve())
                out.append((path, True))
        elif path.exists():
            errors.append(f"{raw}: not a regular file or directory")
        else:
            errors.append(f"{raw}: no such file or directory")
    return out


def check_file(path: Path, explicit: bool, config: Config) -> FileResult:
    raw = path.read_bytes()
    text, pre = decode(raw)
    kind = documents.detect(str(path), text) or (documents.PROMPTPACK if explicit else None)
    analysis = analyze(text, path=path, config=config, kind=kind, pre_diagnostics=pre)
    return FileResult(str(path), analysis.diagnostics, analysis.lines)


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int | None:
    if not args.check:
        return None
    if not args.paths:
        parser.error("--check needs at least one PATH")
    problems: list[str] = []
    results: list[FileResult] = []
    for path, explicit in _collect(args.paths, problems):
        try:
            config = load_for(path)
        except ConfigError as exc:
            problems.append(str(exc))
            continue
        try:
            results.append(check_file(path, explicit, config))
        except OSError as exc:
            problems.append(f"{path}: cannot read: {exc.strerror or exc}")
    output = renderers()[args.format](results)
    sys.stdout.write(output)
    sys.stdout.flush()
    for problem in problems:
        print(f"pack-lsp: error: {problem}", file=sys.stderr)
    if problems:
        return 2
    failing = {Severity.ERROR} | ({Severity.WARNING} if args.strict else set())
    if any(d.severity in failing for r in results for d in r.diagnostics):
        return 1
    return 0
