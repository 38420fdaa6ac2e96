#!/usr/bin/env python3
"""The pack-lsp performance benchmark: one command, writes docs/performance.md.

    .venv/bin/python bench/run.py            # full run (~5-10 min on 2 cores)
    .venv/bin/python bench/run.py --quick    # smoke run: the 1.5k pack only, few repetitions

It installs the tools it compares against (pinned), into git-ignored directories:

* ``check-jsonschema`` from PyPI into ``.tools/bench-venv`` (its own venv, so it keeps its
  own dependency versions and the project venv is untouched);
* ``yaml-language-server`` from npm into ``.tools/node``.

Then, on generated packs of ~1.5k, ~10k and ~70k lines (``bench/genpack.py``) and the
largest packs of the shared corpus (when ``../shared`` is present):

1. the language servers, each driven over stdio by the same client (``bench/lspclient.py``)
   with the same files, edits and positions: pack-lsp, and yaml-language-server with the
   official PromptPack JSON Schema associated to the files;
2. the CI check, whole process: ``pack-lsp --check`` against ``check-jsonschema`` with the
   same schema, medians of several runs, peak RSS.

See bench/README.md for what each number means.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import hashlib
import json
import os
import platform
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
sys.path.insert(0, str(BENCH_DIR))

import genpack  # noqa: E402
import mcp_warm  # noqa: E402
import reuse_mode  # noqa: E402
import workspace_scale  # noqa: E402
from lspclient import LspClient, LspError, kill_live, position  # noqa: E402
from run_check_bench import child_env, run_measured  # noqa: E402

OUT_DIR = BENCH_DIR / "out"
WORK_DIR = OUT_DIR / "perf"
TOOLS_DIR = REPO_ROOT / ".tools"
#: The reference material (``PACK_LSP_SHARED``, as for the tests; else ``../shared``).
SHARED = Path(os.environ.get("PACK_LSP_SHARED") or REPO_ROOT.parent / "shared")
OFFICIAL_SCHEMA = SHARED / "reference" / "promptpack" / "v1.9.0_promptpack.schema.json"
OUR_SCHEMA = REPO_ROOT / "schemas" / "promptpack.schema.json"
CORPUS = SHARED / "corpus"
DEFAULT_OUTPUT = REPO_ROOT / "docs" / "performance.md"

#: Pinned versions of the tools pack-lsp is compared with.
CHECK_JSONSCHEMA_VERSION = "0.39.0"
#: The newest release that runs on Node 20 (2.x requires Node >= 22.13).
YAML_LS_VERSION = "1.25.0"

SIZES = (1500, 10_000, 70_000)
#: A pack whose schema errors any validating server must report.
BROKEN_PACK = "name: broken\nprompts: 7\nunknown_key: true\n"


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def size_label(lines: int) -> str:
    return f"{lines / 1000:g}k" if lines >= 1000 else str(lines)


# ============================================================================ tools


def run_quiet(cmd: list[str], timeout: float, cwd: Path | None = None) -> str:
    proc = subprocess.run(
        cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{shlex.join(cmd)} failed:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    return proc.stdout


def ensure_check_jsonschema() -> Path:
    """``check-jsonschema`` pinned, in ``.tools/bench-venv``."""
    venv = TOOLS_DIR / "bench-venv"
    exe = venv / "bin" / "check-jsonschema"
    stamp = venv / "pinned.txt"
    if exe.exists() and stamp.exists() and stamp.read_text() == CHECK_JSONSCHEMA_VERSION:
        return exe
    log(f"installing check-jsonschema=={CHECK_JSONSCHEMA_VERSION} into {venv}")
    run_quiet([sys.executable, "-m", "venv", "--clear", str(venv)], 300)
    run_quiet(
        [
            str(venv / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "-q",
            f"check-jsonschema=={CHECK_JSONSCHEMA_VERSION}",
        ],
        600,
    )
    stamp.write_text(CHECK_JSONSCHEMA_VERSION)
    return exe


def ensure_yaml_ls() -> tuple[list[str] | None, str]:
    """argv for ``yaml-language-server --stdio`` (pinned, in ``.tools/node``), or a reason."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        return None, "node/npm not found: install Node.js (>= 18) to compare with it"
    prefix = TOOLS_DIR / "node"
    pkg = prefix / "node_modules" / "yaml-language-server"
    main = pkg / "bin" / "yaml-language-server"
    try:
        installed = json.loads((pkg / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        installed = None
    if installed != YAML_LS_VERSION:
        log(f"installing yaml-language-server@{YAML_LS_VERSION} into {prefix}")
        prefix.mkdir(parents=True, exist_ok=True)
        try:
            run_quiet(
                [
                    npm,
                    "install",
                    "--no-audit",
                    "--no-fund",
                    "--prefix",
                    str(prefix),
                    f"yaml-language-server@{YAML_LS_VERSION}",
                ],
                600,
            )
        except (RuntimeError, subprocess.TimeoutExpired) as exc:
            return None, f"npm install failed: {exc}"
    return [node, str(main), "--stdio"], ""


def tool_version(cmd: list[str]) -> str:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=False)
        return (out.stdout or out.stderr).strip().splitlines()[0]
    except (OSError, IndexError, subprocess.TimeoutExpired):
        return "unknown"


def git_commit() -> str:
    """`` (commit abc1234)`` of the working tree measured, ``+ changes`` when it is dirty."""
    try:
        head = run_quiet(["git", "rev-parse", "--short", "HEAD"], 30, REPO_ROOT).strip()
        dirty = run_quiet(["git", "status", "--porcelain", "--", "lsp"], 30, REPO_ROOT).strip()
    except (OSError, RuntimeError, subprocess.TimeoutExpired):
        return ""
    return f" (commit {head}{' + uncommitted changes in lsp/' if dirty else ''})"


def pack_lsp_cmd() -> list[str]:
    script = Path(sys.executable).parent / "pack-lsp"
    return [str(script)] if script.exists() else [sys.executable, "-m", "pack_lsp"]


# ============================================================================ packs


@dataclass
class Pack:
    label: str
    path: Path
    text: str
    origin: str

    @property
    def lines(self) -> int:
        return self.text.count("\n")

    @property
    def language_id(self) -> str:
        return "json" if self.path.suffix == ".json" else "yaml"


def generated_packs(sizes: list[int], seed: int) -> list[Pack]:
    """Generated packs, reused while ``genpack.py``, the size and the seed are unchanged."""
    WORK_DIR.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(Path(genpack.__file__).read_bytes()).hexdigest()[:16]
    packs = []
    for lines in sizes:
        path = WORK_DIR / f"pack-{size_label(lines)}.promptpack.yaml"
        stamp = path.with_suffix(".stamp")
        key = f"{digest} lines={lines} seed={seed}"
        if path.exists() and stamp.exists() and stamp.read_text().startswith(key + " "):
            text = path.read_text(encoding="utf-8")
            n_prompts = int(stamp.read_text().rsplit(" ", 1)[1])
        else:
            text, n_prompts = genpack.generate(lines, seed, False)
            path.write_text(text, encoding="utf-8")
            stamp.write_text(f"{key} {n_prompts}")
        packs.append(
            Pack(
                f"gen {size_label(lines)}",
                path,
                text,
                f"`genpack.py --lines {lines} --seed {seed}` ({n_prompts} prompts)",
            )
        )
    return packs


def corpus_packs(count: int) -> tuple[list[Pack], str]:
    """The ``count`` largest schema-valid packs of the shared corpus, copied to the work dir."""
    if not CORPUS.is_dir():
        return [], f"corpus packs skipped: {CORPUS} is absent"
    candidates = []
    for sub in ("valid", "v1.5plus"):
        for path in sorted((CORPUS / sub).glob("*")):
            if path.suffix not in (".yaml", ".yml", ".json") or path.name.startswith("xlang-inv"):
                continue
            if path.name == "SOURCES.json" or path.name.startswith("v1_9"):
                continue
            candidates.append(path)
    candidates.sort(key=lambda p: (-p.read_bytes().count(b"\n"), p.name))
    packs = []
    for src in candidates[:count]:
        stem = src.name.split(".")[0]
        dst = WORK_DIR / f"corpus-{stem}.promptpack{src.suffix}"
        text, origin = without_schema_key(src.read_text(encoding="utf-8"), src.suffix)
        dst.write_text(text, encoding="utf-8")
        packs.append(Pack(f"corpus {stem[:40]}", dst, text, f"`{src.relative_to(SHARED)}`{origin}"))
    return packs, ""


def without_schema_key(text: str, suffix: str) -> tuple[str, str]:
    """Drop a top-level ``$schema`` line, which would make yaml-language-server fetch that URL
    (it takes precedence over the ``yaml.schemas`` setting) instead of using the local copy."""
    stripped = re.sub(r'^[ \t]*"?\$schema"?[ \t]*:.*\n', "", text, count=1, flags=re.M)
    if stripped == text:
        return text, ""
    if suffix == ".json":
        try:
            json.loads(stripped)
        except ValueError:
            return text, " (its `$schema` could not be dropped)"
    return stripped, " without its `$schema` line"


# ============================================================================ positions


def _nearest(matches: list[int], target: int) -> int | None:
    return min(matches, key=lambda i: abs(i - target)) if matches else None


@dataclass
class Spots:
    """Offsets (code points) where the benchmark completes, hovers and edits."""

    tools: int | None
    template: int | None
    hover: int | None
    edit: int | None


def find_spots(text: str) -> Spots:
    """Positions near the middle of the prompts, found the same way in YAML and JSON."""
    start = max(text.find("prompts:"), text.find('"prompts"'), 0)
    middle = (start + len(text)) // 2
    tools = [m.end() for m in re.finditer(r"^[ \t]+\"?tools\"?:[ \t]*\[", text[start:], re.M)] or [
        m.end() for m in re.finditer(r"^[ \t]+tools:[ \t]*\n[ \t]*- ", text[start:], re.M)
    ]
    tools_at = _nearest([start + t for t in tools], middle)
    template = [m.end() for m in re.finditer(r"\{\{", text)]
    hover = [m.start() + 3 for m in re.finditer(r"\bsystem_template\b", text)]
    edit = [m.end() for m in re.finditer(r"^[ \t]+description: (?![|>\"'\s])", text, re.M)]
    edit += [m.end() for m in re.finditer(r"\"description\": \"", text)]
    return Spots(
        tools_at, _nearest(template, middle), _nearest(hover, middle), _nearest(edit, middle)
    )


# ============================================================================ LSP runs


@dataclass
class Server:
    name: str
    argv: list[str]
    settings: dict[str, Any]
    #: Whether its diagnostics carry the document version.
    versioned: bool


def server_specs(schema: Path, yls_argv: list[str] | None) -> list[Server]:
    specs = [Server("pack-lsp", [*pack_lsp_cmd()], {"packLsp": {}}, True)]
    if yls_argv is not None:
        yaml_settings = {
            "validate": True,
            "hover": True,
            "completion": True,
            "format": {"enable": False},
            "schemaStore": {"enable": False},
            "schemas": {schema.as_uri(): ["*.yaml", "*.json"]},
        }
        specs.append(
            Server(
                "yaml-language-server",
                yls_argv,
                {"yaml": yaml_settings, "http": {}, "[yaml]": {}, "[json]": {}, "editor": {}},
                False,
            )
        )
    return specs


CLIENT_CAPABILITIES = {
    "workspace": {
        "configuration": True,
        "didChangeConfiguration": {"dynamicRegistration": True},
        "workspaceFolders": True,
    },
    "textDocument": {
        "synchronization": {"dynamicRegistration": False},
        "publishDiagnostics": {"versionSupport": True, "relatedInformation": True},
        "completion": {
            "completionItem": {"snippetSupport": True, "documentationFormat": ["markdown"]}
        },
        "hover": {"contentFormat": ["markdown", "plaintext"]},
    },
}


@dataclass
class LspResult:
    server: str
    pack: str
    ok: bool = True
    error: str = ""
    open_s: float | None = None
    #: From starting the server process to the first diagnostics of the pack.
    start_s: float | None = None
    open_diags: int | None = None
    open_messages: list[str] = field(default_factory=list)
    broken_diags: int | None = None
    broken_messages: list[str] = field(default_factory=list)
    rss_open_kib: int | None = None
    rss_edits_kib: int | None = None
    hwm_kib: int | None = None
    completion_tools_s: float | None = None
    completion_tools_items: int | None = None
    completion_template_s: float | None = None
    completion_template_items: int | None = None
    hover_s: float | None = None
    hover_found: bool | None = None
    edits: list[float] = field(default_factory=list)
    edit_diags: int | None = None
    completion_after_edit: list[float] = field(default_factory=list)


def _items(result: Any) -> int:
    if isinstance(result, dict):
        return len(result.get("items", []))
    return len(result or [])


async def _timed(coro: Any) -> tuple[float, Any]:
    t0 = time.perf_counter()
    result = await coro
    return time.perf_counter() - t0, result


async def drive(server: Server, pack: Pack, args: argparse.Namespace) -> LspResult:
    """One fresh server process: broken-pack sanity check, open, requests, edits, RSS."""
    res = LspResult(server.name, pack.label)
    big = pack.lines > 20_000
    t_open = args.timeout * (4 if big else 1)
    t_req = args.timeout * (2 if big else 1)
    client = LspClient(
        server.argv,
        settings=server.settings,
        stderr_path=WORK_DIR / "logs" / f"{server.name}-{pack.path.stem}.stderr",
        cwd=WORK_DIR,
        env=child_env(),
    )
    t_spawn = time.perf_counter()
    await client.start()
    try:
        await client.initialize(
            {
                "processId": os.getpid(),
                "rootUri": WORK_DIR.as_uri(),
                "workspaceFolders": [{"uri": WORK_DIR.as_uri(), "name": "perf"}],
                "capabilities": CLIENT_CAPABILITIES,
            },
            args.timeout,
        )
        client.notify("workspace/didChangeConfiguration", {"settings": server.settings})
        deadline = time.perf_counter() + 10
        while client.config_requests == 0 and time.perf_counter() < deadline:
            await asyncio.sleep(0.02)  # polling a condition, bounded by the deadline

        # Open the pack first, right after initialize: the first thing a user sees.
        uri = pack.path.as_uri()
        text = pack.text
        t0 = time.perf_counter()
        mark = client.open(uri, text, pack.language_id)
        pub = await client.wait_diagnostics(uri, after=mark, version=1, timeout=t_open)
        res.open_s = pub.at - t0
        res.start_s = pub.at - t_spawn
        res.open_diags = len(pub.diagnostics)
        res.open_messages = [str(d.get("message", ""))[:100] for d in pub.diagnostics[:3]]
        if any("Unable to load schema" in str(d.get("message")) for d in pub.diagnostics):
            raise LspError("the schema was not loaded: " + "; ".join(res.open_messages))
        res.rss_open_kib, _ = client.rss_kib()

        # Sanity: the server validates (a pack with schema errors gets diagnostics).
        broken_uri = (WORK_DIR / "broken.promptpack.yaml").as_uri()
        mark = client.open(broken_uri, BROKEN_PACK)
        pub = await client.wait_diagnostics(
            broken_uri, after=mark, version=1, timeout=args.timeout, accept=lambda p: True
        )
        res.broken_diags = len(pub.diagnostics)
        res.broken_messages = [str(d.get("message", ""))[:90] for d in pub.diagnostics[:4]]
        client.notify("textDocument/didClose", {"textDocument": {"uri": broken_uri}})
        if res.broken_diags == 0:
            raise LspError("no diagnostics on a pack with schema errors: validation is off")

        spots = find_spots(text)
        doc = {"uri": uri}

        async def complete(at: int, current: str) -> tuple[float, Any]:
            return await _timed(
                client.request(
                    "textDocument/completion",
                    {"textDocument": doc, "position": position(current, at)},
                    t_req,
                )
            )

        reps = args.request_reps
        if spots.tools is not None:
            samples = [await complete(spots.tools, text) for _ in range(reps)]
            res.completion_tools_s = statistics.median(s for s, _ in samples)
            res.completion_tools_items = _items(samples[-1][1])
        if spots.template is not None:
            samples = [await complete(spots.template, text) for _ in range(reps)]
            res.completion_template_s = statistics.median(s for s, _ in samples)
            res.completion_template_items = _items(samples[-1][1])
        if spots.hover is not None:
            hov = [
                await _timed(
                    client.request(
                        "textDocument/hover",
                        {"textDocument": doc, "position": position(text, spots.hover)},
                        t_req,
                    )
                )
                for _ in range(reps)
            ]
            res.hover_s = statistics.median(s for s, _ in hov)
            res.hover_found = hov[-1][1] is not None

        # Edits inside one prompt: type "x" at the start of a description, then delete it.
        version = 1
        if spots.edit is not None:
            at = spots.edit
            for i in range(args.edits):
                version += 1
                start = position(text, at)
                if i % 2 == 0:
                    change = {"range": {"start": start, "end": start}, "text": "x"}
                    text = text[:at] + "x" + text[at:]
                else:
                    end = {"line": start["line"], "character": start["character"] + 1}
                    change = {"range": {"start": start, "end": end}, "text": ""}
                    text = text[:at] + text[at + 1 :]
                mark = client.mark()
                t0 = time.perf_counter()
                client.notify(
                    "textDocument/didChange",
                    {
                        "textDocument": {"uri": uri, "version": version},
                        "contentChanges": [change],
                    },
                )
                pub = await client.wait_diagnostics(
                    uri, after=mark, version=version, timeout=t_open
                )
                res.edits.append(pub.at - t0)
                res.edit_diags = len(pub.diagnostics)
                client.forget_diagnostics()

            # Completion sent right after an edit (before its diagnostics).
            target = spots.tools if spots.tools is not None else spots.template
            for i in range(args.after_edit_rounds):
                if target is None:
                    break
                version += 1
                start = position(text, at)
                if i % 2 == 0:
                    change = {"range": {"start": start, "end": start}, "text": "x"}
                    text = text[:at] + "x" + text[at:]
                    shifted = target + (1 if target >= at else 0)
                else:
                    end = {"line": start["line"], "character": start["character"] + 1}
                    change = {"range": {"start": start, "end": end}, "text": ""}
                    text = text[:at] + text[at + 1 :]
                    shifted = target
                mark = client.mark()
                client.notify(
                    "textDocument/didChange",
                    {
                        "textDocument": {"uri": uri, "version": version},
                        "contentChanges": [change],
                    },
                )
                secs, _ = await complete(shifted, text)
                res.completion_after_edit.append(secs)
                await client.wait_diagnostics(uri, after=mark, version=version, timeout=t_open)
                client.forget_diagnostics()
        res.rss_edits_kib, res.hwm_kib = client.rss_kib()
    except (LspError, OSError) as exc:
        res.ok = False
        res.error = str(exc)
        log(f"{server.name} on {pack.label}: {exc}")
    finally:
        await client.close()
    return res


# ============================================================================ --check


@dataclass
class CheckResult:
    pack: str
    tool: str
    walls: list[float] = field(default_factory=list)
    rss_kib: list[int] = field(default_factory=list)
    codes: list[int] = field(default_factory=list)
    first_output: str = ""

    @property
    def median(self) -> float:
        return statistics.median(self.walls)

    @property
    def peak_mib(self) -> float:
        return max(self.rss_kib) / 1024


def run_checks(
    pack: Pack, schema: Path, cjs: Path, reps: int, warmup: int
) -> tuple[CheckResult, CheckResult]:
    """Interleaved runs (A, B, A, B, ...) so both tools see the same machine load."""
    ours = CheckResult(pack.label, "pack-lsp")
    theirs = CheckResult(pack.label, "check-jsonschema")
    cmds = [
        (ours, [*pack_lsp_cmd(), "--check", str(pack.path), "--format", "json"]),
        (theirs, [str(cjs), "--schemafile", str(schema), str(pack.path)]),
    ]
    for i in range(warmup + reps):
        for res, cmd in cmds:
            sample, out, err = run_measured(cmd, WORK_DIR)
            if i < warmup:
                res.first_output = (out + err).strip()[:600]
                res.codes.append(sample.returncode)
                continue
            res.walls.append(sample.wall)
            res.rss_kib.append(sample.maxrss_kib)
    return ours, theirs


# ============================================================================ report


def ms(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    return f"{seconds * 1000:,.0f} ms" if seconds >= 0.0995 else f"{seconds * 1000:.1f} ms"


def mib(kib: int | None) -> str:
    return "—" if kib is None else f"{kib / 1024:,.0f} MiB"


def ratio(a: float | None, b: float | None) -> str:
    if a is None or b is None or b == 0:
        return "—"
    return f"**{a / b:.2f}×**"


def pct(samples: list[float], q: float) -> float | None:
    if not samples:
        return None
    s = sorted(samples)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))]


