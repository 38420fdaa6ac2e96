"""Agent-extension manifests: recognition, workspace index, incremental re-checks, CLI."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from pack_lsp.cli import main
from pack_lsp.core.base import kinds
from pack_lsp.core.base.diagnostics import Severity
from pack_lsp.core.checks.analysis import analyze
from pack_lsp.core.checks.manifest.check import update_index
from pack_lsp.core.model.discover import find_packs
from pack_lsp.core.model.manifest.files import index_files, read_manifest
from pack_lsp.core.model.manifest.model import build_manifest
from pack_lsp.core.model.manifest.reading import lax_bool, lax_int, yaml11_plain
from pack_lsp.core.model.manifest.workspace import ManifestIndex, affected
from pack_lsp.core.model.recognize import detect
from pack_lsp.core.syntax.yamltree import parse
from paths import HERE, SHARED

WORKSPACE = HERE / "fixtures" / "manifests" / "workspace"
ADR = SHARED / "spec" / "adr-003-agent-as-extension.txt"
#: yodoca's own extension folders (sandbox/extensions at the commit docs/manifests.md pins).
YODOCA = SHARED / "systems" / "yodoca" / "extensions"


def _copy(tmp_path: Path) -> Path:
    target = tmp_path / "extensions"
    shutil.copytree(WORKSPACE, target)
    return target


def _all_diagnostics(index: ManifestIndex, texts: dict[str, str]) -> dict[str, list[str]]:
    """Each manifest's diagnostics, checked in full against ``index``."""
    out: dict[str, list[str]] = {}
    for path, text in texts.items():
        analysis = analyze(text, path=path, kind=kinds.MANIFEST, workspace=index)
        out[path] = [f"{d.code}@{d.span.start}:{d.message}" for d in analysis.diagnostics]
    return out


# --------------------------------------------------------------------- recognition


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("manifest.yaml", "id: kv\nentrypoint: main:Kv\n", kinds.MANIFEST),
        ("manifest.yml", "id: a\nname: A\nagent:\n  model: m\n", kinds.MANIFEST),
        ("manifest.yaml", "name: no id\nentrypoint: main:X\n", None),
        ("manifest.yaml", "id: only_an_id\n", None),
        ("manifest.yaml", "id: x\nname: X\nversion: '1'\n", None),
        # Neither entrypoint nor agent, but yodoca's own keys: a manifest (PM001).
        ("manifest.yaml", "id: mail\nname: Mail\ndepends_on: [inbox]\n", kinds.MANIFEST),
        ("manifest.yaml", "id: s\nname: S\nschedules: []\n", kinds.MANIFEST),
        ("other.yaml", "id: kv\nentrypoint: main:Kv\n", None),
        ("manifest.promptpack.yaml", "id: kv\nentrypoint: main:Kv\n", kinds.PROMPTPACK),
    ],
)
def test_manifests_are_recognised_by_name_and_top_level_keys(
    name: str, text: str, expected: str | None
) -> None:
    assert detect(f"ext/{name}", text) == expected


def test_a_configured_glob_marks_manifests_with_other_names() -> None:
    text = "id: kv\nname: Key-value\n"
    assert detect("ext/kv/extension.yaml", text) is None
    assert detect("ext/kv/extension.yaml", text, ("*/extension.yaml",)) == kinds.MANIFEST


