"""Arena projects: checking the corpus, and edit → diagnostics in a 50-file project.

    .venv/bin/python bench/bench_arena.py [--quick]

1. **Corpus.** Every arena project of ``../shared/corpus/arena`` (skipped with a note
   when absent): each config loaded, its cross-file rules and the pack rules on its
   compiled pack run, and every file of it analysed with its problems, as
   ``pack-lsp --check`` does — in this process (no start-up), best of N.
2. **Edit.** A generated project of 50 files (config, 20 prompt configs, 20 scenarios,
   5 tools, 4 providers; ``generate``), held by an ``ArenaWorkspace`` with the
   editor's texts; one prompt config's text changes (its description, then its task
   type back and forth, which changes what scenarios and the workflow resolve to).
   Measured: ``changed()`` (the projects naming the file checked again) plus the
   analysis of every affected file with its problems, i.e. the diagnostics an editor
   publishes for all of them. The baseline is what a user runs otherwise after an
   edit: a cold check of the whole project (load, compile, check, analyse each file),
   which is also what the project costs on a workspace's first load. PromptKit's own
   validation (``promptarena validate``, ``packc compile``) is Go; it was not built
   for this comparison (no Go toolchain on the machine that ran it).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from pack_lsp.core.checks.analysis import analyze
from pack_lsp.core.checks.arena.check import check_project
from pack_lsp.core.checks.arena.workspace import ArenaWorkspace, find_configs
from pack_lsp.core.model.arena.project import load_project, norm, overlay_reader

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "arena"

HEADER = "apiVersion: promptkit.altairalabs.ai/v1alpha1\n"


def generate(folder: Path, prompts: int = 20, scenarios: int = 20, tools: int = 5) -> Path:
    """Write a project of ``1 + prompts + scenarios + tools + 4`` files; return its config."""
    for sub in ("prompts", "scenarios", "tools", "providers"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    for i in range(tools):
        (folder / "tools" / f"tool{i}.tool.yaml").write_text(
            f"{HEADER}kind: Tool\nmetadata:\n  name: tool_{i}\nspec:\n"
            f"  description: Tool number {i}\n  input_schema:\n    type: object\n"
            "    properties:\n      query: {type: string}\n    required: [query]\n",
            encoding="utf-8",
        )
    for i in range(4):
        (folder / "providers" / f"p{i}.yaml").write_text(
            f"{HEADER}kind: Provider\nmetadata:\n  name: p{i}\nspec:\n  id: p{i}\n"
            "  type: mock\n  model: mock-model\n",
            encoding="utf-8",
        )
    for i in range(prompts):
        lines = "\n".join(
            f"    Rule {n}: answer {{{{topic}}}} questions with care." for n in range(30)
        )
        (folder / "prompts" / f"task{i}.yaml").write_text(
            f"{HEADER}kind: PromptConfig\nmetadata:\n  name: task{i}\nspec:\n"
            f"  task_type: task{i}\n  version: v1.0.0\n  description: Task {i}\n"
            f"  allowed_tools: [tool_{i % tools}]\n"
            "  variables:\n    - name: topic\n      required: true\n"
            f"  system_template: |\n{lines}\n",
            encoding="utf-8",
        )
    for i in range(scenarios):
        (folder / "scenarios" / f"s{i}.scenario.yaml").write_text(
            f"{HEADER}kind: Scenario\nmetadata:\n  name: s{i}\nspec:\n  id: s{i}\n"
            f"  task_type: task{i % prompts}\n  description: Scenario {i}\n"
            f"  providers: [p{i % 4}]\n  turns:\n    - role: user\n      content: Hello {i}\n",
            encoding="utf-8",
        )
    states = "".join(
        f"      task{i}:\n        prompt_task: task{i}\n"
        + (
            f"        on_event: {{Next: task{i + 1}}}\n"
            if i + 1 < prompts
            else "        terminal: true\n"
        )
        for i in range(prompts)
    )
    config = folder / "config.arena.yaml"
    config.write_text(
        f"{HEADER}kind: Arena\nmetadata:\n  name: generated\nspec:\n  prompt_configs:\n"
        + "".join(f"    - {{id: task{i}, file: prompts/task{i}.yaml}}\n" for i in range(prompts))
        + "  providers:\n"
        + "".join(f"    - file: providers/p{i}.yaml\n" for i in range(4))
        + "  tools:\n"
        + "".join(f"    - file: tools/tool{i}.tool.yaml\n" for i in range(tools))
        + "  scenarios:\n"
        + "".join(f"    - file: scenarios/s{i}.scenario.yaml\n" for i in range(scenarios))
        + f"  workflow:\n    version: 1\n    entry: task0\n    states:\n{states}",
        encoding="utf-8",
    )
    return config


def _best(run: object, repeat: int) -> tuple[float, float]:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        run()  # type: ignore[operator]
        times.append(time.perf_counter() - t0)
    return min(times), statistics.median(times)


def cold_check(config: Path) -> int:
    """Load, compile, check and analyse every file: what a full check does."""
    project = load_project(config)
    assert project is not None
    checked = check_project(project)
    count = 0
    for path in project.paths():
        found = checked.diagnostics_for(path)
        analyze(project.files[path].text, path=path, pre_diagnostics=list(found))
        count += 1
    return count


def bench_corpus(repeat: int) -> str:
    if not CORPUS.is_dir():
        return f"corpus: skipped ({CORPUS} absent)\n"
    configs = sorted(find_configs(CORPUS))
    files = sum(len(p.files) for c in configs if (p := load_project(c)) is not None)

    def run() -> None:
        for config in configs:
            cold_check(Path(config))

    best, median = _best(run, repeat)
    return (
        f"corpus: {len(configs)} arena configs ({files} project files) checked in "
        f"{best * 1000:.0f} ms (best of {repeat}; median {median * 1000:.0f} ms)\n"
    )


def bench_edit(repeat: int) -> str:
    with tempfile.TemporaryDirectory(prefix="pack-lsp-arena-") as tmp:
        config = generate(Path(tmp) / "generated")
        project = load_project(config)
        assert project is not None
        files = len(project.paths())
        lines = sum(f.text.count("\n") for f in project.files.values())
        target = norm(Path(tmp) / "generated" / "prompts" / "task7.yaml")
        original = Path(target).read_text("utf-8")
        texts: dict[str, str] = {}
        workspace = ArenaWorkspace(read=overlay_reader(texts))
        workspace.add_config(config)
        edits = [
            original.replace("description: Task 7", "description: Task seven"),
            original.replace("task_type: task7", "task_type: task7b"),
            original,
        ]
        counter = {"n": 0, "files": 0}

        def edit() -> None:
            texts[target] = edits[counter["n"] % len(edits)]
            counter["n"] += 1
            affected = workspace.changed(target)
            for path in affected:
                text = texts.get(path) or Path(path).read_text("utf-8")
                analyze(text, path=path, pre_diagnostics=list(workspace.diagnostics_for(path)))
            counter["files"] = len(affected)

        best, median = _best(edit, repeat * 3)
        cold_best, cold_median = _best(lambda: cold_check(config), repeat)
    return (
        f"edit: project of {files} files ({lines} lines); editing one prompt config → "
        f"diagnostics of the {counter['files']} affected files: median {median * 1000:.1f} ms "
        f"(best {best * 1000:.1f} ms); cold check of the whole project: median "
        f"{cold_median * 1000:.1f} ms (best {cold_best * 1000:.1f} ms); "
        f"ratio {cold_median / median:.1f}x\n"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (smoke run)")
    args = parser.parse_args(argv)
    repeat = 2 if args.quick else 7
    sys.stdout.write(bench_corpus(repeat))
    sys.stdout.write(bench_edit(repeat))
    return 0


if __name__ == "__main__":
    sys.exit(main())
