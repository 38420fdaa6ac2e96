"""Each problem with its source lines, a caret under its span and the fix it offers.

The text output of ``pack-lsp --check`` on a terminal (``--output-format full``)::

    error[PP102]: Unknown property `agent` in the pack root; did you mean `agents`?
      --> examples/broken.yaml:14:1
       |
    13 |     system_template: You answer billing questions.
    14 | agent:
       | ^^^^^
    15 |   entry: billing
       |
       = fix: Rename to `agents` (`--fix` applies it)

A span over several lines is underlined on each (at most ``MAX_LINES``, then
``...``); one line before and after it are shown when they are not blank. A line
longer than ``WIDTH`` characters (a minified JSON pack) is cut to a window around
the span, ``…`` marking what is left out. Tabs and other control characters are
shown as one space each, so the carets stay under the characters they mark.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pack_lsp.core.base.diagnostics import Diagnostic, Severity
from pack_lsp.render.result import FileResult, chosen_fix

MAX_LINES = 5
WIDTH = 120
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")

_SEVERITY_COLOUR = {
    Severity.ERROR: "1;31",
    Severity.WARNING: "1;33",
    Severity.INFORMATION: "1;34",
    Severity.HINT: "1;36",
}
_GUTTER = "34"
_FIX = "32"
_BOLD = "1"


class _Paint:
    def __init__(self, colour: bool) -> None:
        self.colour = colour

    def __call__(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.colour and text else text


def render(results: Sequence[FileResult], colour: bool = False) -> str:
    paint = _Paint(colour)
    out = [
        _one(result, index, d, paint)
        for result in results
        for index, d in enumerate(result.diagnostics)
    ]
    return "\n".join(out)


def _one(result: FileResult, index: int, d: Diagnostic, paint: _Paint) -> str:
    r = result.range(d)
    first, last = r.start.line, r.end.line
    if last > first and r.end.character == 0:
        last -= 1  # a span ending at the start of a line does not cover it
    shown_last = min(last, first + MAX_LINES - 1)
    lines = result.lines
    before = first - 1 if first > 0 and lines.line_text(first - 1).strip() else None
    after = (
        last + 1
        if last == shown_last and last + 1 < lines.line_count and lines.line_text(last + 1).strip()
        else None
    )
    width = len(str((after if after is not None else shown_last) + 1))
    colour = _SEVERITY_COLOUR[d.severity]
    bar = paint(" " * width + " |", _GUTTER)
    message = d.message.replace("\r", " ").replace("\n", " ")
    out = [
        paint(f"{d.severity.label}[{d.code}]", colour) + paint(f": {message}", _BOLD),
        paint(" " * width + "--> ", _GUTTER) + f"{result.path}:{first + 1}:{r.start.character + 1}",
        bar,
    ]

    def source(number: int, text: str) -> str:
        return paint(f"{number + 1:>{width}} |", _GUTTER) + (" " + text if text else "")

    if before is not None:
        out.append(source(before, _window(lines.line_text(before), 0, 0)[0]))
    for line in range(first, shown_last + 1):
        text = lines.line_text(line)
        start = r.start.character if line == first else len(text) - len(text.lstrip())
        end = r.end.character if line == r.end.line else len(text)
        shown, start, end = _window(text, start, max(end, start + 1))
        out.append(source(line, shown))
        out.append(bar + " " + " " * start + paint("^" * (end - start), colour))
    if shown_last < last:
        out.append(paint(" " * width + " ...", _GUTTER))
    if after is not None:
        out.append(source(after, _window(lines.line_text(after), 0, 0)[0]))
    out.append(bar)
    fix = chosen_fix(result, index)
    if fix is not None:
        how = "`--fix` applies it" if fix.safe else "`--fix --unsafe-fixes` applies it"
        out.append(
            paint(" " * width + " = ", _GUTTER) + paint(f"fix: {fix.title}", _FIX) + f" ({how})"
        )
    elif result.fixes_of(index):
        title = result.fixes_of(index)[0].title
        out.append(
            paint(" " * width + " = ", _GUTTER) + paint(f"fix: {title}", _FIX) + " (in an editor)"
        )
    return "\n".join(out) + "\n"


def _window(text: str, start: int, end: int) -> tuple[str, int, int]:
    """``text`` as shown (control characters as spaces, cut to ``WIDTH`` around the
    columns ``start``-``end``) and those columns in it."""
    text = _CONTROL.sub(" ", text)
    start = min(start, len(text))
    end = min(end, len(text) + 1)  # a caret may stand just after the last character
    if len(text) <= WIDTH:
        return text, start, end
    left = max(0, min(start - 20, len(text) - WIDTH))
    right = min(len(text), left + WIDTH)
    shown = ("…" if left else "") + text[left:right] + ("…" if right < len(text) else "")
    shift = 1 if left else 0
    start = start - left + shift
    end = min(end, right) - left + shift
    return shown, start, max(end, start + 1)
