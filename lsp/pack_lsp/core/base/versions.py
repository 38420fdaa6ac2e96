"""Which PromptPack version a pack is checked against, and our schema cut to that version.

Our schema (``schemas/promptpack.schema.json``) describes the latest format. Each
property added after v1.0 carries ``x-since`` (and ``x-rfc`` when an RFC introduced
it); a constraint that changed carries ``x-before``: patches that give its earlier
form. ``restrict`` turns it into the schema of one version, so the same file serves
every version and the versions cannot drift apart.

The released versions pack-lsp knows (``KNOWN_VERSIONS``) are 1.0, 1.1, 1.2, 1.3,
1.3.1, 1.4.0, 1.4.1, 1.5.0, 1.5.1, 1.6.0, 1.7.0, 1.8.0, 1.8.1 and 1.9.0.

The target version is decided in this order (first match wins):

1. the ``promptkit`` profile: the schema PromptKit embeds (labelled 1.5.0), since
   the profile names a runtime and that runtime knows one schema;
2. the ``spec-version`` setting (configuration file, editor settings or
   ``--spec-version``): a project that deploys on a runtime of a known version pins
   it, and every pack is checked against that version whatever it declares;
3. the pack's ``$schema`` URL: ``.../schema/v1.7.0/...``, ``latest`` and the spec's
   ``.../schema/v1/...`` (the latest 1.x) are understood;
4. otherwise the latest version.

A version written without its patch is that version's ``.0`` release (``v1.3`` and
``1.3`` are 1.3.0, as the published URLs use them), in ``$schema`` and in the setting
alike. A version pack-lsp does not know is checked with the features of the newest
known version not above it (1.4.5 as 1.4.1); one above the newest known version
(1.10.0, or any 2.x) as the newest, and the pack is told so once (PP112). Messages
always name the version the pack or the setting declares, and add the version
checked when they differ ("declares 1.4.5 in `$schema` (checked as 1.4.1)"). A
``$schema`` naming 0.x, or no version we can read, names nothing: the latest applies.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

LATEST = "1.9.0"
#: The label of the schema PromptKit embeds (a fork, not the published 1.5.0).
PROMPTKIT_VERSION = "1.5.0"

#: PromptKit releases the ``promptkit`` profile models: every one of them embeds the
#: same schema (labelled PROMPTKIT_VERSION) byte for byte; D33. A release that embeds
#: another schema gets its own model and a place here.
PROMPTKIT_RELEASES = tuple(f"1.5.{patch}" for patch in range(12))
#: What ``profile = "promptkit"`` alone means: the newest release modelled.
PROMPTKIT_DEFAULT = PROMPTKIT_RELEASES[-1]

# Released versions, oldest first (the history of the format: every one is additive).
KNOWN_VERSIONS = (
    "1.0.0",
    "1.1.0",
    "1.2.0",
    "1.3.0",
    "1.3.1",
    "1.4.0",
    "1.4.1",
    "1.5.0",
    "1.5.1",
    "1.6.0",
    "1.7.0",
    "1.8.0",
    "1.8.1",
    "1.9.0",
)

# The `$schema` URL segment of the versions published without their patch number.
_SEGMENTS = {"1.0.0": "v1.0", "1.1.0": "v1.1", "1.2.0": "v1.2", "1.3.0": "v1.3"}

_URL_VERSION = re.compile(r"/schema/(latest|v?(\d+)(?:\.(\d+))?(?:\.(\d+))?)/", re.IGNORECASE)
_SETTING = re.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+))?$|^latest$", re.IGNORECASE)

# Where the target version came from.
SOURCE_DEFAULT = "default"
SOURCE_SCHEMA = "$schema"
SOURCE_SETTING = "setting"
SOURCE_PROFILE = "profile"

# How a declared version relates to the known ones (``Target.relation``).
EXACT = "exact"  # a known version (or no declaration at all)
ALIAS = "alias"  # `latest`, or a major version alone (`v1`): the newest known of it
BETWEEN = "between"  # unknown, below the newest known: the newest known not above it
ABOVE = "above"  # unknown, above the newest known: the newest


def key(version: str) -> tuple[int, ...]:
    """A version as a comparable tuple: ``"1.10.0"`` sorts after ``"1.9.0"``."""
    return tuple(int(part) for part in version.split("."))


_ANY = 1 << 31  # above any minor or patch number


def _known_not_above(wanted: tuple[int, int, int]) -> str:
    """The newest known version not above ``wanted`` (the oldest if all are above)."""
    best = KNOWN_VERSIONS[0]
    for known in KNOWN_VERSIONS:
        if key(known) <= wanted:
            best = known
    return best


@dataclass(frozen=True, slots=True)
class Resolved:
    """A version as written (``declared``) and the known version it is checked as."""

    declared: str  # "1.4.5", "1.3", "latest", "1" (no leading "v")
    version: str  # a member of KNOWN_VERSIONS
    relation: str  # EXACT, ALIAS, BETWEEN or ABOVE


def resolve(major: int, minor: int | None = None, patch: int | None = None) -> Resolved:
    """The known version a declared ``major[.minor[.patch]]`` is checked as."""
    newest = key(LATEST)
    if minor is None:
        declared = str(major)
        if major > newest[0]:
            return Resolved(declared, LATEST, ABOVE)
        # `v1`: the newest known release of that major version.
        return Resolved(declared, _known_not_above((major, _ANY, _ANY)), ALIAS)
    declared = f"{major}.{minor}" + (f".{patch}" if patch is not None else "")
    wanted = (major, minor, patch if patch is not None else 0)
    if wanted > newest:
        return Resolved(declared, LATEST, ABOVE)
    version = _known_not_above(wanted)
    return Resolved(declared, version, EXACT if key(version) == wanted else BETWEEN)


def parse_setting(value: str) -> str:
    """A ``spec-version`` setting as the known version it checks; ValueError when unusable."""
    return resolve_setting(value).version


def resolve_setting(value: str) -> Resolved:
    """A ``spec-version`` setting resolved (see ``resolve``); ValueError when unusable.

    ``1.8`` is 1.8.0; a 1.x version pack-lsp does not know is accepted and checked as
    ``resolve`` says. Another major version is refused: a project pins the version its
    runtime supports, and checking a 2.x runtime's packs as 1.x would mislead it.
    """
    match = _SETTING.match(value.strip())
    if match is None:
        raise ValueError(
            f"spec-version must be a PromptPack version such as 1.4.0, or `latest`; got {value!r}"
        )
    if match.group(1) is None:
        return Resolved("latest", LATEST, ALIAS)
    major, minor = int(match.group(1)), int(match.group(2))
    if major != key(LATEST)[0]:
        raise ValueError(f"spec-version {value!r}: pack-lsp knows PromptPack 1.x only")
    patch = int(match.group(3)) if match.group(3) is not None else None
    return resolve(major, minor, patch)


def parse_promptkit(value: str) -> str:
    """A PromptKit release (``1.5.11``, ``v1.5.3``; ``1.5`` is 1.5.0) as one of
    PROMPTKIT_RELEASES; ValueError, saying which releases are modelled, otherwise."""
    match = _SETTING.match(value.strip())
    if match is not None and match.group(1) is not None:
        patch = match.group(3) or "0"
        found = f"{int(match.group(1))}.{int(match.group(2))}.{int(patch)}"
        if found in PROMPTKIT_RELEASES:
            return found
    raise ValueError(
        f"PromptKit version {value!r}: the promptkit profile models PromptKit "
        f"{PROMPTKIT_RELEASES[0]} to {PROMPTKIT_RELEASES[-1]} (all embed the same schema); "
        f"write `promptkit` ({PROMPTKIT_DEFAULT}) or `promptkit@<release>` naming one of them"
    )


def resolve_url(schema_url: object) -> Resolved | None:
    """The version a ``$schema`` URL names, or None when it names none we understand."""
    if not isinstance(schema_url, str):
        return None
    match = _URL_VERSION.search(schema_url)
    if match is None:
        return None
    if match.group(1).lower() == "latest":
        return Resolved("latest", LATEST, ALIAS)
    major = int(match.group(2))
    if major < 1:
        return None  # no PromptPack 0.x was ever released
    minor = int(match.group(3)) if match.group(3) is not None else None
    patch = int(match.group(4)) if match.group(4) is not None else None
    return resolve(major, minor, patch)


def declared_version(schema_url: object) -> str | None:
    """The known version a ``$schema`` URL is checked as, or None when it names none."""
    found = resolve_url(schema_url)
    return found.version if found is not None else None


@dataclass(frozen=True, slots=True)
class Target:
    """The version a pack is checked against, why, and what its source declares."""

    version: str  # a member of KNOWN_VERSIONS: the features checked
    source: str
    declared: str | None = None  # as the source writes it, when that is not ``version``
    relation: str = EXACT

    @staticmethod
    def of(found: Resolved, source: str) -> Target:
        declared = None if found.declared == found.version else found.declared
        return Target(found.version, source, declared, found.relation)

    def named(self) -> str:
        """The version as the source names it: "1.4.5", "1.3", "`latest`", "v1"."""
        if self.declared is None:
            return self.version
        if self.declared == "latest":
            return "`latest`"
        if "." not in self.declared:
            return f"v{self.declared}"
        return self.declared

    def checked_as(self) -> str:
        """ " (checked as 1.4.1)" when the declared version is not the one checked."""
        if self.relation == EXACT:
            return ""
        if self.relation == ALIAS:
            return f" ({self.version}, {self._newest_named()})"
        return f" (checked as {self.version})"

    def _newest_named(self) -> str:
        """What an alias stands for: "the newest version pack-lsp knows"."""
        if self.declared is not None and self.declared != "latest":
            return f"the newest {self.declared}.x pack-lsp knows"
        return "the newest version pack-lsp knows"

    def describe(self) -> str:
        """How the version appears in messages: "this pack declares 1.4.0 in `$schema`"."""
        if self.source == SOURCE_SCHEMA:
            return f"this pack declares {self.named()} in `$schema`{self.checked_as()}"
        if self.source == SOURCE_SETTING:
            return f"the `spec-version` setting is {self.named()}{self.checked_as()}"
        if self.source == SOURCE_PROFILE:
            return (
                f"the promptkit profile checks against the schema PromptKit "
                f"{self.declared or PROMPTKIT_DEFAULT} embeds (labelled {self.version})"
            )
        return f"checking against {self.version}"

    def explain(self) -> str:
        """A paragraph (Markdown) on the version checked, for hover on ``$schema``."""
        if self.source == SOURCE_PROFILE:
            return (
                f"The promptkit profile checks every pack against the schema PromptKit "
                f"{self.declared or PROMPTKIT_DEFAULT} embeds (labelled {self.version}; "
                f"PromptKit {PROMPTKIT_RELEASES[0]} to {PROMPTKIT_RELEASES[-1]} embed the "
                "same one), whatever `$schema` declares."
            )
        if self.source == SOURCE_DEFAULT:
            return (
                f"This `$schema` names no PromptPack version pack-lsp understands: the pack "
                f"is checked against the newest version it knows, {self.version}."
            )
        head = (
            f"The `spec-version` setting, which wins over `$schema`, is {self.named()}"
            if self.source == SOURCE_SETTING
            else f"This `$schema` declares PromptPack {self.named()}"
        )
        if self.relation == EXACT:
            return f"{head}: the pack is checked against {self.version}."
        if self.relation == ALIAS:
            return f"{head}: the pack is checked against {self.version}, {self._newest_named()}."
        if self.relation == BETWEEN:
            return (
                f"{head}, which pack-lsp does not know; checked with the features of "
                f"{self.version}, the newest known version below it."
            )
        note = (
            " A new major version may have changed the format in ways pack-lsp cannot check."
            if key(self.declared or self.version)[0] > key(LATEST)[0]
            else ""
        )
        return (
            f"{head}, newer than every version pack-lsp knows; checked with the features "
            f"of {self.version}, the newest known version.{note}"
        )


def target_for(
    data: Any,
    *,
    setting: str | None = None,
    profile: str = "spec",
    promptkit: str = PROMPTKIT_DEFAULT,
) -> Target:
    """The version ``data`` (a pack as plain data) is checked against; see the module
    doc. ``promptkit`` is the PromptKit release the promptkit profile models."""
    if profile == "promptkit":
        return Target(PROMPTKIT_VERSION, SOURCE_PROFILE, declared=promptkit)
    if setting is not None:
        return Target.of(resolve_setting(setting), SOURCE_SETTING)
    found = resolve_url(data.get("$schema")) if isinstance(data, Mapping) else None
    if found is not None:
        return Target.of(found, SOURCE_SCHEMA)
    return Target(LATEST, SOURCE_DEFAULT)


# Known versions a quick fix does not raise `$schema` to, and the one it raises to
# instead: the official 1.8.0 schema's `cadence` pattern uses look-aheads that Go's
# and Rust's regular expressions reject, and 1.8.1 has the same features without them.
_RAISE_INSTEAD = {"1.8.0": "1.8.1"}


def raise_to(since: str) -> str:
    """The version to raise `$schema` to for a key added in ``since``: the first
    known version not below it (see ``_RAISE_INSTEAD``)."""
    for known in KNOWN_VERSIONS:
        if key(known) >= key(since):
            return _RAISE_INSTEAD.get(known, known)
    return LATEST


def schema_url(version: str) -> str:
    """The published ``$schema`` URL of a known version (what the quick fix writes)."""
    segment = _SEGMENTS.get(version, f"v{version}")
    return f"https://promptpack.org/schema/{segment}/promptpack.schema.json"


# ----------------------------------------------------------------------- restriction


def restrict(schema: Mapping[str, Any], version: str) -> dict[str, Any]:
    """``schema`` as it is in ``version``.

    Properties newer than ``version`` are removed and listed in their object's
    ``x-later`` (name → since, rfc), so that a pack using one is told which version
    it needs instead of hearing "unknown property"; ``x-before`` patches newer than
    ``version`` are applied; deprecations not yet in force are dropped. Forms of a
    ``oneOf``/``anyOf`` that a patch removes are listed in the node's
    ``x-later-forms`` (since, and each form's discriminating properties), so that a
    value of a later form is told which version it needs.
    """
    out: dict[str, Any] = copy_json(dict(schema))
    target = key(version)
    _note_later_forms(out, out, target)
    _restrict_node(out, target)
    out["x-promptpack-version"] = version
    return out


def _note_later_forms(node: Any, root: dict[str, Any], target: tuple[int, ...]) -> None:
    """Record in ``x-later-forms`` the ``oneOf``/``anyOf`` forms that ``x-before``
    patches newer than ``target`` will remove: ``{since, properties}`` with the
    ``properties`` of each removed form (its ``$ref`` resolved in ``root``)."""
    if isinstance(node, list):
        for item in node:
            _note_later_forms(item, root, target)
        return
    if not isinstance(node, dict):
        return
    patches = node.get("x-before")
    if isinstance(patches, list):
        later: list[dict[str, Any]] = []
        for patch in patches:
            if target >= key(patch["version"]):
                continue
            for keyword in ("oneOf", "anyOf"):
                now, before = node.get(keyword), patch.get("set", {}).get(keyword)
                if not isinstance(now, list) or not isinstance(before, list):
                    continue
                for form in now:
                    if form in before:
                        continue
                    resolved = _local_ref(form, root)
                    properties = resolved.get("properties") if isinstance(resolved, dict) else None
                    if isinstance(properties, dict):
                        later.append({"since": patch["version"], "properties": properties})
        if later:
            node["x-later-forms"] = later
    for value in node.values():
        _note_later_forms(value, root, target)


def _local_ref(form: Any, root: dict[str, Any]) -> Any:
    ref = form.get("$ref") if isinstance(form, dict) else None
    if not isinstance(ref, str) or not ref.startswith("#/"):
        return form
    found: Any = root
    for part in ref[2:].split("/"):
        found = found.get(part) if isinstance(found, dict) else None
    return found


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
    node.pop("x-promptkit", None)  # the promptkit profile's marks (profiles.py)
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
