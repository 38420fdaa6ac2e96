"""`pack-lsp --check` in pipelines: SARIF, GitHub annotations, rule flags, stdin,
the summary line and exit codes.

Most runs pass `--select PP0,PP1` (YAML and schema codes) so that the expected output
does not move when other rule families grow.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from pack_lsp import __version__
from pack_lsp.core.checks.registry import REGISTRY
from pack_lsp.render import FileResult
from pack_lsp.render.github_format import escape_data, escape_property
from pack_lsp.render.sarif_format import RULES_DOC_URL, first_sentence
from samples import MINIMAL_PACK

HERE = Path(__file__).resolve().parent
SARIF_SCHEMA = HERE / "fixtures" / "sarif" / "sarif-schema-2.1.0.json"

GOOD = MINIMAL_PACK
SCHEMA_ONLY = ("--select", "PP0,PP1")


def run(
    *args: str, cwd: Path | None = None, stdin: bytes | None = None
) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "pack_lsp", *args],
        capture_output=True,
        cwd=cwd,
        input=stdin if stdin is not None else b"",
        timeout=120,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    return subprocess.CompletedProcess(
        proc.args, proc.returncode, proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8")
    )


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="")
    return path


# --------------------------------------------------------------------------- SARIF


@pytest.fixture(scope="module")
def sarif_validator() -> Any:
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft4Validator.check_schema(schema)
    return jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())


def test_sarif_is_schema_valid_with_code_point_regions(
    tmp_path: Path, sarif_validator: Any
) -> None:
    # Line 9: the emoji is one code point, so the quoted name ends at column 25 (1-based).
    write(
        tmp_path / "packs" / "a.promptpack.yaml",
        GOOD + "tools:\n  t: {name: t, description: e}\n"
        '  t: {name: "😀 bad name", description: d}\n',
    )
    write(tmp_path / "packs" / "clean.promptpack.yaml", GOOD)
    proc = run("--check", "--format", "sarif", *SCHEMA_ONLY, "packs", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr == ""
    log = json.loads(proc.stdout)
    errors = sorted(sarif_validator.iter_errors(log), key=str)
    assert not errors, [f"{list(e.absolute_path)}: {e.message}" for e in errors]

    assert log["version"] == "2.1.0"
    (run_,) = log["runs"]
    assert run_["columnKind"] == "unicodeCodePoints"
    assert run_["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.resolve().as_uri() + "/"
    driver = run_["tool"]["driver"]
    assert driver["name"] == "pack-lsp"
    assert driver["version"] == __version__
    rules = driver["rules"]
    assert [r["id"] for r in rules] == sorted(REGISTRY)

    by_code: dict[str, list[dict[str, Any]]] = {}
    for result in run_["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        by_code.setdefault(result["ruleId"], []).append(result)
    assert sorted(by_code) == ["PP005", "PP105"]

    (bad_name,) = by_code["PP105"]
    assert bad_name["level"] == "error"
    (loc,) = bad_name["locations"]
    assert loc["physicalLocation"]["artifactLocation"] == {
        "uri": "packs/a.promptpack.yaml",
        "uriBaseId": "%SRCROOT%",
    }
    assert loc["physicalLocation"]["region"] == {
        "startLine": 9,
        "startColumn": 13,
        "endLine": 9,
        "endColumn": 25,
    }

    second = next(
        r
        for r in by_code["PP005"]
        if r["locations"][0]["physicalLocation"]["region"]["startLine"] == 9
    )
    (related,) = second["relatedLocations"]
    assert related["id"] == 1
    assert related["message"]["text"] == "`t` first defined here"
    assert related["physicalLocation"]["region"] == {
        "startLine": 8,
        "startColumn": 3,
        "endLine": 8,
        "endColumn": 4,
    }
    assert related["physicalLocation"]["artifactLocation"]["uri"] == "packs/a.promptpack.yaml"


def test_sarif_rules_describe_every_code(tmp_path: Path, sarif_validator: Any) -> None:
    write(tmp_path / "a.promptpack.yaml", GOOD)
    proc = run("--check", "--format", "sarif", "a.promptpack.yaml", cwd=tmp_path)
    assert proc.returncode == 0
    log = json.loads(proc.stdout)
    assert not list(sarif_validator.iter_errors(log))
    assert log["runs"][0]["results"] == []
    levels = {"error": "error", "warning": "warning", "information": "note", "hint": "note"}
    for rule in log["runs"][0]["tool"]["driver"]["rules"]:
        info = REGISTRY[rule["id"]]
        assert rule["name"] == info.name
        assert rule["helpUri"] == f"{RULES_DOC_URL}#{info.code.lower()}"
        assert rule["defaultConfiguration"]["level"] == levels[info.severity.label]
        assert rule["shortDescription"]["text"]
        assert info.summary.startswith(rule["shortDescription"]["text"])
        assert info.fix in rule["help"]["text"]


def test_sarif_levels_follow_the_effective_severity(tmp_path: Path) -> None:
    write(tmp_path / "a.promptpack.yaml", GOOD + "agent: {}\nzzz: 1\n")
    proc = run(
        "--check",
        "--format",
        "sarif",
        *SCHEMA_ONLY,
        "--severity",
        "PP102=hint",
        "a.promptpack.yaml",
        cwd=tmp_path,
    )
    assert proc.returncode == 0
    results = json.loads(proc.stdout)["runs"][0]["results"]
    assert [(r["ruleId"], r["level"]) for r in results] == [("PP102", "note"), ("PP102", "note")]


def test_sarif_path_outside_the_working_directory_is_absolute(tmp_path: Path) -> None:
    pack = write(tmp_path / "out" / "a b.promptpack.yaml", GOOD + "agent: {}\n")
    (tmp_path / "cwd").mkdir()
    proc = run("--check", "--format", "sarif", *SCHEMA_ONLY, str(pack), cwd=tmp_path / "cwd")
    (result,) = json.loads(proc.stdout)["runs"][0]["results"]
    location = result["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": pack.resolve().as_uri()}
    assert "%20" in location["uri"]


def test_sarif_unused_suppression_keeps_its_tag(tmp_path: Path) -> None:
    write(tmp_path / "a.promptpack.yaml", GOOD + "agent: {}  # pack-lsp: ignore[PP102, PP101]\n")
    proc = run("--check", "--format", "sarif", "a.promptpack.yaml", cwd=tmp_path)
    assert proc.returncode == 0
    (result,) = json.loads(proc.stdout)["runs"][0]["results"]
    assert result["ruleId"] == "PP801"
    assert result["level"] == "note"
    assert result["properties"] == {"tags": ["unnecessary"]}


def test_first_sentence() -> None:
    assert first_sentence("One thing. Two things.") == "One thing."
    assert first_sentence("Use a list (e.g. `[a]`). Then more.") == "Use a list (e.g. `[a]`)."
    assert first_sentence("No full stop") == "No full stop"


# -------------------------------------------------------------------------- GitHub


def test_github_lines_are_exact(tmp_path: Path) -> None:
    write(
        tmp_path / "packs" / "a,b:c.promptpack.yaml",
        GOOD + '"100%\\nsure, yes:": 1\nagent: {}  # pack-lsp: ignore[PP102, PP101]\n'
        "zz: [a,\n  b]\n",
    )
    proc = run(
        "--check",
        "--format",
        "github",
        "--select",
        "PP1,PP8",
        "--severity",
        "PP103=warning",
        "packs",
        cwd=tmp_path,
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr == ""
    file = "packs/a%2Cb%3Ac.promptpack.yaml"
    assert proc.stdout.splitlines() == [
        f"::error file={file},line=7,col=1,endLine=7,endColumn=18,title=PP102::"
        "Unknown property `100%25%0Asure, yes:` in the pack root",
        f"::notice file={file},line=8,col=38,endLine=8,endColumn=42,title=PP801::"
        "Unused suppression: no `PP101` diagnostic starts on this line",
        f"::error file={file},line=9,col=1,endLine=9,endColumn=2,title=PP102::"
        "Unknown property `zz` in the pack root",
    ]


def test_github_multi_line_range_and_warning(tmp_path: Path) -> None:
    write(
        tmp_path / "a.promptpack.yaml",
        GOOD.replace(
            "  support: {id: support, name: Support, version: 1.0.0, system_template: Hi}",
            "  support: [a,\n    b]",
        ),
    )
    proc = run(
        "--check",
        "--format",
        "github",
        *SCHEMA_ONLY,
        "--severity",
        "PP103=warning",
        str(tmp_path / "a.promptpack.yaml"),
        cwd=tmp_path,
    )
    assert proc.returncode == 0
    assert proc.stdout == (
        "::warning file=a.promptpack.yaml,line=6,endLine=7,title=PP103::"
        "`prompts.support` must be a mapping, not a list\n"
    )


def test_github_escaping() -> None:
    assert escape_data("50% done\r\nnext: a, b") == "50%25 done%0D%0Anext: a, b"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"


def test_github_renderer_without_diagnostics_prints_nothing() -> None:
    from pack_lsp.core.base.text import LineIndex
    from pack_lsp.render.github_format import render

    assert render([FileResult("a.yaml", (), LineIndex(""))]) == ""


# ---------------------------------------------------------------------- rule flags


def codes(proc: subprocess.CompletedProcess[str]) -> list[str]:
    return [line.split()[2] for line in proc.stdout.splitlines()]


UNKNOWN_KEYS = GOOD + "agent: {}\nprompts2: 1\n"


def test_select_ignore_and_severity(tmp_path: Path) -> None:
    pack = write(tmp_path / "a.promptpack.yaml", UNKNOWN_KEYS.replace("version: 1.0.0\n", "", 1))
    assert codes(run("--check", *SCHEMA_ONLY, str(pack))) == ["PP101", "PP102", "PP102"]
    assert codes(run("--check", "--select", "PP101", str(pack))) == ["PP101"]
    assert codes(run("--check", "--select", "pp101", "--select", "PP102", str(pack))) == [
        "PP101",
        "PP102",
        "PP102",
    ]
    assert codes(run("--check", *SCHEMA_ONLY, "--ignore", "PP102", str(pack))) == ["PP101"]
    proc = run(
        "--check",
        *SCHEMA_ONLY,
        "--severity",
        "PP101=warning",
        "--severity",
        "PP102=info",
        str(pack),
    )
    assert [line.split()[1] for line in proc.stdout.splitlines()] == [
        "warning",
        "information",
        "information",
    ]
    assert proc.returncode == 0
    assert (
        run(
            "--check",
            *SCHEMA_ONLY,
            "--strict",
            "--severity",
            "PP101=warning",
            "--severity",
            "PP102=info",
            str(pack),
        ).returncode
        == 1
    )


def test_command_line_takes_precedence_over_configuration(tmp_path: Path) -> None:
    write(
        tmp_path / ".pack-lsp.toml",
        'select = ["PP0", "PP1"]\nignore = ["PP102"]\n[severity]\nPP101 = "hint"\n',
    )
    pack = write(tmp_path / "a.promptpack.yaml", UNKNOWN_KEYS.replace("version: 1.0.0\n", "", 1))
    proc = run("--check", str(pack))
    assert proc.stdout.splitlines() == [
        f"{pack}:1:1: hint PP101 Missing required property `version` in the pack"
    ]
    # --select replaces the configured select and ignore lists...
    assert codes(run("--check", "--select", "PP102", str(pack))) == ["PP102", "PP102"]
    # ...--ignore adds to them, and --severity overrides the configured level.
    assert run("--check", "--ignore", "PP101", str(pack)).stdout == ""
    proc = run("--check", "--severity", "PP1=error", str(pack))
    assert proc.stdout.split()[1] == "error"
    assert proc.returncode == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--select", "PP9999"), "--select: unknown code `PP9999`"),
        (("--ignore", "XYZ"), "--ignore: unknown code `XYZ`"),
        (("--select", ","), "--select: no codes given"),
        (("--severity", "PP101"), "--severity: expected CODE=LEVEL, got `PP101`"),
        (("--severity", "PP101=loud"), "unknown severity 'loud'"),
        (("--severity", "QQ1=error"), "--severity: unknown code `QQ1`"),
        (("--stdin-filename", "x.yaml"), "--stdin-filename is only used with `-`"),
        (("--format", "xml"), "invalid choice"),
    ],
)
def test_bad_flags_are_usage_errors(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    pack = write(tmp_path / "a.promptpack.yaml", GOOD)
    proc = run("--check", *args, str(pack))
    assert proc.returncode == 2
    assert message in proc.stderr
    assert proc.stdout == ""


def test_exclude_applies_to_directory_scans(tmp_path: Path) -> None:
    write(tmp_path / "keep" / "a.promptpack.yaml", GOOD)
    write(tmp_path / "vendor" / "b.promptpack.yaml", GOOD)
    write(tmp_path / "keep" / "c.draft.promptpack.yaml", GOOD)
    write(tmp_path / "keep" / "d.promptpack.yaml", GOOD)

    def names(*args: str) -> list[str]:
        doc = json.loads(run("--check", "--format", "json", *args, cwd=tmp_path).stdout)
        return sorted(Path(f["path"]).as_posix() for f in doc["files"])

    assert names(".") == [
        "keep/a.promptpack.yaml",
        "keep/c.draft.promptpack.yaml",
        "keep/d.promptpack.yaml",
        "vendor/b.promptpack.yaml",
    ]
    assert names("--exclude", "vendor", "--exclude", "*.draft.*", ".") == [
        "keep/a.promptpack.yaml",
        "keep/d.promptpack.yaml",
    ]
    # Added to the configured exclude list.
    write(tmp_path / ".pack-lsp.toml", 'exclude = ["d.promptpack.yaml"]\n')
    assert names("--exclude", "vendor", ".") == [
        "keep/a.promptpack.yaml",
        "keep/c.draft.promptpack.yaml",
    ]
    # A file named explicitly is always checked.
    assert names("--exclude", "vendor", "vendor/b.promptpack.yaml") == ["vendor/b.promptpack.yaml"]


# --------------------------------------------------------------------------- stdin


def test_stdin_with_a_file_name(tmp_path: Path) -> None:
    write(tmp_path / "sub" / ".pack-lsp.toml", '[severity]\nPP102 = "warning"\n')
    text = UNKNOWN_KEYS.encode("utf-8")
    proc = run(
        "--check",
        *SCHEMA_ONLY,
        "-",
        "--stdin-filename",
        "sub/x.promptpack.yaml",
        cwd=tmp_path,
        stdin=text,
    )
    # The name is used in the output and to find sub/.pack-lsp.toml.
    assert proc.stdout.splitlines() == [
        "sub/x.promptpack.yaml:7:1: warning PP102 Unknown property `agent` in the pack root; "
        "did you mean `agents`?",
        "sub/x.promptpack.yaml:8:1: warning PP102 Unknown property `prompts2` in the pack root",
    ]
    assert proc.returncode == 0


def test_stdin_without_a_name(tmp_path: Path) -> None:
    proc = run("--check", *SCHEMA_ONLY, "-", cwd=tmp_path, stdin=b"id: demo\n")
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[0] == (
        "<stdin>:1:1: error PP101 Missing required property `name` in the pack"
    )
    assert proc.stderr == "Checked 1 file: 4 errors, 0 warnings, 0 information, 0 hints\n"


def test_stdin_name_decides_the_kind_of_file(tmp_path: Path) -> None:
    text = b'{"id": "demo"}  # pack-lsp: ignore[PP101]\n'
    as_yaml = run("--check", "-", "--stdin-filename", "a.promptpack.yaml", cwd=tmp_path, stdin=text)
    as_json = run("--check", "-", "--stdin-filename", "a.pack.json", cwd=tmp_path, stdin=text)
    assert "PP101" not in codes(as_yaml)
    assert codes(as_json) == ["PP013"]  # strict JSON: a comment is a syntax error


def test_stdin_sarif_and_github_use_the_name(tmp_path: Path) -> None:
    text = (GOOD + "agent: {}\n").encode("utf-8")
    github = run(
        "--check",
        "--format",
        "github",
        *SCHEMA_ONLY,
        "-",
        "--stdin-filename",
        "packs/p.promptpack.yaml",
        cwd=tmp_path,
        stdin=text,
    )
    assert github.stdout.startswith("::error file=packs/p.promptpack.yaml,line=7,col=1,")
    sarif = run(
        "--check",
        "--format",
        "sarif",
        *SCHEMA_ONLY,
        "-",
        "--stdin-filename",
        "packs/p.promptpack.yaml",
        cwd=tmp_path,
        stdin=text,
    )
    (result,) = json.loads(sarif.stdout)["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"] == {
        "uri": "packs/p.promptpack.yaml",
        "uriBaseId": "%SRCROOT%",
    }


def test_stdin_and_files_together(tmp_path: Path) -> None:
    pack = write(tmp_path / "a.promptpack.yaml", GOOD)
    proc = run(
        "--check", "--format", "json", str(pack), "-", "-", cwd=tmp_path, stdin=GOOD.encode("utf-8")
    )
    doc = json.loads(proc.stdout)
    assert [f["path"] for f in doc["files"]] == [str(pack), "<stdin>"]
    assert proc.returncode == 0


def test_stdin_bad_bytes(tmp_path: Path) -> None:
    proc = run("--check", "-", cwd=tmp_path, stdin=GOOD.encode("utf-8") + b"x: caf\xe9\n")
    assert "PP002" in codes(proc)
    assert proc.returncode == 1


# ----------------------------------------------------------- summary and exit codes


def test_summary_line_ends_text_output_on_stderr(tmp_path: Path) -> None:
    write(tmp_path / "a.promptpack.yaml", GOOD)
    write(
        tmp_path / "b.promptpack.yaml",
        GOOD + "agent: {}\nzz: 1  # pack-lsp: ignore[PP102, PP101]\n",
    )
    proc = run("--check", ".", cwd=tmp_path)
    assert proc.returncode == 1
    # stdout: exactly one line per diagnostic, unchanged.
    assert proc.stdout.splitlines() == [
        "b.promptpack.yaml:7:1: error PP102 Unknown property `agent` in the pack root; "
        "did you mean `agents`?",
        "b.promptpack.yaml:8:34: hint PP801 Unused suppression: no `PP101` diagnostic "
        "starts on this line",
    ]
    assert proc.stderr == (
        "Checked 2 files: 1 error, 0 warnings, 0 information, 1 hint\n"
        "1 problem fixable with `--fix`\n"
    )


def test_summary_counts_every_severity(tmp_path: Path) -> None:
    pack = write(
        tmp_path / "a.promptpack.yaml", UNKNOWN_KEYS.replace("version: 1.0.0\n", "", 1) + "x1: 1\n"
    )
    proc = run(
        "--check",
        *SCHEMA_ONLY,
        "--severity",
        "PP101=warning",
        "--severity",
        "PP102=info",
        str(pack),
    )
    assert proc.stderr.endswith(
        "Checked 1 file: 0 errors, 1 warning, 3 information, 0 hints\n"
        "1 problem fixable with `--fix`\n"
    )


def test_summary_only_for_text(tmp_path: Path) -> None:
    write(tmp_path / "a.promptpack.yaml", GOOD)
    for fmt in ("json", "sarif", "github"):
        assert run("--check", "--format", fmt, ".", cwd=tmp_path).stderr == ""


def test_exit_codes(tmp_path: Path) -> None:
    good = write(tmp_path / "good.promptpack.yaml", GOOD)
    bad = write(tmp_path / "bad.promptpack.yaml", GOOD + "agent: {}\n")
    for fmt in ("text", "json", "sarif", "github"):
        assert run("--check", "--format", fmt, str(good)).returncode == 0
        assert run("--check", "--format", fmt, str(bad)).returncode == 1
        missing = run("--check", "--format", fmt, str(good), str(tmp_path / "none.yaml"))
        assert missing.returncode == 2
        assert "no such file or directory" in missing.stderr
    warn = ("--severity", "PP102=warning")
    assert run("--check", *warn, str(bad)).returncode == 0
    assert run("--check", *warn, "--strict", str(bad)).returncode == 1
    assert run("--check", "--ignore", "PP102", str(bad)).returncode == 0
    suppressed = write(
        tmp_path / "s.promptpack.yaml", GOOD + "agent: {}  # pack-lsp: ignore[PP102]\n"
    )
    assert run("--check", str(suppressed)).returncode == 0
