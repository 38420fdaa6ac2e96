"""The machine-readable ``--format json`` document (0-based, code points)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pack_lsp.core.base.text import Range
from pack_lsp.render import jsontext
from pack_lsp.render.result import FileResult, FixText, OtherFiles, summarize


def _range(r: Range) -> dict[str, Any]:
    return {
        "start": {"line": r.start.line, "character": r.start.character},
        "end": {"line": r.end.line, "character": r.end.character},
    }


def _fix(fix: FixText) -> dict[str, Any]:
    return {
        "title": fix.title,
        "safe": fix.safe,
        "edits": [
            {"path": e.path, "range": _range(e.range), "newText": e.new_text} for e in fix.edits
        ],
    }


def document(results: Sequence[FileResult]) -> dict[str, Any]:
    files = []
    others = OtherFiles()  # related locations in other files use their own lines
    for result in results:
        diagnostics = []
        for index, d in enumerate(result.diagnostics):
            related = []
            for rel in d.related:
                lines = result.lines
                if rel.path is not None and rel.path != result.path:
                    lines = others.lines(rel.path) or result.lines
                related.append(
                    {
                        "path": rel.path or result.path,
                        "range": _range(lines.range(rel.span)),
                        "message": rel.message,
                    }
                )
            entry: dict[str, Any] = {
                "range": _range(result.range(d)),
                "severity": d.severity.label,
                "code": d.code,
                "message": d.message,
                "source": "pack-lsp",
                "related": related,
            }
            fixes = result.fixes_of(index)
            if fixes:
                entry["fixes"] = [_fix(f) for f in fixes]
            diagnostics.append(entry)
        files.append({"path": result.path, "diagnostics": diagnostics})
    s = summarize(results)
    return {
        "files": files,
        "summary": {
            "files": s.files,
            "errors": s.errors,
            "warnings": s.warnings,
            "information": s.information,
            "hints": s.hints,
        },
    }


def render(results: Sequence[FileResult]) -> str:
    return jsontext.dumps(document(results)) + "\n"
