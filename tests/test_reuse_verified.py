"""Reuse verified by the machine: checks that read something new stay correct
without declaring it, the verify mode fails loudly on a wrong reuse, and the kill
switch turns reuse off.

The whole suite runs with ``PACK_LSP_INCREMENTAL=verify`` (``conftest.py``), so every
``reanalyze`` here also recomputes what it reused and compares.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from types import ModuleType

import pytest

from pack_lsp.core.base.diagnostics import Diagnostic, make
from pack_lsp.core.checks import analysis, registry
from pack_lsp.core.checks.analysis import RULES_REUSED, RULES_REUSED_PACK, Analysis, analyze
from pack_lsp.core.checks.incremental import INCREMENTAL, reanalyze
from pack_lsp.core.checks.registry import MODULE_CHECKS, ModuleChecks
from pack_lsp.core.checks.rules.tools import UNDEFINED_TOOL, UNUSED_TOOL
from pack_lsp.core.model.context import CheckContext
from pack_lsp.core.model.pack import Prompt
from pack_lsp.core.model.summary import PromptContext
from pack_lsp.core.syntax import reuse
from test_rule_units import PACK

RENAME = ("  lookup:\n    name: lookup", "  finder:\n    name: lookup")


def _reanalyzed(previous: Analysis, old: str, new: str) -> tuple[Analysis, Analysis]:
    """The incremental analysis of the edit and a full one of the same text."""
    assert old in previous.text
    text = previous.text.replace(old, new, 1)
    got = reanalyze(previous, text)
    assert INCREMENTAL in got.timings
    return got, analyze(text)


def _with(monkeypatch: pytest.MonkeyPatch, *extra: ModuleChecks) -> None:
    """Run the rules with ``extra`` modules after the registered ones."""
    checks = (*MODULE_CHECKS, *extra)
    monkeypatch.setattr(analysis, "MODULE_CHECKS", checks)
    monkeypatch.setattr(
        analysis, "PROMPT_CHECKS", tuple(m for m in checks if m.check_prompt is not None)
    )


def _tools_reported_by_workflow(ctx: CheckContext) -> Iterator[Diagnostic]:
    """The reviewed case: the workflow's pack-wide part reading the pack's tools."""
    if ctx.pack.workflow is None:
        return
    for key, tool in ctx.pack.tools.items():
        yield make(UNUSED_TOOL, f"workflow sees tool `{key}`", tool.key_span)


def test_a_pack_wide_check_reading_tools_sees_a_renamed_tool_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``workflow.check`` reading ``pack.tools``, then a tool key renamed: the edit in
    the ``tools`` section must not keep the workflow's stale result. Nothing is
    declared: the read is recorded."""
    (workflow_checks,) = [m for m in MODULE_CHECKS if m.name.endswith(".workflow")]
    assert workflow_checks.check is not None
    original = workflow_checks.check

    def reading_tools(ctx: CheckContext) -> Iterable[Diagnostic]:
        yield from original(ctx)
        yield from _tools_reported_by_workflow(ctx)

    monkeypatch.setattr(
        analysis,
        "MODULE_CHECKS",
        tuple(
            ModuleChecks(m.name, reading_tools, m.check_prompt) if m is workflow_checks else m
            for m in MODULE_CHECKS
        ),
    )
    previous = analyze(PACK)
    assert any(d.message == "workflow sees tool `lookup`" for d in previous.diagnostics)
    got, full = _reanalyzed(previous, *RENAME)
    assert got.diagnostics == full.diagnostics
    assert any(d.message == "workflow sees tool `finder`" for d in got.diagnostics)
    # An edit the workflow does not read still reuses its results.
    again, full = _reanalyzed(got, "description: Helps.", "description: Helps a lot.")
    assert again.diagnostics == full.diagnostics
    assert again.timings[RULES_REUSED_PACK] > 0


def _prompt_reads_tools(ctx: PromptContext, prompt: Prompt) -> Iterator[Diagnostic]:
    """A new per-prompt check: each prompt names the pack tools it does not list."""
    listed = {item.value for item in prompt.tools}
    for key in ctx.summary.names.tool_keys():
        if key not in listed:
            yield make(UNDEFINED_TOOL, f"`{prompt.key}` could list `{key}`", prompt.key_span)


def _pack_reads_tools(ctx: CheckContext) -> Iterator[Diagnostic]:
    for key, tool in ctx.pack.tools.items():
        yield make(UNUSED_TOOL, f"tool `{key}` seen pack-wide", tool.key_span)


