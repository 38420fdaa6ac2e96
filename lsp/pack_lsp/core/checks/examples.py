"""Run the rules' examples as ``pack-lsp --check`` would (docs/decisions.md, D35).

Each rule's ``example`` is a whole document (``Rule.example_kind`` says which kind).
:func:`run` writes it, with its ``.pack-lsp.toml`` when it has one, to an empty
temporary folder, checks it as a file named on the command line, and returns what
pack-lsp reports on it. docs/rules.md shows that list under each example, and a test
checks that every example reports its own rule's code and nothing unintended.
"""

from __future__ import annotations

import re
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

from pack_lsp.core.base import kinds
from pack_lsp.core.base.diagnostics import ExampleKind, Rule, Severity
from pack_lsp.core.base.source import decode
from pack_lsp.core.checks.analysis import Analysis, analyze
from pack_lsp.core.model.config import Config, from_mapping
from pack_lsp.core.model.manifest.files import index_files
from pack_lsp.core.model.recognize import recognize

#: The name each kind of example is checked under, relative to the temporary folder
#: (in a folder of its own, so that messages naming the folder read the same on
#: every machine).
FILE_NAMES: dict[ExampleKind, str] = {
    ExampleKind.PACK: "example/pack.promptpack.yaml",
    ExampleKind.PACK_JSON: "example/pack.promptpack.json",
    ExampleKind.PACK_BYTES: "example/pack.promptpack.yaml",
    ExampleKind.MANIFEST: "example/manifest.yaml",
    ExampleKind.KUBERNETES: "example/resources.yaml",
    ExampleKind.ARENA_PROJECT: "example/config.arena.yaml",
    ExampleKind.ARENA: "example/document.yaml",
}

#: The code-block language of each kind of example.
LANGUAGES: dict[ExampleKind, str] = {
    ExampleKind.PACK_JSON: "json",
    ExampleKind.ILLUSTRATIVE: "text",
}

#: ``---`` between the manifests of a manifest example, and the path comment each
#: further manifest starts with.
_DOCUMENT_BREAK = re.compile(r"^---[ \t]*\n", re.MULTILINE)
_PATH_COMMENT = re.compile(r"#\s*([\w.-]+/manifest\.ya?ml)\s*$")
_MANIFEST_ID = re.compile(r"^id:[ \t]*([\w.-]+)[ \t]*(?:#.*)?$", re.MULTILINE)
_PROJECT_PATH_COMMENT = re.compile(r"#\s*([\w.-]+(?:/[\w.-]+)*\.(?:ya?ml|json))\s*$")
_BYTE_ESCAPE = re.compile(rb"\\x([0-9a-fA-F]{2})")


class ExampleError(ValueError):
    """A rule's example cannot be run as declared (a fault of the declaration)."""


@dataclass(frozen=True, slots=True)
class Reported:
    """One diagnostic on an example, at a 1-based line and column (code points)."""

    line: int
    column: int
    severity: Severity
    code: str
    message: str
    file: str = ""
    """The file it is in, for an example of several files (empty: the first one)."""

    def __str__(self) -> str:
        where = f"{self.file}, " if self.file else ""
        return f"{where}line {self.line}, column {self.column}: {self.severity.label} {self.code}"


def language(rule: Rule) -> str:
    """The language the example is shown in."""
    return LANGUAGES.get(rule.example_kind, "yaml")


def files(rule: Rule) -> list[tuple[str, bytes]]:
    """The files of ``rule``'s example: the checked one first, then the others of its
    workspace (further manifests of a manifest example)."""
    kind = rule.example_kind
    if kind is ExampleKind.ILLUSTRATIVE:
        raise ExampleError(f"{rule.code}: an illustrative example is not run")
    if kind is ExampleKind.PACK_BYTES:
        raw = _BYTE_ESCAPE.sub(lambda m: bytes([int(m.group(1), 16)]), rule.example.encode())
        return [(FILE_NAMES[kind], raw)]
    if kind not in (ExampleKind.MANIFEST, ExampleKind.ARENA_PROJECT):
        return [(FILE_NAMES[kind], rule.example.encode())]
    first, *others = _DOCUMENT_BREAK.split(rule.example)
    out = [(_first_name(kind, first), first.encode())]
    pattern, shape = (
        (_PATH_COMMENT, "`# <folder>/manifest.yaml`")
        if kind is ExampleKind.MANIFEST
        else (_PROJECT_PATH_COMMENT, "`# <path relative to the config>`")
    )
    for other in others:
        match = pattern.match(other.split("\n", 1)[0])
        if match is None:
            raise ExampleError(
                f"{rule.code}: a further document of the example must start with a {shape} comment"
            )
        name = match.group(1)
        if kind is ExampleKind.ARENA_PROJECT:
            name = f"example/{name}"
        out.append((name, other.encode()))
    return out


