"""Completion, hover and semantic tokens through the real server, under both profiles."""

from __future__ import annotations

from pathlib import Path

from lsp_helpers import encoding_of, open_doc, pos, span_range, units
from lsprotocol import types
from packs import PACK
from pytest_lsp import LanguageClient


async def _complete(
    client: LanguageClient, uri: str, position: types.Position
) -> list[types.CompletionItem]:
    result = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=position
        )
    )
    assert isinstance(result, types.CompletionList)
    return list(result.items)


async def test_tool_items_after_emoji(client: LanguageClient, tmp_path: Path) -> None:
    text = PACK.replace("    tools: [refund]", "    tools: [refund, ]  # 😀")
    text = text.replace('"Support 😀 Pack"', '"Support 😀 Pack"')
    uri = await open_doc(client, tmp_path / "a.promptpack.yaml", text)
    items = await _complete(client, uri, pos(client, text, "refund, ", len("refund, ")))
    labels = {i.label: i for i in items}
    assert set(labels) == {"lookup_order"}
    assert labels["lookup_order"].detail == "tool: Find an order by its number"
    edit = labels["lookup_order"].text_edit
    assert isinstance(edit, types.TextEdit)
    at = pos(client, text, "refund, ", len("refund, "))
    assert edit.range == types.Range(start=at, end=at)


async def test_placeholder_completion_on_emoji_line(client: LanguageClient, tmp_path: Path) -> None:
    text = PACK.replace(
        '"Héllo 😀 {{user_name}}, {{fragments.greeting}}"', '"Héllo 😀 {{us}} 😀 {{fragments.}}"'
    )
    uri = await open_doc(client, tmp_path / "a.promptpack.yaml", text)
    items = await _complete(client, uri, pos(client, text, "{{us}}", 4))
    by_label = {i.label: i for i in items}
    assert "user_name" in by_label and "fragments.greeting" in by_label
    edit = by_label["user_name"].text_edit
    assert isinstance(edit, types.TextEdit)
    assert edit.range == span_range(client, text, "us}}", length=2)
    items = await _complete(client, uri, pos(client, text, "{{fragments.", 12))
    assert [i.label for i in items] == ["fragments.greeting"]


async def test_keys_and_values_mid_edit(client: LanguageClient, tmp_path: Path) -> None:
    # An unfinished document: the key being typed has no colon yet.
    text = PACK.replace(
        "    description: Routes each request\n",
        "    description: Routes each request\n    tool_policy:\n"
        "      tool_choice: \n      max_r\n",
    )
    uri = await open_doc(client, tmp_path / "a.promptpack.yaml", text)
    items = await _complete(client, uri, pos(client, text, "max_r", 5))
    labels = [i.label for i in items]
    assert "max_rounds" in labels and "tool_choice" not in labels
    doc = next(i for i in items if i.label == "max_rounds").documentation
    assert isinstance(doc, types.MarkupContent) and doc.value
    items = await _complete(client, uri, pos(client, text, "tool_choice: ", 13))
    assert [i.label for i in items] == ["auto", "required", "none"]


async def test_members_and_states(client: LanguageClient, tmp_path: Path) -> None:
    text = PACK + (
        "agents:\n  entry: \n  members:\n    triage: {tags: [support]}\n    \n"
        "workflow:\n  version: 1\n  entry: start\n  states:\n    start:\n"
        "      prompt_task: \n      on_event:\n        Done: \n    end:\n      terminal: true\n"
    )
    uri = await open_doc(client, tmp_path / "a.promptpack.yaml", text)
    members_line = text.index("    \nworkflow")
    items = await _complete(client, uri, pos(client, text, "    \nworkflow", 4))
    assert [i.label for i in items] == ["billing"]
    assert members_line > 0
    items = await _complete(client, uri, pos(client, text, "entry: \n", 7))
    assert [i.label for i in items] == ["triage"]
    items = await _complete(client, uri, pos(client, text, "prompt_task: ", 13))
    assert {i.label for i in items} == {"triage", "billing"}
    items = await _complete(client, uri, pos(client, text, "Done: ", 6))
    assert {i.label for i in items} == {"start", "end"}


