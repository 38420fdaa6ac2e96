"""Did-you-mean suggestions: edit distance plus prefix/suffix matches."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence


def distance(a: str, b: str, limit: int | None = None) -> int:
    """Damerau–Levenshtein (optimal string alignment) distance, case-sensitive."""
    if a == b:
        return 0
    if limit is not None and abs(len(a) - len(b)) > limit:
        return limit + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cost = 0 if ca == cb else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return prev[-1]


def suggestions(word: str, candidates: Iterable[str], *, limit: int = 3) -> list[str]:
    """Candidates close to ``word``, best first.

    A candidate qualifies when its edit distance (ignoring case) is at most a third of
    the longer length (at least 1, at most 3), or when one name is a prefix or suffix
    of the other separated at a word boundary (``billing`` → ``billing_agent``,
    ``research`` → ``researcher``).
    """
    if not word:
        return []
    lw = word.lower()
    scored: list[tuple[float, str]] = []
    for cand in dict.fromkeys(candidates):
        if cand == word or not cand:
            continue
        lc = cand.lower()
        if lc == lw:
            scored.append((0.0, cand))
            continue
        budget = max(1, min(3, max(len(lw), len(lc)) // 3))
        d = distance(lw, lc, budget)
        if d <= budget:
            scored.append((float(d), cand))
            continue
        short, long_ = (lw, lc) if len(lw) <= len(lc) else (lc, lw)
        if len(short) >= 3 and (long_.startswith(short) or long_.endswith(short)):
            scored.append((budget + 0.5 + (len(long_) - len(short)) / 100, cand))
            continue
        # Same leading word: `orders` → `order_agent`, `technical` → `tech_agent`.
        head_w, head_c = _head(lw), _head(lc)
        if (head_c != lc or head_w != lw) and _same_stem(head_w, head_c, lw, lc):
            scored.append((budget + 1.5 + (len(lc) - len(lw)) ** 2 / 1000, cand))
    scored.sort(key=lambda t: (t[0], t[1]))
    return [c for _, c in scored[:limit]]


_SEPARATORS = re.compile(r"[_\-.]")


def _head(name: str) -> str:
    return _SEPARATORS.split(name, maxsplit=1)[0]


def _same_stem(head_w: str, head_c: str, word: str, cand: str) -> bool:
    """The leading words match, or one (at least 4 letters) begins the other name."""
    if len(head_w) >= 4 and head_w == head_c:
        return True
    if head_c != cand and len(head_c) >= 4 and word.startswith(head_c):
        return True
    return head_w != word and len(head_w) >= 4 and cand.startswith(head_w)


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """A message suffix like ``; did you mean `agents`?`` or an empty string.

    A rule that also puts the suggestions in a quick fix's data computes them once
    with ``suggestions`` and words them with ``hint_for``.
    """
    return hint_for(suggestions(word, candidates))


def hint_for(found: Sequence[str]) -> str:
    """The did-you-mean message suffix for suggestions already computed."""
    if not found:
        return ""
    if len(found) == 1:
        return f"; did you mean `{found[0]}`?"
    return "; did you mean " + ", ".join(f"`{f}`" for f in found[:-1]) + f" or `{found[-1]}`?"
