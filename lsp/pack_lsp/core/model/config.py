"""pack-lsp configuration: ``.pack-lsp.toml`` or ``[tool.pack-lsp]`` in pyproject.toml.

The nearest file found walking up from the checked file wins. Keys may be written
in snake_case, kebab-case or camelCase (``fragment-dialect``, ``fragmentDialect``).
Editor settings (``packLsp``) are merged over the file's configuration.
"""

from __future__ import annotations

import enum
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, ClassVar, Literal

from pack_lsp.core.base import versions
from pack_lsp.core.base.diagnostics import Diagnostic, Severity
from pack_lsp.core.base.suggest import did_you_mean
from pack_lsp.core.model import targets

A2A_PREFIX = "a2a__"
"""A prompt's tool ``a2a__<member>`` calls the agents member ``<member>`` over A2A."""

DEFAULT_TOOL_NAMESPACES = (
    A2A_PREFIX,
    "mcp__",
    "workflow__",
    "memory__",
    "skill__",
    "image__",
    "video__",
)


class Profile(enum.StrEnum):
    """What a pack is checked against.

    ``SPEC``: the PromptPack specification and its RFCs. ``PROMPTKIT``: also what
    the reference runtime accepts and rejects (see ``core/model/profiles.py`` for the
    schema and severity changes, and the rules that ask for a profile).
    The values are the configuration's and the command line's spelling.
    """

    SPEC = "spec"
    PROMPTKIT = "promptkit"


def split_profile(value: object) -> tuple[Profile, str]:
    """A ``profile`` setting as (profile, PromptKit release): ``spec``, ``promptkit``
    (the default release, ``versions.PROMPTKIT_DEFAULT``) or ``promptkit@1.5.11``.
    ValueError with a clear message for anything else."""
    text = str(value).strip()
    name, at, release = text.partition("@")
    try:
        profile = Profile(name.strip())
    except ValueError:
        raise ValueError(
            f"profile must be `spec`, `promptkit` or `promptkit@<release>`; got {text!r}"
        ) from None
    if not at:
        return profile, versions.PROMPTKIT_DEFAULT
    if profile is not Profile.PROMPTKIT:
        raise ValueError(f"profile {text!r}: only `promptkit` takes a release (`promptkit@1.5.11`)")
    return profile, versions.parse_promptkit(release)


class ConfigError(ValueError):
    """A configuration file or setting that cannot be used."""


_DIALECTS = ("auto", "spec", "promptkit", "python")


def _severities(value: Any) -> Any:
    if not isinstance(value, Mapping):
        raise ValueError("severity must be a table of CODE = level")
    out: dict[str, Severity] = {}
    for code, level in value.items():
        if isinstance(level, Severity):
            out[str(code)] = level
        else:
            out[str(code)] = Severity.parse(str(level))
    return out


def _spec_version(value: Any) -> Any:
    if value is None:
        return value
    versions.parse_setting(str(value))  # raises ValueError with a clear message
    return str(value).strip()


def _promptkit_version(value: Any) -> Any:
    return versions.parse_promptkit(str(value))  # raises ValueError with a clear message


def _targets(value: Any) -> Any:
    if value is None:
        return value
    if isinstance(value, str):
        value = [v for v in re.split(r"[,\s]+", value) if v]
    if not isinstance(value, list | tuple):
        raise ValueError("targets must be a list of target names")
    names: list[str] = []
    for item in value:
        name = targets.parse_target(item).partition("@")[0]
        if name not in names:
            names.append(name)
    return tuple(names)


def _codes(value: Any) -> Any:
    if value is None:
        return value
    if isinstance(value, str):
        value = [v for v in re.split(r"[,\s]+", value) if v]
    if not isinstance(value, list | tuple):
        raise ValueError("expected a list of rule codes or code prefixes")
    return tuple(str(v).strip().upper() for v in value)


