"""`pack-lsp mcp` through the MCP SDK's own client over stdio: list the tools, call
each, check a pack, apply its fixes, see it clean. Skipped without the optional
`mcp` dependency (`pip install 'pack-lsp[mcp]'`; the test extra installs it)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the optional MCP SDK is not installed (pack-lsp[mcp])")

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from pack_lsp.cli import main

PACK = """\
id: support
name: Support
version: 1.0.0
template_engine: {version: v1, syntax: "{{variable}}"}
prompts:
  support:
    id: support
    name: Support
    version: 1.0.0
    description: Answers questions
    system_template: Help
    validators:
      - type: banned_words
        params: {words: [refund]}
        fail_on_violation: true
agents:
  entry: support
  members:
    support:
      input_modes: [text]
"""


def _data(result: Any) -> Any:
    assert not result.is_error, result
    if result.structured_content is not None:
        content = result.structured_content
        return content.get("result", content) if set(content) == {"result"} else content
    return json.loads(result.content[0].text)


def server(cwd: Path) -> StdioServerParameters:
    """``pack-lsp mcp`` started in ``cwd`` (its root when the client declares none),
    with this environment (the SDK passes a minimal one by default: the server would
    not import the pack-lsp under test)."""
    return StdioServerParameters(
        command=sys.executable, args=["-m", "pack_lsp", "mcp"], cwd=cwd, env=dict(os.environ)
    )


async def test_mcp_server_over_stdio(tmp_path: Path) -> None:
    pack = tmp_path / "a.promptpack.yaml"
    pack.write_text(PACK)
    params = server(tmp_path)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = {t.name: t for t in (await session.list_tools()).tools}
        assert set(tools) == {
            "check",
            "fix",
            "explain_rule",
            "cards",
            "topology",
            "render_prompt",
            "compare",
        }
        assert all(t.input_schema.get("type") == "object" for t in tools.values())
        assert "path" in tools["check"].input_schema["properties"]

        checked = _data(await session.call_tool("check", {"path": str(pack)}))
        diagnostics = checked["files"][0]["diagnostics"]
        assert {"PP111", "PP206"} <= {d["code"] for d in diagnostics}
        assert any(f["safe"] for d in diagnostics for f in d.get("fixes", []))

        inline = _data(await session.call_tool("fix", {"text": PACK}))
        assert "fail_on_violation" not in inline["text"] and len(inline["applied"]) == 2

        fixed = _data(await session.call_tool("fix", {"path": str(pack)}))
        assert fixed["written"] is True
        again = _data(await session.call_tool("check", {"path": str(pack)}))
        left = again["files"][0]["diagnostics"]
        assert not any(d["code"] in ("PP111", "PP206") for d in left)
        assert not any(f["safe"] for d in left for f in d.get("fixes", []))

        rule = _data(await session.call_tool("explain_rule", {"code": "pp111"}))
        assert rule["code"] == "PP111" and "remove-entry" in rule["safeFixes"]
        unknown = await session.call_tool("explain_rule", {"code": "PP999"})
        assert unknown.is_error and "unknown code" in unknown.content[0].text
        missing = await session.call_tool("check", {"path": str(tmp_path / "none.yaml")})
        assert missing.is_error

        cards = _data(await session.call_tool("cards", {"path": str(pack)}))
        assert cards["entry"] == "support" and "support" in cards["cards"]
        graph = _data(await session.call_tool("topology", {"path": str(pack)}))
        assert graph
        rendered = _data(
            await session.call_tool("render_prompt", {"path": str(pack), "prompt": "support"})
        )
        assert rendered["text"].rstrip("\n") == "Help" and rendered["tokens"] >= 1
        templated = PACK.replace("system_template: Help", "system_template: Hi {{name}}")
        filled = _data(
            await session.call_tool(
                "render_prompt",
                {"text": templated, "prompt": "support", "variables": {"name": "Ada"}},
            )
        )
        assert filled["text"].rstrip("\n") == "Hi Ada"
        spaced = PACK.replace("system_template: Help", "system_template: Hi {{ name }}")
        as_python = _data(
            await session.call_tool(
                "render_prompt",
                {"text": spaced, "prompt": "support", "target": "promptpack-python"},
            )
        )
        assert as_python["target"] == "promptpack-python"
        assert as_python["literal"] == ["{{ name }}"] and "{{ name }}" in as_python["text"]
        not_a_target = await session.call_tool(
            "render_prompt", {"text": PACK, "prompt": "support", "target": "heroku"}
        )
        assert not_a_target.is_error and "not a deploy target" in not_a_target.content[0].text
        unknown_prompt = await session.call_tool(
            "render_prompt", {"path": str(pack), "prompt": "billing"}
        )
        assert unknown_prompt.is_error
        head = PACK.replace("input_modes: [text]", "input_modes: [text, image/png]")
        changes = _data(await session.call_tool("compare", {"base_text": PACK, "head_text": head}))
        assert [c["kind"] for c in changes["changes"]] == ["modes-widened"]
        assert changes["breaking"] is False

        resources = await session.list_resources()
        assert any(str(r.uri) == "pack-lsp://docs/rules.md" for r in resources.resources)
        doc = await session.read_resource("pack-lsp://docs/rules.md")
        assert "PP111" in doc.contents[0].text


def test_mcp_refuses_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mcp", "--bogus"]) == 2
    assert "takes no arguments" in capsys.readouterr().err
