#!/usr/bin/env python3
"""Benchmark ``pack-lsp --check`` against ``check-jsonschema``.

Run with the project venv's python::

    .venv/bin/python bench/run_check_bench.py [--reps 5] [--mode cli|in-process|all]

It generates three PromptPack YAML packs (~1.5k, ~10k, ~70k lines) into
``bench/out/`` with ``bench/genpack.py`` and then

* ``--mode cli`` (default): runs each tool as a subprocess N times per pack and
  reports the median wall time, the peak RSS and the ratios pack-lsp /
  check-jsonschema;
* ``--mode in-process`` (or ``--in-process``): imports ``pack_lsp.core`` and
  times ``analyze()`` alone (parse + schema + rules) per pack, with the per-stage
  breakdown if the core exposes one (``Analysis.timings``);
* ``--mode all``: both.

The report is printed and written to ``bench/results.md`` (``--results`` to
change, ``--no-results`` to skip).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
OUT_DIR = BENCH_DIR / "out"
SCHEMA = REPO_ROOT / "schemas" / "promptpack.schema.json"
SIZES = (1500, 10_000, 70_000)
# Goals for the wall-time ratio pack-lsp / check-jsonschema, by target line count.
GOALS = {1500: 0.25, 70_000: 0.10}
TIME_BIN = "/usr/bin/time"
PYCACHE = OUT_DIR / "pycache"


def child_env() -> dict[str, str]:
    """Environment for every measured child process.

    Bytecode caching is switched on, with the caches under ``bench/out/pycache``
    (``PYTHONPYCACHEPREFIX``), so after the warm-up run neither tool pays for
    compiling its modules. Without this, an inherited ``PYTHONDONTWRITEBYTECODE=1``
    makes an editable pack-lsp install (no .pyc files) recompile every module on
    every run, while check-jsonschema uses the .pyc files pip wrote at install.
    """
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
    return env


sys.path.insert(0, str(BENCH_DIR))
import genpack  # noqa: E402

# --------------------------------------------------------------------------- helpers


def size_label(lines: int) -> str:
    return f"{lines / 1000:g}k" if lines >= 1000 else str(lines)


def venv_tool(name: str) -> Path:
    """A console script installed next to the running interpreter (not resolved)."""
    return Path(sys.executable).parent / name


def mib(kib: float) -> float:
    return kib / 1024.0


@dataclass
class Sample:
    wall: float
    maxrss_kib: int
    returncode: int


@dataclass
class ToolResult:
    name: str
    samples: list[Sample] = field(default_factory=list)
    note: str = ""

    @property
    def median_wall(self) -> float:
        return statistics.median(s.wall for s in self.samples)

    @property
    def min_wall(self) -> float:
        return min(s.wall for s in self.samples)

    @property
    def peak_rss_mib(self) -> float:
        return mib(max(s.maxrss_kib for s in self.samples))


def run_measured(cmd: list[str], cwd: Path) -> tuple[Sample, str, str]:
    """Run ``cmd``; return its wall time, peak RSS (KiB), exit code, stdout, stderr.

    Peak RSS comes from ``/usr/bin/time -f %M`` when available, else from the
    child's own rusage via ``os.wait4``. Either way it is the child's ru_maxrss,
    not the benchmark process's.
    """
    with tempfile.TemporaryDirectory(prefix="packbench-") as tmp:
        out_path, err_path = Path(tmp, "stdout"), Path(tmp, "stderr")
        with out_path.open("wb") as out, err_path.open("wb") as err:
            if os.access(TIME_BIN, os.X_OK):
                rss_path = Path(tmp, "rss")
                full = [TIME_BIN, "-f", "%M", "-o", str(rss_path), *cmd]
                t0 = time.perf_counter()
                proc = subprocess.run(
                    full,
                    cwd=cwd,
                    stdout=out,
                    stderr=err,
                    stdin=subprocess.DEVNULL,
                    check=False,
                    env=child_env(),
                )
                wall = time.perf_counter() - t0
                rc = proc.returncode
                lines = [ln for ln in rss_path.read_text().splitlines() if ln.strip()]
                try:
                    rss = int(lines[-1])
                except (IndexError, ValueError):
                    rss = 0
            else:
                t0 = time.perf_counter()
                popen = subprocess.Popen(
                    cmd, cwd=cwd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=child_env()
                )
                _, status, usage = os.wait4(popen.pid, 0)
                wall = time.perf_counter() - t0
                rc = os.waitstatus_to_exitcode(status)
                popen.returncode = rc
                rss = int(usage.ru_maxrss)  # KiB on Linux
        stdout = out_path.read_text(encoding="utf-8", errors="replace")
        stderr = err_path.read_text(encoding="utf-8", errors="replace")
    return Sample(wall, rss, rc), stdout, stderr


def ensure_packs(sizes: list[int], seed: int, as_json: bool, regen: bool) -> list[Path]:
    """Generate the packs (reusing a previous file when the generator is unchanged)."""
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    stamp_src = Path(genpack.__file__).read_bytes()
    import hashlib

    digest = hashlib.sha256(stamp_src).hexdigest()[:16]
    paths = []
    ext = "json" if as_json else "yaml"
    for lines in sizes:
        path = OUT_DIR / f"pack-{size_label(lines)}.{ext}"
        stamp = path.with_suffix(path.suffix + ".stamp")
        key = f"{digest} lines={lines} seed={seed}"
        if regen or not path.exists() or not stamp.exists() or stamp.read_text() != key:
            t0 = time.perf_counter()
            text, n_prompts = genpack.generate(lines, seed, as_json)
            path.write_text(text, encoding="utf-8")
            stamp.write_text(key)
            print(
                f"generated {path.relative_to(REPO_ROOT)}: {text.count(chr(10))} lines, "
                f"{n_prompts} prompts ({time.perf_counter() - t0:.1f}s)",
                file=sys.stderr,
            )
        paths.append(path)
    return paths


def file_stats(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    return data.count(b"\n"), len(data)


# --------------------------------------------------------------------------- machine info

PROBE = r"""
import json, importlib.util
info = {}
try:
    import ruamel.yaml as ry
    info["ruamel"] = ry.__version__
    y = ry.YAML(typ="safe")
    info["safe_parser"] = y.Parser.__module__ + "." + y.Parser.__name__
