"""Quick fixes computed from the typed fix payloads of diagnostics.

A rule that offers a fix builds its payload where it reports the diagnostic
(``Diagnostic.fixes``, classes in ``core/base/fixes.py``): the exact characters to replace,
the names to insert. This module has one handler per payload kind, each turning a
payload into edits:

- replace a name with a did-you-mean suggestion (tools, prompts, states,
  fragments, unknown keys, enum values), at the payload's target;
- rename a key of the configuration file (an edit of that file, not of the pack);
- create a tool definition for an undefined tool;
- add a prompt to ``agents.members``;
- declare a variable a template uses;
- replace a value with the one the rule expects (``text`` → ``text/plain``, a
  prompt ``id`` or tool ``name`` set to its key, ...);
- raise ``$schema`` to the version a newer key needs;
- remove an inert deprecated entry (``fail_on_violation: true``).

Edits keep the file's style: insertions take their indentation from the lines
around them, a flow mapping or list gets a flow insertion, a JSON file gets JSON,
and the file's line break (``\\n`` or ``\\r\\n``) is reused. Comments are never
touched.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import Any, assert_never

from pack_lsp.core.base.diagnostics import Diagnostic
from pack_lsp.core.base.fixes import (
    PAYLOADS,
    AddMember,
    CreateTool,
    DeclareVariable,
    FixData,
    FixKind,
    Quote,
    QuoteScalar,
    RaiseSchema,
    RemoveEntry,
    RenameConfigKey,
    RenameEvent,
    ReplaceValue,
    ReplaceWithSuggestion,
)
from pack_lsp.core.base.source import read_text
from pack_lsp.core.base.text import Span
from pack_lsp.core.base.tomlkeys import bare_or_quoted
from pack_lsp.core.checks.analysis import Analysis, moved_diagnostic
from pack_lsp.core.ide.fixsafety import is_safe
from pack_lsp.core.ide.textedits import Edit, _plain_ok, quote_like
from pack_lsp.core.syntax.yamltree import (
    MappingNode,
    Node,
    SequenceNode,
    deref,
    resolve,
    resolve_plain,
)

#: Text that reads back as the same string when written plain, in block or flow context.
_PLAIN_TEXT = re.compile(r"^[A-Za-z0-9_(][^:#,\[\]{}\r\n\t\"'`]*(?<! )$")


def _plain_text_ok(value: str) -> bool:
    return _plain_ok(value) or (
        bool(_PLAIN_TEXT.match(value)) and isinstance(resolve_plain(value), str)
    )


@dataclass(frozen=True, slots=True)
class OtherFile:
    """A file other than the analysed document, with the text a fix's edits point into."""

    path: str
    text: str


@dataclass(frozen=True, slots=True)
class Fix:
    """One quick fix: a title and edits of the analysed document, or of ``file``."""

    title: str
    edits: tuple[Edit, ...]
    diagnostic: Diagnostic
    preferred: bool = False
    file: OtherFile | None = None
    safe: bool = False
    """``pack-lsp --check --fix`` applies it without ``--unsafe-fixes``
    (``core/ide/fixsafety.py``)."""


# ------------------------------------------------------------------------ document


#: The line break of the file a pack analysed in its own text is written in (D82),
#: while its quick fixes are made (None: the analysed text's own).
_eol: ContextVar[str | None] = ContextVar("codeactions_eol", default=None)

#: Inside ``shared_documents``: the text helpers made so far, by analysis.
_shared: ContextVar[dict[int, tuple[Analysis, _Doc]] | None] = ContextVar(
    "codeactions_shared", default=None
)


@contextmanager
def shared_documents() -> Iterator[None]:
    """Within it, the fixes of one analysis share their text helpers: each ``_Doc``
    scans the whole text, which made listing the fixes of every diagnostic of a large
    pack (``--check``'s output, ``--fix``) cost a scan per fix. Outside, nothing is
    kept: the language server holds no analysis longer than it did."""
    token = _shared.set({})
    try:
        yield
    finally:
        _shared.reset(token)


