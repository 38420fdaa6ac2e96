"""The documentation is tested like the code (docs/decisions.md, D35).

1. Every rule's example (docs/rules.md) is a whole document that is run: it reports
   the rule's own code, no syntax error unless that is the rule, and no code that is
   not listed here as intended.
2. The code blocks of README.md and docs/*.md: a pack shown must give no error (or
   the codes an ``<!-- pack-lsp reports: CODE ... -->`` comment before it names), and
   a ``$ pack-lsp --check ...`` command followed by output must print exactly that
   output when run from the repository root on the bundled files. A block preceded by
   ``<!-- illustrative: why -->`` is skipped, with that reason.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from pack_lsp.core.base import kinds
from pack_lsp.core.base.diagnostics import ExampleKind, Rule, Severity
from pack_lsp.core.checks import examples
from pack_lsp.core.checks.analysis import analyze
from pack_lsp.core.checks.registry import REGISTRY
from pack_lsp.core.model.recognize import recognize
from paths import ROOT

RULES = sorted(REGISTRY.values(), key=lambda r: r.code)

#: Rules whose example is shown but not run: nothing triggers them on purpose.
ILLUSTRATIVE = {"PP000"}  # an internal error is a bug of pack-lsp

#: Codes an example reports besides its rule's own, where no valid example avoids them.
ALLOWED_EXTRA: dict[str, set[str]] = {
    # Two prompts with one id: the later one's id also differs from its key (PP601),
    # as only one of the two keys can be the id.
    "PP602": {"PP601"},
    # promptpack-langchainjs includes a fragment only by its bare name, which the
    # specification reads as the variable: the shadowed fragment is included nowhere
    # the specification sees (PP504), or through `{{fragments.x}}`, which the runtime
    # leaves as written (PT042).
    "PT043": {"PP504"},
}

#: The syntax codes: a document that has one is not what its example claims to show.
SYNTAX = {"PP001", "PP013"}


def _rule_id(rule: Rule) -> str:
    return rule.code


@pytest.mark.parametrize("rule", RULES, ids=_rule_id)
def test_rule_example_reports_its_code(rule: Rule) -> None:
    if rule.example_kind is ExampleKind.ILLUSTRATIVE:
        assert rule.code in ILLUSTRATIVE, f"{rule.code}: only {ILLUSTRATIVE} may be illustrative"
        pytest.skip(f"{rule.code}: illustrative example (no document triggers it on purpose)")
    reported = examples.run(rule)
    codes = {r.code for r in reported}
    shown = "\n".join(f"{r}: {r.message}" for r in reported) or "nothing"
    assert rule.code in codes, f"the example of {rule.code} reports:\n{shown}"
    if rule.code not in SYNTAX:
        assert not codes & SYNTAX, f"the example of {rule.code} has a syntax error:\n{shown}"
    extra = codes - {rule.code}
    assert extra == ALLOWED_EXTRA.get(rule.code, set()), (
        f"the example of {rule.code} reports other codes than intended:\n{shown}"
    )


def test_illustrative_examples_are_the_listed_ones() -> None:
    marked = {r.code for r in RULES if r.example_kind is ExampleKind.ILLUSTRATIVE}
    assert marked == ILLUSTRATIVE


def test_rules_doc_shows_what_is_reported() -> None:
    """The generated page lists, under each run example, every diagnostic it gives."""
    doc = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    rule = REGISTRY["PP205"]
    section = doc.split("\n### PP205\n", 1)[1].split("\n### ", 1)[0]
    assert rule.example.rstrip() in section
    for reported in examples.run(rule):
        assert f"- {reported}: {reported.message}\n" in section


def test_example_with_unmarked_manifest_is_refused() -> None:
    rule = Rule(
        "PM999",
        "test",
        Severity.ERROR,
        "",
        "id: a\nname: A\nentrypoint: main:A\n---\nid: b\n",
        "",
        example_kind=ExampleKind.MANIFEST,
    )
    with pytest.raises(examples.ExampleError, match=r"manifest\.yaml` comment"):
        examples.files(rule)


# --- code blocks of README.md and docs/*.md -------------------------------------------

#: Pages whose blocks are checked: docs/rules.md is generated from the checked
#: examples above, and docs/decisions.md is history.
PAGES = [
    ROOT / "README.md",
    *sorted(p for p in (ROOT / "docs").glob("*.md") if p.name not in {"rules.md", "decisions.md"}),
]

_FENCE = re.compile(r"^([ \t]*)```([\w-]*)[ \t]*\n(.*?)^\1```[ \t]*$", re.MULTILINE | re.DOTALL)
_ILLUSTRATIVE = re.compile(r"<!--\s*illustrative:\s*(.*?)\s*-->\s*$")
_REPORTS = re.compile(r"<!--\s*pack-lsp reports:\s*([A-Z0-9 ,]*?)\s*-->\s*$")


@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    language: str
    text: str
    before: str
    """The last non-blank line before the fence."""

    @property
    def name(self) -> str:
        return f"{self.page.relative_to(ROOT).as_posix()}:{self.line}"


def blocks() -> list[Block]:
    out = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in _FENCE.finditer(text):
            head = text[: match.start()]
            before = next((ln for ln in reversed(head.splitlines()) if ln.strip()), "")
            indent = match.group(1)
            body = "".join(
                ln[len(indent) :] if ln.startswith(indent) else ln
                for ln in match.group(3).splitlines(keepends=True)
            )
            out.append(Block(page, head.count("\n") + 1, match.group(2), body, before))
    return out


def _is_pack(block: Block) -> bool:
    if block.language not in {"yaml", "yml", "json"}:
        return False
    return recognize(None, block.text).kind == kinds.PROMPTPACK


def _commands(block: Block) -> list[tuple[str, list[str]]]:
    """Each ``$ pack-lsp --check ...`` line of a console block and the output lines after it."""
    out: list[tuple[str, list[str]]] = []
    for line in block.text.splitlines():
        if line.startswith("$ "):
            out.append((line[2:], []))
        elif out:
            out[-1][1].append(line)
    return [(c, lines) for c, lines in out if c.startswith("pack-lsp --check") and lines]


def _run(command: str) -> tuple[int, str, str]:
    argv = shlex.split(command)
    done = subprocess.run(
        [sys.executable, "-m", "pack_lsp", *argv[1:]],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    return done.returncode, done.stdout, done.stderr


ALL_BLOCKS = blocks()
PACK_BLOCKS = [b for b in ALL_BLOCKS if _is_pack(b)]
COMMAND_BLOCKS = [b for b in ALL_BLOCKS if b.language in {"console", "sh"} and _commands(b)]
JSON_OUTPUT_BLOCKS = [
    b
    for b in ALL_BLOCKS
    if b.language == "json" and '"diagnostics"' in b.text and '"files"' in b.text
]


def _block_id(block: Block) -> str:
    return block.name


def _skip_if_illustrative(block: Block) -> None:
    marked = _ILLUSTRATIVE.search(block.before)
    if marked:
        pytest.skip(f"{block.name}: illustrative: {marked.group(1)}")


def test_blocks_are_found() -> None:
    """The checks below see the blocks they are meant for (the parser is not blind)."""
    names = {b.name.split(":")[0] for b in COMMAND_BLOCKS}
    assert {"README.md", "docs/ci.md"} <= names
    assert JSON_OUTPUT_BLOCKS, "the README's --format json example was not found"


@pytest.mark.parametrize("block", PACK_BLOCKS, ids=_block_id)
def test_pack_shown_in_docs_is_valid(block: Block) -> None:
    _skip_if_illustrative(block)
    suffix = ".json" if block.language == "json" else ".yaml"
    analysis = analyze(block.text, path=None, kind=kinds.PROMPTPACK)
    stated = _REPORTS.search(block.before)
    if stated:
        expected = set(re.split(r"[ ,]+", stated.group(1).strip())) - {""}
        assert {d.code for d in analysis.diagnostics} == expected, block.name
    else:
        errors = [
            f"{analysis.lines.position(d.span.start).line + 1}: {d.code} {d.message}"
            for d in analysis.diagnostics
            if d.severity is Severity.ERROR
        ]
        assert not errors, f"{block.name} ({suffix} pack) shows an invalid pack: {errors}"


@pytest.mark.parametrize("block", COMMAND_BLOCKS, ids=_block_id)
def test_command_output_in_docs_is_real(block: Block) -> None:
    _skip_if_illustrative(block)
    for command, shown in _commands(block):
        _, stdout, stderr = _run(command)
        printed = (stdout + stderr).splitlines()
        assert printed == shown, f"{block.name}: `{command}` prints\n" + "\n".join(printed)


@pytest.mark.parametrize("block", JSON_OUTPUT_BLOCKS, ids=_block_id)
def test_json_output_in_docs_is_real(block: Block) -> None:
    """The values the README's JSON example shows are those of the real output.

    The block is laid out compactly and shows the form of a related location, so it
    is compared value by value: path, range, severity, code, message and summary.
    """
    _skip_if_illustrative(block)
    path = re.search(r'"path": "([^".]+\.[a-z]+)"', block.text)
    assert path is not None, f"{block.name} names no file"
    _, stdout, _ = _run(f"pack-lsp --check --format json {path.group(1)}")
    real = json.loads(stdout)
    first = real["files"][0]["diagnostics"][0]
    shown_range = re.search(r'"range": (\{.*\}),\s*$', block.text, re.MULTILINE)
    assert shown_range is not None
    assert json.loads(shown_range.group(1)) == first["range"]
    for key in ("severity", "code", "message", "source"):
        assert f'"{key}": {json.dumps(first[key], ensure_ascii=False)}' in block.text, key
    summary = re.search(r'"summary": (\{.*\})', block.text)
    assert summary is not None
    assert json.loads(summary.group(1)) == real["summary"]
    assert real["files"][0]["path"] == path.group(1)
