"""Schema validation of a pack tree, reported on the exact key or value at fault.

The schema is ours cut to the version the pack targets (see ``versions``). A property
that only a later version has is reported as PP110 (which version it needs) rather
than as an unknown property, and a deprecated property in use as PP111.

The pack is validated in units: the root (with each prompt only type-checked) and
every prompt against ``#/$defs/Prompt`` on its own. Errors are the same as one
whole-document validation, and a unit can be re-validated alone when only that
prompt changed.

Each unit goes first through ``jsonschema_rs`` (compiled, about fifty times faster).
A valid unit has nothing to report; a unit whose only failures are deprecated
properties is reported from those failures directly; any other unit is validated
again by ``jsonschema``, whose errors carry what the messages need. ``jsonschema``
is therefore imported only when a pack has such a problem (or without
``jsonschema_rs``), which keeps it off the start-up of a check of a valid pack.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from pack_lsp.core.base import versions
from pack_lsp.core.base.diagnostics import Diagnostic, Tag, make
from pack_lsp.core.base.fixes import FixData, RaiseSchema, RemoveEntry, suggest
from pack_lsp.core.base.problemdata import (
    InvalidValue,
    MissingProperty,
    RenamedProperty,
    UnknownProperty,
)
from pack_lsp.core.base.problems.schema import (
    DEPRECATED_PROPERTY,
    INVALID_VALUE,
    MISSING_PROPERTY,
    NEEDS_NEWER_VERSION,
    NEWER_THAN_KNOWN,
    NO_MATCHING_FORM,
    OUT_OF_RANGE,
    PATTERN_MISMATCH,
    SCHEMA_URL_MISSPELT,
    SCHEMA_VIOLATION,
    UNKNOWN_PROPERTY,
    WRONG_SIZE,
    WRONG_TYPE,
)
from pack_lsp.core.base.resources import load_schema
from pack_lsp.core.base.suggest import distance, hint_for, suggestions
from pack_lsp.core.base.text import Span
from pack_lsp.core.syntax.yamltree import (
    MappingNode,
    Node,
    PathItem,
    deref,
    resolve,
    through_broken_alias,
)

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

PROMPTPACK_SCHEMA = "promptpack.schema.json"
_REQUIRED_RE = re.compile(r"^'(.*)' is a required property$")

#: Properties the specification renamed: (the key of the object that holds them, the
#: old name) → (the new name, why). The old key is reported unknown (PP102) with the
#: new name as its quick fix, and the new name is not also reported missing.
RENAMED: Mapping[tuple[str, str], tuple[str, str]] = {
    ("independent_of", "on"): (
        "axes",
        "`on` was renamed `axes` in RFC 0016 (PromptPack 1.8.0): a YAML 1.1 reader "
        "takes a bare `on` key for the boolean `true` (pack-lsp reads YAML 1.2, where "
        "it is the string `on`)",
    ),
    ("independent_of", "true"): (
        "axes",
        "probably `on`, which a YAML 1.1 tool read as the boolean `true` and wrote "
        "back; RFC 0016 (PromptPack 1.8.0) renamed `on` to `axes` for that reason",
    ),
}


def dotted(path: Sequence[PathItem]) -> str:
    """A readable location such as ``prompts.support.tools[2]``."""
    out = ""
    for step in path:
        if isinstance(step, int):
            out += f"[{step}]"
        else:
            out += ("." if out else "") + step
    return out or "the pack root"


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


_TYPE_WORDS = {
    "object": "a mapping",
    "array": "a list",
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "a boolean (true or false)",
    "null": "null",
}


def _show(value: Any) -> str:
    if isinstance(value, str):
        return value if len(value) <= 60 else value[:57] + "..."
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def _deprecated(
    validator: Any, value: Any, instance: Any, schema: dict[str, Any]
) -> Iterator[ValidationError]:
    """``x-deprecated``: the value is present although its property is deprecated.

    Reported as a warning (PP111), never as a schema failure; only properties outside
    any ``oneOf``/``anyOf`` carry the keyword, so it cannot change which form matches.
    """
    from jsonschema.exceptions import ValidationError

    if isinstance(value, dict):
        yield ValidationError("deprecated property", validator_value=value)


@functools.cache
def _full_validator_class() -> Any:
    """Draft 2020-12 plus our ``x-deprecated`` keyword (``jsonschema`` imported here)."""
    from jsonschema import Draft202012Validator, validators

    return validators.extend(  # type: ignore[no-untyped-call]
        Draft202012Validator, {"x-deprecated": _deprecated}
    )


@dataclass(frozen=True, slots=True)
class _Deprecated:
    """A deprecated property found by the fast validator: where, its ``x-deprecated``
    value and the property's value (what ``_deprecation`` needs of an error)."""

    path: tuple[PathItem, ...]
    info: Any
    instance: Any


