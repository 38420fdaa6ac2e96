"""Incremental analysis gives exactly what a full analysis gives.

Random edits (typing and deleting inside descriptions and templates, new and
deleted lines, changed keys, broken and repaired syntax, indentation changes, a
prompt deleted or pasted) are applied in sequence to several packs; after each one
``reanalyze(previous, new)`` is compared with ``analyze(new)``: diagnostics, data,
every node of the tree, the model, the line index. The fast path must have been
taken for most edits inside one block, so the comparison is not vacuous.

The randomness is seeded (``PACK_LSP_INCR_SEED`` picks another seed and
``PACK_LSP_INCR_STEPS`` a longer run, for deeper checks by hand).
"""

from __future__ import annotations

import os
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from pack_lsp.core.base.kinds import PROMPTPACK
from pack_lsp.core.checks.analysis import RULES_REUSED, RULES_REUSED_PACK, Analysis, analyze
from pack_lsp.core.checks.incremental import INCREMENTAL, common_prefix, common_suffix, reanalyze
from pack_lsp.core.syntax import reuse
from pack_lsp.core.syntax.yamltree import MappingNode, Node, ScalarNode, SequenceNode, walk
from paths import NO_SHARED, ROOT, SHARED
from tree_facts import tree_facts

sys.path.insert(0, str(ROOT / "bench"))
import genpack

SEED = int(os.environ.get("PACK_LSP_INCR_SEED", "13"))
STEPS = int(os.environ.get("PACK_LSP_INCR_STEPS", "0"))

# ------------------------------------------------------------------------ comparing


def assert_same(got: Analysis, want: Analysis) -> None:
    """Everything a caller can read from the two analyses is the same."""
    assert got.text == want.text
    assert got.kind == want.kind
    assert got.syntax_error == want.syntax_error
    assert got.diagnostics == want.diagnostics
    assert got.parse_diagnostics == want.parse_diagnostics
    assert repr(got.data) == repr(want.data)  # repr: NaN equals itself, key order counts
    assert got.lines.line_count == want.lines.line_count
    for line in range(got.lines.line_count):
        assert got.lines.line_start(line) == want.lines.line_start(line)
    got_nodes = tree_facts(got.root)
    want_nodes = tree_facts(want.root)
    assert got_nodes == want_nodes
    assert repr(got.pack) == repr(want.pack)
    if got.pack is not None:
        # The nodes templates refer to are in the new tree (no reference to an old one).
        ours = {id(n) for n in walk(got.root)}
        for prompt in got.pack.prompts.values():
            for template in prompt.templates():
                assert id(template.node) in ours


# -------------------------------------------------------------------------- editing

_WORDS = ("the", "order", "{{name}}", "{{", "}}", "x", " ", "é", "\u4e2d", "'", '"', "#", ":")


