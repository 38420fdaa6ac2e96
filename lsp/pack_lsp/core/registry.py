"""The list of rule modules and the table of every declared rule, by code.

Only the layers above the rules (analysis, suppressions, configuration checks, the
CLI and docs) need the whole table; building a diagnostic never does (see
``diagnostics.make``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType, ModuleType

from pack_lsp.core.config import Config, invalid_configuration
from pack_lsp.core.context import CheckContext
from pack_lsp.core.diagnostics import Diagnostic, Rule
from pack_lsp.core.model import Prompt
from pack_lsp.core.rules import (
    agents,
    cards,
    compositions,
    document,
    governance,
    kubernetes,
    manifest,
    pack,
    providers,
    schema,
    suppressions,
    templates,
    tools,
    workflow,
)
from pack_lsp.core.suggest import hint_for, suggestions

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
    if wanted == "ALL" or wanted in _SELECTORS:
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
PromptCheck = Callable[[CheckContext, Prompt], Iterable[Diagnostic]]
Interface = Callable[[CheckContext], object]


@dataclass(frozen=True, slots=True)
class ModuleChecks:
    """The semantic checks of one rule module.

    ``check`` is its pack-wide part (run once per analysis), ``check_prompt`` its
    per-prompt part (run once per prompt; incremental analysis reuses its results
    for prompts an edit did not touch) and ``interface`` the fingerprint of what
    ``check_prompt`` reads outside the prompt it is given: the results of an
    unchanged prompt are reused only while that fingerprint is unchanged too.
    ``pack_interface``, when a module declares it, is the fingerprint of everything
    ``check`` reads: while it is unchanged, the pack-wide results are reused too.
    """

    name: str
    check: Check | None
    check_prompt: PromptCheck | None
    interface: Interface | None
    pack_interface: Interface | None = None


def _checks(module: ModuleType) -> ModuleChecks | None:
    check = getattr(module, "check", None)
    check_prompt = getattr(module, "check_prompt", None)
    interface = getattr(module, "prompt_interface", None)
    if check_prompt is not None and interface is None:
        raise ValueError(f"{module.__name__} has check_prompt but no prompt_interface")
    if check is None and check_prompt is None:
        return None
    pack_interface = getattr(module, "pack_interface", None)
    if pack_interface is not None and check is None:
        raise ValueError(f"{module.__name__} has pack_interface but no check")
    return ModuleChecks(module.__name__, check, check_prompt, interface, pack_interface)


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