def _doc(analysis: Analysis) -> _Doc:
    shared = _shared.get()
    if shared is None:
        return _Doc(analysis)
    found = shared.get(id(analysis))
    if found is not None and found[0] is analysis:
        return found[1]
    doc = _Doc(analysis)
    shared[id(analysis)] = (analysis, doc)
    return doc


class _Doc:
    """Text helpers for computing insertions in the style of the file."""

    def __init__(self, analysis: Analysis) -> None:
        self.analysis = analysis
        self.text = analysis.text
        self.lines = analysis.lines
        self.json = self.text.lstrip().startswith("{")
        self.eol = _eol.get() or ("\r\n" if "\r\n" in self.text else "\n")
        self.step = self._detect_step()

    def column(self, offset: int) -> int:
        return self.lines.position(offset).character

    def line_indent(self, offset: int) -> str:
        line = self.lines.line_text(self.lines.position(offset).line)
        return line[: len(line) - len(line.lstrip(" "))]

    def content_end(self, node: Node) -> int:
        """End of the node's last character that is not a line break."""
        end = node.span.end
        while end > node.span.start and self.text[end - 1] in "\r\n":
            end -= 1
        return end

    def line_end_after(self, offset: int) -> int:
        return self.lines.line_end(self.lines.position(offset).line)

    def _detect_step(self) -> int:
        root = deref(self.analysis.root)
        if isinstance(root, MappingNode):
            for pair in root.pairs:
                value = deref(pair.value)
                if isinstance(value, MappingNode) and value.pairs and not value.flow:
                    step = self.column(value.pairs[0].key.span.start) - self.column(
                        pair.key.span.start
                    )
                    if step > 0:
                        return step
        return 2

    # -- rendering ---------------------------------------------------------------

    def scalar(self, value: Any) -> str:
        if self.json or not isinstance(value, str):
            return json.dumps(value, ensure_ascii=False)
        return value if _plain_text_ok(value) else json.dumps(value, ensure_ascii=False)

    def key(self, key: str) -> str:
        return self.scalar(key)

    def flow(self, value: Any) -> str:
        if self.json:
            return json.dumps(value, ensure_ascii=False)
        if isinstance(value, dict):
            inner = ", ".join(f"{self.key(k)}: {self.flow(v)}" for k, v in value.items())
            return "{" + inner + "}"
        if isinstance(value, list):
            return "[" + ", ".join(self.flow(v) for v in value) + "]"
        return self.scalar(value)

    def block_entry(self, key: str, value: Any, indent: str) -> list[str]:
        """Lines of ``key: value`` in block style at ``indent``."""
        pad = indent + " " * self.step
        if isinstance(value, dict) and value:
            out = [f"{indent}{self.key(key)}:"]
            for k, v in value.items():
                out.extend(self.block_entry(k, v, pad))
            return out
        if isinstance(value, list) and value:
            out = [f"{indent}{self.key(key)}:"]
            for item in value:
                out.extend(self.block_item(item, pad))
            return out
        return [f"{indent}{self.key(key)}: {self.flow(value)}"]

    def block_item(self, item: Any, indent: str) -> list[str]:
        """Lines of one ``- item`` at ``indent`` (the dash's column)."""
        if isinstance(item, dict) and item:
            lines: list[str] = []
            for k, v in item.items():
                lines.extend(self.block_entry(k, v, indent + "  "))
            lines[0] = indent + "- " + lines[0][len(indent) + 2 :]
            return lines
        return [f"{indent}- {self.flow(item)}"]

    def json_entry(self, key: str, value: Any, indent: str) -> str:
        body = json.dumps(value, ensure_ascii=False, indent=self.step)
        body = body.replace("\n", self.eol + indent)
        return f"{json.dumps(key, ensure_ascii=False)}: {body}"

    def json_item(self, value: Any, indent: str) -> str:
        return json.dumps(value, ensure_ascii=False, indent=self.step).replace(
            "\n", self.eol + indent
        )

    # -- insertions --------------------------------------------------------------

    def add_entry(self, owner: MappingNode, key: str, value: Any) -> Edit:
        """Insert ``key: value`` at the end of a mapping, in its style."""
        if owner.flow or self.json:
            return self._add_flow_entry(owner, key, value)
        first = owner.pairs[0].key.span.start if owner.pairs else owner.span.start
        indent = " " * self.column(first)
        last = (
            max(
                self.content_end(p.value) if p.value.span.end > p.key.span.end else p.key.span.end
                for p in owner.pairs
            )
            if owner.pairs
            else first
        )
        at = self.line_end_after(last)
        lines = self.block_entry(key, value, indent)
        return Edit(Span(at, at), self.eol + self.eol.join(lines))

    def _add_flow_entry(self, owner: MappingNode, key: str, value: Any) -> Edit:
        close = owner.span.end - 1
        if owner.pairs:
            last = owner.pairs[-1]
            end = max(last.key.span.end, last.value.span.end)
            multiline = (
                self.lines.position(owner.span.start).line
                != self.lines.position(last.key.span.start).line
            )
            if multiline:
                indent = self.line_indent(last.key.span.start)
                entry = (
                    self.json_entry(key, value, indent)
                    if self.json
                    else f"{self.key(key)}: {self.flow(value)}"
                )
                return Edit(Span(end, end), "," + self.eol + indent + entry)
            entry = (
                json.dumps(key, ensure_ascii=False) + ": " + json.dumps(value, ensure_ascii=False)
                if self.json
                else f"{self.key(key)}: {self.flow(value)}"
            )
            return Edit(Span(end, end), ", " + entry)
        entry = (
            json.dumps(key, ensure_ascii=False) + ": " + json.dumps(value, ensure_ascii=False)
            if self.json
            else f"{self.key(key)}: {self.flow(value)}"
        )
        inner = self.text[owner.span.start + 1 : close]
        if inner.strip():  # only a comment inside the braces: keep it after the entry
            return Edit(Span(owner.span.start + 1, owner.span.start + 1), " " + entry)
        return Edit(Span(owner.span.start + 1, close), entry)

    def add_item(self, seq: SequenceNode, item: Any) -> Edit:
        if seq.flow or self.json:
            close = seq.span.end - 1
            if seq.items:
                last = seq.items[-1]
                multiline = (
                    self.lines.position(seq.span.start).line
                    != self.lines.position(last.span.start).line
                )
                if multiline:
                    indent = self.line_indent(last.span.start)
                    body = self.json_item(item, indent) if self.json else self.flow(item)
                    return Edit(Span(last.span.end, last.span.end), "," + self.eol + indent + body)
                body = json.dumps(item, ensure_ascii=False) if self.json else self.flow(item)
                return Edit(Span(last.span.end, last.span.end), ", " + body)
            body = json.dumps(item, ensure_ascii=False) if self.json else self.flow(item)
            return Edit(Span(seq.span.start + 1, close), body)
        dash = " " * self.column(seq.span.start)
        at = self.line_end_after(self.content_end(seq.items[-1]) if seq.items else seq.span.start)
        return Edit(Span(at, at), self.eol + self.eol.join(self.block_item(item, dash)))

    def set_entry(self, parent: MappingNode, key: str, value: Any) -> Edit:
        """Give ``key`` of ``parent`` a value: fill an empty ``key:`` or add the entry."""
        pair = parent.pair(key)
        if pair is None:
            return self.add_entry(parent, key, value)
        target = deref(pair.value)
        if isinstance(target, MappingNode) and isinstance(value, dict) and len(value) == 1:
            ((k, v),) = value.items()
            return self.add_entry(target, k, v)
        if isinstance(target, SequenceNode) and isinstance(value, list) and len(value) == 1:
            return self.add_item(target, value[0])
        # An empty value (`key:` or `key: null`): write the value after the key.
        span = (
            target.span
            if target is not None and target.span.length
            else Span(pair.key.span.end, pair.key.span.end)
        )
        after_colon = self.text.find(":", pair.key.span.end)
        if self.json or parent.flow:
            rendered = json.dumps(value, ensure_ascii=False) if self.json else self.flow(value)
            if target is not None and target.span.length:
                return Edit(target.span, rendered)
            return Edit(Span(after_colon + 1, after_colon + 1), " " + rendered)
        indent = self.line_indent(pair.key.span.start) + " " * self.step
        if isinstance(value, dict):
            lines = [ln for k, v in value.items() for ln in self.block_entry(k, v, indent)]
        elif isinstance(value, list):
            lines = [ln for item in value for ln in self.block_item(item, indent)]
        else:
            lines = []
        start = after_colon + 1 if after_colon >= 0 else span.start
        end = max(start, span.end)
        if not lines:
            return Edit(Span(start, end), " " + self.flow(value))
        return Edit(Span(start, end), self.eol + self.eol.join(lines))


