"""Incremental analysis: re-parse only the block an edit touched.

``reanalyze(previous, text)`` returns what ``analyze(text)`` returns, but when the
edit lies inside one top-level block (a pair of the root mapping) or inside one
prompt (a pair of ``prompts``), only that block's text is parsed again. The new
tree shares the nodes before the block with the previous tree, takes the re-parsed
block, and holds copies of the nodes after it with their spans shifted; the
previous analysis is never modified and the new one keeps no reference to it
(only to nodes and values both versions share). The plain data is spliced the
same way. The model, schema validation, rules, configuration and suppressions then
run as in ``analyze`` (the same stage functions), over the whole new version; the
rules are told what the edit touched (``RuleEdit``) and reuse the results of what
does not depend on it.

The fast path is taken only where it is provably the same as parsing the whole
text; anything else falls back to ``analyze``:

- a different kind, configuration, path or workspace; manifests and JSON files;
- a previous version with a syntax error, any parser diagnostic (duplicate keys,
  tags, aliases, multiple documents, …), no root mapping, a flow-style root or
  ``prompts`` mapping, or any anchor, alias, tag or merge key in its tree;
- an edit before the first key, on a key itself, or across a block boundary;
- a re-parsed block that is not exactly one entry with the same key at the same
  place, has any problem of its own, needs the conforming parser when the previous
  version did not, is refused by it when the previous version needed it (D26: a text
  libyaml rejects reads as the conforming parser reads all of it), contains a line
  indented at or left of its key (which would close the parent mapping in the whole
  document), nests close to the parser's depth limit, or holds an anchor, alias, tag
  or merge key;
- an edit that could change the parser's flow-nesting guard on a document with
  more than ``MAX_FLOW_DEPTH`` brackets (then the guard is run on the whole text).

``Analysis.timings`` has the key ``"incremental"`` (the time spent re-parsing and
splicing) exactly when the fast path ran.
"""

from __future__ import annotations

import logging
import re
import time
from enum import StrEnum
from pathlib import Path
from typing import Any

from pack_lsp.core.base import kinds
from pack_lsp.core.base.diagnostics import Diagnostic
from pack_lsp.core.base.source import strip_bom
from pack_lsp.core.base.text import LineIndex, Span
from pack_lsp.core.checks.analysis import Analysis, Reuse, _gc_paused, analyze, complete
from pack_lsp.core.model.config import Config
from pack_lsp.core.model.context import RuleEdit
from pack_lsp.core.model.manifest.workspace import ManifestIndex
from pack_lsp.core.model.pack import Prompt
from pack_lsp.core.model.profiles import target_of
from pack_lsp.core.model.recognize import detect
from pack_lsp.core.syntax import reuse
from pack_lsp.core.syntax.jsontree import is_json_path
from pack_lsp.core.syntax.reuse import tree_facts
from pack_lsp.core.syntax.yamltree import (
    MAX_DEPTH,
    MAX_FLOW_DEPTH,
    AliasNode,
    MappingNode,
    Node,
    Pair,
    ParseResult,
    ScalarNode,
    SequenceNode,
    parse,
    shifted_copy,
    shifted_pairs,
    to_data,
)
from pack_lsp.core.syntax.yamltree.compose import Composer, compose
from pack_lsp.core.syntax.yamltree.events import YamlSyntaxError
from pack_lsp.core.syntax.yamltree.guards import too_deep

log = logging.getLogger(__name__)

#: Key of ``Analysis.timings`` present exactly when the fast path ran.
INCREMENTAL = "incremental"


class Fallback(StrEnum):
    """Why an edit is analysed in full instead (``reanalyze`` logs it at debug level)."""

    INELIGIBLE = "another kind, path, configuration or workspace, or a JSON file"
    PREVIOUS_VERSION = (
        "the previous version has a syntax error or a parser diagnostic, "
        "or its root is not a block mapping"
    )
    PREVIOUS_TREE = "the previous tree has an anchor, alias, tag or merge key, or nests too deep"
    NOT_IN_ONE_BLOCK = (
        "the edit is not inside one top-level block or prompt "
        "(before the first key, on a key, or across blocks)"
    )
    BLOCK = "the re-parsed block is not provably what parsing the whole text would give"
    PROMPTS_DATA = "the previous data of `prompts` is not a mapping"
    FLOW_GUARD = "the edit may change what the parser's flow-nesting guard finds"


