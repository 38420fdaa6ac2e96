"""Checking profiles: ``spec`` (the specification and its RFCs) and ``promptkit``.

A profile changes two things, both decided here and nowhere else:

* the schema a pack is validated against (``validator_for``): ``spec`` uses our
  schema cut to the version the pack targets (``target_of``; see ``versions``), the
  ``promptkit`` profile the schema PromptKit embeds (releases 1.5.0 to 1.5.11 embed
  the same one, labelled 1.5.0, a fork of the specification, not the published
  1.5.0): our schema cut to 1.5.0 with the differences marked ``x-promptkit`` in it
  (``promptkit_differences`` lists them; the rules doc prints the list);
* the severity of some rules (``apply_profile``): problems the reference runtime
  rejects at load time become errors. The table is applied before the user's
  ``severity`` overrides, so configuration still has the last word.

What PromptKit's loader checks beyond its schema is checked by rules that ask for
the profile (PP411, PP502, PP606, ...).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pack_lsp.core.base import versions
from pack_lsp.core.base.diagnostics import Diagnostic, Severity
from pack_lsp.core.base.resources import load_schema
from pack_lsp.core.model.config import Config, Profile
from pack_lsp.core.model.schema import (
    PROMPTPACK_SCHEMA,
    SchemaValidator,
    promptpack_schema,
    promptpack_validator,
)

SPEC = Profile.SPEC
PROMPTKIT = Profile.PROMPTKIT

# Codes whose severity a profile changes. PP202: the entry is not a member;
# PP206: a mode that is not a media type; PP207: a blank tag; PP401: a workflow
# version other than 1 or 2 (PromptKit refuses to load all of these). PP502 is raised
# to an error by its rule when the prompt declares no variables at all (PromptKit
# refuses only that case). An unknown persistence or orchestration is refused by
# PromptKit's schema itself (PP104), so PP408/PP409 are not reported under it.
PROFILE_SEVERITY: Mapping[str, Mapping[str, Severity]] = {
    SPEC: {},
    PROMPTKIT: {
        "PP202": Severity.ERROR,
        "PP206": Severity.ERROR,
        "PP207": Severity.ERROR,
        "PP401": Severity.ERROR,
    },
}


#: Rules that report what PromptKit's loader checks beyond its schema, only (or more
#: strictly) under the promptkit profile: the rules doc lists them with these words.
PROMPTKIT_LOADER_CHECKS: Mapping[str, str] = {
    "PP411": "a state that is not terminal has an empty `on_event` (it loads, and runs "
    "as a terminal state)",
    "PP502": "a prompt that uses variables and declares none is an error (PromptKit refuses it)",
    "PP606": "validator and eval parameters that PromptKit checks when it loads a pack",
}


def apply_profile(profile: Profile, diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """Diagnostics with the profile's severities (before user overrides)."""
    table = PROFILE_SEVERITY.get(profile, {})
    out: list[Diagnostic] = []
    for d in diagnostics:
        level = table.get(d.code)
        out.append(d if level is None or level == d.severity else d.with_severity(level))
    return out


# --------------------------------------------------------------------------- schemas
#
# PromptKit's embedded schema is our schema cut to 1.5.0 (compositions, `AgentDef.state`)
# with the differences our schema marks with ``x-promptkit`` where they apply (one
# source of truth; `schemas/promptpack.schema.json`, see D33):
#
# * ``{"note": ..., "set": {...}, "remove": [...]}``: the node as PromptKit has it
#   (keywords replaced or added, keywords removed);
# * ``{"note": ..., "absent": true}`` on a property: PromptKit does not have it, so a
#   pack using it is told "unknown property" (PP102).
#
# ``note`` says the difference in a sentence; the rules doc lists every note
# (``promptkit_differences``). ``versions.restrict`` drops the marks from the spec
# profile's schemas.

PROMPTKIT_MARK = "x-promptkit"


