"""Structural guarantees of the code base."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "lsp" / "pack_lsp" / "core"
FORBIDDEN = ("pygls", "lsprotocol")


def test_core_never_imports_lsp_libraries() -> None:
    offenders = []
    for path in CORE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                if name.split(".")[0] in FORBIDDEN:
                    offenders.append(f"{path.relative_to(ROOT)}: {name}")
    assert offenders == []


def test_core_imports_without_lsp_libraries_loaded() -> None:
    code = (
        "import sys; import pack_lsp.core; from pack_lsp.core import analyze;"
        "analyze('id: x', kind='promptpack');"
        f"bad = [m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r}];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_yaml_parser_runs_on_libyaml() -> None:
    """ruamel.yaml falls back to pure Python silently without its C extension."""
    import inspect

    from ruamel.yaml import cyaml

    from pack_lsp.core.yamltree import events

    parser = cyaml.CParser  # type: ignore[attr-defined]
    assert "_ruamel_yaml" in parser.__module__
    # A class compiled from C has no Python source; a pure-Python fallback would.
    assert not inspect.isfunction(parser.__init__)
    assert "from ruamel.yaml.cyaml import CParser" in inspect.getsource(events.event_source)


def test_rules_doc_is_in_sync() -> None:
    from pack_lsp.core.rulesdoc import render

    doc = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert doc == render(), "regenerate: python -m pack_lsp.core.rulesdoc > docs/rules.md"


def test_every_rule_is_documented_with_example_and_fix() -> None:
    from pack_lsp.core.registry import REGISTRY

    for code, rule in REGISTRY.items():
        assert rule.summary and rule.example and rule.fix and rule.name, code
        assert code[:2] in ("PP", "PM", "PK", "PA") and len(code) == 5, code


# ------------------------------------------------------------------ import graph

PACKAGE = ROOT / "lsp" / "pack_lsp"

#: The layers, lowest first. A module may import modules of its own layer or a lower
#: one, never a higher one. ``x.*`` is package ``x`` and everything in it, other
#: names match one module; the first match decides a module's layer.
#: ``rules.document``, ``rules.schema``, ``rules.suppressions`` and
#: ``rules.arena_documents`` only declare rules
#: (no checks): the YAML composer, the schema check and the suppression comments
#: build diagnostics of those rules from below the model.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "text",
        (
            "pack_lsp",
            "pack_lsp.core",
            "pack_lsp.core.text",
            "pack_lsp.core.lazy",
            "pack_lsp.core.validation",
            "pack_lsp.core.suggest",
            "pack_lsp.core.graphs",
            "pack_lsp.core.kinds",
            "pack_lsp.core.resources",
            "pack_lsp.core.arena_schemas",
            "pack_lsp.core.fixes",
            "pack_lsp.core.tomlkeys",
            "pack_lsp.core.diagnostics",
            "pack_lsp.core.versions",
            "pack_lsp.core.source",
            "pack_lsp.core.rules",
            "pack_lsp.core.rules.document",
            "pack_lsp.core.rules.schema",
            "pack_lsp.core.rules.suppressions",
            "pack_lsp.core.rules.arena_documents",
        ),
    ),
    (
        "tree",
        (
            "pack_lsp.core.yamltree.*",
            "pack_lsp.core.scalars",
            "pack_lsp.core.jsontree",
            "pack_lsp.core.reuse",
        ),
    ),
    (
        "model",
        (
            "pack_lsp.core.model.*",
            "pack_lsp.core.templates",
            "pack_lsp.core.config",
            "pack_lsp.core.schema",
            "pack_lsp.core.schemawalk",
            "pack_lsp.core.vocabulary",
            "pack_lsp.core.profiles",
            "pack_lsp.core.context",
            "pack_lsp.core.resolve",
            "pack_lsp.core.summary",
            "pack_lsp.core.recording",
            "pack_lsp.core.discover",
            "pack_lsp.core.hosts",
            "pack_lsp.core.recognize",
            "pack_lsp.core.arena",
            "pack_lsp.core.arena.project",
            "pack_lsp.core.arena.compile",
            "pack_lsp.core.arena_documents",
            "pack_lsp.core.cards.*",
            "pack_lsp.core.manifest",
            "pack_lsp.core.manifest.model",
            "pack_lsp.core.manifest.workspace",
            "pack_lsp.core.manifest.files",
            "pack_lsp.core.manifest.topology",
        ),
    ),
    (
        "rules",
        (
            "pack_lsp.core.rules.*",
            "pack_lsp.core.manifest.check",
            "pack_lsp.core.arena.check",
            "pack_lsp.core.arena.fixes",
            "pack_lsp.core.arena.workspace",
            "pack_lsp.core.registry",
            "pack_lsp.core.suppress",
            "pack_lsp.core.analysis",
            "pack_lsp.core.incremental",
            "pack_lsp.core.rulesdoc",
            "pack_lsp.core.examples",
        ),
    ),
    (
        "language features",
        (
            "pack_lsp.core.language.*",
            "pack_lsp.core.arena.navigation",
            "pack_lsp.core.arena.callhierarchy",
        ),
    ),
    (
        "server and CLI",
        ("pack_lsp.render.*", "pack_lsp.cli.*", "pack_lsp.server.*", "pack_lsp.__main__"),
    ),
)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _runtime_imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement that runs, at any depth (``if TYPE_CHECKING`` excluded)."""
    out: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import | ast.ImportFrom):
            out.append(node)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return out


