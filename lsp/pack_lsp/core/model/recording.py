"""What a pack-wide check read: recorded while it runs, fingerprinted for reuse.

A rule module's pack-wide ``check(ctx)`` gets a context whose pack, templates and
top-level data record every part the check reads (``Reads``): a top-level section
as a whole (``pack.agents``, ``pack.workflow``, ``ctx.part("compositions")``), one
entry of ``prompts``, ``tools``, ``fragments`` or ``compositions`` (``get``, ``in``,
``[]``), the keys of such a mapping (iterating it) or values derived from the whole
pack (the template context, the targeted version). What has no fingerprint (the
text, the tree, the whole plain data, the line index, a template found by offset)
marks the reads ``volatile``: such a result is never reused.

``fingerprint(reads, ...)`` is the value of everything read, in a new version: the
plain data of a section or entry by identity (``Same``: incremental analysis
shares the data of every block an edit did not touch), keys in order, derived values
by equality. While the fingerprint of the previous version's reads is unchanged, the
check would read the same things and find the same (up to spans that moved with the
text, which ``RuleEdit.moved`` moves): its results are reused. Dependencies are
recorded by construction, not declared (docs/decisions.md, D31).
"""

from __future__ import annotations

from collections.abc import Callable, ItemsView, Iterator, Mapping, ValuesView
from typing import Any, TypeVar, cast

from pack_lsp.core.model.pack import Pack, Prompt
from pack_lsp.core.model.templates import PackTemplates, Placeholder, TemplateInfo

V = TypeVar("V")

#: The top-level sections each attribute of ``Pack`` is built from (``model.build_pack``);
#: ``tests/test_rule_units.py`` builds packs section by section to check it. An
#: attribute not listed (``span``, or one added later) makes the reads volatile.
SECTIONS: dict[str, tuple[str, ...]] = {
    "id": ("id",),
    "name": ("name",),
    "version": ("version",),
    "description": ("description",),
    "template_engine": ("template_engine",),
    "workflow": ("workflow",),
    "agents": ("agents",),
    "skills": ("skills",),
    "evals": ("evals",),
    "compositions_span": ("compositions",),
    "providers": ("requires",),
    "providers_span": ("requires",),
    "provider_keys": ("requires",),
    "governance": ("metadata", "agents"),
}

#: Attributes of ``Pack`` that map keys to entries, and the section each is built from.
ENTRIES: dict[str, str] = {
    "prompts": "prompts",
    "fragments": "fragments",
    "tools": "tools",
    "compositions": "compositions",
}


class Reads:
    """What one pack-wide check read (see the module docstring)."""

    __slots__ = ("entries", "fields", "keys", "present", "sections", "values", "volatile")

    def __init__(self) -> None:
        self.sections: set[str] = set()
        self.entries: dict[str, set[str]] = {}
        self.keys: set[str] = set()
        self.values: dict[str, Callable[[], object]] = {}
        self.volatile = False
        # Prompts looked up by key: whether each is there, and which of its
        # attributes were read (``RecordedPrompt``).
        self.present: set[str] = set()
        self.fields: dict[str, set[str]] = {}

    def entry(self, section: str, key: object) -> None:
        if section not in self.sections:
            self.entries.setdefault(section, set()).add(str(key))

    def frozen(self) -> FrozenReads:
        return FrozenReads(
            tuple(sorted(self.sections)),
            tuple(
                (s, tuple(sorted(keys)))
                for s, keys in sorted(self.entries.items())
                if s not in self.sections
            ),
            tuple(sorted(self.keys)),
            tuple(sorted(self.values)),
            self.volatile,
            tuple(sorted(self.present)),
            tuple((key, tuple(sorted(names))) for key, names in sorted(self.fields.items())),
        )


