"""``pack-lsp --check PATH...``: check files for CI.

Exit status: 0 when no file has an error (or, with ``--strict``, a warning), 1 when
one has, 2 on a usage problem, an invalid configuration, a file that cannot be read or
a directory PATH in which nothing is found to check (unless ``--allow-empty`` or the
configured ``allow-empty``). ``-`` as a PATH reads the standard input;
``--stdin-filename`` names it for output, configuration lookup and kind detection.
``--select``, ``--ignore`` and ``--severity`` on the command line take precedence over
the configuration file, as do ``--profile`` and ``--spec-version``; ``--exclude`` adds
to its ``exclude``. ``--config FILE`` replaces the configuration files found beside the
checked files with FILE.

The text output is one line per problem (``--output-format concise``, the default when
the standard output is not a terminal) or each problem with its source lines, a caret
under its span and the fix it offers (``full``, the default on a terminal;
``render/full_format.py``). ``--statistics`` prints a count per code instead;
``--quiet`` leaves out the summary lines; ``--exit-zero`` exits 0 whatever the
problems found (2 still on a usage or read problem).
"""

from __future__ import annotations

import argparse
import copyreg
import gc
import os
import re
import sys
import time
import types
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from pack_lsp.cli.arena import has_configs
from pack_lsp.cli.arena import results as arena_results
from pack_lsp.core.base import codecache, kinds, versions
from pack_lsp.core.base.diagnostics import Severity
from pack_lsp.core.base.source import check_regular, decode, file_size_setting, read_source
from pack_lsp.core.checks.analysis import analyze
from pack_lsp.core.checks.registry import check_codes, unknown_selector
from pack_lsp.core.model.config import Config, ConfigError, load_for
from pack_lsp.core.model.discover import find_packs
from pack_lsp.core.model.recognize import recognize
from pack_lsp.render import FORMATS, FileResult, Summary, renderer, summarize

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

    from pack_lsp.core.model.manifest.workspace import ManifestIndex

STDIN = "-"


def _mapping_proxy(data: dict[Any, Any]) -> types.MappingProxyType[Any, Any]:
    return types.MappingProxyType(data)


def _reduce_mapping_proxy(
    proxy: types.MappingProxyType[Any, Any],
) -> tuple[Any, tuple[dict[Any, Any]]]:
    return _mapping_proxy, (dict(proxy),)


