"""Packs in ConfigMap entries written as block scalars of every form: ``|`` and ``>``,
with an indentation indicator (``|2``) before or after a chomping indicator (``|2-``,
``|+3``), line breaks LF or CRLF, tabs in the text. A diagnostic of the embedded pack
lands on its exact line and column of the host file, and ``--fix`` applies there.

An indentation indicator is what an author writes when the first content line is more
indented than the rest (a comment, or JSON's opening brace pushed right), so the
generated entries do exactly that.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from pack_lsp.core.base.text import LineIndex
from pack_lsp.core.checks.analysis import Analysis, analyze
from pack_lsp.core.ide.fixall import fix_document
from pack_lsp.core.model import hosts

HEAD = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: triage-pack\ndata:\n"

# The prompt names a tool the pack does not define (`lookup_ordr`): PP301, whose
# did-you-mean fix (`lookup_order`) is safe, so `--fix` applies it. (A YAML entry also
# gets what Omnia says of a ConfigMap without `pack.json`, PT0xx, left out here.)
YAML_PACK = [
    "id: triage",
    "name: Triage",
    "version: 1.0.0",
    'template_engine: {version: v1, syntax: "{{variable}}"}',
    "tools:",
    "  lookup_order:",
    "    name: lookup_order",
    "    description: Finds an order",
    "    parameters: {type: object, properties: {id: {type: string}}}",
    "prompts:",
    "  router:",
    "    id: router",
    "    name: Router",
    "    version: 1.0.0",
    '    description: "Routes{TAB}requests"',
    "    system_template: Route the request.",
    "    tools: [lookup_ordr]",
]
JSON_PACK = [
    '{"id": "triage", "name": "Triage", "version": "1.0.0",',
    '"template_engine": {"version": "v1", "syntax": "{{variable}}"},',
    '"tools": {"lookup_order": {"name": "lookup_order", "description": "Finds an order",',
    '  "parameters": {"type": "object", "properties": {"id": {"type": "string"}}}}},',
    '"prompts": {"router": {"id": "router",{TAB}"name": "Router", "version": "1.0.0",',
    '  "system_template": "Route the request.",',
    '  "tools": ["lookup_ordr"]}}}',
]


def _host(
    is_json: bool, style: str, indicator: int, chomp: str, first: str, crlf: bool, tab: bool
) -> tuple[str, int]:
    """The host text and the 0-based line of the defect in it."""
    key_column = 2
    indent = " " * (key_column + indicator)
    header = f"{style}{indicator}{chomp}" if first == "indicator-first" else f"{style}{chomp}"
    header = header if first != "chomp-first" else f"{style}{chomp}{indicator}"
    lines = list(JSON_PACK if is_json else YAML_PACK)
    body = [indent + line.replace("{TAB}", "\t" if tab else " ") for line in lines]
    if is_json:
        body[0] = indent + "  " + body[0][len(indent) :]  # the brace pushed right
    else:
        body.insert(0, indent + "  # the triage pack")  # a comment more indented
    entry = [f"  pack.{'json' if is_json else 'yaml'}: {header}", *body]
    if chomp == "+":
        entry.append("")
    text = HEAD + "\n".join(entry) + "\n"
    defect = HEAD.count("\n") + len(entry) - (2 if chomp == "+" else 1)
    if crlf:
        text = text.replace("\n", "\r\n")
    return text, defect


@settings(max_examples=120, deadline=None)
@given(
    is_json=st.booleans(),
    style=st.sampled_from(["|", ">"]),
    indicator=st.integers(min_value=1, max_value=4),
    chomp=st.sampled_from(["", "-", "+"]),
    first=st.sampled_from(["indicator-first", "chomp-first"]),
    crlf=st.booleans(),
    tab=st.booleans(),
)
def test_every_block_scalar_form_lands_on_the_host_line(
    is_json: bool, style: str, indicator: int, chomp: str, first: str, crlf: bool, tab: bool
) -> None:
    if style == ">" and not is_json:
        # Folding joins a YAML pack's lines into other text: not a pack once read.
        return
    text, defect = _host(is_json, style, indicator, chomp, first, crlf, tab)
    stream = hosts.read_stream(text)
    assert stream is not None and len(stream.embedded) == 1
    assert stream.embedded[0].shadow is not None
    analysis = analyze(text, path="configmap.yaml")
    assert _pack_codes(analysis) == ["PP301", "PP307"]
    lines = LineIndex(text)
    diag = next(d for d in analysis.diagnostics if d.code == "PP301")
    assert lines.position(diag.span.start).line == defect
    assert text[diag.span.start : diag.span.end].strip('"') == "lookup_ordr"

    run = fix_document(analysis, lambda fixed: analyze(fixed, path="configmap.yaml"))
    assert run.refused is None and len(run.applied) == 1
    assert _pack_codes(run.analysis) == []
    newline = "\r\n" if crlf else "\n"
    assert "lookup_order" in run.text.split(newline)[defect]
    # Nothing else of the host moved.
    assert run.text.replace("lookup_order", "lookup_ordr") == text.replace(
        "lookup_order", "lookup_ordr"
    )


def _pack_codes(analysis: Analysis) -> list[str]:
    """The codes of the embedded pack's own rules (Omnia's PT0xx left out)."""
    return sorted(d.code for d in analysis.diagnostics if not d.code.startswith("PT"))


def test_indicator_differs_from_first_line_indentation() -> None:
    """The case an author writes an indicator for: before, the entry's diagnostics
    went to its key and `--fix` fixed nothing."""
    text, defect = _host(False, "|", 2, "", "indicator-first", False, False)
    analysis = analyze(text, path="configmap.yaml")
    diag = next(d for d in analysis.diagnostics if d.code == "PP301")
    assert LineIndex(text).position(diag.span.start).line == defect
    run = fix_document(analysis, lambda fixed: analyze(fixed, path="configmap.yaml"))
    assert "tools: [lookup_order]\n" in run.text


def test_folded_json_with_a_line_break_inside_a_string_is_checked_from_its_value() -> None:
    """A folded scalar joins the two halves of a string the host writes on two lines:
    the text the runtime reads is not the one written, so positions go to the key."""
    text = (
        HEAD + "  pack.json: >\n"
        '    {"id": "triage", "name": "Tri\n'
        '    age", "version": "1.0.0", "prompts": {},\n'
        '    "template_engine": {"version": "v1", "syntax": "{{variable}}"}}\n'
    )
    stream = hosts.read_stream(text)
    assert stream is not None and stream.embedded[0].shadow is None


def test_the_command_line_fixes_the_entry_in_place(tmp_path: Path) -> None:
    text, defect = _host(True, "|", 2, "-", "indicator-first", True, True)
    path = tmp_path / "configmap.yaml"
    path.write_bytes(text.encode("utf-8"))
    done = subprocess.run(
        [sys.executable, "-m", "pack_lsp", "--check", "--fix", str(path)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Fixed 1 problem" in done.stdout + done.stderr
    fixed = path.read_bytes().decode("utf-8")
    assert fixed.split("\r\n")[defect].endswith('"tools": ["lookup_order"]}}}')


def test_a_header_after_a_tag_an_anchor_or_with_a_comment() -> None:
    text, _ = _host(False, "|", 2, "-", "indicator-first", False, False)
    for written in ("!!str |2-", "&pack |2-", "|2- # the pack"):
        changed = text.replace("pack.yaml: |2-", f"pack.yaml: {written}")
        stream = hosts.read_stream(changed)
        assert stream is not None and stream.embedded[0].shadow is not None, written