def _mapping_at(root: Node | None, path: Sequence[str]) -> MappingNode | None:
    node = deref(root)
    for step in path:
        if not isinstance(node, MappingNode):
            return None
        node = node.get(step)
    node = deref(node)
    return node if isinstance(node, MappingNode) else None


# --------------------------------------------------------------------------- fixes


def _replace_with_suggestion(
    analysis: Analysis, diag: Diagnostic, fix: ReplaceWithSuggestion
) -> list[Fix]:
    text = analysis.text
    target = fix.target

    def written(name: str) -> str:
        return name if fix.quote is Quote.BARE else quote_like(text, target, name)

    return [
        Fix(f"Replace with `{s}`", (Edit(target, written(s)),), diag, preferred=i == 0)
        for i, s in enumerate(fix.suggestions)
    ]


def _rename_config_key(analysis: Analysis, diag: Diagnostic, fix: RenameConfigKey) -> list[Fix]:
    """Edits of the configuration file, offered while it still reads as it did."""
    try:
        text = read_text(fix.path)
    except OSError:
        return []
    if any(text[t.start : t.end] != w for t, w in zip(fix.targets, fix.written, strict=True)):
        return []
    where = OtherFile(fix.path, text)
    return [
        Fix(
            f"Replace with `{s}`",
            tuple(Edit(t, bare_or_quoted(s)) for t in fix.targets),
            diag,
            preferred=i == 0,
            file=where,
        )
        for i, s in enumerate(fix.suggestions)
    ]