@dataclass
class Editor:
    """Makes one random edit of a pack text, guided by its analysis."""

    rng: random.Random
    pending_fix: str | None = None  # the text before a deliberate syntax break
    last_good: str | None = None  # the last text without a syntax error

    def scalars(self, analysis: Analysis) -> list[ScalarNode]:
        """String values (not keys) as written."""
        out: list[ScalarNode] = []
        for n in walk(analysis.root):
            children = (
                [p.value for p in n.pairs]
                if isinstance(n, MappingNode)
                else n.items
                if isinstance(n, SequenceNode)
                else []
            )
            out.extend(
                c
                for c in children
                if isinstance(c, ScalarNode) and c.span.length > 0 and isinstance(c.value, str)
            )
        return out

    def prompt_extents(self, analysis: Analysis) -> list[tuple[str, int, int]]:
        """(key, start, end) of each prompt's lines."""
        root = analysis.root
        if not isinstance(root, MappingNode):
            return []
        prompts = root.get("prompts")
        if not isinstance(prompts, MappingNode) or prompts.flow:
            return []
        text = analysis.text
        out = []
        pairs = prompts.pairs
        for i, pair in enumerate(pairs):
            start = text.rfind("\n", 0, pair.key.span.start) + 1
            if i + 1 < len(pairs):
                end = text.rfind("\n", 0, pairs[i + 1].key.span.start) + 1
            else:
                end = min(prompts.span.end, len(text))
                nl = text.find("\n", end)
                end = nl + 1 if nl >= 0 else len(text)
            out.append((pair.key_text or "", start, end))
        return out

    def in_block(self, analysis: Analysis) -> str:
        """Type or delete inside a string value (descriptions, templates)."""
        text = analysis.text
        nodes = self.scalars(analysis)
        if not nodes:
            return text + "\n"
        node = self.rng.choice(nodes)
        at = self.rng.randint(node.span.start, node.span.end)
        if self.rng.random() < 0.6:
            return text[:at] + self.rng.choice(_WORDS) + text[at:]
        end = min(at + self.rng.randint(1, 4), node.span.end)
        return text[:at] + text[end:]

    def line_edit(self, analysis: Analysis) -> str:
        text = analysis.text
        lines = text.splitlines(keepends=True)
        if not lines:
            return "id: x\n"
        i = self.rng.randrange(len(lines))
        choice = self.rng.random()
        if choice < 0.3:
            lines.insert(i, lines[i])  # duplicate a line
        elif choice < 0.5:
            del lines[i]
        elif choice < 0.75:
            lines[i] = " " + lines[i]  # indent
        else:
            lines[i] = lines[i][1:] if lines[i].startswith(" ") else lines[i]  # dedent
        return "".join(lines)

    def key_edit(self, analysis: Analysis) -> str:
        text = analysis.text
        keys = [
            p.key
            for n in walk(analysis.root)
            if isinstance(n, MappingNode)
            for p in n.pairs
            if p.key.span.length > 0
        ]
        if not keys:
            return text
        key = self.rng.choice(keys)
        at = self.rng.randint(key.span.start, key.span.end)
        if self.rng.random() < 0.5:
            return text[:at] + self.rng.choice(("k", "_", "-")) + text[at:]
        return text[:at] + text[at + 1 :]

    def break_syntax(self, analysis: Analysis) -> str:
        text = analysis.text
        self.pending_fix = text
        at = self.rng.randrange(len(text) + 1)
        return (
            text[:at] + self.rng.choice((": [", "\t", "- x\n", '"', "{", "&a ", "*a ")) + text[at:]
        )

    def delete_prompt(self, analysis: Analysis) -> str:
        extents = self.prompt_extents(analysis)
        if len(extents) < 2:
            return self.in_block(analysis)
        _key, start, end = self.rng.choice(extents)
        return analysis.text[:start] + analysis.text[end:]

    def paste_prompt(self, analysis: Analysis) -> str:
        extents = self.prompt_extents(analysis)
        if not extents:
            return self.in_block(analysis)
        key, start, end = self.rng.choice(extents)
        block = analysis.text[start:end]
        if not block.endswith("\n"):
            block += "\n"
        new_key = f"{key}_copy{self.rng.randrange(1000)}"
        block = block.replace(f"{key}:", f"{new_key}:", 1)
        return analysis.text[:end] + block + analysis.text[end:]

    def edit(self, analysis: Analysis) -> tuple[str, bool]:
        """A new text, and whether the edit stayed inside one block's values."""
        if self.pending_fix is not None:
            fixed, self.pending_fix = self.pending_fix, None
            return fixed, False
        if not analysis.syntax_error and not analysis.parse_diagnostics:
            self.last_good = analysis.text
        elif self.last_good is not None and self.rng.random() < 0.7:
            return self.last_good, False  # the user repairs the syntax
        kinds: list[tuple[float, Callable[[Analysis], str], bool]] = [
            (0.55, self.in_block, True),
            (0.12, self.line_edit, False),
            (0.08, self.key_edit, False),
            (0.1, self.break_syntax, False),
            (0.07, self.delete_prompt, False),
            (0.08, self.paste_prompt, False),
        ]
        roll = self.rng.random()
        for weight, make, in_block in kinds:
            if roll < weight:
                return make(analysis), in_block
            roll -= weight
        return self.in_block(analysis), True


