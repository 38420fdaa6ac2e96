"""`pack-lsp --check --fix`, `--diff`, fixes in JSON/SARIF, and the baseline.

The round trip runs over every golden case with a safe fix: the fixes are applied
pass by pass with the code actions' edits (``core/ide/fixall.py``), each pass
changes only the lines its edits touch (byte for byte, line breaks included), the
fixed text offers nothing more to fix, and no fixed diagnostic comes back.
"""

from __future__ import annotations

import difflib
import json
import os
import stat
from pathlib import Path

import pytest

from golden_support import case_id, cases, run_case
from pack_lsp.cli import main
from pack_lsp.core.base.diagnostics import Diagnostic
from pack_lsp.core.base.fixes import ReplaceWithSuggestion
from pack_lsp.core.base.text import LineIndex, Span
from pack_lsp.core.checks.registry import REGISTRY
from pack_lsp.core.ide.baseline import Matcher, entries, fingerprints, loads
from pack_lsp.core.ide.codeactions import quick_fixes
from pack_lsp.core.ide.fixall import chosen, fix_document
from pack_lsp.core.ide.fixsafety import close
from pack_lsp.core.ide.rename import apply_edits

SAFE_CASES = [p for p in cases() if chosen(run_case(p))]


def test_some_golden_cases_have_safe_fixes() -> None:
    assert len(SAFE_CASES) >= 5, [case_id(p) for p in SAFE_CASES]


def test_safe_kinds_are_declared_fixes() -> None:
    for rule in REGISTRY.values():
        assert set(rule.safe_fixes) <= set(rule.fixes), rule.code


def _touched_lines(text: str, spans: list[Span]) -> set[int]:
    lines = LineIndex(text)
    out: set[int] = set()
    for span in spans:
        first = lines.position(span.start).line
        last = lines.position(span.end).line
        out.update(range(first, last + 1))
    return out


@pytest.mark.parametrize("path", SAFE_CASES, ids=case_id)
def test_fix_round_trip(path: Path) -> None:
    analysis = run_case(path)
    text = analysis.text
    current = analysis
    for _ in range(10):
        fixes = chosen(current)
        if not fixes:
            break
        edits = [e for f in fixes for e in f.edits]
        fixed = apply_edits(current.text, edits)
        touched = _touched_lines(current.text, [e.span for e in edits])
        before = current.text.splitlines(keepends=True)
        after = fixed.splitlines(keepends=True)
        for tag, i1, i2, _, _ in difflib.SequenceMatcher(None, before, after).get_opcodes():
            if tag != "equal":
                changed = set(range(i1, max(i2, i1 + 1)))
                assert changed <= touched | {len(before)}, (case_id(path), tag, i1, i2)
        current = run_case(path, fixed)
        gone = {(d.code, d.message) for f in fixes for d in [f.diagnostic]}
        assert not gone <= {(d.code, d.message) for d in current.diagnostics}, gone
    assert chosen(current) == [], "nothing more to fix"
    # The module's loop gives the same text.
    run = fix_document(analysis, lambda t: run_case(path, t))
    assert run.text == current.text != text
    assert run.refused is None


def test_unique_close_suggestions_only() -> None:
    assert close("custmer", "customer")
    assert not close("billing", "billing_agent")
    assert close("serch_web", "search_web")
    diag = Diagnostic("PP301", REGISTRY["PP301"].severity, "m", Span(0, 5))
    from pack_lsp.core.ide.fixsafety import is_safe

    text = "serch"
    assert is_safe(diag, ReplaceWithSuggestion(Span(0, 5), ("search",)), text)
    assert not is_safe(diag, ReplaceWithSuggestion(Span(0, 5), ("search", "serve")), text)


PACK = """\
id: support
name: Support
version: 1.0.0
template_engine: {version: v1, syntax: "{{variable}}"}
prompts:
  support:
    id: support
    name: Support
    version: 1.0.0
    system_template: Help
    validators:
      - type: banned_words
        params: {words: [refund]}
        fail_on_violation: true
agents:
  entry: support
  members:
    support:
      input_modes: [text]
      output_modes: [text/plain]
"""


