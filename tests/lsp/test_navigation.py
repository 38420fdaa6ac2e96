"""End to end: definition, references, highlights, rename, symbols, ranges, quick fixes.

Every test runs with the VS Code profile (UTF-16 positions) and the Neovim profile
(UTF-8); the pack puts emoji before the references on the same line, so positions
differ between the two encodings.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lsp_helpers import diagnostics_for, encoding_of, open_doc, pos, span_range, units
from lsprotocol import types
from pytest_lsp import LanguageClient

PACK = """\
id: nav-pack
name: "Navigation 😀 pack"
version: 1.0.0
template_engine: {version: v1, syntax: "{{variable}}"}
fragments:
  greeting: "Hello 👋 {{customer}}"
prompts:
  triage: {id: triage, name: "Triage 🚦", version: 1.0.0,
    system_template: "🚦 {{fragments.greeting}} {{customer}}",
    variables: [{name: customer, type: string, required: true}],
    description: "Routes 🚦", tools: [lookup_order, billing]}
  billing:
    id: billing
    name: Billing
    version: 1.0.0
    description: "Bills 💳"
    system_template: Hi
    tools: [lookup_ordr]
tools:
  lookup_order: {name: lookup_order, description: "Find 📦 orders"}
workflow:
  version: 1
  entry: start
  states:
    start: {prompt_task: triage, description: "🚦 first", on_event: {Billing: pay}}
    pay: {prompt_task: billing, terminal: true}
agents:
  entry: triage
  members: {triage: {description: "🚦 desk"}, billing: {}}
