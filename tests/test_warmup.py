"""The warm-up of a server that starts (``core.checks.warmup``, ``server.warmup``, the
MCP server's): it analyses a small pack that uses every section of the model, so that
the first pack a user opens finds everything loaded; each test runs in a fresh
interpreter, where nothing is loaded yet."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pack_lsp.core.checks.warmup import WARM_PACK, warm_up

ROOT = Path(__file__).resolve().parents[1]


def _loaded_after(script: str) -> set[str]:
    """``sys.modules`` after ``script`` ran in a fresh interpreter."""
    script += "\nimport sys\nprint('\\n'.join(sorted(sys.modules)))\n"
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=True
    )
    return set(proc.stdout.split())


def test_the_warm_up_pack_is_clean_and_uses_every_section() -> None:
    analyses = warm_up()
    assert [str(a.path) for a in analyses] == ["warm-up.promptpack.yaml", "warm-up.promptpack.json"]
    for analysis in analyses:
        assert analysis.diagnostics == ()
        pack = analysis.pack
        assert pack is not None
        assert pack.fragments and pack.tools and pack.workflow and pack.agents
        prompt = pack.prompts["triage"]
        assert prompt.variables and prompt.validators and prompt.evals
        assert prompt.model_overrides
    assert "agents:" in WARM_PACK


def test_the_server_warm_up_loads_what_a_first_analysis_needs() -> None:
    loaded = _loaded_after(
        "import asyncio, threading\n"
        "from pack_lsp.server import warmup\n"
        "async def main():\n"
        "    warmup.start_soon()\n"
        "    await asyncio.sleep(0)\n"
        "asyncio.run(main())\n"
        "for t in threading.enumerate():\n"
        "    if t.name == 'pack-lsp warm-up':\n"
        "        t.join()\n"
    )
    # The rules of a pack with agents, the JSON reader, the schema validator.
    assert {
        "pack_lsp.core.checks.rules.cards",
        "pack_lsp.core.model.cards.derive",
        "pack_lsp.core.syntax.jsontree",
        "jsonschema_rs",
    } <= loaded


def test_the_mcp_warm_up_calls_the_check_tool() -> None:
    pytest.importorskip("mcp", reason="the optional MCP SDK is not installed (pack-lsp[mcp])")
    loaded = _loaded_after(
        "import sys\n"
        "from pack_lsp.cli.mcpserver import build_server, warm_up\n"
        "server = build_server()\n"
        "assert 'pack_lsp.core.checks.analysis' not in sys.modules\n"
        "warm_up(server)\n"
    )
    assert {"pack_lsp.core.checks.analysis", "pack_lsp.render.json_format"} <= loaded