def run_edits(text: str, steps: int, seed: int, path: str | None = None) -> tuple[int, int]:
    """Apply ``steps`` random edits; return (in-block edits, fast-path hits among them)."""
    rng = random.Random(seed)
    editor = Editor(rng)
    previous = analyze(text, path=path)
    in_block = hits = 0
    for _ in range(steps):
        new, local = editor.edit(previous)
        got = reanalyze(previous, new, path=path)
        want = analyze(new, path=path)
        assert_same(got, want)
        if local and not previous.syntax_error and not previous.parse_diagnostics:
            in_block += 1
            hits += INCREMENTAL in got.timings
        previous = got
    if os.environ.get("PACK_LSP_INCR_VERBOSE"):
        print(f"{steps} edits, {in_block} inside a block, {hits} on the fast path")
    return in_block, hits


# -------------------------------------------------------------------------- sources


def _generated(lines: int, seed: int) -> str:
    text, _ = genpack.generate(lines, seed=seed)
    return text


@pytest.fixture(autouse=True)
def _verified() -> None:
    """Every edit here also recomputes what it reused and compares (``conftest.py``)."""
    assert reuse.mode() == reuse.VERIFY


def test_generated_pack_random_edits() -> None:
    in_block, hits = run_edits(_generated(400, SEED), STEPS or 120, SEED)
    assert in_block >= 30
    assert hits >= in_block * 0.7, (hits, in_block)


def test_example_pack_random_edits() -> None:
    text = (ROOT / "examples" / "support.promptpack.yaml").read_text(encoding="utf-8")
    in_block, hits = run_edits(text, STEPS or 80, SEED + 1, "support.promptpack.yaml")
    assert hits >= in_block * 0.5, (hits, in_block)


def _golden_inputs() -> list[Path]:
    return sorted(
        p
        for p in (ROOT / "tests" / "golden").rglob("*.yaml")
        if "manifests" not in p.parts and "cards" not in p.parts
    )


def test_golden_inputs_random_edits() -> None:
    files = _golden_inputs()
    assert files
    rng = random.Random(SEED)
    for i, path in enumerate(rng.sample(files, min(len(files), 25))):
        run_edits(path.read_text(encoding="utf-8"), STEPS or 6, SEED + i, None)


@pytest.mark.skipif(not (SHARED / "corpus").is_dir(), reason=NO_SHARED)
def test_corpus_random_edits() -> None:
    files = sorted((SHARED / "corpus").rglob("*.yaml"))
    if not files:
        pytest.skip(f"no YAML pack in {SHARED / 'corpus'}")
    for i, path in enumerate(files):
        run_edits(path.read_text(encoding="utf-8"), STEPS or 10, SEED + i, path.name)


# ---------------------------------------------------------- cross-reference edits


def _seq_items(node: Node | None) -> list[Node]:
    return list(node.items) if isinstance(node, SequenceNode) else []


