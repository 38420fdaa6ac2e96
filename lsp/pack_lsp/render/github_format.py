"""``--format github``: GitHub Actions workflow commands, one per diagnostic.

``::error file=PATH,line=L,col=C,endLine=L,endColumn=C,title=CODE::message`` — the
runner turns each line into an annotation on the pull request. Errors are ``error``,
warnings ``warning``, information and hints ``notice``. Lines and columns are 1-based
and count code points; ``endColumn`` is the last character of the range (inclusive),
as GitHub expects. GitHub accepts columns only for a range on one line, so a range
spanning lines gives ``line`` and ``endLine`` alone. Paths under the working
directory are written relative to it, the way GitHub matches them to the repository.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from pack_lsp.core.base.diagnostics import Severity
from pack_lsp.render.result import FileResult

COMMANDS = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.INFORMATION: "notice",
    Severity.HINT: "notice",
}


def escape_data(text: str) -> str:
    """Escape a command's message (the text after ``::``)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a property value (``file=…``, ``title=…``)."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def display_path(path: str, cwd: Path | None = None) -> str:
    """``path`` relative to the working directory when it lies below it, with ``/``."""
    p = Path(path)
    if p.is_absolute():
        base = (cwd or Path.cwd()).resolve()
        try:
            return p.resolve().relative_to(base).as_posix()
        except (ValueError, OSError):
            return p.as_posix()
    return p.as_posix() if os.sep == "/" else path.replace(os.sep, "/")


def render(results: Sequence[FileResult]) -> str:
    out: list[str] = []
    cwd = Path.cwd()
    for result in results:
        file = escape_property(display_path(result.path, cwd))
        for d in result.diagnostics:
            r = result.range(d)
            props = [f"file={file}", f"line={r.start.line + 1}"]
            if r.start.line == r.end.line:
                col = r.start.character + 1
                props.append(f"col={col}")
                props.append(f"endLine={r.end.line + 1}")
                props.append(f"endColumn={max(col, r.end.character)}")
            else:
                props.append(f"endLine={r.end.line + 1}")
            props.append(f"title={escape_property(d.code)}")
            out.append(f"::{COMMANDS[d.severity]} {','.join(props)}::{escape_data(d.message)}")
    return "".join(line + "\n" for line in out)
