"""Context-aware completion, also while the document is mid-edit and invalid.

The place of the cursor is found from the tree (``node_path_at``) when the cursor
is on a scalar or inside a flow collection (flow style and JSON), and otherwise from
the text around the cursor: the current line and the indentation of the lines
above it (block style, including documents with a syntax error, whose recovered
tree may not cover the line being typed).

Candidates: schema keys not yet present (with descriptions), schema values (enums
and documented examples), references (prompt keys, tools, agent members, workflow
states), placeholders inside ``{{`` in templates, and snippets for a new prompt, a
new tool and an ``agents`` section.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pack_lsp.core import resolve as refs
from pack_lsp.core.analysis import Analysis
from pack_lsp.core.config import A2A_PREFIX
from pack_lsp.core.language import schema_docs
from pack_lsp.core.model import Pack
from pack_lsp.core.templates import artifact_names
from pack_lsp.core.text import Span
from pack_lsp.core.yamltree import (
    MappingNode,
    PathItem,
    ScalarNode,
    SequenceNode,
    node_path_at,
    resolve,
)

KEY = "key"
VALUE = "value"


@dataclass(frozen=True, slots=True)
class Completion:
    label: str
    kind: str  # property, value, prompt, tool, member, state, variable, fragment, artifact, snippet
    detail: str = ""
    documentation: str = ""
    insert_text: str | None = None
    snippet: bool = False  # insert_text holds ${n:...} tab stops
    replace: Span | None = None
    sort: str = ""


@dataclass(frozen=True, slots=True)
class Place:
    """Where the cursor is: typing a key of the mapping at ``path`` or the value at it."""

    what: str  # KEY or VALUE
    path: tuple[PathItem, ...]
    replace: Span
    prefix: str  # the part of the word before the cursor
    indent: int  # column of the word (for multi-line snippets)
    quoted: str = ""  # the quote character around a quoted scalar being edited


_WORD = re.compile(r"[\w$./:-]*\Z")
_WORD_AHEAD = re.compile(r"[\w$./:-]*")


def complete(analysis: Analysis, offset: int) -> list[Completion]:
    """Completion candidates at ``offset`` (code points) in the analysed text."""
    text = analysis.text
    offset = max(0, min(offset, len(text)))
    line = analysis.lines.position(offset).line
    line_start = analysis.lines.line_start(line)
    before = text[line_start:offset]
    template = _placeholder_context(analysis, offset, before)
    if template is not None:
        return template
    place = _place_from_tree(analysis, offset) or _place_from_text(analysis, offset)
    if place is None:
        return []
    if place.what == KEY:
        return _keys(analysis, place)
    return _values(analysis, place)


# ----------------------------------------------------------------------- places


def _word_span(text: str, offset: int, line_start: int) -> tuple[Span, str]:
    match = _WORD.search(text, line_start, offset)
    start = match.start() if match else offset
    ahead = _WORD_AHEAD.match(text, offset)
    end = ahead.end() if ahead else offset
    return Span(start, end), text[start:offset]


def _place_from_tree(analysis: Analysis, offset: int) -> Place | None:
    root = analysis.root
    if root is None:
        return None
    chain = node_path_at(root, offset)
    if not chain:
        return None
    steps = [step for step, _ in chain[1:]]
    node = chain[-1][1]
    column = analysis.lines.position(offset).character
    if isinstance(node, ScalarNode) and node.span.length > 0 and node.span.contains(offset):
        parent = chain[-2][1] if len(chain) >= 2 else None
        is_key = isinstance(parent, MappingNode) and any(p.key is node for p in parent.pairs)
        if node.style in ("|", ">"):
            return None  # inside a block scalar: only placeholders complete there
        if node.style in ('"', "'"):
            inner = Span(
                min(node.span.start + 1, node.span.end), max(node.span.end - 1, node.span.start + 1)
            )
            replace = inner if inner.start <= offset <= inner.end else node.span
            prefix = analysis.text[replace.start : offset]
            quote = node.style
        else:
            replace = node.span
            prefix = analysis.text[node.span.start : offset]
            quote = ""
        path = tuple(s for s in steps if s is not None)
        if is_key:
            return Place(
                KEY,
                path[:-1],
                replace,
                prefix,
                analysis.lines.position(node.span.start).character,
                quote,
            )
        if (
            isinstance(parent, MappingNode | SequenceNode)
            and not parent.flow
            and not is_key
            and node.is_plain
            and "\n" in analysis.text[node.span.start : offset]
        ):
            return None
        return Place(
            VALUE, path, replace, prefix, analysis.lines.position(node.span.start).character, quote
        )
    if isinstance(node, ScalarNode) and node.span.length == 0 and node.value is None:
        # The empty value of `key:` in a flow mapping (`{state: }`): a value of key.
        parent = chain[-2][1] if len(chain) >= 2 else None
        if isinstance(parent, MappingNode) and parent.flow and node.span.start == offset:
            path = tuple(s for s in steps if s is not None)
            return Place(VALUE, path, Span(offset, offset), "", column)
    if (
        isinstance(node, SequenceNode)
        and node.flow
        and node.span.contains(offset)
        and offset > node.span.start
    ):
        index = sum(1 for item in node.items if item.span.end <= offset)
        path = (*(s for s in steps if s is not None), index)
        return Place(VALUE, path, Span(offset, offset), "", column)
    if (
        isinstance(node, MappingNode)
        and node.flow
        and node.span.contains(offset)
        and offset > node.span.start
    ):
        path = tuple(s for s in steps if s is not None)
        # Between entries of a flow mapping / JSON object: a new key.
        return Place(KEY, path, Span(offset, offset), "", column)
    return None


_KEY_LINE = re.compile(
    r"^(?P<indent>[ ]*)(?P<dashes>(?:-[ ]+)*)(?P<key>[^\s:#][^:#]*?)?[ ]*:"
    r"(?:[ ]+(?P<value>.*))?$"
)
_ITEM_LINE = re.compile(r"^(?P<indent>[ ]*)(?P<dashes>(?:-[ ]+)+)(?P<value>[^:#]*)$")


def _place_from_text(analysis: Analysis, offset: int) -> Place | None:
    text = analysis.text
    lines = analysis.lines
    line = lines.position(offset).line
    line_start = lines.line_start(line)
    before = text[line_start:offset]
    replace, prefix = _word_span(text, offset, line_start)
    stripped = before.lstrip(" ")
    indent = len(before) - len(stripped)
    dash_cols, col, stripped = _dashes(stripped, indent)
    if stripped.startswith(("{", "[", '"', "'", "#")) and ":" not in stripped:
        return None
    if ":" in stripped:
        key, _, value = stripped.partition(":")
        if "{" in key or "[" in key or (value and not value.startswith(" ")):
            return None
        key = key.strip().strip("\"'")
        if "{" in value or "[" in value or "#" in value:
            return None
        parent = _parent_path(analysis, line, col, dash_cols)
        if parent is None:
            return None
        return Place(VALUE, (*parent, key), replace, prefix, col)
    parent = _parent_path(analysis, line, col, dash_cols)
    if parent is None:
        return None
    if dash_cols:
        # ``- word``: a list item; it may also start a mapping item, which the
        # VALUE place covers for lists of strings (tools, blocklist, ...).
        return Place(VALUE, parent, replace, prefix, col)
    return Place(KEY, parent, replace, prefix, col)


def _dashes(stripped: str, indent: int) -> tuple[list[int], int, str]:
    """Leading ``- `` list markers of a line's content that starts at column ``indent``.

    Returns the column of each dash, the column where the rest starts, and the rest.
    """
    cols: list[int] = []
    col = indent
    while stripped.startswith("- ") or stripped == "-":
        cols.append(col)
        after = stripped[1:]
        col += 1 + len(after) - len(after.lstrip(" "))
        stripped = after.lstrip(" ")
    return cols, col, stripped


_OPENER = re.compile(r"(?P<key>\"[^\"]*\"|'[^']*'|[^\s:#{}\[\],-][^:#{}\[\]]*?)[ ]*:[ ]*(?:#.*)?$")


def _parent_path(
    analysis: Analysis, line: int, col: int, dash_cols: list[int]
) -> tuple[PathItem, ...] | None:
    """The data path of the block collection that a token at ``col`` belongs to."""
    lines = analysis.lines
    path: list[PathItem] = []
    if dash_cols:
        path.append(0)
        col = dash_cols[0]
    target = col
    #: A list item may sit at the column of the key that opens it (``tools:`` then
    #: ``- x`` below, both at the same indentation): the first key line above at
    #: that column with nothing after the colon is then the list's owner.
    indentless = bool(dash_cols)
    for ln in range(line - 1, -1, -1):
        content = lines.line_text(ln)
        stripped = content.lstrip(" ")
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(content) - len(stripped)
        if indentless and indent <= target and not stripped.startswith("-"):
            indentless = False
            opener = _OPENER.match(stripped) if indent == target else None
            if opener is not None:
                path.append(opener.group("key").strip("\"'"))
                if target == 0:
                    break
                continue
        if indent >= target and not stripped.startswith("-"):
            continue
        # Columns of the dashes and of the first key on this line.
        cols, key_col, rest = _dashes(stripped, indent)
        if cols and key_col == target and cols[-1] < target:
            # ``- key: ...`` sibling of our key: we are inside that list item.
            path.append(0)
            target = cols[0]
            continue
        if cols and cols[0] >= target:
            continue
        if key_col >= target:
            continue
        match = re.match(
            r"(?P<key>\"[^\"]*\"|'[^']*'|[^\s:#{}\[\],][^:#{}\[\]]*?)[ ]*:(?:[ ]|$)", rest
        )
        if match is None:
            return None
        path.append(match.group("key").strip("\"'"))
        if cols:
            path.append(0)
            target = cols[0]
        else:
            target = key_col
        if target == 0:
            break
    path.reverse()
    return tuple(path)


# ------------------------------------------------------------------------ keys


def _present_keys(analysis: Analysis, path: Sequence[PathItem]) -> set[str]:
    node, _ = resolve(analysis.root, list(path))
    if isinstance(node, MappingNode):
        return {p.key_text for p in node.pairs if p.key_text}
    return set()


def _matches(path: Sequence[PathItem], pattern: Sequence[str]) -> bool:
    if len(path) != len(pattern):
        return False
    for step, pat in zip(path, pattern, strict=True):
        if pat == "*":
            continue
        if pat == "#":
            if not isinstance(step, int):
                return False
            continue
        if step != pat:
            return False
    return True


def _keys(analysis: Analysis, place: Place) -> list[Completion]:
    pack = analysis.pack
    path = place.path
    present = _present_keys(analysis, path)
    typed = place.prefix
    present.discard(typed)
    out: list[Completion] = []
    if _matches(path, ("agents", "members")) and pack is not None:
        members = set(pack.agents.members) if pack.agents else set()
        for key in pack.prompts:
            if key in members and key != typed:
                continue
            out.append(
                Completion(
                    label=key,
                    kind="prompt",
                    detail="prompt",
                    documentation=_prompt_summary(pack, key),
                    insert_text=key + ("" if place.quoted else ":"),
                    replace=place.replace,
                    sort=f"0{key}",
                )
            )
        return out
    schema = schema_docs.schema_key(analysis.config, analysis.data)
    for name, doc in schema_docs.properties_at(path, schema).items():
        if name in present:
            continue
        detail = doc.type + (" (required)" if doc.required else "")
        out.append(
            Completion(
                label=name,
                kind="property",
                detail=detail.strip(),
                documentation=doc.description,
                insert_text=name + ("" if place.quoted else ": "),
                replace=place.replace,
                sort=("0" if doc.required else "1") + name,
            )
        )
    if not place.quoted:
        out.extend(_snippets(analysis, place))
    return out


def _snippets(analysis: Analysis, place: Place) -> list[Completion]:
    pack = analysis.pack
    pad = " " * place.indent
    flow = _in_flow(analysis, place)
    if flow:
        return []
    out: list[Completion] = []
    if _matches(place.path, ("prompts",)):
        body = [
            "${1:new_prompt}:",
            "  id: ${1:new_prompt}",
            "  name: ${2:New prompt}",
            "  version: 1.0.0",
            "  description: ${3:What this prompt is for}",
            "  system_template: |",
            "    ${4:You are a helpful assistant.}",
        ]
        out.append(
            Completion(
                "new prompt",
                "snippet",
                "snippet: a prompt with required fields",
                "A prompt with id, name, version and a system template.",
                _indent(body, pad),
                True,
                place.replace,
                "2new prompt",
            )
        )
    if _matches(place.path, ("tools",)):
        body = [
            "${1:new_tool}:",
            "  name: ${1:new_tool}",
            "  description: ${2:What the tool does}",
            "  parameters:",
            "    type: object",
            "    properties:",
            "      ${3:argument}:",
            "        type: string",
            "    required: [${3:argument}]",
        ]
        out.append(
            Completion(
                "new tool",
                "snippet",
                "snippet: a tool with parameters",
                "A tool with a name, a description and JSON Schema parameters.",
                _indent(body, pad),
                True,
                place.replace,
                "2new tool",
            )
        )
    if place.path == () and pack is not None and pack.agents is None:
        keys = list(pack.prompts) or ["assistant"]
        body = ["agents:", f"  entry: ${{1:{keys[0]}}}", "  members:"]
        for i, key in enumerate(keys, 2):
            body += [
                f"    {key}:",
                f"      description: ${{{i}:What {key} does}}",
                "      tags: [general]",
            ]
        out.append(
            Completion(
                "agents section",
                "snippet",
                "snippet: expose prompts as agents",
                "An `agents` section with an entry agent and one member per prompt.",
                _indent(body, pad),
                True,
                place.replace,
                "2agents section",
            )
        )
    return out


def _in_flow(analysis: Analysis, place: Place) -> bool:
    node, _ = resolve(analysis.root, list(place.path))
    return isinstance(node, MappingNode | SequenceNode) and node.flow


def _indent(lines: list[str], pad: str) -> str:
    return "\n".join([lines[0]] + [pad + line for line in lines[1:]])


# ---------------------------------------------------------------------- values


_TOOL_LISTS = (("prompts", "*", "tools", "#"), ("prompts", "*", "tool_policy", "blocklist", "#"))
_STATE_REFS = (
    ("workflow", "entry"),
    ("workflow", "states", "*", "on_event", "*"),
    ("workflow", "states", "*", "on_max_visits"),
    ("agents", "members", "*", "state"),
)


def _values(analysis: Analysis, place: Place) -> list[Completion]:
    pack = analysis.pack
    path = place.path
    if pack is not None:
        if any(_matches(path, p) for p in _TOOL_LISTS):
            return _tool_items(analysis, pack, place)
        if any(_matches(path, p) for p in _STATE_REFS):
            states = pack.workflow.states if pack.workflow else {}
            return [
                Completion(
                    key,
                    "state",
                    "workflow state",
                    state.description.text if state.description else "",
                    key,
                    replace=place.replace,
                    sort=key,
                )
                for key, state in states.items()
            ]
        found = _rfc_values(pack, place)
        if found is not None:
            return found
        if _matches(path, ("workflow", "states", "*", "prompt_task")):
            return [
                Completion(
                    key,
                    "prompt",
                    "prompt",
                    _prompt_summary(pack, key),
                    key,
                    replace=place.replace,
                    sort=key,
                )
                for key in pack.prompts
            ]
        if _matches(path, ("agents", "entry")):
            members = list(pack.agents.members) if pack.agents else []
            keys = members or list(pack.prompts)
            return [
                Completion(
                    key,
                    "member" if key in members else "prompt",
                    "agent member" if key in members else "prompt",
                    _prompt_summary(pack, key),
                    key,
                    replace=place.replace,
                    sort=key,
                )
                for key in keys
            ]
    out: list[Completion] = []
    for value in schema_docs.values_at(
        path, schema_docs.schema_key(analysis.config, analysis.data)
    ):
        out.append(
            Completion(
                label=value.text,
                kind="value",
                detail={
                    "enum": "allowed value",
                    "example": "documented example",
                    "boolean": "boolean",
                }.get(value.source, ""),
                documentation=value.description,
                insert_text=value.text,
                replace=place.replace,
                sort=("0" if value.source == "enum" else "1") + value.text,
            )
        )
    return out


def _names(
    place: Place, names: Sequence[str], kind: str, detail: str, docs: dict[str, str] | None = None
) -> list[Completion]:
    return [
        Completion(
            name, kind, detail, (docs or {}).get(name, ""), name, replace=place.replace, sort=name
        )
        for name in dict.fromkeys(names)
    ]


def _rfc_values(pack: Pack, place: Place) -> list[Completion] | None:
    """Names for the references of RFCs 0010–0017 (None when ``place`` is none of them)."""
    path = place.path
    last = path[-1] if path else None
    in_step = len(path) >= 4 and path[0] == "compositions" and path[2] == "steps"
    if _matches(path, ("workflow", "states", "*", "composition")):
        docs = {
            k: c.steps[0].kind.text if c.steps and c.steps[0].kind else ""
            for k, c in pack.compositions.items()
        }
        return _names(place, list(pack.compositions), "composition", "composition", docs)
    if last == "provider" and (_matches(path, ("prompts", "*", "provider")) or in_step):
        keys = ["default", *pack.provider_keys()]
        docs = {k: f"role `{r.role_name}`" for k, r in pack.provider_keys().items()}
        return _names(place, keys, "provider", "provider requirement", docs)
    if in_step:
        comp = pack.compositions.get(str(path[1]))
        steps = [s.id.text for s in comp.all_steps() if s.id is not None] if comp else []
        if last in ("then", "else") or (len(path) >= 2 and path[-2] == "depends_on"):
            return _names(place, steps, "step", "step of this composition")
        if last == "prompt_task":
            return _names(place, list(pack.prompts), "prompt", "prompt")
        if last == "tool" or (len(path) >= 2 and path[-2] == "tools"):
            return _names(place, list(pack.tools), "tool", "tool")
        if len(path) >= 2 and path[-2] == "eval":
            return _names(place, sorted(_eval_ids(pack)), "eval", "eval")
    if _matches(path, ("compositions", "*", "output")):
        comp = pack.compositions.get(str(path[1]))
        steps = [s.id.text for s in comp.all_steps() if s.id is not None] if comp else []
        return _names(place, steps, "step", "step of this composition")
    governance = len(path) >= 3 and (
        path[:2] == ("metadata", "governance") or (path[0] == "agents" and "governance" in path)
    )
    if governance and last == "validator":
        ids = [v.id.text for p in pack.prompts.values() for v in p.validators if v.id is not None]
        return _names(place, ids, "validator", "validator id")
    if governance and last == "eval":
        return _names(place, sorted(_eval_ids(pack)), "eval", "eval id")
    return None


def _eval_ids(pack: Pack) -> set[str]:
    ids = {e.id.text for e in pack.evals if e.id is not None}
    for prompt in pack.prompts.values():
        ids.update(e.id.text for e in prompt.evals if e.id is not None)
    return ids


_PATTERN_BEFORE = re.compile(r"[\w$./:-]*\*\Z")
_MCP_SERVER = re.compile(r"\Amcp__([A-Za-z0-9_-]+?)__")


def wildcard_summary(ref: refs.Wildcard) -> str:
    """What a ``*`` pattern in a ``tools`` list matches (hover and completion)."""
    parts = [f"**tool pattern `{ref.pattern}`** — every tool whose name starts with `{ref.prefix}`"]
    if ref.matches:
        parts.append("Pack tools: " + ", ".join(f"`{m}`" for m in ref.matches))
    if ref.namespace is not None:
        parts.append(
            f"Also tools the runtime provides in `{ref.namespace}` (for MCP, what the "
            "server offers when it connects): not known from the pack."
        )
    if ref.empty:
        parts.append("Matches nothing: no pack tool has this prefix.")
    return "\n\n".join(parts)


def _tool_items(analysis: Analysis, pack: Pack, place: Place) -> list[Completion]:
    listed: set[str] = set()
    node, _ = resolve(analysis.root, list(place.path[:-1]))
    if isinstance(node, SequenceNode):
        for item in node.values():
            if (
                isinstance(item, ScalarNode)
                and isinstance(item.value, str)
                and not item.span.contains(place.replace.start)
            ):
                listed.add(item.value)
    # A prompt never lists itself (RFC 0007 rule 5: an agent calling itself).
    own = place.path[1] if len(place.path) > 1 and place.path[0] == "prompts" else None
    owner = own if isinstance(own, str) else None
    settings = refs.ToolSettings.of(analysis.config)
    members = pack.agents.members if pack.agents else {}
    # A `*` pattern (the item being edited, or typed just before the cursor): offer
    # it, saying what it matches.
    current = analysis.text[place.replace.start : place.replace.end].strip("\"'")
    typed = _PATTERN_BEFORE.search(analysis.text, 0, place.replace.start)
    pattern: tuple[str, Span] | None = None
    if current.endswith(refs.WILDCARD):
        pattern = (current, place.replace)
    elif typed is not None and typed.group():
        pattern = (typed.group(), Span(typed.start(), place.replace.end))
    if pattern is not None:
        ref = refs.wildcard(pattern[0], pack, settings)
        return [
            Completion(
                ref.pattern,
                "tool",
                "tool pattern",
                wildcard_summary(ref),
                ref.pattern,
                replace=pattern[1],
            )
        ]
    callable_ = refs.members_except(pack, owner)
    if settings.a2a and place.prefix.startswith(A2A_PREFIX):
        return [
            Completion(
                A2A_PREFIX + key,
                "member",
                "agent member called over A2A",
                _prompt_summary(pack, key),
                A2A_PREFIX + key,
                replace=place.replace,
                sort=key,
            )
            for key in callable_
            if A2A_PREFIX + key not in listed and key not in listed
        ]
    out: list[Completion] = []
    server = _MCP_SERVER.match(place.prefix)
    if server is not None and refs.MCP_PREFIX in settings.namespaces:
        every = server.group() + refs.WILDCARD
        ref = refs.wildcard(every, pack, settings)
        out.append(
            Completion(
                every,
                "tool",
                f"every tool of MCP server `{server.group(1)}`",
                wildcard_summary(ref),
                every,
                replace=place.replace,
                sort=f"0{every}",
            )
        )
    for key, tool in pack.tools.items():
        if key in listed:
            continue
        out.append(
            Completion(
                key,
                "tool",
                "tool: " + (tool.description.text if tool.description else "(no description)"),
                _tool_summary(pack, key),
                key,
                replace=place.replace,
                sort=f"0{key}",
            )
        )
    for key in callable_:
        if key in listed or key in pack.tools:
            continue
        member = members[key]
        description = member.description.text if member.description else ""
        if not description and key in pack.prompts and pack.prompts[key].description:
            description = pack.prompts[key].description.text  # type: ignore[union-attr]
        out.append(
            Completion(
                key,
                "member",
                "agent member: " + (description or "(no description)"),
                _prompt_summary(pack, key),
                key,
                replace=place.replace,
                sort=f"1{key}",
            )
        )
    return out


# ---------------------------------------------------------------- placeholders


_OPEN = re.compile(r"\{\{\s*([\w.:-]*)\Z")


def _placeholder_context(analysis: Analysis, offset: int, before: str) -> list[Completion] | None:
    match = _OPEN.search(before)
    if match is None:
        return None
    pack = analysis.pack
    if pack is None:
        return []
    typed = match.group(1)
    start = offset - len(typed)
    ahead = _WORD_AHEAD.match(analysis.text, offset)
    end = ahead.end() if ahead else offset
    replace = Span(start, end)
    owner = _template_owner(analysis, offset)
    out: list[Completion] = []
    if typed.startswith(("fragments.", "fragment:")):
        sep = "." if typed.startswith("fragments.") else ":"
        for key, fragment in pack.fragments.items():
            text = fragment.template.text if fragment.template else ""
            out.append(
                Completion(
                    f"fragments{sep}{key}" if sep == "." else f"fragment:{key}",
                    "fragment",
                    "fragment",
                    _code(text),
                    None,
                    replace=replace,
                    sort=key,
                )
            )
        return out
    if typed.startswith("artifacts."):
        for name in sorted(artifact_names(pack)):
            out.append(
                Completion(
                    f"artifacts.{name}",
                    "artifact",
                    "workflow artifact",
                    "",
                    replace=replace,
                    sort=name,
                )
            )
        return out
    variables: dict[str, str] = {}
    prompts = [pack.prompts[owner]] if owner in pack.prompts else list(pack.prompts.values())
    for prompt in prompts:
        for var in prompt.variables:
            if var.name is None or var.name.text in variables:
                continue
            bits = []
            if var.type is not None:
                bits.append(var.type.text)
            if var.required is not None and var.required.value is True:
                bits.append("required")
            doc = var.description.text if var.description else ""
            variables[var.name.text] = ", ".join(bits) + ("\n\n" + doc if doc else "")
    for name, doc in variables.items():
        detail, _, documentation = doc.partition("\n\n")
        out.append(
            Completion(
                name,
                "variable",
                f"variable ({detail})" if detail else "variable",
                documentation,
                replace=replace,
                sort=f"0{name}",
            )
        )
    for key, fragment in pack.fragments.items():
        text = fragment.template.text if fragment.template else ""
        out.append(
            Completion(
                f"fragments.{key}",
                "fragment",
                "fragment",
                _code(text),
                replace=replace,
                sort=f"1{key}",
            )
        )
    for name in sorted(artifact_names(pack)):
        out.append(
            Completion(
                f"artifacts.{name}",
                "artifact",
                "workflow artifact",
                "",
                replace=replace,
                sort=f"2{name}",
            )
        )
    return out


def _template_owner(analysis: Analysis, offset: int) -> str | None:
    """The prompt key whose template holds ``offset`` (by tree or by indentation)."""
    chain = node_path_at(analysis.root, offset) if analysis.root is not None else []
    steps = [s for s, _ in chain[1:]]
    if len(steps) >= 2 and steps[0] == "prompts" and isinstance(steps[1], str):
        return steps[1]
    lines = analysis.lines
    line = lines.position(offset).line
    before = analysis.text[lines.line_start(line) : offset]
    col = len(before) - len(before.lstrip(" "))
    path = _parent_path(analysis, line, col, [])
    if path and len(path) >= 2 and path[0] == "prompts" and isinstance(path[1], str):
        return path[1]
    return None


# --------------------------------------------------------------------- summaries


def _code(text: str) -> str:
    if not text:
        return ""
    return "```\n" + text.replace("```", "` ` `") + "\n```"


def _prompt_summary(pack: Pack, key: str) -> str:
    prompt = pack.prompts.get(key)
    if prompt is None:
        return ""
    parts = [f"**{prompt.name.text if prompt.name else key}**"]
    if prompt.version is not None:
        parts[0] += f" (version {prompt.version.text})"
    if prompt.description is not None:
        parts.append(prompt.description.text)
    return "\n\n".join(parts)


def _tool_summary(pack: Pack, key: str) -> str:
    tool = pack.tools.get(key)
    if tool is None:
        return ""
    parts = [f"**{tool.name.text if tool.name else key}**"]
    if tool.description is not None:
        parts.append(tool.description.text)
    params = tool.parameters
    if isinstance(params, dict) and isinstance(params.get("properties"), dict):
        listed = params.get("required")
        # Only the strings of a list count: the file may hold anything here
        # (a mapping, a list of mappings), which the schema rules report.
        required = {r for r in listed if isinstance(r, str)} if isinstance(listed, list) else set()
        rows = []
        for name, schema in params["properties"].items():
            kind = schema.get("type", "") if isinstance(schema, dict) else ""
            req = " (required)" if name in required else ""
            rows.append(f"- `{name}`: {kind}{req}")
        if rows:
            parts.append("Parameters:\n" + "\n".join(rows))
    return "\n\n".join(parts)
