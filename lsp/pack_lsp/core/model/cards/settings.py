"""Deployment settings for Agent Cards: ``[tool.pack-lsp.cards]`` / ``packLsp.cards``.

A pack says what an agent *is* (name, description, skill); where it is served and
how it is secured is a deployment matter the pack does not contain. Those fields
come from this table, validated here with messages that name the offending key::

    [tool.pack-lsp.cards]
    a2a-version = "0.3.0"                       # or "1.0"
    url = "https://agents.example.com/{agent}"  # {agent}: member key, {pack}: pack id
    transport = "JSONRPC"                       # JSONRPC, GRPC, HTTP+JSON or a URI
    documentation-url = "https://docs.example.com/agents"
    icon-url = "https://example.com/icon.png"
    extended-card = false
    provider = { organization = "Example Inc.", url = "https://example.com" }
    security = [{ bearer = [] }]

    [tool.pack-lsp.cards.capabilities]
    streaming = true
    push-notifications = false

    [tool.pack-lsp.cards.security-schemes.bearer]
    type = "http"
    scheme = "bearer"

    [[tool.pack-lsp.cards.capabilities.extensions]]     # on every card
    uri = "https://proto-labs.ai/a2a/ext/cost-v1"

    [[tool.pack-lsp.cards.agents.researcher.extensions]]  # on one agent's card
    uri = "https://proto-labs.ai/a2a/ext/blast-v1"
    params = { skills = { researcher = { radius = "self" } } }

Keys may be written in snake_case, kebab-case or camelCase; names chosen by the
user (scheme names, agent keys, extension params) are kept as written. Security
schemes are written in the OpenAPI style of A2A 0.3 (``type = "apiKey"``, ...)
and converted for 1.0 cards.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import PurePath
from typing import TYPE_CHECKING, Any, ClassVar, Literal

# Defined in `names` (light enough for the command line); still importable from here.
from pack_lsp.core.model.cards.names import A2A_VERSIONS as A2A_VERSIONS
from pack_lsp.core.model.cards.names import LOCAL_URL as LOCAL_URL

if TYPE_CHECKING:
    from pydantic import ValidationError

A2AVersion = Literal["0.3.0", "1.0"]
URL_FIELDS = frozenset({"agent", "pack"})

_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


def _snake(key: str) -> str:
    return _CAMEL.sub("_", key).replace("-", "_").lower()


class CardsConfigError(ValueError):
    """The cards configuration cannot be used; the message names the key at fault."""


# The settings are plain frozen dataclasses; a table is validated by pydantic, through
# the model `core/base/validation.py` derives from each class and its hooks (`_pre`: run
# on the raw table; `_post`: checks of the validated values). A check without a
# `cards` table needs no validation and never imports pydantic.


def _normalise_keys(value: Any) -> Any:
    """A table whose own keys may be spelt in any case style."""
    if isinstance(value, Mapping):
        return {_snake(str(k)): v for k, v in value.items()}
    return value


_SECTION: tuple[Callable[[Any], Any], ...] = (_normalise_keys,)


@dataclass(frozen=True, kw_only=True, slots=True)
class Extension:
    """One entry of ``capabilities.extensions``."""

    uri: str
    description: str | None = None
    required: bool | None = None
    params: dict[str, Any] | None = None

    _pre: ClassVar[tuple[Callable[[Any], Any], ...]] = _SECTION


@dataclass(frozen=True, kw_only=True, slots=True)
class Capabilities:
    """The ``capabilities`` of the agent cards (``[cards]`` settings)."""

    streaming: bool | None = None
    push_notifications: bool | None = None
    state_transition_history: bool | None = None  # 0.3.0 only
    extensions: tuple[Extension, ...] = ()

    _pre: ClassVar[tuple[Callable[[Any], Any], ...]] = _SECTION


@dataclass(frozen=True, kw_only=True, slots=True)
class Provider:
    """The ``provider`` of the agent cards: organisation and URL."""

    organization: str
    url: str

    _pre: ClassVar[tuple[Callable[[Any], Any], ...]] = _SECTION


@dataclass(frozen=True, kw_only=True, slots=True)
class OAuthFlow:
    """One OAuth 2.0 flow of a security scheme: its URLs and scopes."""

    authorization_url: str | None = None
    token_url: str | None = None
    refresh_url: str | None = None
    device_authorization_url: str | None = None
    scopes: dict[str, str] = field(default_factory=dict)

    _pre: ClassVar[tuple[Callable[[Any], Any], ...]] = _SECTION


_FLOW_NEEDS: dict[str, tuple[str, ...]] = {
    "authorization_code": ("authorization_url", "token_url"),
    "client_credentials": ("token_url",),
    "implicit": ("authorization_url",),
    "password": ("token_url",),
    "device_code": ("device_authorization_url", "token_url"),
}

_SCHEME_NEEDS: dict[str, tuple[str, ...]] = {
    "apiKey": ("name", "in_"),
    "http": ("scheme",),
    "oauth2": ("flows",),
    "openIdConnect": ("open_id_connect_url",),
    "mutualTLS": (),
}


def _scheme_keys(value: Any) -> Any:
    if isinstance(value, Mapping):
        value = {_snake(str(k)): v for k, v in value.items()}
        for alias in ("in", "location"):
            if alias in value:
                value["in_"] = value.pop(alias)
    return value


def _complete_scheme(scheme: Any) -> None:
    missing = [f.rstrip("_") for f in _SCHEME_NEEDS[scheme.type] if getattr(scheme, f) is None]
    if missing:
        raise ValueError(f"a {scheme.type} scheme needs {', '.join(missing)}")
    for flow_name, flow in (scheme.flows or {}).items():
        needs = _FLOW_NEEDS.get(flow_name)
        if needs is None:
            raise ValueError(
                f"unknown OAuth flow {flow_name!r}; expected one of "
                + ", ".join(sorted(_FLOW_NEEDS))
            )
        gaps = [n for n in needs if getattr(flow, n) is None]
        if gaps:
            raise ValueError(f"flow {flow_name} needs {', '.join(gaps)}")


@dataclass(frozen=True, kw_only=True, slots=True)
class SecurityScheme:
    """A security scheme in the OpenAPI style (``type`` tells the kind)."""

    type: Literal["apiKey", "http", "oauth2", "openIdConnect", "mutualTLS"]
    description: str | None = None
    name: str | None = None
    in_: Literal["header", "query", "cookie"] | None = None
    scheme: str | None = None
    bearer_format: str | None = None
    flows: dict[str, OAuthFlow] | None = None
    oauth2_metadata_url: str | None = None
    open_id_connect_url: str | None = None

    _pre: ClassVar[tuple[Callable[[Any], Any], ...]] = (_normalise_keys, _scheme_keys)
    _post: ClassVar[tuple[Callable[[Any], None], ...]] = (_complete_scheme,)


@dataclass(frozen=True, kw_only=True, slots=True)
class AgentSettings:
    """Settings for one agent's card (``agents.<member key>``)."""

    url: str | None = None
    description: str | None = None
    extensions: tuple[Extension, ...] = ()

    _pre: ClassVar[tuple[Callable[[Any], Any], ...]] = _SECTION