"""


def apply(text: str, edits: list[types.TextEdit], encoding: str) -> str:
    """Apply LSP text edits given in ``encoding`` positions."""
    lines = text.split("\n")

    def offset(p: types.Position) -> int:
        line = lines[p.line]
        chars = 0
        count = 0
        for ch in line:
            if count >= p.character:
                break
            count += units(ch, encoding)
            chars += 1
        return sum(len(x) + 1 for x in lines[: p.line]) + chars

    for edit in sorted(
        edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True
    ):
        start, end = offset(edit.range.start), offset(edit.range.end)
        text = text[:start] + edit.new_text + text[end:]
    return text


def doc_edits(edit: types.WorkspaceEdit | None, uri: str) -> list[types.TextEdit]:
    assert edit is not None
    if edit.changes is not None:
        assert list(edit.changes) == [uri]
        return list(edit.changes[uri])
    assert edit.document_changes
    out: list[types.TextEdit] = []
    for change in edit.document_changes:
        assert isinstance(change, types.TextDocumentEdit)
        assert change.text_document.uri == uri
        out.extend(e for e in change.edits if isinstance(e, types.TextEdit))
    return out


async def opened(client: LanguageClient, tmp_path: Path, text: str = PACK) -> str:
    return await open_doc(client, tmp_path / "nav.promptpack.yaml", text)


def doc(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


async def test_definition_after_emoji(client: LanguageClient, tmp_path: Path) -> None:
    uri = await opened(client, tmp_path)
    at = pos(client, PACK, "lookup_order, billing]", delta=3)
    result = await client.text_document_definition_async(
        types.DefinitionParams(text_document=doc(uri), position=at)
    )
    assert result == [
        types.Location(
            uri=uri, range=span_range(client, PACK, "lookup_order: {", length=len("lookup_order"))
        )
    ]
    # A placeholder after emoji goes to the variable declaration.
    at = pos(client, PACK, '{{customer}}",\n', delta=4)
    result = await client.text_document_definition_async(
        types.DefinitionParams(text_document=doc(uri), position=at)
    )
    assert result == [
        types.Location(
            uri=uri, range=span_range(client, PACK, "customer, type", length=len("customer"))
        )
    ]


async def test_references_and_highlights(client: LanguageClient, tmp_path: Path) -> None:
    uri = await opened(client, tmp_path)
    at = pos(client, PACK, "triage: {description", delta=2)  # the member key
    refs = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=doc(uri),
            position=at,
            context=types.ReferenceContext(include_declaration=True),
        )
    )
    assert refs is not None
    expected = [
        span_range(client, PACK, "triage: {id", length=6),
        span_range(client, PACK, "triage, name", length=6),
        span_range(client, PACK, "triage, description", length=6),
        span_range(client, PACK, "triage\n  members", length=6),
        span_range(client, PACK, "triage: {description", length=6),
    ]
    assert sorted((r.range.start.line, r.range.start.character) for r in refs) == sorted(
        (r.start.line, r.start.character) for r in expected
    )
    assert {r.range.end.character - r.range.start.character for r in refs} == {6}
    marks = await client.text_document_document_highlight_async(
        types.DocumentHighlightParams(text_document=doc(uri), position=at)
    )
    assert marks is not None and len(marks) == 5
    writes = [m for m in marks if m.kind == types.DocumentHighlightKind.Write]
    assert [w.range for w in writes] == [span_range(client, PACK, "triage: {id", length=6)]


async def test_rename_prompt(client: LanguageClient, tmp_path: Path) -> None:
    uri = await opened(client, tmp_path)
    at = pos(client, PACK, "billing]}", delta=1)
    prepared = await client.text_document_prepare_rename_async(
        types.PrepareRenameParams(text_document=doc(uri), position=at)
    )
    assert isinstance(prepared, types.PrepareRenamePlaceholder)
    assert prepared.placeholder == "billing"
    assert prepared.range == span_range(client, PACK, "billing]}", length=7)
    edit = await client.text_document_rename_async(
        types.RenameParams(text_document=doc(uri), position=at, new_name="payments")
    )
    out = apply(PACK, doc_edits(edit, uri), encoding_of(client))
    assert "billing" not in out
    # key, id, tools item, prompt_task, member key
    assert out.count("payments") == 5, out


async def test_rename_refused_with_a_reason(client: LanguageClient, tmp_path: Path) -> None:
    uri = await opened(client, tmp_path)
    at = pos(client, PACK, "lookup_order: {", delta=2)
    with pytest.raises(Exception, match="not a valid tool name"):
        await client.text_document_rename_async(
            types.RenameParams(text_document=doc(uri), position=at, new_name="look up")
        )


async def test_document_and_workspace_symbols(client: LanguageClient, tmp_path: Path) -> None:
    uri = await opened(client, tmp_path)
    result = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=doc(uri))
    )
    assert result is not None
    outline = {
        s.name: [c.name for c in (s.children or [])]
        for s in result
        if isinstance(s, types.DocumentSymbol)
    }
    assert outline == {
        "fragments": ["greeting"],
        "prompts": ["triage", "billing"],
        "tools": ["lookup_order"],
        "workflow": ["start", "pay"],
        "agents": ["triage", "billing"],
    }
    prompts = next(s for s in result if isinstance(s, types.DocumentSymbol) and s.name == "prompts")
    triage = (prompts.children or [])[0]
    assert [c.name for c in (triage.children or [])] == ["customer"]
    assert triage.selection_range == span_range(client, PACK, "triage: {id", length=6)
    # A second pack on disk in the workspace.
    other = tmp_path / "sub" / "other.promptpack.yaml"
    other.parent.mkdir()
    other.write_text(PACK.replace("lookup_order", "find_parcel"), encoding="utf-8")
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="parcel"))
    assert found is not None
    places = sorted((s.name, s.location.uri) for s in found)
    assert places == [("find_parcel", other.as_uri())]
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="lkord"))
    assert found is not None and {s.location.uri for s in found} == {uri}


async def test_folding_and_selection(client: LanguageClient, tmp_path: Path) -> None:
    uri = await opened(client, tmp_path)
    folds = await client.text_document_folding_range_async(
        types.FoldingRangeParams(text_document=doc(uri))
    )
    assert folds is not None
    lines = PACK.split("\n")
    spans = {(f.start_line, f.end_line) for f in folds}
    billing = lines.index("  billing:")
    assert (billing, billing + 6) in spans
    workflow = lines.index("workflow:")
    assert (workflow, workflow + 5) in spans
    at = pos(client, PACK, '{{customer}}",\n', delta=5)
    result = await client.text_document_selection_range_async(
        types.SelectionRangeParams(text_document=doc(uri), positions=[at])
    )
    assert result is not None and len(result) == 1
    first = result[0]
    assert first.range == span_range(client, PACK, 'customer}}",\n', length=8)
    assert first.parent is not None
    assert first.parent.range == span_range(client, PACK, '{{customer}}",\n', length=12)


async def test_quick_fix(client: LanguageClient, tmp_path: Path) -> None:
    uri = (tmp_path / "fix.promptpack.yaml").as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=PACK)
        )
    )
    diags = await diagnostics_for(client, uri, 1)
    undefined = [d for d in diags if d.code == "PP301"]
    assert len(undefined) == 1
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=doc(uri),
            range=undefined[0].range,
            context=types.CodeActionContext(diagnostics=undefined),
        )
    )
    assert actions is not None
    titles = [a.title for a in actions if isinstance(a, types.CodeAction)]
    assert titles == ["Create a definition for tool `lookup_ordr`", "Replace with `lookup_order`"]
    replace = next(
        a for a in actions if isinstance(a, types.CodeAction) and a.title.startswith("Replace")
    )
    assert replace.is_preferred and replace.kind == types.CodeActionKind.QuickFix
    out = apply(PACK, doc_edits(replace.edit, uri), encoding_of(client))
    assert "tools: [lookup_order]\n" in out
    create = next(
        a for a in actions if isinstance(a, types.CodeAction) and a.title.startswith("Create")
    )
    out = apply(PACK, doc_edits(create.edit, uri), encoding_of(client))
    assert "  lookup_ordr:\n    name: lookup_ordr\n" in out


CARDS_PACK = """\
id: support
name: Support
version: 1.0.0
template_engine: {version: v1, syntax: "{{variable}}"}
prompts:
  researcher: {id: researcher, name: R, version: 1.0.0, system_template: Hi, description: Finds}
