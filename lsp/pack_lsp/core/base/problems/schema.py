"""PP1xx — the pack does not follow the PromptPack schema."""

from __future__ import annotations

from pack_lsp.core.base.diagnostics import FixKind, Rule, Severity
from pack_lsp.core.base.example_pack import pack_example

E = Severity.ERROR
W = Severity.WARNING
CATEGORY = "Schema"

MISSING_PROPERTY = Rule(
    "PP101",
    "missing-property",
    E,
    "A required property is missing. Reported on the key of the object that lacks it "
    "(on the first key for the pack root or a list item).",
    pack_example(
        "prompts:\n"
        "  support:          # no `version`\n"
        "    id: support\n"
        "    name: Support\n"
        "    system_template: Help\n"
    ),
    "Add the property. Completion inside the object offers every property still missing.",
    CATEGORY,
)

UNKNOWN_PROPERTY = Rule(
    "PP102",
    "unknown-property",
    E,
    "A property the schema does not define at this place. Reported on the key, with a "
    "suggestion when a known property is close, or the new name of a property the "
    "specification renamed: `independent_of.on` is `axes` since RFC 0016 (PromptPack "
    "1.8.0), because a YAML 1.1 reader takes a bare `on` key for `true` (pack-lsp reads "
    "YAML 1.2, where `on` is a string key). A key `true` there is reported the same way: "
    "it is what a YAML 1.1 tool writes back for `on`.",
    pack_example(
        "prompts:\n"
        "  support: {id: support, name: Support, version: 1.0.0, system_template: Help}\n"
        "agent:            # did you mean `agents`?\n"
        "  entry: support\n"
    ),
    "Rename the key to the suggested property (a quick fix does it) or remove it.",
    CATEGORY,
    fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
    safe_fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
)

WRONG_TYPE = Rule(
    "PP103",
    "wrong-type",
    E,
    "A value has the wrong type (for example a string where a list is expected).",
    pack_example(
        "prompts:\n"
        "  support:\n"
        "    id: support\n"
        "    name: Support\n"
        "    version: 1.0.0\n"
        "    system_template: Help\n"
        "    tools: lookup_order     # must be a list\n"
    ),
    "Write the value with the expected type: `tools: [lookup_order]`.",
    CATEGORY,
)

INVALID_VALUE = Rule(
    "PP104",
    "invalid-value",
    E,
    "A value is not one of the values the schema allows.",
    (
        "id: support\n"
        "name: Support\n"
        "version: 1.0.0\n"
        "template_engine:\n"
        "  version: v1\n"
        '  syntax: "{{variable}}"\n'
        "  features: [fragment]     # did you mean `fragments`?\n"
        "prompts:\n"
        "  support: {id: support, name: Support, version: 1.0.0, system_template: Help}\n"
    ),
    "Use one of the listed values.",
    CATEGORY,
    fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
    safe_fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
)

PATTERN_MISMATCH = Rule(
    "PP105",
    "pattern-mismatch",
    E,
    "A string does not have the required form (identifier, semantic version, ...).",
    pack_example(
        "prompts:\n"
        "  support:\n"
        "    id: support\n"
        "    name: Support\n"
        "    version: v1     # a semantic version: 1.0.0\n"
        "    system_template: Help\n"
    ),
    "Rewrite the value in the form the message describes, e.g. `web_search`.",
    CATEGORY,
)

OUT_OF_RANGE = Rule(
    "PP106",
    "out-of-range",
    E,
    "A number is outside its allowed range.",
    pack_example(
        "prompts:\n"
        "  support:\n"
        "    id: support\n"
        "    name: Support\n"
        "    version: 1.0.0\n"
        "    system_template: Help\n"
        "    parameters:\n"
        "      temperature: 3.5        # 0 to 2\n"
    ),
    "Use a number inside the range given in the message.",
    CATEGORY,
)

WRONG_SIZE = Rule(
    "PP107",
    "wrong-size",
    E,
    "A string, list or mapping is too short or too long (for example an empty `prompts`).",
    pack_example("prompts: {}\n"),
    "Add the missing entries or shorten the value.",
    CATEGORY,
)

NO_MATCHING_FORM = Rule(
    "PP109",
    "no-matching-form",
    E,
    "A value matches none of the forms allowed at this place (for example a skill "
    "source that is neither a path, a path object nor an inline skill).",
    pack_example(
        "prompts:\n"
        "  support: {id: support, name: Support, version: 1.0.0, system_template: Help}\n"
        "skills:\n"
        '  - {path: "@acme/faq-skills", name: faq}   # a path object has no name\n'
    ),
    "Write the value in one of the forms described in the message.",
    CATEGORY,
)