@dataclass
class ReferenceEditor:
    """Edits inside one block that change what other blocks refer to or read: a
    prompt's tool renamed (to a tool, a member, a prompt, a namespace or a typo), a
    variable removed or renamed, a fragment reference changed, a description that
    an Agent Card is made of changed or emptied, a tool key renamed."""

    rng: random.Random

    def _replace(self, text: str, node: Node, value: str) -> str:
        return text[: node.span.start] + value + text[node.span.end :]

    def names(self, analysis: Analysis) -> list[str]:
        pack = analysis.pack
        assert pack is not None
        members = list(pack.agents.members) if pack.agents is not None else []
        out = [*pack.tools, *members, *pack.prompts, *pack.fragments]
        return out + ["a2a__" + m for m in members] + ["mcp__srv__t", "workflow__", "nothing"]

    def edit(self, analysis: Analysis) -> str:
        text = analysis.text
        root = analysis.root
        assert isinstance(root, MappingNode) and analysis.pack is not None
        prompts = root.get("prompts")
        assert isinstance(prompts, MappingNode)
        pair = self.rng.choice(prompts.pairs)
        prompt = pair.value
        assert isinstance(prompt, MappingNode)
        choice = self.rng.randrange(6)
        if choice == 0 and _seq_items(prompt.get("tools")):
            item = self.rng.choice(_seq_items(prompt.get("tools")))
            name = self.rng.choice(self.names(analysis))
            return self._replace(text, item, name + self.rng.choice(("", "", "x")))
        variables = _seq_items(prompt.get("variables"))
        if choice == 1 and len(variables) >= 2:
            i = self.rng.randrange(len(variables) - 1)
            start = text.rfind("\n", 0, variables[i].span.start) + 1
            end = text.rfind("\n", 0, variables[i + 1].span.start) + 1
            return text[:start] + text[end:]  # a variable removed
        if choice == 2 and variables:
            var = self.rng.choice(variables)
            name = var.get("name") if isinstance(var, MappingNode) else None
            if isinstance(name, ScalarNode) and not name.style:
                return self._replace(text, name, self.rng.choice(("renamed", "company", "x")))
        if choice == 3:
            found = [i for i in range(len(text)) if text.startswith("{{fragments.", i)]
            if found:
                at = self.rng.choice(found) + len("{{fragments.")
                if self.rng.random() < 0.5:
                    return text[:at] + "x" + text[at:]
                end = text.index("}}", at)
                return text[:at] + self.rng.choice(self.names(analysis)) + text[end:]
        if choice == 4:
            agents = root.get("agents")
            members = agents.get("members") if isinstance(agents, MappingNode) else None
            candidates = [prompt.get("description")]
            if isinstance(members, MappingNode):
                for m in members.pairs:
                    if isinstance(m.value, MappingNode):
                        candidates.append(m.value.get("description"))
                        key_prompt = prompts.get(m.key_text or "")
                        if isinstance(key_prompt, MappingNode):
                            candidates.append(key_prompt.get("description"))
            nodes = [n for n in candidates if isinstance(n, ScalarNode) and n.style in ("", "'")]
            if nodes:
                return self._replace(text, self.rng.choice(nodes), self.rng.choice(("''", "Other")))
        if choice == 5:
            return self.shared_edit(analysis, root)
        return Editor(self.rng).in_block(analysis)

    def shared_edit(self, analysis: Analysis, root: MappingNode) -> str:
        """An edit of what every prompt's rules read: a tool's `name`, a variable used
        in a fragment, the prompt a workflow state runs."""
        text = analysis.text
        pack = analysis.pack
        assert pack is not None
        roll = self.rng.randrange(3)
        tools = [t.name for t in pack.tools.values() if t.name is not None]
        if roll == 0 and tools:
            name = self.rng.choice(tools)
            return (
                text[: name.span.start] + self.rng.choice(list(pack.tools)) + text[name.span.end :]
            )
        fragments = [f.template for f in pack.fragments.values() if f.template is not None]
        if roll == 1 and fragments:
            node = self.rng.choice(fragments).node
            at = text.index(node.text.split("\n")[0][:10], node.span.start)
            return text[:at] + "{{company}} {{ticket_id}} " + text[at:]
        tasks = [
            s.prompt_task
            for s in (pack.workflow.states.values() if pack.workflow is not None else ())
            if s.prompt_task is not None
        ]
        if tasks:
            task = self.rng.choice(tasks)
            new = self.rng.choice(list(pack.prompts))
            return text[: task.span.start] + new + text[task.span.end :]
        return Editor(self.rng).in_block(analysis)


@dataclass
class Reuse:
    fast: int = 0  # edits on the fast path
    all_but_one: int = 0  # ... that reused the results of every prompt but one, or all
    none: int = 0  # ... that reused no prompt's results
    pack_parts: int = 0  # ... that reused the results of a pack-wide part


