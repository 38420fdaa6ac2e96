"""PP6xx — other pack rules: prompt ids, eval ids, skill paths."""

from __future__ import annotations

import os.path
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from pack_lsp.core.context import CheckContext
from pack_lsp.core.diagnostics import Diagnostic, FixKind, Related, Rule, Severity, make
from pack_lsp.core.model import Eval, Located, Prompt
from pack_lsp.core.summary import PromptContext

CATEGORY = "Pack"

PROMPT_ID_DIFFERS_FROM_KEY = Rule(
    "PP601",
    "prompt-id-differs-from-key",
    Severity.WARNING,
    "A prompt's `id` is not its key in `prompts`. Runtimes select prompts by key, "
    "so a different `id` is misleading.",
    "prompts:\n  support:\n    id: customer_support     # the key is `support`",
    "Make the `id` equal to the key (a quick fix does it).",
    CATEGORY,
    fixes=(FixKind.REPLACE_VALUE,),
)

DUPLICATE_PROMPT_ID = Rule(
    "PP602",
    "duplicate-prompt-id",
    Severity.ERROR,
    "Two prompts have the same `id`. Reported on the later one, with the other as a "
    "related location.",
    "prompts:\n  support: {id: support, ...}\n  support_v2: {id: support, ...}",
    "Give each prompt its own `id` (its key).",
    CATEGORY,
)

DUPLICATE_EVAL_ID = Rule(
    "PP603",
    "duplicate-eval-id",
    Severity.ERROR,
    "Two evals of the same list (the pack's `evals`, or one prompt's `evals`) have the "
    "same `id`. A prompt-level eval may reuse a pack-level id on purpose: it overrides "
    "it.",
    "evals:\n  - {id: tone, type: llm_judge, trigger: every_turn}\n"
    "  - {id: tone, type: regex, trigger: every_turn}",
    "Rename one of the evals, or remove the duplicate.",
    CATEGORY,
)

SKILL_PATH_NOT_FOUND = Rule(
    "PP604",
    "skill-path-not-found",
    Severity.WARNING,
    "A skill path does not exist relative to the pack file. Package references "
    "(`@scope/name`) and URLs are not checked; nothing is checked for a document that "
    "is not saved as a file.",
    "skills:\n  - ./skills/bilings       # the directory is ./skills/billing",
    "Correct the path (relative to the directory of the pack file) or create the skill.",
    CATEGORY,
)

SKILL_PATH_OUTSIDE_PACK = Rule(
    "PP605",
    "skill-path-outside-pack",
    Severity.ERROR,
    "A skill path leaves the pack's directory (an absolute path, `~`, or `..` going "
    "above it). A pack must be self-contained; pack-lsp does not look at such a path.",
    "skills:\n  - ../../etc/secrets",
    "Move the skill into the pack's directory and use a relative path.",
    CATEGORY,
)

RULES = (
    PROMPT_ID_DIFFERS_FROM_KEY,
    DUPLICATE_PROMPT_ID,
    DUPLICATE_EVAL_ID,
    SKILL_PATH_NOT_FOUND,
    SKILL_PATH_OUTSIDE_PACK,
)


def _check_prompt_id(prompt: Prompt) -> Iterator[Diagnostic]:
    key, pid = prompt.key, prompt.id
    if pid is not None and pid.value != key:
        yield make(
            PROMPT_ID_DIFFERS_FROM_KEY,
            f"Prompt `{key}` has `id: {pid.value}`; the id should be the key `{key}`",
            pid.span,
            data={"kind": "prompt-id", "expected": key},
        )


def _duplicate_prompt_ids(ctx: CheckContext) -> Iterator[Diagnostic]:
    first: dict[str, tuple[str, Located]] = {}
    for key, prompt in ctx.pack.prompts.items():
        pid = prompt.id
        if pid is None:
            continue
        earlier = first.get(pid.value)
        if earlier is None:
            first[pid.value] = (key, pid)
            continue
        yield make(
            DUPLICATE_PROMPT_ID,
            f"Prompt `{key}` has the id `{pid.value}` that prompt `{earlier[0]}` already has",
            pid.span,
            related=[Related(earlier[1].span, f"prompt `{earlier[0]}` has this id")],
            data={"kind": "duplicate-prompt-id", "id": pid.value, "other": earlier[0]},
        )


def _duplicate_evals(evals: list[Eval], scope: str) -> Iterator[Diagnostic]:
    first: dict[str, Located] = {}
    for ev in evals:
        if ev.id is None:
            continue
        earlier = first.get(ev.id.value)
        if earlier is None:
            first[ev.id.value] = ev.id
            continue
        yield make(
            DUPLICATE_EVAL_ID,
            f"Eval id `{ev.id.value}` is already used earlier in {scope}",
            ev.id.span,
            related=[Related(earlier.span, f"`{ev.id.value}` is first used here")],
            data={"kind": "duplicate-eval-id", "id": ev.id.value},
        )


_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def _skill_paths(ctx: CheckContext) -> Iterator[Located]:
    for skill in ctx.pack.skills:
        if skill.path is not None and isinstance(skill.path.value, str):
            yield skill.path


def _outside(relative: str) -> bool:
    """Whether ``relative`` leaves the directory it is relative to (lexically)."""
    if relative.startswith("~") or os.path.isabs(relative):
        return True
    if re.match(r"^[A-Za-z]:[\\/]", relative):  # a Windows drive
        return True
    normal = os.path.normpath(relative.replace("\\", "/"))
    return normal == ".." or normal.startswith("../")


def _check_skills(ctx: CheckContext) -> Iterator[Diagnostic]:
    for path in _skill_paths(ctx):
        value = path.value.strip()
        if not value or value.startswith("@") or _SCHEME.match(value):
            continue
        if _outside(value):
            yield make(
                SKILL_PATH_OUTSIDE_PACK,
                f"Skill path `{value}` is outside the pack's directory",
                path.span,
                data={"kind": "skill-outside", "path": value},
            )
            continue
        if ctx.path is None:
            continue
        base = Path(ctx.path).parent
        try:
            found = (base / value).exists()
            reason = "does not exist"
        except (OSError, ValueError) as exc:  # a name too long, a NUL byte...
            found = False
            reason = f"cannot exist ({getattr(exc, 'strerror', None) or exc})"
        if not found:
            yield make(
                SKILL_PATH_NOT_FOUND,
                f"Skill path `{value}` {reason} (relative to {base.name or base}/)",
                path.span,
                data={"kind": "skill-not-found", "path": value},
            )


def check_prompt(ctx: PromptContext, prompt: Prompt) -> Iterable[Diagnostic]:
    yield from _check_prompt_id(prompt)
    yield from _duplicate_evals(prompt.evals, f"the `evals` of prompt `{prompt.key}`")


def check(ctx: CheckContext) -> Iterable[Diagnostic]:
    yield from _duplicate_prompt_ids(ctx)
    yield from _duplicate_evals(ctx.pack.evals, "the pack's `evals`")
    yield from _check_skills(ctx)
