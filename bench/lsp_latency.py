#!/usr/bin/env python3
"""Measure pack-lsp latencies on a large pack through the real server over stdio.

- completion latency: ``textDocument/completion`` request → response, at a tool
  item, a placeholder and a schema key;
- edit → diagnostics: ``didChange`` (incremental) → ``publishDiagnostics`` for that
  version (includes the server's change delay, reported separately).

Usage::

    python bench/lsp_latency.py [--lines 10000] [--rounds 20] [--pack PATH]

Without ``--pack`` a pack is generated with ``bench/genpack.py``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


class Client:
    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "pack_lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        self.next_id = 0

    def send(self, payload: dict[str, Any]) -> None:
        body = json.dumps(payload).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        self.proc.stdin.flush()

    def read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        length = 0
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("server closed the connection")
            if line in (b"\r\n", b"\n"):
                break
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        message: dict[str, Any] = json.loads(self.proc.stdout.read(length))
        return message

    def request(self, method: str, params: Any) -> Any:
        self.next_id += 1
        rid = self.next_id
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            msg = self.read()
            if msg.get("id") == rid and "method" not in msg:
                return msg.get("result")
            self.answer(msg)

    def answer(self, msg: dict[str, Any]) -> None:
        if "method" in msg and "id" in msg:  # a server → client request
            self.send({"jsonrpc": "2.0", "id": msg["id"], "result": None})

    def notify(self, method: str, params: Any) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait_diagnostics(self, uri: str, version: int) -> list[Any]:
        while True:
            msg = self.read()
            if msg.get("method") == "textDocument/publishDiagnostics":
                p = msg["params"]
                if p["uri"] == uri and p.get("version") == version:
                    return list(p["diagnostics"])
            else:
                self.answer(msg)

    def close(self) -> None:
        self.request("shutdown", None)
        self.notify("exit", None)
        self.proc.wait(timeout=10)


def position(text: str, index: int) -> dict[str, int]:
    line = text.count("\n", 0, index)
    start = text.rfind("\n", 0, index) + 1
    return {"line": line, "character": len(text[start:index].encode("utf-16-le")) // 2}


def summary(samples: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    p95 = ms[min(len(ms) - 1, int(len(ms) * 0.95))]
    return f"median {statistics.median(ms):7.1f} ms  p95 {p95:7.1f} ms  max {ms[-1]:7.1f} ms"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--pack", type=Path)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="pack-lsp-bench-"))
    path = args.pack
    if path is None:
        path = tmp / "bench.promptpack.yaml"
        subprocess.run(
            [
                sys.executable,
                str(HERE / "genpack.py"),
                "--lines",
                str(args.lines),
                "--out",
                str(path),
            ],
            check=True,
        )
    text = path.read_text(encoding="utf-8")
    uri = (tmp / path.name).as_uri() if not path.name.endswith(".yaml") else path.as_uri()
    print(f"pack: {path} ({text.count(chr(10))} lines, {len(text)} chars)")

    client = Client()
    client.request(
        "initialize",
        {
            "processId": None,
            "capabilities": {
                "textDocument": {"completion": {"completionItem": {"snippetSupport": True}}}
            },
        },
    )
    client.notify("initialized", {})
    t0 = time.perf_counter()
    client.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}},
    )
    diags = client.wait_diagnostics(uri, 1)
    print(
        f"open → diagnostics: {(time.perf_counter() - t0) * 1000:.1f} ms ({len(diags)} diagnostics)"
    )

    targets = {
        "tool item": text.index("    tools: [") + len("    tools: ["),
        "placeholder": text.index("{{", text.index("prompts:")) + 2,
        "schema key": text.index("system_template", text.index("prompts:")),
    }
    for name, index in targets.items():
        samples = []
        count = 0
        for _ in range(args.rounds):
            t0 = time.perf_counter()
            result = client.request(
                "textDocument/completion",
                {"textDocument": {"uri": uri}, "position": position(text, index)},
            )
            samples.append(time.perf_counter() - t0)
            count = len(result["items"]) if isinstance(result, dict) else len(result or [])
        print(f"completion ({name:11}, cached analysis, {count:3} items): {summary(samples)}")

    # Edit → diagnostics, and completion right after an edit (analysis not cached).
    edit_samples: list[float] = []
    after_edit: list[float] = []
    anchor = text.index("description:") + len("description:")
    version = 1
    for i in range(args.rounds):
        version += 1
        at = position(text, anchor)
        client.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [
                    {"range": {"start": at, "end": at}, "text": " x" if i % 2 == 0 else ""}
                ],
            },
        )
        t0 = time.perf_counter()
        client.wait_diagnostics(uri, version)
        edit_samples.append(time.perf_counter() - t0)
        if i % 2 == 0:
            text = text[:anchor] + " x" + text[anchor:]
        version += 1
        client.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"range": {"start": at, "end": at}, "text": ""}],
            },
        )
        t0 = time.perf_counter()
        client.request(
            "textDocument/completion",
            {"textDocument": {"uri": uri}, "position": position(text, targets["schema key"])},
        )
        after_edit.append(time.perf_counter() - t0)
        client.wait_diagnostics(uri, version)
    print(f"edit → diagnostics (incl. the server's wait): {summary(edit_samples)}")
    print(f"completion right after an edit (awaits its analysis): {summary(after_edit)}")
    client.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
