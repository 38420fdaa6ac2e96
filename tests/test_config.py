from __future__ import annotations

from pathlib import Path

import pytest

from pack_lsp.core import analyze
from pack_lsp.core.config import Config, ConfigError, from_mapping, load_for
from pack_lsp.core.diagnostics import Severity

BROKEN = "id: Bad Id\nname: ''\n"


def codes(config: Config) -> list[tuple[str, Severity]]:
    return [
        (d.code, d.severity) for d in analyze(BROKEN, kind="promptpack", config=config).diagnostics
    ]


def test_defaults() -> None:
    assert Config().profile == "spec"
    assert ("PP105", Severity.ERROR) in codes(Config())


def test_select_ignore_and_prefixes() -> None:
    assert {c for c, _ in codes(Config(select=("PP105",)))} == {"PP105"}
    assert "PP101" not in {c for c, _ in codes(Config(ignore=("PP10",)))}
    assert codes(Config(select=("PP1",), ignore=("PP101", "PP105", "PP107"))) == []


def test_severity_override_most_specific_wins() -> None:
    config = from_mapping({"severity": {"PP1": "hint", "PP105": "warning"}})
    result = dict(codes(config))
    assert result["PP105"] == Severity.WARNING
    assert result["PP101"] == Severity.HINT


def test_key_spellings() -> None:
    assert from_mapping({"fragment-dialect": "python"}).fragment_dialect == "python"
    assert from_mapping({"fragmentDialect": "promptkit"}).fragment_dialect == "promptkit"
    assert from_mapping({"select": "PP1, PP2"}).select == ("PP1", "PP2")


@pytest.mark.parametrize(
    "raw",
    [
        {"profile": "nope"},
        {"severity": {"PP101": "loud"}},
        {"unknown_option": 1},
        {"select": 3},
    ],
)
def test_bad_configuration_is_explained(raw: dict[str, object]) -> None:
    with pytest.raises(ConfigError) as info:
        from_mapping(raw, "x.toml")
    assert "x.toml" in str(info.value)


def test_nearest_file_wins(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.pack-lsp]\nignore = ["PP105"]\n', encoding="utf-8"
    )
    sub = tmp_path / "packs" / "deep"
    sub.mkdir(parents=True)
    assert load_for(sub / "a.yaml").ignore == ("PP105",)
    (tmp_path / "packs" / ".pack-lsp.toml").write_text('profile = "promptkit"\n', encoding="utf-8")
    config = load_for(sub / "a.yaml")
    assert config.profile == "promptkit" and config.ignore == ()
    assert config.source is not None and config.source.endswith(".pack-lsp.toml")


def test_pyproject_without_section_is_skipped(tmp_path: Path) -> None:
    (tmp_path / ".pack-lsp.toml").write_text('ignore = ["PP101"]\n', encoding="utf-8")
    inner = tmp_path / "inner"
    inner.mkdir()
    (inner / "pyproject.toml").write_text('[project]\nname = "x"\n', encoding="utf-8")
    assert load_for(inner / "a.yaml").ignore == ("PP101",)


def test_unreadable_toml(tmp_path: Path) -> None:
    (tmp_path / ".pack-lsp.toml").write_text("profile = \n", encoding="utf-8")
    with pytest.raises(ConfigError):
        load_for(tmp_path / "a.yaml")


def test_merged_settings() -> None:
    base = from_mapping({"ignore": ["PP101"], "profile": "promptkit"})
    merged = base.merged({"fragmentDialect": "python"})
    assert merged.ignore == ("PP101",) and merged.fragment_dialect == "python"
    assert merged.profile == "promptkit"