# Diagnostics keep their `data` read-only in a mapping proxy, which pickle refuses:
# results checked in a worker process travel back through pickle (see _check_all).
copyreg.pickle(types.MappingProxyType, _reduce_mapping_proxy)
STDIN_NAME = "<stdin>"
#: A file to check: its path, whether it was named explicitly, its configuration,
#: the manifests' workspace, and whether its fixes are wanted in the output.
Pending = tuple[Path, bool, Config, "ManifestIndex | None", bool]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("checking")
    group.add_argument(
        "--check",
        action="store_true",
        help="check the PromptPack files given as PATHs; directories are searched "
        "recursively; `-` reads the standard input",
    )
    group.add_argument("paths", nargs="*", metavar="PATH", help="files or directories")
    group.add_argument(
        "--format",
        default=None,
        help="output format; for --check: "
        + ", ".join(sorted(FORMATS))
        + " (default: text); each mode checks its own formats",
    )
    group.add_argument(
        "--output-format",
        default=None,
        metavar="FORMAT",
        help="with --check: full (each problem with its source lines and fix; the default "
        "on a terminal), concise (one line per problem; the default otherwise), or one of "
        "the --format names",
    )
    group.add_argument("--strict", action="store_true", help="exit with status 1 on warnings too")
    group.add_argument(
        "--exit-zero",
        action="store_true",
        help="with --check: exit 0 even when problems are found (2 still means a usage, "
        "configuration or read problem)",
    )
    group.add_argument(
        "--statistics",
        action="store_true",
        help="with --check: print the number of problems of each code instead of the problems",
    )
    group.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="with --check: print the problems only, without the summary lines on stderr",
    )
    group.add_argument(
        "--config",
        metavar="FILE",
        default=None,
        help="with --check: the configuration file to use for every checked file (a "
        ".pack-lsp.toml, or a pyproject.toml with [tool.pack-lsp]) instead of the ones "
        "found beside the files",
    )
    group.add_argument(
        "--select",
        action="append",
        metavar="CODES",
        default=[],
        help="report only these codes or code prefixes (comma-separated, e.g. PP2,PP301); "
        "replaces the configured select and ignore lists",
    )
    group.add_argument(
        "--ignore",
        action="append",
        metavar="CODES",
        default=[],
        help="do not report these codes or code prefixes (comma-separated); added to the "
        "configured ignore list",
    )
    group.add_argument(
        "--severity",
        action="append",
        metavar="CODE=LEVEL",
        default=[],
        help="report a code (or prefix) at this level: error, warning, information or hint; "
        "repeatable; wins over the configured levels of the codes it covers",
    )
    group.add_argument(
        "--exclude",
        action="append",
        metavar="GLOB",
        default=[],
        help="skip files and folders matching GLOB when searching directories (repeatable)",
    )
    group.add_argument(
        "--allow-empty",
        action="store_true",
        help="a directory PATH in which no pack file or manifest is found is not an error "
        "(by default it is: status 2, so that a wrong path does not pass unnoticed); "
        "the configuration's `allow-empty = true` does the same",
    )
    group.add_argument(
        "--spec-version",
        metavar="VERSION",
        default=None,
        help="check every pack against this PromptPack version (1.4.0, 1.7, latest), "
        "whatever its `$schema` declares; wins over the configured spec-version "
        "(default: the version in each pack's `$schema`, else the latest, "
        f"{versions.LATEST})",
    )
    group.add_argument(
        "--target",
        metavar="NAME",
        action="append",
        default=None,
        help="a runtime the packs are deployed to: omnia, promptpack-python, "
        "promptpack-langchainjs or promptkit (the promptkit profile); reports what it "
        "will refuse or misread (PT codes); repeatable; replaces the configured targets. "
        "With --render: render as that runtime does",
    )
    group.add_argument(
        "--stdin-filename",
        metavar="NAME",
        help="the file name of the text read from `-`: used in the output, to find the "
        "configuration and to recognise the kind of file",
    )
    from pack_lsp.cli import baseline, fix

    fix.add_arguments(group)
    baseline.add_arguments(group)


class UsageError(ValueError):
    """A command-line value that cannot be used."""


def _selectors(values: list[str], option: str) -> tuple[str, ...]:
    """Codes or prefixes from repeated, comma-separated values, each checked."""
    out: list[str] = []
    for value in values:
        for raw in re.split(r"[,\s]+", value):
            if not raw:
                continue
            problem = unknown_selector(raw)
            if problem is not None:
                raise UsageError(f"{option}: {problem}")
            out.append(raw.upper())
    if values and not out:
        raise UsageError(f"{option}: no codes given")
    return tuple(out)


def _severities(values: list[str]) -> dict[str, Severity]:
    out: dict[str, Severity] = {}
    for value in values:
        code, sep, level = value.partition("=")
        if not sep or not code.strip() or not level.strip():
            raise UsageError(f"--severity: expected CODE=LEVEL, got `{value}`")
        (selector,) = _selectors([code.strip()], "--severity")
        try:
            out[selector] = Severity.parse(level)
        except ValueError as exc:
            raise UsageError(f"--severity: {exc}") from None
    return out


def _targets(given: list[str] | None, profile: str | None) -> tuple[str, ...] | None:
    """The ``--target`` names, checked (UsageError for an unknown one, or for the
    ``promptkit`` target beside another ``--profile``)."""
    if not given:
        return None
    from pack_lsp.core.model.targets import PROMPTKIT, parse_target

    names = []
    for item in given:
        try:
            names.append(parse_target(item))
        except ValueError as exc:
            raise UsageError(f"--target: {exc}") from None
    pk = [n for n in names if n.partition("@")[0] == PROMPTKIT]
    if pk and profile is not None and profile.partition("@")[0] != PROMPTKIT:
        raise UsageError(
            f"--target {pk[0]} is the promptkit profile: it cannot go with --profile {profile}"
        )
    return tuple(names)


