"""``pack-lsp --card`` and ``pack-lsp --topology``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from paths import ROOT

VISION = ROOT / "tests" / "fixtures" / "cards" / "rfc0007-vision-assistant.yaml"


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pack_lsp", *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
    )


def test_card_prints_every_card() -> None:
    done = run("--card", str(VISION))
    assert done.returncode == 0, done.stderr
    cards = json.loads(done.stdout)
    assert list(cards) == ["coordinator", "describer"]
    assert cards["describer"]["skills"][0]["inputModes"] == ["text/plain", "image/*"]
    assert cards["describer"]["url"] == "http://localhost:8080/describer"
    assert "local default http://localhost:8080/{agent}" in done.stderr
    assert "/.well-known/agent-card.json" in done.stderr


def test_agent_prints_the_published_document() -> None:
    done = run("--card", str(VISION), "--agent", "describer", "--a2a-version", "1.0")
    assert done.returncode == 0, done.stderr
    card = json.loads(done.stdout)
    assert card["name"] == "Image Describer"
    assert card["supportedInterfaces"][0]["protocolVersion"] == "1.0"
    missing = run("--card", str(VISION), "--agent", "describe")
    assert missing.returncode == 2
    assert "'describe' is not an agent" in missing.stderr and "describer" in missing.stderr


def test_profile_and_configuration(tmp_path: Path) -> None:
    pack = tmp_path / "team.promptpack.yaml"
    pack.write_text(
        VISION.read_text().replace(
            "version: 1.0.0\ntemplate_engine", "version: 3.0.0\ntemplate_engine"
        )
    )
    assert json.loads(run("--card", str(pack), "--agent", "describer").stdout)["version"] == "1.0.0"
    done = run("--card", str(pack), "--agent", "describer", "--profile", "promptkit")
    assert json.loads(done.stdout)["version"] == "3.0.0"
    (tmp_path / ".pack-lsp.toml").write_text(
        '[cards]\nurl = "https://agents.example.com/{agent}"\nsecurity = [{ oauth = [] }]\n'
    )
    done = run("--card", str(pack), "--agent", "describer")
    assert json.loads(done.stdout)["url"] == "https://agents.example.com/describer"
    assert done.returncode == 1
    assert "PP703" in done.stderr and "local default" not in done.stderr
    (tmp_path / ".pack-lsp.toml").write_text('[cards]\nurl = "https://x/{who}"\n')
    done = run("--card", str(pack))
    assert done.returncode == 2 and "unknown placeholder {who}" in done.stderr
    assert done.stdout == ""


def test_topology_formats() -> None:
    mermaid = run("--topology", str(VISION))
    assert mermaid.returncode == 0
    assert mermaid.stdout.startswith("flowchart LR\n")
    dot = run("--topology", str(VISION), "--format", "dot")
    assert dot.stdout.startswith("digraph agents {")
    data = json.loads(run("--topology", str(VISION), "--format", "json").stdout)
    assert data["entry"] == "coordinator"
    assert data["edges"] == []  # `describe` is not the member `describer`
    bad = run("--topology", str(VISION), "--format", "sarif")
    assert bad.returncode == 2 and "mermaid, dot, json" in bad.stderr


def test_check_still_validates_its_formats() -> None:
    bad = run("--check", str(VISION), "--format", "mermaid")
    assert bad.returncode == 2 and "--check" in bad.stderr and "mermaid" in bad.stderr
    assert run("--check", str(VISION), "--format", "json").returncode == 1  # PP301


def test_usage_errors(tmp_path: Path) -> None:
    assert run("--agent", "x").returncode == 2
    assert run("--card", str(VISION), "--topology", str(VISION)).returncode == 2
    missing = run("--card", str(tmp_path / "none.yaml"))
    assert missing.returncode == 2 and "cannot read" in missing.stderr
    broken = tmp_path / "broken.promptpack.yaml"
    broken.write_text("prompts: [\n")
    done = run("--card", str(broken))
    assert done.returncode == 2 and "syntax error" in done.stderr


def test_check_acts_on_a2a_version(tmp_path: Path) -> None:
    """`--check --a2a-version 1.0` checks the cards as A2A 1.0 does (untagged skills)."""
    pack = tmp_path / "pack.yaml"
    pack.write_text(
        (ROOT / "tests" / "golden" / "cards" / "tags-1.0.yaml").read_text(encoding="utf-8"),
        encoding="utf-8",
    )
    default = run("--check", str(pack), "--format", "json")
    assert "PP702" not in default.stdout, default.stdout
    v1 = run("--check", str(pack), "--format", "json", "--a2a-version", "1.0")
    assert "PP702" in v1.stdout, v1.stdout + v1.stderr


def test_a2a_version_is_refused_where_it_cannot_act() -> None:
    alone = run("--a2a-version", "1.0")
    assert alone.returncode == 2 and "--a2a-version is used with --card or --check" in alone.stderr
    topology = run("--topology", str(VISION), "--a2a-version", "1.0")
    assert topology.returncode == 2 and "not --topology" in topology.stderr


def test_card_and_topology_of_a_pack_in_a_kubernetes_manifest() -> None:
    manifest = ROOT / "tests" / "golden" / "kubernetes" / "configmap-yaml.yaml"
    done = run("--card", str(manifest))
    assert done.returncode == 0, done.stderr
    cards = json.loads(done.stdout)
    assert [card["name"] for card in cards.values()] == ["Router"]
    topology = run("--topology", str(manifest), "--format", "json")
    assert topology.returncode == 0, topology.stderr
    assert [node["id"] for node in json.loads(topology.stdout)["nodes"]] == ["router"]