def test_discovery_finds_manifests_beside_packs(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    (root / "notes.yaml").write_text("id: x\n", encoding="utf-8")
    found = [p.relative_to(root).as_posix() for p in find_packs(root)]
    assert found == [
        "builder_agent/manifest.yaml",
        "code_reviewer/manifest.yaml",
        "kv/manifest.yaml",
    ]


def test_the_fixture_workspace_is_clean() -> None:
    index = index_files(sorted(WORKSPACE.rglob("manifest.yaml")))
    texts = {m.path or "": Path(m.path or "").read_text(encoding="utf-8") for m in index}
    assert len(index) == 3
    assert _all_diagnostics(index, texts) == {path: [] for path in texts}


def test_cross_file_rules_need_a_workspace() -> None:
    text = "id: a\nname: A\nentrypoint: main:A\ndepends_on: [missing]\n"
    alone = analyze(text, kind=kinds.MANIFEST)
    assert [d.code for d in alone.diagnostics] == []
    with_index = analyze(text, kind=kinds.MANIFEST, workspace=ManifestIndex())
    assert [d.code for d in with_index.diagnostics] == ["PM006"]


def test_yaml_syntax_errors_in_a_manifest_are_reported_alone() -> None:
    analysis = analyze("id: a\nagent: [\n", path="x/manifest.yaml", workspace=ManifestIndex())
    assert analysis.kind == kinds.MANIFEST
    assert {d.code for d in analysis.diagnostics} <= {"PP001", "PM001", "PM002"}
    assert any(d.code == "PP001" for d in analysis.diagnostics)


# ------------------------------------------------------------ incremental index


def _manifest(path: str, text: str):  # type: ignore[no-untyped-def]
    return build_manifest(parse(text).root, path)


BASE = {
    "kv": "id: kv\nname: KV\nentrypoint: main:Kv\n",
    "reviewer": "id: reviewer\nname: R\nagent: {model: m, instructions: hi, uses_tools: [kv]}\n",
    "builder": "id: builder\nname: B\nentrypoint: main:B\nagent: {model: m}\ndepends_on: [kv]\n",
    "other": "id: other\nname: O\nentrypoint: main:O\n",
}

EDITS = [
    ("kv", "id: kv\nname: KV\nagent: {model: m, instructions: hi}\n"),  # stops providing tools
    ("kv", "id: kv_store\nname: KV\nentrypoint: main:Kv\n"),  # renamed: referrers break
    ("kv", "id: kv\nname: Key-value\nentrypoint: main:Kv\n"),  # cosmetic
    ("other", "id: kv\nname: O\nentrypoint: main:O\n"),  # duplicate id
    ("kv", "id: kv\nname: KV\nentrypoint: main:Kv\ndepends_on: [builder]\n"),  # a cycle
    ("kv", "id: kv\nname: KV\nentrypoint: main:Kv\nenabled: no\n"),  # disabled
    ("builder", "id: builder\nname: B\nentrypoint: main:B\nagent: {model: m}\n"),  # no deps
    ("reviewer", "id: reviewer\nname: R\nagent: {model: m, instructions: hi}\n"),
]


@pytest.mark.parametrize(("who", "new_text"), EDITS)
def test_an_edit_rechecks_exactly_the_manifests_whose_diagnostics_can_change(
    who: str, new_text: str
) -> None:
    texts = {f"/w/{k}/manifest.yaml": v for k, v in BASE.items()}
    index = ManifestIndex(_manifest(p, t) for p, t in texts.items())
    before = _all_diagnostics(index, texts)
    path = f"/w/{who}/manifest.yaml"
    texts[path] = new_text
    to_recheck = index.put(_manifest(path, new_text))
    after = _all_diagnostics(index, texts)
    changed = {p for p in texts if before[p] != after[p] and p != path}
    assert changed <= to_recheck


def test_a_cosmetic_edit_affects_no_other_manifest() -> None:
    texts = {f"/w/{k}/manifest.yaml": v for k, v in BASE.items()}
    index = ManifestIndex(_manifest(p, t) for p, t in texts.items())
    path = "/w/kv/manifest.yaml"
    assert index.put(_manifest(path, "id: kv\nname: Renamed\nentrypoint: main:Kv\n")) == set()


def test_affected_is_pure_and_names_the_referrers_of_a_changed_id() -> None:
    texts = {f"/w/{k}/manifest.yaml": v for k, v in BASE.items()}
    index = ManifestIndex(_manifest(p, t) for p, t in texts.items())
    old = index.get("/w/kv/manifest.yaml")
    new = _manifest("/w/kv/manifest.yaml", "id: kv2\nname: KV\nentrypoint: main:Kv\n")
    first = affected(index, old, new)
    assert first == affected(index, old, new)  # no change to the index
    assert {"/w/reviewer/manifest.yaml", "/w/builder/manifest.yaml"} <= first


def test_removing_a_manifest_rechecks_its_referrers() -> None:
    texts = {f"/w/{k}/manifest.yaml": v for k, v in BASE.items()}
    index = ManifestIndex(_manifest(p, t) for p, t in texts.items())
    assert index.remove("/w/kv/manifest.yaml") == {
        "/w/reviewer/manifest.yaml",
        "/w/builder/manifest.yaml",
    }
    assert index.first("kv") is None
    assert index.remove("/w/kv/manifest.yaml") == set()


# ------------------------------------------------------------------------- CLI


def test_check_of_a_directory_uses_it_as_the_workspace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _copy(tmp_path)
    assert main(["--check", str(root)]) == 0
    shutil.rmtree(root / "kv")
    assert main(["--check", str(root)]) == 1
    out = capsys.readouterr().out
    # `depends_on: [kv]` stops yodoca's load (errors); `uses_tools: [kv]` is dropped
    # without a message (warnings).
    found = re.findall(r"(\w+)/manifest\.yaml:\d+:\d+: (\w+) (PM\d+)", out)
    assert sorted(found) == [
        ("builder_agent", "error", "PM006"),
        ("builder_agent", "warning", "PM012"),
        ("code_reviewer", "error", "PM006"),
        ("code_reviewer", "warning", "PM012"),
    ]


def test_topology_of_a_manifest_directory(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--topology", str(WORKSPACE), "--format", "json"]) == 0
    graph = json.loads(capsys.readouterr().out)
    assert [(n["id"], n["member"]) for n in graph["nodes"]] == [
        ("builder_agent", True),
        ("code_reviewer", True),
        ("kv", False),
    ]
    assert {(e["from"], e["to"], e["via"]) for e in graph["edges"]} == {
        ("builder_agent", "kv", "uses_tools: kv"),
        ("builder_agent", "kv", "depends_on: kv"),
        ("code_reviewer", "kv", "uses_tools: kv"),
        ("code_reviewer", "kv", "depends_on: kv"),
    }


def test_topology_of_a_directory_without_manifests(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--topology", str(tmp_path)]) == 2
    assert "no agent-extension manifests" in capsys.readouterr().err


# ---------------------------------------------------- the design document's examples


def _adr_examples() -> list[str]:
    if not ADR.is_file():
        pytest.skip(f"the design document is not available ({ADR}); it lives in ../shared")
    blocks = re.findall(r"```yaml\n(.*?)```", ADR.read_text(encoding="utf-8"), re.S)
    return [b for b in blocks if re.search(r"^id: ", b, re.M)]


def prompt_path(text: str) -> str:
    found = re.search(r"instructions: (\S+)", text)
    assert found is not None
    return found.group(1)


def test_the_design_documents_examples_get_exactly_the_problems_a_reader_finds(
    tmp_path: Path,
) -> None:
    """Each example repeats `description`, names a prompt file in `instructions` (which
    yodoca takes as the prompt text) and uses `file_manager`, which is not there."""
    examples = _adr_examples()
    assert len(examples) == 2
    paths: list[Path] = []
    for text in examples:
        ext_id = re.search(r"^id: (\w+)", text, re.M)
        assert ext_id is not None
        folder = tmp_path / ext_id.group(1)
        folder.mkdir()
        (folder / "manifest.yaml").write_text(text, encoding="utf-8")
        for prompt in re.findall(r"instructions: (\S+)", text):
            (folder / prompt).parent.mkdir(parents=True, exist_ok=True)
            (folder / prompt).write_text("Be helpful.\n", encoding="utf-8")
        (folder / "main.py").write_text("class Extension: ...\n", encoding="utf-8")
        paths.append(folder / "manifest.yaml")
    kv = tmp_path / "kv"
    kv.mkdir()
    (kv / "manifest.yaml").write_text("id: kv\nname: KV\nentrypoint: main:Kv\n", "utf-8")
    (kv / "main.py").write_text("class Kv: ...\n", encoding="utf-8")
    index = index_files([*paths, kv / "manifest.yaml"])
    for path in paths:
        manifest = read_manifest(path)
        assert manifest is not None
        analysis = analyze(path.read_text(encoding="utf-8"), path=path, workspace=index)
        problems = sorted(
            (d.code, analysis.text[d.span.start : d.span.end]) for d in analysis.diagnostics
        )
        assert problems == [
            ("PM003", prompt_path(analysis.text)),
            ("PM012", "file_manager"),
            ("PP005", "description"),
            ("PP005", "description"),
        ], path


def test_update_index_then_analyze_refreshes_the_referrers(tmp_path: Path) -> None:
    """The editor's sequence: update the index, re-analyse what it names, then the document."""
    root = _copy(tmp_path)
    index = index_files(sorted(root.rglob("manifest.yaml")))
    kv = root / "kv" / "manifest.yaml"
    text = kv.read_text(encoding="utf-8").replace("entrypoint: main:KvExtension\n", "")
    text += "agent: {model: m, instructions: Store values.}\n"
    to_recheck = update_index(index, text, str(kv))
    assert sorted(Path(p).parent.name for p in to_recheck) == ["builder_agent", "code_reviewer"]
    for path in to_recheck:
        codes = [
            d.code
            for d in analyze(Path(path).read_text("utf-8"), path=path, workspace=index).diagnostics
        ]
        assert codes == ["PM007"]
    assert analyze(text, path=kv, workspace=index).diagnostics == ()


# ------------------------------------------------------------- yodoca's own manifests


def _yodoca_manifests() -> list[Path]:
    if not YODOCA.is_dir():
        pytest.skip(f"yodoca's extensions are not available ({YODOCA}); they live in ../shared")
    return sorted(YODOCA.glob("*/manifest.yaml"))


def test_yodocas_own_extensions_get_no_error_and_no_warning() -> None:
    """yodoca loads all 17: a checker that disagrees cries wolf."""
    paths = _yodoca_manifests()
    assert len(paths) == 17
    index = index_files(paths)
    assert len(index) == 17
    for path in paths:
        analysis = analyze(path.read_text(encoding="utf-8"), path=path, workspace=index)
        assert analysis.kind == kinds.MANIFEST, path
        loud = [
            f"{d.code} {d.message}"
            for d in analysis.diagnostics
            if d.severity in (Severity.ERROR, Severity.WARNING)
        ]
        assert loud == [], path


def test_check_of_yodocas_extensions_exits_cleanly(capsys: pytest.CaptureFixture[str]) -> None:
    _yodoca_manifests()
    assert main(["--check", str(YODOCA)]) == 0
    assert "Checked 17 files: 0 errors, 0 warnings" in capsys.readouterr().err


# ------------------------------------------------------------- reading as yodoca reads


#: Plain scalars whose YAML 1.1 reading differs from YAML 1.2's, or that look like it.
PLAIN = [
    "yes", "No", "ON", "off", "y", "n", "true", "False", "null", "~", "0755", "0o755",
    "0x1F", "0b101", "1_000", "1:30", "-1:30", "1:30.5", "1e3", "1.5e3", "1.5e+3", ".5",
    "1.", "+.inf", "-.INF", "012", "09", "0", "-0", "+12", "3.14", "abc", "12:70", "1__0",
]  # fmt: skip


def test_plain_scalars_read_as_pyyaml_reads_them() -> None:
    """The oracle is PyYAML itself (yodoca's reader), when it is installed."""
    yaml = pytest.importorskip("yaml")
    for text in PLAIN:
        expected = yaml.safe_load(f"key: {text}")["key"]
        found = yaml11_plain(text)
        assert (found, type(found)) == (expected, type(expected)), text


@pytest.mark.parametrize(
    "value",
    [True, 0, 1, 2, 0.0, 1.0, 0.5, "yes", "Y", "off", "tRuE", "1", "0", " true", "2", None, []],
)
def test_lax_booleans_are_pydantics(value: object) -> None:
    """The oracle is pydantic in lax mode, the validator yodoca uses."""
    pydantic = pytest.importorskip("pydantic")
    try:
        expected: bool | None = pydantic.TypeAdapter(bool).validate_python(value)
    except pydantic.ValidationError:
        expected = None
    assert lax_bool(value) is expected


@pytest.mark.parametrize(
    "value",
    [10, True, 10.0, 10.5, "10", " 10 ", "+5", "1_000", "10.0", "0010", "0x10", "1e1", "_1",
     "1__0", float("inf"), 1e20, None, "ten"],
)  # fmt: skip
def test_lax_integers_are_pydantics(value: object) -> None:
    pydantic = pytest.importorskip("pydantic")
    try:
        expected: int | None = pydantic.TypeAdapter(int).validate_python(value)
    except pydantic.ValidationError:
        expected = None
    assert lax_int(value) == expected
    assert type(lax_int(value)) is type(expected)


@pytest.mark.parametrize(
    ("line", "enabled"),
    [
        ("", True),
        ("enabled: true\n", True),
        ("enabled: yes\n", True),
        ("enabled: no\n", False),
        ("enabled: Off\n", False),
        ('enabled: "off"\n', False),
        ("enabled: 0\n", False),
        ("enabled: maybe\n", True),  # refused by the schema; counts as enabled here
    ],
)
def test_enabled_is_read_as_yodoca_reads_it(line: str, enabled: bool) -> None:
    manifest = _manifest("/w/kv/manifest.yaml", f"id: kv\nname: KV\nentrypoint: main:Kv\n{line}")
    assert manifest.enabled is enabled


@pytest.mark.parametrize(
    ("line", "has"),
    [("entrypoint: main:A", True), ("entrypoint: null", False), ('entrypoint: ""', False)],
)
def test_an_empty_or_null_entrypoint_is_no_entrypoint(line: str, has: bool) -> None:
    manifest = _manifest("/w/a/manifest.yaml", f"id: a\nname: A\n{line}\nagent: {{}}\n")
    assert manifest.has_entrypoint is has
    assert manifest.declarative is not has


def test_a_manifest_yml_declares_nothing_for_the_others() -> None:
    index = ManifestIndex(
        [
            _manifest("/w/kv/manifest.yml", "id: kv\nname: KV\nentrypoint: main:Kv\n"),
            _manifest("/w/a/manifest.yaml", "id: a\nname: A\nentrypoint: main:A\n"),
        ]
    )
    text = "id: a\nname: A\nentrypoint: main:A\ndepends_on: [kv]\n"
    codes = [d.code for d in analyze(text, path="/w/a/manifest.yaml", workspace=index).diagnostics]
    assert "PM006" in codes


def test_a_configuration_naming_the_retired_pm010_stays_valid() -> None:
    from pack_lsp.core.checks.registry import REGISTRY, unknown_selector

    assert "PM010" not in REGISTRY
    assert unknown_selector("PM010") is None
    assert unknown_selector("PM019") is not None


@pytest.mark.parametrize(
    ("instructions", "flagged"),
    [
        ("prompts/x.jinja2", True),
        ("reviewer.md", True),
        ("Follow the rules in CONTRIBUTING.md", False),
        ("|\n    Read notes.txt first.\n    Then answer.", False),
    ],
)
def test_only_a_path_in_instructions_is_taken_for_one(instructions: str, flagged: bool) -> None:
    text = f"id: a\nname: A\nagent:\n  instructions: {instructions}\n"
    codes = [d.code for d in analyze(text, path="/w/a/manifest.yaml").diagnostics]
    assert ("PM003" in codes) is flagged
