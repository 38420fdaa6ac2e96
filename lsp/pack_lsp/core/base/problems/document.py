"""PP0xx — problems with the file as YAML/JSON text."""

from __future__ import annotations

from pack_lsp.core.base.diagnostics import ExampleKind, Rule, Severity
from pack_lsp.core.base.example_pack import pack_example

E = Severity.ERROR
CATEGORY = "YAML and JSON"

INTERNAL_ERROR = Rule(
    "PP000",
    "internal-error",
    E,
    "A pack-lsp rule failed on this file. The other rules still ran.",
    "(any file on which a rule of pack-lsp fails)\n",
    "Report the file and the server log to the pack-lsp maintainers.",
    CATEGORY,
    example_kind=ExampleKind.ILLUSTRATIVE,
)

YAML_SYNTAX = Rule(
    "PP001",
    "yaml-syntax",
    E,
    "The file is not well-formed YAML or JSON.",
    pack_example(
        "prompts:\n"
        "  support:\n"
        "    id: support\n"
        "    name: Support\n"
        "    version: 1.0.0\n"
        "    system_template: Help\n"
        "    tools: [lookup_order,\n"
        "tools:\n"
        "  lookup_order: {name: lookup_order, description: Find an order}\n"
    ),
    "Close the bracket or quote, or fix the indentation at the reported position. "
    "Only the first syntax error is reported; the rest of the file is still read "
    "as far as possible, so completion keeps working.",
    CATEGORY,
)

JSON_SYNTAX = Rule(
    "PP013",
    "json-syntax",
    E,
    "A `.json` file is not strict JSON: single quotes, unquoted property names, "
    "trailing commas, comments, NaN and other YAML-only forms are reported at their "
    "exact position (a `.yaml` file may use them).",
    (
        "{\n"
        '  "id": "support",\n'
        '  "name": "Support",\n'
        '  "version": "1.0.0",\n'
        '  "template_engine": {"version": "v1", "syntax": "{{variable}}"},\n'
        '  "prompts": {\n'
        '    "support": {"id": "support", "name": "Support", "version": "1.0.0", "sys'
        'tem_template": "Help"},\n'
        "  }\n"
        "}\n"
    ),
    "Write the file as JSON: double-quoted strings and property names, no comma after "
    "the last item, no comments. Or rename it to `.yaml` if it is meant to be YAML.",
    CATEGORY,
    example_kind=ExampleKind.PACK_JSON,
)

INVALID_ENCODING = Rule(
    "PP002",
    "invalid-encoding",
    E,
    "The file contains bytes that are not UTF-8.",
    pack_example(
        "description: Caf\\xe9 support   # a Latin-1 byte saved by an old editor\n"
        "prompts:\n"
        "  support: {id: support, name: Support, version: 1.0.0, system_template: Help}\n"
    ),
    "Save the file as UTF-8. A UTF-8 byte-order mark is accepted.",
    CATEGORY,
    example_kind=ExampleKind.PACK_BYTES,
)

EMPTY_DOCUMENT = Rule(
    "PP003",
    "empty-document",
    E,
    "The file has no content (or only comments).",
    "# TODO: write the pack\n",
    "Start the pack with `id`, `name`, `version`, `template_engine` and `prompts`.",
    CATEGORY,
)

MULTIPLE_DOCUMENTS = Rule(
    "PP004",
    "multiple-documents",
    E,
    "The file contains more than one YAML document (`---`); only the first is read.",
    pack_example(
        "prompts:\n"
        "  support: {id: support, name: Support, version: 1.0.0, system_template: Help}\n"
        "---\n"
        "id: support\n"
        "name: Support\n"
        "version: 1.0.0\n"
        'template_engine: {version: v1, syntax: "{{variable}}"}\n'
        "prompts:\n"
        "  support: {id: support, name: Support, version: 1.0.0, system_template: Help}\n"
    ),
    "Keep one pack per file; move the second document to its own file.",
    CATEGORY,
)

DUPLICATE_KEY = Rule(
    "PP005",
    "duplicate-key",
    E,
    "A key appears twice in the same mapping. Both places are reported. In an "
    "agent-extension manifest it is a warning: yodoca reads manifests with PyYAML, which "
    "keeps the later value, so the manifest loads without the earlier one.",
    pack_example(
        "prompts:\n"
        "  support:\n"
        "    id: support\n"
        "    name: Support\n"
        "    version: 1.0.0\n"
        "    system_template: Help\n"
        "    name: Support desk\n"
    ),
    "Remove or rename one of the two keys. Parsers keep only the last value, so the "
    "first one is silently lost.",
    CATEGORY,
)

UNSUPPORTED_TAG = Rule(
    "PP006",
    "unsupported-tag",
    E,
    "A YAML tag other than the standard `!!str`, `!!int`, `!!float`, `!!bool`, `!!null`, "
    "`!!map` and `!!seq`, or a standard tag that does not fit its value. Tags never "
    "construct objects; the value is read as plain data.",
    pack_example(
        "prompts:\n"
        "  support:\n"
        "    id: support\n"
        "    name: Support\n"
        "    version: 1.0.0\n"
        "    system_template: !!python/name:os.system Help\n"
    ),
    "Remove the tag. PromptPack files are plain data.",
    CATEGORY,
)

