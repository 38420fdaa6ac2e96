"""The list of rule modules and the table of every declared rule, by code.

Only the layers above the rules (analysis, suppressions, configuration checks, the
CLI and docs) need the whole table; building a diagnostic never does (see
``diagnostics.make``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType, ModuleType

from pack_lsp.core.base.diagnostics import Diagnostic, Rule
from pack_lsp.core.base.problems import arena_documents, document, schema, suppressions
from pack_lsp.core.base.suggest import hint_for, suggestions
from pack_lsp.core.checks.rules import (
    agents,
    arena_project,
    cards,
    compositions,
    governance,
    kubernetes,
    manifest,
    pack,
    providers,
    targets,
    templates,
    tools,
    workflow,
    yaml11,
)
from pack_lsp.core.model.config import Config, invalid_configuration
from pack_lsp.core.model.context import CheckContext
from pack_lsp.core.model.pack import Prompt
from pack_lsp.core.model.summary import PromptContext

RULE_MODULES: tuple[ModuleType, ...] = (
    document,
    schema,
    agents,
    tools,
    pack,
    cards,
    suppressions,
    workflow,
    compositions,
    providers,
    governance,
    templates,
    manifest,
    kubernetes,
    arena_project,
    arena_documents,
    yaml11,
    targets,
)


def _table(modules: Iterable[ModuleType]) -> dict[str, Rule]:
    table: dict[str, Rule] = {}
    for module in modules:
        for rule in module.RULES:
            if rule.code in table:
                raise ValueError(f"diagnostic code {rule.code} declared twice")
            table[rule.code] = rule
    return table


REGISTRY: Mapping[str, Rule] = MappingProxyType(_table(RULE_MODULES))
"""Every rule by code, read-only."""


def rule(code: str) -> Rule:
    """The rule declared for ``code`` (``KeyError`` for an unknown code)."""
    return REGISTRY[code]


_SELECTORS = frozenset(code[:n] for code in REGISTRY for n in range(1, len(code) + 1))
"""Every code and every prefix of a code: what selects at least one rule."""
RETIRED: frozenset[str] = frozenset(
    code for module in RULE_MODULES for code in getattr(module, "RETIRED", ())
)
"""Codes of rules that were removed (a family module's ``RETIRED``): a configuration
that still names one is valid, it selects nothing."""
_PREFIXES = [f"`{letters}`" for letters in sorted({code[:2] for code in REGISTRY})]
_FAMILIES = (
    ", ".join(_PREFIXES[:-1]) + " or " + _PREFIXES[-1] if len(_PREFIXES) > 1 else _PREFIXES[0]
)


def unknown_selector(selector: str) -> str | None:
    """What is wrong with ``selector``, or None when it selects at least one rule.

    A selector is a code (``PP301``), a prefix of codes (``PP3``, ``PP30``) or
    ``ALL``, in any case. This is the one test of the codes a user gives: the
    command-line options and the configuration (files and editor settings) both use
    it. The message names the closest selectors of the same length
    (``PP3O1`` → ``PP301``), or says how codes begin when none is close.
    """
    wanted = selector.strip().upper()
    if not wanted:
        return "an empty code"
    if wanted == "ALL" or wanted in _SELECTORS or wanted in RETIRED:
        return None
    same_length = sorted(s for s in (*_SELECTORS, "ALL") if len(s) == len(wanted))
    close = suggestions(wanted, same_length)
    hint = hint_for(close).removeprefix("; ") if close else f"codes begin with {_FAMILIES}"
    return f"unknown code `{selector.strip()}` ({hint})"


def code_problems(config: Config) -> list[str]:
    """``key: problem`` for each code of ``config``'s ``select``, ``ignore`` and
    ``severity`` that selects no rule (see ``unknown_selector``)."""
    keyed = (
        ("select", config.select or ()),
        ("ignore", config.ignore),
        ("severity", tuple(config.severity)),
    )
    return [
        f"{key}: {problem}"
        for key, selectors in keyed
        for selector in selectors
        if (problem := unknown_selector(selector)) is not None
    ]


def check_codes(config: Config) -> Config:
    """``config`` when every code it names selects a rule; otherwise ``ConfigError``
    naming its file, the key and each unknown code.

    Not part of ``Config``'s own validation: the configuration sits below the rules,
    which declare the codes. The command line and the server call this on every
    configuration they load, so that a typo'd code is reported instead of silently
    turning rules off.
    """
    problems = code_problems(config)
    if problems:
        raise invalid_configuration(config.source, "; ".join(problems))
    return config


Check = Callable[[CheckContext], Iterable[Diagnostic]]
PromptCheck = Callable[[PromptContext, Prompt], Iterable[Diagnostic]]


@dataclass(frozen=True, slots=True)
class ModuleChecks:
    """The semantic checks of one rule module.

    ``check`` is its pack-wide part (run once per analysis, with a context that
    records what it reads: ``core.recording``), ``check_prompt`` its per-prompt part
    (run once per prompt with the prompt and a ``summary.PromptContext``, which holds
    all it may read outside the prompt). Incremental analysis reuses a per-prompt
    result while the prompt and the summary are unchanged, and a pack-wide result
    while what it read is (docs/decisions.md, D23 and D31).
    """

    name: str
    check: Check | None
    check_prompt: PromptCheck | None


def _checks(module: ModuleType) -> ModuleChecks | None:
    for declared in ("prompt_interface", "pack_interface"):
        if hasattr(module, declared):
            raise ValueError(
                f"{module.__name__} declares {declared}: what checks read is recorded, "
                f"not declared (see CONTRIBUTING.md, Adding a rule)"
            )
    check = getattr(module, "check", None)
    check_prompt = getattr(module, "check_prompt", None)
    if check is None and check_prompt is None:
        return None
    return ModuleChecks(module.__name__, check, check_prompt)


MODULE_CHECKS: tuple[ModuleChecks, ...] = tuple(
    found for found in map(_checks, RULE_MODULES) if found is not None
)
"""The checks of every rule module, in the order their results are listed."""

PROMPT_CHECKS: tuple[ModuleChecks, ...] = tuple(
    m for m in MODULE_CHECKS if m.check_prompt is not None
)
"""The modules with a per-prompt part (the order of ``context.PromptUnit``)."""

CHECKS: tuple[Check, ...] = tuple(m.check for m in MODULE_CHECKS if m.check is not None)
"""The pack-wide parts."""
