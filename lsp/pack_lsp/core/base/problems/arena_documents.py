"""PA0xx — one document of a PromptKit arena project, on its own.

A document whose ``apiVersion`` is in a PromptKit API group is recognised as a
document of an arena project (``core.recognize``); ``core.arena_documents`` checks
it against the schema of the kind it declares. These rules say when it declares no
kind, or one PromptKit does not load. Schema problems of a document are the schema
rules' PP1xx and YAML problems the document rules' PP0xx, as for packs.
"""

from __future__ import annotations

from pack_lsp.core.base.diagnostics import ExampleKind, FixKind, Rule, Severity

CATEGORY = "Arena project documents"

UNKNOWN_KIND = Rule(
    "PA001",
    "arena-kind-unknown",
    Severity.ERROR,
    "A document of a PromptKit API group declares a `kind` PromptKit does not load: "
    "the kinds of an arena project are `Arena`, `PromptConfig`, `Tool`, `Scenario`, "
    "`Provider`, `Persona` and `Eval`, PromptKit's SDK also reads `RuntimeConfig` and "
    "`LoggingConfig` files (those are accepted without a schema check), and "
    "`promptarena init` reads template packages' `Template` and `TemplateIndex` (checked "
    "against their own schemas; promptarena reads the index's kind in any case). Nothing "
    "else in the document is checked.",
    (
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\n"
        "kind: Scenaro     # a misspelt kind\n"
        "metadata:\n"
        "  name: refund-request\n"
        "spec:\n"
        "  task_type: support\n"
    ),
    "Correct the kind (a quick fix offers the nearest one), or remove the `apiVersion` "
    "if the file is not part of an arena project.",
    CATEGORY,
    example_kind=ExampleKind.ARENA,
    fixes=(FixKind.REPLACE_WITH_SUGGESTION,),
)

MISSING_KIND = Rule(
    "PA002",
    "arena-kind-missing",
    Severity.ERROR,
    "A document of a PromptKit API group has no `kind`, so nothing says how PromptKit "
    "reads it (PromptKit refuses such a file); the rest of the document is not checked.",
    (
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\n"
        "metadata:     # no kind\n"
        "  name: calculator\n"
        "spec:\n"
        "  name: add\n"
    ),
    "Add the kind the document is (`Arena`, `PromptConfig`, `Tool`, `Scenario`, "
    "`Provider`, `Persona` or `Eval`).",
    CATEGORY,
    example_kind=ExampleKind.ARENA,
)

RULES = (UNKNOWN_KIND, MISSING_KIND)
