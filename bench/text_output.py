#!/usr/bin/env python3
"""What the text output of ``pack-lsp --check`` costs, against another source tree.

Run with the project venv's python::

    .venv/bin/python bench/text_output.py [--base OTHER/lsp] [--reps 9]

It generates, with ``bench/genpack.py``, a clean ~1.5k-line and ~10k-line pack and a copy
of each in which every prompt's ``description`` key is misspelt (``descripton``: one
PP102 with a safe did-you-mean fix per prompt), then runs ``pack-lsp --check`` on each as
a CI job does (output to a pipe: the concise text), in fresh processes, alternating the
trees, and prints the median wall time and the median CPU time of the child (user +
system, less disturbed by other load than the wall time). ``--base`` is the ``lsp``
folder of another checkout (the code before a change); without it only this tree is
measured. ``--style full`` measures the terminal output instead.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
OUT = BENCH / "out" / "text-output"
HERE = BENCH.parent / "lsp"


def packs() -> list[Path]:
    OUT.mkdir(parents=True, exist_ok=True)
    made = []
    for lines, name in ((1500, "1k5"), (10_000, "10k")):
        clean = OUT / f"clean-{name}.promptpack.yaml"
        if not clean.exists():
            subprocess.run(
                [
                    sys.executable,
                    str(BENCH / "genpack.py"),
                    "--lines",
                    str(lines),
                    "--out",
                    str(clean),
                ],
                check=True,
                stdout=subprocess.DEVNULL,
            )
        broken = OUT / f"fixable-{name}.promptpack.yaml"
        text = clean.read_text(encoding="utf-8")
        broken.write_text(text.replace("\n    description:", "\n    descripton:"), encoding="utf-8")
        made += [clean, broken]
    return made


def one(tree: Path, pack: Path, style: str) -> tuple[float, float]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE",)}
    env["PYTHONPATH"] = str(tree)
    argv = [sys.executable, "-m", "pack_lsp", "--check", str(pack)]
    if style == "full":
        argv += ["--output-format", "full"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", type=Path, help="the lsp folder of the tree to compare with")
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--style", choices=("concise", "full"), default="concise")
    args = ap.parse_args()
    trees = {"this": HERE}
    if args.base is not None:
        trees["base"] = args.base.resolve()
    files = packs()
    times: dict[tuple[str, Path], list[tuple[float, float]]] = {}
    for rep in range(args.reps + 1):  # the first round warms the caches, not counted
        for pack in files:
            for name, tree in trees.items():
                style = args.style if name == "this" else "concise"
                sample = one(tree, pack, style)
                if rep:
                    times.setdefault((name, pack), []).append(sample)
    print("| pack | tree | wall (median) | CPU (median) |\n|---|---|---|---|")
    for pack in files:
        for name in trees:
            walls, cpus = zip(*times[(name, pack)], strict=True)
            print(
                f"| {pack.name} | {name} | {statistics.median(walls) * 1000:.0f} ms "
                f"| {statistics.median(cpus) * 1000:.0f} ms |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
