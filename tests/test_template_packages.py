"""PromptKit template packages: ``kind: Template`` and ``kind: TemplateIndex`` are known
kinds checked against their own schemas, and a package's files that hold Go-template
placeholders are not checked until ``promptarena init`` renders them.

The fixture ``tests/data/templates`` is written here in the shape of PromptKit's
community template registry: an ``index.yaml`` naming one package, whose
``template.yaml`` lists its files; the arena config, the prompt and the provider hold
placeholders (``{{ .project_name }}``, the escape ``{{ "{{company}}" }}``), the tool
and the scenario do not.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pack_lsp.core.base import kinds
from pack_lsp.core.base.arena_schemas import TEMPLATE_SCHEMAS, schema_file
from pack_lsp.core.base.resources import load_schema
from pack_lsp.core.checks.analysis import analyze
from pack_lsp.core.checks.arena.check import check_project
from pack_lsp.core.checks.arena.workspace import declares_arena, find_configs
from pack_lsp.core.model.arena.project import load_project, norm
from pack_lsp.core.model.recognize import recognize, template_package
from paths import HERE, ROOT

TEMPLATES = HERE / "data" / "templates"
PACKAGE = TEMPLATES / "desk-starter"


def _codes(text: str, path: Path) -> list[str]:
    return [d.code for d in analyze(text, path=str(path)).diagnostics]


def test_template_and_index_kinds_have_their_own_schemas() -> None:
    for kind in TEMPLATE_SCHEMAS:
        path = schema_file(kind)
        assert path is not None
        schema = load_schema(path)
        assert schema["properties"]["kind"] == {"const": kind}
        assert schema["title"] and schema["description"]


def test_the_fixture_template_and_index_are_valid() -> None:
    for path in (TEMPLATES / "index.yaml", PACKAGE / "template.yaml"):
        text = path.read_text("utf-8")
        found = recognize(str(path), text)
        assert found.kind == kinds.ARENA
        assert _codes(text, path) == []


TEMPLATE = """\
apiVersion: promptkit.altairalabs.ai/v1alpha1
kind: Template
metadata:
  name: ""
spec:
  variables:
    - description: a variable without a name
      required: "yes"
  files:
    - path: config.arena.yaml
    - path: README.md
      conten: hello
  hookz: {}
"""


def test_template_problems_are_the_ones_promptarenas_loader_refuses() -> None:
    analysis = analyze(TEMPLATE, path="pkg/template.yaml")
    found = {(d.code, d.severity.name, d.message) for d in analysis.diagnostics}
    assert ("PP107", "ERROR", "`metadata.name` must have at least 1 character") in found
    assert ("PP101", "ERROR", "Missing required property `name` in `spec.variables[0]`") in found
    messages = sorted(m for code, _, m in found if code == "PP109")
    assert messages == [
        "`spec.files[0]` needs `template`, `content` or `source`",
        "`spec.files[1]` needs `template`, `content` or `source`",
    ]
    # The loader reads into a typed structure that ignores unknown keys: a warning.
    unknown = sorted((sev, m.split(";")[0]) for code, sev, m in found if code == "PP102")
    assert unknown == [
        ("WARNING", "Unknown property `conten` in `spec.files[1]`"),
        ("WARNING", "Unknown property `hookz` in `spec`"),
    ]
    assert not any(d.code == "PA001" for d in analysis.diagnostics)


def test_index_problems() -> None:
    text = (
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: TemplateIndex\nspec:\n"
        "  entries:\n    - name: desk\n      checksum: ABC\n"
    )
    codes = sorted(_codes(text, Path("registry/index.yaml")))
    # the index format is `promptkit.altairalabs.ai/v1`; an entry needs its source; a
    # checksum is a lower-case SHA-256
    assert codes == ["PP101", "PP104", "PP105"]


def test_the_index_kind_is_read_without_case() -> None:
    """promptarena compares an index's kind without case (``strings.EqualFold``), the
    kind of a template (``kind: Template``) and of a project's documents exactly."""
    index = (
        "apiVersion: promptkit.altairalabs.ai/v1\nkind: {kind}\nspec:\n"
        "  entries:\n    - name: desk\n      source: desk\n"
    )
    for kind in ("templateindex", "TEMPLATEINDEX", "Templateindex"):
        assert _codes(index.format(kind=kind), Path("registry/index.yaml")) == []
    template = index.replace("entries", "files").format(kind="template")
    assert "PA001" in _codes(template, Path("registry/template.yaml"))


