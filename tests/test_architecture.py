"""Structural guarantees of the code base."""

from __future__ import annotations

import ast
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

    from pack_lsp.core import yamltree

    parser = cyaml.CParser  # type: ignore[attr-defined]
    assert "_ruamel_yaml" in parser.__module__
    # A class compiled from C has no Python source; a pure-Python fallback would.
    assert not inspect.isfunction(parser.__init__)
    assert "from ruamel.yaml.cyaml import CParser" in inspect.getsource(yamltree._events)


def test_rules_doc_is_in_sync() -> None:
    from pack_lsp.core.rulesdoc import render

    doc = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert doc == render(), "regenerate: python -m pack_lsp.core.rulesdoc > docs/rules.md"


def test_every_rule_is_documented_with_example_and_fix() -> None:
    from pack_lsp.core.registry import REGISTRY

    for code, rule in REGISTRY.items():
        assert rule.summary and rule.example and rule.fix and rule.name, code
        assert code.startswith("PP") and len(code) == 5, code