@dataclass(frozen=True, kw_only=True, slots=True)
class Config:
    """The configuration of a check: which rules, at which levels, against what.

    A plain frozen dataclass; input is validated by pydantic (``core/base/validation.py``,
    from these fields and the ``_pre_fields`` hooks) only when there is input to
    validate: ``from_mapping`` and ``merged`` always, ``Config(...)`` when a value is
    not already in its normal form (a string for an enum, a list for a tuple, a
    severity given by name, ...). ``Config()`` and values this class produced itself
    need no validation, so a check without a configuration file never imports
    pydantic.
    """

    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    severity: dict[str, Severity] = field(default_factory=dict)
    profile: Profile = Profile.SPEC
    # The PromptKit release the promptkit profile models; set with the profile
    # (`profile = "promptkit@1.5.3"`), `promptkit` alone is the newest modelled.
    promptkit_version: str = versions.PROMPTKIT_DEFAULT
    # PromptPack version every pack is checked against (`1.4.0`, `1.7`, `latest`); it
    # wins over the version a pack's `$schema` declares. None: use `$schema`, else the
    # latest version. Ignored by the promptkit profile (PromptKit embeds one schema).
    spec_version: str | None = None
    fragment_dialect: Literal["auto", "spec", "promptkit", "python"] = "auto"
    tool_namespaces: tuple[str, ...] = DEFAULT_TOOL_NAMESPACES
    exclude: tuple[str, ...] = ()
    manifests: tuple[str, ...] = ()  # globs of agent-extension manifests with other names
    # `--check DIR` on a directory with nothing to check passes instead of failing
    # (read from the configuration of DIR; the command line's --allow-empty).
    allow_empty: bool = False
    # A baseline file (`pack-lsp --check --write-baseline`), relative to the
    # configuration file: its problems are not reported again (cli/baseline.py).
    baseline: str | None = None
    # Files a project names (arena `file:` entries, a configured baseline) are read
    # only inside its repository (core/base/roots.py) unless this is true.
    read_outside_root: bool = False
    cards: dict[str, Any] = field(default_factory=dict)
    # The runtimes the packs are deployed to (`omnia`, `promptpack-python`,
    # `promptpack-langchainjs`, `promptkit`; core/model/targets.py). None: none
    # configured (a pack in a Kubernetes ConfigMap is then checked for `omnia`); ()
    # none at all. `promptkit` sets the profile (see `normalise`).
    targets: tuple[str, ...] | None = None
    source: str | None = None  # the file the configuration came from

    # Validators of raw field values, run by pydantic before the type check.
    _pre_fields: ClassVar[dict[str, Callable[[Any], Any]]] = {
        "severity": _severities,
        "spec_version": _spec_version,
        "promptkit_version": _promptkit_version,
        "select": _codes,
        "ignore": _codes,
        "targets": _targets,
    }

    def __post_init__(self) -> None:
        if not self._normal():
            valid = _validated({f: getattr(self, f) for f in _FIELDS})
            for name in _FIELDS:
                object.__setattr__(self, name, getattr(valid, name))

    def _normal(self) -> bool:
        """Whether every value is already what validation would make of it.

        Only exact types pass (no subclasses, no strings for enums), and only values
        no validator would rewrite; anything else is left to pydantic.
        """
        return (
            (self.select is None or _normal_codes(self.select))
            and _normal_codes(self.ignore)
            and type(self.severity) is dict
            and all(type(k) is str and type(v) is Severity for k, v in self.severity.items())
            and type(self.profile) is Profile
            and type(self.promptkit_version) is str
            and self.promptkit_version in versions.PROMPTKIT_RELEASES
            and self.spec_version is None
            and type(self.fragment_dialect) is str
            and self.fragment_dialect in _DIALECTS
            and _strings(self.tool_namespaces)
            and _strings(self.exclude)
            and _strings(self.manifests)
            and type(self.allow_empty) is bool
            and (self.baseline is None or type(self.baseline) is str)
            and type(self.read_outside_root) is bool
            and (
                self.targets is None
                or (_strings(self.targets) and all(t in targets.TARGET_NAMES for t in self.targets))
            )
            and type(self.cards) is dict
            and all(type(k) is str for k in self.cards)
            and (self.source is None or type(self.source) is str)
        )

    def enabled(self, code: str) -> bool:
        if self.select is not None and not any(_matches(code, s) for s in self.select):
            return False
        return not any(_matches(code, s) for s in self.ignore)

    def severity_for(self, code: str, default: Severity) -> Severity:
        best: tuple[int, Severity] | None = None
        for selector, level in self.severity.items():
            if _matches(code, selector.upper()) and (best is None or len(selector) > best[0]):
                best = (len(selector), level)
        return best[1] if best else default

    def apply(self, diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
        """Filter by select/ignore and apply severity overrides."""
        out: list[Diagnostic] = []
        for d in diagnostics:
            if not self.enabled(d.code):
                continue
            level = self.severity_for(d.code, d.severity)
            out.append(d if level == d.severity else d.with_severity(level))
        return out

    def merged(self, overrides: Mapping[str, Any]) -> Config:
        """A copy with ``overrides`` (already normalised or not) applied on top.

        Raises pydantic's ``ValidationError`` (a ``ValueError``) for a value or key
        that cannot be used.
        """
        data: dict[str, Any] = {f: getattr(self, f) for f in _FIELDS}
        data.update(normalise(overrides))
        if data.keys() <= _FIELD_SET:
            candidate = object.__new__(Config)
            for name in _FIELDS:
                object.__setattr__(candidate, name, data[name])
            if candidate._normal():
                # Same copies as validation makes: nothing shared with `overrides`.
                object.__setattr__(candidate, "severity", dict(candidate.severity))
                object.__setattr__(candidate, "cards", dict(candidate.cards))
                return candidate
        return _validated(data)


_FIELDS = tuple(f.name for f in fields(Config))
_FIELD_SET = frozenset(_FIELDS)


def _normal_codes(value: object) -> bool:
    return type(value) is tuple and all(
        type(code) is str and code == code.strip().upper() for code in value
    )


def _strings(value: object) -> bool:
    return type(value) is tuple and all(type(item) is str for item in value)


def _validated(data: Mapping[str, Any]) -> Config:
    """``data`` validated by pydantic (imported here, on the first input to validate)."""
    from pack_lsp.core.base.validation import validate

    return validate(Config, data)


def _matches(code: str, selector: str) -> bool:
    return selector == "ALL" or code == selector or code.startswith(selector)


_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


def normalise(raw: Mapping[str, Any]) -> dict[str, Any]:
    """Keys to snake_case, at the top level (nested tables such as cards are kept).

    A ``profile`` given as text also sets the PromptKit release (``promptkit@1.5.3``;
    the default release for ``promptkit`` or ``spec`` alone); ValueError when it is
    not a profile."""
    out: dict[str, Any] = {}
    for key, value in raw.items():
        k = _CAMEL.sub("_", str(key)).replace("-", "_").lower()
        out[k] = value
    profile = out.get("profile")
    if isinstance(profile, str):
        out["profile"], out["promptkit_version"] = split_profile(profile)
    _promptkit_target(out)
    return out


def _promptkit_target(out: dict[str, Any]) -> None:
    """The ``promptkit`` target is the ``promptkit`` profile (``promptkit@1.5.3`` names
    its release): naming it sets the profile; ValueError when ``profile`` says
    otherwise in the same table."""
    raw = out.get("targets")
    items = re.split(r"[,\s]+", raw) if isinstance(raw, str) else raw
    if not isinstance(items, list | tuple):
        return
    for item in items:
        text = str(item).strip()
        if text.partition("@")[0].strip() != targets.PROMPTKIT:
            continue
        profile, release = split_profile(text)
        if out.get("profile", profile) is not profile:
            raise ValueError(
                f"targets names `{text}`, which is the `promptkit` profile, but profile is "
                f"`{out['profile']}`"
            )
        if "@" in text or "profile" not in out:
            out["promptkit_version"] = release
        out["profile"] = profile
        return


def from_mapping(raw: Mapping[str, Any], source: str | None = None) -> Config:
    try:
        data = normalise(raw)
        if source is not None:
            data["source"] = source
        return _validated(data)
    except (ValueError, TypeError) as exc:  # pydantic's ValidationError is a ValueError
        raise invalid_configuration(source, _explain(exc, raw)) from None


def invalid_configuration(source: str | None, detail: str) -> ConfigError:
    """The error for a configuration (from the file ``source``) that cannot be used."""
    where = f" in {source}" if source else ""
    return ConfigError(f"invalid pack-lsp configuration{where}: {detail}")


#: The settings a configuration file may hold, as written there.
SETTINGS = tuple(
    name.replace("_", "-")
    for name in Config.__dataclass_fields__
    if name not in ("source", "promptkit_version")
)


def _explain(exc: Exception, raw: Mapping[str, Any] | None = None) -> str:
    pydantic = sys.modules.get("pydantic")  # loaded if it raised `exc`
    if pydantic is not None and isinstance(exc, pydantic.ValidationError):
        # The keys as written (``allow-empty``), by their normal form (``allow_empty``).
        written = {_CAMEL.sub("_", str(k)).replace("-", "_").lower(): str(k) for k in raw or {}}
        parts = []
        for err in exc.errors():
            loc = ".".join(str(p) for p in err["loc"]) or "(root)"
            if err["type"] == "extra_forbidden" and len(err["loc"]) == 1:
                key = written.get(str(err["loc"][0]), loc)
                hint = did_you_mean(key.replace("_", "-"), SETTINGS)
                known = "" if hint else f" (settings: {', '.join(SETTINGS)})"
                parts.append(f"unknown setting `{key}`{hint or known}")
                continue
            parts.append(f"{loc}: {err['msg']}")
        return "; ".join(parts)
    return str(exc)


def find_config_file(start: Path) -> tuple[Path, Mapping[str, Any]] | None:
    """The nearest ``.pack-lsp.toml`` or pyproject with ``[tool.pack-lsp]``."""
    directory = start if start.is_dir() else start.parent
    directory = directory.resolve()
    for folder in (directory, *directory.parents):
        candidate = folder / ".pack-lsp.toml"
        if candidate.is_file():
            return candidate, _read_toml(candidate)
        pyproject = folder / "pyproject.toml"
        if pyproject.is_file():
            data = _read_toml(pyproject, only_if=_MAY_CONFIGURE)
            tool = data.get("tool", {})
            section = tool.get("pack-lsp") if isinstance(tool, Mapping) else None
            if isinstance(section, Mapping):
                return pyproject, section
    return None


#: Text without which a pyproject.toml cannot hold a ``[tool.pack-lsp]`` table: a
#: ``tool.pack-lsp`` key path (headers, dotted keys; quoted or not), a ``[tool]``
#: table or an inline ``tool = {...}`` (where ``pack-lsp`` may be a plain key), or
#: an escape sequence (a quoted key may spell any name with them). Most projects'
#: files have none, and are then not parsed: the TOML parser costs a few
#: milliseconds of every check to import, and the project's own pyproject.toml,
#: found from any file below it, would be parsed for every file.
_MAY_CONFIGURE = re.compile(rb"""tool["']?\s*(?:\.\s*["']?pack-lsp|\]|=)|\\[uU]""")


def _read_toml(path: Path, only_if: re.Pattern[bytes] | None = None) -> Mapping[str, Any]:
    """The TOML data of ``path``; empty when its text does not match ``only_if``."""
    from pack_lsp.core.base.source import read_source

    try:
        raw = read_source(path)
    except OSError as exc:
        raise ConfigError(f"cannot read configuration {path}: {exc.strerror or exc}") from None
    if only_if is not None and only_if.search(raw) is None:
        return {}
    import tomllib  # only when there is a file to parse

    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"cannot read configuration {path}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(toml_error(path, str(exc))) from None


_TOML_AT = re.compile(r"\s*\(at line (\d+), column (\d+)\)$")


def toml_error(path: Path, message: str) -> str:
    """``path:line:column: not valid TOML: what`` from the TOML parser's message,
    which ends with ``(at line L, column C)`` (or ``(at end of document)``)."""
    at = _TOML_AT.search(message)
    if at is None:
        return f"{path}: not valid TOML: {message}"
    return f"{path}:{at.group(1)}:{at.group(2)}: not valid TOML: {message[: at.start()]}"


def load_file(path: Path) -> Config:
    """The configuration in the file ``path`` (``--config FILE``): a pyproject.toml's
    ``[tool.pack-lsp]`` table, else the whole file, as in ``.pack-lsp.toml``."""
    data = _read_toml(path)
    tool = data.get("tool")
    section = tool.get("pack-lsp") if isinstance(tool, Mapping) else None
    if path.name == "pyproject.toml" or isinstance(section, Mapping):
        if not isinstance(section, Mapping):
            raise ConfigError(f"{path} has no [tool.pack-lsp] table")
        return from_mapping(section, str(path))
    return from_mapping(data, str(path))


def load_for(path: Path | None) -> Config:
    """Configuration that applies to the file at ``path`` (defaults if none)."""
    if path is None:
        return Config()
    found = find_config_file(path)
    if found is None:
        return Config()
    file, section = found
    return from_mapping(section, str(file))
