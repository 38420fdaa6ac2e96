"""Every problem of an arena project in one pass.

A file the config names that cannot be read is one problem (PA101), and the rest of
the project is still checked: the cross-file rules and the compiled pack's rules run
on what is there. What the missing file would have declared is unknown, so a name
that may be one of its names is never reported elsewhere.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from pack_lsp.core.checks.arena.check import check_project
from pack_lsp.core.model.arena.project import load_project
from paths import HERE, ROOT

HELPDESK = HERE / "data" / "arena" / "helpdesk"


def _copy(tmp_path: Path) -> Path:
    folder = tmp_path / "helpdesk"
    shutil.copytree(HELPDESK, folder)
    return folder


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text("utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), "utf-8")


def _found(config: Path) -> list[tuple[str, str, str]]:
    """(file, code, flagged text) of every problem of the project, errors and warnings."""
    project = load_project(config)
    assert project is not None
    checked = check_project(project)
    out = []
    for path, diags in checked.by_file.items():
        text = Path(path).read_text("utf-8")
        for d in diags:
            if d.severity.name in ("ERROR", "WARNING"):
                out.append((Path(path).name, d.code, text[d.span.start : d.span.end]))
    return sorted(out)


def _plant_defects(
    folder: Path, missing: str = "{id: billing, file: prompts/billing.yaml}"
) -> Path:
    config = folder / "config.arena.yaml"
    # 1. a prompt config whose file does not exist
    _edit(config, "    - id: refunds\n", f"    - {missing}\n    - id: refunds\n")
    # 2. a workflow state's prompt_task misspelt
    _edit(config, "        prompt_task: refunds\n", "        prompt_task: refund\n")
    # 3. a scenario's task_type misspelt
    _edit(
        folder / "scenarios" / "refund-request.scenario.yaml",
        "task_type: triage",
        "task_type: triag",
    )
    # 4. a tool no tool file defines
    _edit(folder / "prompts" / "refunds.yaml", "- lookup_order", "- lookup_ordr")
    return config


def test_four_planted_defects_are_reported_in_one_run(tmp_path: Path) -> None:
    config = _plant_defects(_copy(tmp_path))
    assert _found(config) == [
        ("config.arena.yaml", "PA101", "prompts/billing.yaml"),
        ("config.arena.yaml", "PP403", "refund"),
        ("refund-request.scenario.yaml", "PA106", "triag"),
        ("refunds.yaml", "PP301", "lookup_ordr"),
    ]


def test_the_command_line_reports_the_four_defects(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    _plant_defects(folder)
    done = subprocess.run(
        [sys.executable, "-m", "pack_lsp", "--check", str(folder)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 1
    for code in ("PA101", "PP403", "PA106", "PP301"):
        assert f"error {code} " in done.stdout, done.stdout


def test_a_name_the_missing_prompt_config_may_declare_is_not_an_error(tmp_path: Path) -> None:
    """The missing entry's `id` is the task type it is known by: a scenario and a
    workflow state naming it are not reported (the file may declare it)."""
    folder = _copy(tmp_path)
    config = folder / "config.arena.yaml"
    _edit(
        config,
        "    - id: refunds\n",
        "    - {id: billing, file: prompts/billing.yaml}\n    - id: refunds\n",
    )
    _edit(config, "        prompt_task: refunds\n", "        prompt_task: billing\n")
    _edit(
        folder / "scenarios" / "refund-request.scenario.yaml",
        "task_type: triage",
        "task_type: billing",
    )
    assert _found(config) == [("config.arena.yaml", "PA101", "prompts/billing.yaml")]


def test_a_missing_prompt_config_without_id_may_declare_any_task_type(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    config = _plant_defects(folder, missing="file: prompts/billing.yaml")
    # The misspelt names may be the missing file's: only what no missing file can
    # declare (a tool) is still reported.
    assert _found(config) == [
        ("config.arena.yaml", "PA101", "prompts/billing.yaml"),
        ("refunds.yaml", "PP301", "lookup_ordr"),
    ]


def test_a_missing_tool_file_may_define_any_tool(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    config = folder / "config.arena.yaml"
    _edit(
        config,
        "    - file: tools/lookup-order.tool.yaml\n",
        "    - file: tools/lookup-ordr.tool.yaml\n",
    )
    _edit(folder / "prompts" / "refunds.yaml", "- lookup_order", "- lookup_ordr")
    _edit(
        folder / "scenarios" / "refund-request.scenario.yaml",
        "task_type: triage",
        "task_type: triag",
    )
    assert _found(config) == [
        ("config.arena.yaml", "PA101", "tools/lookup-ordr.tool.yaml"),
        ("refund-request.scenario.yaml", "PA106", "triag"),
    ]


def test_an_arena_config_checked_alone_whatever_its_name(tmp_path: Path) -> None:
    """promptarena's `example-arena.yaml`: a `kind: Arena` document is the root of its
    project, so checking it alone reports the files it names that are missing."""
    folder = _copy(tmp_path)
    config = folder / "config.arena.yaml"
    example = folder / "example-arena.yaml"
    example.write_text(
        config.read_text("utf-8").replace("prompts/refunds.yaml", "prompts/refund.yaml"), "utf-8"
    )
    config.unlink()
    done = subprocess.run(
        [sys.executable, "-m", "pack_lsp", "--check", str(example)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 1
    assert "error PA101 No file `prompts/refund.yaml`" in done.stdout, done.stdout


def test_inline_prompt_specs_declare_task_types_the_project_may_name(tmp_path: Path) -> None:
    """promptarena merges the config's inline `prompt_specs` (keyed by task type) with
    the prompt config files: a scenario or a state naming one is not reported."""
    folder = _copy(tmp_path)
    config = folder / "config.arena.yaml"
    _edit(
        config,
        "  providers:\n",
        "  prompt_specs:\n    billing:\n      task_type: billing\n"
        "      system_template: You handle invoices.\n  providers:\n",
    )
    _edit(config, "        prompt_task: refunds\n", "        prompt_task: billing\n")
    _edit(
        folder / "scenarios" / "refund-request.scenario.yaml",
        "task_type: triage",
        "task_type: billing",
    )
    assert _found(config) == []


def test_without_prompt_configs_a_scenario_task_type_names_nothing(tmp_path: Path) -> None:
    """A project with no prompt config runs its scenarios without a prompt (promptarena
    builds no prompt registry), so their task type is a label, not a reference."""
    folder = tmp_path / "media"
    (folder / "providers").mkdir(parents=True)
    (folder / "scenarios").mkdir()
    shutil.copy(HELPDESK / "providers" / "mock.yaml", folder / "providers" / "mock.yaml")
    (folder / "scenarios" / "look.yaml").write_text(
        (HELPDESK / "scenarios" / "refund-request.scenario.yaml")
        .read_text("utf-8")
        .replace("task_type: triage", "task_type: media-test"),
        "utf-8",
    )
    config = folder / "arena.yaml"
    config.write_text(
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: Arena\nmetadata:\n  name: media\n"
        "spec:\n  providers:\n    - file: providers/mock.yaml\n"
        "  scenarios:\n    - file: scenarios/look.yaml\n  defaults: {temperature: 0.2}\n",
        "utf-8",
    )
    assert _found(config) == []
