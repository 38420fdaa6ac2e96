"""How a file is recognised (core.recognize) and how packs embedded in Kubernetes
manifests are read (core.hosts): kinds from the parsed top level, exact host
positions for every scalar style and line-end convention, and directory scans."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pack_lsp.core.base import kinds
from pack_lsp.core.checks.analysis import analyze
from pack_lsp.core.model import hosts
from pack_lsp.core.model.discover import find_packs
from pack_lsp.core.model.recognize import HEAD_LIMIT, PARSE_LIMIT, recognize

PACK_YAML = """\
id: demo
name: Demo
version: 1.0.0
template_engine: {version: v1, syntax: "{{variable}}"}
prompts:
  main: {id: main, name: Main, version: 1.0.0, system_template: Hi, tools: [nothing]}
"""
PACK = {
    "id": "demo",
    "name": "Demo",
    "version": "1.0.0",
    "template_engine": {"version": "v1", "syntax": "{{variable}}"},
    "prompts": {
        "main": {
            "id": "main",
            "name": "Main",
            "version": "1.0.0",
            "system_template": "Hi",
            "tools": ["nothing"],
        }
    },
}
SCHEMA = json.dumps(
    {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://promptpack.org/schema/latest/promptpack.schema.json",
        "type": "object",
        "required": ["id", "prompts", "template_engine"],
        "properties": {"prompts": {"type": "object"}, "template_engine": {"type": "object"}},
    },
    indent=2,
)
DEPLOYMENT = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"
PROMPT_CONFIG = (
    "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: PromptConfig\n"
    "metadata: {name: support}\nspec:\n  task_type: support\n"
)
RESOURCE = """\
apiVersion: omnia.altairalabs.ai/v1alpha1
kind: PromptPack
metadata: {name: demo}
spec:
  source: {type: configmap, configMapRef: {name: demo-pack}}