def test_new_checks_reading_tools_stay_correct_across_a_renamed_tool(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A module added with a per-prompt part reading the pack's tools (through the
    summary, the only way it can) and a pack-wide part reading ``pack.tools``: renaming
    a tool key incrementally gives what a full analysis gives."""
    _with(monkeypatch, ModuleChecks("extra", _pack_reads_tools, _prompt_reads_tools))
    previous = analyze(PACK)
    assert not any(d.message == "`billing` could list `lookup`" for d in previous.diagnostics)
    assert any(d.message == "`helper` could list `lookup`" for d in previous.diagnostics)
    got, full = _reanalyzed(previous, *RENAME)
    assert got.diagnostics == full.diagnostics
    assert any(d.message == "`helper` could list `finder`" for d in got.diagnostics)
    assert any(d.message == "tool `finder` seen pack-wide" for d in got.diagnostics)
    assert got.timings[RULES_REUSED] == 0  # the tools are in every prompt's summary
    # An edit inside one prompt reuses the others, the new check's results included.
    again, full = _reanalyzed(got, "Help with {{topic}}.", "Help with {{topic}} now.")
    assert again.diagnostics == full.diagnostics
    assert again.timings[RULES_REUSED] == 2


def test_a_per_prompt_check_cannot_reach_the_pack() -> None:
    analysed = analyze(PACK)
    units = analysed.rule_units
    assert units is not None and units.summary is not None
    ctx = PromptContext(units.summary, ())
    for name in ("pack", "data", "root", "text", "lines", "derived"):
        with pytest.raises(AttributeError):
            getattr(ctx, name)
        with pytest.raises(AttributeError):
            getattr(units.summary, name)


def test_a_module_declaring_an_interface_is_refused() -> None:
    module = ModuleType("pack_lsp.core.checks.rules.declared")
    module.check = lambda ctx: ()  # type: ignore[attr-defined]
    module.pack_interface = lambda ctx: ()  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="recorded, not declared"):
        registry._checks(module)


# ------------------------------------------------------------------------ verify mode


def test_verify_mode_fails_loudly_on_a_wrong_per_prompt_reuse(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With the summary comparison broken (everything taken as unchanged), a renamed
    tool leaves stale per-prompt results: verify mode names the module and prompt
    and shows both results."""
    assert reuse.mode() == reuse.VERIFY
    monkeypatch.setattr(analysis, "same_after", lambda *args: True)
    previous = analyze(PACK)
    with pytest.raises(reuse.ReuseMismatch) as caught:
        reanalyze(previous, PACK.replace(*RENAME, 1))
    message = str(caught.value)
    assert "per-prompt results of pack_lsp.core.checks.rules.tools on prompt `" in message
    assert "reused only:" in message and "recomputed only:" in message
    assert "lookup" in message


def test_verify_mode_fails_loudly_on_a_wrong_pack_wide_reuse(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(analysis, "fingerprint", lambda *args: ("always the same",))
    previous = analyze(PACK)
    with pytest.raises(
        reuse.ReuseMismatch, match=r"pack-wide results of pack_lsp\.core\.checks\.rules"
    ):
        reanalyze(previous, PACK.replace(*RENAME, 1))


def test_verify_mode_checks_the_spliced_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    from pack_lsp.core.checks import incremental

    real = incremental._splice

    def wrong_data(*args: object, **kwargs: object) -> object:
        found = real(*args, **kwargs)  # type: ignore[arg-type]
        if found is None:
            return None
        parsed, data, known, models, extent = found
        return parsed, {**data, "id": "not the text"}, known, models, extent

    monkeypatch.setattr(incremental, "_splice", wrong_data)
    with pytest.raises(reuse.ReuseMismatch, match="plain data"):
        reanalyze(analyze(PACK), PACK.replace("Helps.", "Helps a lot."))


def test_off_reuses_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(reuse.ENV, "off")
    previous = analyze(PACK)
    text = PACK.replace("Helps.", "Helps a lot.")
    got = reanalyze(previous, text)
    assert INCREMENTAL not in got.timings
    assert RULES_REUSED not in got.timings or got.timings[RULES_REUSED] == 0
    assert got.timings.get(RULES_REUSED_PACK, 0) == 0
    assert got.diagnostics == analyze(text).diagnostics


@pytest.mark.parametrize(("value", "expected"), [("", "on"), (" Verify ", "verify"), ("x", "on")])
def test_mode_values(monkeypatch: pytest.MonkeyPatch, value: str, expected: str) -> None:
    monkeypatch.setenv(reuse.ENV, value)
    assert reuse.mode() == expected
