"""``--baseline FILE`` and ``--write-baseline FILE`` for ``pack-lsp --check``.

The fingerprints and the file format are in ``core/ide/baseline.py``. With
``--write-baseline`` the run records every problem found and exits 0 (2 on a usage
or read problem); with ``--baseline`` (or ``baseline =`` in the configuration of
a checked file, relative to that configuration file, wherever the command runs) it
reports only the problems the file does not hold, and lists on stderr the entries
of the checked files that no longer occur.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from pack_lsp.core.model.config import Config, ConfigError
from pack_lsp.render.result import FileResult

if TYPE_CHECKING:
    from pack_lsp.cli.check import Overrides


def add_arguments(group: argparse._ArgumentGroup) -> None:
    group.add_argument(
        "--baseline",
        metavar="FILE",
        help="with --check: report only problems not recorded in FILE (written by "
        "--write-baseline), and list recorded ones that no longer occur; the "
        "configuration's `baseline = FILE` does the same",
    )
    group.add_argument(
        "--write-baseline",
        metavar="FILE",
        help="with --check: record every problem found in FILE and exit 0; later runs "
        "with --baseline FILE report only new ones",
    )


def apply(
    results: list[FileResult], problems: list[str], args: argparse.Namespace, file: str
) -> tuple[list[FileResult], int | None]:
    """Write the baseline (and say the run is done: its status) or filter ``results``
    by it (``None``: go on and report them)."""
    from pack_lsp.core.ide.baseline import (
        BaselineError,
        Entry,
        Matcher,
        dumps,
        entries,
        load,
        relative,
    )

    if args.write_baseline:
        target = Path(args.write_baseline)
        found: list[Entry] = []
        for r in results:
            found.extend(entries(r.path, r.diagnostics, r.lines, target.parent))
        for problem in dict.fromkeys(problems):
            print(f"pack-lsp: error: {problem}", file=sys.stderr)
        if problems:
            print("pack-lsp: the baseline was not written", file=sys.stderr)
            return results, 2
        try:
            target.write_text(dumps(found), encoding="utf-8")
        except OSError as exc:
            print(
                f"pack-lsp: error: {target}: cannot write: {exc.strerror or exc}", file=sys.stderr
            )
            return results, 2
        print(
            f"Wrote {len(found)} problem{'s' if len(found) != 1 else ''} to {target}",
            file=sys.stderr,
        )
        return results, 0
    source = Path(file)
    try:
        matcher = Matcher(load(source))
    except BaselineError as exc:
        problems.append(str(exc))
        return results, None
    kept: list[FileResult] = []
    folder = source.parent
    for r in results:
        new = matcher.new(r.path, r.diagnostics, r.lines, folder)
        diagnostics = tuple(d for d, is_new in zip(r.diagnostics, new, strict=True) if is_new)
        fixes = tuple(f for f, is_new in zip(r.fixes, new, strict=False) if is_new)
        kept.append(FileResult(r.path, diagnostics, r.lines, fixes))
    checked = {relative(r.path, folder) for r in results}
    gone = matcher.unmatched(checked)
    if gone:
        one = len(gone) == 1
        print(
            f"pack-lsp: {len(gone)} baseline entr{'y' if one else 'ies'} in {source} "
            f"no longer occur{'s' if one else ''} (--write-baseline {source} shrinks it):",
            file=sys.stderr,
        )
        for e in gone:
            print(f"  {e.path}: {e.code} {e.message}", file=sys.stderr)
    return kept, None


def config_of(path: str, configs: dict[str, Config], overrides: Overrides) -> Config | None:
    """The configuration of the checked file ``path``: the one it was checked with, or
    (the standard input, an arena project's files) the one found for it now; None
    when it cannot be read (the check has reported that)."""
    config = configs.get(path)
    if config is None:
        try:
            config = overrides.apply(overrides.config_for(Path(path)))
        except ConfigError:
            return None
        configs[path] = config
    return config


def apply_all(
    results: list[FileResult],
    problems: list[str],
    args: argparse.Namespace,
    configs: dict[str, Config],
    overrides: Overrides,
) -> tuple[list[FileResult], int | None]:
    """``apply`` with the baseline of each file: ``--baseline FILE`` for all of them,
    else the one its configuration names (relative to the configuration file), so
    that a configured baseline applies wherever the command runs. Files without one
    are reported in full; the output keeps the files' order."""
    from pack_lsp.core.ide.baseline import configured, outside_root

    if args.write_baseline or args.baseline:
        return apply(results, problems, args, args.baseline or "")
    groups: dict[str, list[int]] = {}
    for i, result in enumerate(results):
        config = config_of(result.path, configs, overrides)
        refused = outside_root(config)
        if refused is not None:
            # A baseline that leaves the project is not read (docs/reliability.md).
            if refused not in problems:
                problems.append(refused)
            continue
        file = configured(config)
        if file is not None:
            groups.setdefault(file, []).append(i)
    out = list(results)
    for file, indexes in groups.items():
        kept, _ = apply([results[i] for i in indexes], problems, args, file)
        for i, result in zip(indexes, kept, strict=True):
            out[i] = result
    return out, None
