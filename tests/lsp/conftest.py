"""End-to-end fixtures: the real ``pack-lsp`` process driven by pytest-lsp.

Every test using ``client`` runs twice: with a Visual Studio Code profile (UTF-16
positions) and with a Neovim profile that negotiates UTF-8.
"""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsp_helpers import PROFILES, initialize_params, server_config
from pytest_lsp import LanguageClient

from paths import NO_SHARED, SHARED

#: An arena project of the reference material (promptarena's workflow-agent-loops).
ARENA_CORPUS = SHARED / "corpus" / "arena" / "workflow-agent-loops"


@pytest_lsp.fixture(config=server_config())
async def client(
    lsp_client: LanguageClient, request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[LanguageClient]:
    await lsp_client.initialize_session(initialize_params(request.param, tmp_path))
    yield lsp_client
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=server_config(), params=PROFILES)
async def aclient(
    lsp_client: LanguageClient, request: pytest.FixtureRequest, workspace: Path
) -> AsyncIterator[LanguageClient]:
    """A client, in both profiles, whose root is the ``workspace`` its test module
    provides (a copy of an arena project)."""
    await lsp_client.initialize_session(initialize_params(request.param, workspace))
    yield lsp_client
    await lsp_client.shutdown_session()


@pytest.fixture
def corpus_workspace(tmp_path: Path) -> Path:
    """A copy of the reference material's arena project (skipped without it)."""
    if not ARENA_CORPUS.is_dir():
        pytest.skip(NO_SHARED)
    root = tmp_path / ARENA_CORPUS.name
    shutil.copytree(ARENA_CORPUS, root)
    return root


@pytest_lsp.fixture(config=server_config(), params=PROFILES)
async def corpus_client(
    lsp_client: LanguageClient, request: pytest.FixtureRequest, corpus_workspace: Path
) -> AsyncIterator[LanguageClient]:
    """A client, in both profiles, whose root is ``corpus_workspace``."""
    await lsp_client.initialize_session(initialize_params(request.param, corpus_workspace))
    yield lsp_client
    await lsp_client.shutdown_session()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "client" in metafunc.fixturenames:
        metafunc.parametrize("client", PROFILES, indirect=True)