def _replace_value(analysis: Analysis, diag: Diagnostic, fix: ReplaceValue) -> list[Fix]:
    value = fix.replacement
    edit = Edit(fix.target, quote_like(analysis.text, fix.target, value))
    return [Fix(f"Change to `{value}`", (edit,), diag, preferred=True)]


def _quote_scalar(analysis: Analysis, diag: Diagnostic, fix: QuoteScalar) -> list[Fix]:
    if analysis.text[fix.target.start : fix.target.end] != fix.text:
        return []  # no longer the plain scalar the rule saw
    quoted = '"' + fix.text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return [
        Fix(f"Quote `{fix.text}` as a string", (Edit(fix.target, quoted),), diag, preferred=True)
    ]


def _rename_event(analysis: Analysis, diag: Diagnostic, fix: RenameEvent) -> list[Fix]:
    edit = Edit(fix.target, quote_like(analysis.text, fix.target, fix.name))
    return [Fix(f"Rename the event to `{fix.name}`", (edit,), diag, preferred=True)]


def _create_tool(analysis: Analysis, diag: Diagnostic, fix: CreateTool) -> list[Fix]:
    name = fix.name
    root = _mapping_at(analysis.root, ())
    if root is None:
        return []
    doc = _doc(analysis)
    stub = {
        "name": name,
        "description": f"Describe when the model should call {name}",
        "parameters": {"type": "object", "properties": {}},
    }
    edit = doc.set_entry(root, "tools", {name: stub})
    return [Fix(f"Create a definition for tool `{name}`", (edit,), diag)]