"""


@pytest.mark.parametrize(
    ("name", "text", "kind"),
    [
        ("pack.yaml", PACK_YAML, kinds.PROMPTPACK),
        ("pack.json", json.dumps(PACK), kinds.PROMPTPACK),
        ("one-line.json", json.dumps(PACK, indent=None), kinds.PROMPTPACK),
        ("promptpack.schema.json", SCHEMA, None),
        ("deploy.yaml", DEPLOYMENT, None),
        ("support.yaml", PROMPT_CONFIG, kinds.ARENA),
        (
            "old.provider.yaml",
            PROMPT_CONFIG.replace("promptkit.altairalabs.ai/v1alpha1", "promptkit.dev/v1"),
            kinds.ARENA,
        ),
        (
            "support.json",
            json.dumps({"apiVersion": "promptkit.altairalabs.ai/v1alpha1"}),
            kinds.ARENA,
        ),
        ("omnia.yaml", RESOURCE, kinds.KUBERNETES),
        ("values.yaml", "replicas: 2\nprompts: enabled\n", None),
        # The words alone, quoted anywhere, used to make a JSON file a pack.
        ("other.json", '{"x": {"prompts": 1, "template_engine": 2}}', None),
    ],
)
def test_unnamed_files_are_recognised_from_their_top_level(
    name: str, text: str, kind: str | None
) -> None:
    assert recognize(f"repo/{name}", text).kind == kind


@pytest.mark.parametrize(
    ("name", "text", "what"),
    [
        ("schema.pack.json", SCHEMA, "JSON Schema"),
        ("web.promptpack.yaml", DEPLOYMENT, "Kubernetes `Deployment`"),
    ],
)
def test_files_named_like_packs_that_are_something_else_say_what_they_are(
    name: str, text: str, what: str
) -> None:
    found = recognize(f"repo/{name}", text)
    assert found.kind == kinds.NOT_A_PACK and what in found.what
    result = analyze(text, path=f"repo/{name}")
    assert [d.code for d in result.diagnostics] == ["PP014"]
    assert what in result.diagnostics[0].message


@pytest.mark.parametrize(
    "name", ["support.promptpack.yaml", "support.yaml", "prompts/support.yaml"]
)
@pytest.mark.parametrize("explicit", [False, True])
def test_promptkit_documents_are_arena_documents_whatever_their_name(
    name: str, explicit: bool
) -> None:
    found = recognize(f"repo/{name}", PROMPT_CONFIG, explicit=explicit)
    assert (found.kind, found.promptkit_kind) == (kinds.ARENA, "PromptConfig")
    assert PROMPT_CONFIG[found.span.start : found.span.end] == "PromptConfig"
    complete = PROMPT_CONFIG + '  version: "1.0.0"\n  description: x\n  system_template: Hi\n'
    result = analyze(complete, path=f"repo/{name}")
    assert result.arena is not None and result.arena.kind == "PromptConfig"
    assert [d.code for d in result.diagnostics] == []


def test_promptkit_documents_in_json_and_large_files_are_arena_documents() -> None:
    text = json.dumps({"apiVersion": "promptkit.dev/v1", "kind": "Tool", "spec": {}}, indent=1)
    found = recognize("tools/add.json", text)
    assert (found.kind, found.promptkit_kind) == (kinds.ARENA, "Tool")
    assert text[found.span.start : found.span.end] == '"Tool"'
    filler = "".join(f"    line{i}: value\n" for i in range(PARSE_LIMIT // 18))
    big = PROMPT_CONFIG + "  extra:\n" + filler
    assert len(big) > PARSE_LIMIT
    found = recognize("data/big.yaml", big)
    assert (found.kind, found.promptkit_kind) == (kinds.ARENA, "PromptConfig")


def test_a_file_named_explicitly_is_a_pack_unless_it_is_something_else() -> None:
    assert recognize("notes.yaml", "title: x\n", explicit=True).kind == kinds.PROMPTPACK
    assert recognize("deploy.yaml", DEPLOYMENT, explicit=True).kind == kinds.NOT_A_PACK


def test_a_large_file_is_judged_by_the_top_level_keys_of_its_head() -> None:
    filler = "".join(f"    line {i}: value\n" for i in range(PARSE_LIMIT // 18))
    big = "id: big\ntemplate_engine: {version: v1}\nprompts:\n  p:\n" + filler
    assert len(big) > PARSE_LIMIT
    assert recognize("data/big.yaml", big).kind == kinds.PROMPTPACK
    other = "items:\n  p:\n" + filler + "prompts: {}\n"
    assert recognize("data/other.yaml", other).kind is None
    head = json.dumps({"$schema": "https://promptpack.org/schema/v1.9.0/x.json", "id": "j"})
    assert recognize("data/big.json", head[:-1] + ", " + " " * HEAD_LIMIT).kind == (
        kinds.PROMPTPACK
    )


# ------------------------------------------------------------------ embedded packs


def _manifest(entry: str, line_end: str = "\n") -> str:
    text = f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo-pack\ndata:\n{entry}"
    return text.replace("\n", line_end)


def _block(header: str, body: str, indent: int = 4) -> str:
    lines = body.splitlines()
    return f"  pack.yaml: {header}\n" + "".join(
        (" " * indent + line if line else "") + "\n" for line in lines
    )


@pytest.mark.parametrize("line_end", ["\n", "\r\n"])
@pytest.mark.parametrize("header", ["|", "|-", "|+", "|4", "|2-"])
def test_embedded_yaml_diagnostics_land_on_the_host_text(header: str, line_end: str) -> None:
    indent = 2 + int(header[1]) if header[1:2].isdigit() else 4
    text = _manifest(_block(header, PACK_YAML + "\n", indent), line_end)
    result = analyze(text, path="deploy/demo.yaml")
    assert result.kind == kinds.KUBERNETES
    (diag,) = [d for d in result.diagnostics if d.code == "PP301"]
    start = text.index("nothing")
    assert (diag.span.start, diag.span.end) == (start, start + len("nothing"))
    assert result.embedded[0].analysis is not None


def test_tabs_and_wide_characters_keep_their_columns() -> None:
    body = PACK_YAML.replace("system_template: Hi", 'system_template: "\t\U0001f600 Hi"')
    text = _manifest(_block("|", body))
    result = analyze(text, path="deploy/demo.yaml")
    (diag,) = [d for d in result.diagnostics if d.code == "PP301"]
    assert text[diag.span.start : diag.span.end] == "nothing"


def test_embedded_json_and_one_line_entries() -> None:
    pretty = json.dumps(PACK, indent=2)
    text = _manifest(_block("|", pretty).replace("pack.yaml", "pack.json"))
    (diag,) = [d for d in analyze(text, path="k/a.yaml").diagnostics if d.code == "PP301"]
    assert text[diag.span.start : diag.span.end] == '"nothing"'
    one_line = _manifest("  pack.json: '" + json.dumps(PACK) + "'\n")
    (diag,) = [d for d in analyze(one_line, path="k/b.yaml").diagnostics if d.code == "PP301"]
    assert one_line[diag.span.start : diag.span.end] == '"nothing"'


def test_an_entry_that_is_not_verbatim_is_reported_on_its_key() -> None:
    escaped = _manifest(f"  pack.json: {json.dumps(json.dumps(PACK))}\n")
    stream = hosts.read_stream(escaped)
    assert stream is not None and stream.embedded[0].shadow is None
    (diag,) = [d for d in analyze(escaped, path="k/c.yaml").diagnostics if d.code == "PP301"]
    assert escaped[diag.span.start : diag.span.end] == "pack.json"
    assert "of the `pack.json` entry's text" in diag.message


def test_a_folded_json_entry_is_checked_at_its_place() -> None:
    """Folding turns line breaks into spaces, which JSON reads alike."""
    folded = _manifest(_block(">", json.dumps(PACK, indent=2)).replace("pack.yaml", "pack.json"))
    stream = hosts.read_stream(folded)
    assert stream is not None and stream.embedded[0].shadow is not None
    (diag,) = [d for d in analyze(folded, path="k/c.yaml").diagnostics if d.code == "PP301"]
    assert folded[diag.span.start : diag.span.end] == '"nothing"'


def test_entries_that_are_not_packs_are_left_alone() -> None:
    text = _manifest(
        "  settings.json: '{\"prompts\": 3}'\n  notes.yaml: |\n    prompts: none\n"
        "  app.properties: prompts=1\n"
    )
    assert hosts.read_stream(text) is not None
    assert recognize("k/d.yaml", text).kind is None


def test_config_map_references_are_looked_up_in_the_file_and_beside_it(
    tmp_path: Path,
) -> None:
    (tmp_path / "maps.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: beside}\ndata: {}\n", "utf-8"
    )
    (tmp_path / "kustomization.yaml").write_text(
        "configMapGenerator:\n  - name: generated\n    files: [pack.json]\n", "utf-8"
    )
    refs = "\n---\n".join(
        RESOURCE.replace("demo-pack", name) for name in ("beside", "generated", "elsewhere")
    )
    path = tmp_path / "packs.yaml"
    path.write_text(refs, "utf-8")
    found = analyze(refs, path=path).diagnostics
    assert [(d.code, refs[d.span.start : d.span.end]) for d in found] == [("PK001", "elsewhere")]


def test_directory_scan_finds_packs_and_only_packs(tmp_path: Path) -> None:
    files = {
        "packs/support.promptpack.yaml": PACK_YAML,
        "packs/unnamed.yaml": PACK_YAML,
        "packs/compiled.pack.json": json.dumps(PACK),
        "schemas/promptpack.schema.json": SCHEMA,
        "deploy/web.yaml": DEPLOYMENT,
        "deploy/pack.yaml": _manifest(_block("|", PACK_YAML)),
        "deploy/omnia.yaml": RESOURCE,
        "arena/prompts/support.yaml": PROMPT_CONFIG,
        "chart/Chart.yaml": "apiVersion: v2\nname: demo\n",
        "chart/templates/pack.yaml": "{{- if .Values.pack }}\n" + RESOURCE + "{{- end }}\n",
        "chart/values.yaml": "pack: true\n",
        "misnamed/deploy.promptpack.yaml": DEPLOYMENT,
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, "utf-8")
    found = sorted(p.relative_to(tmp_path).as_posix() for p in find_packs(tmp_path))
    assert found == [
        "arena/prompts/support.yaml",
        "deploy/omnia.yaml",
        "deploy/pack.yaml",
        "misnamed/deploy.promptpack.yaml",
        "packs/compiled.pack.json",
        "packs/support.promptpack.yaml",
        "packs/unnamed.yaml",
    ]


def test_helm_templates_named_explicitly_say_why_they_are_not_checked(tmp_path: Path) -> None:
    chart = tmp_path / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: demo\n", "utf-8")
    template = chart / "templates" / "support.promptpack.yaml"
    found = recognize(str(template), "{{ .Values.pack | toYaml }}\n")
    assert found.kind == kinds.NOT_A_PACK and "Helm chart template" in found.what


def test_documents_of_a_stream_are_those_of_a_parse_at_their_place() -> None:
    # Each document is parsed alone and moved to its offset (one with aliases is
    # parsed in a blanked shadow instead): the same nodes as parsing it in place.
    from pack_lsp.core.syntax.reuse import tree_facts
    from pack_lsp.core.syntax.yamltree import parse

    text = (
        "# a stream\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"
        "---\napiVersion: v1\nkind: ConfigMap\nmetadata: &m {name: b}\nother: *m\n"
        "---\r\nkind: Deployment\napiVersion: apps/v1\nspec: {replicas: 2}\n"
    )
    starts = hosts.document_starts(text)
    ends = [*starts[1:], len(text)]
    expected = [
        tree_facts(parse(hosts.blank(text[:s]) + text[s:e] + hosts.blank(text[e:])).root)
        for s, e in zip(starts, ends, strict=True)
    ]
    assert [tree_facts(root) for root in hosts.documents(text)] == expected