UNDEFINED_ALIAS = Rule(
    "PP007",
    "undefined-alias",
    E,
    "An alias `*name` has no anchor `&name` earlier in the file.",
    pack_example(
        "prompts:\n"
        "  support:\n"
        "    id: support\n"
        "    name: Support\n"
        "    version: 1.0.0\n"
        "    system_template: Help\n"
        "    tools: *shared_tools   # no anchor &shared_tools\n"
    ),
    "Define the anchor before the alias (`shared: &shared_tools [search]`) or fix its name.",
    CATEGORY,
)

ALIAS_EXPANSION_LIMIT = Rule(
    "PP008",
    "alias-expansion-limit",
    E,
    'Aliases would expand the document beyond a safe size (a "billion laughs" file). '
    "Oversized aliases are not expanded.",
    pack_example(
        "prompts:\n"
        "  support: {id: support, name: Support, version: 1.0.0, system_template: Help}\n"
        "metadata:\n"
        "  a: &a [x, x, x, x, x, x, x, x, x, x]\n"
        "  b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
        "  c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
        "  d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
        "  e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
        "  f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
    ),
    "Do not nest aliases of aliases to build large structures; write the data out.",
    CATEGORY,
)

RECURSIVE_ALIAS = Rule(
    "PP009",
    "recursive-alias",
    E,
    "An alias refers to a node that contains the alias itself.",
    pack_example(
        "prompts:\n"
        "  support: {id: support, name: Support, version: 1.0.0, system_template: Help}\n"
        "metadata:\n"
        "  loop: &loop [*loop]\n"
    ),
    "Point the alias at a node that does not contain it.",
    CATEGORY,
)

COMPLEX_KEY = Rule(
    "PP010",
    "complex-key",
    E,
    "A mapping key is a list or a mapping; PromptPack keys are strings.",
    pack_example(
        "prompts:\n"
        "  support: {id: support, name: Support, version: 1.0.0, system_template: Help}\n"
        "metadata:\n"
        "  ? [a, b]\n"
        "  : value\n"
    ),
    "Use a string key.",
    CATEGORY,
)

INVALID_MERGE = Rule(
    "PP011",
    "invalid-merge",
    E,
    "A merge key `<<` is given something other than a mapping, an alias of a mapping, "
    "or a list of those.",
    pack_example(
        "prompts:\n"
        "  support: {id: support, name: Support, version: 1.0.0, system_template: Help}\n"
        "metadata:\n"
        "  defaults: &defaults [a, b]\n"
        "  owner:\n"
        "    <<: *defaults\n"
    ),
    "Merge a mapping: `defaults: &defaults {temperature: 0.2}` then `<<: *defaults`.",
    CATEGORY,
)

NOT_A_PACK = Rule(
    "PP014",
    "not-a-pack",
    Severity.INFORMATION,
    "A file named or given like a pack is something else: a Kubernetes manifest whose "
    "ConfigMaps hold no pack, a PromptKit arena-project file, a JSON Schema or a Helm "
    "chart template. It is not checked as a pack, so it gets this one line instead of "
    "a list of schema errors.",
    (
        "apiVersion: apps/v1\n"
        "kind: Deployment\n"
        "metadata: {name: support}\n"
        "spec:\n"
        "  template:\n"
        "    spec:\n"
        "      containers: [{name: support, image: support:1.0}]\n"
    ),
    "Nothing to fix if the file is what the message says; rename it so that its name "
    "no longer says PromptPack, or exclude it from the check (`exclude` in the "
    "configuration).",
    CATEGORY,
    example_kind=ExampleKind.KUBERNETES,
)

NESTING_TOO_DEEP = Rule(
    "PP012",
    "nesting-too-deep",
    E,
    "Lists or mappings are nested more than 64 levels deep; the deeper content is not "
    "read (protection against hostile files).",
    (
        "id: support\n"
        "name: Support\n"
        "version: 1.0.0\n"
        'template_engine: {version: v1, syntax: "{{variable}}"}\n'
        "prompts:\n"
        "  support: {id: support, name: Support, version: 1.0.0, system_template: Help}\n"
        "metadata:\n"
        "  deep: " + "[" * 65 + "]" * 65 + "\n"  # 65 nested lists
    ),
    "Flatten the structure; no PromptPack field needs such depth.",
    CATEGORY,
)

RULES = (
    INTERNAL_ERROR,
    YAML_SYNTAX,
    INVALID_ENCODING,
    EMPTY_DOCUMENT,
    MULTIPLE_DOCUMENTS,
    DUPLICATE_KEY,
    UNSUPPORTED_TAG,
    UNDEFINED_ALIAS,
    ALIAS_EXPANSION_LIMIT,
    RECURSIVE_ALIAS,
    COMPLEX_KEY,
    INVALID_MERGE,
    NESTING_TOO_DEEP,
    JSON_SYNTAX,
    NOT_A_PACK,
)