class FrozenReads:
    """``Reads`` once the check has finished, kept with its results."""

    __slots__ = ("entries", "fields", "keys", "present", "sections", "values", "volatile")

    def __init__(
        self,
        sections: tuple[str, ...],
        entries: tuple[tuple[str, tuple[str, ...]], ...],
        keys: tuple[str, ...],
        values: tuple[str, ...],
        volatile: bool,
        present: tuple[str, ...],
        fields: tuple[tuple[str, tuple[str, ...]], ...],
    ) -> None:
        self.sections = sections
        self.entries = entries
        self.keys = keys
        self.values = values
        self.volatile = volatile
        self.present = present
        self.fields = fields


class Same:
    """A part of a fingerprint that equals another only when both hold the very same
    object: incremental analysis shares the plain data of every block an edit did
    not touch, so identity says "unchanged" exactly, without comparing contents
    (plain data would also take ``1``, ``1.0`` and ``true`` for equal)."""

    __slots__ = ("value",)

    def __init__(self, value: object) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Same) and other.value is self.value

    def __hash__(self) -> int:
        return id(self.value)

    def __repr__(self) -> str:
        return f"Same(<{type(self.value).__name__} at {id(self.value):#x}>)"


class _Volatile:
    """A fingerprint part equal to nothing, itself included."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return False

    def __hash__(self) -> int:
        return 0


_ABSENT = ("absent",)


def fingerprint(
    reads: FrozenReads, pack: Pack, data: Any, values: Mapping[str, Callable[[], object]]
) -> tuple[object, ...] | None:
    """The value of everything ``reads`` lists, in the version of ``pack`` and ``data``
    (``values``: how to compute each derived value); None when it is volatile."""
    if reads.volatile:
        return None
    top = data if isinstance(data, dict) else {}
    out: list[object] = [Same(top.get(s)) for s in reads.sections]
    for section, keys in reads.entries:
        part = top.get(section)
        model = getattr(pack, _ATTRIBUTE[section])
        for key in keys:
            if isinstance(part, dict) and key in part:
                out.append(Same(part[key]))
            elif key in model:  # the model has an entry the data does not: never the same
                out.append(_Volatile())
            else:
                out.append(_ABSENT)
    out.extend(tuple(getattr(pack, attribute)) for attribute in reads.keys)
    out.extend(values[name]() for name in reads.values)
    if "prompts" not in reads.sections:
        prompts = pack.prompts
        out.extend(key in prompts for key in reads.present)
        for key, names in reads.fields:
            prompt = prompts.get(key)
            out.append(
                tuple(getattr(prompt, name) for name in names) if prompt is not None else _ABSENT
            )
    return tuple(out)


_ATTRIBUTE = {section: attribute for attribute, section in ENTRIES.items()}


class RecordedEntries(Mapping[str, V]):
    """A mapping of the pack (``prompts``, ``tools``, ...) that records what is read."""

    __slots__ = ("_attribute", "_entries", "_reads", "_section")

    def __init__(self, entries: dict[str, V], reads: Reads, section: str, attribute: str) -> None:
        self._entries = entries
        self._reads = reads
        self._section = section
        self._attribute = attribute

    def _one(self, key: object) -> None:
        if self._section == "prompts":
            self._reads.present.add(str(key))
        else:
            self._reads.entry(self._section, key)

    def _recorded(self, key: str, found: V) -> V:
        if self._section == "prompts" and isinstance(found, Prompt):
            return cast(V, RecordedPrompt(found, self._reads, key))
        return found

    def __getitem__(self, key: str) -> V:
        self._one(key)
        return self._recorded(key, self._entries[key])

    def __contains__(self, key: object) -> bool:
        self._one(key)
        return key in self._entries

    def get(self, key: str, default: Any = None) -> Any:
        self._one(key)
        found = self._entries.get(key)
        return self._recorded(key, found) if found is not None else default

    def __iter__(self) -> Iterator[str]:
        self._reads.keys.add(self._attribute)
        return iter(self._entries)

    def __len__(self) -> int:
        self._reads.keys.add(self._attribute)
        return len(self._entries)

    def values(self) -> ValuesView[V]:
        self._reads.sections.add(self._section)
        return self._entries.values()

    def items(self) -> ItemsView[str, V]:
        self._reads.sections.add(self._section)
        return self._entries.items()


class RecordedPrompt:
    """A prompt of the pack, looked up by key, that records which attributes are read:
    their values are the fingerprint (compared with spans moved, ``same_after``), so
    that a check reading an agent's name does not run again when its template changes."""

    __slots__ = ("_key", "_prompt", "_reads")

    def __init__(self, prompt: Prompt, reads: Reads, key: str) -> None:
        self._prompt = prompt
        self._reads = reads
        self._key = key

    def __getattr__(self, name: str) -> Any:
        self._reads.fields.setdefault(self._key, set()).add(name)
        return getattr(self._prompt, name)


