"""The workspace diagnostics (``server.workspace_problems``) without a client: what is
read and published when the ``workspaceDiagnostics`` setting is on, and that nothing
is when it is off."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from pack_lsp.core.model.config import Config
from pack_lsp.server import workspace_problems
from pack_lsp.server.workspace_problems import WorkspaceProblems, analyse_file
from recording_server import recording_server
from workspace_packs import workspace_pack


def _workspace(root: Path) -> Path:
    (root / "a").mkdir()
    (root / "a" / "good.promptpack.yaml").write_text(workspace_pack("g", "lookup"))
    (root / "a" / "bad.promptpack.yaml").write_text(workspace_pack("b", "missing"))
    (root / "a" / "other.yaml").write_text("service: s\n")
    return root


def _server(root: Path, on: bool) -> tuple[Any, list[tuple[str, dict[str, Any]]]]:
    server, _, _ = recording_server(root)
    sent: list[tuple[str, dict[str, Any]]] = []
    server.protocol.notify_json = lambda method, params: sent.append((method, params))
    server.workspace_diagnostics = on
    return server, sent


async def _scan_and_check(server: Any, root: Path) -> WorkspaceProblems:
    problems = server.workspace_index.problems
    assert isinstance(problems, WorkspaceProblems)
    server.workspace_index.start({str(root): Config()})
    problems.scanned()
    if problems.task is not None:
        await problems.task
    return problems


def test_on_every_pack_file_is_checked_once_and_pushed(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    server, sent = _server(root, on=True)

    async def run() -> WorkspaceProblems:
        return await _scan_and_check(server, root)

    problems = asyncio.run(run())
    by_uri = {params["uri"]: params for _, params in sent}
    bad = (root / "a" / "bad.promptpack.yaml").as_uri()
    good = (root / "a" / "good.promptpack.yaml").as_uri()
    assert set(by_uri) == {bad, good}  # other.yaml is no pack file
    assert [d["code"] for d in by_uri[bad]["diagnostics"]] == ["PP301", "PP307"]
    assert "version" not in by_uri[bad]  # not an open document's version
    assert set(problems.reports) == {bad, good}
    # Turned off: what was pushed is cleared, the results forgotten.
    sent.clear()
    server.workspace_diagnostics = False
    problems.settings_changed()
    assert sorted(p["uri"] for _, p in sent) == sorted([bad, good])
    assert all(p["diagnostics"] == [] for _, p in sent) and problems.reports == {}


def test_off_nothing_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _workspace(tmp_path)
    server, sent = _server(root, on=False)
    read: list[str] = []
    monkeypatch.setattr(
        workspace_problems, "analyse_file", lambda path, *_: read.append(path) or None
    )

    async def run() -> WorkspaceProblems:
        return await _scan_and_check(server, root)

    problems = asyncio.run(run())
    assert problems.task is None and read == [] and sent == []
    assert problems.reports == {}
    # The scan listed the files all the same (the manifests' index needs them).
    assert len(server.workspace_index.pack_files()) == 2


def test_a_file_over_the_size_limit_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _workspace(tmp_path)
    server, _ = _server(root, on=True)
    monkeypatch.setenv("PACK_LSP_MAX_FILE_SIZE", "100")
    path = str(root / "a" / "bad.promptpack.yaml")
    assert analyse_file(path, Config(), server) is None
    monkeypatch.delenv("PACK_LSP_MAX_FILE_SIZE")
    result = analyse_file(path, Config(), server)
    assert result is not None and [d.code for d in result.diagnostics] == ["PP301", "PP307"]


def test_a_pull_request_during_the_check_stops_any_push(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pull client's ``workspace/diagnostic`` arriving while a file is being analysed:
    nothing is pushed, then or later, and the answer holds every file."""
    root = _workspace(tmp_path)
    server, sent = _server(root, on=True)
    server.pull_diagnostics = True
    started, go = threading.Event(), threading.Event()
    real = workspace_problems.analyse_file

    def held(path: str, config: Config, srv: Any) -> Any:
        started.set()
        assert go.wait(30), "the test never let the check go on"
        return real(path, config, srv)

    monkeypatch.setattr(workspace_problems, "analyse_file", held)

    async def run() -> types.WorkspaceDiagnosticReport:
        problems = server.workspace_index.problems
        assert isinstance(problems, WorkspaceProblems)
        server.workspace_index.start({str(root): Config()})
        problems.scanned()
        loop = asyncio.get_running_loop()
        assert await loop.run_in_executor(None, started.wait, 30)  # a file in the check
        answer = asyncio.create_task(
            problems.report(types.WorkspaceDiagnosticParams(previous_result_ids=[]))
        )
        await asyncio.sleep(0)  # the request begins: it waits for the check
        assert problems.pulled and not answer.done()
        go.set()
        return await answer

    report = asyncio.run(run())
    assert sent == []
    assert {item.uri for item in report.items} == {
        (root / "a" / name).as_uri() for name in ("bad.promptpack.yaml", "good.promptpack.yaml")
    }


def test_a_pull_client_that_asks_late_has_the_pushes_cleared_first(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    server, sent = _server(root, on=True)
    server.pull_diagnostics = True

    async def run() -> tuple[WorkspaceProblems, types.WorkspaceDiagnosticReport]:
        problems = await _scan_and_check(server, root)
        assert problems.push_fallback and len(sent) == 2  # checked, not asked: pushed
        sent.clear()
        report = await problems.report(types.WorkspaceDiagnosticParams(previous_result_ids=[]))
        return problems, report

    problems, report = asyncio.run(run())
    assert all(params["diagnostics"] == [] for _, params in sent)
    assert sorted(params["uri"] for _, params in sent) == sorted(problems.reports)
    assert problems.pushed == set() and not problems.push_fallback
    assert sorted(item.uri for item in report.items) == sorted(problems.reports)