def run_reference_edits(text: str, steps: int, seed: int, path: str | None = None) -> Reuse:
    """Apply ``steps`` reference edits, each compared with a full analysis."""
    editor = ReferenceEditor(random.Random(seed))
    previous = analyze(text, path=path)
    reuse = Reuse()
    for _ in range(steps):
        new = editor.edit(previous)
        got = reanalyze(previous, new, path=path)
        assert_same(got, analyze(new, path=path))
        if INCREMENTAL in got.timings:
            assert got.pack is not None
            reuse.fast += 1
            count = got.timings[RULES_REUSED]
            reuse.all_but_one += count >= len(got.pack.prompts) - 1
            reuse.none += count == 0
            reuse.pack_parts += got.timings[RULES_REUSED_PACK] > 0
        if got.syntax_error or got.pack is None or got.parse_diagnostics:
            got = analyze(text, path=path)  # start again from the original
        previous = got
    return reuse


def test_reference_edits_reuse_rule_results_and_equal_a_full_analysis() -> None:
    reuse = run_reference_edits(_generated(1000, SEED), STEPS or 80, SEED)
    assert reuse.fast >= 50, reuse
    # Edits that change what every prompt reads (a tool's name, a fragment's
    # variables, the prompt a state runs) check every prompt again; the others
    # check only the edited one.
    assert reuse.all_but_one >= reuse.fast * 0.5, reuse
    assert reuse.none >= 3, reuse
    assert reuse.pack_parts >= reuse.fast * 0.3, reuse


def test_reference_edits_on_a_multi_agent_pack() -> None:
    """The example's agents call each other: renamed tools make and break call cycles
    and unreachable agents, emptied descriptions make cards invalid."""
    text = (ROOT / "examples" / "support.promptpack.yaml").read_text(encoding="utf-8")
    reuse = run_reference_edits(text, STEPS or 60, SEED + 7, "support.promptpack.yaml")
    assert reuse.fast >= 40, reuse
    assert reuse.pack_parts >= 10, reuse
    assert reuse.all_but_one >= reuse.fast * 0.5, reuse


# ------------------------------------------------------------------ specific cases


def test_fast_path_for_a_description_edit_and_flat_references() -> None:
    text = _generated(300, 2)
    first = analyze(text)
    at = text.index("description:", len(text) // 2) + len("description: ")
    previous = first
    for _ in range(5):
        new = previous.text[:at] + "z" + previous.text[at:]
        got = reanalyze(previous, new)
        assert INCREMENTAL in got.timings
        assert_same(got, analyze(new))
        previous = got
    # the shared prefix of the tree is the same objects; the rest is new
    assert isinstance(first.root, MappingNode) and isinstance(previous.root, MappingNode)
    assert first.root.pairs[0] is previous.root.pairs[0]
    assert previous.root is not first.root


def test_previous_analysis_is_not_modified() -> None:
    text = _generated(300, 3)
    previous = analyze(text)
    before = tree_facts(previous.root)
    data = repr(previous.data)
    at = text.index("system_template:") + len("system_template:")
    new = text[:at] + text[at:].replace("You are", "You were", 1)
    got = reanalyze(previous, new)
    assert INCREMENTAL in got.timings
    assert tree_facts(previous.root) == before
    assert repr(previous.data) == data


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("id: a\nprompts:\n  p:\n    x: 1\n", "id: a\nprompts:\n  p:\n    x: 1\n  q: &a 1\n"),
        ("id: a\nprompts:\n  p:\n    x: 1\n", "id: a\nprompts:\n  p:\n    x: 1\n    x: 2\n"),
        ("id: a\nprompts:\n  p:\n    x: 1\n", "id: a\nprompts:\n  p:\n    x: 1\nq: 2\n"),
        ("id: a\nprompts:\n  p:\n    x: 1\n", "id: a\nprompts:\n  p:\n    x: [1\n"),
        ("id: a\nprompts:\n  p:\n    x: 1\n", "id: a\nprompts:\n  p:\n    x: !!str 1\n"),
        ("id: a\nprompts:\n  p:\n    x: 1\n", "id: a\nprompts:\n  pp:\n    x: 1\n"),
        (
            "id: a\nb: &x 1\nprompts:\n  p:\n    x: 1\n",
            "id: a\nb: &x 1\nprompts:\n  p:\n    x: 2\n",
        ),
    ],
)
def test_falls_back_where_not_provably_exact(old: str, new: str) -> None:
    got = reanalyze(analyze(old), new)
    assert INCREMENTAL not in got.timings
    assert_same(got, analyze(new))