_CHUNK = 4096
#: Characters the flow-nesting guard of the parser looks at (see ``too_deep``).
_FLOW_CHARS = re.compile(r"[\[\]{}\"'#\\\r\n]")
_FLOW_TOKENS = re.compile(r"[\[\]{}\"'#]")


@_gc_paused()
def reanalyze(
    previous: Analysis,
    text: str,
    *,
    path: str | Path | None = None,
    config: Config | None = None,
    kind: str | None = None,
    workspace: ManifestIndex | None = None,
) -> Analysis:
    """``analyze(text, …)`` for a new version of ``previous``'s document, re-parsing
    only the edited block when that is provably the same."""
    original = text
    config = config or Config()
    text = strip_bom(text)
    file_path = Path(path) if path is not None else None
    detected = kind
    if detected is None:
        detected = detect(str(path) if path is not None else None, text, config.manifests)
    t0 = time.perf_counter()
    spliced: _Spliced | Fallback = Fallback.INELIGIBLE
    current = reuse.mode()
    if current == reuse.OFF:
        return analyze(original, path=path, config=config, kind=detected, workspace=workspace)
    if (
        detected == kinds.PROMPTPACK
        and previous.kind == detected
        and previous.path == file_path
        and workspace is None
        and not is_json_path(file_path)
        and previous.config == config
    ):
        spliced = _splice(previous, text, config)
    if isinstance(spliced, Fallback):
        log.debug("full analysis: %s", spliced.value)
        return analyze(
            original,
            path=path,
            config=config,
            kind=detected,
            workspace=workspace,
            previous_derived=previous.derived,
        )
    parsed, data, known, models, extent = spliced
    units = previous.rule_units
    rule_edit = (
        RuleEdit(units, *extent[:4], changed=extent[4:])
        if units is not None and extent is not None
        else None
    )
    elapsed = time.perf_counter() - t0
    if current == reuse.VERIFY:
        _verify_splice(parsed, data)
    timings = {"parse": elapsed, INCREMENTAL: elapsed}
    return complete(
        parsed,
        kind=detected,
        config=config,
        file_path=file_path,
        timings=timings,
        reused=Reuse(
            data=data,
            plain_tree=True,
            known_schema=known,
            prompts=models,
            previous_derived=previous.derived,
            rule_edit=rule_edit,
        ),
    )


def _verify_splice(parsed: ParseResult, data: Any) -> None:
    """Raise ``ReuseMismatch`` unless the spliced tree, data and line index are those
    of a full parse of the new text."""
    full = parse(parsed.text)
    reuse.verify("parse problems", "the spliced text", [], [*full.diagnostics])
    reuse.verify("syntax error flag", "the spliced text", False, full.syntax_error)
    facts, fresh = tree_facts(parsed.root), tree_facts(full.root)
    if facts != fresh:
        at = next(
            (i for i, (a, b) in enumerate(zip(facts, fresh, strict=False)) if a != b),
            min(len(facts), len(fresh)),
        )
        reuse.verify("tree", f"the spliced text (node {at} in walk order)", facts[at:], fresh[at:])
    reuse.verify("plain data", "the spliced text", _strict(data), _strict(to_data(full.root)))
    reuse.verify("line index", "the spliced text", _starts(parsed.lines), _starts(full.lines))


def _starts(lines: LineIndex) -> list[int]:
    return [lines.line_start(line) for line in range(lines.line_count)]


def _strict(value: Any) -> Any:
    """``value`` with the type of every scalar made part of it (``1``, ``1.0`` and
    ``true`` are equal plain data, not the same)."""
    if isinstance(value, dict):
        return [(_strict(k), _strict(v)) for k, v in value.items()]
    if isinstance(value, list):
        return [_strict(v) for v in value]
    return (type(value).__name__, repr(value))


# ------------------------------------------------------------------- changed region


def common_prefix(a: str, b: str) -> int:
    """Length of the longest common prefix (chunked slice comparisons, then bisection)."""
    n = min(len(a), len(b))
    lo = 0
    while lo < n:
        hi = min(lo + _CHUNK, n)
        if a[lo:hi] != b[lo:hi]:
            while hi - lo > 1:  # a[:lo] == b[:lo] and a[:hi] != b[:hi]
                mid = (lo + hi) // 2
                if a[lo:mid] == b[lo:mid]:
                    lo = mid
                else:
                    hi = mid
            return lo
        lo = hi
    return n


