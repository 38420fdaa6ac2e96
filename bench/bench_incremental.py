"""Incremental edit vs full analysis on generated packs (medians, with phases).

    python bench/bench_incremental.py [--sizes 1500,10000,70000] [--runs 5]

For each size: ``analyze`` of the whole pack, then a character typed into the
description of the prompt nearest the middle, analysed with ``reanalyze`` from the
previous version (each edit from the result of the one before, as the server does).
Prints the median of each phase of ``Analysis.timings``. The machine may be shared:
compare the two columns of one run, not numbers across runs.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import genpack
import reuse_mode

from pack_lsp.core.checks.analysis import Analysis, analyze
from pack_lsp.core.checks.incremental import INCREMENTAL, reanalyze

PHASES = ("parse", "model", "schema", "rules", "finish")


def _row(name: str, runs: list[tuple[float, Analysis]]) -> str:
    total = statistics.median(t for t, _ in runs)
    parts = []
    for phase in PHASES:
        values = [a.timings.get(phase, 0.0) for _, a in runs]
        parts.append(f"{phase} {statistics.median(values) * 1000:7.1f}")
    return f"  {name:<12} {total * 1000:8.1f} ms   " + "  ".join(parts)


#: The packs are analysed under a pack's name, as the editor and the CLI do: the name
#: decides the kind, where text without one would be recognised by a parse first.
PATH = "bench.promptpack.yaml"


def bench(lines: int, runs: int) -> None:
    text, prompts = genpack.generate(lines, seed=1)
    at = text.index("description:", len(text) // 2) + len("description: ")
    full: list[tuple[float, Analysis]] = []
    for _ in range(runs):
        gc.collect()
        t0 = time.perf_counter()
        analysis = analyze(text, path=PATH)
        full.append((time.perf_counter() - t0, analysis))
    previous = full[-1][1]
    incremental: list[tuple[float, Analysis]] = []
    fast = 0
    for i in range(runs * 2):
        new = previous.text[:at] + "abcdefgh"[i % 8] + previous.text[at:]
        gc.collect()
        t0 = time.perf_counter()
        previous = reanalyze(previous, new, path=PATH)
        incremental.append((time.perf_counter() - t0, previous))
        fast += INCREMENTAL in previous.timings
    print(f"{text.count(chr(10))} lines, {prompts} prompts ({fast}/{runs * 2} on the fast path)")
    print(_row("full", full))
    print(_row("incremental", incremental))


def main() -> None:
    reuse_mode.not_verifying()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1500,10000,70000")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    for size in args.sizes.split(","):
        bench(int(size), args.runs)


if __name__ == "__main__":
    main()
