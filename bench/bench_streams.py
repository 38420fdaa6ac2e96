#!/usr/bin/env python3
"""Benchmark multi-document streams: the cost must grow with the stream's length,
not with its square.

Run with the project venv's python::

    .venv/bin/python bench/bench_streams.py [--reps 3]

Pairs of generated streams, each analysed as ``pack-lsp --check`` does
(``analyze``), the median CPU time of ``--reps`` runs (the two streams by turns, a
full garbage collection before each run, outside the time) reported with the ratio
of the larger to the smaller: 4 times the documents, so linear is 4.0. The
machine's load moves single figures by tens of per cent: compare ratios, and two
versions run by turns.

* **ConfigMaps**: 50 and 200 ConfigMaps, each embedding a pack of six prompts in a
  literal block (about 1.8 KB a pack);
* **non-ASCII ConfigMaps**: the same with a comment of non-ASCII characters before
  each ConfigMap (a host whose shadows could not share its line index);
* **JSON ConfigMaps**: the same packs written as JSON (``pack.json``);
* **broken ConfigMaps**: the same with every pack's YAML broken (a pack whose own
  text reports a syntax error used to be parsed in its shadow, the host's length);
* **anchors**: 250 and 1,000 plain Kubernetes documents, each with an anchor and an
  alias (a document with aliases used to be parsed in a blanked copy of the whole
  stream).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

from pack_lsp.core.checks.analysis import analyze


def config_maps(count: int, prompts: int = 6) -> str:
    body = "".join(
        f"      p{j}:\n        id: p{j}\n        name: Prompt {j}\n        version: 1.0.0\n"
        f"        system_template: Hello, how can I help with order {{{{order}}}}?\n"
        "        variables:\n          - name: order\n            type: string\n"
        "            required: true\n"
        for j in range(prompts)
    )
    return "---\n".join(
        f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: pack-{i}\ndata:\n"
        f"  pack.yaml: |\n    id: p{i}\n    name: P{i}\n    version: 1.0.0\n"
        '    template_engine: {version: v1, syntax: "{{variable}}"}\n'
        f"    prompts:\n{body}"
        for i in range(count)
    )


def json_config_maps(count: int) -> str:
    """``config_maps`` with each pack written as JSON (``pack.json``)."""
    import json

    out = []
    for i in range(count):
        prompts = {
            f"p{j}": {
                "id": f"p{j}",
                "name": f"Prompt {j}",
                "version": "1.0.0",
                "system_template": "Hello, how can I help with order {{order}}?",
                "variables": [{"name": "order", "type": "string", "required": True}],
            }
            for j in range(6)
        }
        pack = {
            "id": f"p{i}",
            "name": f"P{i}",
            "version": "1.0.0",
            "template_engine": {"version": "v1", "syntax": "{{variable}}"},
            "prompts": prompts,
        }
        block = "".join(f"    {line}\n" for line in json.dumps(pack, indent=2).splitlines())
        out.append(
            f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: pack-{i}\ndata:\n"
            f"  pack.json: |\n{block}"
        )
    return "---\n".join(out)


def wide_config_maps(count: int) -> str:
    """``config_maps`` with a comment of non-ASCII characters before each ConfigMap."""
    return "---\n".join(
        f"# Données de démonstration ✓ 𝄞\n{doc}" for doc in config_maps(count).split("---\n")
    )


def broken_config_maps(count: int) -> str:
    """``config_maps`` with every pack broken: a double-quoted name left open (in the
    pack's shadow it runs on to the end of the host)."""
    return config_maps(count).replace("        name: Prompt 1\n", '        name: "Prompt 1\n')


def anchored(count: int) -> str:
    return "---\n".join(
        f"apiVersion: v1\nkind: Service\nmetadata:\n  name: s{i}\n"
        f"  labels: &l{i} {{app: a{i}}}\nspec:\n  selector: *l{i}\n"
        for i in range(count)
    )


def seconds(text: str) -> float:
    """The CPU time of one analysis of ``text``."""
    gc.collect()  # the previous run's garbage is not this one's cost
    start = time.process_time()
    analyze(text, path=Path("stream.yaml"))
    return time.process_time() - start


def median_pair(small: str, large: str, reps: int) -> tuple[float, float]:
    """The median CPU times of ``small`` and ``large``, run by turns (the machine's
    load then weighs on both alike)."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(reps):
        times[0].append(seconds(small))
        times[1].append(seconds(large))
    return statistics.median(times[0]), statistics.median(times[1])


#: The measured pairs: name, generator, the two sizes.
PAIRS = (
    ("ConfigMaps", config_maps, (50, 200)),
    ("non-ASCII ConfigMaps", wide_config_maps, (50, 200)),
    ("JSON ConfigMaps", json_config_maps, (50, 200)),
    ("broken ConfigMaps", broken_config_maps, (50, 200)),
    ("anchors", anchored, (250, 1000)),
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=7, help="runs per stream (median)")
    args = parser.parse_args(argv)
    analyze(config_maps(2), path=Path("warm.yaml"))  # imports, schema compilation
    print(f"median CPU time of {args.reps} runs; ratio large/small (linear: 4.0)")
    for name, make, sizes in PAIRS:
        small, large = (make(n) for n in sizes)
        t_small, t_large = median_pair(small, large, args.reps)
        print(
            f"{name:22} {sizes[0]:>5} docs ({len(small) / 1024:.0f} KB) {t_small:.3f} s   "
            f"{sizes[1]:>5} docs ({len(large) / 1024:.0f} KB) {t_large:.3f} s   "
            f"ratio {t_large / t_small:.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
