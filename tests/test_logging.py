"""What the server and the core log: a failing quick fix, and each analysis's timings
at debug level."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from pack_lsp.core.base.fixes import FixData
from pack_lsp.core.checks import analysis as analysis_module
from pack_lsp.core.checks.analysis import analyze
from pack_lsp.core.ide import codeactions
from pack_lsp.core.model.config import Config
from pack_lsp.server.app import create_server

PACK = """\
id: p
name: P
version: 1.0.0
template_engine: {version: v1, syntax: "{{variable}}"}
prompts:
  a:
    id: a
    name: A
    version: 1.0.0
    system_template: Hello.
    tools: [serch]
tools:
  search: {name: search, description: Searches.}
"""


def test_a_failing_fix_is_logged_and_the_others_are_still_offered(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    analysis = analyze(PACK, kind="promptpack")
    (diag,) = [d for d in analysis.diagnostics if d.fixes]
    assert codeactions.quick_fixes(analysis, diag)  # a did-you-mean fix

    def failing(analysis: analysis_module.Analysis, diag: object, fix: FixData) -> object:
        raise IndexError("a defect of the fix")

    monkeypatch.setattr(codeactions, "_handle", failing)
    with caplog.at_level(logging.WARNING, logger=codeactions.__name__):
        assert codeactions.quick_fixes(analysis, diag) == []
    assert len(caplog.records) == len(diag.fixes)  # one line per failing fix
    for record, payload in zip(caplog.records, diag.fixes, strict=True):
        assert f"the {payload.kind} fix of {diag.code}" in record.getMessage()
        assert record.exc_info is not None and "a defect of the fix" in caplog.text


def test_each_analysis_logs_its_timings_at_debug_level(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    server = create_server()
    uri = (tmp_path / "p.promptpack.yaml").as_uri()
    with caplog.at_level(logging.DEBUG, logger="pack_lsp.server.scheduling"):
        result, _ = server._timed_analyze(uri, PACK, None, Config())
    assert result is not None
    (record,) = [r for r in caplog.records if r.getMessage().startswith("analysed ")]
    message = record.getMessage()
    assert uri in message and record.levelno == logging.DEBUG
    for stage in ("parse", "model", "schema", "rules", "finish"):
        assert f"{stage} " in message and stage in result.timings
    assert "rules-reused 0," in message  # a count, not a time
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="pack_lsp.server.scheduling"):
        server._timed_analyze(uri, PACK, None, Config())
    assert caplog.records == []  # nothing above debug level