def _first_name(kind: ExampleKind, first: str) -> str:
    """The checked file of a several-file example. A manifest lives in the folder
    named after its id, as yodoca wants, unless its first line is a path comment."""
    if kind is not ExampleKind.MANIFEST:
        return FILE_NAMES[kind]
    named = _PATH_COMMENT.match(first.split("\n", 1)[0])
    if named is not None:
        return named.group(1)
    ext_id = _MANIFEST_ID.search(first)
    return f"{ext_id.group(1)}/manifest.yaml" if ext_id else FILE_NAMES[kind]


def config(rule: Rule) -> Config:
    """The configuration the example is checked with."""
    if not rule.example_config:
        return Config()
    try:
        data = tomllib.loads(rule.example_config)
    except tomllib.TOMLDecodeError as exc:
        raise ExampleError(f"{rule.code}: the example's configuration is not TOML: {exc}") from None
    return from_mapping(data, ".pack-lsp.toml")


def run(rule: Rule) -> list[Reported]:
    """What ``pack-lsp --check`` reports on ``rule``'s example (its first file)."""
    settings = config(rule)
    written = files(rule)
    with tempfile.TemporaryDirectory(prefix="pack-lsp-example-") as folder:
        root = Path(folder).resolve()
        paths = []
        for name, raw in written:
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(raw)
            paths.append(path)
        if rule.example_config:
            (root / ".pack-lsp.toml").write_text(rule.example_config, encoding="utf-8")
        checked = paths[0]
        if rule.example_kind is ExampleKind.ARENA_PROJECT:
            return _run_project(checked, root, settings)
        workspace = (
            index_files(paths, settings.manifests)
            if rule.example_kind is ExampleKind.MANIFEST
            else None
        )
        text, pre = decode(written[0][1])
        recognition = recognize(str(checked), text, settings.manifests, explicit=True)
        # A manifest example is a manifest even when too broken to be recognised as
        # one (no `entrypoint`, no `agent`), as a file matched by `manifests` is.
        kind = (
            kinds.MANIFEST
            if rule.example_kind is ExampleKind.MANIFEST
            else recognition.kind or kinds.PROMPTPACK
        )
        analysis = analyze(
            text,
            path=checked,
            config=settings,
            kind=kind,
            pre_diagnostics=pre,
            workspace=workspace,
            recognition=recognition,
        )
        return _reported(analysis, root)


def _reported(analysis: Analysis, root: Path, file: str = "") -> list[Reported]:
    out = []
    for diag in analysis.diagnostics:
        start = analysis.lines.position(diag.span.start)
        message = diag.message.replace(f"{root}/", "").replace(str(root), ".")
        out.append(
            Reported(
                start.line + 1,
                start.character + 1,
                diag.severity,
                diag.code,
                " ".join(message.split()),
                file,
            )
        )
    return out


def _run_project(config_path: Path, root: Path, settings: Config) -> list[Reported]:
    """What ``pack-lsp --check`` reports on the files of an arena project example."""
    from pack_lsp.core.checks.arena.check import analyze_in_project, check_project
    from pack_lsp.core.model.arena.project import load_project

    project = load_project(config_path)
    if project is None:
        raise ExampleError(
            f"{config_path.name}: the example's first document is not an arena config"
        )
    checked = check_project(project, settings)
    out: list[Reported] = []
    for path in project.paths():
        file = project.files[path]
        analysis = analyze_in_project(file.text, path, checked, settings)
        shown = "" if path == project.path else str(Path(path).relative_to(config_path.parent))
        out.extend(_reported(analysis, root, shown))
    return out