class Overrides:
    """Command-line settings applied over each file's configuration."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.select = _selectors(args.select, "--select") if args.select else None
        self.ignore = _selectors(args.ignore, "--ignore") if args.ignore else ()
        self.severity = _severities(args.severity)
        self.exclude = tuple(args.exclude)
        # --profile is shared with --card/--topology; with --check it selects the
        # schema and severities exactly as the configured `profile` does.
        self.profile: str | None = getattr(args, "profile", None)
        # --a2a-version is shared with --card; with --check it selects the A2A version
        # the card rules check against, as the configured `cards.a2a-version` does.
        self.a2a_version: str | None = getattr(args, "a2a_version", None)
        self.targets = _targets(getattr(args, "target", None), self.profile)
        self.spec_version: str | None = args.spec_version
        #: The configuration of ``--config FILE``, used for every file (None: found
        #: beside each file).
        self.forced: Config | None = None
        if getattr(args, "config", None) is not None:
            from pack_lsp.core.model.config import load_file

            try:
                self.forced = check_codes(load_file(Path(args.config)))
            except ConfigError as exc:
                raise UsageError(f"--config: {exc}") from None
        if self.spec_version is not None:
            try:
                versions.parse_setting(self.spec_version)
            except ValueError as exc:
                raise UsageError(f"--spec-version: {exc}") from None

    def config_for(self, path: Path) -> Config:
        """The configuration of the file at ``path`` (``--config``'s when given), its
        codes checked (``ConfigError``), the command line's settings not applied."""
        return self.forced if self.forced is not None else load_config(path)

    def apply(self, config: Config) -> Config:
        if self.forced is not None:
            config = self.forced  # `--config FILE` is every file's configuration
        data: dict[str, Any] = {}
        if self.select is not None:
            data["select"] = self.select
            data["ignore"] = self.ignore
        elif self.ignore:
            data["ignore"] = config.ignore + self.ignore
        if self.severity:
            # A command-line level covers the configured levels of the codes it names:
            # `--severity PP1=error` wins over a configured `PP101 = "hint"`.
            kept = {
                selector: level
                for selector, level in config.severity.items()
                if not any(selector.upper().startswith(s) or s == "ALL" for s in self.severity)
            }
            data["severity"] = {**kept, **self.severity}
        if self.exclude:
            data["exclude"] = config.exclude + self.exclude
        if self.profile is not None:
            data["profile"] = self.profile  # argparse checked it; may name a release
        if self.spec_version is not None:
            data["spec_version"] = self.spec_version
        if self.targets is not None:
            data["targets"] = self.targets  # `promptkit` also sets the profile
        if self.a2a_version is not None:
            cards = {
                k: v
                for k, v in config.cards.items()
                if k.replace("-", "_").lower() != "a2a_version"
            }
            data["cards"] = {**cards, "a2a_version": self.a2a_version}
        return config.merged(data) if data else config


def load_config(path: Path) -> Config:
    """The configuration of the file at ``path``, its codes checked (``ConfigError``)."""
    return check_codes(load_for(path))


def _identity(path: Path) -> Path:
    """The resolved path, or the absolute one for a symbolic-link loop (which
    ``resolve`` refuses with RuntimeError; reading it later reports the loop)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path.absolute()


def _collect(
    raw: str, errors: list[str], overrides: Overrides, seen: set[Path], allow_empty: bool
) -> list[tuple[Path, bool]]:
    """(file, named explicitly) for every file to check below the PATH ``raw``, in a
    stable order.

    ``seen`` (resolved paths already collected) is updated, so that a file reached
    twice is checked once. A directory in which the search finds nothing is a
    problem (see ``_nothing_found``) unless ``allow_empty`` or the directory's
    configured ``allow-empty`` says an empty result is fine.
    """
    out: list[tuple[Path, bool]] = []
    path = Path(raw)
    if path.is_dir() and kinds.kind_from_name(path.name) is not None:
        # `--check x.pack.json` on a directory: searching it would check nothing.
        errors.append(f"{raw}: a directory, not a pack file")
    elif path.is_dir():
        try:
            config = overrides.config_for(path / "_")
        except ConfigError as exc:
            errors.append(str(exc))
            config = Config()
        patterns = config.exclude + overrides.exclude
        found_files = list(find_packs(path, patterns, config.manifests))
        if not found_files and not (allow_empty or config.allow_empty or has_configs(path)):
            errors.append(_nothing_found(raw, path, patterns, config.manifests))
        for found in found_files:
            if _identity(found) not in seen:
                seen.add(_identity(found))
                out.append((found, False))
    elif path.is_file():
        if _identity(path) not in seen:
            seen.add(_identity(path))
            out.append((path, True))
    elif path.exists() or path.is_symlink():
        try:
            check_regular(path)
        except OSError as exc:
            errors.append(f"{raw}: {exc.strerror or exc}")
        else:  # pragma: no cover - is_file() said otherwise a moment ago
            errors.append(f"{raw}: not a regular file or directory")
    else:
        errors.append(f"{raw}: no such file or directory")
    return out


def _nothing_found(
    raw: str, path: Path, patterns: tuple[str, ...], manifest_globs: tuple[str, ...]
) -> str:
    """Why the directory ``raw`` gave no file to check: a wrong path in a CI job would
    otherwise pass, having checked nothing."""
    # Searched again only now, to tell an excluded pack from no pack at all.
    hidden = sum(1 for _ in find_packs(path, (), manifest_globs)) if patterns else 0
    if hidden:
        listed = ", ".join(f"`{p}`" for p in patterns)
        verb = "pattern {} leaves" if len(patterns) == 1 else "patterns {} leave"
        why = f"the exclude {verb.format(listed)} out the {_plural(hidden, 'file')} found"
    else:
        why = (
            "files are recognised by their name, such as *.promptpack.yaml, *.pack.json "
            "or manifest.yaml, or by their content; see the README"
        )
    return (
        f"{raw}: no PromptPack file or agent-extension manifest found ({why}); "
        "--allow-empty accepts an empty result"
    )


def check_text(
    raw: bytes,
    name: str,
    config: Config,
    *,
    explicit: bool = True,
    on_disk: bool = True,
    workspace: ManifestIndex | None = None,
    keep: list[Any] | None = None,
    fixes: bool = False,
) -> FileResult:
    """Analyse one file's bytes; ``name`` is how the file is shown and recognised.

    ``fixes``: the result carries each diagnostic's quick fixes as text edits (for
    the JSON and SARIF output, see ``cli/fix.py``).

    ``workspace`` holds the agent-extension manifests of the checked paths, in
    which a manifest's cross-file references are looked up. The analysis is kept
    in ``keep`` (replacing the one it held) when given (see ``_check_all``).
    """
    text, pre = decode(raw)
    recognition = recognize(name, text, config.manifests, explicit=explicit)
    kind = recognition.kind or (kinds.PROMPTPACK if explicit else None)
    analysis = analyze(
        text,
        path=name if on_disk else None,
        config=config,
        kind=kind,
        pre_diagnostics=pre,
        workspace=workspace,
        recognition=recognition,
    )
    if keep is not None:
        keep[:] = [analysis]  # the previous one is freed now, as it would have been
    if fixes:
        from pack_lsp.cli.fix import fix_texts

        return FileResult(name, analysis.diagnostics, analysis.lines, fix_texts(analysis, name))
    return FileResult(name, analysis.diagnostics, analysis.lines)


def _manifest_index(paths: list[Path], globs: tuple[str, ...]) -> ManifestIndex | None:
    """The index of the agent-extension manifests among ``paths``; None when every path
    is named as a pack (no manifest among them), so that checking packs loads nothing
    of manifests."""
    candidates = [path for path in paths if kinds.kind_from_name(str(path)) is None]
    if not candidates:
        return None
    from pack_lsp.core.model.manifest.files import index_files

    return index_files(candidates, globs)


def check_file(
    path: Path,
    explicit: bool,
    config: Config,
    workspace: ManifestIndex | None = None,
    fixes: bool = False,
    keep: list[Any] | None = None,
) -> FileResult:
    return check_text(
        read_source(path),
        str(path),
        config,
        explicit=explicit,
        workspace=workspace,
        keep=keep,
        fixes=fixes,
    )


def _check_stdin(
    name: str | None, overrides: Overrides, problems: list[str], fixes: bool = False
) -> FileResult | None:
    try:
        config = overrides.apply(overrides.config_for(Path(name or STDIN_NAME)))
    except ConfigError as exc:
        problems.append(str(exc))
        return None
    try:
        raw = sys.stdin.buffer.read()
    except (OSError, ValueError, AttributeError) as exc:
        problems.append(f"cannot read the standard input: {exc}")
        return None
    return check_text(raw, name or STDIN_NAME, config, on_disk=name is not None, fixes=fixes)


def _workers(files: int) -> int:
    """Processes to check ``files`` files with: one per usable core, at most one per file."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on every platform
        cores = os.cpu_count() or 1
    return max(1, min(cores, files))


