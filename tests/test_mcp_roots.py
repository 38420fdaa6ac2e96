"""`pack-lsp mcp` works inside its roots: the `file:` roots the client declares, else
the folder it was started in. A path outside them (or a link leading out of them)
is refused by every tool, and `fix` never writes outside them. Driven by the MCP
SDK's own client over stdio; skipped without the optional `mcp` dependency."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the optional MCP SDK is not installed (pack-lsp[mcp])")

import mcp_types
from mcp.client.session import ClientSession
from mcp.client.stdio import stdio_client

from samples import MINIMAL_PACK
from test_mcp import PACK, server

OUTSIDE = "outside the folders this server works in"


def _error(result: Any) -> str:
    assert result.is_error, result
    return str(result.content[0].text)


async def test_the_working_directory_is_the_root(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    inside = root / "a.promptpack.yaml"
    inside.write_text(MINIMAL_PACK)
    elsewhere = tmp_path / "elsewhere.promptpack.yaml"
    elsewhere.write_text(PACK)
    escape = root / "escape.promptpack.yaml"
    escape.symlink_to(elsewhere)
    async with stdio_client(server(root)) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        checked = await session.call_tool("check", {"path": str(inside)})
        assert not checked.is_error, checked
        relative = await session.call_tool("check", {"path": "a.promptpack.yaml"})
        assert not relative.is_error, relative
        for tool in ("check", "fix", "cards", "topology"):
            for path in (
                str(elsewhere),
                "../elsewhere.promptpack.yaml",
                str(escape),
                "/etc/passwd",
            ):
                said = _error(await session.call_tool(tool, {"path": path}))
                assert OUTSIDE in said, (tool, path, said)
        said = _error(
            await session.call_tool("compare", {"base_path": str(elsewhere), "head_text": PACK})
        )
        assert OUTSIDE in said
    assert elsewhere.read_text() == PACK  # `fix` wrote nothing through the link


async def test_the_roots_the_client_declares(tmp_path: Path) -> None:
    declared = tmp_path / "declared"
    declared.mkdir()
    pack = declared / "a.promptpack.yaml"
    pack.write_text(PACK)
    started = tmp_path / "started"
    started.mkdir()
    (started / "b.promptpack.yaml").write_text(PACK)

    async def roots(context: Any) -> mcp_types.ListRootsResult:
        return mcp_types.ListRootsResult(roots=[mcp_types.Root(uri=declared.as_uri())])

    async with (
        stdio_client(server(started)) as (read, write),
        ClientSession(read, write, list_roots_callback=roots) as session,
    ):
        await session.initialize()
        fixed = await session.call_tool("fix", {"path": str(pack)})
        assert not fixed.is_error, fixed
        said = _error(
            await session.call_tool("check", {"path": str(started / "b.promptpack.yaml")})
        )
        assert OUTSIDE in said
    assert "fail_on_violation" not in pack.read_text()