def test_fix_writes_atomically_keeping_bytes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "a.promptpack.yaml"
    original = b"\xef\xbb\xbf# kept comment\r\n" + PACK.replace("\n", "\r\n").encode()
    path.write_bytes(original)
    os.chmod(path, 0o640)
    assert main(["--check", "--diff", str(path)]) == 1
    out = capsys.readouterr().out
    assert "-        fail_on_violation: true" in out and "+      input_modes: [text/plain]" in out
    assert path.read_bytes() == original  # --diff writes nothing
    assert main(["--check", "--fix", str(path)]) == 0
    captured = capsys.readouterr()
    assert "Fixed 2 problems in 1 file" in captured.err
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf# kept comment\r\n")
    assert b"fail_on_violation" not in data and b"input_modes: [text/plain]\r\n" in data
    assert b"\n" not in data.replace(b"\r\n", b"")
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["a.promptpack.yaml"]  # no temp left
    assert main(["--check", "--diff", str(path)]) == 0  # nothing more to fix


def test_unsafe_fixes_need_the_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "a.promptpack.yaml"
    path.write_text(PACK.replace("    id: support\n", "    id: helper\n"))
    main(["--check", "--fix", str(path)])
    assert "id: helper" in path.read_text()  # PP601's fix is unsafe
    capsys.readouterr()
    main(["--check", "--fix", "--unsafe-fixes", str(path)])
    assert "id: helper" not in path.read_text()