def _check_all(
    slots: list[FileResult | Pending],
    problems: list[str],
    keep: list[Any] | None = None,
) -> list[FileResult]:
    """Check the pending files of ``slots``, in processes when there are several files
    and cores; results and read problems keep the order of ``slots`` either way, so
    the output is the same as checking one file after the other.

    ``keep`` holds the last analysis made in this process, so that it is not freed
    one object at a time (about 30 ms for a 70k-line pack) when the process is
    about to end anyway (``run``); only the last, so that checking many files does
    not hold them all. Worker processes keep nothing."""
    pending = [slot for slot in slots if isinstance(slot, tuple)]
    workers = _workers(len(pending))
    executor: ProcessPoolExecutor | None = None
    futures: dict[int, Future[FileResult]] = {}
    # An analysis leaves no reference cycles behind (reference counting frees it),
    # so the cyclic collector would only walk the results kept for the output: on a
    # large pack that walk costs 0.4-0.6 s. Paused while checking; in the program
    # (``keep`` given) each file's result is then frozen, out of the reach of later
    # collections (rendering). A caller in Python keeps its collector as it was:
    # freezing would put its own objects out of reach for good.
    collecting = gc.isenabled()
    gc.disable()
    shown = ProgressLine.on_terminal(len(pending))
    try:
        if workers > 1:
            # Imported only here: the process machinery costs a single-file check
            # tens of milliseconds of start-up.
            from concurrent.futures import ProcessPoolExecutor

            # Ctrl-C is held back while the workers start and take their files (a
            # worker that got it before ignoring it would die and break the pool; one
            # inside ``submit`` could leave the pool's lock held): it arrives, if it
            # came, once they run, and the parent alone answers it (``_stop``).
            held = _hold_interrupts(True)
            try:
                executor = ProcessPoolExecutor(workers, initializer=_leave_interrupts_to_parent)
                futures = {
                    i: executor.submit(check_file, *slot)
                    for i, slot in enumerate(slots)
                    if isinstance(slot, tuple)
                }
            finally:
                _hold_interrupts(False, held)
        results: list[FileResult] = []
        done = 0
        for i, slot in enumerate(slots):
            if not isinstance(slot, tuple):
                results.append(slot)
                continue
            path = slot[0]
            try:
                result = futures[i].result() if i in futures else check_file(*slot, keep=keep)
            except OSError as exc:
                problems.append(f"{path}: cannot read: {exc.strerror or exc}")
                continue
            finally:
                done += 1
                if shown is not None:
                    shown.update(done)
            results.append(result)
            if keep is not None:
                gc.freeze()
        return results
    except KeyboardInterrupt:
        if executor is not None:
            _stop(executor)
            executor = None
        raise
    finally:
        if shown is not None:
            shown.clear()
        if collecting:
            gc.enable()
        if executor is not None:
            executor.shutdown()