def machine_facts() -> list[str]:
    try:
        cpu = next(
            ln.split(":", 1)[1].strip()
            for ln in Path("/proc/cpuinfo").read_text().splitlines()
            if ln.startswith("model name")
        )
    except (OSError, StopIteration):
        cpu = platform.processor() or "unknown"
    try:
        mem_kib = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f"{mem_kib / 1024 / 1024:.1f} GiB RAM"
    except (OSError, ValueError, IndexError):
        mem = "RAM unknown"
    usable = len(os.sched_getaffinity(0))
    return [f"{cpu}, {os.cpu_count()} cores ({usable} usable), {mem}; {platform.platform()}"]


def pack_lsp_debounce() -> str:
    """How long pack-lsp waits after a change before analysing, as the code says."""
    try:
        from pack_lsp.server import scheduling, settings
    except Exception:
        return "pack-lsp: unknown"
    cheap = getattr(scheduling, "CHEAP_ANALYSIS", None)
    longest = getattr(settings, "CHANGE_DELAY", None)
    if isinstance(cheap, int | float) and isinstance(longest, int | float):
        return (
            f"pack-lsp none after an analysis under {cheap * 1000:.0f} ms or for an edit on "
            f"its own, within a burst of edits as long as the last analysis took, at most "
            f"{longest * 1000:.0f} ms"
        )
    return "pack-lsp: its own scheduling"


