"""The workspace scan and the symbol index (``server.indexing``,
``core.ide.symbols.SymbolIndex``), without a client: the server is created as
``pack-lsp`` creates it and what it would send is recorded."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from pack_lsp.core.base import kinds
from pack_lsp.core.ide.symbols import SymbolIndex, matches
from pack_lsp.core.model.config import Config
from pack_lsp.core.model.discover import find_packs
from pack_lsp.server import indexing
from pack_lsp.server.workspace import scan_folders
from recording_server import recording_server

PACK = """\
id: {name}
name: {name}
version: 1.0.0
template_engine: {{version: v1, syntax: "{{{{variable}}}}"}}
prompts:
  {name}_support:
    id: {name}_support
    name: Support
    version: 1.0.0
    system_template: Help
    tools: [{name}_lookup]
tools:
  {name}_lookup:
    name: {name}_lookup
    description: Look something up
"""

MANIFEST = "id: acme.{name}\nentrypoint: main.py\n"


def _workspace(root: Path, packs: int = 30) -> Path:
    for n in range(packs):
        folder = root / f"d{n % 3}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"p{n}.promptpack.yaml").write_text(PACK.format(name=f"pack{n}"), "utf-8")
        (folder / f"c{n}.yaml").write_text(f"service: s{n}\nreplicas: 2\n", "utf-8")
    (root / "ext").mkdir()
    (root / "ext" / "manifest.yaml").write_text(MANIFEST.format(name="tools"), "utf-8")
    return root


def test_the_index_finds_what_a_walk_of_every_symbol_finds(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    index = SymbolIndex()
    seen: list[tuple[int, int]] = []
    # The packs and the manifest (a pack file to a directory scan, without symbols).
    assert index.scan([root], lambda done, total: seen.append((done, total))) == 31
    assert seen[-1] == (31, 31) and len(seen) == 31
    everything = [s for syms in index._paths.values() for s in syms]
    for query in ("", "pack1", "P1S", "lookup", "ck2_sup", "zz"):
        expected = [s.name for s in everything if matches(query, s.name)][:500]
        assert [s.name for s in index.search(query)] == expected
    exact = [s.path.name for s in index.search("pack7_lookup") if s.name == "pack7_lookup"]
    assert exact == ["p7.promptpack.yaml"]


def test_the_index_follows_file_changes_and_open_documents(tmp_path: Path) -> None:
    root = _workspace(tmp_path, packs=3)
    index = SymbolIndex()
    index.scan([root])
    changed = root / "d1" / "p1.promptpack.yaml"
    changed.write_text(PACK.format(name="renamed"), encoding="utf-8")
    removed = root / "d2" / "p2.promptpack.yaml"
    removed.unlink()
    index.update([changed], [removed])
    names = {s.name for s in index.search("")}
    assert "renamed_support" in names
    assert not {"pack1_support", "pack2_support"} & names
    # An open document's symbols replace those of its file on disk.
    opened = root / "d0" / "p0.promptpack.yaml"
    assert [s.name for s in index.search("pack0_sup")] == ["pack0_support"]
    edited = {opened: [*index.search("renamed_support")]}
    assert [s.name for s in index.search("pack0_sup", edited)] == []


class _Progress:
    """Stands in for pygls's work-done progress: records what would be sent."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, Any]] = []

    async def create_async(self, token: str) -> None:
        self.sent.append(("create", token))

    def begin(self, token: str, value: types.WorkDoneProgressBegin) -> None:
        self.sent.append(("begin", value))

    def report(self, token: str, value: types.WorkDoneProgressReport) -> None:
        self.sent.append(("report", value))

    def end(self, token: str, value: types.WorkDoneProgressEnd) -> None:
        self.sent.append(("end", value))