#: ``$comment`` prefix naming the ``x-deprecated`` subschema a fast-validator error is in.
_MARK = "pack-lsp:x-deprecated:"


class _Unit:
    """One validation unit: its schema, the fast validator and (on first use) the
    ``jsonschema`` one."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self.schema = schema
        self.marks: list[Any] = []
        self.fast = _fast_validator(_failing_deprecated(schema, self.marks))
        self._full: Any = None

    def full(self) -> Any:
        if self._full is None:
            self._full = _full_validator_class()(self.schema)
        return self._full

    def errors(
        self, data: Any, prefix: tuple[PathItem, ...] = ()
    ) -> Iterator[ValidationError | _Deprecated]:
        """The errors of ``data``; their paths start with ``prefix``."""
        if _valid(self.fast, data):
            return
        found = self._deprecations(data, prefix)
        if found is not None:
            yield from found
            return
        for err in self.full().iter_errors(data):
            for step in reversed(prefix):
                err.path.appendleft(step)
            yield err

    def _deprecations(self, data: Any, prefix: tuple[PathItem, ...]) -> list[_Deprecated] | None:
        """The deprecated properties of ``data`` when the fast validator's only errors
        are those (``None`` otherwise, or when it cannot tell)."""
        if self.fast is None:
            return None
        out: list[_Deprecated] = []
        try:
            for err in self.fast.iter_errors(data):
                schema = getattr(err.kind, "schema", None)
                comment = schema.get("$comment") if isinstance(schema, dict) else None
                if not isinstance(comment, str) or not comment.startswith(_MARK):
                    return None
                path = (*prefix, *err.instance_path)
                out.append(_Deprecated(path, self.marks[int(comment[len(_MARK) :])], err.instance))
        except Exception:  # anything unexpected: the full validation explains the unit
            return None
        return out


class SchemaValidator:
    """Validates pack trees against one PromptPack schema (or another document's
    schema: ``wording`` replaces, in each message, the words that name the pack)."""

    def __init__(self, schema: dict[str, Any], wording: Sequence[tuple[str, str]] = ()) -> None:
        self.schema = schema
        self.wording = tuple(wording)
        prompts = schema.get("properties", {}).get("prompts", {})
        item = prompts.get("additionalProperties") if isinstance(prompts, dict) else None
        self.split = isinstance(item, dict) and item.get("$ref") == "#/$defs/Prompt"
        root_schema = schema
        if self.split:  # a copy of the path down to the prompts, the rest shared
            properties = root_schema["properties"]
            root_schema = {
                **schema,
                "properties": {
                    **properties,
                    "prompts": {
                        **properties["prompts"],
                        "additionalProperties": {"type": "object"},
                    },
                },
            }
        prompt_schema = {
            "$schema": schema.get("$schema", "https://json-schema.org/draft/2020-12/schema"),
            "$defs": schema.get("$defs", {}),
            "$ref": "#/$defs/Prompt",
        }
        self.root = _Unit(root_schema)
        self.prompt = _Unit(prompt_schema)

    def validate(
        self, root: Node | None, data: Any, target: versions.Target | None = None
    ) -> list[Diagnostic]:
        """Diagnostics for ``data`` (the plain data of ``root``).

        ``target`` says which version is checked and why, for the wording of PP110.
        """
        found = merge_units(self.unit_diagnostics(root, data, target))
        return [self._reworded(d) for d in found] if self.wording else found

    def _reworded(self, diag: Diagnostic) -> Diagnostic:
        message = diag.message
        for old, new in self.wording:
            message = message.replace(old, new)
        return diag if message == diag.message else replace(diag, message=message)

    def unit_diagnostics(
        self,
        root: Node | None,
        data: Any,
        target: versions.Target | None = None,
        known: Mapping[str, Sequence[Diagnostic]] | None = None,
    ) -> list[tuple[str | None, tuple[Diagnostic, ...]]]:
        """The diagnostics of each unit, in order: ``None`` for the root, then one
        entry per prompt key (when the schema is split).

        ``known`` gives the diagnostics of prompts whose data did not change since
        they were computed (incremental analysis); those prompts are not validated.
        """
        if target is None:
            version = self.schema.get("x-promptpack-version", versions.LATEST)
            target = versions.Target(str(version), versions.SOURCE_DEFAULT)
        units: list[tuple[str | None, tuple[Diagnostic, ...]]] = [
            (
                None,
                _version_note(root, target)
                + _url_note(root, data)
                + _explain(self.root.errors(data), root, target),
            )
        ]
        if self.split and isinstance(data, dict):
            prompts = data.get("prompts")
            if isinstance(prompts, dict):
                for key, value in prompts.items():
                    if known is not None and key in known:
                        units.append((key, tuple(known[key])))
                    elif not isinstance(value, dict):
                        units.append((key, ()))  # the root validation reports the type
                    else:
                        errors = self.prompt.errors(value, ("prompts", key))
                        units.append((key, _explain(errors, root, target)))
        return units


def _version_note(root: Node | None, target: versions.Target) -> tuple[Diagnostic, ...]:
    """PP112 on the `$schema` value when it declares a version above every known one."""
    if target.source != versions.SOURCE_SCHEMA or target.relation != versions.ABOVE:
        return ()
    declared = target.declared or target.version
    note = (
        "; a new major version may have changed the format in ways pack-lsp cannot check"
        if versions.key(declared)[0] > versions.key(versions.LATEST)[0]
        else ""
    )
    message = (
        f"`$schema` declares PromptPack {target.named()}, newer than every version pack-lsp "
        f"knows: the pack is checked as {target.version}, the newest known version{note}"
    )
    data = {"kind": "newer-than-known", "declared": declared, "version": target.version}
    return (make(NEWER_THAN_KNOWN, message, _value_span(root, ("$schema",)), data=data),)


#: The host of PromptPack's `$schema` URLs, and its first label.
SCHEMA_HOST = "promptpack.org"
_HOST_LABEL = "promptpack"


def misspelt_host(url: object) -> str | None:
    """The host of ``url`` when it is almost PromptPack's (a label within two edits
    of ``promptpack``, under any top-level domain) without being it; else None."""
    if not isinstance(url, str) or "://" not in url:
        return None
    from urllib.parse import urlsplit

    try:
        host = (urlsplit(url.strip()).hostname or "").removeprefix("www.")
    except ValueError:
        return None
    if host == SCHEMA_HOST or "." not in host:
        return None
    label = host.rsplit(".", 1)[0]
    return host if distance(label, _HOST_LABEL, 2) <= 2 else None


def _url_note(root: Node | None, data: Any) -> tuple[Diagnostic, ...]:
    """PP113 on a `$schema` value whose host is almost promptpack.org."""
    url = data.get("$schema") if isinstance(data, dict) else None
    host = misspelt_host(url)
    if host is None:
        return ()
    message = (
        f"`$schema` names the host `{host}`, not `{SCHEMA_HOST}`; did you mean "
        f"`{SCHEMA_HOST}`? Tools that read `$schema` find no PromptPack schema there"
    )
    data_out = {"kind": "schema-url-misspelt", "host": host}
    return (make(SCHEMA_URL_MISSPELT, message, _value_span(root, ("$schema",)), data=data_out),)


def _explain(
    errors: Iterable[ValidationError | _Deprecated], root: Node | None, target: versions.Target
) -> tuple[Diagnostic, ...]:
    out: list[Diagnostic] = []
    for err in errors:
        if isinstance(err, _Deprecated):
            if not through_broken_alias(root, err.path):
                out.append(_deprecation(err.path, err.info, err.instance, root))
            continue
        if through_broken_alias(root, tuple(err.absolute_path)):
            continue  # the alias itself is reported (PP007/PP008/PP009)
        out.extend(_to_diagnostics(err, root, target))
    return tuple(out)


def merge_units(units: Iterable[tuple[str | None, Sequence[Diagnostic]]]) -> list[Diagnostic]:
    """The diagnostics of all units in order, each problem once."""
    out: list[Diagnostic] = []
    seen: set[tuple[str, int, int, str]] = set()
    for _unit, diagnostics in units:
        for diag in diagnostics:
            extra = diag.data.get("property") or diag.data.get("key") or ""
            key = (diag.code, diag.span.start, diag.span.end, str(extra))
            if key not in seen:
                seen.add(key)
                out.append(diag)
    return out


def _failing_deprecated(node: Any, marks: list[Any]) -> Any:
    """A copy of ``node`` where every ``x-deprecated`` subschema rejects any value.

    ``x-deprecated`` is an error of ours (reported as PP111) that a validator which
    ignores unknown keywords would not see: making those subschemas fail lets the
    fast validator find them. The rejecting ``not`` names, in a ``$comment``, the
    index in ``marks`` of the keyword's value, so that a unit whose only errors are
    these is reported without the full validation.
    """
    if isinstance(node, list):
        return [_failing_deprecated(item, marks) for item in node]
    if not isinstance(node, dict):
        return node
    out = {k: _failing_deprecated(v, marks) for k, v in node.items()}
    if "x-deprecated" in out:
        marks.append(node["x-deprecated"])
        out["not"] = {"$comment": f"{_MARK}{len(marks) - 1}"}
    return out


def _fast_validator(schema: dict[str, Any]) -> Any:
    """A compiled ``jsonschema_rs`` validator for ``schema``, or ``None``.

    It tells valid units apart in about a fiftieth of the time: a unit it finds
    valid cannot produce a diagnostic, and any other is validated (and explained)
    by ``jsonschema`` as before unless only deprecated properties failed, so the
    diagnostics do not depend on it. Without the package, or when it cannot compile
    the schema, every unit goes through ``jsonschema``.
    """
    try:
        import jsonschema_rs
    except ImportError:
        return None
    try:
        return jsonschema_rs.Draft202012Validator(schema, validate_formats=False)
    except Exception:  # a schema it does not support: full validation only
        return None


def _valid(fast: Any, data: Any) -> bool:
    """Whether the fast validator is sure ``data`` is valid (never raises)."""
    if fast is None:
        return False
    try:
        return bool(fast.is_valid(data))
    except Exception:  # values it cannot take (huge integers, odd keys): full validation
        return False


@functools.cache
def promptpack_schema(version: str = versions.LATEST) -> dict[str, Any]:
    """Our schema cut to ``version`` (``versions.restrict``), made once per version and
    shared: the validator and the schema walks read it and never change it."""
    return versions.restrict(load_schema(PROMPTPACK_SCHEMA), version)


@functools.cache
def promptpack_validator(version: str = versions.LATEST) -> SchemaValidator:
    """The validator of our schema cut to ``version`` (one per version, cached)."""
    return SchemaValidator(promptpack_schema(version))


# ------------------------------------------------------------------- error → diagnostic


def _first_key_span(node: Node | None) -> Span | None:
    node = deref(node)
    if isinstance(node, MappingNode) and node.pairs:
        return node.pairs[0].key.span
    return None


def _object_anchor_span(root: Node | None, path: Sequence[PathItem]) -> Span:
    """Where to report something about the object at ``path`` as a whole."""
    node, pair = resolve(root, path)
    if pair is not None:
        return pair.key.span
    first = _first_key_span(node)
    if first is not None:
        return first
    if node is not None:
        return Span(node.span.start, node.span.start + (1 if node.span.length else 0))
    return Span(0, 0)


def _value_span(root: Node | None, path: Sequence[PathItem]) -> Span:
    node, pair = resolve(root, path)
    if node is not None:
        if node.span.length == 0 and pair is not None:
            return pair.key.span  # empty value (`key:`): point at the key
        return node.span
    if pair is not None:
        return pair.key.span
    return Span(0, 0)


def _pattern_hint(schema: Any) -> str | None:
    if isinstance(schema, dict):
        hint = schema.get("x-pattern-hint")
        if isinstance(hint, str):
            return hint
    return None


def needs_version(
    key: str, later: dict[str, Any], span: Span, path: Sequence[PathItem], target: versions.Target
) -> Diagnostic:
    since = str(later.get("since", versions.LATEST))
    rfc = later.get("rfc")
    needed = versions.raise_to(since)
    data: dict[str, Any] = {
        "kind": "needs-version",
        "key": key,
        "since": since,
        "target": target.version,
        "version": needed,
        "path": list(path),
    }
    fixes: tuple[FixData, ...] = ()
    if target.source in (versions.SOURCE_SCHEMA, versions.SOURCE_DEFAULT):
        # The version comes from `$schema` (or its absence): raising it is the fix.
        data["schema_url"] = versions.schema_url(needed)
        fixes = (RaiseSchema(needed, versions.schema_url(needed)),)
    return make(
        NEEDS_NEWER_VERSION,
        f"`{key}` needs PromptPack ≥ {since}"
        + (f" (RFC {rfc})" if rfc else "")
        + f"; {target.describe()}",
        span,
        data=data,
        fixes=fixes,
    )


def _deprecation(path: Sequence[PathItem], info: Any, value: Any, root: Node | None) -> Diagnostic:
    """PP111 for the property at ``path`` (``info``: its ``x-deprecated`` value)."""
    path = tuple(path)
    info = info if isinstance(info, dict) else {}
    name = str(path[-1]) if path else "property"
    since = info.get("since", "")
    rfc = info.get("rfc")
    _, pair = resolve(root, path)
    span = pair.key.span if pair is not None else _value_span(root, path)
    origin = f"deprecated since PromptPack {since}" + (f" (RFC {rfc})" if rfc else "")
    data: dict[str, Any] = {"kind": "deprecated-property", "key": name, "path": list(path)}
    fixes: tuple[FixData, ...] = ()
    if name == "fail_on_violation":
        if value is False:
            message = (
                f"`{name}: false` is {origin} and ignored: the validator is enforced anyway. "
                "To observe without enforcing, declare an eval in `evals` instead; "
                "`enabled: false` switches the validator off"
            )
        else:
            message = (
                f"`{name}` is {origin} and has no effect: a triggered validator is always "
                "enforced; remove it"
            )
            if value is True:  # the default: removing it changes nothing
                fixes = (RemoveEntry(path, name),)
    else:
        message = f"`{name}` is {origin}"
    return make(DEPRECATED_PROPERTY, message, span, tags=(Tag.DEPRECATED,), data=data, fixes=fixes)


def _renamed_from(root: Node | None, path: Sequence[PathItem]) -> set[str]:
    """The new names of renamed properties whose old key the object at ``path`` has."""
    if not path:
        return set()
    owner = str(path[-1])
    olds = {old: new for (at, old), (new, _) in RENAMED.items() if at == owner}
    if not olds:
        return set()
    node = deref(resolve(root, path)[0])
    if not isinstance(node, MappingNode):
        return set()
    return {olds[key] for key in node.effective if key in olds}


def _to_diagnostics(
    err: ValidationError, root: Node | None, target: versions.Target
) -> Iterable[Diagnostic]:
    path = tuple(err.absolute_path)
    where = dotted(path)
    # How the place is named: `prompts.main`, or in plain words for the root.
    named = f"`{where}`" if path else "the pack root"
    subject = named if path else "The pack root"
    validator = err.validator
    value = err.instance
    schema = err.schema if isinstance(err.schema, dict) else {}

    if validator == "required":
        match = _REQUIRED_RE.match(err.message)
        required = err.validator_value if isinstance(err.validator_value, list) else []
        missing = (
            [match.group(1)]
            if match
            else [p for p in required if isinstance(value, dict) and p not in value]
        )
        span = _object_anchor_span(root, path)
        renamed_from = _renamed_from(root, path)
        for prop in missing:
            if prop in renamed_from:
                continue  # the old key present is reported, with the rename
            owner = "the pack" if not path else f"`{where}`"
            yield make(
                MISSING_PROPERTY,
                f"Missing required property `{prop}` in {owner}",
                span,
                data=MissingProperty(property=prop, path=list(path)),
            )
        return

    if validator in ("additionalProperties", "unevaluatedProperties"):
        node, _ = resolve(root, path)
        node = deref(node)
        allowed = list(schema.get("properties", {}).keys())
        patterns = [re.compile(p) for p in schema.get("patternProperties", {})]
        if not isinstance(node, MappingNode):
            yield make(UNKNOWN_PROPERTY, err.message, _value_span(root, path))
            return
        present = set(node.effective)
        later = schema.get("x-later", {})
        for key, pair in node.effective.items():
            if key in allowed or any(p.search(key) for p in patterns):
                continue
            if isinstance(later, dict) and isinstance(later.get(key), dict):
                yield needs_version(key, later[key], pair.key.span, path, target)
                continue
            candidates = [a for a in allowed if a not in present]
            found = suggestions(key, candidates)
            owner = "the pack root" if not path else f"`{where}`"
            renamed = RENAMED.get((str(path[-1]), key)) if path else None
            if renamed is not None and renamed[0] in allowed:
                new_name, why = renamed
                found = [] if new_name in present else [new_name]
                advice = (
                    f"rename it `{new_name}`" if found else f"`{new_name}` is there: remove `{key}`"
                )
                yield make(
                    UNKNOWN_PROPERTY,
                    f"Unknown property `{key}` in {owner}: {why}; {advice}",
                    pair.key.span,
                    data=RenamedProperty(
                        key=key, renamed=new_name, suggestions=found, path=list(path)
                    ),
                    fixes=suggest(pair.key.span, found),
                )
                continue
            yield make(
                UNKNOWN_PROPERTY,
                f"Unknown property `{key}` in {owner}{hint_for(found)}",
                pair.key.span,
                data=UnknownProperty(key=key, suggestions=found, path=list(path)),
                fixes=suggest(pair.key.span, found),
            )
        return

    if validator == "x-deprecated":
        yield _deprecation(path, err.validator_value, value, root)
        return
    span = _value_span(root, path)
    data: dict[str, Any] = {"path": list(path)}
    if validator == "type":
        expected = err.validator_value
        types = expected if isinstance(expected, list) else [expected]
        words = " or ".join(_TYPE_WORDS.get(str(t), str(t)) for t in types)
        tip = ""
        if "string" in types and isinstance(value, int | float | bool):
            tip = " (put it in quotes to make it a string)"
        yield make(
            WRONG_TYPE, f"{subject} must be {words}, not {_kind(value)}{tip}", span, data=data
        )
    elif validator in ("enum", "const"):
        raw = err.validator_value
        allowed_values: list[Any] = (
            list(raw) if validator == "enum" and isinstance(raw, list) else [raw]
        )
        listed = ", ".join(f"`{_show(v)}`" for v in allowed_values)
        strings = [v for v in allowed_values if isinstance(v, str)]
        found = suggestions(value, strings) if isinstance(value, str) else []
        hint = hint_for(found)
        yield make(
            INVALID_VALUE,
            f"`{_show(value)}` is not allowed for {named}{hint or '; expected one of: ' + listed}"
            if hint
            else f"`{_show(value)}` is not allowed for {named}; expected {listed}",
            span,
            data=InvalidValue(
                path=list(path),
                suggestions=found,
                allowed=[v for v in allowed_values if isinstance(v, str | int | float)],
            ),
            fixes=suggest(span, found),
        )
    elif validator == "pattern":
        pattern_hint = _pattern_hint(schema)
        reason = pattern_hint or f"it must match the pattern `{err.validator_value}`"
        yield make(
            PATTERN_MISMATCH,
            f"`{_show(value)}` is not a valid {named}: {reason}",
            span,
            data=data,
        )
    elif validator in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"):
        bound = err.validator_value
        words = {
            "minimum": f"at least {bound}",
            "maximum": f"at most {bound}",
            "exclusiveMinimum": f"greater than {bound}",
            "exclusiveMaximum": f"less than {bound}",
            "multipleOf": f"a multiple of {bound}",
        }[str(validator)]
        shown = "NaN" if isinstance(value, float) and math.isnan(value) else _show(value)
        yield make(OUT_OF_RANGE, f"{subject} must be {words} (found {shown})", span, data=data)
    elif validator in (
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
        "minProperties",
        "maxProperties",
    ):
        n = err.validator_value
        unit = {
            "minLength": ("at least", "character"),
            "maxLength": ("at most", "character"),
            "minItems": ("at least", "item"),
            "maxItems": ("at most", "item"),
            "minProperties": ("at least", "entry"),
            "maxProperties": ("at most", "entry"),
        }[str(validator)]
        noun = unit[1] if n == 1 else (unit[1] + "s" if unit[1] != "entry" else "entries")
        if validator == "minProperties" or validator == "minItems":
            msg = f"{subject} must have {unit[0]} {n} {noun}" + (
                " (it is empty)" if not value else ""
            )
        else:
            msg = f"{subject} must have {unit[0]} {n} {noun}"
        yield make(WRONG_SIZE, msg, span, data=data)
    elif validator in ("oneOf", "anyOf"):
        branch = _discriminated(err)
        if branch is not None and isinstance(value, dict):
            # The value names its form (`kind: agent`): its problems are that form's.
            prop, chosen = branch
            for sub in chosen:
                for diag in _to_diagnostics(sub, root, target):
                    if diag.code == MISSING_PROPERTY.code:
                        needed = diag.data.get("property")
                        diag = replace(
                            diag,
                            message=f"`{prop}: {_show(value[prop])}` needs `{needed}`: "
                            f"it is missing in {named}",
                        )
                    yield diag
            return
        later = _later_form(err, schema)
        if later is not None and isinstance(value, dict):
            prop, since = later
            yield needs_version(
                f"{prop}: {_show(value[prop])}",
                {"since": since},
                _value_span(root, (*path, prop)),
                path,
                target,
            )
            return
        yield make(
            NO_MATCHING_FORM,
            f"{subject} {_explain_alternatives(err, root, target)}",
            span,
            data=data,
        )
    elif validator == "uniqueItems" and isinstance(value, list):
        twice = next((v for i, v in enumerate(value) if v in value[:i]), None)
        yield make(
            SCHEMA_VIOLATION,
            f"{subject} lists `{_show(twice)}` more than once; each item may appear once",
            span,
            data=data,
        )
    else:
        yield make(SCHEMA_VIOLATION, f"{subject}: {err.message}", span, data=data)


_DISCRIMINATING = ("const", "enum", "pattern")


def _alternatives(err: ValidationError) -> dict[int, list[ValidationError]]:
    by_alt: dict[int, list[ValidationError]] = {}
    for sub in err.context or ():
        if sub.relative_schema_path:
            by_alt.setdefault(int(sub.relative_schema_path[0]), []).append(sub)
    return by_alt


def _rejected_by(by_alt: dict[int, list[ValidationError]]) -> dict[str, set[int]]:
    """For each property of the value, the forms that reject its value as such (a
    ``const``, ``enum`` or ``pattern`` of that property: it names another form)."""
    rejects: dict[str, set[int]] = {}
    for index, subs in by_alt.items():
        for sub in subs:
            if len(sub.path) == 1 and sub.validator in _DISCRIMINATING:
                rejects.setdefault(str(sub.path[0]), set()).add(index)
    return rejects


def _discriminated(err: ValidationError) -> tuple[str, list[ValidationError]] | None:
    """The property that names the form of the value (``kind``) and the errors of the
    one form it names, when several forms reject its value and exactly one does not."""
    value = err.instance
    if not isinstance(value, dict):
        return None
    by_alt = _alternatives(err)
    alternatives = err.validator_value if isinstance(err.validator_value, list) else []
    for prop, rejecting in _rejected_by(by_alt).items():
        if prop not in value or len(rejecting) < 2:
            continue
        accepting = [i for i in range(len(alternatives)) if i not in rejecting]
        if len(accepting) == 1 and accepting[0] in by_alt:
            return prop, by_alt[accepting[0]]
    return None


def _later_form(err: ValidationError, schema: dict[str, Any]) -> tuple[str, str] | None:
    """(property, version) when every form rejects the value's discriminating property
    and a form of a later version takes it (``x-later-forms``, see versions.restrict)."""
    value = err.instance
    later = schema.get("x-later-forms")
    if not isinstance(value, dict) or not isinstance(later, list):
        return None
    alternatives = err.validator_value if isinstance(err.validator_value, list) else []
    for prop, rejecting in _rejected_by(_alternatives(err)).items():
        if prop not in value or len(rejecting) != len(alternatives):
            continue
        for form in later:
            accepts = form.get("properties", {}).get(prop)
            if isinstance(accepts, dict) and _accepts(accepts, value[prop]):
                return prop, str(form.get("since"))
    return None


def _accepts(schema: dict[str, Any], value: Any) -> bool:
    if "const" in schema and schema["const"] != value:
        return False
    if "enum" in schema and value not in schema["enum"]:
        return False
    pattern = schema.get("pattern")
    return not (
        isinstance(pattern, str) and not (isinstance(value, str) and re.search(pattern, value))
    )


def _explain_alternatives(err: ValidationError, root: Node | None, target: versions.Target) -> str:
    """Plain words for a value that matches none (or several) of a oneOf's forms."""
    by_alt: dict[int, list[ValidationError]] = {}
    for sub in err.context or ():
        if sub.relative_schema_path:
            by_alt.setdefault(int(sub.relative_schema_path[0]), []).append(sub)
    alternatives = err.validator_value if isinstance(err.validator_value, list) else []
    if err.validator == "oneOf" and len(by_alt) < len(alternatives):
        return "matches more than one of the allowed forms; make it match exactly one"
    # Forms rejected only because of the value's type tell what types are allowed.
    type_only = [
        subs for subs in by_alt.values() if all(s.validator == "type" and not s.path for s in subs)
    ]
    if len(type_only) == len(by_alt):
        types: list[str] = []
        for subs in type_only:
            for sub in subs:
                expected = sub.validator_value
                for t in expected if isinstance(expected, list) else [expected]:
                    word = _TYPE_WORDS.get(str(t), str(t))
                    if word not in types:
                        types.append(word)
        return f"must be {' or '.join(types)}, not {_kind(err.instance)}"
    # Forms that differ only by which property they require: the value needs one.
    if by_alt and all(s.validator == "required" for subs in by_alt.values() for s in subs):
        missing: list[str] = []
        for subs in by_alt.values():
            for sub in subs:
                wanted = sub.validator_value if isinstance(sub.validator_value, list) else []
                for prop in wanted:
                    absent = not isinstance(err.instance, dict) or prop not in err.instance
                    if absent and f"`{prop}`" not in missing:
                        missing.append(f"`{prop}`")
        if missing:
            listed = (
                ", ".join(missing[:-1]) + f" or {missing[-1]}" if len(missing) > 1 else missing[0]
            )
            return f"needs {listed}"
    # Otherwise explain the closest form: the one of the right type with fewest errors.
    candidates = [subs for subs in by_alt.values() if subs not in type_only]
    best = min(candidates, key=len)
    reasons: list[str] = []
    for sub in best:
        for diag in _to_diagnostics(sub, root, target):
            reasons.append(diag.message)
    if not reasons:
        from jsonschema.exceptions import best_match

        chosen = best_match(best)
        reasons = [chosen.message] if chosen is not None else []
    return "does not match any allowed form: " + "; ".join(reasons)
