"""PP6xx — other pack rules: prompt ids, eval ids, skill paths, and the parameters of
validators and evals that PromptKit checks when it loads a pack (promptkit profile)."""

from __future__ import annotations

import os.path
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from pack_lsp.core.base import versions
from pack_lsp.core.base.diagnostics import Diagnostic, FixKind, Related, Rule, Severity, make
from pack_lsp.core.base.example_pack import pack_example
from pack_lsp.core.base.fixes import ReplaceValue
from pack_lsp.core.base.problemdata import (
    DuplicateEvalId,
    DuplicatePromptId,
    PromptId,
    RefusedCheckParams,
    SkillNotFound,
    SkillOutside,
)
from pack_lsp.core.base.text import Span
from pack_lsp.core.model.config import Profile
from pack_lsp.core.model.context import CheckContext
from pack_lsp.core.model.pack import Eval, Located, Prompt
from pack_lsp.core.model.summary import PromptContext
from pack_lsp.core.syntax.yamltree import MappingNode, Node, ScalarNode, SequenceNode, deref

CATEGORY = "Pack"

PROMPT_ID_DIFFERS_FROM_KEY = Rule(
    "PP601",
    "prompt-id-differs-from-key",
    Severity.WARNING,
    "A prompt's `id` is not its key in `prompts`. Runtimes select prompts by key, "
    "so a different `id` is misleading.",
    pack_example(
        "prompts:\n"
        "  support:\n"
        "    id: customer_support     # the key is `support`\n"
        "    name: Support\n"
        "    version: 1.0.0\n"
        "    system_template: Help\n"
    ),
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
    pack_example(
        "prompts:\n"
        "  support: {id: support, name: Support, version: 1.0.0, system_template: Help}\n"
        "  support_v2: {id: support, name: Support, version: 2.0.0, system_template: Hi}\n"
    ),
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
    pack_example(
        "prompts:\n"
        "  support:\n"
        "    id: support\n"
        "    name: Support\n"
        "    version: 1.0.0\n"
        "    system_template: Help\n"
        "evals:\n"
        "  - {id: tone, type: contains, trigger: every_turn, params: {patterns: [than"
        "ks]}}\n"
        '  - {id: tone, type: regex, trigger: every_turn, params: {pattern: "^Hi"}}\n'
    ),
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
    pack_example(
        "prompts:\n"
        "  support:\n"
        "    id: support\n"
        "    name: Support\n"
        "    version: 1.0.0\n"
        "    system_template: Help\n"
        "skills:\n"
        "  - ./skills/billing       # there is no such directory\n"
    ),
    "Correct the path (relative to the directory of the pack file) or create the skill.",
    CATEGORY,
)

SKILL_PATH_OUTSIDE_PACK = Rule(
    "PP605",
    "skill-path-outside-pack",
    Severity.ERROR,
    "A skill path leaves the pack's directory (an absolute path, `~`, or `..` going "
    "above it). A pack must be self-contained; pack-lsp does not look at such a path.",
    pack_example(
        "prompts:\n"
        "  support:\n"
        "    id: support\n"
        "    name: Support\n"
        "    version: 1.0.0\n"
        "    system_template: Help\n"
        "skills:\n"
        "  - ../../etc/secrets\n"
    ),
    "Move the skill into the pack's directory and use a relative path.",
    CATEGORY,
)