class ProgressLine:
    """``Checked 1,240 / 10,000 files`` on the standard error while a directory is
    checked, rewritten in place, on a terminal only: never in a pipe, a file or a CI
    log (``CI`` set), where it would be noise; cleared before the output is written."""

    #: Fewer files than this are checked too fast for a progress line to help.
    MIN_FILES = 20
    #: Least time (seconds) between two updates.
    EVERY = 0.1

    def __init__(self, total: int) -> None:
        self.total = total
        self.last = 0.0

    @classmethod
    def on_terminal(cls, total: int) -> ProgressLine | None:
        if total < cls.MIN_FILES or os.environ.get("CI") or os.environ.get("TERM") == "dumb":
            return None
        try:
            if not sys.stderr.isatty():
                return None
        except (AttributeError, ValueError, OSError):
            return None
        return cls(total)

    def update(self, done: int) -> None:
        now = time.monotonic()
        if now - self.last < self.EVERY and done < self.total:
            return
        self.last = now
        sys.stderr.write(f"\rChecked {done:,} / {self.total:,} files")
        sys.stderr.flush()

    def clear(self) -> None:
        if self.last:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()


def _hold_interrupts(hold: bool, held: bool = True) -> bool:
    """Block SIGINT in this thread (``hold``) or unblock it again when ``held`` says
    it was blocked here; whether it is now blocked here. Where signals cannot be
    blocked (Windows), nothing changes."""
    import signal

    if not hasattr(signal, "pthread_sigmask"):
        return False
    if hold:
        before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        return signal.SIGINT not in before
    if held:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    return False