def _settings_aliases(value: Any) -> Any:
    if isinstance(value, Mapping):
        value = {_snake(str(k)): v for k, v in value.items()}
        for alias in ("supports_authenticated_extended_card", "extended_agent_card"):
            if alias in value and "extended_card" not in value:
                value["extended_card"] = value.pop(alias)
        if "security_requirements" in value and "security" not in value:
            value["security"] = value.pop("security_requirements")
        if isinstance(value.get("a2a_version"), int | float):
            value["a2a_version"] = str(value["a2a_version"])
    return value


def _url_templates(settings: Any) -> None:
    for where, template in [("url", settings.url)] + [
        (f"agents.{k}.url", a.url) for k, a in settings.agents.items()
    ]:
        if template is not None:
            check_template(template, where)


@dataclass(frozen=True, kw_only=True, slots=True)
class CardsSettings:
    """The ``[cards]`` settings: what the derived agent cards say beyond the pack."""

    a2a_version: A2AVersion = "0.3.0"
    url: str | None = None
    transport: str = "JSONRPC"
    capabilities: Capabilities = field(default_factory=Capabilities)
    security_schemes: dict[str, SecurityScheme] = field(default_factory=dict)
    security: tuple[dict[str, tuple[str, ...]], ...] = ()
    provider: Provider | None = None
    documentation_url: str | None = None
    icon_url: str | None = None
    extended_card: bool | None = None
    agents: dict[str, AgentSettings] = field(default_factory=dict)
    source: str | None = None

    _pre: ClassVar[tuple[Callable[[Any], Any], ...]] = (_normalise_keys, _settings_aliases)
    _post: ClassVar[tuple[Callable[[Any], None], ...]] = (_url_templates,)

    @property
    def configured(self) -> bool:
        """Whether a deployment address was configured (otherwise the local default)."""
        return self.url is not None

    def url_for(self, agent: str, pack_id: str | None) -> str:
        own = self.agents.get(agent)
        template = own.url if own is not None and own.url is not None else self.url
        if template is None:
            template = LOCAL_URL
        return template.replace("{agent}", agent).replace("{pack}", pack_id or "")


def check_template(template: str, where: str) -> None:
    try:
        fields = [f for _, f, _, _ in string.Formatter().parse(template) if f is not None]
    except ValueError as exc:
        raise ValueError(f"{where}: malformed template {template!r}: {exc}") from None
    unknown = [f for f in fields if f not in URL_FIELDS]
    if unknown:
        raise ValueError(
            f"{where}: unknown placeholder {{{unknown[0]}}} in {template!r}; "
            "use {agent} (the member key) or {pack} (the pack id)"
        )


def explain(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        loc = ".".join(str(p).rstrip("_") for p in err["loc"] if not str(p).startswith("function"))
        msg = str(err["msg"]).removeprefix("Value error, ")
        parts.append(f"{loc}: {msg}" if loc else msg)
    return "; ".join(parts)


def parse_settings(raw: Mapping[str, Any] | None, source: str | None = None) -> CardsSettings:
    """Validate a ``cards`` table; :class:`CardsConfigError` says what is wrong."""
    data = dict(raw or {})
    if not data:
        # Nothing to validate: the defaults (what validating `{}` gives).
        return CardsSettings(source=source)
    from pydantic import ValidationError

    from pack_lsp.core.base.validation import validate

    try:
        settings = validate(CardsSettings, data)
    except ValidationError as exc:
        where = f" in {PurePath(source).name}" if source else ""
        raise CardsConfigError(f"invalid cards configuration{where}: {explain(exc)}") from None
    return replace(settings, source=source) if source else settings
