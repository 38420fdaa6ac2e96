"""Quick fixes computed from the ``data`` of diagnostics.

Each rule declares the kinds of fix it offers (``Rule.fixes``, a ``FixKind`` each)
and puts what they need in its diagnostics' ``data`` (fields such as ``name``,
``suggestions``, ``expected``, ``replacement``, ``prompt``). This module has one
handler per kind:

- replace a name with a did-you-mean suggestion (tools, prompts, states,
  fragments, unknown keys, enum values);
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
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pack_lsp.core import resolve as refs
from pack_lsp.core.analysis import Analysis
from pack_lsp.core.diagnostics import Diagnostic, FixKind
from pack_lsp.core.language.rename import Edit, _plain_ok, quote_like
from pack_lsp.core.registry import REGISTRY
from pack_lsp.core.rules.templates import UNDECLARED_VARIABLE, UNDEFINED_FRAGMENT
from pack_lsp.core.rules.workflow import UNDECLARED_ARTIFACT
from pack_lsp.core.text import Span
from pack_lsp.core.yamltree import (
    MappingNode,
    Node,
    SequenceNode,
    deref,
    resolve,
    resolve_plain,
)

_TOOL_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*$")
#: Text that reads back as the same string when written plain, in block or flow context.
_PLAIN_TEXT = re.compile(r"^[A-Za-z0-9_(][^:#,\[\]{}\r\n\t\"'`]*(?<! )$")


def _plain_text_ok(value: str) -> bool:
    return _plain_ok(value) or (
        bool(_PLAIN_TEXT.match(value)) and isinstance(resolve_plain(value), str)
    )


@dataclass(frozen=True, slots=True)
class Fix:
    title: str
    edits: tuple[Edit, ...]
    diagnostic: Diagnostic
    preferred: bool = False


# ------------------------------------------------------------------------ document


class _Doc:
    """Text helpers for computing insertions in the style of the file."""

    def __init__(self, analysis: Analysis) -> None:
        self.analysis = analysis
        self.text = analysis.text
        self.lines = analysis.lines
        self.json = self.text.lstrip().startswith("{")
        self.eol = "\r\n" if "\r\n" in self.text else "\n"
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


#: Rules whose diagnostics point at a bare name inside a placeholder.
_PLACEHOLDER_CODES = frozenset(
    r.code for r in (UNDECLARED_VARIABLE, UNDEFINED_FRAGMENT, UNDECLARED_ARTIFACT)
)


def _replace_name(analysis: Analysis, diag: Diagnostic, new: str) -> Edit:
    """Replace the name the diagnostic points at, keeping its quotes."""
    text = analysis.text
    span = diag.span
    seg = text[span.start : span.end]
    old = diag.data.get("name") or diag.data.get("key") or diag.data.get("value")
    if diag.code in _PLACEHOLDER_CODES and seg == old:
        return Edit(span, new)  # a name inside a placeholder: no quoting there
    if seg.startswith("{{") and isinstance(old, str) and old in seg:
        # A placeholder: change only the name inside it.
        at = span.start + seg.rindex(old)
        return Edit(Span(at, at + len(old)), new)
    return Edit(span, quote_like(text, span, new))


def _suggestion_fixes(analysis: Analysis, diag: Diagnostic) -> list[Fix]:
    found = diag.data.get("suggestions")
    if not isinstance(found, list | tuple):
        return []
    return [
        Fix(f"Replace with `{s}`", (_replace_name(analysis, diag, s),), diag, preferred=i == 0)
        for i, s in enumerate(found)
        if isinstance(s, str)
    ]


def _replacement_fix(analysis: Analysis, diag: Diagnostic) -> list[Fix]:
    data = diag.data
    for field in ("replacement", "expected"):
        value = data.get(field)
        if isinstance(value, str):
            return [
                Fix(
                    f"Change to `{value}`",
                    (Edit(diag.span, quote_like(analysis.text, diag.span, value)),),
                    diag,
                    preferred=True,
                )
            ]
    return []


def _rename_event(analysis: Analysis, diag: Diagnostic) -> list[Fix]:
    better = diag.data.get("suggestion")
    if not isinstance(better, str) or not better:
        return []
    return [
        Fix(
            f"Rename the event to `{better}`",
            (Edit(diag.span, quote_like(analysis.text, diag.span, better)),),
            diag,
            preferred=True,
        )
    ]


def _create_tool(analysis: Analysis, diag: Diagnostic) -> list[Fix]:
    name = diag.data.get("name")
    if not isinstance(name, str) or not _TOOL_NAME.match(name) or diag.data.get("agent"):
        return []
    root = _mapping_at(analysis.root, ())
    pack = analysis.pack
    if root is None or pack is None:
        return []
    settings = refs.ToolSettings.of(analysis.config)
    if not isinstance(refs.resolve_tool(name, None, pack, settings), refs.Undefined):
        return []
    doc = _Doc(analysis)
    stub = {
        "name": name,
        "description": f"Describe when the model should call {name}",
        "parameters": {"type": "object", "properties": {}},
    }
    edit = doc.set_entry(root, "tools", {name: stub})
    return [Fix(f"Create a definition for tool `{name}`", (edit,), diag)]


def _add_member(analysis: Analysis, diag: Diagnostic) -> list[Fix]:
    prompt = diag.data.get("prompt") or diag.data.get("name")
    pack = analysis.pack
    if not isinstance(prompt, str) or pack is None or prompt not in pack.prompts:
        return []
    agents = _mapping_at(analysis.root, ("agents",))
    if agents is None:
        return []
    doc = _Doc(analysis)
    edit = doc.set_entry(agents, "members", {prompt: {}})
    return [Fix(f"Add `{prompt}` to `agents.members`", (edit,), diag, preferred=True)]


def _declare_variable(analysis: Analysis, diag: Diagnostic) -> list[Fix]:
    name = diag.data.get("name")
    prompts = diag.data.get("prompts")
    prompt = diag.data.get("prompt")
    keys = (
        [prompt]
        if isinstance(prompt, str)
        else (
            [p for p in prompts if isinstance(p, str)] if isinstance(prompts, list | tuple) else []
        )
    )
    if not isinstance(name, str) or not keys:
        return []
    fixes: list[Fix] = []
    doc = _Doc(analysis)
    declaration = {"name": name, "type": "string", "required": True}
    for key in keys:
        owner = _mapping_at(analysis.root, ("prompts", key))
        if owner is None:
            continue
        edit = doc.set_entry(owner, "variables", [declaration])
        fixes.append(
            Fix(
                f"Declare variable `{name}` in prompt `{key}`",
                (edit,),
                diag,
                preferred=len(keys) == 1,
            )
        )
    return fixes


def _raise_schema(analysis: Analysis, diag: Diagnostic) -> list[Fix]:
    url = diag.data.get("schema_url")
    root = _mapping_at(analysis.root, ())
    if not isinstance(url, str) or root is None:
        return []
    version = diag.data.get("version", "")
    title = f"Raise `$schema` to PromptPack {version}"
    pair = root.pair("$schema")
    value = deref(pair.value) if pair is not None else None
    if pair is not None and value is not None and value.span.length:
        written = analysis.text[value.span.start]
        # A URL reads back unchanged as a plain YAML scalar: keep an unquoted value so.
        plain = written not in "'\"" and " #" not in url and ": " not in url
        edit = Edit(value.span, url if plain else quote_like(analysis.text, value.span, url))
    else:
        edit = _Doc(analysis).set_entry(root, "$schema", url)
    return [Fix(title, (edit,), diag, preferred=True)]


def _remove_entry(analysis: Analysis, diag: Diagnostic) -> list[Fix]:
    """Delete the entry the diagnostic is on, with its line when it has one alone."""
    path = diag.data.get("path")
    if not diag.data.get("removable") or not isinstance(path, list) or not path:
        return []
    parent_node, _ = resolve(analysis.root, path[:-1])
    parent = deref(parent_node)
    if not isinstance(parent, MappingNode) or len(parent.pairs) < 2:
        return []
    index = next((i for i, p in enumerate(parent.pairs) if p.key_text == path[-1]), None)
    if index is None:
        return []
    pair = parent.pairs[index]
    text = analysis.text
    doc = _Doc(analysis)
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
    key = diag.data.get("key", path[-1])
    return [Fix(f"Remove `{key}`", (Edit(span, ""),), diag, preferred=True)]


Handler = Callable[[Analysis, Diagnostic], list[Fix]]

HANDLERS: Mapping[FixKind, Handler] = {
    FixKind.REPLACE_WITH_SUGGESTION: _suggestion_fixes,
    FixKind.REPLACE_VALUE: _replacement_fix,
    FixKind.RENAME_EVENT: _rename_event,
    FixKind.CREATE_TOOL: _create_tool,
    FixKind.ADD_MEMBER: _add_member,
    FixKind.DECLARE_VARIABLE: _declare_variable,
    FixKind.RAISE_SCHEMA: _raise_schema,
    FixKind.REMOVE_ENTRY: _remove_entry,
}


def quick_fixes(analysis: Analysis, diag: Diagnostic) -> list[Fix]:
    """Every fix for one diagnostic of ``analysis``: those its rule offers.

    For a Kubernetes manifest, the fixes of the embedded pack the diagnostic is in
    (its analysis has the manifest's offsets, so the edits apply to the manifest).
    """
    inner = analysis.at(diag.span.start)
    if inner is None:
        return []
    analysis = inner
    rule = REGISTRY.get(diag.code)
    fixes: list[Fix] = []
    for kind in rule.fixes if rule is not None else ():
        try:
            fixes.extend(HANDLERS[kind](analysis, diag))
        except (ValueError, IndexError, KeyError):
            continue
    # Suggestions first are preferred only when nothing else is.
    if sum(f.preferred for f in fixes) > 1:
        first = next(i for i, f in enumerate(fixes) if f.preferred)
        fixes = [
            f if i == first else Fix(f.title, f.edits, f.diagnostic) for i, f in enumerate(fixes)
        ]
    return fixes


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
