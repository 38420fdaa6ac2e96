"""``--format sarif``: a SARIF 2.1.0 log for code-scanning services.

One run. ``tool.driver.rules`` lists every pack-lsp rule (id = the code, its name, a
short description, the default level and a link into docs/rules.md); each result
points at its rule, carries the effective level and one physical location, plus
related locations when the diagnostic has them. Regions are 1-based and count Unicode
code points (``run.columnKind`` says so); ``endColumn`` is the column just after
the range, as SARIF defines it. Files below the working directory are given relative
to the ``%SRCROOT%`` base, which the run declares as the working directory.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from pack_lsp import HOMEPAGE, RULES_URL, __version__
from pack_lsp.core.base.diagnostics import Diagnostic, Related, Rule, Severity
from pack_lsp.core.base.text import Range
from pack_lsp.core.checks.registry import REGISTRY
from pack_lsp.render import jsontext
from pack_lsp.render.result import FileResult, FixText, OtherFiles

SCHEMA_URI = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
#: The project's home and the rules reference each result's rule links into.
INFORMATION_URI = HOMEPAGE
RULES_DOC_URL = RULES_URL
SRCROOT = "%SRCROOT%"

LEVELS = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.INFORMATION: "note",
    Severity.HINT: "note",
}


def help_uri(code: str) -> str:
    return f"{RULES_DOC_URL}#{code.lower()}"


_SENTENCE_END = re.compile(r"(?<!e\.g)(?<!i\.e)\.\s+(?=[A-Z`])")


def first_sentence(text: str) -> str:
    match = _SENTENCE_END.search(text)
    return text[: match.start() + 1] if match else text


def _rule(info: Rule) -> dict[str, Any]:
    example = info.example.rstrip()
    markdown = f"{info.summary}\n\nExample:\n\n```yaml\n{example}\n```\n\nFix: {info.fix}"
    rule: dict[str, Any] = {
        "id": info.code,
        "name": info.name,
        "shortDescription": {"text": first_sentence(info.summary)},
        "fullDescription": {"text": info.summary},
        "help": {"text": f"{info.summary}\n\nFix: {info.fix}", "markdown": markdown},
        "helpUri": help_uri(info.code),
        "defaultConfiguration": {"level": LEVELS[info.severity]},
    }
    if info.category:
        rule["properties"] = {"tags": [info.category]}
    return rule


def _uri_of(path: str, cwd: Path) -> dict[str, Any]:
    """An artifactLocation: relative to %SRCROOT% when below the working directory."""
    p = Path(path)
    absolute = p if p.is_absolute() else cwd / p
    try:
        rel = absolute.resolve().relative_to(cwd.resolve())
    except (ValueError, OSError):
        rel = None
    if rel is not None:
        return {"uri": quote(rel.as_posix()), "uriBaseId": SRCROOT}
    if p.is_absolute():
        return {"uri": absolute.as_uri()}
    return {"uri": quote(p.as_posix())}


def _region(r: Range) -> dict[str, int]:
    return {
        "startLine": r.start.line + 1,
        "startColumn": r.start.character + 1,
        "endLine": r.end.line + 1,
        "endColumn": r.end.character + 1,
    }


def _location(path: str, span_range: Range, cwd: Path) -> dict[str, Any]:
    return {
        "physicalLocation": {"artifactLocation": _uri_of(path, cwd), "region": _region(span_range)}
    }


def _related(
    result: FileResult, rel: Related, index: int, cwd: Path, others: OtherFiles
) -> dict[str, Any]:
    other = others.lines(rel.path) if rel.path not in (None, result.path) else None
    if rel.path is not None and other is not None:
        loc = _location(rel.path, other.range(rel.span), cwd)
    else:
        loc = _location(result.path, result.lines.range(rel.span), cwd)
    loc["id"] = index
    loc["message"] = {"text": rel.message}
    return loc


def _fix(fix: FixText, cwd: Path) -> dict[str, Any]:
    """A SARIF ``fix``: one artifact change per file edited."""
    by_path: dict[str, list[dict[str, Any]]] = {}
    for e in fix.edits:
        by_path.setdefault(e.path, []).append(
            {"deletedRegion": _region(e.range), "insertedContent": {"text": e.new_text}}
        )
    return {
        "description": {"text": fix.title},
        "artifactChanges": [
            {"artifactLocation": _uri_of(path, cwd), "replacements": replacements}
            for path, replacements in by_path.items()
        ],
        "properties": {"safe": fix.safe},
    }


def _result(
    result: FileResult,
    d: Diagnostic,
    rule_index: dict[str, int],
    cwd: Path,
    others: OtherFiles,
    fixes: tuple[FixText, ...] = (),
) -> dict[str, Any]:
    location = _location(result.path, result.range(d), cwd)
    out: dict[str, Any] = {
        "ruleId": d.code,
        "level": LEVELS[d.severity],
        "message": {"text": d.message},
        "locations": [location],
    }
    if d.code in rule_index:
        out["ruleIndex"] = rule_index[d.code]
    if d.related:
        out["relatedLocations"] = [
            _related(result, rel, i, cwd, others) for i, rel in enumerate(d.related, 1)
        ]
    if d.tags:
        out["properties"] = {"tags": [t.value for t in d.tags]}
    if fixes:
        out["fixes"] = [_fix(f, cwd) for f in fixes]
    return out


def document(results: Sequence[FileResult], cwd: Path | None = None) -> dict[str, Any]:
    cwd = cwd or Path.cwd()
    rules = sorted(REGISTRY.values(), key=lambda r: r.code)
    rule_index = {r.code: i for i, r in enumerate(rules)}
    others = OtherFiles()
    sarif_results = [
        _result(result, d, rule_index, cwd, others, result.fixes_of(i))
        for result in results
        for i, d in enumerate(result.diagnostics)
    ]
    base = cwd.resolve().as_uri()
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "pack-lsp",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": INFORMATION_URI,
                "rules": [_rule(r) for r in rules],
            }
        },
        "originalUriBaseIds": {SRCROOT: {"uri": base if base.endswith("/") else base + "/"}},
        "columnKind": "unicodeCodePoints",
        "results": sarif_results,
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def render(results: Sequence[FileResult]) -> str:
    return jsontext.dumps(document(results)) + "\n"
