"""The baseline in the editor: problems ``pack-lsp --check --baseline`` would not
report are shown as hints (the default) or hidden, so that editor and CI agree.

The file is the configuration's ``baseline`` (the ``packLsp.baseline`` setting
works too, as every configuration key does); the ``baselineMode`` setting is
``"hint"`` or ``"hidden"``. The file is read again when it changes on disk.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pack_lsp.core.checks.analysis import Analysis
from pack_lsp.core.ide.baseline import BaselineError, Entry, Matcher, configured, load, outside_root

MODES = ("hint", "hidden")
_HINT = 4  # LSP DiagnosticSeverity.Hint
_cache: dict[Path, tuple[float, list[Entry] | BaselineError]] = {}


def _entries(path: Path) -> list[Entry] | BaselineError:
    try:
        stamp = path.stat().st_mtime
    except OSError as exc:
        try:
            load(path)  # says why in the words of every refused file (a link loop...)
        except BaselineError as refused:
            return refused
        return BaselineError(f"{path}: {exc.strerror or exc}")
    hit = _cache.get(path)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    try:
        found: list[Entry] | BaselineError = load(path)
    except BaselineError as exc:
        found = exc
    _cache[path] = (stamp, found)
    return found


def apply(
    fs_path: str | None, result: Analysis, items: list[dict[str, Any]], mode: str
) -> tuple[list[dict[str, Any]], str | None]:
    """``items`` (the LSP diagnostics of ``result``, in its order) with the baselined
    ones turned into hints or dropped, and a problem to show once, if any."""
    file = configured(result.config)
    if file is None or fs_path is None or len(items) != len(result.diagnostics):
        return items, None
    refused = outside_root(result.config)
    if refused is not None:
        return items, f"pack-lsp: the baseline is not used: {refused}"
    path = Path(file).absolute()
    known = _entries(path)
    if isinstance(known, BaselineError):
        return items, f"pack-lsp: the baseline is not used: {known}"
    new = Matcher(known).new(fs_path, result.diagnostics, result.lines, path.parent)
    out: list[dict[str, Any]] = []
    for item, is_new in zip(items, new, strict=True):
        if is_new:
            out.append(item)
        elif mode != "hidden":
            out.append({**item, "severity": _HINT, "message": item["message"] + " (baselined)"})
    return out, None