def test_a_flow_style_prompts_block_is_re_parsed_whole() -> None:
    # Recognised as a pack by its top level (a `prompts` mapping and an `id`), the
    # edited top-level block is re-parsed as one unit: exact, without per-prompt splices.
    old, new = "id: a\nprompts: {p: {x: 1}}\n", "id: a\nprompts: {p: {x: 2}}\n"
    got = reanalyze(analyze(old), new)
    assert INCREMENTAL in got.timings
    assert_same(got, analyze(new))


def test_falls_back_for_another_configuration_or_file() -> None:
    text = _generated(200, 4)
    previous = analyze(text, path="a.promptpack.yaml")
    at = text.index("description:", len(text) // 2) + len("description: ")
    new = text[:at] + "x" + text[at:]
    assert INCREMENTAL in reanalyze(previous, new, path="a.promptpack.yaml").timings
    assert INCREMENTAL not in reanalyze(previous, new, path="b.promptpack.yaml").timings
    assert INCREMENTAL not in reanalyze(previous, new).timings


@pytest.mark.parametrize(
    ("a", "b"), [("", ""), ("abc", "abc"), ("abc", "abd"), ("x" * 9000, "x" * 9001), ("ab", "b")]
)
def test_common_prefix_and_suffix(a: str, b: str) -> None:
    p = common_prefix(a, b)
    assert a[:p] == b[:p] and (p == min(len(a), len(b)) or a[p] != b[p])
    s = common_suffix(a, b, min(len(a), len(b)) - p)
    assert a[len(a) - s :] == b[len(b) - s :]
    assert s == min(len(a), len(b)) - p or a[len(a) - s - 1] != b[len(b) - s - 1]


_EDGE_PACK = """id: edge
name: Edge
version: 1.0.0
template_engine:
  version: v1
  syntax: '{{variable}}'
prompts:
  first:
    id: first
    name: First
    version: 1.0.0
    system_template: |+
      Keep {{x}} and the blank lines.


# a comment at the left margin
  second:
    id: second
    name: Second
    version: 1.0.0
    description: >-
      Folded
      text

  last:
    id: last
    name: Last
    version: 1.0.0
    system_template: |
      The last prompt {{y}}
# trailing comment
tools:
  t:
    name: t
    description: a tool
"""


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
@pytest.mark.parametrize(
    ("anchor", "insert"),
    [
        ("Keep ", "z"),
        ("blank lines.\n", "\n"),
        ("a comment", " more"),
        ("Folded", " x"),
        ("      text\n", "\n"),
        ("The last prompt", " z"),
        ("trailing comment", "!"),
        ("a tool", " z"),
        ("a tool\n", "    extra: 1\n"),
        ("a tool\n", "extra: 1\n"),  # a new top-level key: falls back
        ("id: edge", "x"),
        ("i", "x"),  # on a key: falls back
    ],
)
def test_block_scalars_comments_and_line_breaks(newline: str, anchor: str, insert: str) -> None:
    text = _EDGE_PACK.replace("\n", newline)
    anchor = anchor.replace("\n", newline)
    insert = insert.replace("\n", newline)
    previous = analyze(text, kind=PROMPTPACK)  # the kind is not sniffed from CR-only text
    at = text.index(anchor) + len(anchor)
    new = text[:at] + insert + text[at:]
    got = reanalyze(previous, new, kind=PROMPTPACK)
    assert_same(got, analyze(new, kind=PROMPTPACK))
    fast = INCREMENTAL in got.timings
    assert fast == (anchor != "i" and not insert.startswith("extra"))


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("blank lines.\n\n", "blank lines.\n"),  # a blank line removed from a kept block
        ("Folded\n      text", "Folded text"),  # two lines joined
        ("Folded\n", "Folded\n\n\n"),  # blank lines added
        ("description: a tool", "description: a\n      tool"),  # a break typed into a value
        ("The last prompt {{y}}\n", "The last prompt\n      {{y}}\n      z\n"),
        ("version: 1.0.0\n    description", "version: 1.0.0\n\n    description"),
    ],
)
def test_edits_that_add_and_remove_line_breaks(newline: str, old: str, new: str) -> None:
    """The spliced line index and the shifted tree after edits that change the number
    of lines, in documents with each kind of line end."""
    text = _EDGE_PACK.replace("\n", newline)
    previous = analyze(text, kind=PROMPTPACK)
    edited = text.replace(old.replace("\n", newline), new.replace("\n", newline), 1)
    assert edited != text
    got = reanalyze(previous, edited, kind=PROMPTPACK)
    assert INCREMENTAL in got.timings
    assert_same(got, analyze(edited, kind=PROMPTPACK))


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Folded\r\n", "Folded\n"),  # a CRLF made a LF
        ("Folded\r\n", "Folded\r"),  # a CRLF made a CR
        ("Folded\r\n", "Folded\r      x\n"),  # a CRLF split in two breaks
        ("a tool\r\n", "a tool\n"),
    ],
)
def test_edits_that_mix_line_ends(old: str, new: str) -> None:
    """Breaks of one kind turned into another, or split: the line index of the new
    text is not the old one moved, around the edit."""
    text = _EDGE_PACK.replace("\n", "\r\n")
    previous = analyze(text, kind=PROMPTPACK)
    edited = text.replace(old, new, 1)
    assert edited != text
    got = reanalyze(previous, edited, kind=PROMPTPACK)
    assert_same(got, analyze(edited, kind=PROMPTPACK))
    again = reanalyze(got, text, kind=PROMPTPACK)  # and back
    assert_same(again, analyze(text, kind=PROMPTPACK))
    assert INCREMENTAL in got.timings and INCREMENTAL in again.timings