REFUSED_CHECK_PARAMS = Rule(
    "PP606",
    "refused-check-params",
    Severity.ERROR,
    "Profile `promptkit` only: a validator (guardrail) or eval whose type PromptKit "
    "checks the parameters of, without a usable value, often because the parameter's "
    "name is misspelled. The schema takes any `params`; PromptKit's own check runs "
    "when the pack is loaded: `max_length` (and its alias `length`) needs a positive "
    "whole number in `max`, `max_characters` or `max_chars`; `min_length` in `min`, "
    "`min_characters` or `min_chars`; `guardrail_triggered` a non-empty "
    "`validator_type` (or `validator`), and a `direction` of input, output or both "
    "(from PromptKit 1.5.8); `workflow_state_is` and (from 1.5.11) "
    "`workflow_spoke_in_state` a non-empty `state`. PromptKit's pack check "
    "(`ValidatePack`) and PromptArena refuse such a pack; `sdk.Open` drops the "
    "validator with a warning, so replies go unchecked. Validators with "
    "`enabled: false` are not checked, as PromptKit skips them.",
    pack_example(
        "prompts:\n"
        "  support:\n"
        "    id: support\n"
        "    name: Support\n"
        "    version: 1.0.0\n"
        "    system_template: Help\n"
        "    validators:\n"
        "      - {type: max_length, enabled: true, params: {max_lenght: 500}}\n"
    ),
    "Name the parameter as the list says (`max: 500`).",
    CATEGORY,
    example_config='profile = "promptkit"\n',
)

RULES = (
    PROMPT_ID_DIFFERS_FROM_KEY,
    DUPLICATE_PROMPT_ID,
    DUPLICATE_EVAL_ID,
    SKILL_PATH_NOT_FOUND,
    SKILL_PATH_OUTSIDE_PACK,
    REFUSED_CHECK_PARAMS,
)


def _check_prompt_id(prompt: Prompt) -> Iterator[Diagnostic]:
    key, pid = prompt.key, prompt.id
    if pid is not None and pid.value != key:
        yield make(
            PROMPT_ID_DIFFERS_FROM_KEY,
            f"Prompt `{key}` has `id: {pid.value}`; the id should be the key `{key}`",
            pid.span,
            data=PromptId(expected=key),
            fixes=(ReplaceValue(pid.span, key),),
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
            data=DuplicatePromptId(id=pid.value, other=earlier[0]),
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
            data=DuplicateEvalId(id=ev.id.value),
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
                data=SkillOutside(path=value),
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
                data=SkillNotFound(path=value),
            )


# ------------------------------------------------------- parameters PromptKit checks
#
# PromptKit (runtime/evals) normalises a check's params, then asks the handler of its
# type to validate them (`ParamValidator`); only the handlers below implement it. The
# lookups read the first of several names, each a whole number above 0 (a float is
# truncated, as Go's `int(x)`).

_MAX_KEYS = ("max", "max_characters", "max_chars")
_MIN_KEYS = ("min", "min_characters", "min_chars")
_DIRECTIONS = ("input", "output", "both")


def _whole(params: dict[str, object], names: tuple[str, ...]) -> bool:
    for name in names:
        value = params.get(name)
        if isinstance(value, int | float) and not isinstance(value, bool) and int(value) > 0:
            return True
    return False


def _text(params: dict[str, object], name: str) -> bool:
    value = params.get(name)
    return isinstance(value, str) and value != ""


def _refusal(kind: str, params: dict[str, object], release: str) -> str | None:
    """Why PromptKit ``release`` refuses ``params`` for a check of type ``kind``."""
    if kind in ("max_length", "length"):
        if not _whole(params, _MAX_KEYS):
            return "needs `max` (or `max_characters`, `max_chars`): a whole number above 0"
    elif kind == "min_length":
        if not _whole(params, _MIN_KEYS):
            return "needs `min` (or `min_characters`, `min_chars`): a whole number above 0"
    elif kind == "guardrail_triggered":
        if not (_text(params, "validator_type") or _text(params, "validator")):
            return "needs `validator_type` (or `validator`): the name of a validator type"
        direction = params.get("direction")
        checked = direction is not None and versions.key(release) >= (1, 5, 8)
        if checked and (not isinstance(direction, str) or direction not in ("", *_DIRECTIONS)):
            return "takes a `direction` of `input`, `output` or `both`"
    elif kind == "workflow_state_is" or (
        kind == "workflow_spoke_in_state" and versions.key(release) >= (1, 5, 11)
    ):
        return None if _text(params, "state") else "needs `state`: the name of a workflow state"
    return None


