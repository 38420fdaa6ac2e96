#!/usr/bin/env python3
"""Server memory and latency over many edits, through the real server over stdio.

Opens a pack, then makes ``--edits`` one-character edits inside a prompt's
description (typing a character, then deleting it, alternately), waiting after each
one for its diagnostics (published, or pulled with ``--pull``), and prints the
server's RSS every ``--every`` edits. Then, over ``--samples`` more edits, the
median time of edit → diagnostics and of a completion sent right after an edit
(before its diagnostics).

Usage::

    python bench/edit_memory.py --pack F [--edits 1000] [--pull] [--samples 20]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import reuse_mode
from lspclient import LspClient, position


async def run(args: argparse.Namespace) -> None:
    text = args.pack.read_text(encoding="utf-8")
    uri = args.pack.resolve().as_uri()
    client = LspClient([args.python, "-m", "pack_lsp"])
    await client.start()
    caps: dict[str, Any] = {"textDocument": {"completion": {}}}
    if args.pull:
        caps["textDocument"]["diagnostic"] = {}
    try:
        await client.initialize(
            {
                "processId": None,
                "capabilities": caps,
                "rootUri": args.pack.resolve().parent.as_uri(),
            },
            60,
        )
        t0 = time.perf_counter()
        mark = client.open(uri, text)
        await diagnostics(client, uri, 1, mark, args.pull)
        print(f"open → diagnostics {time.perf_counter() - t0:.2f} s, RSS {rss(client)}")
        anchor = text.index("description:", text.index("prompts:")) + len("description:")
        at = position(text, anchor)
        version = 1

        async def edit(typed: bool) -> None:
            nonlocal version
            version += 1
            end = {"line": at["line"], "character": at["character"] + (0 if typed else 1)}
            client.notify(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [
                        {"range": {"start": at, "end": end}, "text": "x" if typed else ""}
                    ],
                },
            )

        for i in range(1, args.edits + 1):
            mark = client.mark()
            await edit(i % 2 == 1)
            await diagnostics(client, uri, version, mark, args.pull)
            client.forget_diagnostics()
            if i % args.every == 0:
                print(f"after {i:5} edits: RSS {rss(client)}", flush=True)
        to_diags: list[float] = []
        to_completion: list[float] = []
        for i in range(args.samples):
            mark = client.mark()
            t0 = time.perf_counter()
            await edit(i % 2 == 0)
            await diagnostics(client, uri, version, mark, args.pull)
            to_diags.append(time.perf_counter() - t0)
            mark = client.mark()
            t0 = time.perf_counter()
            await edit(i % 2 == 1)
            await client.request(
                "textDocument/completion",
                {"textDocument": {"uri": uri}, "position": at},
                120,
            )
            to_completion.append(time.perf_counter() - t0)
            await diagnostics(client, uri, version, mark, args.pull)
            client.forget_diagnostics()
        print(
            f"edit → diagnostics median {statistics.median(to_diags) * 1000:.0f} ms; "
            "completion right after an edit median "
            f"{statistics.median(to_completion) * 1000:.0f} ms"
        )
    finally:
        await client.close()


async def diagnostics(client: LspClient, uri: str, version: int, mark: int, pull: bool) -> None:
    if pull:
        await client.request("textDocument/diagnostic", {"textDocument": {"uri": uri}}, 120)
    else:
        await client.wait_diagnostics(uri, after=mark, version=version, timeout=120)


def rss(client: LspClient) -> str:
    now, peak = client.rss_kib()
    return f"{(now or 0) / 1024:.0f} MiB (peak {(peak or 0) / 1024:.0f} MiB)"


def main() -> None:
    reuse_mode.not_verifying()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pack", type=Path, required=True)
    parser.add_argument("--edits", type=int, default=1000)
    parser.add_argument("--every", type=int, default=100)
    parser.add_argument("--samples", type=int, default=20)
    parser.add_argument("--pull", action="store_true", help="pull diagnostics instead of push")
    parser.add_argument("--python", default=sys.executable, help="interpreter running pack_lsp")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