def test_many_brackets_run_the_nesting_guard_when_needed() -> None:
    pad = "x-pad: [" + ", ".join(["[]"] * 1100) + "]\n"
    text = _EDGE_PACK + pad
    previous = analyze(text)
    for anchor, insert in (("Folded", " x"), ("Folded", " [1, [2]]"), ("a tool", "{")):
        at = previous.text.index(anchor) + len(anchor)
        new = previous.text[:at] + insert + previous.text[at:]
        got = reanalyze(previous, new)
        assert_same(got, analyze(new))
        previous = got
    deep = previous.text.replace("description: a tool", "description: " + "[" * 1100, 1)
    got = reanalyze(previous, deep)
    assert_same(got, analyze(deep))
    assert INCREMENTAL not in got.timings


def test_an_analysis_leaves_no_reference_cycles() -> None:
    """The server freezes analyses out of the collector's reach instead of walking
    them; that is only sound if analysing leaves no cyclic garbage behind."""
    import gc

    text = (ROOT / "examples" / "support.promptpack.yaml").read_text(encoding="utf-8")
    at = text.index("description:") + len("description: ")
    edited = text[:at] + "x" + text[at:]
    # Once before measuring: what is imported lazily on first use leaves import
    # machinery garbage that has nothing to do with analyses.
    warm = reanalyze(
        analyze(text, path="support.promptpack.yaml"), edited, path="support.promptpack.yaml"
    )
    assert warm.derived.templates is not None
    del warm
    first = analyze(text, path="support.promptpack.yaml")
    assert first.derived.templates is not None
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        second = reanalyze(first, edited, path="support.promptpack.yaml")
        assert INCREMENTAL in second.timings
        assert second.derived.templates is not None
        third = analyze(edited, path="support.promptpack.yaml")
        assert third.derived.templates is not None
        del first
        gc.collect()
        left = [type(o).__name__ for o in gc.garbage]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert left == []


_HEAD = "id: p\nname: P\nversion: 1.0.0\n"


