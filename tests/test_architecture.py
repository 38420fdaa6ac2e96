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

    from pack_lsp.core.syntax.yamltree import events

    parser = cyaml.CParser  # type: ignore[attr-defined]
    assert "_ruamel_yaml" in parser.__module__
    # A class compiled from C has no Python source; a pure-Python fallback would.
    assert not inspect.isfunction(parser.__init__)
    assert "from ruamel.yaml.cyaml import CParser" in inspect.getsource(events.event_source)


def test_rules_doc_is_in_sync() -> None:
    from pack_lsp.core.checks.rulesdoc import render

    doc = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert doc == render(), "regenerate: python -m pack_lsp.core.checks.rulesdoc > docs/rules.md"


def test_every_rule_is_documented_with_example_and_fix() -> None:
    from pack_lsp.core.checks.registry import REGISTRY

    for code, rule in REGISTRY.items():
        assert rule.summary and rule.example and rule.fix and rule.name, code
        assert code[:2] in ("PP", "PM", "PK", "PA", "PT") and len(code) == 5, code


# ------------------------------------------------------------------ import graph

PACKAGE = ROOT / "lsp" / "pack_lsp"

#: The layers, lowest first: each is a folder of ``pack_lsp/core`` (or, for the top
#: floor, a folder of ``pack_lsp``). A module's layer is the folder it lives in; it may
#: import its own layer or a lower one, never a higher one. ``pack_lsp`` and
#: ``pack_lsp.core`` are facades that load their names lazily, so they sit on the floor.
LAYER_FOLDERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("base", ("pack_lsp.core.base",)),
    ("syntax", ("pack_lsp.core.syntax",)),
    ("model", ("pack_lsp.core.model",)),
    ("checks", ("pack_lsp.core.checks",)),
    ("ide", ("pack_lsp.core.ide",)),
    ("server and CLI", ("pack_lsp.render", "pack_lsp.cli", "pack_lsp.server", "pack_lsp.__main__")),
)
FACADES = ("pack_lsp", "pack_lsp.core")


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
    if module in FACADES:
        return 0
    for level, (_, folders) in enumerate(LAYER_FOLDERS):
        for folder in folders:
            if module == folder or module.startswith(folder + "."):
                return level
    raise AssertionError(f"{module} lives in no layer folder: move it into one")


def _folder(module: str, packages: set[str]) -> str:
    """The folder a module lives in (a package is its own folder)."""
    return module if module in packages else module.rpartition(".")[0]


def test_import_graph_is_read_from_the_source() -> None:
    graph = import_graph()
    # A top-level import, a function-level import and a package import, as written.
    assert "pack_lsp.core.base.text" in graph["pack_lsp.core.syntax.yamltree.nodes"]
    assert "pack_lsp.server" in graph["pack_lsp.cli.serve"]
    assert "pack_lsp.server.app" in graph["pack_lsp.server"]
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_import_graph_has_no_cycles() -> None:
    assert _cycles(import_graph()) == []


def test_layers_point_one_way() -> None:
    graph = import_graph()
    upward = [
        f"{a} ({LAYER_FOLDERS[_layer(a)][0]}) imports {b} ({LAYER_FOLDERS[_layer(b)][0]})"
        for a, targets in sorted(graph.items())
        for b in sorted(targets)
        if _layer(b) > _layer(a)
    ]
    assert upward == []


def test_kind_folders_of_a_layer_import_no_cycle() -> None:
    """Within a layer, the folders of document kinds (``model/arena``, ``model/cards``,
    ``checks/manifest``, ...) form no cycle: a kind may use another, not both ways."""
    graph = import_graph()
    packages = {_module_name(p) for p in PACKAGE.rglob("__init__.py")}
    layer_roots = {f for _, folders in LAYER_FOLDERS for f in folders} | set(FACADES)
    folders: dict[str, set[str]] = {}
    for a, targets in graph.items():
        fa = _folder(a, packages)
        folders.setdefault(fa, set())
        for b in targets:
            fb = _folder(b, packages)
            if fa != fb and fa not in layer_roots and fb not in layer_roots:
                folders[fa].add(fb)
                folders.setdefault(fb, set())
    assert _cycles(folders) == []


def test_no_module_imports_a_path_from_before_the_layer_folders() -> None:
    """The old module paths import only for code outside pack-lsp (``base/moved.py``)."""
    from pack_lsp.core.base.moved import MOVED

    graph_sources = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    old = {f"pack_lsp.core.{name}" for name in MOVED} - set(graph_sources)
    offenders = []
    for root in (PACKAGE, ROOT / "tests", ROOT / "bench"):
        for path in root.rglob("*.py"):
            for node in _runtime_imports(ast.parse(path.read_text(encoding="utf-8"))):
                names = (
                    [a.name for a in node.names]
                    if isinstance(node, ast.Import)
                    else [node.module or ""] + [f"{node.module}.{a.name}" for a in node.names]
                )
                offenders += [f"{path.relative_to(ROOT)}: {n}" for n in names if n in old]
    assert offenders == []


def test_old_module_paths_still_import() -> None:
    """One release of grace for code outside pack-lsp: the old path gives the new module."""
    code = (
        "import warnings; warnings.simplefilter('error');"
        "import pack_lsp.core.checks.rules.tools as new\n"
        "try:\n import pack_lsp.core.rules.tools\n"
        "except DeprecationWarning: print('warned')\n"
        "warnings.simplefilter('ignore')\n"
        "import pack_lsp.core.rules.tools as old; print(old is new)\n"
        "from pack_lsp.core.model import Prompt; print(Prompt.__module__)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.split() == ["warned", "True", "pack_lsp.core.model.pack.entities"]


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
    loaded = _loaded_after("import pack_lsp.core.base.text")
    assert {"jsonschema", "pydantic", "ruamel", "pack_lsp.core.model.pack"}.isdisjoint(loaded)


def test_check_never_imports_the_server_stack() -> None:
    loaded = _loaded_after(
        "from pack_lsp.cli import main\n"
        "main(['--check', '--format', 'json', 'examples/support.promptpack.yaml'])"
    )
    assert "pack_lsp.core.checks.analysis" in loaded  # it did check
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
    assert "pack_lsp.core.checks.rules.cards" in loaded  # the card rules ran
    assert "pack_lsp.core.model.cards.problems" in loaded
    assert _validator_stack(loaded) == set()
    assert {
        "concurrent.futures.process",
        "pack_lsp.server",
        "pack_lsp.core.model.pack",
    } & loaded == {"pack_lsp.core.model.pack"}


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
    cards = {m for m in loaded if m.startswith("pack_lsp.core.model.cards")}
    assert cards == {"pack_lsp.core.model.cards", "pack_lsp.core.model.cards.names"}


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
    from pack_lsp.core.checks.rulesdoc import main, render

    current = tmp_path / "rules.md"
    current.write_text(render(), encoding="utf-8")
    stale = tmp_path / "stale.md"
    stale.write_text(render().replace("PP301", "PP3O1"), encoding="utf-8")
    assert main(["--check", str(current)]) == 0
    assert main(["--check", str(stale)]) == 1
