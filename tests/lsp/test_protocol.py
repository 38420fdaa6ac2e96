"""Protocol behaviour: encodings, sync, diagnostics push/pull, settings, robustness."""

from __future__ import annotations

from pathlib import Path

from lsp_helpers import diagnostics_for, open_doc, span_range
from lsprotocol import types
from pytest_lsp import LanguageClient

EMOJI_PACK = """\
id: demo
name: "Café 😀"
version: 1.0.0
template_engine: {version: v1, syntax: "{{variable}}"}
prompts:
  support: {id: 😀😀, name: Support, version: 1.0.0, system_template: Hi, tools: x}
"""


async def test_diagnostic_range_after_emoji(client: LanguageClient, tmp_path: Path) -> None:
    uri = (tmp_path / "demo.promptpack.yaml").as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="yaml", version=1,
                                             text=EMOJI_PACK)))
    diags = await diagnostics_for(client, uri, 1)
    by_code = {d.code: d for d in diags}
    assert "PP103" in by_code, diags
    assert by_code["PP103"].range == span_range(client, EMOJI_PACK, "x}", length=1)


async def test_open_non_pack_yaml_gets_nothing(client: LanguageClient, tmp_path: Path) -> None:
    await open_doc(client, tmp_path / "other.yaml", "a: 1\n", wait=False)
    uri = await open_doc(client, tmp_path / "x.promptpack.yaml", "id: 1\n")
    assert uri in client.diagnostics
    assert (tmp_path / "other.yaml").as_uri() not in client.diagnostics