def goals_section(
    packs: list[Pack],
    lsp: dict[tuple[str, str], LspResult],
    checks: dict[str, tuple[CheckResult, CheckResult]],
    servers: list[str],
    mcp: mcp_warm.McpResult | None = None,
    scale: workspace_scale.Result | None = None,
) -> str:
    """The targets of the speed work, each with this run's measured value."""
    yls = "yaml-language-server"
    rows: list[tuple[str, str, str, bool | None]] = []

    def add(what: str, goal: str, value: float | None, limit: float, unit: str = "×") -> None:
        shown = (
            "—" if value is None else f"{value:.2f}{unit}" if unit == "×" else f"{value:.0f}{unit}"
        )
        rows.append((what, goal, shown, None if value is None else value <= limit))

    for p in packs:
        if not p.label.startswith("gen "):
            continue
        a, b = lsp.get(("pack-lsp", p.label)), lsp.get((yls, p.label))
        if a is not None and b is not None and a.ok and b.ok and yls in servers:
            a50, b50 = pct(a.edits, 0.5), pct(b.edits, 0.5)
            add(
                f"edit → diagnostics p50, {p.label}",
                "≤ 0.15× yaml-ls",
                a50 / b50 if a50 and b50 else None,
                0.15,
            )
            comp = [
                (x, y)
                for x, y in (
                    (a.completion_tools_s, b.completion_tools_s),
                    (a.completion_template_s, b.completion_template_s),
                    (
                        statistics.median(a.completion_after_edit)
                        if a.completion_after_edit
                        else None,
                        statistics.median(b.completion_after_edit)
                        if b.completion_after_edit
                        else None,
                    ),
                )
                if x is not None and y
            ]
            worst = max((x / y for x, y in comp), default=None)
            add(f"completion (worst of the three), {p.label}", "≤ 0.1× yaml-ls", worst, 0.1)
            if a.open_s and b.open_s:
                add(f"open → diagnostics, {p.label}", "≤ 0.5× yaml-ls", a.open_s / b.open_s, 0.5)
            if a.start_s and b.start_s:
                add(
                    f"server start → diagnostics, {p.label}",
                    "≤ 0.5× yaml-ls",
                    a.start_s / b.start_s,
                    0.5,
                )
        if p.label in checks:
            c_a, c_b = checks[p.label]
            limit = {"gen 1.5k": 0.25, "gen 70k": 0.1}.get(p.label)
            if limit is not None:
                add(
                    f"cold `--check`, {p.label}",
                    f"≤ {limit:g}× check-jsonschema",
                    c_a.median / c_b.median,
                    limit,
                )
        if p.label == "gen 70k" and a is not None and a.ok:
            for name, kib in (("after open", a.rss_open_kib), ("after the edits", a.rss_edits_kib)):
                if kib is not None:
                    add(f"server RSS {name}, {p.label}", "≤ 150 MB", kib * 1024 / 1e6, 150, " MB")
    if mcp is not None and mcp.ratio is not None:
        add("first MCP `check` / a later one (gen 1.5k)", "≤ 2×", mcp.ratio, 2)
    if scale is not None and scale.symbol_s:
        add(
            f"workspace/symbol at {scale.files:,} files, indexed",
            "≤ 100 ms",
            statistics.median(scale.symbol_s) * 1000,
            100,
            " ms",
        )
    out = ["## Goals of the speed work, as measured here\n"]
    out.append("| what | goal | measured | met |")
    out.append("|---|---|---|---|")
    for what, goal, shown, met in rows:
        out.append(
            f"| {what} | {goal} | {shown} | {'—' if met is None else '✅' if met else '❌'} |"
        )
    return "\n".join(out) + "\n"


