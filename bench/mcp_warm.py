#!/usr/bin/env python3
"""The first ``check`` call of a fresh ``pack-lsp mcp`` against the later ones.

An agent's first call should not pay for the server's start-up: the goal is a first
``check`` within 2× a later one. One fresh server per round, through the MCP SDK's
own client over stdio: ``initialize``, a pause of ``--pause`` seconds (default 1: an
agent starts its MCP servers with its session and thinks before its first tool call;
0 measures a call sent at once, which waits for the warm-up), then ``check`` of a
generated ~1.5k-line pack (*first*), then ``--calls`` more (*later*, median). Needs the
optional ``mcp`` dependency.

Usage::

    python bench/mcp_warm.py [--rounds 3] [--calls 5] [--lines 1500] [--pause 1]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))

import genpack  # noqa: E402
from run_check_bench import child_env  # noqa: E402

OUT_DIR = BENCH_DIR / "out" / "mcp"


@dataclass
class McpResult:
    first: list[float] = field(default_factory=list)
    later: list[float] = field(default_factory=list)
    error: str = ""

    @property
    def ratio(self) -> float | None:
        if not self.first or not self.later:
            return None
        return statistics.median(self.first) / statistics.median(self.later)


async def _round(pack: Path, calls: int, pause: float, res: McpResult) -> None:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    script = Path(sys.executable).parent / "pack-lsp"
    command, args = (
        (str(script), ["mcp"]) if script.exists() else (sys.executable, ["-m", "pack_lsp", "mcp"])
    )
    # The server reads files below the folder it works in (its roots): the pack's.
    params = StdioServerParameters(command=command, args=args, env=child_env(), cwd=pack.parent)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        await asyncio.sleep(pause)
        for i in range(calls + 1):
            t0 = time.perf_counter()
            result = await session.call_tool("check", {"path": str(pack)})
            took = time.perf_counter() - t0
            if result.is_error:
                raise RuntimeError(f"check failed: {result.content}")
            (res.first if i == 0 else res.later).append(took)


def run(rounds: int, calls: int, lines: int, pause: float = 1.0) -> McpResult:
    res = McpResult()
    try:
        import mcp  # noqa: F401
    except ImportError:
        res.error = "the MCP SDK is not installed (pip install 'pack-lsp[mcp]')"
        return res
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    pack = OUT_DIR / f"gen-{lines}.promptpack.yaml"
    if not pack.exists():
        pack.write_text(genpack.generate(lines, 1)[0], encoding="utf-8")
    try:
        for _ in range(rounds):
            asyncio.run(_round(pack, calls, pause, res))
    except Exception as exc:  # reported, not raised: the caller prints a table
        res.error = f"{type(exc).__name__}: {exc}"
    return res


def report(res: McpResult) -> str:
    if res.error:
        return f"MCP: {res.error}\n"
    first, later = statistics.median(res.first), statistics.median(res.later)
    return (
        f"first check {first * 1000:,.0f} ms, later {later * 1000:,.0f} ms (median): "
        f"{res.ratio:.2f}× (goal ≤ 2×)\n"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--calls", type=int, default=5)
    ap.add_argument("--lines", type=int, default=1500)
    ap.add_argument("--pause", type=float, default=1.0, help="seconds before the first call")
    args = ap.parse_args(argv)
    res = run(args.rounds, args.calls, args.lines, args.pause)
    print(report(res), end="")
    return 1 if res.error else 0


if __name__ == "__main__":
    sys.exit(main())
