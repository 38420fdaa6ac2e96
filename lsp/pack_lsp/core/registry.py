"""The list of rule modules and the table of every declared rule, by code.

Only the layers above the rules (analysis, suppressions, configuration checks, the
CLI and docs) need the whole table; building a diagnostic never does (see
``diagnostics.make``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType, ModuleType

from pack_lsp.core.context import CheckContext
from pack_lsp.core.diagnostics import Diagnostic, Rule
from pack_lsp.core.rules import (
    agents,
    cards,
    compositions,
    document,
    governance,
    manifest,
    pack,
    providers,
    schema,
    suppressions,
    templates,
    tools,
    workflow,
)

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


Check = Callable[[CheckContext], Iterable[Diagnostic]]

CHECKS: tuple[Check, ...] = tuple(
    m.check for m in RULE_MODULES if callable(getattr(m, "check", None))
)