def build_report(
    *,
    cmdline: str,
    started: dt.datetime,
    elapsed: float,
    load_start: tuple[float, float, float],
    load_end: tuple[float, float, float],
    versions: dict[str, str],
    schema_note: str,
    packs: list[Pack],
    notes: list[str],
    lsp: dict[tuple[str, str], LspResult],
    checks: dict[str, tuple[CheckResult, CheckResult]],
    args: argparse.Namespace,
    servers: list[str],
    mcp: mcp_warm.McpResult | None = None,
    scale: workspace_scale.Result | None = None,
) -> str:
    out: list[str] = []
    w = out.append
    w("# Performance\n")
    w(
        "Generated by `bench/run.py` (see `bench/README.md`); do not edit by hand. "
        "Measured with incremental analysis in the server, adaptive scheduling and the "
        "faster cold check in place; the baseline measured before that work (code at commit "
        "24bbe25) is in this file's git history.\n"
    )
    w(
        "Ratios are pack-lsp / other tool, taken from the same run: below 1 means pack-lsp "
        "is faster or smaller. The machine is shared, so absolute times are indicative; "
        "compare ratios.\n"
    )
    w(f"- command: `{cmdline}`")
    w(f"- date: {started:%Y-%m-%d %H:%M} UTC; run took {elapsed / 60:.1f} min")
    w(f"- machine: {machine_facts()[0]}")
    w(
        "- load average (1/5/15 min) at start: "
        f"{load_start[0]:.2f} / {load_start[1]:.2f} / {load_start[2]:.2f}; at end: "
        f"{load_end[0]:.2f} / {load_end[1]:.2f} / {load_end[2]:.2f}"
    )
    w("- versions: " + "; ".join(f"{k} {v}" for k, v in versions.items()))
    w(f"- schema for yaml-language-server and check-jsonschema: {schema_note}")
    w(
        f"- LSP: {args.edits} edits per pack (p50/p95), requests repeated {args.request_reps}× "
        f"(median), {args.after_edit_rounds} completions right after an edit; "
        f"`--check`: {args.check_warmup} warm-up + {args.check_reps} timed runs per tool, "
        "interleaved"
    )
    for note in notes:
        w(f"- note: {note}")
    w("")

    w(goals_section(packs, lsp, checks, servers, mcp, scale))

    w("## Packs\n")
    w("| pack | lines | KiB | source |")
    w("|---|---|---|---|")
    for p in packs:
        w(f"| {p.label} | {p.lines:,} | {len(p.text.encode()) / 1024:,.0f} | {p.origin} |")
    w("")

    def r(server: str, pack: Pack) -> LspResult | None:
        return lsp.get((server, pack.label))

    yls = "yaml-language-server"
    have_yls = yls in servers
    w("## Editor: pack-lsp vs yaml-language-server over stdio\n")
    w(
        "Both servers are driven by the same client (`bench/lspclient.py`), one fresh "
        "process per pack, with the same file, edits and positions. *Edit → diagnostics* is "
        "the time from sending `didChange` (one character typed into, or deleted from, a "
        "`description` in a prompt near the middle of the file) to the "
        "`publishDiagnostics` for that version; it includes each server's wait after a change "
        f"({pack_lsp_debounce()}, yaml-language-server 200 ms). *Completion after an edit* "
        "is sent "
        "right after a `didChange`, before its diagnostics. RSS is the server process's "
        "VmRSS.\n"
    )
    if not have_yls:
        w("yaml-language-server was not run (see the notes above).\n")
    w(
        "| pack | lines | edit → diag p50 (pack-lsp / yaml-ls) | ratio | p95 (pack-lsp / yaml-ls)"
        " | open → diag | ratio | start → diag | ratio"
        " | completion, tools list | ratio | completion, template | ratio"
        " | hover | ratio | completion after an edit | ratio |"
    )
    w("|---" * 18 + "|")
    for p in packs:
        a, b = r("pack-lsp", p), r(yls, p)
        if a is None:
            continue
        b = b if b is not None and b.ok else None

        def pair(x: float | None, y: float | None) -> str:
            return f"{ms(x)} / {ms(y)}" if have_yls else ms(x)

        a50, b50 = pct(a.edits, 0.5), pct(b.edits, 0.5) if b else None
        a95, b95 = pct(a.edits, 0.95), pct(b.edits, 0.95) if b else None
        aae = statistics.median(a.completion_after_edit) if a.completion_after_edit else None
        bae = statistics.median(b.completion_after_edit) if b and b.completion_after_edit else None
        cells = [
            p.label,
            f"{p.lines:,}",
            pair(a50, b50),
            ratio(a50, b50),
            pair(a95, b95),
            pair(a.open_s, b.open_s if b else None),
            ratio(a.open_s, b.open_s if b else None),
            pair(a.start_s, b.start_s if b else None),
            ratio(a.start_s, b.start_s if b else None),
            pair(a.completion_tools_s, b.completion_tools_s if b else None),
            ratio(a.completion_tools_s, b.completion_tools_s if b else None),
            pair(a.completion_template_s, b.completion_template_s if b else None),
            ratio(a.completion_template_s, b.completion_template_s if b else None),
            pair(a.hover_s, b.hover_s if b else None),
            ratio(a.hover_s, b.hover_s if b else None),
            pair(aae, bae),
            ratio(aae, bae),
        ]
        w("| " + " | ".join(cells) + " |")
    w("")

    w("### Memory (server RSS)\n")
    w(
        "| pack | pack-lsp after open | after the edits | peak (VmHWM) | yaml-ls after open "
        "| after the edits | peak | ratio after open | ratio after the edits |"
    )
    w("|---" * 9 + "|")
    for p in packs:
        a, b = r("pack-lsp", p), r(yls, p)
        if a is None:
            continue
        b = b if b is not None and b.ok else None
        w(
            f"| {p.label} | {mib(a.rss_open_kib)} | {mib(a.rss_edits_kib)} | {mib(a.hwm_kib)} "
            f"| {mib(b.rss_open_kib) if b else '—'} | {mib(b.rss_edits_kib) if b else '—'} "
            f"| {mib(b.hwm_kib) if b else '—'} "
            f"| {ratio(a.rss_open_kib, b.rss_open_kib) if b else '—'} "
            f"| {ratio(a.rss_edits_kib, b.rss_edits_kib) if b else '—'} |"
        )
    w("")

    w("### Edit latency against pack size\n")
    w(
        "The goal is a nearly flat curve: an edit should cost what the edited prompt costs, "
        "not what the file costs. *Growth* is the p50 at this size divided by the p50 on "
        "the smallest generated pack.\n"
    )
    gen = [p for p in packs if p.label.startswith("gen ")]
    base = {
        s: pct(rr.edits, 0.5) for s in servers if gen and (rr := r(s, gen[0])) is not None and rr.ok
    }
    w("| pack | lines | " + " | ".join(f"{s} p50 | growth" for s in servers) + " | |")
    w("|---|---|" + "---|---|" * len(servers) + "---|")
    top = max(
        (pct(rr.edits, 0.5) or 0.0 for p in gen for s in servers if (rr := r(s, p)) is not None),
        default=0.0,
    )
    for p in gen:
        cells = [p.label, f"{p.lines:,}"]
        bars = []
        for s in servers:
            rr = r(s, p)
            v = pct(rr.edits, 0.5) if rr is not None and rr.ok else None
            b0 = base.get(s)
            cells += [ms(v), f"{v / b0:.1f}×" if v is not None and b0 else "—"]
            if v is not None and top > 0:
                bars.append(f"{s[:7]} `{'█' * max(1, round(30 * v / top))}`")
        cells.append("<br>".join(bars))
        w("| " + " | ".join(cells) + " |")
    w("")

    w("### Sanity\n")
    w(
        "Each server first gets a small pack with schema errors (`BROKEN_PACK` in "
        "`bench/run.py`) and must report them, otherwise its numbers would be for a "
        "server that does not validate. Then the diagnostics on the measured packs (the "
        "generated packs are schema-valid and free of errors, but every `banned_words` "
        "validator they hold carries `fail_on_violation`, deprecated since PromptPack "
        "1.7.0, so pack-lsp reports one PP111 warning for each of those and nothing else, "
        "while yaml-language-server, which does not flag deprecated properties, reports 0; "
        "corpus packs may have real findings).\n"
    )
    w(
        "| server | pack | broken pack: diagnostics | pack: diagnostics after open "
        "| after the edits | error |"
    )
    w("|---|---|---|---|---|---|")
    for (s, label), rr in lsp.items():
        first = "; ".join(rr.broken_messages[:2]).replace("|", "\\|")
        msgs = "; ".join(rr.open_messages[:2]).replace("|", "\\|")
        w(
            f"| {s} | {label} | {rr.broken_diags if rr.broken_diags is not None else '—'}"
            f"{f' ({first})' if first else ''} "
            f"| {rr.open_diags if rr.open_diags is not None else '—'}"
            f"{f' ({msgs})' if msgs else ''} "
            f"| {rr.edit_diags if rr.edit_diags is not None else '—'} | {rr.error or ''} |"
        )
    w("")

    if mcp is not None:
        w("## Agents: the first MCP `check` call\n")
        w(
            "`bench/mcp_warm.py`: a fresh `pack-lsp mcp` per round, driven by the MCP SDK's "
            "client; `check` of the gen 1.5k pack 1 s after `initialize` (an agent starts its "
            "MCP servers with its session), then 5 more calls; medians over the rounds. "
            "There is no other tool to compare with: the goal is the first call within 2× a "
            "later one.\n"
        )
        w(mcp_warm.report(mcp))
    if scale is not None:
        w("## Workspace scale\n")
        w(
            "`bench/workspace_scale.py`: a fresh `pack-lsp` whose root holds the YAML files "
            "below (one in ten a small pack, the others plain configuration files), with a "
            "client that accepts work-done progress; the gen 1.5k pack is opened right after "
            "`initialize`, while the workspace is scanned; then `workspace/symbol` queries "
            "once the scan is over. yaml-language-server has no symbols across files to "
            "compare with.\n"
        )
        w(workspace_scale.report(scale))
    w("## CI: `pack-lsp --check` vs check-jsonschema\n")
    w(
        "Whole process, as a CI job pays it: `pack-lsp --check FILE --format json` against "
        "`check-jsonschema --schemafile SCHEMA FILE`, runs interleaved, median wall time "
        "and the highest peak RSS (`ru_maxrss` of the child). Note that check-jsonschema "
        "checks the schema only; pack-lsp runs its schema and every semantic rule.\n"
    )
    if not checks:
        w("Not run.\n")
    else:
        w(
            "| pack | lines | pack-lsp wall | check-jsonschema wall | **wall ratio** | goal "
            "| pack-lsp peak RSS | check-jsonschema peak RSS | RSS ratio | exit codes |"
        )
        w("|---" * 10 + "|")
        goals = {"gen 1.5k": "≤ 0.25×", "gen 70k": "≤ 0.1×"}
        for p in packs:
            if p.label not in checks:
                continue
            a, b = checks[p.label]
            w(
                f"| {p.label} | {p.lines:,} | {ms(a.median)} | {ms(b.median)} "
                f"| {ratio(a.median, b.median)} | {goals.get(p.label, '—')} "
                f"| {a.peak_mib:,.0f} MiB | {b.peak_mib:,.0f} MiB "
                f"| {ratio(a.peak_mib, b.peak_mib)} | {a.codes[0] if a.codes else '—'} / "
                f"{b.codes[0] if b.codes else '—'} |"
            )
        w("\n<details><summary>individual runs (ms)</summary>\n")
        for label, (a, b) in checks.items():
            w(f"- {label} pack-lsp: {[round(x * 1000) for x in a.walls]}")
            w(f"- {label} check-jsonschema: {[round(x * 1000) for x in b.walls]}")
        w("\n</details>\n")
    w("<details><summary>individual edit latencies (ms)</summary>\n")
    for (s, label), rr in lsp.items():
        w(f"- {s}, {label}: {[round(x * 1000) for x in rr.edits]}")
    w("\n</details>")
    return "\n".join(out) + "\n"


