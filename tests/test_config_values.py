"""Configuration values are dataclasses; pydantic validates input into them.

``Config`` and the cards settings skip pydantic when there is nothing to validate
(defaults, values already in their normal form): these tests check that what they
build then is exactly what validating the same input builds.
"""

from __future__ import annotations

import dataclasses
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest

from pack_lsp.core.base.diagnostics import Severity
from pack_lsp.core.base.validation import model_for, validate
from pack_lsp.core.model.cards.settings import CardsSettings, SecurityScheme, parse_settings
from pack_lsp.core.model.config import (
    Config,
    ConfigError,
    Profile,
    from_mapping,
    load_for,
    normalise,
)

DATACLASSES = [Config, CardsSettings, SecurityScheme]


@pytest.mark.parametrize("cls", DATACLASSES, ids=lambda c: c.__name__)
def test_model_has_the_dataclass_fields_and_defaults(cls: type) -> None:
    model = model_for(cls)
    assert list(model.model_fields) == [f.name for f in dataclasses.fields(cls)]
    for f in dataclasses.fields(cls):
        info = model.model_fields[f.name]
        if f.default is not dataclasses.MISSING:
            assert info.default == f.default
        elif f.default_factory is not dataclasses.MISSING:
            assert info.default_factory is f.default_factory
        else:
            assert info.is_required()


def test_defaults_are_what_validating_nothing_gives() -> None:
    assert validate(Config, {}) == Config()
    assert from_mapping({}) == Config()
    assert validate(CardsSettings, {}) == CardsSettings()
    assert parse_settings({}) == CardsSettings()
    assert parse_settings(None, "/x/.pack-lsp.toml") == CardsSettings(source="/x/.pack-lsp.toml")


def test_constructor_validates_input_not_in_normal_form() -> None:
    config = Config(severity={"pp1": "hint"}, select=["pp1 ", "PP2"], profile="promptkit")  # type: ignore[arg-type]
    assert config.severity == {"pp1": Severity.HINT}
    assert config.select == ("PP1", "PP2")
    assert type(config.profile) is Profile and config.profile is Profile.PROMPTKIT
    with pytest.raises(ValueError, match="unknown severity"):
        Config(severity={"PP1": "loud"})  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="spec-version"):
        Config(spec_version="7")


OVERRIDES: list[dict[str, Any]] = [
    {},
    {"select": ("PP1", "PP2"), "ignore": ()},
    {"ignore": ("PP101", "PP2")},
    {"severity": {"PP2": Severity.HINT}},
    {"profile": Profile.PROMPTKIT},
    {"exclude": ("a/**",), "manifests": ("*.ext.json",)},
    {"cards": {"a2a_version": "1.0"}},
    {"fragmentDialect": "python"},
    {"allow-empty": True},
    # Not in normal form: validated.
    {"profile": "promptkit"},
    {"select": "pp1, pp2"},
    {"severity": {"PP1": "warning"}},
    {"spec-version": "1.7"},
    {"exclude": ["x"]},
]


@pytest.mark.parametrize("overrides", OVERRIDES, ids=repr)
def test_merged_is_the_validated_merge(overrides: dict[str, Any]) -> None:
    base = from_mapping({"ignore": ["PP105"], "severity": {"PP3": "hint"}}, "x.toml")
    merged = base.merged(overrides)
    data = {f.name: getattr(base, f.name) for f in dataclasses.fields(Config)}
    expected = validate(Config, {**data, **normalise(overrides)})
    assert merged == expected
    for f in dataclasses.fields(Config):
        assert type(getattr(merged, f.name)) is type(getattr(expected, f.name)), f.name
    # Nothing of the input is shared with the result.
    assert merged.severity is not overrides.get("severity")
    assert merged.cards is not overrides.get("cards")


def test_merged_refuses_an_unknown_key() -> None:
    with pytest.raises(ValueError, match="Extra inputs are not permitted"):
        Config().merged({"colour": "red"})


def test_values_pickle_for_worker_processes() -> None:
    config = from_mapping({"severity": {"PP1": "hint"}, "cards": {"url": "https://x/{agent}"}})
    assert pickle.loads(pickle.dumps(config)) == config
    settings = parse_settings(
        {"securitySchemes": {"k": {"type": "apiKey", "name": "X", "in": "header"}}}
    )
    assert pickle.loads(pickle.dumps(settings)) == settings
    assert type(settings.security_schemes["k"]) is SecurityScheme


# ----------------------------------------------------------------- pyproject.toml


SPELLINGS = [
    '[tool.pack-lsp]\nignore = ["PP101"]\n',
    '[ tool . "pack-lsp" ]\nignore = ["PP101"]\n',
    "['tool'.'pack-lsp']\nignore = ['PP101']\n",
    '[tool.pack-lsp.cards]\nurl = "https://x/{agent}"\n[tool.pack-lsp]\nignore = ["PP101"]\n',
    '[tool]\npack-lsp = { ignore = ["PP101"] }\n',
    '["tool"]\n"pack-lsp".ignore = ["PP101"]\n',
    'tool.pack-lsp.ignore = ["PP101"]\n',
    'tool = { pack-lsp = { ignore = ["PP101"] } }\n',
    '[tool."pack\\u002dlsp"]\nignore = ["PP101"]\n',
    '[project]\nname = "x"\n\n[tool.ruff]\nline-length = 1\n\n'
    '[tool.pack-lsp]\nignore = ["PP101"]\n',
]


@pytest.mark.parametrize("text", SPELLINGS)
def test_every_spelling_of_the_section_is_read(text: str, tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(text, encoding="utf-8")
    config = load_for(tmp_path / "a.promptpack.yaml")
    assert config.ignore == ("PP101",), text
    assert config.source is not None and config.source.endswith("pyproject.toml")


def test_a_pyproject_that_cannot_configure_is_not_parsed(tmp_path: Path) -> None:
    """Without `tool.pack-lsp`, a `[tool]` table, `tool = ` or an escape, a
    pyproject.toml cannot hold the section: it is skipped unparsed (even broken),
    and the search goes on upwards."""
    (tmp_path / ".pack-lsp.toml").write_text('ignore = ["PP105"]\n', encoding="utf-8")
    inner = tmp_path / "inner"
    inner.mkdir()
    (inner / "pyproject.toml").write_text(
        '[project]\nname = "pack-lsp"\n[project.scripts]\npack-lsp = "x:y"\n[tool.ruff\n',
        encoding="utf-8",
    )
    assert load_for(inner / "a.promptpack.yaml").ignore == ("PP105",)
    # One that may hold it is parsed, and a broken one is reported.
    (inner / "pyproject.toml").write_text("[tool]\npack-lsp = \n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"pyproject\.toml:2:12: not valid TOML: "):
        load_for(inner / "a.promptpack.yaml")


def test_hooks_run_in_the_order_declared() -> None:
    seen: list[str] = []

    def first(value: Any) -> Any:
        seen.append("first")
        return {**value, "x": value["x"] * 10}

    def second(value: Any) -> Any:
        seen.append("second")
        return {**value, "x": value["x"] + 1}

    def check(record: Any) -> None:
        seen.append(f"post {record.x}")

    @dataclasses.dataclass(frozen=True)
    class Record:
        x: int = 0
        _pre: ClassVar[tuple[Callable[[Any], Any], ...]] = (first, second)
        _post: ClassVar[tuple[Callable[[Any], None], ...]] = (check,)

    assert validate(Record, {"x": 2}) == Record(x=21)
    assert seen == ["first", "second", "post 21"]