def test_fix_refuses_stdin(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--check", "--fix", "-"])
    assert exit_info.value.code == 2
    assert "standard input" in capsys.readouterr().err


def test_json_and_sarif_carry_fixes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "a.promptpack.yaml"
    path.write_text(PACK)
    main(["--check", "--format", "json", str(path)])
    doc = json.loads(capsys.readouterr().out)
    fixes = [f for d in doc["files"][0]["diagnostics"] for f in d.get("fixes", [])]
    assert any(f["safe"] and f["edits"][0]["newText"] == "text/plain" for f in fixes), fixes
    main(["--check", "--format", "sarif", str(path)])
    sarif = json.loads(capsys.readouterr().out)
    results = sarif["runs"][0]["results"]
    changes = [c for r in results for f in r.get("fixes", []) for c in f["artifactChanges"]]
    replacement = changes[0]["replacements"][0]
    assert {"deletedRegion", "insertedContent"} <= replacement.keys()


# ------------------------------------------------------------------------ baseline


def test_fingerprints_survive_inserted_lines() -> None:
    for path in SAFE_CASES:
        first = run_case(path)
        if first.text.startswith(("{", "\ufeff", "%", "---")):
            continue  # a JSON pack, a directive: no comment line in front
        moved = run_case(path, "# one\n# two\n\n" + first.text)
        assert fingerprints(first.diagnostics, first.lines) == fingerprints(
            moved.diagnostics, moved.lines
        ), case_id(path)


def test_baseline_reports_only_new_problems(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    pack = tmp_path / "packs" / "a.promptpack.yaml"
    pack.parent.mkdir()
    pack.write_text(PACK)
    base = tmp_path / "baseline.json"
    assert main(["--check", "--write-baseline", str(base), "packs"]) == 0
    recorded = loads(base.read_text())
    assert {"PP111", "PP206"} <= {e.code for e in recorded}
    assert {e.path for e in recorded} == {"packs/a.promptpack.yaml"}
    capsys.readouterr()
    # Lines inserted above, a block re-indented below, and one new problem.
    text = "# a comment\n\n" + PACK.replace("version: 1.0.0\n", "version: 1.0.0\n\n", 1)
    text = text.replace("output_modes: [text/plain]", "output_modes: [text/plain, json]")
    pack.write_text(text)
    assert main(["--check", "--baseline", str(base), "--format", "json", "packs"]) == 0
    doc = json.loads(capsys.readouterr().out)
    found = [(d["code"], d["message"]) for d in doc["files"][0]["diagnostics"]]
    assert len(found) == 1 and "`json`" in found[0][1], found
    # A fixed problem: its entry is listed as gone.
    pack.write_text(text.replace("        fail_on_violation: true\n", ""))
    main(["--check", "--baseline", str(base), "packs"])
    err = capsys.readouterr().err
    assert "1 baseline entry" in err and "PP111" in err
    # The configuration's `baseline =` does the same as --baseline.
    (tmp_path / ".pack-lsp.toml").write_text('baseline = "baseline.json"\n')
    main(["--check", "--format", "json", "packs"])
    assert len(json.loads(capsys.readouterr().out)["files"][0]["diagnostics"]) == 1


def test_bad_baseline_is_a_usage_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = tmp_path / "a.promptpack.yaml"
    pack.write_text(PACK)
    bad = tmp_path / "b.json"
    bad.write_text("[1, 2]")
    assert main(["--check", "--baseline", str(bad), str(pack)]) == 2
    assert "not a pack-lsp baseline" in capsys.readouterr().err


def test_matcher_uses_each_entry_once() -> None:
    analysis = run_case(SAFE_CASES[0])
    folder = Path.cwd()
    known = entries(analysis.path or "x", analysis.diagnostics, analysis.lines, folder)
    matcher = Matcher(known[:1])
    new = matcher.new(analysis.path or "x", analysis.diagnostics, analysis.lines, folder)
    assert new.count(False) == 1
    assert matcher.unmatched() == []
    assert quick_fixes  # the edits --fix applies are the code actions'


@pytest.mark.parametrize(("mode", "shown"), [("hint", 4), ("hidden", None)])
def test_the_server_honours_the_baseline(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    mode: str,
    shown: int | None,
) -> None:
    from pygls.uris import from_fs_path

    from pack_lsp.core.checks.analysis import analyze
    from pack_lsp.server.app import PackServer
    from pack_lsp.server.positions import PositionConverter

    # No client: positions in UTF-16, as a client that says nothing gets them.
    monkeypatch.setattr(PackServer, "converter", PositionConverter("utf-16"))

    pack = tmp_path / "a.promptpack.yaml"
    pack.write_text(PACK)
    base = tmp_path / "baseline.json"
    assert main(["--check", "--write-baseline", str(base), str(pack)]) == 0
    (tmp_path / ".pack-lsp.toml").write_text('baseline = "baseline.json"\n')
    text = PACK.replace("output_modes: [text/plain]", "output_modes: [text/plain, json]")
    server = PackServer()
    server.set_settings({"packLsp": {"baselineMode": mode}})
    uri = from_fs_path(str(pack)) or ""
    analysis = analyze(text, path=pack, config=server.config_for(uri))
    items = server.diagnostics_json(uri, analysis)
    new = [i for i in items if i["severity"] != 4 or "(baselined)" not in i["message"]]
    assert len(new) == 1 and "`json`" in new[0]["message"]
    baselined = len(items) - len(new)
    assert baselined == (len(analysis.diagnostics) - 1 if shown else 0)


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_plain_check_loads_no_fix_machinery(tmp_path: Path, fmt: str) -> None:
    """--check without --fix or --baseline pays for neither: the fix loop, the
    baseline and --compare stay unloaded, and the quick fixes too for text output
    with --quiet (JSON carries them; text output counts the fixable problems); nor
    does a pack named on the command line load the arena project machinery."""
    import subprocess
    import sys

    pack = tmp_path / "a.promptpack.yaml"
    pack.write_text(PACK)
    quiet = ["--quiet"] if fmt == "text" else []
    script = (
        "import sys\n"
        "from pack_lsp.cli import main\n"
        f"main(['--check', '--format', {fmt!r}, {str(pack)!r}, *{quiet!r}])\n"
        "print('\\n'.join(sorted(sys.modules)), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    loaded = set(done.stderr.split())
    unwanted = {
        "pack_lsp.core.ide.fixall",
        "pack_lsp.core.ide.baseline",
        "pack_lsp.core.ide.compare",
        "pack_lsp.core.checks.arena.check",
        "pack_lsp.core.model.arena.compile",
        "pack_lsp.core.checks.arena.workspace",
        "pack_lsp.core.ide.render",
        "pack_lsp.core.ide.callhierarchy",
        "difflib",
        "subprocess",
    }
    if fmt == "text":
        unwanted.add("pack_lsp.core.ide.codeactions")
    assert unwanted & loaded == set()