def _add_member(analysis: Analysis, diag: Diagnostic, fix: AddMember) -> list[Fix]:
    agents = _mapping_at(analysis.root, ("agents",))
    if agents is None:
        return []
    edit = _doc(analysis).set_entry(agents, "members", {fix.prompt: {}})
    return [Fix(f"Add `{fix.prompt}` to `agents.members`", (edit,), diag, preferred=True)]


def _declare_variable(analysis: Analysis, diag: Diagnostic, fix: DeclareVariable) -> list[Fix]:
    fixes: list[Fix] = []
    doc = _doc(analysis)
    declaration = {"name": fix.name, "type": "string", "required": True}
    for key in fix.prompts:
        owner = _mapping_at(analysis.root, ("prompts", key))
        if owner is None:
            continue
        edit = doc.set_entry(owner, "variables", [declaration])
        fixes.append(
            Fix(
                f"Declare variable `{fix.name}` in prompt `{key}`",
                (edit,),
                diag,
                preferred=len(fix.prompts) == 1,
            )
        )
    return fixes


def _raise_schema(analysis: Analysis, diag: Diagnostic, fix: RaiseSchema) -> list[Fix]:
    url = fix.url
    root = _mapping_at(analysis.root, ())
    if root is None:
        return []
    title = f"Raise `$schema` to PromptPack {fix.version}"
    pair = root.pair("$schema")
    value = deref(pair.value) if pair is not None else None
    if pair is not None and value is not None and value.span.length:
        written = analysis.text[value.span.start]
        # A URL reads back unchanged as a plain YAML scalar: keep an unquoted value so.
        plain = written not in "'\"" and " #" not in url and ": " not in url
        edit = Edit(value.span, url if plain else quote_like(analysis.text, value.span, url))
    else:
        edit = _doc(analysis).set_entry(root, "$schema", url)
    return [Fix(title, (edit,), diag, preferred=True)]


def _remove_entry(analysis: Analysis, diag: Diagnostic, fix: RemoveEntry) -> list[Fix]:
    """Delete the entry at the payload's path, with its line when it has one alone."""
    path = fix.path
    if not path:
        return []
    parent_node, _ = resolve(analysis.root, path[:-1])
    parent = deref(parent_node)
    if not isinstance(parent, MappingNode) or len(parent.pairs) < 2:
        return []
    index = next((i for i, p in enumerate(parent.pairs) if p.key_text == str(path[-1])), None)
    if index is None:
        return []
    pair = parent.pairs[index]
    text = analysis.text
    doc = _doc(analysis)
    end = doc.content_end(pair.value) if pair.value.span.length else pair.key.span.end
    if doc.json or parent.flow:
        if index + 1 < len(parent.pairs):
            span = Span(pair.key.span.start, parent.pairs[index + 1].key.span.start)
        else:
            before = parent.pairs[index - 1]
            span = Span(doc.content_end(before.value), end)
    else:
        line_start = text.rfind("\n", 0, pair.key.span.start) + 1
        if text[line_start : pair.key.span.start].strip():
            # After a list dash: the next key moves up to take this one's place.
            if index + 1 >= len(parent.pairs):
                return []
            span = Span(pair.key.span.start, parent.pairs[index + 1].key.span.start)
        else:
            line_end = text.find("\n", end)
            span = Span(line_start, len(text) if line_end < 0 else line_end + 1)
    return [Fix(f"Remove `{fix.key}`", (Edit(span, ""),), diag, preferred=True)]


