"""Fragment expansion is bounded: its size is measured without expanding
(``core/model/expansion.py``), ``--render`` refuses a template over the budget at
once, and ``--check`` reports it (PP016) with the include path that makes it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pack_lsp.core.checks.analysis import analyze
from pack_lsp.core.ide.render import RenderError, render
from pack_lsp.core.model.expansion import Expander

HEAD = (
    "id: support\nname: Support\nversion: 1.0.0\n"
    'template_engine: {version: v1, syntax: "{{variable}}", features: [fragments]}\n'
)


def _prompt(template: str) -> str:
    return (
        "prompts:\n  support:\n    id: support\n    name: Support\n    version: 1.0.0\n"
        f'    system_template: "{template}"\n'
    )


def bomb(levels: int = 7, times: int = 20) -> str:
    """A 2 KB pack whose prompt expands to ``times ** levels`` copies of a sentence."""
    lines = ["fragments:"]
    for level in range(levels):
        lines.append(f'  f{level}: "' + f"{{{{fragments.f{level + 1}}}}}" * times + '"')
    lines.append(f"  f{levels}: Be polite and brief.")
    return HEAD + "\n".join(lines) + "\n" + _prompt("Hi {{fragments.f0}}")


def test_the_measure_is_the_rendered_length() -> None:
    text = (
        HEAD
        + "fragments:\n"
        + '  a: "A{{fragments.b}}-{{fragments.b}}{{name}}"\n'
        + '  b: "B{{fragments.c}}"\n'
        + '  c: "C{{fragments.a}}{{fragments.missing}}"\n'  # a cycle, and an undefined one
        + _prompt("{{fragments.a}} and {{fragments.c}}")
    )
    analysis = analyze(text, path="x.promptpack.yaml")
    templates = analysis.derived.templates
    assert templates is not None and analysis.pack is not None
    infos = {key: templates.of_fragment(key) for key in analysis.pack.fragments}
    # Without cycles the measure is exact.
    plain = text.replace("{{fragments.a}}{{fragments.missing}}", "c")
    analysis = analyze(plain, path="x.promptpack.yaml")
    templates = analysis.derived.templates
    assert templates is not None and analysis.pack is not None
    infos = {key: templates.of_fragment(key) for key in analysis.pack.fragments}
    found = Expander(infos).expansion(templates.of_prompt("support")[0])
    assert found.size == len(render(analysis, "support", {}).text)
    assert [s.fragment for s in found.path] == ["a", "b", "c"]
    assert found.path[1].times == 2


def test_render_refuses_a_bomb_before_expanding_it() -> None:
    analysis = analyze(bomb(), path="x.promptpack.yaml")
    with pytest.raises(RenderError, match=r"support > f0 > f1 ×20 > f2 ×20"):
        render(analysis, "support", {})


def test_check_reports_the_bomb_with_its_include_path() -> None:
    analysis = analyze(bomb(), path="x.promptpack.yaml")
    (found,) = [d for d in analysis.diagnostics if d.code == "PP016"]
    assert "f0 > f1 ×20 > f2 ×20 > f3 ×20" in found.message
    assert found.data["path"] == [f"f{i}" for i in range(8)]


def test_the_budget_can_be_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    pack = bomb(levels=2, times=30)  # 900 sentences: about 18,000 characters
    monkeypatch.setenv("PACK_LSP_MAX_RENDER_SIZE", "10000")
    analysis = analyze(pack, path="x.promptpack.yaml")
    assert [d.code for d in analysis.diagnostics if d.code == "PP016"] == ["PP016"]
    with pytest.raises(RenderError):
        render(analysis, "support", {})
    monkeypatch.setenv("PACK_LSP_MAX_RENDER_SIZE", "1MB")
    analysis = analyze(pack, path="x.promptpack.yaml")
    assert not [d for d in analysis.diagnostics if d.code == "PP016"]
    assert len(render(analysis, "support", {}).text) > 10_000


def test_a_long_chain_of_fragments_is_measured_and_refused_clearly() -> None:
    count = 3000
    lines = ["fragments:"]
    lines += [f'  f{i}: "x{{{{fragments.f{i + 1}}}}}"' for i in range(count)]
    lines.append(f"  f{count}: end")
    analysis = analyze(
        HEAD + "\n".join(lines) + "\n" + _prompt("{{fragments.f0}}"), path="x.promptpack.yaml"
    )
    assert not [d for d in analysis.diagnostics if d.code in ("PP000", "PP016")]
    try:
        text = render(analysis, "support", {}).text
    except RenderError as exc:
        assert "nest" in str(exc)
    else:
        assert text == "x" * count + "end"


def test_the_command_line_stops_at_once(tmp_path: Path) -> None:
    pack = tmp_path / "bomb.promptpack.yaml"
    pack.write_text(bomb(), encoding="utf-8")
    assert len(pack.read_bytes()) < 3000
    done = subprocess.run(
        [sys.executable, "-m", "pack_lsp", "--render", str(pack), "--prompt", "support"],
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ),
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "over the budget of 1,000,000" in done.stderr and "f0 > f1 ×20" in done.stderr
    done = subprocess.run(
        [sys.executable, "-m", "pack_lsp", "--check", str(pack)],
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ),
    )
    assert done.returncode == 1 and "PP016" in done.stdout
