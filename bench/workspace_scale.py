#!/usr/bin/env python3
"""pack-lsp on a large workspace: progress, first diagnostics, workspace symbols.

Generates a workspace of ``--files`` YAML files (default 10,000: one in ten a small
PromptPack, the others plain configuration files), starts a fresh ``pack-lsp`` with it
as its root and a client that accepts work-done progress, and measures:

- *open → diagnostics*: a pack opened right after ``initialize``, while the workspace
  is being scanned (the goal: its diagnostics never wait for the scan: they arrive
  before the scan's progress ends);
- *scan*: from ``initialized`` to the end of the server's first progress (manifests
  and arena projects), and how many progress reports the client got;
- *workspace symbols*: the first ``workspace/symbol`` (it builds the symbol index),
  then the latency of ``--reps`` more (median; the goal is 100 ms at 10,000 files);
- *workspace diagnostics*: a second session, with ``workspaceDiagnostics`` on and a
  client that pulls diagnostics: from ``initialized`` to the answer of the first
  ``workspace/diagnostic`` (every pack file checked), and of a second one (every
  report unchanged).

Usage::

    python bench/workspace_scale.py [--files 10000] [--reps 10] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))

import genpack  # noqa: E402
import reuse_mode  # noqa: E402
from lspclient import LspClient, LspError  # noqa: E402
from run_check_bench import child_env  # noqa: E402

OUT_DIR = BENCH_DIR / "out" / "workspace"
QUERIES = ("sup", "billing", "lookup", "intake_state", "zzz-no-match")

PACK = """\
id: pack-{n}
name: Pack {n}
version: 1.0.0
description: Workspace pack number {n}.
template_engine: {{version: v1, syntax: "{{{{variable}}}}"}}
prompts:
  support_{n}:
    id: support_{n}
    name: Support {n}
    version: 1.0.0
    description: Answers questions.
    system_template: Help {{{{customer}}}} with their question.
    variables:
      - {{name: customer, type: string, required: true}}
    tools: [lookup_{n}]
tools:
  lookup_{n}:
    name: lookup_{n}
    description: Look something up.
    parameters: {{type: object, properties: {{q: {{type: string}}}}}}
"""

OTHER = """\
# configuration file {n}
service: service-{n}
replicas: {r}
env:
  - name: LEVEL
    value: info
