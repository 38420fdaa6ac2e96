"""Packs that live inside other files: Kubernetes manifests.

A deployment of packs on Kubernetes (the Omnia operator) writes a ``PromptPack``
resource whose ``spec.source.configMapRef.name`` names a ``ConfigMap``; the pack
itself is the text of one of that ConfigMap's ``data`` entries
(``data: {pack.json: | ...}``), JSON or YAML, often in a multi-document file with
the resource beside it.

This module reads such a file (a *host*) into a ``Stream``: its Kubernetes
objects, the packs embedded in ConfigMap entries and the ConfigMap references of
``PromptPack`` resources. An embedded pack gets a *shadow* of the host text when
its characters stand in the host exactly as they are in the pack (a literal block
scalar ``|`` with any chomping and indentation indicator, ``|2-`` or ``|+4``; a
folded one ``>`` holding JSON whose folded line breaks all fall between tokens; or a
one-line scalar without escapes): the host's text with every other character
replaced by a space (line breaks kept). JSON ignores the blanks and YAML sees the
pack at a uniform indentation, so the shadow parses as the pack itself with offsets,
lines and columns that are the host's: every diagnostic, hover, completion and quick
fix of the embedded pack lands at its exact place in the host file, with nothing to
map. An entry written in another style (escaped, or folded YAML) is checked from its
value, and its diagnostics are shown on the entry's key.

A shadow is as long as its host, so it is made only when asked for
(``EmbeddedPack.shadow``): ``--check`` analyses a verbatim pack in its own text
(``EmbeddedPack.written``) and moves its diagnostics to the host's offsets
(``checks.analysis``, D82).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from pack_lsp.core.base.kinds import kind_from_name
from pack_lsp.core.base.source import decode, read_source
from pack_lsp.core.base.text import Span
from pack_lsp.core.syntax.yamltree import (
    MappingNode,
    Node,
    ScalarNode,
    deref,
    parse,
    shifted_copy,
    shifted_tree,
)

#: ConfigMap ``data`` keys whose value may be a pack.
DATA_SUFFIXES = (".json", ".yaml", ".yml")
#: API groups of the Omnia operator's resources.
OMNIA_GROUP = "omnia.altairalabs.ai/"

_DOC_MARKER = re.compile(r"^(?:---|\.\.\.)(?=[ \t\r\n]|$)", re.M)
_NOT_LINE_BREAK = re.compile(r"[^\r\n]")
#: A block scalar's header: its style, and an indentation indicator before or after
#: the chomping indicator.
_BLOCK_HEADER = re.compile(r"[|>](?:([1-9])[+-]?|[+-]([1-9])?)?")


def blank(text: str) -> str:
    """``text`` with every character but line breaks replaced by a space."""
    return _NOT_LINE_BREAK.sub(" ", text)


@dataclass(frozen=True, slots=True)
class KubeObject:
    """One document of a manifest stream with ``apiVersion`` and ``kind``."""

    api_version: str
    kind: str
    name: str | None
    root: MappingNode
    kind_span: Span


@dataclass(frozen=True, slots=True)
class EmbeddedPack:
    """A pack held by a ConfigMap ``data`` entry."""

    config_map: str | None
    key: str
    key_span: Span
    json: bool
    value: str
    """The pack's text (the entry's value)."""
    content: Span
    """Where the entry's value is written in the host."""
    host: Blanked | None
    """The host, when the value is written there verbatim (see the module doc):
    ``content`` is then the pack's own text, character for character; else None."""

    @property
    def verbatim(self) -> bool:
        return self.host is not None

    @property
    def written(self) -> str | None:
        """The pack's text as the host writes it (``content``'s characters, block
        indentation included), or None when it is not written verbatim."""
        host = self.host
        return None if host is None else host.text[self.content.start : self.content.end]

    @property
    def shadow(self) -> str | None:
        """The host text with everything but the pack blanked, or None when the value
        is not written verbatim. Made on each call: it is as long as the host."""
        host = self.host
        return None if host is None else host.shadow(self.content)


