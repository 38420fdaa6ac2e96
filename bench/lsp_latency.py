#!/usr/bin/env python3
"""Request latencies of pack-lsp on packs of several sizes, through the real server.

For each pack, one fresh server process over stdio (``bench/lspclient.py``, the
client ``bench/run.py`` uses, at the same spots of the pack as it):

- completion in a ``tools:`` list and hover on ``system_template`` on an analysed
  version;
- edit → diagnostics: ``didChange`` (one character typed into, or deleted from, a
  ``description`` near the middle) → the ``publishDiagnostics`` of that version;
- completion in the ``tools:`` list, and hover, sent right after such an edit,
  before its diagnostics.

Medians (and p95) over ``--rounds``. Usage::

    python bench/lsp_latency.py [--lines 1500 10000 70000] [--rounds 20] [--pack F ...]
        [--python PY [PY ...]]

With several ``--python`` interpreters (for instance one running an older checkout
through ``PYTHONPATH``), each pack is measured with each of them in turn, so that a
before/after comparison shares the machine's load.

Without ``--pack``, packs are generated with ``bench/genpack.py --seed 1``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import reuse_mode  # noqa: E402
from lspclient import LspClient, position  # noqa: E402
from run import find_spots  # noqa: E402


def summary(samples: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    p95 = ms[min(len(ms) - 1, int(len(ms) * 0.95))]
    return f"median {statistics.median(ms):7.1f} ms  p95 {p95:7.1f} ms"


async def timed(coro: Any) -> float:
    t0 = time.perf_counter()
    await coro
    return time.perf_counter() - t0


async def measure(path: Path, rounds: int, python: str) -> None:
    text = path.read_text(encoding="utf-8")
    uri = path.resolve().as_uri()
    spots = find_spots(text)
    assert spots.tools is not None and spots.hover is not None and spots.edit is not None
    print(f"pack: {path} ({text.count(chr(10)):,} lines), server: {python}", flush=True)
    client = LspClient([python, "-m", "pack_lsp"], settings={"packLsp": {}})
    await client.start()
    try:
        await client.initialize(
            {"processId": None, "capabilities": {"textDocument": {"completion": {}}}}, 60
        )
        t0 = time.perf_counter()
        mark = client.open(uri, text)
        await client.wait_diagnostics(uri, after=mark, version=1, timeout=120)
        print(f"  open → diagnostics {(time.perf_counter() - t0) * 1000:.0f} ms", flush=True)
        doc = {"uri": uri}

        def completion(at: int, current: str) -> Any:
            params = {"textDocument": doc, "position": position(current, at)}
            return client.request("textDocument/completion", params, 120)

        def hover(at: int, current: str) -> Any:
            params = {"textDocument": doc, "position": position(current, at)}
            return client.request("textDocument/hover", params, 120)

        analysed = [await timed(completion(spots.tools, text)) for _ in range(rounds)]
        print(f"  completion, analysed version:    {summary(analysed)}")
        hovers = [await timed(hover(spots.hover, text)) for _ in range(rounds)]
        print(f"  hover, analysed version:         {summary(hovers)}")

        version = 1
        at = spots.edit

        def edit() -> tuple[int, int]:
            """Type or delete one character at ``at``; (target shift, mark)."""
            nonlocal version, text
            version += 1
            start = position(text, at)
            if version % 2 == 0:
                change = {"range": {"start": start, "end": start}, "text": "x"}
                text = text[:at] + "x" + text[at:]
                shift = 1
            else:
                end = {"line": start["line"], "character": start["character"] + 1}
                change = {"range": {"start": start, "end": end}, "text": ""}
                text = text[:at] + text[at + 1 :]
                shift = 0
            mark = client.mark()
            client.notify(
                "textDocument/didChange",
                {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]},
            )
            return shift, mark

        to_diags: list[float] = []
        after_completion: list[float] = []
        after_hover: list[float] = []
        for _ in range(rounds):
            t0 = time.perf_counter()
            _, mark = edit()
            await client.wait_diagnostics(uri, after=mark, version=version, timeout=120)
            to_diags.append(time.perf_counter() - t0)
            client.forget_diagnostics()
        for i in range(rounds):
            t0 = time.perf_counter()
            shift, mark = edit()
            if i % 2 == 0:
                target = spots.tools + (shift if spots.tools >= at else 0)
                await completion(target, text)
                after_completion.append(time.perf_counter() - t0)
            else:
                target = spots.hover + (shift if spots.hover >= at else 0)
                await hover(target, text)
                after_hover.append(time.perf_counter() - t0)
            await client.wait_diagnostics(uri, after=mark, version=version, timeout=120)
            client.forget_diagnostics()
        print(f"  edit → diagnostics:              {summary(to_diags)}")
        print(f"  completion right after an edit:  {summary(after_completion)}")
        print(f"  hover right after an edit:       {summary(after_hover)}", flush=True)
        now, peak = client.rss_kib()
        print(f"  RSS {(now or 0) / 1024:.0f} MiB (peak {(peak or 0) / 1024:.0f} MiB)")
    finally:
        await client.close()


def main() -> None:
    reuse_mode.not_verifying()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, nargs="*", default=[1500, 10_000, 70_000])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--pack", type=Path, nargs="*", default=[])
    parser.add_argument(
        "--python", nargs="+", default=[sys.executable], help="interpreters running pack_lsp"
    )
    args = parser.parse_args()
    packs: list[Path] = list(args.pack)
    if not packs:
        tmp = Path(tempfile.mkdtemp(prefix="pack-lsp-latency-"))
        for lines in args.lines:
            out = tmp / f"bench{lines}.promptpack.yaml"
            cmd = [sys.executable, str(HERE / "genpack.py"), "--lines", str(lines)]
            subprocess.run([*cmd, "--seed", "1", "--out", str(out)], check=True)
            packs.append(out)
    for path in packs:
        for python in args.python:
            asyncio.run(measure(path, args.rounds, python))


if __name__ == "__main__":
    main()