# ============================================================================ main


def measure_all(
    packs: list[Pack],
    servers: list[Server],
    args: argparse.Namespace,
    cjs: Path | None,
    schema: Path,
    lsp: dict[tuple[str, str], LspResult],
    checks: dict[str, tuple[CheckResult, CheckResult]],
) -> bool:
    """Every measurement, pack by pack; True when one of them failed."""
    failed = False
    for pack in packs:
        for server in servers:
            log(f"LSP {server.name} on {pack.label}")
            try:
                res = asyncio.run(drive(server, pack, args))
            except Exception as exc:  # report, keep going with the next measurement
                traceback.print_exc()
                res = LspResult(server.name, pack.label, ok=False, error=repr(exc))
            lsp[(server.name, pack.label)] = res
            if not res.ok:
                failed = True
        if cjs is not None:
            log(f"--check on {pack.label}")
            checks[pack.label] = run_checks(pack, schema, cjs, args.check_reps, args.check_warmup)
    return failed


def main(argv: list[str] | None = None) -> int:
    reuse_mode.not_verifying()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--quick", action="store_true", help="smoke run: 1.5k pack, few repetitions")
    ap.add_argument(
        "--sizes", help="comma-separated generated pack sizes (default 1500,10000,70000)"
    )
    ap.add_argument("--corpus", type=int, default=2, help="largest corpus packs to add (default 2)")
    ap.add_argument("--edits", type=int, help="edits per pack (default 20; quick 4)")
    ap.add_argument("--request-reps", type=int, help="repetitions per request (default 5)")
    ap.add_argument("--after-edit-rounds", type=int, help="completions after an edit (default 4)")
    ap.add_argument("--check-reps", type=int, help="timed --check runs per tool (default 3)")
    ap.add_argument("--check-warmup", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=60.0, help="base timeout per wait (s)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-yaml-ls", action="store_true", help="skip yaml-language-server")
    ap.add_argument("--no-check", action="store_true", help="skip the --check comparison")
    ap.add_argument("--no-mcp", action="store_true", help="skip the first MCP check call")
    ap.add_argument(
        "--workspace-files",
        type=int,
        help="YAML files of the workspace-scale run (default 10000; quick 2000; 0 skips it)",
    )
    ap.add_argument(
        "--work-dir", type=Path, help="where packs and logs go (default bench/out/perf)"
    )
    ap.add_argument(
        "--output",
        type=Path,
        help="report path (default docs/performance.md; --quick: bench/out/performance-quick.md)",
    )
    args = ap.parse_args(argv)
    quick = args.quick
    sizes = (
        [int(s) for s in args.sizes.split(",")] if args.sizes else [1500] if quick else list(SIZES)
    )
    args.edits = args.edits or (4 if quick else 20)
    args.request_reps = args.request_reps or (2 if quick else 5)
    args.after_edit_rounds = (
        args.after_edit_rounds if args.after_edit_rounds is not None else (2 if quick else 4)
    )
    args.check_reps = args.check_reps or (1 if quick else 3)
    if args.workspace_files is None:
        args.workspace_files = 2000 if quick else 10_000
    if quick:
        args.corpus = min(args.corpus, 1)
        args.check_warmup = min(args.check_warmup, 1)
    output: Path = args.output or (OUT_DIR / "performance-quick.md" if quick else DEFAULT_OUTPUT)

    global WORK_DIR
    if args.work_dir is not None:
        WORK_DIR = args.work_dir.resolve()
    started = dt.datetime.now(dt.UTC)
    t_start = time.perf_counter()
    load_start = os.getloadavg()
    cmdline = shlex.join(["python", "bench/run.py", *(argv if argv is not None else sys.argv[1:])])
    WORK_DIR.mkdir(parents=True, exist_ok=True)
    notes: list[str] = []
    if load_start[0] > 0.5 * len(os.sched_getaffinity(0)):
        notes.append(
            f"the machine was busy at the start (load {load_start[0]:.2f} on "
            f"{len(os.sched_getaffinity(0))} cores): timings are indicative"
        )

    # Schema (a local copy, so no server needs the network).
    schema_dir = WORK_DIR / "schema"
    schema_dir.mkdir(exist_ok=True)
    if OFFICIAL_SCHEMA.is_file():
        schema = schema_dir / "promptpack-v1.9.0.schema.json"
        shutil.copyfile(OFFICIAL_SCHEMA, schema)
        schema_note = "the official PromptPack v1.9.0 JSON Schema (a local copy)"
    else:
        schema = schema_dir / "promptpack.schema.json"
        shutil.copyfile(OUR_SCHEMA, schema)
        schema_note = "`schemas/promptpack.schema.json` (../shared is absent)"
        notes.append("../shared is absent: the comparison uses the project's own schema")

    # Tools.
    cjs: Path | None = None
    if not args.no_check:
        try:
            cjs = ensure_check_jsonschema()
        except (RuntimeError, subprocess.TimeoutExpired) as exc:
            notes.append(f"check-jsonschema could not be installed ({exc}); --check not compared")
    yls_argv: list[str] | None = None
    if not args.no_yaml_ls:
        yls_argv, why = ensure_yaml_ls()
        if yls_argv is None:
            notes.append(f"yaml-language-server skipped: {why}")
    versions = {
        "pack-lsp": tool_version([*pack_lsp_cmd(), "--version"]).removeprefix("pack-lsp ")
        + git_commit(),
        "python": platform.python_version(),
    }
    if cjs is not None:
        versions["check-jsonschema"] = CHECK_JSONSCHEMA_VERSION
    if yls_argv is not None:
        versions["yaml-language-server"] = YAML_LS_VERSION
        versions["node"] = tool_version([yls_argv[0], "--version"])

    # Packs.
    packs = generated_packs(sizes, args.seed)
    if args.corpus > 0:
        extra, why = corpus_packs(args.corpus)
        packs += extra
        if why:
            notes.append(why)
    log("packs: " + ", ".join(f"{p.label} ({p.lines:,} lines)" for p in packs))

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    servers = server_specs(schema, yls_argv)
    lsp: dict[tuple[str, str], LspResult] = {}
    checks: dict[str, tuple[CheckResult, CheckResult]] = {}
    failed = False
    mcp: mcp_warm.McpResult | None = None
    scale: workspace_scale.Result | None = None
    try:
        failed = measure_all(packs, servers, args, cjs, schema, lsp, checks)
        if not args.no_mcp:
            log("MCP: first check call")
            mcp = mcp_warm.run(2 if quick else 3, 5, 1500)
        if args.workspace_files:
            log(f"workspace of {args.workspace_files:,} files")
            scale = workspace_scale.run(args.workspace_files, 5 if quick else 10)
            failed = failed or bool(scale.error)
    finally:
        kill_live()
    dump = WORK_DIR / "results.json"
    dump.write_text(
        json.dumps(
            {
                "lsp": [vars(r) for r in lsp.values()],
                "check": [[vars(a), vars(b)] for a, b in checks.values()],
            },
            indent=1,
        )
    )

    report = build_report(
        cmdline=cmdline,
        started=started,
        elapsed=time.perf_counter() - t_start,
        load_start=load_start,
        load_end=os.getloadavg(),
        versions=versions,
        schema_note=schema_note,
        packs=packs,
        notes=notes,
        lsp=lsp,
        checks=checks,
        args=args,
        servers=[s.name for s in servers],
        mcp=mcp,
        scale=scale,
    )
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(report, encoding="utf-8")
    print(report)
    log(f"wrote {output}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