def _apply_promptkit(node: Any) -> None:
    if isinstance(node, list):
        for item in node:
            _apply_promptkit(item)
        return
    if not isinstance(node, dict):
        return
    patch = node.pop(PROMPTKIT_MARK, None)
    if isinstance(patch, dict):
        for name in patch.get("remove", ()):
            node.pop(name, None)
        node.update(versions.copy_json(patch.get("set", {})))
    properties = node.get("properties")
    if isinstance(properties, dict):
        for name in list(properties):
            mark = (
                properties[name].get(PROMPTKIT_MARK) if isinstance(properties[name], dict) else None
            )
            if isinstance(mark, dict) and mark.get("absent"):
                del properties[name]
    for value in node.values():
        _apply_promptkit(value)


def _forget_later(node: Any) -> None:
    """Drop ``x-later`` everywhere: PromptKit's schema is a fork, not a step on the
    published line, so "needs version X" would mislead; newer keys are just unknown."""
    if isinstance(node, dict):
        node.pop("x-later", None)
        for value in node.values():
            _forget_later(value)
    elif isinstance(node, list):
        for item in node:
            _forget_later(item)


def _promptkit_schema(base: Mapping[str, Any]) -> dict[str, Any]:
    schema: dict[str, Any] = versions.copy_json(dict(base))
    _apply_promptkit(schema)
    schema = versions.restrict(schema, versions.PROMPTKIT_VERSION)
    _forget_later(schema)
    return schema


@dataclass(frozen=True, slots=True)
class Difference:
    """One way PromptKit's embedded schema differs from ours (an ``x-promptkit`` mark)."""

    where: str  # "Validator", "Eval.trigger", "ImageConfig.allowed_formats[]"
    note: str


def promptkit_differences() -> list[Difference]:
    """Every ``x-promptkit`` mark of our schema, in the order of the schema."""
    schema: dict[str, Any] = load_schema(PROMPTPACK_SCHEMA)
    out: list[Difference] = []

    def walk(node: Any, where: str) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item, where)
            return
        if not isinstance(node, dict):
            return
        mark = node.get(PROMPTKIT_MARK)
        if isinstance(mark, dict) and mark.get("note"):
            out.append(Difference(where, str(mark["note"])))
        for key, value in node.items():
            if key in ("properties", "$defs") and isinstance(value, dict):
                for name, sub in value.items():
                    walk(sub, f"{where}.{name}" if where else name)
            elif key == "items":
                walk(value, f"{where}[]")
            elif key in ("additionalProperties", "allOf", "anyOf", "oneOf", "then", "else"):
                walk(value, where)

    walk(schema, "")
    return out


def profile_schema(profile: Profile, version: str = versions.LATEST) -> dict[str, Any]:
    """The PromptPack schema for ``profile`` (and ``version`` in the ``spec`` profile);
    the ``spec`` profile's is shared (``promptpack_schema``): read it, never change it."""
    if profile == Profile.PROMPTKIT:
        return _promptkit_schema(load_schema(PROMPTPACK_SCHEMA))
    return promptpack_schema(version)


@functools.cache
def validator_for(profile: Profile, version: str = versions.LATEST) -> SchemaValidator:
    """The schema validator of a profile and version (cached)."""
    if profile == Profile.SPEC:
        return promptpack_validator(version)
    return SchemaValidator(profile_schema(profile))


def target_of(config: Config, data: Any) -> versions.Target:
    """The version a pack (as plain data) is checked against under ``config``."""
    return versions.target_for(
        data,
        setting=config.spec_version,
        profile=config.profile,
        promptkit=config.promptkit_version,
    )


def schema_diagnostics(config: Config, root: Any, data: Any) -> list[Diagnostic]:
    """Schema diagnostics of a pack tree under ``config`` (profile and version)."""
    target = target_of(config, data)
    return validator_for(config.profile, target.version).validate(root, data, target)


def schema_units(
    config: Config,
    root: Any,
    data: Any,
    known: Mapping[str, Sequence[Diagnostic]] | None = None,
) -> list[tuple[str | None, tuple[Diagnostic, ...]]]:
    """``schema_diagnostics`` per unit (see ``SchemaValidator.unit_diagnostics``);
    ``known`` must have been computed under the same target."""
    target = target_of(config, data)
    validator = validator_for(config.profile, target.version)
    return validator.unit_diagnostics(root, data, target, known)