def common_suffix(a: str, b: str, limit: int) -> int:
    """Length of the longest common suffix, at most ``limit``."""
    la, lb = len(a), len(b)
    n = min(la, lb, limit)
    lo = 0
    while lo < n:
        hi = min(lo + _CHUNK, n)
        if a[la - hi : la - lo] != b[lb - hi : lb - lo]:
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if a[la - mid : la - lo] == b[lb - mid : lb - lo]:
                    lo = mid
                else:
                    hi = mid
            return lo
        lo = hi
    return n


def _line_start(text: str, offset: int) -> int:
    return max(text.rfind("\n", 0, offset), text.rfind("\r", 0, offset)) + 1


# ----------------------------------------------------------------------- the tree


def _plain(node: Node | None, limit: int) -> bool:
    """No anchor, alias, tag or merge key in the subtree, nor collections nested
    ``limit`` levels or more below ``node``."""
    if node is None:
        return True
    stack: list[tuple[Node, int]] = [(node, 0)]
    while stack:
        n, depth = stack.pop()
        if n.anchor is not None or n.tag is not None or isinstance(n, AliasNode):
            return False
        if isinstance(n, MappingNode):
            if depth >= limit:
                return False
            for p in n.pairs:
                if p.key_text is None or p.key_text == "<<":
                    return False
                stack.append((p.key, depth + 1))
                stack.append((p.value, depth + 1))
        elif isinstance(n, SequenceNode):
            if depth >= limit:
                return False
            stack.extend((item, depth + 1) for item in n.items)
    return True


def _block_mapping(node: Node | None) -> MappingNode | None:
    if (
        isinstance(node, MappingNode)
        and not node.flow
        and node.anchor is None
        and node.tag is None
        and node.pairs
        and len(node.pairs) == len(node.effective)
    ):
        return node
    return None


def _locate(
    text: str, pairs: list[Pair], start: int, end: int, limit: int
) -> tuple[int, int, int] | None:
    """The pair whose block contains the old region ``[start, end)``, with its extent.

    A block runs from the start of its key's line to the start of the next key's
    line (``limit`` for the last one); the region must lie after the key's end, and
    the key must be the first thing on its line.
    """
    lo, hi = 0, len(pairs)
    while lo < hi:  # last pair whose key starts at or before ``start``
        mid = (lo + hi) // 2
        if pairs[mid].key.span.start <= start:
            lo = mid + 1
        else:
            hi = mid
    index = lo - 1
    if index < 0:
        return None
    key = pairs[index].key
    if start < key.span.end:
        return None
    block_start = _line_start(text, key.span.start)
    if text[block_start : key.span.start].strip(" "):
        return None
    if index + 1 < len(pairs):
        next_key = pairs[index + 1].key.span.start
        block_end = _line_start(text, next_key)
        if text[block_end:next_key].strip(" "):
            return None
    else:
        block_end = limit
    if end > block_end:
        return None
    return index, block_start, block_end


def _reparse(
    text: str,
    old: Pair,
    block_start: int,
    block_end: int,
    delta: int,
    extra: int,
    conforming: bool,
) -> Pair | None:
    """The block re-parsed from the new text at absolute offsets, or ``None`` when it
    is not provably what parsing the whole text would give.

    ``extra`` is how many collections enclose the block's mapping in the document;
    ``conforming``: the previous version was read by the conforming parser.
    """
    new_end = block_end + delta
    if new_end < len(text) and text[new_end - 1 : new_end] not in ("\n", "\r"):
        return None  # the next key no longer starts a line
    block = text[block_start:new_end]
    column = old.key.span.start - block_start
    # A line at or left of the key's column (other than blanks and comments) would
    # end the enclosing mapping in the whole document: not a block-local edit.
    if re.search(rf"(?:\r\n|\r|\n)(?! {{{column + 1}}})[ ]*[^ \r\n#]", block):
        return None
    result = parse(block)
    root = result.root
    if (
        result.syntax_error
        or result.diagnostics
        # A text libyaml rejects is read by the conforming parser, whole (D26): the
        # block is then exact only if every block reads with it. The others did when
        # the previous version was read that way; otherwise they were never tried.
        or (result.conforming and not conforming)
        or (conforming and not result.conforming and not _reads_conforming(block))
        or not isinstance(root, MappingNode)
        or root.flow
        or root.anchor is not None
        or root.tag is not None
        or len(root.pairs) != 1
    ):
        return None
    pair = root.pairs[0]
    key, old_key = pair.key, old.key
    if (
        pair.key_text != old.key_text
        or not isinstance(key, ScalarNode)
        or not isinstance(old_key, ScalarNode)
        or key.style != old_key.style
        or key.span.start + block_start != old_key.span.start
        or key.span.end + block_start != old_key.span.end
        or not _plain(key, 1)
        or not _plain(pair.value, MAX_DEPTH - extra - 3)
    ):
        return None
    return Pair(
        shifted_copy(key, block_start), pair.key_text, shifted_copy(pair.value, block_start)
    )