async def test_json_completion(client: LanguageClient, tmp_path: Path) -> None:
    text = (
        '{"id": "x", "name": "X 😀", "version": "1.0.0", "template_engine": {"version": '
        '"v1", "syntax": "{{variable}}"}, "tools": {"t1": {"name": "t1", "description": '
        '"T"}}, "prompts": {"p": {"id": "p", "name": "P", "version": "1.0.0", '
        '"system_template": "Hi", "tools": [""], "tool_policy": {"tool_choice": ""}}}}'
    )
    uri = await open_doc(client, tmp_path / "a.promptpack.json", text)
    items = await _complete(client, uri, pos(client, text, '[""]', 2))
    assert [i.label for i in items] == ["t1"]
    items = await _complete(client, uri, pos(client, text, '"tool_choice": "', 16))
    assert [i.label for i in items] == ["auto", "required", "none"]


async def test_snippets(client: LanguageClient, tmp_path: Path) -> None:
    text = PACK.replace("  refund:\n", "  \n  refund:\n", 1)
    uri = await open_doc(client, tmp_path / "a.promptpack.yaml", text)
    items = await _complete(client, uri, pos(client, text, "  \n  refund:", 2))
    snippet = [i for i in items if i.kind == types.CompletionItemKind.Snippet]
    assert [i.label for i in snippet] == ["new tool"]
    assert snippet[0].insert_text_format == types.InsertTextFormat.Snippet
    items = await _complete(client, uri, types.Position(line=text.count("\n"), character=0))
    assert "agents section" in [i.label for i in items]
    assert "agents" in [i.label for i in items]


async def _hover(client: LanguageClient, uri: str, position: types.Position) -> types.Hover | None:
    return await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=position)
    )


def _text(h: types.Hover | None) -> str:
    assert h is not None
    assert isinstance(h.contents, types.MarkupContent)
    return h.contents.value


async def test_hover(client: LanguageClient, tmp_path: Path) -> None:
    text = PACK + "agents:\n  entry: triage\n  members:\n    triage: {tags: [support]}\n"
    uri = await open_doc(client, tmp_path / "a.promptpack.yaml", text)
    h = await _hover(client, uri, pos(client, text, "- lookup_order", 3))
    assert "Find an order by its number" in _text(h) and "`order_id`" in _text(h)
    assert h is not None and h.range == span_range(client, text, "lookup_order", nth=2)
    h = await _hover(client, uri, pos(client, text, "user_name}},", 1))
    assert "variable `user_name`" in _text(h) and "required" in _text(h)
    assert h is not None and h.range == span_range(client, text, "user_name}},", length=9)
    h = await _hover(client, uri, pos(client, text, "tools: [refund]", 1))
    assert "Names of tools" in _text(h)
    h = await _hover(client, uri, pos(client, text, "entry: triage", 8))
    body = _text(h)
    assert "id: `triage`" in body and "tags: support" in body and "text/plain" in body


async def test_semantic_tokens(client: LanguageClient, tmp_path: Path) -> None:
    text = PACK.replace("Bill {{user_name}}", "Bill 😀 {{nope}} {{fragments.gone}}")
    uri = await open_doc(client, tmp_path / "a.promptpack.yaml", text)
    result = await client.text_document_semantic_tokens_full_async(
        types.SemanticTokensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert result is not None
    data = list(result.data)
    tokens = []
    line = start = 0
    for i in range(0, len(data), 5):
        dl, ds, length, kind, mods = data[i : i + 5]
        line += dl
        start = ds if dl else start + ds
        tokens.append((line, start, length, kind, mods))
    enc = encoding_of(client)
    bill = text.index("Bill 😀")
    line_no = text.count("\n", 0, bill)
    line_text = text.splitlines()[line_no]
    nope = line_text.index("nope")
    expected_nope = (line_no, units(line_text[:nope], enc), 4, 0, 1)
    assert expected_nope in tokens
    gone = line_text.index("fragments.gone")
    assert (line_no, units(line_text[:gone], enc), 14, 1, 1) in tokens
    héllo_line = text.count("\n", 0, text.index("Héllo"))
    assert [t[3:] for t in tokens if t[0] == héllo_line] == [(0, 0), (1, 0)]