def _leave_interrupts_to_parent() -> None:
    """In a worker process: Ctrl-C reaches the whole process group, and the parent
    alone answers it (``_stop``), so a worker does not print its own traceback. The
    worker starts with SIGINT blocked (``_hold_interrupts``): ignored first, then
    unblocked, one that came meanwhile is dropped."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _hold_interrupts(False)


def _stop(executor: ProcessPoolExecutor) -> None:
    """End the worker processes now, on an interrupt: their results are not wanted,
    and waiting for the files they are checking would delay the exit."""
    # The processes, read before ``shutdown`` forgets them (no public API lists them).
    processes = list((getattr(executor, "_processes", None) or {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.terminate()
    for process in processes:
        process.join(5)


def _cwd_config(overrides: Overrides) -> Config | None:
    """The configuration of the current directory (its ``manifests`` globs)."""
    try:
        return overrides.apply(overrides.config_for(Path.cwd() / "_"))
    except ConfigError:
        return None


def _plural(count: int, word: str, plural: str | None = None) -> str:
    return f"{count} {word if count == 1 else plural or word + 's'}"


def summary_line(s: Summary) -> str:
    """``Checked 3 files: 2 errors, 1 warning, 0 information, 0 hints``."""
    return (
        f"Checked {_plural(s.files, 'file')}: {_plural(s.errors, 'error')}, "
        f"{_plural(s.warnings, 'warning')}, {s.information} information, "
        f"{_plural(s.hints, 'hint')}"
    )


#: Options that only --check uses: given without it, they are a usage error.
CHECK_ONLY = (
    "fix",
    "unsafe_fixes",
    "diff",
    "baseline",
    "write_baseline",
    "strict",
    "allow_empty",
    "stdin_filename",
    "spec_version",
    "output_format",
    "exit_zero",
    "statistics",
    "quiet",
    "config",
)
#: The text styles of ``--output-format`` (``--format text`` chooses one itself).
TEXT_STYLES = ("full", "concise")


def _output(args: argparse.Namespace, parser: argparse.ArgumentParser) -> tuple[str, str]:
    """(format, text style) from ``--format`` and ``--output-format``; the style is
    ``full`` or ``concise`` for the text format, empty for the others."""
    chosen = args.output_format
    if chosen is not None and chosen not in (*TEXT_STYLES, *FORMATS):
        parser.error(
            f"argument --output-format: invalid choice: {chosen!r} (choose from "
            f"{', '.join((*TEXT_STYLES, *sorted(FORMATS)))})"
        )
    fmt = args.format
    if fmt is not None and fmt not in FORMATS:
        parser.error(
            f"argument --format: invalid choice: {fmt!r} (with --check, "
            f"choose from {', '.join(sorted(FORMATS))})"
        )
    if chosen in TEXT_STYLES:
        if fmt not in (None, "text"):
            parser.error(f"--output-format {chosen} is a text style: it goes with --format text")
        return "text", chosen
    if chosen is not None and fmt is not None and chosen != fmt:
        parser.error(f"--format {fmt} and --output-format {chosen} disagree: give one of them")
    fmt = chosen or fmt or "text"
    if fmt != "text":
        return fmt, ""
    from pack_lsp.render.style import on_terminal

    return fmt, "full" if on_terminal(sys.stdout) else "concise"


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int | None:
    if not args.check:
        for dest in CHECK_ONLY:
            if getattr(args, dest, None) not in (None, False):
                parser.error(f"--{dest.replace('_', '-')} is used with --check")
        return None
    if not args.paths:
        parser.error("--check needs at least one PATH (or `-` for the standard input)")
    if args.stdin_filename is not None and STDIN not in args.paths:
        parser.error("--stdin-filename is only used with `-` (the standard input) as a PATH")
    args.format, style = _output(args, parser)
    if args.statistics and args.format not in ("text", "json"):
        parser.error("--statistics prints text or JSON, not --format " + args.format)
    try:
        overrides = Overrides(args)
    except UsageError as exc:
        parser.error(str(exc))
    fixing = bool(args.fix or args.diff or args.unsafe_fixes)
    if fixing and STDIN in args.paths:
        parser.error("--fix and --diff rewrite files: `-` (the standard input) cannot be fixed")
    # Machine output (JSON, SARIF) carries each diagnostic's fixes as text edits, for a
    # coding agent or a review bot to apply; the text output carries them to say which
    # problems `--fix` fixes (and, in full, how). --quiet concise output needs none.
    with_fixes = args.format in ("json", "sarif") or (
        args.format == "text" and not (args.quiet and style == "concise")
    )
    size_problem = file_size_setting()[1]
    if size_problem is not None:
        print(f"pack-lsp: error: {size_problem}", file=sys.stderr)
        return 2
    problems: list[str] = []
    # In command-line order; a pending file is checked later, maybe in parallel.
    slots: list[FileResult | Pending] = []
    stdin_done = False
    seen: set[Path] = set()
    # One batch per PATH, in order: a PATH given twice has its files in the first.
    batches = [
        (raw, [] if raw == STDIN else _collect(raw, problems, overrides, seen, args.allow_empty))
        for raw in args.paths
    ]
    # The checked paths are the workspace of agent-extension manifests.
    cwd_config = _cwd_config(overrides)
    workspace = _manifest_index(
        [path for _, batch in batches for path, _ in batch],
        cwd_config.manifests if cwd_config is not None else (),
    )
    arena_done: set[str] = set()
    #: Each checked file's configuration, for its baseline.
    configs: dict[str, Config] = {}
    for raw, batch in batches:
        if raw != STDIN:
            # Arena projects (config.arena.yaml and the files it names) first: their
            # files are checked with the project's problems, and only there.
            slots.extend(
                arena_results(raw, overrides.apply, overrides.exclude, problems, arena_done)
            )
            if arena_done:
                from pack_lsp.core.model.arena.project import norm

                batch = [(p, e) for p, e in batch if norm(p) not in arena_done]
        if raw == STDIN:
            if not stdin_done:
                stdin_done = True
                result = _check_stdin(args.stdin_filename, overrides, problems, with_fixes)
                if result is not None:
                    slots.append(result)
            continue
        for path, explicit in batch:
            try:
                config = overrides.apply(overrides.config_for(path))
            except ConfigError as exc:
                problems.append(str(exc))
                continue
            configs[str(path)] = config
            slots.append((path, explicit, config, workspace, with_fixes))
    # Run as the `pack-lsp` program (see `pack_lsp.cli.main`), the process ends with
    # this check: its last analysis is kept, never freed, and the process exits at once.
    program = bool(getattr(args, "program", False))
    kept: list[Any] | None = [] if program else None
    if fixing:
        from pack_lsp.cli import fix

        results, outcome = fix.fix_all(slots, problems, args, check_text)
        if args.diff:
            return fix.diff_exit(outcome, problems)
    else:
        results = _check_all(slots, problems, kept)
    if args.write_baseline or args.baseline or _any_baseline(configs, results, overrides):
        from pack_lsp.cli import baseline

        results, done = baseline.apply_all(results, problems, args, configs, overrides)
        if done is not None:
            return done
    if args.statistics:
        from pack_lsp.render.statistics import render as statistics

        output = statistics(results, args.format)
    elif style == "full":
        from pack_lsp.render.full_format import render as full
        from pack_lsp.render.style import colour_wanted

        output = full(results, colour=colour_wanted(sys.stdout))
    else:
        output = renderer(args.format)(results)
    sys.stdout.write(output)
    sys.stdout.flush()
    # Each problem once: every file below a broken configuration file reports it.
    for problem in dict.fromkeys(problems):
        print(f"pack-lsp: error: {problem}", file=sys.stderr)
    if args.format == "text" and not args.quiet and (results or not problems):
        # On stderr: stdout keeps exactly one line per diagnostic for tools that parse it.
        print(summary_line(summarize(results)), file=sys.stderr)
        hint = fixable_line(results, fixed=fixing)
        if hint:
            print(hint, file=sys.stderr)
    code = _exit_code(results, problems, args.strict)
    if args.exit_zero and code == 1:
        code = 0
    if program:
        _end_process(code)
    return code


def fixable_line(results: list[FileResult], *, fixed: bool = False) -> str:
    """``2 fixable with `--fix` (1 more with `--unsafe-fixes`)``, or "" when nothing is;
    after ``--fix`` only the unsafe ones are left to mention."""
    from pack_lsp.render.result import fixable

    safe = unsafe = 0
    for result in results:
        counts = fixable(result)
        safe += counts[0]
        unsafe += counts[1]
    if fixed or not safe:
        if not unsafe:
            return ""
        return f"{_plural(unsafe, 'problem')} fixable with `--fix --unsafe-fixes`"
    more = f" ({unsafe} more with `--unsafe-fixes`)" if unsafe else ""
    return f"{_plural(safe, 'problem')} fixable with `--fix`{more}"


def _any_baseline(
    configs: dict[str, Config], results: list[FileResult], overrides: Overrides
) -> bool:
    """Whether a checked file's configuration names a baseline (only those checked
    outside ``configs``, the standard input and arena files, are looked up)."""
    from pack_lsp.cli.baseline import config_of

    for result in results:
        config = config_of(result.path, configs, overrides)
        if config is not None and config.baseline:
            return True
    return False


def _exit_code(results: list[FileResult], problems: list[str], strict: bool) -> int:
    if problems:
        return 2
    failing = {Severity.ERROR} | ({Severity.WARNING} if strict else set())
    if any(d.severity in failing for r in results for d in r.diagnostics):
        return 1
    return 0


def _end_process(code: int) -> NoReturn:
    """End the program now, its output written: what the interpreter would do next
    is freeing every object still alive one at a time (the analyses, the modules),
    which a large pack makes tens of milliseconds of an exit that needs none of it.
    The one exit handler that matters is run here: the generated code this process
    compiled is written for the next one (``core.base.codecache``); the process pool,
    when there was one, is already shut down."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        code = 120  # what the interpreter exits with when it cannot flush its output
    codecache.save_all()
    os._exit(code)
