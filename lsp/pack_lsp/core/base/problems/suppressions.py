"""PP8xx — inline suppression comments (``# pack-lsp: ignore[...]``).

The comments themselves are read and applied by ``pack_lsp.core.checks.suppress`` after
the configuration; these entries document the problems found in them.
"""

from __future__ import annotations

from pack_lsp.core.base.diagnostics import Rule, Severity
from pack_lsp.core.base.example_pack import pack_example

W = Severity.WARNING
H = Severity.HINT
CATEGORY = "Suppression comments"

UNUSED_SUPPRESSION = Rule(
    "PP801",
    "unused-suppression",
    H,
    "A code in a suppression comment silences nothing: no diagnostic with that code "
    "starts on the comment's line (`ignore`) or in the file (`ignore-file`), or the "
    "configuration does not enable the code. Shown faded in editors.",
    pack_example(
        "prompts:\n"
        "  support:\n"
        "    id: support   # pack-lsp: ignore[PP601]\n"
        "    name: Support\n"
        "    version: 1.0.0\n"
        "    system_template: Help\n"
    ),
    "Remove the code from the comment, or the whole comment when it names no other "
    "code. To keep a suppression that is only sometimes needed, add `PP801` to the "
    "same comment.",
    CATEGORY,
)

MALFORMED_SUPPRESSION = Rule(
    "PP802",
    "malformed-suppression",
    W,
    "A comment starting with `pack-lsp:` is not a suppression pack-lsp understands. "
    "The forms are `# pack-lsp: ignore[CODE, ...]` at the end of a line and "
    "`# pack-lsp: ignore-file[CODE, ...]` before the first line of content. The "
    "comment silences nothing.",
    pack_example(
        "prompts:\n"
        "  support:\n"
        "    id: support\n"
        "    name: Support   # pack-lsp: ignore PP301\n"
        "    version: 1.0.0\n"
        "    system_template: Help\n"
    ),
    "Put the codes in square brackets, separated by commas: `# pack-lsp: ignore[PP301]`.",
    CATEGORY,
)

UNKNOWN_SUPPRESSION_CODE = Rule(
    "PP803",
    "unknown-suppression-code",
    W,
    "A suppression comment names a code that pack-lsp does not have; it silences "
    "nothing. Reported on the code, with a suggestion when a known code is close.",
    pack_example(
        "prompts:\n"
        "  support:\n"
        "    id: support\n"
        "    name: Support   # pack-lsp: ignore[PP3001]\n"
        "    version: 1.0.0\n"
        "    system_template: Help\n"
    ),
    "Use the code shown by the diagnostic you want to silence (see the list of rules above).",
    CATEGORY,
)

MISPLACED_FILE_SUPPRESSION = Rule(
    "PP804",
    "misplaced-file-suppression",
    W,
    "An `ignore-file` comment comes after the first line of content. A file-wide "
    "suppression must sit in the comment block at the top of the file, so it is "
    "ignored here.",
    pack_example(
        "# pack-lsp: ignore-file[PP501]\n"
        "prompts:\n"
        "  support: {id: support, name: Support, version: 1.0.0, system_template: Help}\n"
    ),
    "Move the comment above the first key of the pack, or use `ignore[...]` at the "
    "end of the line you mean.",
    CATEGORY,
)

RULES = (
    UNUSED_SUPPRESSION,
    MALFORMED_SUPPRESSION,
    UNKNOWN_SUPPRESSION_CODE,
    MISPLACED_FILE_SUPPRESSION,
)
