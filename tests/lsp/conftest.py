"""End-to-end fixtures: the real ``pack-lsp`` process driven by pytest-lsp.

Every test using ``client`` runs twice: with a Visual Studio Code profile (UTF-16
positions) and with a Neovim profile that negotiates UTF-8.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsp_helpers import PROFILES, initialize_params, server_config
from pytest_lsp import LanguageClient


@pytest_lsp.fixture(config=server_config())
async def client(
    lsp_client: LanguageClient, request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[LanguageClient]:
    await lsp_client.initialize_session(initialize_params(request.param, tmp_path))
    yield lsp_client
    await lsp_client.shutdown_session()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "client" in metafunc.fixturenames:
        metafunc.parametrize("client", PROFILES, indirect=True)
