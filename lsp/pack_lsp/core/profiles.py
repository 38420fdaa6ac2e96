"""Checking profiles: ``spec`` (the specification and its RFCs) and ``promptkit``.

A profile changes two things, both decided here and nowhere else:

* the schema a pack is validated against (``validator_for``): ``spec`` uses our
  schema cut to the version the pack targets (``target_of``; see ``versions``), the
  ``promptkit`` profile what the reference runtime embeds (labelled v1.5.0, a fork
  of v1.4.1, not an ancestor of the published 1.5.1): it adds
  ``compositions`` at the root (named step graphs a workflow state can hand over to),
  a ``composition`` reference and ``orchestration: composition`` on workflow states,
  and ``state`` on an agents member (the member runs the workflow from that state);
* the severity of some rules (``apply_profile``): problems the reference runtime
  rejects at load time become errors. The table is applied before the user's
  ``severity`` overrides, so configuration still has the last word.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pack_lsp.core import versions
from pack_lsp.core.config import Config, Profile
from pack_lsp.core.diagnostics import Diagnostic, Severity
from pack_lsp.core.resources import load_schema
from pack_lsp.core.schema import PROMPTPACK_SCHEMA, SchemaValidator, promptpack_validator

SPEC = Profile.SPEC
PROMPTKIT = Profile.PROMPTKIT

# Codes whose severity a profile changes. PP202: the entry is not a member;
# PP206: a mode that is not a media type; PP207: a blank tag; PP401: a workflow
# version other than 1 or 2; PP408/PP409: an unknown persistence or orchestration
# (PromptKit refuses to load all of these). PP502 is raised to an error by its rule
# when the prompt declares no variables at all (PromptKit refuses only that case).
PROFILE_SEVERITY: Mapping[str, Mapping[str, Severity]] = {
    SPEC: {},
    PROMPTKIT: {
        "PP202": Severity.ERROR,
        "PP206": Severity.ERROR,
        "PP207": Severity.ERROR,
        "PP401": Severity.ERROR,
        "PP408": Severity.ERROR,
        "PP409": Severity.ERROR,
    },
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

_IDENT = {
    "type": "string",
    "pattern": "^[a-zA-Z_][a-zA-Z0-9_]*$",
    "x-pattern-hint": "letters, digits and underscores, not starting with a digit",
}


def _step_kind(
    kind: str, description: str, required: list[str], properties: dict[str, Any]
) -> dict[str, Any]:
    """The form a composition step takes when its ``kind`` is ``kind``."""
    return {
        "if": {"required": ["kind"], "properties": {"kind": {"const": kind}}},
        "then": {"description": description, "required": required, "properties": properties},
    }


def _composition_defs() -> dict[str, Any]:
    """Schema definitions of compositions, as the reference runtime reads them."""
    return {
        "Composition": {
            "type": "object",
            "description": "A named graph of steps over the pack's prompts and tools, run as "
            "one unit with structured input and output.",
            "required": ["version", "steps"],
            "additionalProperties": False,
            "properties": {
                "version": {
                    "type": "integer",
                    "const": 1,
                    "description": "Format version of the composition; 1.",
                },
                "description": {"type": "string", "description": "What the composition does."},
                "input_schema": {
                    "type": "string",
                    "description": "Where the JSON Schema of the input is.",
                },
                "output_schema": {
                    "type": "string",
                    "description": "Where the JSON Schema of the output is.",
                },
                "output": {
                    "type": "string",
                    "description": "Id of the step whose output is the result; the "
                    "last step when omitted.",
                },
                "steps": {
                    "type": "array",
                    "minItems": 1,
                    "description": "The steps, run in order unless a step says otherwise.",
                    "items": {"$ref": "#/$defs/CompositionStep"},
                },
                "engine": {
                    "type": "object",
                    "additionalProperties": True,
                    "description": "Free-form settings for the runtime.",
                },
            },
        },
        "CompositionStep": {
            "type": "object",
            "description": "One step; `kind` selects its form.",
            "required": ["id", "kind"],
            "properties": {
                "id": {**_IDENT, "description": "Step id, unique in its composition."},
                "kind": {
                    "type": "string",
                    "description": "prompt, agent, tool, branch or parallel.",
                    "examples": ["prompt", "agent", "tool", "branch", "parallel"],
                },
                "description": {"type": "string"},
                "depends_on": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "Ids of the steps this one waits for.",
                },
                "modifiers": {
                    "type": "object",
                    "description": "Retry and eval settings of the step.",
                    "properties": {
                        "retry": {
                            "type": "object",
                            "properties": {"max_attempts": {"type": "integer", "minimum": 1}},
                        },
                        "eval": {
                            "type": "array",
                            "items": {"type": "string"},
                            "description": "Ids of evals to run on the step.",
                        },
                    },
                },
            },
            # One form per kind; a kind the runtime adds (`vendor.kind`) is not checked.
            "allOf": [
                _step_kind(
                    "prompt",
                    "Runs a prompt once.",
                    ["prompt_task"],
                    {
                        "prompt_task": {"type": "string"},
                        "input": {"$ref": "#/$defs/CompositionStepInput"},
                        "output_schema": {"type": "string"},
                    },
                ),
                _step_kind(
                    "agent",
                    "Runs a prompt in a tool loop until its termination condition holds.",
                    ["prompt_task", "termination"],
                    {
                        "prompt_task": {"type": "string"},
                        "input": {"$ref": "#/$defs/CompositionStepInput"},
                        "tools": {"type": "array", "items": {"type": "string"}},
                        "termination": {
                            "type": "object",
                            "properties": {
                                "max_steps": {"type": "integer", "minimum": 1},
                                "tool_called": {"type": "string"},
                            },
                            "anyOf": [{"required": ["max_steps"]}, {"required": ["tool_called"]}],
                        },
                        "output_schema": {"type": "string"},
                    },
                ),
                _step_kind(
                    "tool",
                    "Calls a pack tool directly.",
                    ["tool"],
                    {
                        "tool": {"type": "string"},
                        "args": {"type": "object", "additionalProperties": True},
                    },
                ),
                _step_kind(
                    "branch",
                    "Chooses the next step with a condition.",
                    ["predicate", "then"],
                    {
                        "predicate": {"$ref": "#/$defs/CompositionPredicate"},
                        "then": {"type": "string"},
                        "else": {"type": "string"},
                    },
                ),
                _step_kind(
                    "parallel",
                    "Runs branches at the same time and merges their outputs.",
                    ["branches", "reduce"],
                    {
                        "branches": {
                            "type": "array",
                            "minItems": 2,
                            "items": {"$ref": "#/$defs/CompositionStep"},
                        },
                        "reduce": {
                            "type": "object",
                            "required": ["strategy", "into"],
                            "properties": {
                                "strategy": {"type": "string"},
                                "into": {"type": "string"},
                            },
                        },
                    },
                ),
            ],
        },
        "CompositionStepInput": {
            "description": "A `${...}` reference, or a mapping of values and references.",
            "oneOf": [{"type": "string"}, {"type": "object", "additionalProperties": True}],
        },
        "CompositionPredicate": {
            "description": "A comparison, an existence test, or all_of / any_of / not of "
            "predicates.",
            "oneOf": [
                {
                    "type": "object",
                    "required": ["path", "op", "value"],
                    "properties": {
                        "path": {"type": "string"},
                        "op": {
                            "type": "string",
                            "enum": [
                                "equals",
                                "not_equals",
                                "in",
                                "not_in",
                                "less_than",
                                "less_than_or_equals",
                                "greater_than",
                                "greater_than_or_equals",
                            ],
                        },
                        "value": {},
                    },
                },
                {
                    "type": "object",
                    "required": ["path", "exists"],
                    "properties": {"path": {"type": "string"}, "exists": {"type": "boolean"}},
                },
                {
                    "type": "object",
                    "required": ["all_of"],
                    "properties": {
                        "all_of": {
                            "type": "array",
                            "items": {"$ref": "#/$defs/CompositionPredicate"},
                        }
                    },
                },
                {
                    "type": "object",
                    "required": ["any_of"],
                    "properties": {
                        "any_of": {
                            "type": "array",
                            "items": {"$ref": "#/$defs/CompositionPredicate"},
                        }
                    },
                },
                {
                    "type": "object",
                    "required": ["not"],
                    "properties": {"not": {"$ref": "#/$defs/CompositionPredicate"}},
                },
            ],
        },
    }


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


def _promptkit_schema(base: dict[str, Any]) -> dict[str, Any]:
    schema = copy.deepcopy(base)
    _forget_later(schema)
    defs = schema.setdefault("$defs", {})
    agent_def = defs["AgentDef"]
    agent_def["properties"]["state"] = {
        "type": "string",
        "description": "Workflow state this agent starts in: calling the agent runs the "
        "pack's workflow from that state instead of the member's prompt once.",
    }
    state = defs["WorkflowState"]
    state["properties"]["composition"] = {
        "type": "string",
        "description": "Key of the composition that runs this state (with "
        "`orchestration: composition`).",
    }
    # A composition state names a composition instead of a prompt.
    required = [r for r in state.get("required", []) if r != "prompt_task"]
    if required:
        state["required"] = required
    else:
        state.pop("required", None)
    state.setdefault("allOf", []).append(
        {
            "if": {
                "required": ["orchestration"],
                "properties": {"orchestration": {"const": "composition"}},
            },
            "then": {"required": ["composition"]},
            "else": {"required": ["prompt_task"]},
        }
    )
    defs.update(_composition_defs())
    schema["properties"]["compositions"] = {
        "type": "object",
        "description": "Named step graphs that workflow states can run.",
        "additionalProperties": {"$ref": "#/$defs/Composition"},
    }
    return schema


#: The published version PromptKit's embedded schema forked from.
PROMPTKIT_BASE = "1.4.1"


def profile_schema(profile: Profile, version: str = versions.LATEST) -> dict[str, Any]:
    """The PromptPack schema for ``profile`` (and ``version`` in the ``spec`` profile)."""
    base: dict[str, Any] = load_schema(PROMPTPACK_SCHEMA)
    if profile == Profile.PROMPTKIT:
        schema = _promptkit_schema(versions.restrict(base, PROMPTKIT_BASE))
        schema["x-promptpack-version"] = versions.PROMPTKIT_VERSION
        return schema
    return versions.restrict(base, version)


@functools.cache
def validator_for(profile: Profile, version: str = versions.LATEST) -> SchemaValidator:
    """The schema validator of a profile and version (cached)."""
    if profile == Profile.SPEC:
        return promptpack_validator(version)
    return SchemaValidator(profile_schema(profile))


def target_of(config: Config, data: Any) -> versions.Target:
    """The version a pack (as plain data) is checked against under ``config``."""
    return versions.target_for(data, setting=config.spec_version, profile=config.profile)


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
