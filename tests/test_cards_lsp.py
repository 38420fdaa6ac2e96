"""Agent Cards over LSP: promptpack/agentCards, promptpack/topology, code lenses."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsp_helpers import PROFILES, initialize_params, open_doc, server_config, span_range
from lsprotocol import types
from pytest_lsp import LanguageClient

TEXT = """\
id: vision
name: "Vision 😀 team"
version: 1.0.0
template_engine: {version: v1, syntax: "{{variable}}"}
prompts:
  coordinator:
    id: coordinator
    name: "Coördinator 😀"
    version: 1.0.0
    description: Coordinates
    system_template: Coordinate.
    tools: [describer]
  describer:
    id: describer
    name: Describer
    version: 2.0.0
    description: Describes images
    system_template: Describe.
agents:
  entry: coordinator
  members:
    coordinator: {tags: [lead]}   # 😀
    describer: {tags: [vision], input_modes: [text/plain, image/*]}
"""


@pytest_lsp.fixture(config=server_config())
async def client(
    lsp_client: LanguageClient, request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[LanguageClient]:
    await lsp_client.initialize_session(initialize_params(request.param, tmp_path))
    yield lsp_client
    await lsp_client.shutdown_session()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "client" in metafunc.fixturenames:
        metafunc.parametrize("client", PROFILES, indirect=True)


async def request(client: LanguageClient, method: str, params: dict[str, Any]) -> Any:
    return await client.protocol.send_request_async(method, params)


def as_dict(value: Any) -> Any:
    """Results of custom requests arrive as attribute objects; compare them as data."""
    if hasattr(value, "_asdict"):
        return {k: as_dict(v) for k, v in value._asdict().items()}
    if isinstance(value, list | tuple):
        return [as_dict(v) for v in value]
    if hasattr(value, "__dict__") and not isinstance(value, type):
        return {k: as_dict(v) for k, v in vars(value).items()}
    return value


async def test_agent_cards_request(client: LanguageClient, tmp_path: Path) -> None:
    uri = await open_doc(client, tmp_path / "team.promptpack.yaml", TEXT)
    result = as_dict(await request(client, "promptpack/agentCards", {"textDocument": {"uri": uri}}))
    assert result["entry"] == "coordinator"
    assert set(result["cards"]) == {"coordinator", "describer"}
    describer = result["cards"]["describer"]
    assert describer["version"] == "2.0.0"
    assert describer["skills"][0]["inputModes"] == ["text/plain", "image/*"]
    assert result["localDefault"] is True
    v1 = as_dict(
        await request(
            client, "promptpack/agentCards", {"textDocument": {"uri": uri}, "a2aVersion": "1.0"}
        )
    )
    assert v1["cards"]["describer"]["supportedInterfaces"][0]["protocolVersion"] == "1.0"


async def test_topology_request(client: LanguageClient, tmp_path: Path) -> None:
    uri = await open_doc(client, tmp_path / "team.promptpack.yaml", TEXT)
    result = as_dict(await request(client, "promptpack/topology", {"textDocument": {"uri": uri}}))
    # The client turns objects into named tuples and renames the keyword `from`;
    # the values and their order are what was sent.
    assert [tuple(e.values()) for e in result["edges"]] == [
        ("coordinator", "describer", "describer")
    ]
    assert list(result["edges"][0])[1:] == ["to", "via"]
    assert result["mermaid"].startswith("flowchart LR")


async def test_code_lens_above_members(client: LanguageClient, tmp_path: Path) -> None:
    uri = await open_doc(client, tmp_path / "team.promptpack.yaml", TEXT)
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert lenses is not None
    titles = [(lens.command.title if lens.command else None, lens.range) for lens in lenses]
    assert titles == [
        ("Agent Card · entry agent", span_range(client, TEXT, "coordinator: {tags", length=11)),
        ("Agent Card", span_range(client, TEXT, "describer: {tags", length=9)),
    ]
    command = lenses[1].command
    assert command is not None
    card = as_dict(
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=command.command, arguments=command.arguments)
        )
    )
    assert card["name"] == "Describer"


async def test_unknown_document_answers_empty(client: LanguageClient, tmp_path: Path) -> None:
    result = as_dict(
        await request(
            client,
            "promptpack/agentCards",
            {"textDocument": {"uri": (tmp_path / "x.yaml").as_uri()}},
        )
    )
    assert result == {"entry": None, "cards": {}}