def _handle(analysis: Analysis, diag: Diagnostic, fix: FixData) -> list[Fix]:
    """The fixes of one payload (``match`` keeps mypy sure every kind is handled)."""
    match fix:
        case ReplaceWithSuggestion():
            return _replace_with_suggestion(analysis, diag, fix)
        case RenameConfigKey():
            return _rename_config_key(analysis, diag, fix)
        case ReplaceValue():
            return _replace_value(analysis, diag, fix)
        case RenameEvent():
            return _rename_event(analysis, diag, fix)
        case CreateTool():
            return _create_tool(analysis, diag, fix)
        case AddMember():
            return _add_member(analysis, diag, fix)
        case DeclareVariable():
            return _declare_variable(analysis, diag, fix)
        case RaiseSchema():
            return _raise_schema(analysis, diag, fix)
        case RemoveEntry():
            return _remove_entry(analysis, diag, fix)
        case QuoteScalar():
            return _quote_scalar(analysis, diag, fix)
        case _:
            assert_never(fix)


HANDLED: frozenset[FixKind] = frozenset(p.kind for p in PAYLOADS)
"""The kinds ``_handle`` turns into edits: every kind (a test checks it)."""


def quick_fixes(analysis: Analysis, diag: Diagnostic) -> list[Fix]:
    """Every fix for one diagnostic of ``analysis``: those its payloads describe.

    For a Kubernetes manifest, the fixes of the embedded pack the diagnostic is in
    (its analysis has the manifest's offsets, so the edits apply to the manifest).
    """
    if not diag.fixes:
        return []
    found = analysis.own_text_at(diag.span.start)
    if found is None:
        return []
    inner, delta, eol = found
    # A pack analysed in its own text (D82): the fixes of its own diagnostic, moved,
    # with the line breaks of the manifest (as in its shadow).
    own = moved_diagnostic(diag, -delta) if delta else diag
    token = _eol.set(eol)
    fixes: list[Fix] = []
    try:
        for payload in own.fixes:
            fixes.extend(_fixes_of(inner, own, payload))
    finally:
        _eol.reset(token)
    # Suggestions first are preferred only when nothing else is.
    if sum(f.preferred for f in fixes) > 1:
        first = next(i for i, f in enumerate(fixes) if f.preferred)
        fixes = [f if i == first else replace(f, preferred=False) for i, f in enumerate(fixes)]
    if delta:
        fixes = [_moved_fix(f, delta, diag) for f in fixes]
    return fixes


def _fixes_of(inner: Analysis, diag: Diagnostic, payload: FixData) -> list[Fix]:
    """The fixes ``payload`` of ``diag`` describes (none when making them failed)."""
    try:
        made = _handle(inner, diag, payload)
    except (ValueError, IndexError, KeyError):
        # The other fixes are still offered; the failure is a defect to report
        # (``logging`` is loaded then: a cold check with fixes does not load it).
        import logging

        logging.getLogger(__name__).warning(
            "the %s fix of %s at %s failed", payload.kind, diag.code, diag.span, exc_info=True
        )
        return []
    if made and is_safe(diag, payload, inner.text):
        made = [replace(f, safe=True) for f in made]
    return made


def _moved_fix(fix: Fix, delta: int, diag: Diagnostic) -> Fix:
    """``fix`` of a pack analysed in its own text, for ``diag`` of its host: its
    edits of the pack moved by ``delta`` (those of another file stay)."""
    edits = fix.edits
    if fix.file is None:
        edits = tuple(Edit(e.span.shifted(delta), e.text) for e in edits)
    return replace(fix, edits=edits, diagnostic=diag)


def fixes_for(
    analysis: Analysis, span: Span, only: Iterable[tuple[str, Span]] | None = None
) -> list[Fix]:
    """Fixes for the diagnostics of ``analysis`` that touch ``span``.

    ``only`` limits them to diagnostics with these (code, span) pairs — the ones an
    editor sends in a code action request.
    """
    wanted = set(only) if only is not None else None
    out: list[Fix] = []
    for diag in analysis.diagnostics:
        if wanted is not None and (diag.code, diag.span) not in wanted:
            continue
        if wanted is None and not (diag.span.start <= span.end and span.start <= diag.span.end):
            continue
        out.extend(quick_fixes(analysis, diag))
    return out