@dataclass(frozen=True, slots=True)
class ConfigMapRef:
    """``spec.source.configMapRef.name`` of a ``PromptPack`` resource."""

    resource: str | None
    name: str
    span: Span


@dataclass(frozen=True, slots=True)
class Stream:
    """What a Kubernetes manifest file holds for pack-lsp."""

    objects: tuple[KubeObject, ...]
    embedded: tuple[EmbeddedPack, ...]
    refs: tuple[ConfigMapRef, ...]

    @property
    def config_maps(self) -> frozenset[str]:
        return frozenset(o.name for o in self.objects if o.kind == "ConfigMap" and o.name)

    @property
    def pack_resources(self) -> tuple[KubeObject, ...]:
        return tuple(o for o in self.objects if is_pack_resource(o))


def is_pack_resource(obj: KubeObject) -> bool:
    return obj.kind == "PromptPack" and obj.api_version.startswith(OMNIA_GROUP)


def document_starts(text: str) -> list[int]:
    """Offsets where the documents of a YAML stream start (the first is 0)."""
    starts = [0]
    for match in _DOC_MARKER.finditer(text):
        if match.group() == "---":
            # (`starts` first: the slice would copy the text before every marker)
            if starts == [0] and text[: match.start()].strip() == "":
                continue  # a marker opening the first document
            starts.append(match.start())
        else:  # `...` ends a document; the next one starts after its line
            end = text.find("\n", match.end())
            starts.append(len(text) if end < 0 else end + 1)
    return sorted(set(starts))


def documents(text: str) -> list[Node]:
    """The root node of every document of ``text``, with offsets of ``text``."""
    roots: list[Node] = []
    starts = document_starts(text)
    blanked: str | None = None
    for start, end in zip(starts, [*starts[1:], len(text)], strict=True):
        # Each document is parsed alone, so that a stream of many documents costs its
        # length once, not once per document, and its nodes moved to the offsets of
        # ``text`` (with its aliases and merge keys: ``shifted_tree``). Only a tree
        # that cannot be copied is parsed in a shadow of the whole text.
        root = parse(text[start:end]).root
        if root is None:
            continue
        try:
            roots.append(_moved(root, start))
        except ValueError:
            blanked = blanked if blanked is not None else blank(text)
            found = parse(blanked[:start] + text[start:end] + blanked[end:]).root
            if found is not None:
                roots.append(found)
    return roots


def _moved(root: Node, start: int) -> Node:
    """The document ``root`` parsed alone, moved to ``start``."""
    if not start:
        return root
    try:
        return shifted_copy(root, start)
    except ValueError:  # aliases or merge keys
        return shifted_tree(root, start)


def _string(node: Node | None) -> str | None:
    node = deref(node)
    if isinstance(node, ScalarNode) and isinstance(node.value, str):
        return node.value
    return None


def kube_object(root: Node) -> KubeObject | None:
    """The Kubernetes object a document is, if it has ``apiVersion`` and ``kind``."""
    if not isinstance(root, MappingNode):
        return None
    api_version = _string(root.get("apiVersion"))
    kind_node = root.get("kind")
    kind = _string(kind_node)
    if api_version is None or kind is None or kind_node is None:
        return None
    metadata = root.get("metadata")
    name = _string(metadata.get("name")) if isinstance(metadata, MappingNode) else None
    return KubeObject(api_version, kind, name, root, kind_node.span)


def read_stream(text: str) -> Stream | None:
    """The Kubernetes objects of ``text``; None when no document is one."""
    objects = [obj for root in documents(text) if (obj := kube_object(root)) is not None]
    if not objects:
        return None
    embedded: list[EmbeddedPack] = []
    refs: list[ConfigMapRef] = []
    blanked = Blanked(text)
    for obj in objects:
        if obj.kind == "ConfigMap" and obj.api_version == "v1":
            embedded.extend(_embedded(text, obj, blanked))
        elif is_pack_resource(obj):
            ref = _config_map_ref(obj)
            if ref is not None:
                refs.append(ref)
    return Stream(tuple(objects), tuple(embedded), tuple(refs))