agents:
  entry: researcher
  members:
    researcher: {tags: [research]}
"""

CARDS_CONFIG = (
    '# the member is `researcher`\n[cards.agents.researchr]\nurl = "https://r.example.com"\n'
)


async def test_quick_fix_of_the_configuration_edits_the_configuration_file(
    client: LanguageClient, tmp_path: Path
) -> None:
    """PP706 is reported on the pack's `agents` key, but the fault is the table name
    in `.pack-lsp.toml`: the fix edits that file, never the pack."""
    config = tmp_path / ".pack-lsp.toml"
    config.write_text(CARDS_CONFIG, encoding="utf-8")
    uri = await open_doc(client, tmp_path / "cards.promptpack.yaml", CARDS_PACK, wait=False)
    diags = [d for d in await diagnostics_for(client, uri, 1) if d.code == "PP706"]
    assert len(diags) == 1
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=doc(uri),
            range=diags[0].range,
            context=types.CodeActionContext(diagnostics=diags),
        )
    )
    assert actions is not None
    (fix,) = [a for a in actions if isinstance(a, types.CodeAction)]
    assert fix.title == "Replace with `researcher`" and fix.is_preferred
    config_uri = config.as_uri()
    edit = fix.edit
    assert edit is not None
    if edit.changes is not None:
        assert list(edit.changes) == [config_uri]
        edits = list(edit.changes[config_uri])
    else:
        assert edit.document_changes is not None
        (change,) = edit.document_changes
        assert isinstance(change, types.TextDocumentEdit)
        assert change.text_document.uri == config_uri
        edits = [e for e in change.edits if isinstance(e, types.TextEdit)]
    fixed = apply(CARDS_CONFIG, edits, encoding_of(client))
    assert fixed == CARDS_CONFIG.replace("agents.researchr]", "agents.researcher]")