class RecordedPack:
    """A ``Pack`` whose attributes record the sections they are built from."""

    __slots__ = ("__weakref__", "_pack", "_reads")

    def __init__(self, pack: Pack, reads: Reads) -> None:
        self._pack = pack
        self._reads = reads

    def __getattr__(self, name: str) -> Any:
        reads = self._reads
        section = ENTRIES.get(name)
        if section is not None:
            return RecordedEntries(getattr(self._pack, name), reads, section, name)
        sections = SECTIONS.get(name)
        if sections is None:
            reads.volatile = True
        else:
            reads.sections.update(sections)
        return getattr(self._pack, name)


#: Names of the derived values a check may read (``Reads.values``).
TEMPLATE_CONTEXT = "template-context"
TARGET = "target"


class RecordedTemplates:
    """The pack's templates (``PackTemplates``) recording what they are read for.

    Placeholders depend on their template's text and on the template context (the
    dialect, the delimiters and, for ``promptkit``, the fragment names), which is
    recorded by value with every question. Questions asked by offset make the reads
    volatile; so does any attribute not answered here.
    """

    __slots__ = ("_context", "_reads", "_templates")

    def __init__(
        self, templates: PackTemplates, reads: Reads, context: Callable[[], object]
    ) -> None:
        self._templates = templates
        self._reads = reads
        self._context = context

    def _depends(self, *sections: str) -> None:
        self._reads.values[TEMPLATE_CONTEXT] = self._context
        self._reads.sections.update(sections)

    @property
    def dialect(self) -> str:
        self._depends()
        return self._templates.dialect

    @property
    def context(self) -> tuple[object, ...]:
        self._depends()
        return self._templates.context

    @property
    def templates(self) -> list[TemplateInfo]:
        self._depends("prompts", "fragments")
        return self._templates.templates

    def of_prompt(self, key: str) -> list[TemplateInfo]:
        self._depends()
        self._reads.entry("prompts", key)
        return self._templates.of_prompt(key)

    def of_fragment(self, key: str) -> list[TemplateInfo]:
        self._depends()
        self._reads.entry("fragments", key)
        return self._templates.of_fragment(key)

    def placeholders_of_prompt(
        self, prompt_key: str, *, through_fragments: bool = True
    ) -> list[tuple[TemplateInfo, Placeholder]]:
        self._depends("fragments")
        self._reads.entry("prompts", prompt_key)
        return self._templates.placeholders_of_prompt(
            prompt_key, through_fragments=through_fragments
        )

    def fragments_included_by(self, prompt_key: str) -> list[str]:
        self._depends("fragments")
        self._reads.entry("prompts", prompt_key)
        return self._templates.fragments_included_by(prompt_key)

    def variables_used_by(self, prompt_key: str) -> set[str]:
        self._depends("fragments")
        self._reads.entry("prompts", prompt_key)
        return self._templates.variables_used_by(prompt_key)

    def fragment_uses(self, name: str) -> list[tuple[TemplateInfo, Placeholder]]:
        self._depends("prompts", "fragments")
        return self._templates.fragment_uses(name)

    def __getattr__(self, name: str) -> Any:
        self._reads.volatile = True
        return getattr(self._templates, name)