def _config_map_ref(obj: KubeObject) -> ConfigMapRef | None:
    node: Node | None = obj.root
    for key in ("spec", "source", "configMapRef", "name"):
        if not isinstance(node, MappingNode):
            return None
        node = node.get(key)
    name = _string(node)
    if name is None or node is None:
        return None
    return ConfigMapRef(obj.name, name, node.span)


class Blanked:
    """A host's text, and its blanked text made once, when a first shadow is asked
    for, for all its embedded packs' shadows (blanking it again for each pack made a
    stream of N packs cost N times its length in a regular-expression pass)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._blank: str | None = None

    def shadow(self, region: Span) -> str:
        """The text with everything outside ``region`` blanked."""
        if self._blank is None:
            self._blank = blank(self.text)
        done = self._blank
        return done[: region.start] + self.text[region.start : region.end] + done[region.end :]


def _embedded(text: str, obj: KubeObject, blanked: Blanked) -> list[EmbeddedPack]:
    data = obj.root.get("data")
    if not isinstance(data, MappingNode):
        return []
    out: list[EmbeddedPack] = []
    for key, pair in data.items():
        value = deref(pair.value)
        if not key.lower().endswith(DATA_SUFFIXES) or not isinstance(value, ScalarNode):
            continue
        content = value.text
        is_json = key.lower().endswith(".json")
        if not is_pack_text(content, is_json, named=_named_like_pack(key)):
            continue
        region = _verbatim_region(text, value, _column(text, pair.key.span.start), is_json)
        out.append(
            EmbeddedPack(
                obj.name,
                key,
                pair.key.span,
                is_json,
                content,
                region if region is not None else value.span,
                blanked if region is not None else None,
            )
        )
    return out


def _named_like_pack(key: str) -> bool:
    return kind_from_name(key) is not None or key.lower() in ("pack.json", "pack.yaml", "pack.yml")


def _column(text: str, offset: int) -> int:
    return offset - (text.rfind("\n", 0, offset) + 1)


def _verbatim_region(text: str, node: ScalarNode, parent_column: int, is_json: bool) -> Span | None:
    """Where ``node``'s value stands in ``text`` character for character (only
    indentation around it), or None (folded, escaped, or not provably verbatim).

    ``parent_column`` is the column of the entry's key: a block scalar with an
    explicit indentation indicator (``|2``) has its content at that column plus the
    indicator, whatever the first line's own indentation. A folded block scalar
    (``>``) of a JSON pack counts as verbatim when every line break it folds lies
    between JSON tokens: JSON reads a line break as it reads the space folding makes.
    """
    start, end = node.span.start, node.span.end
    if node.style in ("|", ">"):
        return _block_region(text, node, parent_column, is_json)
    if node.style in ("'", '"'):
        inner = Span(start + 1, end - 1)
        written = text[inner.start : inner.end]
        return inner if "\n" not in written and written == node.text else None
    if node.style == "":
        written = text[start:end]
        return node.span if "\n" not in written and written == node.text else None
    return None


def _block_region(text: str, node: ScalarNode, parent_column: int, is_json: bool) -> Span | None:
    start, end = node.span.start, node.span.end
    header_end = text.find("\n", start)
    if header_end < 0 or header_end >= end:
        return None
    # The header may follow a tag or an anchor (`!!str |2`, `&pack |2-`).
    header = _BLOCK_HEADER.search(text, start, header_end)
    if header is None:
        return None
    region = Span(header_end + 1, end)
    lines = text[region.start : region.end].replace("\r\n", "\n").split("\n")
    explicit = header.group(1) or header.group(2)
    if explicit is not None:
        indent = max(parent_column, 0) + int(explicit)
    else:
        indent = next((len(ln) - len(ln.lstrip(" ")) for ln in lines if ln.strip(" ")), 0)
    dedented = []
    for line in lines:
        if line[:indent].strip(" ") == "":
            dedented.append(line[indent:])
        else:
            return None
    rebuilt = "\n".join(dedented)
    if rebuilt.rstrip("\n ") == node.text.rstrip("\n "):
        return region
    if node.style == ">" and is_json and _folds_between_tokens(rebuilt, node.text):
        return region
    return None


def _folds_between_tokens(written: str, value: str) -> bool:
    """Whether ``written`` (a folded block's lines) and its folded ``value`` are the
    same JSON text up to whitespace, no line break of ``written`` being inside a string."""
    in_string = escaped = False
    for char in written:
        if in_string:
            if char == "\n":
                return False
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
    return written.split() == value.split()


def is_pack_text(content: str, is_json: bool, *, named: bool = False) -> bool:
    """Whether a ConfigMap entry's text is a pack: its top level has a ``prompts``
    mapping and an ``id`` or ``template_engine`` (an entry named like a pack whose
    text is not even a mapping counts, so that its errors are shown)."""
    top: object
    if is_json:
        try:
            top = json.loads(content)
        except ValueError:
            return named or ('"prompts"' in content and '"template_engine"' in content)
        return pack_shaped_data(top) or (named and not isinstance(top, dict))
    if "prompts" not in content and not named:
        return False
    parsed = parse(content)
    root = parsed.root
    if isinstance(root, MappingNode) and pack_shaped_node(root):
        return True
    return named and (parsed.syntax_error or not isinstance(root, MappingNode))


def pack_shaped_data(top: object) -> bool:
    """A pack's top level, as plain data: a ``prompts`` mapping and an ``id`` or a
    ``template_engine`` (the one definition, with ``pack_shaped_node``)."""
    return (
        isinstance(top, dict)
        and isinstance(top.get("prompts"), dict)
        and ("id" in top or "template_engine" in top)
    )


def pack_shaped_node(root: MappingNode) -> bool:
    """``pack_shaped_data`` for a parsed top level."""
    return isinstance(root.get("prompts"), MappingNode) and (
        root.pair("id") is not None or root.pair("template_engine") is not None
    )


# ----------------------------------------------------------------- the file set


def sibling_config_maps(path: Path, limit: int = 2 * 1024 * 1024) -> dict[str, Path]:
    """ConfigMaps defined beside ``path`` (YAML files of its folder, and the
    ``configMapGenerator`` names of a ``kustomization.yaml`` there), by name."""
    found: dict[str, Path] = {}
    try:
        entries = sorted(path.parent.iterdir())
    except OSError:
        return found
    for entry in entries:
        if entry == path or entry.suffix.lower() not in (".yaml", ".yml"):
            continue
        try:
            text = decode(read_source(entry, limit))[0]
        except OSError:  # not a regular file, over the limit, unreadable
            continue
        if entry.name in ("kustomization.yaml", "kustomization.yml"):
            for name in _generated_config_maps(text):
                found.setdefault(name, entry)
            continue
        if "ConfigMap" not in text:
            continue
        for root in documents(text):
            obj = kube_object(root)
            if obj is not None and obj.kind == "ConfigMap" and obj.name:
                found.setdefault(obj.name, entry)
    return found


def _generated_config_maps(text: str) -> list[str]:
    root = parse(text).root
    if not isinstance(root, MappingNode):
        return []
    generators = root.get("configMapGenerator")
    names: list[str] = []
    if generators is not None and hasattr(generators, "values"):
        for item in generators.values():
            if isinstance(item, MappingNode):
                name = _string(item.get("name"))
                if name:
                    names.append(name)
    return names
