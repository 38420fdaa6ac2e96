"""Shared pytest configuration.

Test helper modules (paths, golden_support, ...) import by plain name (see
``pythonpath`` in pyproject.toml).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from pack_lsp.core.syntax import reuse

EDITOR_TESTS = Path(__file__).parent / "lsp"

# Every test runs with incremental analysis verified: each result reused across an
# edit is computed again and compared, and a difference fails the test
# (``reuse.ReuseMismatch``). Set here, at import, so that the language servers the
# editor tests start (subprocesses, which inherit the environment) verify too.
os.environ[reuse.ENV] = reuse.VERIFY


@pytest.fixture
def incremental_mode(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The reuse mode of the test (``verify``); ``monkeypatch.setenv(reuse.ENV, ...)``
    in a test switches to another."""
    monkeypatch.setenv(reuse.ENV, reuse.VERIFY)
    yield reuse.VERIFY


def _drives_the_server(item: pytest.Item) -> bool:
    module = getattr(item, "module", None)
    return EDITOR_TESTS in item.path.parents or hasattr(module, "pytest_lsp")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``editor`` the tests that run the server under a real LSP client: those in
    tests/lsp and any other module built on pytest-lsp."""
    for item in items:
        if _drives_the_server(item):
            item.add_marker(pytest.mark.editor)
