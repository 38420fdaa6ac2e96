"""End to end: deploy-target findings (the PT codes) in the editor, in both client
profiles (UTF-16 and UTF-8 positions).

Every PT rule's documented example is opened in a folder of its own, with the
``.pack-lsp.toml`` it is documented with; the server must report the same PT
diagnostics, at the same places, as the core. Targets also come from the editor's
settings (``packLsp.targets``), the hover on ``$schema`` says whether each target
loads the pack, and the rendered-prompt command renders as a target does.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsp_helpers import (
    PROFILES,
    diagnostics_for,
    initialize_params,
    open_doc,
    pos,
    server_config,
    units,
)
from lsprotocol import types
from pytest_lsp import LanguageClient

from pack_lsp.core.base.text import Span
from pack_lsp.core.checks.analysis import analyze
from pack_lsp.core.checks.examples import FILE_NAMES
from pack_lsp.core.checks.registry import REGISTRY
from pack_lsp.core.model.config import load_for

RULES = sorted((r for r in REGISTRY.values() if r.code.startswith("PT")), key=lambda r: r.code)


def lsp_range(client: LanguageClient, text: str, span: Span) -> types.Range:
    def position(offset: int) -> types.Position:
        line = text.count("\n", 0, offset)
        start = text.rfind("\n", 0, offset) + 1
        return types.Position(line=line, character=units(text[start:offset], _encoding(client)))

    return types.Range(start=position(span.start), end=position(span.end))


def _encoding(client: LanguageClient) -> str:
    caps = client.capabilities
    offered = caps.general.position_encodings if caps and caps.general else None
    return str(offered[0]) if offered else "utf-16"


async def test_every_target_finding(client: LanguageClient, tmp_path: Path) -> None:
    """Each PT example reports, over LSP, exactly the PT diagnostics the core reports."""
    for rule in RULES:
        folder = tmp_path / rule.code
        folder.mkdir()
        if rule.example_config:
            (folder / ".pack-lsp.toml").write_text(rule.example_config, encoding="utf-8")
        path = folder / Path(FILE_NAMES[rule.example_kind]).name
        path.write_text(rule.example, encoding="utf-8")
        expected = analyze(rule.example, path=path, config=load_for(path))
        want = sorted(
            (d.code, repr(lsp_range(client, rule.example, d.span)), d.message)
            for d in expected.diagnostics
            if d.code.startswith("PT")
        )
        assert rule.code in {code for code, _, _ in want}, rule.code
        uri = await open_doc(client, path, rule.example, wait=False)
        got = await diagnostics_for(client, uri, 1)
        assert (
            sorted(
                (str(d.code), repr(d.range), d.message) for d in got if str(d.code).startswith("PT")
            )
            == want
        ), rule.code


PACK = json.dumps(
    {
        "$schema": "https://promptpack.org/schema/v1.8.0/promptpack.schema.json",
        "id": "support",
        "name": "Support \U0001f600",
        "version": "1.0.0",
        "template_engine": {"version": "v1", "syntax": "{{variable}}"},
        "fragments": {"tone": "Be kind."},
        "prompts": {
            "support": {
                "id": "support",
                "name": "Support",
                "version": "1.0.0",
                "system_template": "Help \U0001f600 {{who}}. {{fragments.tone}}",
                "provider": "default",
                "variables": [{"name": "who", "type": "string", "required": True}],
            }
        },
    },
    indent=2,
    ensure_ascii=False,
)

SETTINGS = {"packLsp": {"targets": ["omnia", "promptpack-python", "promptkit"]}}


@pytest_lsp.fixture(config=server_config(), params=PROFILES)
async def tclient(
    lsp_client: LanguageClient, request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[LanguageClient]:
    await lsp_client.initialize_session(initialize_params(request.param, tmp_path, SETTINGS))
    yield lsp_client
    await lsp_client.shutdown_session()


async def test_targets_from_editor_settings(tclient: LanguageClient, tmp_path: Path) -> None:
    client = tclient
    uri = await open_doc(client, tmp_path / "pack.promptpack.json", PACK, wait=False)
    found = await diagnostics_for(client, uri, 1)
    pt = sorted((str(d.code), d.range.start.line, d.range.start.character) for d in found)
    schema = pos(client, PACK, '"https://promptpack')
    provider = pos(client, PACK, '"provider"')
    literal = pos(client, PACK, "{{fragments.tone}}")
    assert [p for p in pt if p[0].startswith("PT")] == sorted(
        [
            ("PT008", schema.line, schema.character),
            ("PT003", provider.line, provider.character),
            ("PT021", provider.line, provider.character),
            ("PT024", literal.line, literal.character),
        ]
    )

    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=pos(client, PACK, "promptpack.org"),
        )
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    shown = hover.contents.value
    assert "- Omnia (`c7428e31`): refuses it (2 problems: PT003, PT008)" in shown
    assert "- promptpack-python (`c78e36bd`): refuses it (1 problem: PT021)" in shown
    assert "- PromptKit 1.5.11:" in shown

    rendered = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command="pack-lsp.renderPrompt",
            arguments=[uri, "support", {"who": "Ann"}, "promptpack-python"],
        )
    )
    assert rendered["target"] == "promptpack-python"
    assert rendered["text"] == "Help \U0001f600 Ann. {{fragments.tone}}"
    assert rendered["literal"] == ["{{fragments.tone}}"]
    listed = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="pack-lsp.renderPrompt", arguments=[uri])
    )
    assert listed == {
        "prompts": ["support"],
        "targets": ["omnia", "promptpack-python", "promptkit"],
    }
