"""The VS Code walkthrough: its example pack has exactly the mistake its steps describe, and every
command its steps run exists (contributed by the extension or built into VS Code)."""

from __future__ import annotations

import json
import re

import pytest

from pack_lsp.cli import main
from paths import ROOT

CLIENT = ROOT / "vscode-client"
EXAMPLE = CLIENT / "media" / "walkthrough" / "example.promptpack.yaml"
#: VS Code's own commands the steps use.
BUILT_IN = {"workbench.actions.view.problems"}


def test_example_has_one_error_the_walkthrough_names(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["--check", "--format", "json", str(EXAMPLE)])
    out = capsys.readouterr().out
    assert status == 1
    (file,) = json.loads(out)["files"]
    errors = [d for d in file["diagnostics"] if d["severity"] in ("error", "warning")]
    assert [d["code"] for d in errors] == ["PP301"]
    assert "lookup_invoce" in errors[0]["message"]
    package = json.loads((CLIENT / "package.json").read_text(encoding="utf-8"))
    (walkthrough,) = package["contributes"]["walkthroughs"]
    described = " ".join(step["description"] for step in walkthrough["steps"])
    assert "PP301" in described


def test_walkthrough_commands_exist() -> None:
    package = json.loads((CLIENT / "package.json").read_text(encoding="utf-8"))
    contributed = {c["command"] for c in package["contributes"]["commands"]}
    for walkthrough in package["contributes"]["walkthroughs"]:
        for step in walkthrough["steps"]:
            used = set(re.findall(r"\(command:([\w.]+)\)", step["description"]))
            used |= {e.removeprefix("onCommand:") for e in step["completionEvents"]}
            assert used, step["id"]
            assert used <= contributed | BUILT_IN, (step["id"], used - contributed - BUILT_IN)