except Exception as e:
    info["ruamel"] = f"unavailable ({e})"
try:
    from ruamel.yaml.cyaml import CParser
    info["cparser"] = CParser.__module__
except Exception as e:
    info["cparser"] = None
    info["cparser_error"] = str(e)
for mod in ("jsonschema", "check_jsonschema", "pack_lsp"):
    try:
        m = __import__(mod)
        from importlib.metadata import version
        dist = {"check_jsonschema": "check-jsonschema", "pack_lsp": "pack-lsp"}.get(mod, mod)
        info[mod] = version(dist)
    except Exception:
        info[mod] = None
try:
    src = open(importlib.util.find_spec("pack_lsp.core.syntax.yamltree.events").origin).read()
    info["pack_lsp_uses_cparser"] = "CParser" in src
except Exception:
    info["pack_lsp_uses_cparser"] = None
print(json.dumps(info))
"""


def machine_info() -> dict[str, Any]:
    info: dict[str, Any] = {
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "platform": platform.platform(),
        "cores": os.cpu_count(),
    }
    try:
        info["cores_usable"] = len(os.sched_getaffinity(0))
    except AttributeError:
        info["cores_usable"] = info["cores"]
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                info["memory"] = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
                break
    except OSError:
        pass
    try:
        out = subprocess.run(
            [sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, cwd=REPO_ROOT
        ).stdout
        info.update(json.loads(out))
    except (subprocess.CalledProcessError, json.JSONDecodeError) as exc:
        info["probe_error"] = str(exc)
    return info


def describe_yaml(info: dict[str, Any]) -> str:
    cp = info.get("cparser")
    safe = info.get("safe_parser", "?")
    c_avail = f"yes (`{cp}`)" if cp else "no"
    pl = info.get("pack_lsp_uses_cparser")
    pl_txt = {
        True: "C parser (libyaml events via `ruamel.yaml.cyaml.CParser`)",
        False: "pure-Python ruamel",
        None: "unknown",
    }[pl]
    if pl and not cp:
        pl_txt += " - but the C extension is NOT importable"
    cj_txt = (
        "C parser" if "CParser" in safe or "cyaml" in safe else "pure-Python parser"
    ) + f" (`YAML(typ='safe').Parser` = `{safe}`)"
    return (
        f"ruamel.yaml {info.get('ruamel')}; C extension importable: {c_avail}; "
        f"pack-lsp uses: {pl_txt}; check-jsonschema uses: {cj_txt}"
    )


# --------------------------------------------------------------------------- CLI mode


def bench_cli(
    packs: list[Path], sizes: list[int], reps: int, warmup: int, schema: Path
) -> tuple[list[str], bool]:
    pack_lsp = venv_tool("pack-lsp")
    cjs = venv_tool("check-jsonschema")
    tools = {
        "pack-lsp": lambda f: [str(pack_lsp), "--check", str(f), "--format", "json"],
        "check-jsonschema": lambda f: [str(cjs), "--schemafile", str(schema), str(f)],
    }
    failed = False
    rows: list[str] = []
    header = (
        "| pack | lines | KiB | pack-lsp wall (median) | check-jsonschema wall (median) "
        "| **wall ratio** | goal | pack-lsp peak RSS | check-jsonschema peak RSS "
        "| **RSS ratio** | pack-lsp diagnostics |"
    )
    rows += [header, _sep(header)]
    details: list[str] = []
    for path, target in zip(packs, sizes, strict=True):
        n_lines, n_bytes = file_stats(path)
        results = {name: ToolResult(name) for name in tools}
        diag_summary = "?"
        for name, make_cmd in tools.items():
            cmd = make_cmd(path)
            for i in range(warmup + reps):
                sample, out, err = run_measured(cmd, REPO_ROOT)
                bad = _judge(name, sample.returncode)
                if bad:
                    failed = True
                    results[name].note = f"exit {sample.returncode}: {err.strip()[-300:]}"
                    print(f"FAIL {name} on {path.name}: {results[name].note}", file=sys.stderr)
                if name == "pack-lsp" and i == 0:
                    diag_summary = _diag_summary(out)
                if name == "check-jsonschema" and sample.returncode == 1 and i == 0:
                    print(
                        f"warning: check-jsonschema reports {path.name} invalid:\n"
                        f"{out.strip()[-800:]}",
                        file=sys.stderr,
                    )
                if i >= warmup:
                    results[name].samples.append(sample)
            r = results[name]
            print(
                f"  {path.name:16} {name:17} median {r.median_wall * 1000:8.1f} ms  "
                f"min {r.min_wall * 1000:8.1f} ms  peak RSS {r.peak_rss_mib:6.1f} MiB",
                file=sys.stderr,
            )
        pl, cj = results["pack-lsp"], results["check-jsonschema"]
        wall_ratio = pl.median_wall / cj.median_wall
        rss_ratio = pl.peak_rss_mib / cj.peak_rss_mib if cj.peak_rss_mib else float("nan")
        goal = GOALS.get(target)
        goal_txt = f"≤{goal:g}× {'✅' if wall_ratio <= goal else '❌'}" if goal else "—"
        rows.append(
            f"| {path.name} | {n_lines:,} | {n_bytes / 1024:,.0f} "
            f"| {pl.median_wall * 1000:,.0f} ms | {cj.median_wall * 1000:,.0f} ms "
            f"| **{wall_ratio:.2f}×** | {goal_txt} "
            f"| {pl.peak_rss_mib:.1f} MiB | {cj.peak_rss_mib:.1f} MiB "
            f"| **{rss_ratio:.2f}×** | {diag_summary} |"
        )
        for r in (pl, cj):
            walls = ", ".join(f"{s.wall * 1000:.0f}" for s in r.samples)
            details.append(
                f"- {path.name} {r.name}: wall ms [{walls}]" + (f" — {r.note}" if r.note else "")
            )
        details.append(
            f"- {path.name} wall ratio of the fastest runs: {pl.min_wall / cj.min_wall:.2f}×"
        )
    out = [*rows, "", "<details><summary>individual runs</summary>", "", *details, "", "</details>"]
    return out, failed


def _sep(header: str) -> str:
    return "|" + "---|" * (header.count("|") - 1)


def _judge(tool: str, rc: int) -> bool:
    """True if this exit code is a benchmark failure."""
    if tool == "pack-lsp":
        return rc not in (0, 1)  # 1 = diagnostics found; 2 = usage/IO error; <0 = signal
    return rc not in (0, 1)  # check-jsonschema: 1 = validation errors (warned about)


def _diag_summary(stdout: str) -> str:
    try:
        s = json.loads(stdout)["summary"]
    except (ValueError, KeyError, TypeError):
        return "?"
    parts = [f"{s.get(k, 0)} {k[0]}" for k in ("errors", "warnings", "information", "hints")]
    return (
        "none"
        if all(s.get(k, 0) == 0 for k in ("errors", "warnings", "information", "hints"))
        else ", ".join(parts)
    )


# --------------------------------------------------------------------------- in-process

IMPORT_PROBE = (
    "import time; t = time.perf_counter(); import pack_lsp.core; print(time.perf_counter() - t)"
)
STARTUP_PROBE = "pass"


def import_breakdown(runs: int = 3) -> list[str]:
    """Where ``import pack_lsp.core`` spends its time (``python -X importtime``).

    Lists each pack_lsp module with its own and cumulative import time, and the
    dependencies each one pulls in directly when they cost >= 5 ms; medians of
    ``runs`` fresh processes (import times are noisy: read them as rough shares).
    """
    per_run: list[dict[tuple[str, str], tuple[float, float]]] = []
    for _ in range(runs):
        proc = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", "import pack_lsp.core"],
            capture_output=True,
            text=True,
            cwd=REPO_ROOT,
            check=False,
            env=child_env(),
        )
        rows: list[tuple[int, int, int, str]] = []
        for line in proc.stderr.splitlines():
            if not line.startswith("import time:") or "self [us]" in line:
                continue
            _, self_us, cum_us, name = (part for part in line.replace(":", "|", 1).split("|"))
            depth = (len(name) - len(name.lstrip(" "))) // 2
            rows.append((int(self_us), int(cum_us), depth, name.strip()))
        found: dict[tuple[str, str], tuple[float, float]] = {}
        parents: dict[int, str] = {}
        for self_us, cum_us, depth, name in reversed(rows):  # parents come first
            parents[depth] = name
            parent = parents.get(depth - 1, "")
            if name.startswith("pack_lsp"):
                found[(name, "")] = (self_us / 1000, cum_us / 1000)
            elif parent.startswith("pack_lsp") and cum_us >= 5000:
                found[(name, parent)] = (self_us / 1000, cum_us / 1000)
        per_run.append(found)
    keys = [k for k in per_run[0] if all(k in r for r in per_run)]
    out = ["| module (imported by) | self | cumulative |", "|---|---|---|"]
    for name, parent in sorted(keys, key=lambda k: -statistics.median(r[k][1] for r in per_run)):
        self_ms = statistics.median(r[(name, parent)][0] for r in per_run)
        cum_ms = statistics.median(r[(name, parent)][1] for r in per_run)
        if cum_ms < 5 and not parent:
            continue
        label = f"`{name}`" + (f" (by `{parent}`)" if parent else "")
        out.append(f"| {label} | {self_ms:.0f} ms | {cum_ms:.0f} ms |")
    return out


def bench_in_process(packs: list[Path], reps: int) -> list[str]:
    # Cost of a bare interpreter and of importing the core, each in a fresh process
    # (after one untimed run of each, so the bytecode caches are written).
    for probe in ([sys.executable, "-c", IMPORT_PROBE], [str(venv_tool("pack-lsp")), "--version"]):
        run_measured(probe, REPO_ROOT)
    startup = statistics.median(
        run_measured([sys.executable, "-c", STARTUP_PROBE], REPO_ROOT)[0].wall for _ in range(5)
    )
    imports = []
    for _ in range(5):
        sample, out, _err = run_measured([sys.executable, "-c", IMPORT_PROBE], REPO_ROOT)
        if sample.returncode == 0:
            imports.append(float(out.strip()))
    import_s = statistics.median(imports) if imports else float("nan")
    cli_startup = statistics.median(
        run_measured([str(venv_tool("pack-lsp")), "--version"], REPO_ROOT)[0].wall for _ in range(5)
    )

    t0 = time.perf_counter()
    from pack_lsp import core  # imported here so CLI mode works without it

    import_here = time.perf_counter() - t0
    lines = [
        f"- bare `python -c pass`: {startup * 1000:.0f} ms; "
        f"`import pack_lsp.core` in a fresh process: {import_s * 1000:.0f} ms "
        f"(in this process: {import_here * 1000:.0f} ms); "
        f"`pack-lsp --version` end to end: {cli_startup * 1000:.0f} ms",
        "",
    ]
    stage_names: list[str] = []
    per_pack: list[tuple[Path, float, list[float], list[dict[str, float]], int]] = []
    for path in packs:
        text = path.read_text(encoding="utf-8")
        walls: list[float] = []
        stages: list[dict[str, float]] = []
        first = 0.0
        n_diags = 0
        for i in range(reps + 1):
            t0 = time.perf_counter()
            analysis = core.analyze(text, path=path)
            wall = time.perf_counter() - t0
            timings = dict(getattr(analysis, "timings", None) or {})
            if i == 0:
                first = wall  # includes one-time work such as compiling the schema
                n_diags = len(analysis.diagnostics)
            else:
                walls.append(wall)
                stages.append(timings)
            for k in timings:
                if k not in stage_names:
                    stage_names.append(k)
        per_pack.append((path, first, walls, stages, n_diags))
        print(
            f"  {path.name:16} analyze() first {first * 1000:8.1f} ms, "
            f"median {statistics.median(walls) * 1000:8.1f} ms",
            file=sys.stderr,
        )

    head = ["pack", "lines", "first analyze()", f"median analyze() (n={reps})"]
    head += [f"{s}" for s in stage_names] + ["unaccounted", "diagnostics"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for path, first, walls, stages, n_diags in per_pack:
        med = statistics.median(walls)
        cells = [
            path.name,
            f"{file_stats(path)[0]:,}",
            f"{first * 1000:,.0f} ms",
            f"{med * 1000:,.0f} ms",
        ]
        accounted = 0.0
        for s in stage_names:
            vals = [st[s] for st in stages if s in st]
            if vals:
                v = statistics.median(vals)
                accounted += v
                cells.append(f"{v * 1000:,.0f} ms ({v / med:.0%})")
            else:
                cells.append("—")
        cells.append(f"{max(med - accounted, 0) * 1000:,.0f} ms" if stage_names else "—")
        cells.append(str(n_diags))
        out.append("| " + " | ".join(cells) + " |")
    if not stage_names:
        out.append("")
        out.append("(`analyze()` exposes no per-stage timings.)")
    out += [
        "",
        "### Import cost of `pack_lsp.core` (`python -X importtime`, median of 3; "
        "modules under 5 ms left out)",
        "",
        *import_breakdown(),
    ]
    return lines + out


# --------------------------------------------------------------------------- main


def _loadavg() -> str:
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except OSError:
        return "?"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=5, help="timed repetitions per tool and pack")
    ap.add_argument(
        "--warmup",
        type=int,
        default=1,
        help="untimed runs first (default and minimum 1: the first run also "
        "writes the bytecode caches)",
    )
    ap.add_argument("--mode", choices=("cli", "in-process", "all"), default="cli")
    ap.add_argument(
        "--in-process",
        dest="mode",
        action="store_const",
        const="in-process",
        help="same as --mode in-process",
    )
    ap.add_argument(
        "--sizes",
        default=",".join(map(str, SIZES)),
        help="comma-separated target line counts (default 1500,10000,70000)",
    )
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true", help="benchmark JSON packs instead of YAML")
    ap.add_argument("--regen", action="store_true", help="regenerate the packs")
    ap.add_argument(
        "--schema",
        type=Path,
        default=SCHEMA,
        help="schema for check-jsonschema (default schemas/promptpack.schema.json)",
    )
    ap.add_argument("--results", type=Path, default=BENCH_DIR / "results.md")
    ap.add_argument("--no-results", action="store_true", help="do not write the results file")
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    args.warmup = max(1, args.warmup)

    if args.mode in ("cli", "all"):
        missing = False
        if not venv_tool("check-jsonschema").exists():
            print(
                f"check-jsonschema not found at {venv_tool('check-jsonschema')}.\n"
                f"Install it into this venv with:\n"
                f"  {sys.executable} -m pip install check-jsonschema\n"
                f"(it is the project's `bench` extra: "
                f"{sys.executable} -m pip install -e '.[bench]')",
                file=sys.stderr,
            )
            missing = True
        if not venv_tool("pack-lsp").exists():
            print(
                f"pack-lsp not found at {venv_tool('pack-lsp')}.\n"
                f"Install the project into this venv with:\n"
                f"  {sys.executable} -m pip install -e {REPO_ROOT}",
                file=sys.stderr,
            )
            missing = True
        if missing:
            return 2
        if not args.schema.exists():
            print(f"schema {args.schema} not found", file=sys.stderr)
            return 2

    packs = ensure_packs(sizes, args.seed, args.json, args.regen)
    info = machine_info()
    load_start = _loadavg()
    report = [
        "# `pack-lsp --check` benchmark",
        "",
        "Generated by `bench/run_check_bench.py` (see `bench/README.md`). "
        "Ratios are pack-lsp / check-jsonschema: below 1 means pack-lsp is faster / smaller.",
        "",
        f"- date: {info['date']}",
        f"- machine: {info.get('cpu', '?')}, {info['cores']} cores "
        f"({info['cores_usable']} usable), {info.get('memory', '?')} RAM; {info['platform']}",
        f"- python: {info['python']} (`{sys.executable}`)",
        f"- versions: pack-lsp {info.get('pack_lsp')}, check-jsonschema "
        f"{info.get('check_jsonschema')}, jsonschema {info.get('jsonschema')}",
        f"- YAML: {describe_yaml(info)}",
        f"- packs: `python bench/genpack.py --lines N --seed {args.seed}"
        f"{' --json' if args.json else ''}` for N in {', '.join(map(str, sizes))}",
        f"- runs: {args.warmup} warm-up + {args.reps} timed per tool and pack; "
        f"peak RSS via {'`/usr/bin/time -f %M`' if os.access(TIME_BIN, os.X_OK) else 'wait4'}; "
        f"children run with bytecode caching on (`PYTHONPYCACHEPREFIX=bench/out/pycache`)",
        "",
    ]
    failed = False
    if args.mode in ("cli", "all"):
        print("CLI mode:", file=sys.stderr)
        schema_rel = (
            args.schema.resolve().relative_to(REPO_ROOT)
            if args.schema.resolve().is_relative_to(REPO_ROOT)
            else args.schema
        )
        rows, failed = bench_cli(packs, sizes, args.reps, args.warmup, args.schema)
        report += [
            "## Subprocess: `pack-lsp --check FILE --format json` vs "
            f"`check-jsonschema --schemafile {schema_rel} FILE`",
            "",
            *rows,
            "",
        ]
    if args.mode in ("in-process", "all"):
        print("in-process mode:", file=sys.stderr)
        report += [
            "## In-process: `pack_lsp.core.analyze(text, path=...)`",
            "",
            *bench_in_process(packs, args.reps),
            "",
        ]
    runs_line = next(i for i, line in enumerate(report) if line.startswith("- runs:"))
    report.insert(
        runs_line + 1,
        f"- load average (1 min) at start / end: {load_start} / {_loadavg()} "
        f"(on {info['cores']} cores; other work on the machine makes timings noisy)",
    )
    text = "\n".join(report)
    print(text)
    if not args.no_results:
        args.results.write_text(text, encoding="utf-8")
        print(f"wrote {args.results}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
