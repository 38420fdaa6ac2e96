"""The list of rule modules. Importing this fills ``diagnostics.REGISTRY``."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from types import ModuleType

from pack_lsp.core.context import CheckContext
from pack_lsp.core.diagnostics import Diagnostic, register
from pack_lsp.core.rules import (
    agents,
    cards,
    compositions,
    document,
    governance,
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
)

for _module in RULE_MODULES:
    register(_module.RULES)

Check = Callable[[CheckContext], Iterable[Diagnostic]]

CHECKS: tuple[Check, ...] = tuple(
    m.check for m in RULE_MODULES if callable(getattr(m, "check", None))
)
