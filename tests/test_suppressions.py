"""Inline suppression comments: finding comments, applying them, reporting problems.

The golden cases in tests/golden/suppressions/ pin the exact messages and ranges;
these tests cover what a golden file cannot show (tags, quick-fix data, JSON files,
the language server) and the comment finder on its own.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsp_helpers import diagnostics_for, editor_client
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from pack_lsp.core.base import kinds
from pack_lsp.core.base.diagnostics import Severity, Tag
from pack_lsp.core.base.text import LineIndex
from pack_lsp.core.checks.analysis import analyze
from pack_lsp.core.checks.suppress import collect, find_comments
from pack_lsp.core.model.config import Config
from pack_lsp.core.syntax.yamltree import parse
from samples import MINIMAL_PACK

HEAD = MINIMAL_PACK


def check(
    text: str, path: str = "demo.promptpack.yaml", config: Config | None = None
) -> list[tuple[str, str]]:
    analysis = analyze(text, path=path, config=config, kind=kinds.PROMPTPACK)
    return [(d.code, text[d.span.start : d.span.end]) for d in analysis.diagnostics]


def comments_of(text: str) -> list[str]:
    parsed = parse(text)
    return [text[c.span.start : c.span.end] for c in find_comments(text, parsed.root, parsed.lines)]


# ------------------------------------------------------------------- finding comments


def test_hash_inside_quoted_scalars_is_not_a_comment() -> None:
    text = "a: \"x # not\"  # one\nb: 'y # not' # two\nc: \"multi\n  line # not\"\n'k # not': v\n"
    assert comments_of(text) == ["# one", "# two"]


def test_hash_inside_a_block_scalar_is_not_a_comment_but_its_header_may_have_one() -> None:
    text = (
        "a: |  # header\n"
        "  text # not\n"
        "  # not either\n"
        "# after\n"
        "b: >-\n"
        "    folded # not\n"
        "\n"
        "  # less indented: a comment\n"
        "c: 1\n"
    )
    assert comments_of(text) == ["# header", "# after", "# less indented: a comment"]


def test_hash_needs_a_blank_before_it() -> None:
    assert comments_of("a: plain#text # real\nb: [x,#y]\n#top\n") == ["# real", "#top"]


def test_comments_in_flow_collections_and_crlf() -> None:
    text = "a: {x: 1,  # c1\r\n   y: '#'}  # c2\r\n"
    assert comments_of(text) == ["# c1", "# c2"]


def test_collect_groups_line_and_file_suppressions() -> None:
    text = "# pack-lsp: ignore-file[PP101]\nid: x  # pack-lsp: ignore[PP102,PP103]\n"
    parsed = parse(text)
    sups = collect(text, parsed.root, LineIndex(text))
    assert [e.code for s in sups.file_wide for e in s.entries] == ["PP101"]
    assert [e.code for e in sups.by_line[1][0].entries] == ["PP102", "PP103"]
    assert not sups.problems


def test_text_without_the_marker_is_not_scanned() -> None:
    parsed = parse("a: 1 # ignore[PP101]\n")
    assert not collect(parsed.text, parsed.root, parsed.lines)


# ----------------------------------------------------------------------- applying


def test_line_suppression_silences_only_its_line() -> None:
    text = HEAD + "agent: {}  # pack-lsp: ignore[PP102]\nagentz: {}\n"
    assert check(text) == [("PP102", "agentz")]


def test_suppression_applies_to_diagnostics_starting_on_the_line() -> None:
    # The PP103 range starts on the `support:` line and ends lines later.
    text = HEAD.replace(
        "  support: {id: support, name: Support, version: 1.0.0, system_template: Hi}",
        "  support: [a,  # pack-lsp: ignore[PP103]\n    b]",
    )
    assert check(text) == []
    moved = HEAD.replace(
        "  support: {id: support, name: Support, version: 1.0.0, system_template: Hi}",
        "  support: [a,\n    b]  # pack-lsp: ignore[PP103]",
    )
    assert [code for code, _ in check(moved)] == ["PP103", "PP801"]


def test_unused_suppression_is_a_faded_hint_on_the_code() -> None:
    text = HEAD + "agent: {}  # pack-lsp: ignore[PP102, PP101]\n"
    analysis = analyze(text, path="x.promptpack.yaml", kind=kinds.PROMPTPACK)
    (unused,) = analysis.diagnostics
    assert unused.code == "PP801"
    assert unused.severity is Severity.HINT
    assert unused.tags == (Tag.UNNECESSARY,)
    assert text[unused.span.start : unused.span.end] == "PP101"
    start, end = unused.data["remove"]
    assert text[:start] + text[end:] == HEAD + "agent: {}  # pack-lsp: ignore[PP102]\n"


def test_removing_the_only_code_removes_the_comment() -> None:
    text = HEAD + "name2: x  # pack-lsp: ignore[PP103]\n"
    unused = [d for d in analyze(text, kind=kinds.PROMPTPACK).diagnostics if d.code == "PP801"]
    start, end = unused[0].data["remove"]
    assert text[:start] + text[end:] == HEAD + "name2: x\n"
    own_line = HEAD + "# pack-lsp: ignore[PP103]\n"
    (hint,) = analyze(own_line, kind=kinds.PROMPTPACK).diagnostics
    start, end = hint.data["remove"]
    assert own_line[:start] + own_line[end:] == HEAD


def test_unknown_code_gets_a_suggestion() -> None:
    text = HEAD + "agent: {}  # pack-lsp: ignore[PP1O2]\n"
    diags = analyze(text, kind=kinds.PROMPTPACK).diagnostics
    unknown = [d for d in diags if d.code == "PP803"]
    assert len(unknown) == 1
    assert unknown[0].severity is Severity.WARNING
    assert "did you mean `PP102`" in unknown[0].message
    assert text[unknown[0].span.start : unknown[0].span.end] == "PP1O2"
    # An unknown code silences nothing.
    assert "PP102" in [d.code for d in diags]


def test_file_suppression_after_content_is_ignored() -> None:
    text = HEAD + "agent: {}\n# pack-lsp: ignore-file[PP102]\n"
    assert [code for code, _ in check(text)] == ["PP102", "PP804"]
    assert check("# pack-lsp: ignore-file[PP102]\n" + HEAD + "agent: {}\n") == []


def test_file_suppression_may_follow_a_document_marker_and_blank_lines() -> None:
    text = "---\n\n# licence header\n# pack-lsp: ignore-file[PP102]\n" + HEAD + "agent: {}\n"
    assert check(text) == []


def test_suppressions_also_silence_their_own_problems() -> None:
    text = HEAD + "agent: {}  # pack-lsp: ignore[PP102, PP9999, PP803]\n"
    assert check(text) == []


def test_configuration_applies_to_suppression_problems() -> None:
    text = HEAD + "agent: {}  # pack-lsp: ignore[PP102, PP101]\n"
    assert check(text, config=Config(ignore=("PP801",))) == []
    severe = Config(severity={"PP801": Severity.WARNING})
    diags = analyze(text, config=severe, kind=kinds.PROMPTPACK).diagnostics
    assert [(d.code, d.severity) for d in diags] == [("PP801", Severity.WARNING)]


def test_unused_is_not_reported_while_the_yaml_is_broken() -> None:
    text = "id: demo  # pack-lsp: ignore[PP102]\nprompts: [\n"
    assert [code for code, _ in check(text)] == ["PP001"]


def test_json_files_have_no_suppression_comments() -> None:
    # In YAML `#` after a blank is a comment; a .json file is strict JSON, where it is
    # a syntax error, never a suppression: use the configuration's `ignore` there.
    text = '{"id": "demo"}  # pack-lsp: ignore[PP101]\n'
    yaml_codes = [code for code, _ in check(text, path="demo.promptpack.yaml")]
    json_codes = [code for code, _ in check(text, path="demo.pack.json")]
    assert "PP101" not in yaml_codes
    assert json_codes == ["PP013"]


def test_marker_inside_a_string_does_nothing() -> None:
    text = HEAD + 'description: "see # pack-lsp: ignore[PP9999]"\n'
    assert check(text) == []


def test_random_bytes_never_crash() -> None:
    import random

    rng = random.Random(7)
    alphabet = "ab:#[]{}|>-'\"\n \tPP102,pack-lsp ignore-file"
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 80)))
        analyze(HEAD + text, kind=kinds.PROMPTPACK)
        analyze("# pack-lsp: " + text, kind=kinds.PROMPTPACK)


# ------------------------------------------------------------------ language server


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[sys.executable, "-m", "pack_lsp"], client_factory=editor_client
    )
)
async def client(lsp_client: LanguageClient, tmp_path: Path) -> AsyncIterator[LanguageClient]:
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=tmp_path.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=tmp_path.as_uri(), name="ws")],
        )
    )
    yield lsp_client
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_language_server_applies_the_same_suppressions(
    client: LanguageClient, tmp_path: Path
) -> None:
    text = HEAD + "agent: {}  # pack-lsp: ignore[PP102, PP101]\nagentz: {}\n"
    uri = (tmp_path / "demo.promptpack.yaml").as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=text)
        )
    )
    by_code = {d.code: d for d in await diagnostics_for(client, uri, 1)}
    assert sorted(by_code) == ["PP102", "PP801"]
    assert by_code["PP102"].range.start.line == 7
    assert list(by_code["PP801"].tags or ()) == [types.DiagnosticTag.Unnecessary]
    assert by_code["PP801"].severity == types.DiagnosticSeverity.Hint
    cli = analyze(text, path=tmp_path / "demo.promptpack.yaml", kind=kinds.PROMPTPACK)
    assert sorted(d.code for d in cli.diagnostics) == sorted(by_code)