def import_graph() -> dict[str, set[str]]:
    """Module → the ``pack_lsp`` modules it imports, read from the source.

    Function-level imports count: they run too, just later. A package's own
    ``__init__`` is not an edge of its submodules (Python loads it first, but a lazy
    ``__init__`` imports nothing back).
    """
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        edges: set[str] = set()
        for node in _runtime_imports(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                base = node.module or ""
                if node.level:
                    anchor = name.split(".") if is_package else name.split(".")[:-1]
                    anchor = anchor[: len(anchor) - node.level + 1]
                    base = ".".join([*anchor, *([base] if base else [])])
                targets = [
                    f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                    for a in node.names
                ]
            edges.update(t for t in targets if t in modules and t != name)
        graph[name] = edges
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return out


def _layer(module: str) -> int:
    for level, (_, patterns) in enumerate(LAYERS):
        for pattern in patterns:
            package = pattern.removesuffix(".*")
            if module == package or (pattern.endswith(".*") and module.startswith(package + ".")):
                return level
    raise AssertionError(f"{module} is in no layer: add it to LAYERS")


def test_import_graph_is_read_from_the_source() -> None:
    graph = import_graph()
    # A top-level import, a function-level import and a package import, as written.
    assert "pack_lsp.core.text" in graph["pack_lsp.core.yamltree.nodes"]
    assert "pack_lsp.server" in graph["pack_lsp.cli.serve"]
    assert "pack_lsp.server.app" in graph["pack_lsp.server"]
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_import_graph_has_no_cycles() -> None:
    assert _cycles(import_graph()) == []


def test_layers_point_one_way() -> None:
    graph = import_graph()
    upward = [
        f"{a} ({LAYERS[_layer(a)][0]}) imports {b} ({LAYERS[_layer(b)][0]})"
        for a, targets in sorted(graph.items())
        for b in sorted(targets)
        if _layer(b) > _layer(a)
    ]
    assert upward == []


def _loaded_after(code: str) -> set[str]:
    """Top-level names and ``pack_lsp`` modules in ``sys.modules`` after running ``code``."""
    script = (
        "import sys\n"
        + code
        + "\nsys.stdout.flush()\n"
        + "print('\\n'.join(sorted(sys.modules)), file=sys.stderr)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=True
    )
    return set(proc.stderr.split())


def test_importing_text_loads_no_validator() -> None:
    loaded = _loaded_after("import pack_lsp.core.text")
    assert {"jsonschema", "pydantic", "ruamel", "pack_lsp.core.model"}.isdisjoint(loaded)


def test_check_never_imports_the_server_stack() -> None:
    loaded = _loaded_after(
        "from pack_lsp.cli import main\n"
        "main(['--check', '--format', 'json', 'examples/support.promptpack.yaml'])"
    )
    assert "pack_lsp.core.analysis" in loaded  # it did check
    assert {"pygls", "lsprotocol", "pack_lsp.server"}.isdisjoint(loaded)


_MINIMAL_PACK = """\
id: minimal
name: Minimal
version: 1.0.0
template_engine:
  version: v1
  syntax: "{{variable}}"
prompts:
  greet:
    id: greet
    name: Greeter
    version: 1.0.0
    system_template: Say hello.
    validators:
      - type: banned_words
        fail_on_violation: false
"""


def _check_loads(path: Path | str) -> tuple[set[str], str]:
    """Modules loaded by ``--check PATH --format json`` in a fresh interpreter, and
    the JSON it printed."""
    script = (
        "import sys\n"
        "from pack_lsp.cli import main\n"
        f"main(['--check', '--format', 'json', {str(path)!r}])\n"
        "sys.stdout.flush()\n"
        "print('\\n'.join(sorted(sys.modules)), file=sys.stderr)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=False
    )
    return set(proc.stderr.split()), proc.stdout


def _validator_stack(loaded: set[str]) -> set[str]:
    return {m for m in loaded if m.split(".")[0] in ("jsonschema", "referencing")}


def test_check_of_a_valid_pack_with_agents_skips_jsonschema() -> None:
    """A valid pack and valid cards are told apart by the compiled validator alone:
    jsonschema (and its referencing stack) is only loaded to explain an error."""
    loaded, _ = _check_loads("examples/support.promptpack.yaml")
    assert "pack_lsp.core.rules.cards" in loaded  # the card rules ran
    assert "pack_lsp.core.cards.problems" in loaded
    assert _validator_stack(loaded) == set()
    assert {"concurrent.futures.process", "pack_lsp.server", "pack_lsp.core.model"} & loaded == {
        "pack_lsp.core.model"
    }


def test_check_reports_a_deprecated_property_without_jsonschema(tmp_path: Path) -> None:
    """The only failure of this pack is a deprecated property (PP111): it is reported
    from the compiled validator, and no card module is loaded for a pack without agents."""
    pack = tmp_path / "minimal.promptpack.yaml"
    pack.write_text(_MINIMAL_PACK, encoding="utf-8")
    loaded, out = _check_loads(pack)
    codes = [d["code"] for f in json.loads(out)["files"] for d in f["diagnostics"]]
    assert codes == ["PP111"]
    assert _validator_stack(loaded) == set()
    # Only the constants the command line offers (`--a2a-version`).
    cards = {m for m in loaded if m.startswith("pack_lsp.core.cards")}
    assert cards == {"pack_lsp.core.cards", "pack_lsp.core.cards.names"}


def test_check_of_an_invalid_pack_explains_with_jsonschema(tmp_path: Path) -> None:
    """The other side of the two tests above: a schema error is explained by jsonschema."""
    pack = tmp_path / "minimal.promptpack.yaml"
    pack.write_text(_MINIMAL_PACK.replace("version: 1.0.0\ntemplate", "version: 1\ntemplate"))
    loaded, out = _check_loads(pack)
    codes = [d["code"] for f in json.loads(out)["files"] for d in f["diagnostics"]]
    assert "PP111" in codes and len(codes) > 1
    assert "jsonschema.validators" in loaded


def test_version_imports_almost_nothing() -> None:
    loaded = _loaded_after(
        "from pack_lsp.cli import main\ntry:\n    main(['--version'])\nexcept SystemExit:\n    pass"
    )
    ours = {m for m in loaded if m.split(".")[0] == "pack_lsp"}
    assert ours == {"pack_lsp", "pack_lsp.cli"}
    assert {"pydantic", "jsonschema", "ruamel", "pygls"}.isdisjoint(loaded)


def test_rules_doc_check_mode_spots_a_stale_file(tmp_path: Path) -> None:
    from pack_lsp.core.rulesdoc import main, render

    current = tmp_path / "rules.md"
    current.write_text(render(), encoding="utf-8")
    stale = tmp_path / "stale.md"
    stale.write_text(render().replace("PP301", "PP3O1"), encoding="utf-8")
    assert main(["--check", str(current)]) == 0
    assert main(["--check", str(stale)]) == 1