@pytest.mark.parametrize(
    ("text", "before", "after"),
    [
        # libyaml rejects `[:c]` and the conforming parser reads the text; a tab typed
        # into a plain scalar elsewhere is refused by the conforming parser first, so
        # the whole text keeps libyaml's error.
        (
            _HEAD + "description: xk\nprompts:\n  a:\n    id: a\n    tools: [:c]\n",
            "xk",
            "x\tk",
        ),
        # The other way round: the edited block now needs the conforming parser, which
        # stops at the tab in another block.
        (
            _HEAD + "description: x\tk\nprompts:\n  a:\n    id: a\n    tools: [c]\n",
            "[c]",
            "[:c]",
        ),
    ],
    ids=["previous-read-by-the-conforming-parser", "block-needs-the-conforming-parser"],
)
def test_texts_that_need_the_conforming_parser_are_analysed_whole(
    text: str, before: str, after: str
) -> None:
    """Whether libyaml's error stands depends on the conforming parser reading the whole
    text (D26), so a block that reads alone proves nothing (found by the golden inputs'
    random edits with seed 7)."""
    edited = text.replace(before, after, 1)
    previous = analyze(text, path="p.promptpack.yaml")
    got = reanalyze(previous, edited, path="p.promptpack.yaml")
    want = analyze(edited, path="p.promptpack.yaml")
    assert_same(got, want)
    assert any(d.code == "PP001" for d in want.diagnostics)
    assert INCREMENTAL not in got.timings


def test_a_replaced_analysis_is_not_kept_alive() -> None:
    """Nothing outside an analysis keeps it: once the server drops a version, its pack,
    model and the nodes of its tree that the next version does not share are freed
    (the tool-name cache of ``core.model.resolve`` once kept the last pack it saw)."""
    import gc
    import weakref

    from pack_lsp.core.model import resolve

    text = (ROOT / "examples" / "support.promptpack.yaml").read_text(encoding="utf-8")
    at = text.index("description:", text.index("prompts:")) + len("description: ")
    first = analyze(text, path="support.promptpack.yaml")
    assert first.pack is not None and first.pack.agents is not None  # cards and topology ran
    second = reanalyze(first, text[:at] + "x" + text[at:], path="support.promptpack.yaml")
    assert INCREMENTAL in second.timings
    # A request answered from the older version while the new one was analysed
    # resolves names against its pack, as hover and completion do.
    prompt = next(p for p in first.pack.prompts.values() if p.tools)
    resolve.resolve_tool(str(prompt.tools[0].value), prompt.key, first.pack)
    pack = weakref.ref(first.pack)
    del first, prompt
    gc.collect()
    assert pack() is None
    assert second.pack is not None


# ------------------------------------------- CURIEs libyaml rejects (docs/decisions.md, D26)

_CURIE_PACK = """\
id: curie
name: Curie
version: 1.0.0
template_engine: {version: v1, syntax: "{{variable}}"}
metadata:
  governance:
    intended_deployment_contexts: [sector:Retail]
tools:
  look: {name: look, description: Looks, action_scope: {effect: read, data_classes: [dpv:Data]}}
prompts:
  a:
    id: a
    name: A
    version: 1.0.0
    description: First
    system_template: Hello
    tools: [look]
    variables: [{name: who, type: string, required: false, description: "x", example: dpv:Name}]
  b:
    id: b
    name: B
    version: 1.0.0
    system_template: |
      Second {{who}}
    variables: [{name: who, type: string, required: true}]
"""


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("example: dpv:Name}", "example: dpv:FullName}"),  # a CURIE edited in a flow mapping
        ("example: dpv:Name}", "example: dpv:Name, default: x:y}"),  # a CURIE added
        ("[look]", "[look, dpv:Other]"),  # a CURIE added to a flow sequence in the block
        ("description: First", "description: First:second"),
        ("Second {{who}}", "Second {{who}} [a:b]"),  # in a block scalar: not flow
        ("example: dpv:Name}", "example: [dpv:Name}"),  # a syntax error in the block
    ],
)
def test_edits_inside_a_flow_collection_with_a_curie_equal_a_full_analysis(
    old: str, new: str
) -> None:
    previous = analyze(_CURIE_PACK)
    assert not previous.syntax_error
    text = _CURIE_PACK.replace(old, new, 1)
    assert_same(reanalyze(previous, text), analyze(text))


def test_random_edits_of_a_pack_with_curies() -> None:
    run_edits(_CURIE_PACK, 60, SEED)
