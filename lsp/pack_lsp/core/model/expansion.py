"""How long a template is once its fragments are expanded, found without expanding it.

Fragments may include fragments: twenty includes over seven levels turn a 2 KB pack
into billions of characters, which a renderer would build for minutes and
gigabytes. ``expansion`` computes the expanded length from each fragment's own
length and its includes (each fragment once, whatever the nesting), and the include
path that makes most of it, so that ``--render`` can refuse before expanding and
``--check`` can report it (PP016).

The length follows what ``ide/render.py`` does: a fragment's first template is the
one expanded, placeholders are taken in order without overlap, an undefined fragment
and an include that leads back into the fragments being expanded are left as
written. Variables keep their written length (their values are the user's).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from pack_lsp.core.base.source import parse_size
from pack_lsp.core.model.templates import Placeholder, TemplateInfo

#: Largest rendered template, in characters (``PACK_LSP_MAX_RENDER_SIZE`` overrides
#: it). A million characters is about 250,000 tokens: more than a model's context.
DEFAULT_MAX_RENDER_SIZE = 1_000_000
MAX_RENDER_SIZE_ENV = "PACK_LSP_MAX_RENDER_SIZE"
#: Steps of an include path shown in a message.
MAX_SHOWN = 12


def render_budget() -> int:
    """The largest rendered template allowed (0: no limit): ``PACK_LSP_MAX_RENDER_SIZE``
    (a size as ``PACK_LSP_MAX_FILE_SIZE`` takes it), else the default; a value that
    is not a size gives the default."""
    raw = os.environ.get(MAX_RENDER_SIZE_ENV, "").strip()
    if not raw:
        return DEFAULT_MAX_RENDER_SIZE
    try:
        return parse_size(raw)
    except ValueError:
        return DEFAULT_MAX_RENDER_SIZE


@dataclass(frozen=True, slots=True)
class Step:
    """One include of the path that makes a template large."""

    fragment: str
    times: int
    """How many times the previous step (the template, or a fragment) includes it."""
    placeholder: Placeholder
    """Its first include there."""


@dataclass(frozen=True, slots=True)
class Expansion:
    """How large a template gets once its fragments are expanded, and why."""

    size: int
    """The length of the template with every fragment expanded, in characters."""
    path: tuple[Step, ...]
    """From the template down, the include that contributes most at each level."""

    def shown(self, start: str) -> str:
        """``support > header ×20 > body ×20``."""
        steps = [f"{s.fragment} ×{s.times}" if s.times > 1 else s.fragment for s in self.path]
        more = " > …" if len(steps) > MAX_SHOWN else ""
        return " > ".join([start, *steps[:MAX_SHOWN]]) + more


def _includes(info: TemplateInfo) -> Iterator[Placeholder]:
    """The fragment placeholders of ``info`` that a renderer reaches, in order."""
    at = 0
    for p in sorted(info.placeholders, key=lambda p: p.start):
        if p.start < at:
            continue
        at = p.end
        if p.kind == "fragment":
            yield p


class Expander:
    """The expanded lengths of a pack's fragments (``fragments`` maps each key to its
    templates; the first is the one expanded), computed once for all its templates."""

    def __init__(self, fragments: Mapping[str, Sequence[TemplateInfo]]) -> None:
        self.first = {key: infos[0] for key, infos in fragments.items() if infos}
        self.sizes = _fragment_sizes(self.first)

    def expansion(self, start: TemplateInfo) -> Expansion:
        """The expanded length of ``start`` and the path of includes making it large."""
        return _expansion(start, self.first, self.sizes)

    def size(self, start: TemplateInfo) -> int:
        """The expanded length of ``start`` alone (``expansion(start).size``, without
        the path: most templates are under any budget)."""
        return _own_size(start, self.sizes)


def _expansion(
    start: TemplateInfo, first: Mapping[str, TemplateInfo], sizes: Mapping[str, int]
) -> Expansion:
    size = _own_size(start, sizes)
    path: list[Step] = []
    seen: set[str] = set()
    info: TemplateInfo | None = start
    while info is not None:
        best: tuple[int, str, int, Placeholder] | None = None
        counts: dict[str, list[Placeholder]] = {}
        for p in _includes(info):
            if p.name in sizes and p.name not in seen:
                counts.setdefault(p.name, []).append(p)
        for name, uses in counts.items():
            weight = len(uses) * sizes[name]
            if best is None or weight > best[0]:
                best = (weight, name, len(uses), uses[0])
        if best is None:
            break
        _, name, times, placeholder = best
        path.append(Step(name, times, placeholder))
        seen.add(name)
        info = first.get(name)
    return Expansion(size, tuple(path))


def _own_size(info: TemplateInfo, sizes: Mapping[str, int]) -> int:
    """The length of ``info`` with its includes replaced by the fragments' sizes."""
    size = len(info.template.text)
    for p in _includes(info):
        if p.name in sizes:
            size += sizes[p.name] - (p.end - p.start)
    return size


def _fragment_sizes(first: Mapping[str, TemplateInfo]) -> dict[str, int]:
    """Each fragment's expanded length, every fragment computed once (a depth-first
    walk without recursion: a chain of thousands of fragments is fine). An include
    back into the fragments being expanded keeps its written length, as a renderer
    leaves it."""
    done: dict[str, int] = {}
    active: set[str] = set()
    for root in first:
        if root in done:
            continue
        # Frames: (fragment, its includes still to add, its size so far).
        stack: list[tuple[str, Iterator[Placeholder], list[int]]] = []
        active.add(root)
        stack.append((root, _includes(first[root]), [len(first[root].template.text)]))
        while stack:
            key, includes, acc = stack[-1]
            for p in includes:
                if p.name not in first or p.name in active:
                    continue  # undefined, or a cycle: stays as written
                if p.name in done:
                    acc[0] += done[p.name] - (p.end - p.start)
                    continue
                active.add(p.name)
                # The written include is replaced once the fragment's size is known.
                acc[0] -= p.end - p.start
                stack.append((p.name, _includes(first[p.name]), [len(first[p.name].template.text)]))
                break
            else:
                stack.pop()
                active.discard(key)
                done[key] = acc[0]
                if stack:
                    stack[-1][2][0] += acc[0]
    return done
