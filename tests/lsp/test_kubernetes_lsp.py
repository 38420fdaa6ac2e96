"""End to end: a pack embedded in a Kubernetes ConfigMap, in the editor.

The manifest (a ``PromptPack`` resource and its ConfigMap with the pack as JSON in a
literal block, then a ConfigMap holding a YAML pack; CRLF line ends, a tab, a
character outside the BMP) is opened under an ordinary name; diagnostics, hover,
completion and go-to-definition inside the embedded pack answer at the manifest's
own lines and columns, in both client profiles.
"""

from __future__ import annotations

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
    span_range,
)
from lsprotocol import types
from pytest_lsp import LanguageClient

MANIFEST = """\
# Deploys the support pack.
apiVersion: omnia.altairalabs.ai/v1alpha1
kind: PromptPack
metadata:
  name: support
spec:
  source:
    type: configmap
    configMapRef:
      name: support-pack
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: support-pack
data:
  pack.json: |
    {
      "id": "support",
      "name": "Support \U0001f600",
      "version": "1.0.0",
      "template_engine": {"version": "v1", "syntax": "{{variable}}"},
      "tools": {
        "lookup_order": {"name": "lookup_order", "description": "Find an order"}
      },
      "prompts": {
        "support": {
          "id": "support",
          "name": "Support",
          "version": "1.0.0",
          "system_template": "Help with the order.",
          "tools": ["lookup_order", "lookup_ordr"]
        }
      }
    }
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: faq-pack
data:
  faq.pack.yaml: |
    id: faq
    name: FAQ
    version: 1.0.0
    template_engine: {version: v1, syntax: "{{variable}}"}
    tools:
      search_docs: {name: search_docs, description: Search the documentation}
    prompts:
      faq:
        id: faq
        name: FAQ
        version: 1.0.0
        system_template:	Answer from the docs.
        tools:
          - search_docs
""".replace("\n", "\r\n")


@pytest_lsp.fixture(config=server_config(), params=PROFILES)
async def kclient(
    lsp_client: LanguageClient, request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[LanguageClient]:
    await lsp_client.initialize_session(initialize_params(request.param, tmp_path))
    yield lsp_client
    await lsp_client.shutdown_session()


async def test_embedded_pack_in_the_editor(kclient: LanguageClient, tmp_path: Path) -> None:
    client = kclient
    uri = await open_doc(client, tmp_path / "deploy.yaml", MANIFEST, wait=False)
    found = await diagnostics_for(client, uri, 1)
    # The FAQ pack is YAML under another key than `pack.json`: Omnia, the target of packs
    # in ConfigMaps, never reads it (PT001) and would refuse it as YAML (PT002).
    assert [(str(d.code), d.range) for d in found] == [
        ("PP301", span_range(client, MANIFEST, '"lookup_ordr"')),
        ("PT001", span_range(client, MANIFEST, "faq.pack.yaml")),
        ("PT002", span_range(client, MANIFEST, "id: faq", length=2)),
    ]

    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=pos(client, MANIFEST, '"lookup_order"', 3, nth=2),
        )
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "Find an order" in hover.contents.value

    definition = await client.text_document_definition_async(
        types.DefinitionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=pos(client, MANIFEST, '"lookup_order"', 3, nth=2),
        )
    )
    assert isinstance(definition, list) and definition
    target = definition[0]
    assert isinstance(target, types.Location) and target.uri == uri
    assert target.range.start == pos(client, MANIFEST, '"lookup_order"', 1)

    completion = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=pos(client, MANIFEST, "- search_docs", 5),
        )
    )
    assert completion is not None
    items = completion.items if isinstance(completion, types.CompletionList) else completion
    assert [item.label for item in items] == ["search_docs"]

    # Outside the embedded pack there is nothing to answer.
    outside = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=pos(client, MANIFEST, "configMapRef"),
        )
    )
    assert outside is None

    # An edit inside the pack is checked again at once.
    fixed = MANIFEST.replace('"lookup_ordr"', '"lookup_order"')
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=fixed)],
        )
    )
    after = await diagnostics_for(client, uri, 2)
    assert [str(d.code) for d in after] == ["PT001", "PT002"]