def test_the_scan_indexes_the_workspace_with_progress(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _workspace(tmp_path)
    server, _, _ = recording_server(root)
    progress = _Progress()
    server.protocol.client_capabilities = types.ClientCapabilities(  # type: ignore[attr-defined]
        window=types.WindowClientCapabilities(work_done_progress=True)
    )
    monkeypatch.setattr(type(server), "work_done_progress", property(lambda self: progress))

    async def scan() -> None:
        indexing.start(server)
        scan = indexing.scan_of(server)
        # Manifests and arena documents wait from now on.
        assert server.workspace_index.scanning
        assert scan.session is not None
        await scan.session
        assert not server.workspace_index.scanning
        assert not scan.symbols.ready  # built by the first search
        task = indexing.symbols_index(server)
        assert task is not None
        await task
        assert indexing.symbols_index(server) is None  # current: no new scan

    asyncio.run(scan())
    scan = indexing.scan_of(server)
    assert scan.symbols.ready and len(scan.symbols.search("support")) == 30
    kinds_sent = [kind for kind, _ in progress.sent]
    assert kinds_sent.count("begin") == 2 and kinds_sent[-1] == "end"
    assert progress.sent[-1][1].message == "31 files indexed"
    assert any(kind == "report" and "/ 31 files" in v.message for kind, v in progress.sent)
    # The session's scan looked at every file (30 packs, 30 other YAML files, the
    # manifest) and reported it.
    reports = [v.message for kind, v in progress.sent if kind == "report"]
    assert "Indexing 61 / 61 files" in reports
    ends = [v.message for kind, v in progress.sent if kind == "end"]
    assert ends[0] == "31 pack files found"
    assert len(server.workspace_index.pack_files()) == 31
    # The manifests' index of the folder is the scan's.
    manifests = server.manifests
    index = manifests.workspaces.index_for(str(root / "ext" / "manifest.yaml"))
    assert index.defining("acme.tools")


def test_a_manifest_waits_for_the_scan_and_a_pack_does_not(tmp_path: Path) -> None:
    server, _, _ = recording_server(tmp_path)
    workspace = server.workspace_index
    workspace.begin({str(tmp_path): Config()})  # a scan runs
    done: list[str] = []

    def analyse(kind: str) -> None:
        workspace.wait_ready(kind)
        done.append(kind)

    manifest = threading.Thread(target=analyse, args=(kinds.MANIFEST,))
    manifest.start()
    analyse(kinds.PROMPTPACK)  # returns at once
    assert done == [kinds.PROMPTPACK]
    workspace.install([])
    manifest.join(10)
    assert done == [kinds.PROMPTPACK, kinds.MANIFEST]


def test_the_scan_steps_aside_while_an_analysis_runs(tmp_path: Path) -> None:
    _workspace(tmp_path, packs=3)
    server, _, _ = recording_server(tmp_path)
    workspace = server.workspace_index
    busy_after_step: list[int] = []

    def step_aside() -> None:
        workspace.step_aside(time.monotonic() + 60)
        busy_after_step.append(workspace._busy)

    scanning = threading.Thread(
        target=scan_folders, args=({str(tmp_path): Config()},), kwargs={"step_aside": step_aside}
    )
    with workspace.analysing():
        scanning.start()
        assert workspace._busy == 1
    scanning.join(60)
    # A file is looked at only when no analysis runs: 3 packs, 3 other files, the manifest.
    assert busy_after_step == [0] * 7


def test_the_scan_finds_what_the_directory_check_finds(tmp_path: Path) -> None:
    root = _workspace(tmp_path, packs=6)
    (root / "node_modules").mkdir()
    (root / "node_modules" / "x.promptpack.yaml").write_text("id: x\n", "utf-8")
    (root / "skip").mkdir()
    (root / "skip" / "y.promptpack.yaml").write_text("id: y\n", "utf-8")
    config = Config().merged({"exclude": ["skip"]})
    [found] = scan_folders({str(root): config})
    assert list(found.packs) == list(find_packs(root, config.exclude))
    assert found.manifests is not None and found.manifests.defining("acme.tools")
    assert found.arena_configs == () and found.failures == ()
