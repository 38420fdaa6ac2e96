"""Which kind of document a file is, decided from its name and its parsed top level.

The rules (the README's "How files are recognised" says the same):

1. A file matching a configured ``manifests`` glob, or named ``manifest.yaml``/``.yml``
   with a top-level ``id`` and a key only a yodoca manifest has (``kinds.MANIFEST_KEYS``),
   is an agent-extension manifest.
2. A Helm chart template (a file under ``templates/`` of a folder holding
   ``Chart.yaml``) is YAML only once rendered: it is not checked (directory scans
   skip it; named explicitly or opened, it gets one information line saying so).
   So is a file of a PromptKit template package (a folder whose ``template.yaml``
   declares ``kind: Template``) that holds Go-template actions (``{{ .name }}``,
   ``{{ "{{x}}" }}``): ``promptarena init`` renders it before it is YAML.
3. A JSON Schema (``$schema`` naming json-schema.org, or ``$defs``/``definitions``/
   ``properties`` at the top without the shape of a pack) is never a pack.
4. A document whose ``apiVersion`` is in a PromptKit API group
   (``promptkit.altairalabs.ai/v1alpha1``, or the older ``promptkit.dev/v1``) is a
   document of an arena project (``ARENA``), whatever its ``kind``: the analysis
   checks it against the schema of its kind, and says so when the kind is missing
   or not one PromptKit loads (``core.arena_documents``).
5. A YAML stream of Kubernetes objects (``apiVersion`` and ``kind``) is a
   Kubernetes manifest: it is checked when a ConfigMap ``data`` entry holds a pack
   or it declares an Omnia ``PromptPack`` resource (``core.hosts``).
6. A PromptPack: a top level with a ``prompts`` mapping and ``id`` or
   ``template_engine``, or a ``$schema`` naming promptpack.org.
7. A file *named* like a pack (``kinds.PACK_PATTERNS``) or named explicitly on the
   command line is checked as a pack unless rules 2-5 say it is something else, or
   it is a Docker Compose file (``services`` at the top) or a GitHub Actions
   workflow (``on`` and ``jobs``) without ``prompts``; then it gets one information
   diagnostic saying what it is (``NOT_A_PACK``), never a cascade of schema errors.

Everything else is not ours. Files too large to parse for recognition are judged by
their first ``HEAD_LIMIT`` characters (top-level keys only).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePath

from pack_lsp.core.base.kinds import (
    ARENA,
    KUBERNETES,
    MANIFEST,
    NOT_A_PACK,
    PROMPTPACK,
    is_manifest,
    kind_from_name,
)
from pack_lsp.core.base.text import Span
from pack_lsp.core.model import hosts
from pack_lsp.core.syntax.yamltree import MappingNode, Node, ParseResult, ScalarNode, deref, parse

#: Recognition parses files up to this many characters; a larger file is judged by
#: the top-level keys of its first ``HEAD_LIMIT`` characters.
PARSE_LIMIT = 4 * 1024 * 1024
HEAD_LIMIT = 256 * 1024

#: API groups of PromptKit's arena-project kinds (older files use the second).
PROMPTKIT_GROUPS = ("promptkit.altairalabs.ai/", "promptkit.dev/")

_KUBE_HINT = re.compile(r"^(?:apiVersion|kind)[ \t]*:", re.M)
#: Substrings without which the hints above cannot match: searched first, since a
#: substring search is much cheaper than a multi-line pattern over a large text.
_KUBE_WORDS = ("apiVersion",)  # a Kubernetes object has both; one search suffices
_OTHER_WORDS = ("json-schema.org", "$defs", "\ndefinitions", "\nproperties", "promptkit.")
#: What a file named like a pack must show in its first characters to be parsed for
#: recognition (a JSON Schema or PromptKit file); a pack shows none of it.
_OTHER_HINT = re.compile(
    r'json-schema\.org|"\$defs"|^(?:\$defs|definitions|properties)[ \t]*:|'
    r"promptkit\.altairalabs\.ai|promptkit\.dev/",
    re.M,
)
#: A text whose first character after blanks is `{` (matched, not copied by lstrip).
_JSON_START = re.compile(r"[\ufeff \t\r\n]*\{")
#: A top-level key of a YAML pack that makes an unnamed file worth a parse.
_PACK_HINT = re.compile(r'^(?:prompts|["\']?\$schema["\']?)[ \t]*:', re.M)


def _kube(text: str) -> bool:
    """A top-level ``apiVersion:`` or ``kind:`` line."""
    return any(w in text for w in _KUBE_WORDS) and _KUBE_HINT.search(text) is not None


def _other(head: str) -> bool:
    """Signs of a JSON Schema or a PromptKit file in the first characters."""
    maybe = any(w in head for w in _OTHER_WORDS) or head.startswith(("definitions", "properties"))
    return maybe and _OTHER_HINT.search(head) is not None


_YAML_TOP_KEY = re.compile(
    r'^(?:"([^"\n]+)"|\'([^\'\n]+)\'|([A-Za-z_$][\w$-]*))[ \t]*:(?:[ \t]+([^\n#]*))?', re.M
)


@dataclass(frozen=True, slots=True)
class Recognition:
    """The kind of a document, and for ``NOT_A_PACK`` what it is instead."""

    kind: str | None
    what: str = ""
    """For NOT_A_PACK: what the file is, a sentence (used in the diagnostic)."""
    span: Span | None = None
    """For NOT_A_PACK: where the file says what it is (its ``kind`` or ``$schema``);
    for ARENA: the value of its ``kind`` (the whole text when it has none)."""
    stream: hosts.Stream | None = None
    """For KUBERNETES: the manifest as read for recognition, so the analysis need not
    read it again."""
    promptkit_kind: str = ""
    """For ARENA: the PromptKit kind the document declares (``Arena``,
    ``PromptConfig``, ...; empty when it declares none)."""
    parsed: ParseResult | None = field(default=None, compare=False, repr=False)
    """For PROMPTPACK and ARENA recognised by parsing the text as YAML: that parse, so
    the analysis need not parse it again (a file not named like a pack)."""


_NONE = Recognition(None)


def is_helm_template(path: str) -> bool:
    """A file below ``templates/`` of a Helm chart (a folder with ``Chart.yaml``)."""
    pure = PurePath(path)
    parts = pure.parts
    for i in range(len(parts) - 2, -1, -1):
        if parts[i] == "templates":
            chart = Path(*parts[:i]) if i else Path(".")
            try:
                return (chart / "Chart.yaml").is_file() or (chart / "Chart.yml").is_file()
            except OSError:
                return False
    return False


#: A Go-template action as the files of a PromptKit template package write them:
#: ``{{ .project_name }}``, ``{{ "{{x}}" }}`` (an escaped placeholder), ``{{- if .x }}``,
#: ``{{ end }}``. PromptKit's own ``{{variable}}`` placeholders start with a name.
_GO_ACTION = re.compile(
    r"\{\{-?[ \t]*(?:\.|\$|\"|`|/\*|(?:if|else|end|range|with|template|define|block)\b)"
)
#: The file that makes a folder a template package, and how far up it is looked for.
TEMPLATE_FILE = "template.yaml"
TEMPLATE_LEVELS = 4
_TEMPLATE_KIND = re.compile(r"^kind:[ \t]*[\"']?Template[\"']?[ \t]*(?:#.*)?$", re.M)
_PROMPTKIT_API = re.compile(r"^apiVersion:[ \t]*[\"']?promptkit\.", re.M)


def template_package(path: str, text: str) -> Path | None:
    """The ``template.yaml`` of the PromptKit template package ``path`` is a file of,
    when ``text`` holds Go-template actions (None otherwise).

    ``promptarena init`` renders a package's files with Go's text/template before
    they are YAML: until then ``{{ .project_name }}`` is not a value (YAML reads a
    flow mapping) and ``{{ "{{x}}" }}`` is not the ``{{x}}`` it renders. A package is
    a folder whose ``template.yaml`` declares a PromptKit ``kind: Template``; it is
    looked for in the file's folder and up to ``TEMPLATE_LEVELS`` folders above.
    """
    # The folders first: a few `stat` calls cost less than a scan of a large pack.
    package = _package_of(Path(path))
    if package is None or "{{" not in text or _GO_ACTION.search(text) is None:
        return None
    return package


def _package_of(file: Path) -> Path | None:
    start = os.path.abspath(file)
    folder = os.path.dirname(start)
    for _ in range(TEMPLATE_LEVELS + 1):
        candidate = os.path.join(folder, TEMPLATE_FILE)
        if candidate != start and os.path.isfile(candidate) and _declares_template(candidate):
            return Path(candidate)
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return None


def _declares_template(path: str) -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    return bool(_TEMPLATE_KIND.search(head) and _PROMPTKIT_API.search(head))


def still_a_pack(text: str) -> bool:
    """Whether a new version of an unnamed file recognised as a pack can keep that
    kind without a parse: its top level still shows ``prompts`` and no Kubernetes
    object or other kind. (The analysis then checks it as a pack; a version that
    stops being one is recognised again from scratch.)"""
    if _JSON_START.match(text):
        return '"prompts"' in text and not _other(text[:HEAD_LIMIT])
    return _PACK_HINT.search(text) is not None and not _kube(text) and not _other(text[:HEAD_LIMIT])


def detect(
    path: str | None, text: str, manifest_globs: tuple[str, ...] = (), *, explicit: bool = False
) -> str | None:
    """The kind of ``text`` (None: not a document pack-lsp checks)."""
    return recognize(path, text, manifest_globs, explicit=explicit).kind


def recognize(
    path: str | None,
    text: str,
    manifest_globs: tuple[str, ...] = (),
    *,
    explicit: bool = False,
    head_only: bool = False,
) -> Recognition:
    """How ``text`` (the file at ``path``) is checked; see the module doc.

    ``explicit``: the file was named by the user (a path on the command line), so
    anything that is not recognisably something else is checked as a pack.
    ``head_only``: ``text`` is the first characters of a file too large to parse.
    """
    named = path is not None and kind_from_name(path) is not None
    wanted = named or explicit
    if path is not None and not named and is_manifest(path, text, manifest_globs):
        return Recognition(MANIFEST)
    if path is not None and is_helm_template(path):
        if not wanted:
            return _NONE
        return Recognition(
            NOT_A_PACK,
            "this is a Helm chart template, which is YAML only once rendered; it is not "
            "checked (check the output of `helm template` instead)",
            Span(0, 0),
        )
    package = template_package(path, text) if path is not None else None
    if package is not None:
        if not wanted:
            return _NONE
        return Recognition(
            NOT_A_PACK,
            f"this is a file of the PromptKit template package `{package.parent.name}` "
            f"({package.name}), with Go-template placeholders: it is YAML only once "
            "`promptarena init` renders it, so it is not checked (check the project "
            "`promptarena init` writes instead)",
            Span(0, 0),
        )
    if head_only or len(text) > PARSE_LIMIT:
        return _by_head(text[:HEAD_LIMIT], wanted)
    is_json = (path is not None and PurePath(path).suffix.lower() == ".json") or bool(
        _JSON_START.match(text)
    )
    kube = not is_json and _kube(text)
    if named and not kube and not _other(text[:HEAD_LIMIT]):
        return Recognition(PROMPTPACK)  # the common case, without a parse
    if (
        not wanted
        and not kube
        and not (
            ("prompts" in text or "promptpack" in text or "promptkit." in text)
            if is_json
            else _PACK_HINT.search(text) or _other(text[:HEAD_LIMIT])
        )
    ):
        return _NONE
    if kube:
        found = _kubernetes(text, wanted)
        if found is not None:
            return found
    if is_json:
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            pass
        else:
            return _by_data(data, text, wanted)
    parsed = parse(text)
    found = _by_top(deref(parsed.root), wanted)
    if found.kind in (PROMPTPACK, ARENA):
        return replace(found, parsed=parsed)
    return found


@dataclass(frozen=True, slots=True)
class _Top:
    """What recognition reads of a top level, from a tree or from ``json.loads``."""

    schema_url: str
    schema_span: Span
    pack_shaped: bool
    schema_keys: bool
    """``$defs``, ``definitions`` or ``properties`` at the top (a JSON Schema's)."""
    promptkit_kind: str | None
    """The declared kind of a document of a PromptKit API group ('' without one);
    None for any other document."""
    kind_span: Span
    other: tuple[str, Span] | None = None
    """What another well-known kind of YAML file this top level is, and the key that
    shows it (``_OTHER_FILES``); None when it is none of them."""


#: Top levels of other well-known YAML files, by the keys that show them (all of
#: them mappings) and what to say; only a top level without ``prompts`` is one.
_OTHER_FILES = (
    (("services",), "this is a Docker Compose file (top-level `services`), not a pack"),
    (("jobs",), "this is a GitHub Actions workflow (top-level `on` and `jobs`), not a pack"),
)


def _other_file(has_mapping: Callable[[str], bool], has_key: Callable[[str], bool]) -> str:
    """What other well-known file a top level is ("" when none; see ``_OTHER_FILES``)."""
    if has_key("prompts"):
        return ""
    for keys, what in _OTHER_FILES:
        if all(has_mapping(k) for k in keys) and (
            keys != ("jobs",) or has_key("on") or has_key("true")
        ):
            return what
    return ""


_SCHEMA_KEYS = ("$defs", "definitions", "properties")


def _by_data(data: object, text: str, wanted: bool) -> Recognition:
    """``_by_top`` for JSON read by ``json.loads`` (no tree: a span is searched for)."""
    if not isinstance(data, dict):
        return Recognition(PROMPTPACK) if wanted else _NONE
    url = data.get("$schema")
    schema_url = url if isinstance(url, str) else ""
    at = text.find(json.dumps(schema_url)) if schema_url else -1
    api, kind = data.get("apiVersion"), data.get("kind")
    promptkit = isinstance(api, str) and api.startswith(PROMPTKIT_GROUPS)
    other = _other_file(lambda k: isinstance(data.get(k), dict), lambda k: k in data)
    top = _Top(
        schema_url,
        Span(at, at + len(json.dumps(schema_url))) if at >= 0 else Span(0, 0),
        hosts.pack_shaped_data(data),
        any(k in data for k in _SCHEMA_KEYS),
        _kind_text(kind) if promptkit else None,
        _json_span(text, "kind", kind) if promptkit else Span(0, 0),
        (other, Span(0, 0)) if other else None,
    )
    return _classify(top, wanted)


def _kind_text(kind: object) -> str:
    """The declared kind as text ('' when absent; a non-string kind as written)."""
    if kind is None:
        return ""
    return kind if isinstance(kind, str) else json.dumps(kind)


def _json_span(text: str, key: str, value: object) -> Span:
    """Where a top-level ``key``'s string value is in a JSON text, found by a search
    (``Span(0, 0)`` when not found or not a string)."""
    if not isinstance(value, str):
        return Span(0, 0)
    found = re.search(rf'"{re.escape(key)}"\s*:\s*({re.escape(json.dumps(value))})', text)
    return Span(found.start(1), found.end(1)) if found is not None else Span(0, 0)


_SCHEMA_WHAT = "this is a JSON Schema (a description of JSON documents), not a pack"


def _scalar(node: Node | None) -> ScalarNode | None:
    node = deref(node)
    return node if isinstance(node, ScalarNode) else None


def _by_top(root: Node | None, wanted: bool) -> Recognition:
    if not isinstance(root, MappingNode):
        return Recognition(PROMPTPACK) if wanted else _NONE
    schema = _scalar(root.get("$schema"))
    api = _scalar(root.get("apiVersion"))
    kind = _scalar(root.get("kind"))
    promptkit = (
        api is not None and isinstance(api.value, str) and api.value.startswith(PROMPTKIT_GROUPS)
    )
    other = _other_file(
        lambda k: isinstance(root.get(k), MappingNode), lambda k: root.pair(k) is not None
    )
    shown = root.pair("services") or root.pair("jobs")
    top = _Top(
        schema.value if schema is not None and isinstance(schema.value, str) else "",
        schema.span if schema is not None else Span(0, 0),
        hosts.pack_shaped_node(root),
        any(root.pair(k) is not None for k in _SCHEMA_KEYS),
        (_kind_text(kind.value) if kind is not None else "") if promptkit else None,
        kind.span if kind is not None else Span(0, 0),
        (other, shown.key.span if shown is not None else Span(0, 0)) if other else None,
    )
    return _classify(top, wanted)


def _classify(top: _Top, wanted: bool) -> Recognition:
    """The kind of a parsed top level (rules 3, 4, 6 and 7 of the module doc)."""
    declared = "promptpack.org" in top.schema_url
    if "json-schema.org" in top.schema_url or (
        not top.pack_shaped and not declared and top.schema_keys
    ):
        return Recognition(NOT_A_PACK, _SCHEMA_WHAT, top.schema_span) if wanted else _NONE
    if top.promptkit_kind is not None:
        return Recognition(ARENA, span=top.kind_span, promptkit_kind=top.promptkit_kind)
    if top.other is not None and not declared and not top.pack_shaped:
        return Recognition(NOT_A_PACK, *top.other) if wanted else _NONE
    if top.pack_shaped or declared or wanted:
        return Recognition(PROMPTPACK)
    return _NONE


def _kubernetes(text: str, wanted: bool) -> Recognition | None:
    """The recognition of a Kubernetes manifest stream; None when ``text`` is not one."""
    stream = hosts.read_stream(text)
    if stream is None:
        return None
    first = stream.objects[0]
    if first.api_version.startswith(PROMPTKIT_GROUPS):
        return None  # PromptKit's own kinds look like Kubernetes objects
    if stream.embedded or stream.pack_resources:
        return Recognition(KUBERNETES, stream=stream)
    if not wanted:
        return _NONE
    return Recognition(
        NOT_A_PACK,
        f"this is a Kubernetes `{first.kind}` manifest and no ConfigMap in it holds a pack",
        first.kind_span,
    )


# ------------------------------------------------------------------ large files


def _by_head(head: str, wanted: bool) -> Recognition:
    """Recognition from the top-level keys in the first characters of a large file."""
    keys = _json_head_keys(head) if _JSON_START.match(head) else None
    if keys is None:
        keys = {
            (m.group(1) or m.group(2) or m.group(3)): (m.group(4) or "").strip()
            for m in _YAML_TOP_KEY.finditer(head)
        }
    schema = keys.get("$schema", "")
    if keys.get("apiVersion", "").strip("\"' ").startswith(PROMPTKIT_GROUPS):
        kind = keys.get("kind", "").strip("\"' ")
        return Recognition(ARENA, span=Span(0, 0), promptkit_kind=kind)
    if "json-schema.org" in schema:
        return _schema_line() if wanted else _NONE
    if "prompts" in keys and ("id" in keys or "template_engine" in keys):
        return Recognition(PROMPTPACK)
    if "promptpack.org" in schema:
        return Recognition(PROMPTPACK)
    return Recognition(PROMPTPACK) if wanted else _NONE


def _schema_line() -> Recognition:
    return Recognition(NOT_A_PACK, _SCHEMA_WHAT, Span(0, 0))


def _json_head_keys(head: str) -> dict[str, str] | None:
    """The keys (and string values) at depth 1 of a JSON text's first characters."""
    keys: dict[str, str] = {}
    depth = 0
    i = 0
    n = len(head)
    pending: str | None = None
    expect_key = False
    while i < n:
        c = head[i]
        if c == '"':
            j = i + 1
            while j < n and head[j] != '"':
                j += 2 if head[j] == "\\" else 1
            if j >= n:
                break
            word = head[i + 1 : j]
            if depth == 1:
                if expect_key:
                    pending = word
                    keys[word] = ""
                    expect_key = False
                elif pending is not None:
                    keys[pending] = word
                    pending = None
            i = j + 1
            continue
        if c in "{[":
            depth += 1
            if depth == 1:
                expect_key = True
            if depth > 1:
                pending = None
        elif c in "}]":
            depth -= 1
        elif c == "," and depth == 1:
            expect_key = True
            pending = None
        i += 1
    return keys
