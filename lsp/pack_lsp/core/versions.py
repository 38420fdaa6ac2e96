"""Which PromptPack version a pack is checked against, and our schema cut to that version.

Our schema (``schemas/promptpack.schema.json``) describes the latest format. Each
property added after v1.0 carries ``x-since`` (and ``x-rfc`` when an RFC introduced
it); a constraint that changed carries ``x-before``: patches that give its earlier
form. ``restrict`` turns it into the schema of one version, so the same file serves
every version and the versions cannot drift apart.

The target version is decided in this order (first match wins):

1. the ``promptkit`` profile: the schema PromptKit embeds (labelled 1.5.0), since
   the profile names a runtime and that runtime knows one schema;
2. the ``spec-version`` setting (configuration file, editor settings or
   ``--spec-version``): a project that deploys on a runtime of a known version pins
   it, and every pack is checked against that version whatever it declares;
3. the pack's ``$schema`` URL: ``.../schema/v1.7.0/...`` (or ``v1.7``), ``latest``
   and the spec's ``.../schema/v1/...`` (latest v1) are understood;
4. otherwise the latest version.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

LATEST = "1.9.0"
PROMPTKIT_VERSION = "1.5.0"

# Published versions, oldest first. A declared version between two of them is checked
# as the newest published one not above it (1.6.0 → 1.5.1).
KNOWN_VERSIONS = (
    "1.0.0",
    "1.1.0",
    "1.2.0",
    "1.3.0",
    "1.3.1",
    "1.4.0",
    "1.4.1",
    "1.5.1",
    "1.7.0",
    "1.8.0",
    "1.8.1",
    "1.9.0",
)

_URL_VERSION = re.compile(r"/schema/(latest|v?(\d+)(?:\.(\d+))?(?:\.(\d+))?)/", re.IGNORECASE)
_SETTING = re.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+))?$|^latest$", re.IGNORECASE)

# Where the target version came from.
SOURCE_DEFAULT = "default"
SOURCE_SCHEMA = "$schema"
SOURCE_SETTING = "setting"
SOURCE_PROFILE = "profile"


def key(version: str) -> tuple[int, ...]:
    """A version as a comparable tuple: ``"1.10.0"`` sorts after ``"1.9.0"``."""
    return tuple(int(part) for part in version.split("."))


def _published(wanted: tuple[int, int, int]) -> str:
    """The newest published version not above ``wanted`` (the oldest if all are)."""
    best = KNOWN_VERSIONS[0]
    for known in KNOWN_VERSIONS:
        if key(known) <= wanted:
            best = known
    return best


def _latest_of(major: int, minor: int | None) -> tuple[int, int, int]:
    """The highest published version of ``major`` (and ``minor`` when given)."""
    matching = [
        key(v)
        for v in KNOWN_VERSIONS
        if key(v)[0] == major and (minor is None or key(v)[1] == minor)
    ]
    if matching:
        found = max(matching)
        return (found[0], found[1], found[2])
    return (major, minor if minor is not None else 0, 0)


def parse_setting(value: str) -> str:
    """A ``spec-version`` setting as a published version; ValueError when unusable."""
    match = _SETTING.match(value.strip())
    if match is None:
        raise ValueError(
            f"spec-version must be a PromptPack version such as 1.4.0, or `latest`; got {value!r}"
        )
    if match.group(1) is None:
        return LATEST
    major, minor = int(match.group(1)), int(match.group(2))
    patch = match.group(3)
    wanted = (major, minor, int(patch)) if patch is not None else _latest_of(major, minor)
    if wanted[0] != 1:
        raise ValueError(f"spec-version {value!r}: pack-lsp knows PromptPack 1.x only")
    return _published(wanted)


def declared_version(schema_url: object) -> str | None:
    """The version a ``$schema`` URL names, or None when it names none we understand."""
    if not isinstance(schema_url, str):
        return None
    match = _URL_VERSION.search(schema_url)
    if match is None:
        return None
    if match.group(1).lower() == "latest":
        return LATEST
    major = int(match.group(2))
    if major != 1:
        return None
    minor = int(match.group(3)) if match.group(3) is not None else None
    patch = int(match.group(4)) if match.group(4) is not None else None
    if minor is None or patch is None:
        return _published(_latest_of(major, minor))
    return _published((major, minor, patch))


@dataclass(frozen=True, slots=True)
class Target:
    """The version a pack is checked against and why."""

    version: str
    source: str

    def describe(self) -> str:
        """How the version appears in messages: "this pack declares 1.4.0"."""
        if self.source == SOURCE_SCHEMA:
            return f"this pack declares {self.version} in `$schema`"
        if self.source == SOURCE_SETTING:
            return f"the `spec-version` setting is {self.version}"
        if self.source == SOURCE_PROFILE:
            return f"the promptkit profile checks against PromptKit's embedded {self.version}"
        return f"checking against {self.version}"


def target_for(data: Any, *, setting: str | None = None, profile: str = "spec") -> Target:
    """The version ``data`` (a pack as plain data) is checked against; see the module doc."""
    if profile == "promptkit":
        return Target(PROMPTKIT_VERSION, SOURCE_PROFILE)
    if setting is not None:
        return Target(parse_setting(setting), SOURCE_SETTING)
    declared = declared_version(data.get("$schema")) if isinstance(data, Mapping) else None
    if declared is not None:
        return Target(declared, SOURCE_SCHEMA)
    return Target(LATEST, SOURCE_DEFAULT)


def schema_url(version: str) -> str:
    """The published ``$schema`` URL of a version (what the quick fix writes)."""
    return f"https://promptpack.org/schema/v{version}/promptpack.schema.json"


# ----------------------------------------------------------------------- restriction


def restrict(schema: Mapping[str, Any], version: str) -> dict[str, Any]:
    """``schema`` as it is in ``version``.

    Properties newer than ``version`` are removed and listed in their object's
    ``x-later`` (name → since, rfc), so that a pack using one is told which version
    it needs instead of hearing "unknown property"; ``x-before`` patches newer than
    ``version`` are applied; deprecations not yet in force are dropped.
    """
    out: dict[str, Any] = copy_json(dict(schema))
    target = key(version)
    _restrict_node(out, target)
    out["x-promptpack-version"] = version
    return out


def copy_json(value: Any) -> Any:
    """A deep copy of JSON data (dicts, lists, scalars): what ``copy.deepcopy`` does
    for it, several times faster (no memo; schemas have no shared or cyclic parts
    that need one). Done on every start-up for each schema version used."""
    if isinstance(value, dict):
        return {k: copy_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_json(v) for v in value]
    return value


def _restrict_node(node: Any, target: tuple[int, ...]) -> None:
    if isinstance(node, list):
        for item in node:
            _restrict_node(item, target)
        return
    if not isinstance(node, dict):
        return
    patches = node.pop("x-before", None)
    if isinstance(patches, list):
        # Oldest boundary last, so the earliest form wins for very old targets.
        for patch in sorted(patches, key=lambda p: key(p["version"]), reverse=True):
            if target < key(patch["version"]):
                for name in patch.get("remove", ()):
                    node.pop(name, None)
                node.update(copy_json(patch.get("set", {})))
    deprecated = node.get("x-deprecated")
    if isinstance(deprecated, dict) and target < key(deprecated["since"]):
        node.pop("x-deprecated")
        node.pop("deprecated", None)
    properties = node.get("properties")
    if isinstance(properties, dict):
        later: dict[str, dict[str, str]] = {}
        for name in list(properties):
            sub = properties[name]
            since = sub.get("x-since") if isinstance(sub, dict) else None
            if isinstance(since, str) and target < key(since):
                later[name] = {"since": since, **({"rfc": sub["x-rfc"]} if "x-rfc" in sub else {})}
                del properties[name]
        if later:
            node["x-later"] = later
            if not properties:
                del node["properties"]
    for name, value in node.items():
        if name in _MAPS and isinstance(value, dict):
            for sub in value.values():
                _restrict_node(sub, target)
        elif name in _SUBSCHEMAS:
            _restrict_node(value, target)


# Keywords holding a map of subschemas / a subschema or list of them (values of other
# keywords, such as `enum` or `default`, are data and never restricted).
_MAPS = frozenset({"properties", "patternProperties", "$defs", "dependentSchemas"})
_SUBSCHEMAS = frozenset(
    {
        "items",
        "additionalProperties",
        "not",
        "if",
        "then",
        "else",
        "contains",
        "propertyNames",
        "unevaluatedItems",
        "unevaluatedProperties",
        "allOf",
        "anyOf",
        "oneOf",
        "prefixItems",
    }
)
