"""Shared pytest configuration.

Test helper modules (paths, golden_support, ...) import by plain name (see
``pythonpath`` in pyproject.toml).
"""

from __future__ import annotations

from pathlib import Path

import pytest

EDITOR_TESTS = Path(__file__).parent / "lsp"


def _drives_the_server(item: pytest.Item) -> bool:
    module = getattr(item, "module", None)
    return EDITOR_TESTS in item.path.parents or hasattr(module, "pytest_lsp")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``editor`` the tests that run the server under a real LSP client: those in
    tests/lsp and any other module built on pytest-lsp."""
    for item in items:
        if _drives_the_server(item):
            item.add_marker(pytest.mark.editor)