NEEDS_NEWER_VERSION = Rule(
    "PP110",
    "needs-newer-version",
    E,
    "A property that the PromptPack version the pack targets does not have yet; the "
    "message names the version (and RFC) that introduced it. The target is the "
    "`spec-version` setting when set, else the version in the pack's `$schema` URL, "
    "else the latest version. The promptkit profile always checks against the schema "
    "PromptKit embeds, whatever `$schema` says, and reports keys that schema lacks as "
    "unknown (PP102): the section on profiles at the end of this page lists where that "
    "schema differs from the specification's. A declared version "
    "pack-lsp does not know is checked with the features of the newest known version "
    'not above it, and the message says both: "declares 1.4.5 in `$schema` (checked '
    "as 1.4.1)\". A composition step's `provider` (1.9.0, RFC 0017) in a pack that "
    "targets an earlier version is a warning: the schemas before 1.9.0 leave steps open "
    "and accept the key, but give it no meaning.",
    (
        "$schema: https://promptpack.org/schema/v1.4.0/promptpack.schema.json\n"
        "id: support\n"
        "name: Support\n"
        "version: 1.0.0\n"
        'template_engine: {version: v1, syntax: "{{variable}}"}\n'
        "prompts:\n"
        "  support: {id: support, name: Support, version: 1.0.0, system_template: Help}\n"
        "workflow:\n"
        "  version: 1\n"
        "  entry: support\n"
        "  states:\n"
        "    support:\n"
        "      prompt_task: support\n"
        "      control: agent   # needs 1.7.0 (RFC 0014)\n"
        "      on_event: {Done: done}\n"
        "    done: {prompt_task: support, terminal: true}\n"
    ),
    "Raise `$schema` to the version named (a quick fix does it) when the runtime "
    "supports it, or remove the property.",
    CATEGORY,
    fixes=(FixKind.RAISE_SCHEMA,),
)

DEPRECATED_PROPERTY = Rule(
    "PP111",
    "deprecated-property",
    W,
    "A property deprecated in the targeted version. `fail_on_violation` (deprecated "
    "in 1.7.0 by RFC 0015) is ignored by runtimes: a triggered validator is always "
    "enforced. With `true` it is inert; with `false` the pack expected observation "
    "without enforcement, which an eval now provides.",
    pack_example(
        "prompts:\n"
        "  support:\n"
        "    id: support\n"
        "    name: Support\n"
        "    version: 1.0.0\n"
        "    system_template: Help\n"
        "    validators:\n"
        "      - {type: banned_words, params: {words: [guarantee]}, fail_on_violation"
        ": true}\n"
    ),
    "Remove an inert `fail_on_violation: true` (a quick fix does it); replace "
    "`fail_on_violation: false` by an eval in `evals`, or switch the validator off "
    "with `enabled: false`.",
    CATEGORY,
    fixes=(FixKind.REMOVE_ENTRY,),
    safe_fixes=(FixKind.REMOVE_ENTRY,),
)

NEWER_THAN_KNOWN = Rule(
    "PP112",
    "newer-than-known-version",
    Severity.INFORMATION,
    "The pack's `$schema` declares a PromptPack version newer than every version "
    "pack-lsp knows (1.10.0, or any 2.x). The pack is checked with the features of the "
    "newest known version: keys the declared version added are reported as unknown, "
    "and a new major version may have changed the format in ways pack-lsp cannot check.",
    (
        "$schema: https://promptpack.org/schema/v1.10.0/promptpack.schema.json\n"
        "id: support\n"
        "name: Support\n"
        "version: 1.0.0\n"
        'template_engine: {version: v1, syntax: "{{variable}}"}\n'
        "prompts:\n"
        "  support: {id: support, name: Support, version: 1.0.0, system_template: Help}\n"
    ),
    "Nothing to change in the pack when the version is right: update pack-lsp to check "
    "it fully. Otherwise correct the version in `$schema`.",
    CATEGORY,
)

SCHEMA_URL_MISSPELT = Rule(
    "PP113",
    "schema-url-misspelt",
    W,
    "The pack's `$schema` URL names a host that is almost PromptPack's (`promptpak.org`, "
    "`promptpack.com`): a misspelling. Tools that read `$schema` (editors, the "
    "PromptPack validators, pack-lsp for a file not named like a pack) do not see a "
    "PromptPack schema there.",
    (
        "$schema: https://promptpak.org/schema/v1.9.0/promptpack.schema.json\n"
        "id: support\n"
        "name: Support\n"
        "version: 1.0.0\n"
        'template_engine: {version: v1, syntax: "{{variable}}"}\n'
        "prompts:\n"
        "  support: {id: support, name: Support, version: 1.0.0, system_template: Help}\n"
    ),
    "Write the host as `promptpack.org`.",
    CATEGORY,
)

SCHEMA_VIOLATION = Rule(
    "PP199",
    "schema-violation",
    E,
    "Any other schema constraint that the value breaks.",
    pack_example(
        "metadata:\n"
        "  governance:\n"
        "    independent_of: {axes: [model, model]}   # each axis once\n"
        "prompts:\n"
        "  support: {id: support, name: Support, version: 1.0.0, system_template: Help}\n"
    ),
    "Follow the message.",
    CATEGORY,
)

RULES = (
    MISSING_PROPERTY,
    UNKNOWN_PROPERTY,
    WRONG_TYPE,
    INVALID_VALUE,
    PATTERN_MISMATCH,
    OUT_OF_RANGE,
    WRONG_SIZE,
    NO_MATCHING_FORM,
    NEEDS_NEWER_VERSION,
    DEPRECATED_PROPERTY,
    NEWER_THAN_KNOWN,
    SCHEMA_URL_MISSPELT,
    SCHEMA_VIOLATION,
)