def _reads_conforming(block: str) -> bool:
    """Whether the conforming parser reads ``block`` without an error."""
    try:
        compose(Composer(block), block, conforming=True)
    except YamlSyntaxError:
        return False
    return True


def _replaced(mapping: MappingNode, index: int, pair: Pair, delta: int) -> MappingNode:
    """A copy of block ``mapping`` with pair ``index`` replaced by ``pair`` and the
    pairs after it shifted by ``delta`` (those before are shared)."""
    old = mapping.pairs[index]
    after = mapping.pairs[index + 1 :]
    if delta:
        after = shifted_pairs(after, delta)
    pairs = [*mapping.pairs[:index], pair, *after]
    start = mapping.span.start
    out = MappingNode(Span(start, max(pairs[-1].span.end, start)), False)
    out.pairs = pairs
    out.effective = {p.key_text: p for p in pairs if p.key_text is not None}
    out.size = mapping.size - old.key.size - old.value.size + pair.key.size + pair.value.size
    return out


def _flow_guard_unchanged(old: str, new: str, start: int, old_end: int, new_end: int) -> bool:
    """Whether the parser's flow-nesting guard provably sees the same tokens (shifted)
    in the new text: the edit adds or removes none of the characters it reads, no line
    break, and no token follows on the edited line (whose look-back could include it)."""
    if _FLOW_CHARS.search(old, start, old_end) or _FLOW_CHARS.search(new, start, new_end):
        return False
    line_end = old.find("\n", old_end)
    cr = old.find("\r", old_end)
    if line_end < 0 or 0 <= cr < line_end:
        line_end = cr if cr >= 0 else len(old)
    return _FLOW_TOKENS.search(old, old_end, line_end) is None


Known = dict[str, tuple[Diagnostic, ...]]


def _known_schema(
    previous: Analysis,
    data: Any,
    config: Config,
    edited: str | None,
    after: int,
    delta: int,
) -> Known | None:
    """Schema diagnostics of the prompts whose data is the previous version's (the
    same objects), shifted when they lie after the edit: every prompt but ``edited``
    (``None`` when no prompt changed). ``after``: the old offset where the edited block
    ended. ``None`` when nothing can be reused (another target version, no units)."""
    units = previous.schema_units
    root = previous.root
    if units is None or not isinstance(root, MappingNode):
        return None
    old_prompts = previous.data.get("prompts") if isinstance(previous.data, dict) else None
    new_prompts = data.get("prompts") if isinstance(data, dict) else None
    prompts_node = root.get("prompts")
    if (
        not isinstance(old_prompts, dict)
        or not isinstance(new_prompts, dict)
        or not isinstance(prompts_node, MappingNode)
        or target_of(config, previous.data) != target_of(config, data)
    ):
        return None
    known: Known = {}
    for key, diagnostics in units:
        if key is None or key == edited:
            continue
        pair = prompts_node.effective.get(key)
        if pair is None or old_prompts.get(key) is not new_prompts.get(key):
            continue
        if delta and diagnostics and pair.key.span.start >= after:
            diagnostics = tuple(d.shifted(delta) for d in diagnostics)
        known[key] = diagnostics
    return known


def _models_before(previous: Analysis, prompts: MappingNode, count: int) -> dict[str, Prompt]:
    """The models of the first ``count`` prompts, whose pairs the new tree shares."""
    pack = previous.pack
    if pack is None:
        return {}
    out: dict[str, Prompt] = {}
    for pair in prompts.pairs[:count]:
        model = pack.prompts.get(pair.key_text or "")
        if model is not None:
            out[model.key] = model
    return out


#: What an edit changed, for reusing rule results (the fields of ``RuleEdit`` after
#: ``previous``): the edited prompt (``None``: another top-level block), the old
#: offsets between which the text may differ (from the end of the block's key to
#: the end of the block), how far what follows moved, and the old offsets between
#: which the text did differ (the common prefix and suffix of the two versions).
Extent = tuple[str | None, int, int, int, int, int]
_Spliced = tuple[ParseResult, Any, Known | None, dict[str, Prompt], Extent | None]


