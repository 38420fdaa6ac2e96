"""Generated and mutated packs: ``analyze`` never raises, stays fast, and reports
ranges inside the document, on character boundaries, the same way every time.

Two sources of input: hypothesis strategies that write pack-shaped YAML and JSON
(templates, tools, agents, workflows, anchors, flow and block styles, emoji, CJK,
U+2028, NEL, tabs), and byte-level mutations of real packs (the corpus in
../shared when present, the bundled fixtures and examples otherwise).

The ``ci`` profile (default) is time-boxed; ``HYPOTHESIS_PROFILE=deep`` runs
far more examples::

    HYPOTHESIS_PROFILE=deep .venv/bin/python -m pytest tests/test_fuzz.py -q
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pack_lsp.core.base.diagnostics import Diagnostic
from pack_lsp.core.base.source import decode
from pack_lsp.core.checks.analysis import Analysis, analyze
from pack_lsp.server.positions import PositionConverter
from paths import ROOT, SHARED
from shadows import assert_reported_as_shadows

settings.register_profile(
    "ci",
    max_examples=300,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "deep",
    max_examples=5000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

#: The Kubernetes golden cases: hosts of embedded packs, mutated by one test.
HOSTS = [p.read_bytes() for p in sorted((ROOT / "tests" / "golden" / "kubernetes").rglob("*.yaml"))]

CONVERTERS = (PositionConverter("utf-16"), PositionConverter("utf-8"))

#: Seconds one analysis of a generated input may take (a guard, not a benchmark).
BOUND = 5.0


def _corpus() -> list[bytes]:
    paths = [ROOT / "examples" / "support.promptpack.yaml"]
    paths += sorted((ROOT / "tests" / "fixtures").rglob("*.yaml"))
    paths += sorted((ROOT / "tests" / "fixtures").rglob("*.json"))
    corpus = SHARED / "corpus" / "valid"
    if corpus.is_dir():
        paths += sorted(p for p in corpus.iterdir() if p.suffix in (".yaml", ".yml", ".json"))
    out = [p.read_bytes() for p in paths if p.is_file() and p.stat().st_size < 200_000]
    return out[:60]


CORPUS = _corpus()

# --------------------------------------------------------------- the properties


def check_properties(
    text: str, pre: list[Diagnostic] | None = None, path: str = "fuzz.promptpack.yaml"
) -> Analysis:
    """Spans count code points; each end must convert to UTF-16 and UTF-8 LSP
    positions and back unchanged."""
    start = time.process_time()
    first = analyze(text, path=path, pre_diagnostics=pre)
    assert time.process_time() - start < BOUND
    n = len(first.text)
    assert not any("\ud800" <= ch <= "\udfff" for ch in first.text)
    for d in first.diagnostics:
        assert 0 <= d.span.start <= d.span.end <= n, (d.code, d.span, n)
        for r in d.related:
            assert 0 <= r.span.start <= r.span.end <= n, (d.code, r.span, n)
        for offset in (d.span.start, d.span.end):
            # On a boundary in every encoding: LSP position and back is the identity
            # (an offset inside a surrogate pair or a CRLF would not come back).
            for conv in CONVERTERS:
                back = conv.from_lsp(first.lines, conv.to_lsp(first.lines, offset))
                assert back == offset, (d.code, offset, conv.encoding)
    again = analyze(text, path=path, pre_diagnostics=pre)
    assert again.diagnostics == first.diagnostics
    return first


# --------------------------------------------------------------- generated packs

ODD = [
    "é",
    "日",
    "本",
    "😀",
    "\u2028",
    "\u2029",
    "\x85",
    "\t",
    "𝔘",
    "\u200d",
    " ",
    "#",
    ":",
    "'",
    '"',
]
words = st.text(alphabet=st.sampled_from([*"abcxyz_-. {}[],&*!|>", *ODD]), min_size=0, max_size=12)
idents = st.text(alphabet="abcdefgh_", min_size=1, max_size=6)
templates = st.lists(
    st.one_of(
        words,
        idents.map(lambda n: "{{" + n + "}}"),
        idents.map(lambda n: "{{fragments." + n + "}}"),
        st.sampled_from(["{{", "}}", "{{#each items}}", "{{/each}}", "{x}}"]),
    ),
    max_size=6,
).map("".join)


@st.composite
def pack_data(draw: st.DrawFn) -> dict[str, object]:
    prompts = {}
    for key in draw(st.lists(idents, min_size=0, max_size=3, unique=True)):
        prompt: dict[str, object] = {
            "id": key,
            "name": draw(words),
            "version": draw(st.sampled_from(["1.0.0", "x", 1])),
            "system_template": draw(templates),
        }
        if draw(st.booleans()):
            prompt["variables"] = [
                {"name": v, "type": "string", "required": draw(st.booleans())}
                for v in draw(st.lists(idents, max_size=3, unique=True))
            ]
        if draw(st.booleans()):
            prompt["tools"] = draw(st.lists(idents, max_size=3))
        prompts[key] = prompt
    data: dict[str, object] = {
        "id": draw(words),
        "name": draw(words),
        "version": "1.0.0",
        "template_engine": {"version": "v1", "syntax": "{{variable}}"},
        "prompts": prompts,
    }
    if draw(st.booleans()):
        data["tools"] = {
            t: {
                "name": t,
                "description": draw(words),
                "parameters": draw(
                    st.sampled_from(
                        [
                            {"type": "object", "properties": {"q": {"type": "string"}}},
                            {"type": "object", "required": [{"q": 1}]},
                            {"required": "q"},
                            [],
                        ]
                    )
                ),
            }
            for t in draw(st.lists(idents, max_size=3, unique=True))
        }
    if draw(st.booleans()) and prompts:
        keys = list(prompts)
        data["agents"] = {"entry": keys[0], "members": {k: {"description": "d"} for k in keys}}
    if draw(st.booleans()) and prompts:
        keys = list(prompts)
        data["workflow"] = {
            "version": 1,
            "entry": draw(st.sampled_from([*keys, "missing"])),
            "states": {k: {"prompt_task": k, "on_event": {"Next": keys[0]}} for k in keys},
        }
    if draw(st.booleans()):
        data["fragments"] = {k: draw(templates) for k in draw(st.lists(idents, max_size=2))}
    return data


def _yaml(value: object, indent: int, flow: bool) -> str:
    pad = " " * indent
    if isinstance(value, dict):
        if not value:
            return "{}"
        if flow:
            return (
                "{"
                + ", ".join(f"{json.dumps(k)}: {_yaml(v, 0, True)}" for k, v in value.items())
                + "}"
            )
        return "".join(
            f"\n{pad}{json.dumps(k, ensure_ascii=False)}: {_yaml(v, indent + 2, False)}"
            for k, v in value.items()
        )
    if isinstance(value, list):
        if not value or flow:
            return "[" + ", ".join(_yaml(v, 0, True) for v in value) + "]"
        return "".join(f"\n{pad}- {_yaml(v, indent + 2, True)}" for v in value)
    return json.dumps(value, ensure_ascii=False)


@given(pack_data(), st.booleans())
def test_generated_json_and_yaml(data: dict[str, object], flow: bool) -> None:
    check_properties(json.dumps(data, ensure_ascii=flow, indent=None if flow else 2))
    check_properties(_yaml(data, 0, flow).lstrip("\n") + "\n")


@given(pack_data(), st.sampled_from(["name", "id"]))
def test_generated_with_anchors(data: dict[str, object], key: str) -> None:
    text = _yaml(data, 0, False).lstrip("\n") + "\n"
    text = text.replace(f'"{key}": ', f'"{key}": &a ', 1)
    text += "extra: *a\nmerged: {<<: {k: 1}, k: *a}\nbroken: *zz\n"
    check_properties(text)


# ------------------------------------------------------- packs inside ConfigMaps


def _config_map(name: str, key: str, body: str) -> str:
    block = "".join(f"    {line}\n" if line else "\n" for line in body.splitlines())
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n  {key}: |\n{block}"


@settings(max_examples=min(settings().max_examples, 100))
@given(st.lists(st.tuples(pack_data(), st.booleans()), min_size=1, max_size=3), st.booleans())
def test_generated_config_map_hosts(packs: list[tuple[dict[str, object], bool]], ref: bool) -> None:
    """A Kubernetes stream of ConfigMaps embedding generated packs (YAML and JSON, in
    literal blocks), with a PromptPack resource and an anchored document between
    them: analysed as the host it is, every range inside the file."""
    documents = []
    for i, (data, as_json) in enumerate(packs):
        body = json.dumps(data, indent=2) if as_json else _yaml(data, 0, False).lstrip("\n")
        documents.append(_config_map(f"m{i}", "pack.json" if as_json else "pack.yaml", body))
        documents.append(f"kind: Service\napiVersion: v1\nmetadata: &meta{i} {{name: s{i}}}\n")
    if ref:
        documents.append(
            "apiVersion: omnia.altairalabs.ai/v1alpha1\nkind: PromptPack\n"
            "metadata: {name: p}\nspec: {source: {configMapRef: {name: m0}}}\n"
        )
    assert_reported_as_shadows(check_properties("---\n".join(documents), path="fuzz-host.yaml"))


@settings(max_examples=min(settings().max_examples, 100))
@given(st.data())
def test_mutated_config_map_host(data: st.DataObject) -> None:
    """The bundled Kubernetes cases, mutated as the corpus is."""
    raw = bytearray(data.draw(st.sampled_from(HOSTS)))
    for _ in range(data.draw(st.integers(1, 3))):
        if not raw:
            break
        at = data.draw(st.integers(0, len(raw) - 1))
        piece = data.draw(
            st.sampled_from([*ODD, "{{", "&x ", "*x", "- ", ": ", "\n", "---\n", "|"])
        )
        if data.draw(st.booleans()):
            raw[at:at] = piece.encode("utf-8")
        else:
            del raw[at : at + data.draw(st.integers(1, 8))]
    text, pre = decode(bytes(raw))
    assert_reported_as_shadows(check_properties(text, pre, path="fuzz-host.yaml"), pre)


# ------------------------------------------------------------ arena projects

ARENA_HEAD = "apiVersion: promptkit.altairalabs.ai/v1alpha1\n"
#: What a `file:` entry may name: the project's own files, missing ones, and paths
#: that leave the project (never read: core/base/roots.py).
FILE_NAMES = [
    "prompts/a.yaml",
    "prompts/b.yaml",
    "providers/mock.yaml",
    "missing.yaml",
    "../outside.yaml",
    "/etc/hostname",
    "prompts",
    "",
]


@st.composite
def arena_project(draw: st.DrawFn) -> dict[str, str]:
    """The files of an arena project: a config naming generated files, and prompt
    configs with generated templates (some of them mutated)."""
    entries = {
        section: draw(st.lists(st.sampled_from(FILE_NAMES), max_size=3))
        for section in ("prompt_configs", "providers", "scenarios", "tools")
    }
    spec = "".join(
        f"  {section}:\n"
        + "".join(
            f"    - id: p{i}\n      file: {json.dumps(name)}\n" for i, name in enumerate(names)
        )
        for section, names in entries.items()
        if names
    )
    files = {"config.arena.yaml": f"{ARENA_HEAD}kind: Arena\nmetadata: {{name: f}}\nspec:\n{spec}"}
    for name in ("prompts/a.yaml", "prompts/b.yaml"):
        template = draw(templates)
        files[name] = (
            f"{ARENA_HEAD}kind: PromptConfig\nmetadata: {{name: {name[8]}}}\nspec:\n"
            f"  task_type: {draw(idents)}\n  system_template: {json.dumps(template)}\n"
            f"  allowed_tools: [{draw(idents)}]\n"
        )
    files["providers/mock.yaml"] = (
        f"{ARENA_HEAD}kind: Provider\nmetadata: {{name: mock}}\nspec: {{id: mock, type: mock}}\n"
    )
    victim = draw(st.sampled_from(sorted(files)))
    text = files[victim]
    if text:
        at = draw(st.integers(0, len(text) - 1))
        files[victim] = (
            text[:at] + draw(st.sampled_from([*ODD, ": ", "- ", "&a ", "*a", "\n"])) + text[at:]
        )
    return files


@settings(max_examples=min(settings().max_examples, 100))
@given(arena_project())
def test_generated_arena_projects(files: dict[str, str]) -> None:
    """Checking a project never raises, reads nothing outside it, and puts every
    problem inside the file it names."""
    import tempfile

    from pack_lsp.core.checks.arena.check import check_project
    from pack_lsp.core.model.arena.project import load_project

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "project"
        for name, text in files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text, encoding="utf-8")
        (root / ".git").mkdir()
        (Path(folder) / "outside.yaml").write_text(files["prompts/a.yaml"], encoding="utf-8")
        project = load_project(root / "config.arena.yaml")
        if project is None:
            return
        resolved = root.resolve()
        assert all(Path(p).resolve().is_relative_to(resolved) for p in project.files)
        checked = check_project(project)
        for path in project.paths():
            length = len(project.files[path].text)
            for d in checked.diagnostics_for(path):
                assert 0 <= d.span.start <= d.span.end <= length, (d.code, d.span, length)


# --------------------------------------------------------------- mutated packs


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    raw = bytearray(draw(st.sampled_from(CORPUS)))
    for _ in range(draw(st.integers(1, 4))):
        if not raw:
            break
        at = draw(st.integers(0, len(raw) - 1))
        op = draw(st.sampled_from(["delete", "insert", "duplicate", "indent", "swap", "truncate"]))
        if op == "delete":
            del raw[at : at + draw(st.integers(1, 8))]
        elif op == "insert":
            piece = draw(st.sampled_from([*ODD, "{{", "}}", "&x ", "*x", "- ", ": ", "\n", "\r"]))
            raw[at:at] = piece.encode("utf-8")
        elif op == "duplicate":
            raw[at:at] = raw[at : at + draw(st.integers(1, 200))]
        elif op in ("indent", "swap"):
            lines = bytes(raw).split(b"\n")
            i = draw(st.integers(0, len(lines) - 1))
            if op == "indent":
                lines[i] = b" " * draw(st.integers(1, 3)) + lines[i]
                if draw(st.booleans()):
                    lines[i] = lines[i].lstrip(b" ")
            else:
                j = draw(st.integers(0, len(lines) - 1))
                lines[i], lines[j] = lines[j], lines[i]
            raw = bytearray(b"\n".join(lines))
        else:
            del raw[at:]
    return bytes(raw)


@given(mutated())
def test_mutated_corpus(raw: bytes) -> None:
    text, pre = decode(raw)
    check_properties(text, pre)


def test_corpus_is_available() -> None:
    assert len(CORPUS) >= 3
    assert all(isinstance(p, bytes) and p for p in CORPUS)
    assert Path(ROOT / "examples").is_dir()
