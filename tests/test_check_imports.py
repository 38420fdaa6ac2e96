"""What a cold ``pack-lsp --check`` loads: every import is start-up time of a CI job.

Each test runs the command line in a fresh interpreter and reads ``sys.modules``
afterwards. pydantic validates configuration input only: a pack checked without a
configuration file (and without command-line settings to validate) must not load
it, nor the language-server stack.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "support.promptpack.yaml"
SERVER_STACK = {"pygls", "lsprotocol"}


def _check(cwd: Path, *args: str) -> tuple[set[str], dict[str, object]]:
    """Top-level packages and ``pack_lsp`` modules loaded by ``--check ... --format
    json`` run in ``cwd``, and its JSON output."""
    script = (
        "import sys\n"
        "from pack_lsp.cli import main\n"
        f"code = main(['--check', '--format', 'json', *{list(args)!r}])\n"
        "sys.stdout.flush()\n"
        "print('\\n'.join(sorted(sys.modules)), file=sys.stderr)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=cwd, check=True
    )
    return set(proc.stderr.split()), json.loads(proc.stdout)


def _top(loaded: set[str]) -> set[str]:
    return {m.split(".")[0] for m in loaded}


def _plain_pack(tmp_path: Path) -> Path:
    pack = tmp_path / "support.promptpack.yaml"
    shutil.copyfile(EXAMPLE, pack)
    return pack


def test_check_without_configuration_loads_no_pydantic(tmp_path: Path) -> None:
    pack = _plain_pack(tmp_path)
    loaded, out = _check(tmp_path, str(pack))
    assert out["summary"]["files"] == 1  # type: ignore[index]
    # The pack has agents: the cards were derived with the default settings.
    assert "pack_lsp.core.model.cards.derive" in loaded
    assert {"pydantic", "pydantic_core", *SERVER_STACK}.isdisjoint(_top(loaded))
    assert "pack_lsp.core.base.validation" not in loaded


def test_command_line_codes_need_no_pydantic(tmp_path: Path) -> None:
    """Overrides already in their normal form (codes, levels) are not validated again."""
    pack = _plain_pack(tmp_path)
    loaded, out = _check(
        tmp_path,
        str(pack),
        *("--select", "PP1,PP2", "--severity", "PP2=hint", "--ignore", "PP105"),
        *("--profile", "promptkit"),
    )
    assert out["summary"]["files"] == 1  # type: ignore[index]
    assert {"pydantic", *SERVER_STACK}.isdisjoint(_top(loaded))


def test_a_configuration_file_is_validated_by_pydantic(tmp_path: Path) -> None:
    """The other side: with a configuration file, pydantic validates it, and its
    settings apply (here: every finding ignored, and a cards table)."""
    pack = _plain_pack(tmp_path)
    (tmp_path / ".pack-lsp.toml").write_text(
        'ignore = ["ALL"]\n[cards]\nurl = "https://agents.example.com/{agent}"\n',
        encoding="utf-8",
    )
    loaded, out = _check(tmp_path, str(pack))
    assert "pydantic" in _top(loaded)
    assert "pack_lsp.core.base.validation" in loaded
    assert out["files"][0]["diagnostics"] == []  # type: ignore[index]
    assert SERVER_STACK.isdisjoint(_top(loaded))


def test_the_program_ends_with_the_output_and_status_of_main(tmp_path: Path) -> None:
    """Run as a program, a check ends the process itself (``os._exit``) once its output
    is flushed: what it printed and its exit status are those ``main`` returns."""
    from pack_lsp.cli import main

    broken = tmp_path / "broken.promptpack.yaml"
    broken.write_text("id: Bad Id\nname: ''\n", encoding="utf-8")
    pack = _plain_pack(tmp_path)
    for args in (
        [str(pack), str(broken), "--format", "text"],
        [str(broken), "--format", "json"],
        [str(pack), "--format", "json"],
    ):
        proc = subprocess.run(
            [sys.executable, "-m", "pack_lsp", "--check", *args],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            check=False,
        )
        expected = subprocess.run(
            [
                sys.executable,
                "-c",
                "import sys\nfrom pack_lsp.cli import main\n"
                f"code = main(['--check', *{args!r}])\nsys.stdout.flush()\nsys.exit(code)",
            ],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            check=False,
        )
        assert proc.stdout and proc.stdout == expected.stdout
        assert proc.stderr == expected.stderr
        assert proc.returncode == expected.returncode
    assert main(["--check", str(broken), "--format", "json"]) == 1  # returns in-process


# ------------------------------------------------------------------ the import budget

_CLI = {
    "pack_lsp",
    "pack_lsp.cli",
    # Each mode adds its options to the one parser.
    *(f"pack_lsp.cli.{m}" for m in ("arena", "baseline", "cards", "check", "compare", "fix")),
    *(f"pack_lsp.cli.{m}" for m in ("meaning", "serve")),
    "pack_lsp.render",
    "pack_lsp.render.json_format",
    "pack_lsp.render.jsontext",
    "pack_lsp.render.result",
}
_BASE = {
    "pack_lsp.core.base",
    *{
        f"pack_lsp.core.base.{m}"
        for m in (
            *("arena_schemas", "codecache", "diagnostics", "fixes", "graphs", "kinds", "lazy"),
            *("moved", "resources", "source", "suggest", "text", "versions", "problems"),
            *("problems.arena_documents", "problems.document", "problems.schema"),
            "problems.suppressions",
            # Typed problem data, the rules' example pack, the folder roots of paths.
            *("problemdata", "example_pack", "roots"),
        )
    },
}
_SYNTAX = {
    "pack_lsp.core.syntax",
    *(f"pack_lsp.core.syntax.{m}" for m in ("jsontree", "reuse", "scalars", "yamltree")),
    *(
        f"pack_lsp.core.syntax.yamltree.{m}"
        for m in ("compose", "copy", "data", "events", "guards", "navigate", "nodes")
    ),
    "pack_lsp.core.syntax.yamltree.parsing",
    "pack_lsp.core.syntax.yamltree.resolution",
}
_MODEL = {
    "pack_lsp.core.model",
    "pack_lsp.core.model.pack",
    "pack_lsp.core.model.pack.build",
    "pack_lsp.core.model.pack.entities",
    *(
        f"pack_lsp.core.model.{m}"
        for m in ("config", "context", "discover", "profiles", "recognize", "recording")
    ),
    *(f"pack_lsp.core.model.{m}" for m in ("resolve", "schema", "schemawalk", "summary")),
    *(f"pack_lsp.core.model.{m}" for m in ("templates", "vocabulary")),
    # Fragment expansion (PP016) and the deployment targets the rules check against.
    "pack_lsp.core.model.expansion",
    "pack_lsp.core.model.targets",
    # Recognition tells a Kubernetes manifest carrying packs from a pack by content.
    "pack_lsp.core.model.hosts",
    # The `--a2a-version` choices of the command line.
    "pack_lsp.core.model.cards",
    "pack_lsp.core.model.cards.names",
    # The arena project rules' checks read the project model (their declarations
    # are in the registry, which every check loads).
    "pack_lsp.core.model.arena",
    "pack_lsp.core.model.arena.project",
}
_CHECKS = {
    "pack_lsp.core.checks",
    "pack_lsp.core.checks.analysis",
    "pack_lsp.core.checks.registry",
    "pack_lsp.core.checks.suppress",
    "pack_lsp.core.checks.rules",
    *(
        f"pack_lsp.core.checks.rules.{m}"
        for m in ("agents", "arena_project", "cards", "compositions", "governance")
    ),
    *(f"pack_lsp.core.checks.rules.{m}" for m in ("kubernetes", "manifest", "pack")),
    *(f"pack_lsp.core.checks.rules.{m}" for m in ("providers", "templates", "tools")),
    "pack_lsp.core.checks.rules.targets",
    "pack_lsp.core.checks.rules.workflow",
    "pack_lsp.core.checks.rules.yaml11",
}
#: Every module of pack-lsp a cold ``--check`` of a YAML pack may load (``--format
#: json``): the command line, the core's layers up to the rules, the renderer. Nothing
#: of the language server, the editor features, agent-extension manifests, arena
#: projects' checks or the process pool.
CHECK_BUDGET = frozenset({"pack_lsp.core", *_CLI, *_BASE, *_SYNTAX, *_MODEL, *_CHECKS})
#: Loaded besides for a pack with agents (its Agent Cards are derived and checked).
CARDS = frozenset(
    f"pack_lsp.core.model.cards.{m}"
    for m in ("api", "derive", "extensions", "problems", "settings", "topology")
)
#: Loaded besides when a diagnostic of machine output has a fix (its text edits).
FIX_EDITS = frozenset(
    {"pack_lsp.core.ide", *(f"pack_lsp.core.ide.{m}" for m in ("codeactions", "fixsafety"))}
    | {"pack_lsp.core.ide.textedits", "pack_lsp.core.base.tomlkeys"}
)
#: Third-party packages a pack's cold check must not load: the language server's,
#: configuration validation's (pydantic), the explaining validator's (only for a schema
#: error), the MCP SDK's; and ``logging`` (loaded to report a rule that fails).
NOT_LOADED = frozenset(
    {"pygls", "lsprotocol", "cattrs", "attr", "pydantic", "jsonschema", "referencing", "mcp"}
    | {"logging", "concurrent", "importlib.resources"}
)


def _over_budget(loaded: set[str], budget: frozenset[str]) -> set[str]:
    return {m for m in loaded if m.split(".")[0] == "pack_lsp"} - budget


def test_a_packs_check_stays_within_its_import_budget(tmp_path: Path) -> None:
    """Each module a cold check loads is start-up time of a CI job: a change that makes
    a plain pack's check load one more module of pack-lsp fails here, and either
    makes that import lazy or adds the module to the budget, with its reason."""
    pack = tmp_path / "minimal.promptpack.yaml"
    pack.write_text(
        "id: minimal\nname: Minimal\nversion: 1.0.0\n"
        'template_engine: {version: v1, syntax: "{{variable}}"}\n'
        "prompts:\n  a: {id: a, name: A, version: 1.0.0, system_template: Hello}\n",
        encoding="utf-8",
    )
    loaded, out = _check(tmp_path, str(pack))
    assert out["summary"]["files"] == 1  # type: ignore[index]
    assert _over_budget(loaded, CHECK_BUDGET) == set()
    assert {"pack_lsp.core.model.pack.entities", "pack_lsp.core.checks.rules.tools"} <= loaded
    assert NOT_LOADED & (loaded | _top(loaded)) == set()


def test_a_pack_with_agents_and_fixes_stays_within_its_import_budget(tmp_path: Path) -> None:
    """The README's example pack has agents (its cards are derived); with a misspelt
    tool, a finding with a quick fix (its text edits are in the JSON output)."""
    pack = _plain_pack(tmp_path)
    text = pack.read_text(encoding="utf-8")
    pack.write_text(text.replace("[lookup_invoice]", "[lookup_invoce]"), encoding="utf-8")
    loaded, out = _check(tmp_path, str(pack))
    found = [d for f in out["files"] for d in f["diagnostics"]]  # type: ignore[index]
    assert any(d.get("fixes") for d in found), found
    assert _over_budget(loaded, CHECK_BUDGET | CARDS | FIX_EDITS) == set()
    assert loaded >= CARDS
    assert NOT_LOADED & (loaded | _top(loaded)) == set()


def test_a_manifest_loads_its_own_modules(tmp_path: Path) -> None:
    """The other side: the modules left out of a pack's budget are those of the other
    kinds, loaded when such a file is checked (here, an agent-extension manifest)."""
    (tmp_path / "manifest.yaml").write_text(
        "id: acme.tools\nentrypoint: main.py\n", encoding="utf-8"
    )
    loaded, _ = _check(tmp_path, str(tmp_path / "manifest.yaml"))
    assert "pack_lsp.core.checks.manifest.check" in loaded