def _plain(node: Node | None) -> dict[str, object] | None:
    """A params mapping as plain scalars (a nested value stands as its node)."""
    node = deref(node)
    if node is None:
        return {}
    if not isinstance(node, MappingNode):
        return None
    out: dict[str, object] = {}
    for key, pair in node.items():
        value = deref(pair.value)
        out[key] = value.value if isinstance(value, ScalarNode) else value
    return out


def _checks(node: Node | None) -> Iterator[MappingNode]:
    seq = deref(node)
    if isinstance(seq, SequenceNode):
        for value in seq.values():
            item = deref(value)
            if isinstance(item, MappingNode):
                yield item


def _refused_params(
    items: Iterable[MappingNode], what: str, where: str, release: str
) -> Iterator[Diagnostic]:
    for item in items:
        kind_node = deref(item.get("type"))
        if not isinstance(kind_node, ScalarNode) or not isinstance(kind_node.value, str):
            continue
        enabled = deref(item.get("enabled"))
        if what == "validator" and isinstance(enabled, ScalarNode) and enabled.value is False:
            continue
        params_pair = item.pair("params")
        params = _plain(params_pair.value if params_pair is not None else None)
        if params is None:
            continue  # not a mapping: the schema reports it
        reason = _refusal(kind_node.value, params, release)
        if reason is None:
            continue
        span: Span = params_pair.key.span if params_pair is not None else kind_node.span
        written = ", ".join(f"`{k}`" for k in params) or "none"
        yield make(
            REFUSED_CHECK_PARAMS,
            f"PromptKit refuses this {what} of {where}: `{kind_node.value}` {reason} "
            f"(params given: {written})",
            span,
            data=RefusedCheckParams(type=kind_node.value, check=what),
        )


def _prompt_node(ctx: CheckContext, key: str) -> MappingNode | None:
    root = deref(ctx.root)
    prompts = deref(root.get("prompts")) if isinstance(root, MappingNode) else None
    node = deref(prompts.get(key)) if isinstance(prompts, MappingNode) else None
    return node if isinstance(node, MappingNode) else None


def _check_prompt_params(ctx: CheckContext) -> Iterator[Diagnostic]:
    """The parameters of each prompt's validators and evals (promptkit profile). Read
    from the tree, so this is a pack-wide part: a per-prompt check sees no tree."""
    if ctx.config.profile is not Profile.PROMPTKIT:
        return
    release = ctx.config.promptkit_version
    for key in ctx.pack.prompts:
        node = _prompt_node(ctx, key)
        if node is None:
            continue
        where = f"prompt `{key}`"
        yield from _refused_params(_checks(node.get("validators")), "validator", where, release)
        yield from _refused_params(_checks(node.get("evals")), "eval", where, release)


def _check_pack_params(ctx: CheckContext) -> Iterator[Diagnostic]:
    # The profile first: reading the tree makes the pack-wide part rerun on every edit.
    if ctx.config.profile is not Profile.PROMPTKIT:
        return
    root = deref(ctx.root)
    if not isinstance(root, MappingNode):
        return
    yield from _refused_params(
        _checks(root.get("evals")), "eval", "the pack", ctx.config.promptkit_version
    )


def check_prompt(ctx: PromptContext, prompt: Prompt) -> Iterable[Diagnostic]:
    yield from _check_prompt_id(prompt)
    yield from _duplicate_evals(prompt.evals, f"the `evals` of prompt `{prompt.key}`")


def check(ctx: CheckContext) -> Iterable[Diagnostic]:
    yield from _duplicate_prompt_ids(ctx)
    yield from _duplicate_evals(ctx.pack.evals, "the pack's `evals`")
    yield from _check_skills(ctx)
    yield from _check_pack_params(ctx)
    yield from _check_prompt_params(ctx)
