#!/usr/bin/env python3
"""Benchmark the workspace index of agent-extension manifests.

Run with the project venv's python::

    .venv/bin/python bench/bench_manifests.py [--count 500] [--reps 5] [--seed 7]

It generates ``--count`` manifests in a temporary directory (a third tool
extensions with code, the rest agents, declarative or with code, each naming a few
tools in ``uses_tools`` and other extensions in ``depends_on``) and reports the
median of ``--reps`` runs of:

* **index**: read, parse and index every manifest (``index_files``) — what the
  goal is about: under 1 s for 500 manifests;
* **check all**: analyse every manifest against the index (schema and every rule,
  cross-file ones included), as ``pack-lsp --check DIR`` does after indexing;
* **edit one**: re-index one edited tool extension and re-check the manifests the
  index says are affected (the incremental path of an editor).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pack_lsp.core.base import kinds
from pack_lsp.core.checks.analysis import analyze
from pack_lsp.core.model.manifest.files import index_files
from pack_lsp.core.model.manifest.model import build_manifest
from pack_lsp.core.model.manifest.workspace import ManifestIndex
from pack_lsp.core.syntax.yamltree import parse

GOAL_SECONDS = 1.0


def generate(root: Path, count: int, seed: int) -> list[Path]:
    rng = random.Random(seed)
    tools = [f"tool_{i}" for i in range(count // 3)]
    agents = [f"agent_ext_{i}" for i in range(count - len(tools))]
    paths: list[Path] = []
    for ext_id in tools:
        folder = root / ext_id
        folder.mkdir()
        (folder / "main.py").write_text("class Tool: ...\n", encoding="utf-8")
        (folder / "manifest.yaml").write_text(
            f"id: {ext_id}\nname: Tool {ext_id}\nversion: '1.0.0'\n"
            f"description: Tools of {ext_id}.\nentrypoint: main:Tool\n"
            "secrets: [API_KEY]\nconfig:\n  retries: 3\nenabled: true\n",
            encoding="utf-8",
        )
        paths.append(folder / "manifest.yaml")
    for i, ext_id in enumerate(agents):
        folder = root / ext_id
        folder.mkdir()
        (folder / "prompt.jinja2").write_text("Be precise.\n", encoding="utf-8")
        uses = "\n".join(f"    - {t}" for t in rng.sample(tools, 3))
        deps = ", ".join(rng.sample(tools, 2))
        entry = ""
        if i % 4 == 0:
            (folder / "main.py").write_text("class Agent: ...\n", encoding="utf-8")
            entry = "entrypoint: main:Agent\n"
        (folder / "manifest.yaml").write_text(
            f"id: {ext_id}\nname: Agent {ext_id}\nversion: '1.0.0'\n"
            f"description: |\n  Use this agent for task {i}.\n  Not for anything else.\n"
            f"{entry}agent:\n  integration_mode: tool\n  model: gpt-4o-mini\n"
            "  instructions: Answer in English.\n  parameters:\n    temperature: 0.2\n"
            f"  uses_tools:\n{uses}\n  limits:\n    max_turns: 10\n"
            f"depends_on: [{deps}]\nenabled: true\n",
            encoding="utf-8",
        )
        paths.append(folder / "manifest.yaml")
    return paths


def _median(reps: int, work: Callable[[], object]) -> float:
    times: list[float] = []
    for _ in range(reps):
        t0 = time.perf_counter()
        work()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--count", type=int, default=500)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="pack-lsp-manifests-") as tmp:
        paths = generate(Path(tmp), args.count, args.seed)
        texts = {str(p): p.read_text(encoding="utf-8") for p in paths}
        index_files(paths)  # warm-up (imports, schema compilation)
        t_index = _median(args.reps, lambda: index_files(paths))
        index = index_files(paths)

        def check_all() -> int:
            return sum(
                len(analyze(t, path=p, kind=kinds.MANIFEST, workspace=index).diagnostics)
                for p, t in texts.items()
            )

        problems = check_all()
        t_check = _median(args.reps, check_all)
        edited = str(paths[0])
        variants = [
            texts[edited],
            texts[edited].replace("entrypoint: main:Tool\n", ""),
        ]
        rechecked: list[int] = []

        def edit_one(state: list[int] = [0]) -> None:  # noqa: B006 - a counter across runs
            state[0] += 1
            text = variants[state[0] % 2]
            affected = index.put(build_manifest(parse(text).root, edited))
            analyze(text, path=edited, kind=kinds.MANIFEST, workspace=index)
            for path in affected:
                analyze(texts[path], path=path, kind=kinds.MANIFEST, workspace=index)
            rechecked.append(len(affected))

        t_edit = _median(args.reps, edit_one)
    assert isinstance(index, ManifestIndex)
    verdict = "meets" if t_index < GOAL_SECONDS else "MISSES"
    print(f"manifests: {args.count} (median of {args.reps} runs), {problems} diagnostics")
    print(f"index     : {t_index * 1000:8.1f} ms  ({verdict} the {GOAL_SECONDS:.0f} s goal)")
    print(f"check all : {t_check * 1000:8.1f} ms")
    print(
        f"edit one  : {t_edit * 1000:8.1f} ms  (re-checks {max(rechecked)} manifests "
        "naming the edited id)"
    )
    return 0 if t_index < GOAL_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
