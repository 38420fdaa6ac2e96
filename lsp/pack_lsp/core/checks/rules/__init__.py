"""Diagnostic rules, one module per area.

Each module defines ``RULES`` (its documented codes). Modules with semantic checks
also define ``check(ctx) -> Iterable[Diagnostic]``; ``pack_lsp.core.checks.registry``
lists them all.
"""
