"""The flow-depth pre-scan of ``yamltree.parse`` against a straightforward reference.

``too_deep`` looks only at the tokens that can start a value while outside flow
collections (a regular expression finds them); the reference below examines every
bracket, quote and ``#`` of the text, as the scan was first written. Both must give
the same offset for any text, so the limit is lowered to make short texts reach it.
"""

from __future__ import annotations

import re
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pack_lsp.core.syntax.yamltree import guards
from paths import ROOT

_FLOW_TOKEN = re.compile(r"[\[\]{}\"'#]")
_DOUBLE_QUOTED_END = re.compile(r'(?:[^"\\]|\\.)*"', re.DOTALL)
_VALUE_START = re.compile(r"(?:^|[:\-?,])[ \t]*\Z")
_AFTER_INDICATOR = re.compile(r"[:\-?,][ \t]*\Z")


def reference(text: str, limit: int) -> int | None:
    """Every token examined: outside flow collections one counts where a value starts."""
    if text.count("[") + text.count("{") <= limit:
        return None
    depth = 0
    pos = 0
    while True:
        m = _FLOW_TOKEN.search(text, pos)
        if m is None:
            return None
        i = m.start()
        c = text[i]
        pos = i + 1
        if depth == 0:
            window = text[max(0, i - 80) : i]
            cut = max(window.rfind("\n"), window.rfind("\r"))
            if cut >= 0 or i <= 80:
                starts_value = _VALUE_START.search(window[cut + 1 :]) is not None
            else:
                starts_value = _AFTER_INDICATOR.search(window) is not None
            if not starts_value:
                continue
        if c in "[{":
            depth += 1
            if depth > limit:
                return i
        elif c in "]}":
            depth = max(depth - 1, 0)
        elif c == '"':
            end = _DOUBLE_QUOTED_END.match(text, pos)
            pos = end.end() if end is not None else len(text)
        elif c == "'":
            end_q = text.find("'", pos)
            pos = end_q + 1 if end_q >= 0 else len(text)
        elif i == 0 or text[i - 1] in " \t\r\n":
            end_n = text.find("\n", pos)
            pos = end_n if end_n >= 0 else len(text)


def _same(text: str, limit: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(guards, "MAX_FLOW_DEPTH", limit)
    assert guards.too_deep(text) == reference(text, limit), (limit, text[:200])


# Characters that change the scan's state, and some that do not.
_ALPHABET = "[]{}\"'#:-?,\\ \t\n\rax"
# Pieces of YAML: indicators, runs of spaces, brackets, scalars, comments, breaks,
# and text longer than the scan's look-behind window.
_PIECES = [
    *"[]{}:-?,#'\"\\ax\t\n\r",
    "  ",
    "   ",
    "\r\n",
    "key: ",
    "- ",
    "'it''s'",
    '"d\\"q"',
    "# c [",
    "x" * 90,
    " " * 85,
]


@settings(max_examples=2000, deadline=None, derandomize=True)
@given(
    st.text(alphabet=_ALPHABET, max_size=300)
    | st.lists(st.sampled_from(_PIECES), max_size=120).map("".join),
    st.integers(min_value=0, max_value=4),
)
def test_same_offset_as_the_reference(text: str, limit: int) -> None:
    with pytest.MonkeyPatch.context() as mp:
        _same(text, limit, mp)


def test_same_offset_on_real_packs(monkeypatch: pytest.MonkeyPatch) -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    import genpack

    texts = [genpack.generate(400, seed)[0] for seed in (1, 2)]
    texts += [p.read_text(encoding="utf-8") for p in sorted((ROOT / "examples").rglob("*.yaml"))]
    for text in texts:
        flow_depth = text.count("[") + text.count("{")
        for limit in (0, 1, 2, 3, 5, 8, flow_depth // 2):
            _same(text, limit, monkeypatch)