def test_files_with_placeholders_belong_to_their_package() -> None:
    for name in ("config.arena.yaml", "prompts/desk.prompt.yaml", "providers/mock.provider.yaml"):
        path = PACKAGE / name
        assert template_package(str(path), path.read_text("utf-8")) == PACKAGE / "template.yaml"
    for name in ("tools/find-ticket.tool.yaml", "scenarios/greeting.scenario.yaml"):
        path = PACKAGE / name
        assert template_package(str(path), path.read_text("utf-8")) is None
    # The same placeholders outside a template package are not a package's.
    text = (PACKAGE / "config.arena.yaml").read_text("utf-8")
    assert template_package(str(HERE / "data" / "arena" / "x.arena.yaml"), text) is None
    # PromptKit's own placeholders are not Go actions.
    assert template_package(str(PACKAGE / "prompts" / "p.yaml"), "a: '{{company}}'") is None


def test_a_directory_scan_skips_the_files_with_placeholders() -> None:
    assert not declares_arena(PACKAGE / "config.arena.yaml")
    assert list(find_configs(TEMPLATES)) == []
    done = subprocess.run(
        [sys.executable, "-m", "pack_lsp", "--check", str(TEMPLATES)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout == ""
    assert "Checked 4 files: 0 errors, 0 warnings, 0 information, 0 hints" in done.stderr


def test_a_file_with_placeholders_named_explicitly_says_why_it_is_not_checked() -> None:
    path = PACKAGE / "config.arena.yaml"
    found = recognize(str(path), path.read_text("utf-8"), explicit=True)
    assert found.kind == kinds.NOT_A_PACK and "template package `desk-starter`" in found.what
    done = subprocess.run(
        [sys.executable, "-m", "pack_lsp", "--check", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout
    assert "information PP014" in done.stdout and "error" not in done.stdout.split("Checked")[0]


@pytest.fixture
def rendered_config(tmp_path: Path) -> Path:
    """The package with a config of its own that has no placeholder, naming the
    package's files (as a package that ships a ready config beside its templates)."""
    folder = tmp_path / "desk-starter"
    shutil.copytree(PACKAGE, folder)
    config = folder / "ready.arena.yaml"
    config.write_text(
        (PACKAGE / "config.arena.yaml")
        .read_text("utf-8")
        .replace("{{ .project_name }}", "desk")
        .replace("{{ .company }}", "Acme"),
        "utf-8",
    )
    return config


def test_a_project_naming_files_with_placeholders_treats_them_as_unknown(
    rendered_config: Path,
) -> None:
    project = load_project(rendered_config)
    assert project is not None
    assert project.templated == {
        norm(rendered_config.parent / "prompts" / "desk.prompt.yaml"),
        norm(rendered_config.parent / "providers" / "mock.provider.yaml"),
    }
    checked = check_project(project)
    found = [(Path(p).name, d.code) for p, ds in checked.by_file.items() for d in ds]
    # Not missing (no PA101), and what they declare is unknown: the scenario's task type
    # and the tool no prompt lists are not errors.
    assert found == []


def test_hover_and_completion_in_a_template() -> None:
    from pack_lsp.core.ide.completion import complete
    from pack_lsp.core.ide.hover import hover

    text = (PACKAGE / "template.yaml").read_text("utf-8")
    analysis = analyze(text, path=str(PACKAGE / "template.yaml"))
    found = hover(analysis, text.index("autoPopulate") + 2)
    assert found is not None and "Fill the variable from the bound resource" in found.markdown
    edited = text.replace(
        "      source: config.arena.yaml\n", "      source: config.arena.yaml\n      \n", 1
    )
    at = edited.index("config.arena.yaml\n      \n") + len("config.arena.yaml\n      ")
    labels = [c.label for c in complete(analyze(edited, path=str(PACKAGE / "template.yaml")), at)]
    assert "raw" in labels and "condition" in labels and "source" not in labels