def _splice(previous: Analysis, text: str, config: Config) -> _Spliced | Fallback:
    """The new parse result and data, the schema diagnostics of unchanged prompts,
    the models of the prompts before the edit and the extent of the edit (``None``
    when it was the whole ``prompts`` block); or why to fall back to a full
    analysis."""
    old_text = previous.text
    root = _block_mapping(previous.root)
    if (
        root is None
        or previous.syntax_error
        or previous.parse_diagnostics
        or not isinstance(previous.data, dict)
    ):
        return Fallback.PREVIOUS_VERSION
    if previous.plain_tree is None:
        if not _plain(root, MAX_DEPTH):
            return Fallback.PREVIOUS_TREE
    elif not previous.plain_tree:
        return Fallback.PREVIOUS_TREE
    if text == old_text:
        known = _known_schema(previous, previous.data, config, None, 0, 0)
        old_prompts = _block_mapping(root.get("prompts"))
        reuse = (
            _models_before(previous, old_prompts, len(old_prompts.pairs))
            if old_prompts is not None
            else {}
        )
        return (
            ParseResult(root, [], False, previous.lines, text, conforming=previous.conforming),
            previous.data,
            known,
            reuse,
            (None, 0, 0, 0, 0, 0),
        )
    delta = len(text) - len(old_text)
    start = common_prefix(old_text, text)
    suffix = common_suffix(old_text, text, min(len(old_text), len(text)) - start)
    old_end = len(old_text) - suffix
    new_end = len(text) - suffix

    found = _locate(old_text, root.pairs, start, old_end, len(old_text))
    if found is None:
        return Fallback.NOT_IN_ONE_BLOCK
    index, block_start, block_end = found
    top = root.pairs[index]
    prompts = _block_mapping(top.value) if top.key_text == "prompts" else None
    inner = (
        _locate(old_text, prompts.pairs, start, old_end, block_end) if prompts is not None else None
    )
    data: Any
    if prompts is not None and inner is not None:
        p_index, p_start, p_end = inner
        pair = _reparse(text, prompts.pairs[p_index], p_start, p_end, delta, 2, previous.conforming)
        if pair is None:
            return Fallback.BLOCK
        new_prompts = _replaced(prompts, p_index, pair, delta)
        new_root = _replaced(root, index, Pair(top.key, top.key_text, new_prompts), delta)
        prompts_data = previous.data.get("prompts")
        if not isinstance(prompts_data, dict):
            return Fallback.PROMPTS_DATA
        prompts_data = dict(prompts_data)
        assert pair.key_text is not None
        prompts_data[pair.key_text] = to_data(pair.value)
        data = dict(previous.data)
        data["prompts"] = prompts_data
        known = _known_schema(previous, data, config, pair.key_text, p_end, delta)
        reuse = _models_before(previous, prompts, p_index)
        extent: Extent | None = (
            pair.key_text,
            prompts.pairs[p_index].key.span.end,
            p_end,
            delta,
            start,
            old_end,
        )
    else:
        pair = _reparse(text, top, block_start, block_end, delta, 1, previous.conforming)
        if pair is None:
            return Fallback.BLOCK
        new_root = _replaced(root, index, pair, delta)
        assert pair.key_text is not None
        data = dict(previous.data)
        data[pair.key_text] = to_data(pair.value)
        edited = pair.key_text if pair.key_text == "prompts" else None
        extent = (
            (None, top.key.span.end, block_end, delta, start, old_end) if edited is None else None
        )
        known = (
            _known_schema(previous, data, config, edited, block_end, delta)
            if edited is None
            else None
        )
        reuse = {}
        old_prompts = _block_mapping(root.get("prompts"))
        prompts_pair = root.effective.get("prompts")
        if (
            old_prompts is not None
            and prompts_pair is not None
            and prompts_pair.key.span.start < block_start
        ):
            reuse = _models_before(previous, old_prompts, len(old_prompts.pairs))
    # The guard's own cheap test first: most edits provably leave what it reads as it
    # was, and then the whole text need not be scanned for brackets.
    if (
        not _flow_guard_unchanged(old_text, text, start, old_end, new_end)
        and text.count("[") + text.count("{") > MAX_FLOW_DEPTH
        and too_deep(text) is not None
    ):
        return Fallback.FLOW_GUARD
    old_lines = previous.lines
    lines = (
        old_lines.spliced(text, start, old_end, new_end)
        if old_lines.text is old_text
        else LineIndex(text)
    )
    # Still read by the conforming parser when the previous version was (kept as a
    # "may be" when the edit removed what libyaml rejected: it only costs a check).
    parsed = ParseResult(new_root, [], False, lines, text, conforming=previous.conforming)
    return parsed, data, known, reuse, extent
