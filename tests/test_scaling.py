"""Making a pack four times larger makes its analysis at most about four times slower.

A guard against quadratic paths (a lookup that scans every template per prompt, a
cycle search from every fragment, a per-character rescan): each case analyses a
pack of size N and one of size 4N in the same run and compares the CPU times, so
the machine's speed and load cancel out. The minimum of three runs resists noise;
the bound (6.5) leaves room for the constant part of an analysis, for caches and
for a loaded machine (a factor of 2 gave too little room: a 24 ms analysis measured
2.7 times slower at 2N once), while a quadratic path would give about 16.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from pack_lsp.core.checks.analysis import analyze

MAX_RATIO = 6.5
FACTOR = 4

HEADER = """\
id: scaling
name: Scaling
version: 1.0.0
template_engine:
  version: v1
  syntax: "{{variable}}"
"""


def _prompts(n: int) -> str:
    """``n`` prompts, each with a template using a variable and a fragment, and ``n``
    fragments in chains of five, each including the next (no cycle)."""
    out = [HEADER, "fragments:\n"]
    for i in range(n):
        nxt = f" {{{{fragments.f{i + 1}}}}}" if i % 5 != 4 and i + 1 < n else ""
        out.append(f"  f{i}: 'Part {i}{nxt}'\n")
    out.append("prompts:\n")
    for i in range(n):
        out.append(
            f"  p{i}:\n"
            f"    id: p{i}\n"
            f"    name: Prompt {i}\n"
            f"    description: Prompt number {i}\n"
            f"    version: 1.0.0\n"
            f"    system_template: |\n"
            f"      You help with {{{{topic}}}} number {i}.\n"
            f"      {{{{fragments.f{i}}}}}\n"
            f"    variables:\n"
            f"      - name: topic\n"
            f"        type: string\n"
            f"        required: true\n"
        )
    return "".join(out)


def _block_lines(n: int) -> str:
    """One prompt whose block-scalar template has ``n`` lines."""
    body = "".join(f"      Line {i} about {{{{topic}}}} and more words here.\n" for i in range(n))
    return (
        HEADER
        + "prompts:\n  big:\n    id: big\n    name: Big\n    description: Big\n"
        + "    version: 1.0.0\n    system_template: |\n"
        + body
        + "    variables:\n      - name: topic\n        type: string\n"
    )


def _duplicate_keys(n: int) -> str:
    """A mapping with ``n`` copies of the same key."""
    return HEADER + "prompts:\n  p:\n" + "".join(f"    id: p{i}\n" for i in range(n))


def _unclosed(n: int) -> str:
    """A template with ``n`` lines each opening a placeholder that is never closed."""
    body = "".join(f"      Line {i} {{{{ topic\n" for i in range(n))
    return (
        HEADER
        + "prompts:\n  p:\n    id: p\n    name: P\n    description: P\n"
        + "    version: 1.0.0\n    system_template: |\n"
        + body
    )


def _cpu(text: str) -> float:
    best = float("inf")
    for _ in range(3):
        t0 = time.process_time()
        analyze(text, path="scaling.promptpack.yaml")
        best = min(best, time.process_time() - t0)
    return best


@pytest.mark.parametrize(
    ("build", "n"),
    [
        pytest.param(_prompts, 150, id="prompts"),
        pytest.param(_block_lines, 3000, id="block-scalar-lines"),
        pytest.param(_duplicate_keys, 1500, id="duplicate-keys"),
        pytest.param(_unclosed, 1500, id="unclosed-placeholders"),
    ],
)
def test_four_times_the_pack_at_most_about_four_times_the_time(
    build: Callable[[int], str], n: int
) -> None:
    small, large = build(n), build(FACTOR * n)
    # The packs really are analysed (and really differ in size).
    assert len(large) > 0.9 * FACTOR * len(small)
    analyze(small, path="scaling.promptpack.yaml")  # warm-up: imports, schema compilation
    t_small = _cpu(small)
    t_large = _cpu(large)
    ratio = t_large / max(t_small, 1e-6)
    assert ratio <= MAX_RATIO, (
        f"{build.__name__}: N → {t_small * 1000:.0f} ms, {FACTOR}N → {t_large * 1000:.0f} ms "
        f"(ratio {ratio:.2f} > {MAX_RATIO}): something grows faster than the pack"
    )
