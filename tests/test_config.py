from __future__ import annotations

from pathlib import Path

import pytest

from pack_lsp.core import analyze
from pack_lsp.core.base.diagnostics import Severity
from pack_lsp.core.checks.registry import check_codes, code_problems, unknown_selector
from pack_lsp.core.model.config import Config, ConfigError, from_mapping, load_for

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


# ------------------------------------------------------------ codes in the configuration


@pytest.mark.parametrize(
    ("text", "key", "hint"),
    [
        (
            'select = ["XX9"]\n',
            "select",
            "unknown code `XX9` (codes begin with `PA`, `PK`, `PM`, `PP` or `PT`)",
        ),
        ('ignore = ["PP3O1"]\n', "ignore", "unknown code `PP3O1` (did you mean `PP301`?)"),
        (
            '[severity]\nPP3O7 = "error"\n',
            "severity",
            "unknown code `PP3O7` (did you mean `PP307`?)",
        ),
    ],
)
def test_a_typo_in_a_code_is_a_configuration_error(
    text: str, key: str, hint: str, tmp_path: Path
) -> None:
    (tmp_path / ".pack-lsp.toml").write_text(text, encoding="utf-8")
    config = load_for(tmp_path / "a.yaml")  # the file itself is valid TOML and keys
    with pytest.raises(ConfigError) as info:
        check_codes(config)
    message = str(info.value)
    assert message.startswith(f"invalid pack-lsp configuration in {tmp_path / '.pack-lsp.toml'}: ")
    assert f"{key}: {hint}" in message


def test_codes_and_prefixes_in_any_case_are_valid() -> None:
    config = from_mapping(
        {"select": ["pp3", "PP301", "all"], "ignore": "PM0, pp1", "severity": {"p": "hint"}}
    )
    assert check_codes(config) is config
    assert code_problems(config) == []


def test_every_unknown_code_is_named_once_per_key() -> None:
    config = from_mapping({"select": ["PP1", "PQ1", ""], "ignore": ["PP9999"]})
    assert code_problems(config) == [
        "select: unknown code `PQ1` (did you mean `PA1` or `PP1`?)",
        "select: an empty code",
        "ignore: unknown code `PP9999` (codes begin with `PA`, `PK`, `PM`, `PP` or `PT`)",
    ]


def test_the_command_line_and_the_configuration_word_a_code_alike() -> None:
    """Both go through ``unknown_selector``: the same test, the same suggestion."""
    from pack_lsp.cli.check import UsageError, _selectors

    with pytest.raises(UsageError) as info:
        _selectors(["PP1,pp3o1"], "--ignore")
    assert str(info.value) == f"--ignore: {unknown_selector('pp3o1')}"
    assert code_problems(from_mapping({"ignore": ["pp3o1"]})) == [
        f"ignore: {unknown_selector('PP3O1')}"
    ]


def test_a_pyproject_section_is_checked_too(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.pack-lsp]\nignore = ["PP3O1"]\n', encoding="utf-8"
    )
    with pytest.raises(ConfigError, match=r"pyproject\.toml: ignore: unknown code `PP3O1`"):
        check_codes(load_for(tmp_path / "a.yaml"))


class _Messages:
    """A language server whose window messages are collected instead of sent."""

    def __init__(self) -> None:
        from pack_lsp.server.app import PackServer

        self.shown: list[str] = []
        self.logged: list[str] = []
        self.server = PackServer()
        self.server.window_show_message = lambda p: self.shown.append(p.message)  # type: ignore[method-assign]
        self.server.window_log_message = lambda p: self.logged.append(p.message)  # type: ignore[method-assign]


def test_the_server_reports_an_unknown_code_in_a_file_and_uses_the_defaults(
    tmp_path: Path,
) -> None:
    from pygls.uris import from_fs_path

    (tmp_path / ".pack-lsp.toml").write_text(
        'ignore = ["PP3O1"]\nprofile = "promptkit"\n', encoding="utf-8"
    )
    messages = _Messages()
    config = messages.server.config_for(from_fs_path(str(tmp_path / "a.promptpack.yaml")) or "")
    assert config == Config()
    (shown,) = messages.shown
    assert str(tmp_path / ".pack-lsp.toml") in shown
    assert "ignore: unknown code `PP3O1` (did you mean `PP301`?)" in shown
    assert shown.endswith("; using the defaults")


def test_the_server_reports_an_unknown_code_in_its_settings_and_uses_the_defaults() -> None:
    messages = _Messages()
    server = messages.server
    server.set_settings({"packLsp": {"select": ["PP1"], "changeDelay": 0.3}})
    assert server.settings() == {"select": ["PP1"]}
    server.set_settings({"packLsp": {"severity": {"PP3O7": "error"}, "changeDelay": 0.2}})
    assert server.settings() == {}  # the defaults, not half of the settings
    assert server.change_delay == 0.2  # server-only settings are not configuration
    assert messages.shown == [
        "pack-lsp: invalid `packLsp` settings (severity: unknown code `PP3O7` "
        "(did you mean `PP307`?)); using the defaults"
    ]


def test_allow_empty_is_a_boolean() -> None:
    assert Config().allow_empty is False
    assert from_mapping({"allow-empty": True}).allow_empty is True
    assert from_mapping({"allowEmpty": False}).allow_empty is False
    with pytest.raises(ConfigError, match="allow_empty"):
        from_mapping({"allow-empty": "sometimes"}, "x.toml")


@pytest.mark.parametrize("value", ["abc", "1.5MB"])
def test_the_server_reports_a_file_size_limit_that_is_not_a_size(
    value: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pack_lsp.core.base.source import DEFAULT_MAX_FILE_SIZE, max_file_size, read_source

    monkeypatch.setenv("PACK_LSP_MAX_FILE_SIZE", value)
    messages = _Messages()
    messages.server.report_file_size_setting()
    messages.server.report_file_size_setting()
    expected = (
        f"pack-lsp: PACK_LSP_MAX_FILE_SIZE: `{value}` is not a size: give a whole number of "
        "bytes (1048576), or a whole number with a unit: KB, MB, GB (powers of 1000) or KiB, "
        "MiB, GiB (powers of 1024); 0 means no limit. Using the default limit, 10.0 MiB"
    )
    assert messages.shown == [expected]  # shown once
    assert expected in messages.logged
    # Files are read under the default limit meanwhile.
    assert max_file_size() == DEFAULT_MAX_FILE_SIZE
    pack = tmp_path / "a.promptpack.yaml"
    pack.write_text("id: a\n", encoding="utf-8")
    assert read_source(pack) == b"id: a\n"


def test_the_server_says_nothing_of_a_valid_file_size_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PACK_LSP_MAX_FILE_SIZE", "20MiB")
    messages = _Messages()
    messages.server.report_file_size_setting()
    assert messages.shown == messages.logged == []
