"""The benchmark harness (bench/run.py) still works: a tiny pack through the real server.

Only pack-lsp is driven here (no npm or PyPI installs); the comparison tools are the
same client code paths, exercised by the full benchmark.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_bench_harness_runs_on_a_tiny_pack(tmp_path: Path) -> None:
    report = tmp_path / "performance.md"
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "run.py"),
            "--quick",
            "--no-check",
            "--no-yaml-ls",
            "--no-mcp",
            "--workspace-files",
            "0",
            "--corpus",
            "0",
            "--sizes",
            "300",
            "--edits",
            "2",
            "--after-edit-rounds",
            "1",
            "--work-dir",
            str(tmp_path / "work"),
            "--output",
            str(report),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    text = report.read_text(encoding="utf-8")
    # The editor table has a measured row: edit → diagnostics and open → diagnostics in ms.
    editor = text[text.index("## Editor") :]
    row = next(line for line in editor.splitlines() if line.startswith("| gen 300 |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert re.fullmatch(r"[\d.,]+ ms", cells[2]), row  # edit p50
    assert re.fullmatch(r"[\d.,]+ ms", cells[4]), row  # edit p95
    assert re.fullmatch(r"[\d.,]+ ms", cells[5]), row  # open → diagnostics
    assert re.fullmatch(r"[\d.,]+ ms", cells[7]), row  # start → diagnostics
    # The sanity check ran: the broken pack got diagnostics; the pack's count is shown.
    sanity = next(line for line in text.splitlines() if line.startswith("| pack-lsp | gen 300 |"))
    broken, after_open = (c.strip() for c in sanity.strip("|").split("|")[2:4])
    assert int(broken.split()[0]) > 0, sanity
    assert after_open.split()[0].isdigit(), sanity
    assert "RSS" in text and re.search(r"\| gen 300 \| \d+ MiB \| \d+ MiB", text), text