ports: [80, 443]
"""


def make_workspace(root: Path, files: int) -> Path:
    """``files`` YAML files below ``root`` in folders of 100; one in ten a pack."""
    stamp = root / f".generated-{files}"
    if stamp.exists():
        return root
    shutil.rmtree(root, ignore_errors=True)
    for n in range(files):
        folder = root / f"d{n // 100:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        if n % 10 == 0:
            (folder / f"p{n}.promptpack.yaml").write_text(PACK.format(n=n), encoding="utf-8")
        else:
            (folder / f"c{n}.yaml").write_text(OTHER.format(n=n, r=n % 5), encoding="utf-8")
    stamp.write_text("")
    return root


@dataclass
class Result:
    files: int
    open_s: float | None = None
    index_s: float | None = None
    progress_reports: int = 0
    progress_titles: list[str] = field(default_factory=list)
    first_symbol_s: float | None = None
    symbol_s: list[float] = field(default_factory=list)
    symbol_counts: list[int] = field(default_factory=list)
    #: The open pack's diagnostics came before the end of the scan's progress.
    open_before_scan_end: bool | None = None
    workspace_report_s: float | None = None
    workspace_reports: int = 0
    workspace_problems: int = 0
    workspace_again_s: float | None = None
    workspace_unchanged: int = 0
    error: str = ""


async def measure(root: Path, open_pack: Path, reps: int, timeout: float) -> Result:
    res = Result(sum(1 for _ in root.rglob("*.yaml")))
    script = Path(sys.executable).parent / "pack-lsp"
    argv = [str(script)] if script.exists() else [sys.executable, "-m", "pack_lsp"]
    client = LspClient(argv, settings={"packLsp": {}}, cwd=root, env=child_env())
    await client.start()
    try:
        caps = {
            "window": {"workDoneProgress": True},
            "workspace": {"configuration": True, "workspaceFolders": True, "symbol": {}},
            "textDocument": {"publishDiagnostics": {"versionSupport": True}},
        }
        await client.initialize(
            {
                "processId": os.getpid(),
                "rootUri": root.as_uri(),
                "workspaceFolders": [{"uri": root.as_uri(), "name": "ws"}],
                "capabilities": caps,
            },
            timeout,
        )
        t_init = time.perf_counter()
        uri = open_pack.as_uri()
        mark = client.open(uri, open_pack.read_text(encoding="utf-8"))
        pub = await client.wait_diagnostics(uri, after=mark, version=1, timeout=timeout)
        res.open_s = pub.at - t_init
        try:
            end = await client.wait_progress_end(timeout * 4)
            res.index_s = end - t_init
            res.open_before_scan_end = pub.at < end
        except LspError as exc:  # a server without progress (an older version)
            res.error = f"indexing: {exc}"
        res.progress_reports = sum(1 for p in client.progress if p["value"]["kind"] == "report")
        res.progress_titles = [
            p["value"].get("title", "") for p in client.progress if p["value"]["kind"] == "begin"
        ]
        # The first search builds the symbol index (the server parses every pack then).
        t0 = time.perf_counter()
        await client.request("workspace/symbol", {"query": "support"}, timeout * 4)
        res.first_symbol_s = time.perf_counter() - t0
        for i in range(reps):
            query = QUERIES[i % len(QUERIES)]
            t0 = time.perf_counter()
            found = await client.request("workspace/symbol", {"query": query}, timeout)
            res.symbol_s.append(time.perf_counter() - t0)
            res.symbol_counts.append(len(found or []))
    except (LspError, OSError) as exc:
        res.error = str(exc)
    finally:
        await client.close()
    return res


async def measure_workspace_diagnostics(root: Path, res: Result, timeout: float) -> None:
    """A session with ``workspaceDiagnostics`` on, pulling: time to the first
    ``workspace/diagnostic`` answer, then to a second one with the result ids."""
    settings = {"packLsp": {"workspaceDiagnostics": True}}
    script = Path(sys.executable).parent / "pack-lsp"
    argv = [str(script)] if script.exists() else [sys.executable, "-m", "pack_lsp"]
    client = LspClient(argv, settings=settings, cwd=root, env=child_env())
    await client.start()
    try:
        caps = {
            "window": {"workDoneProgress": True},
            "workspace": {"configuration": True, "workspaceFolders": True},
            "textDocument": {"diagnostic": {}},
        }
        answer = await client.initialize(
            {
                "processId": os.getpid(),
                "rootUri": root.as_uri(),
                "workspaceFolders": [{"uri": root.as_uri(), "name": "ws"}],
                "capabilities": caps,
                "initializationOptions": settings,
            },
            timeout,
        )
        t_init = time.perf_counter()
        provider = (answer or {}).get("capabilities", {}).get("diagnosticProvider") or {}
        if not provider.get("workspaceDiagnostics"):  # an older version
            res.error = (res.error + "; " if res.error else "") + "no workspace diagnostics"
            return
        first = await client.request(
            "workspace/diagnostic", {"previousResultIds": []}, timeout * 10
        )
        res.workspace_report_s = time.perf_counter() - t_init
        items = first.get("items", []) if isinstance(first, dict) else []
        res.workspace_reports = len(items)
        res.workspace_problems = sum(len(i.get("items", [])) for i in items)
        ids = [{"uri": i["uri"], "value": i["resultId"]} for i in items if i.get("resultId")]
        t0 = time.perf_counter()
        again = await client.request("workspace/diagnostic", {"previousResultIds": ids}, timeout)
        res.workspace_again_s = time.perf_counter() - t0
        res.workspace_unchanged = sum(
            1 for i in again.get("items", []) if i.get("kind") == "unchanged"
        )
    except (LspError, OSError, AttributeError) as exc:
        res.error = (res.error + "; " if res.error else "") + f"workspace diagnostics: {exc}"
    finally:
        await client.close()


def report(res: Result) -> str:
    def ms(x: float | None) -> str:
        return "—" if x is None else f"{x * 1000:,.0f} ms"

    sym = statistics.median(res.symbol_s) if res.symbol_s else None
    lines = [
        f"| workspace | {res.files:,} YAML files |",
        "|---|---|",
        f"| open → diagnostics (right after initialize, during the scan) | {ms(res.open_s)} |",
        f"| … arrived before the scan's progress ended | {res.open_before_scan_end} |",
        f"| initialized → manifests and arena projects read | {ms(res.index_s)} |",
        f"| progress reports | {res.progress_reports} ({'; '.join(res.progress_titles)}) |",
        f"| first workspace/symbol (builds the symbol index) | {ms(res.first_symbol_s)} |",
        f"| workspace/symbol, median of {len(res.symbol_s)} | {ms(sym)} (goal ≤ 100 ms) |",
        f"| initialized → workspace/diagnostic answered ({res.workspace_reports:,} files, "
        f"{res.workspace_problems:,} problems) | {ms(res.workspace_report_s)} |",
        f"| workspace/diagnostic again ({res.workspace_unchanged:,} unchanged) "
        f"| {ms(res.workspace_again_s)} |",
    ]
    if res.error:
        lines.append(f"| error | {res.error} |")
    return "\n".join(lines) + "\n"


def run(files: int, reps: int, timeout: float = 60.0) -> Result:
    root = make_workspace(OUT_DIR / f"ws-{files}", files)
    pack = OUT_DIR / "open.promptpack.yaml"
    if not pack.exists():
        pack.write_text(genpack.generate(1500, seed=1)[0], encoding="utf-8")
    res = asyncio.run(measure(root, pack, reps, timeout))
    asyncio.run(measure_workspace_diagnostics(root, res, timeout))
    return res


def main(argv: list[str] | None = None) -> int:
    reuse_mode.not_verifying()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--files", type=int, default=10_000)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--json", action="store_true", help="print the result as JSON")
    args = ap.parse_args(argv)
    res = run(args.files, args.reps)
    print(json.dumps(asdict(res), indent=1) if args.json else report(res))
    return 1 if res.error else 0


if __name__ == "__main__":
    sys.exit(main())
