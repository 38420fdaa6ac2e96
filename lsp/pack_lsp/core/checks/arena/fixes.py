"""Quick fixes of the compiled pack's diagnostics, carried to the source files.

A pack rule's fix is an edit of the compiled pack. When the characters it replaces
were written verbatim in a file of the project — a name of a PromptConfig's
``allowed_tools``, a workflow ``prompt_task`` or event, an ``agents`` member key, a
``{{placeholder}}`` of a one-line template — the same replacement in that file
changes the compiled pack the same way, so the fix is offered there, on the
diagnostic placed in that file. A fix whose target packc makes up or transforms (a
defaulted field, a block scalar joined into one string) and a fix that inserts into
the compiled pack (create a tool, add a member, declare a variable, raise
``$schema``, remove an entry) has no such place and is dropped; the message keeps
its did-you-mean. A fix of the configuration file is kept as it is: its edits are
edits of that file.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from pack_lsp.core.base.fixes import (
    AddMember,
    CreateTool,
    DeclareVariable,
    FixData,
    RaiseSchema,
    RemoveEntry,
    RenameConfigKey,
    RenameEvent,
    ReplaceValue,
    ReplaceWithSuggestion,
)
from pack_lsp.core.model.arena.compile import SourceMap


def carried(
    fixes: Iterable[FixData],
    compiled_text: str,
    smap: SourceMap,
    texts: dict[str, str],
    into: str,
) -> tuple[FixData, ...]:
    """The payloads of ``fixes`` rewritten as edits of file ``into`` (the file the
    diagnostic is placed in); those that cannot be are left out."""
    out: list[FixData] = []
    for fix in fixes:
        match fix:
            case ReplaceWithSuggestion() | ReplaceValue() | RenameEvent():
                where = smap.written(fix.target, compiled_text, texts)
                if where is not None and where.path == into:
                    out.append(replace(fix, target=where.span))
            case RenameConfigKey():
                out.append(fix)
            case CreateTool() | AddMember() | DeclareVariable() | RaiseSchema() | RemoveEntry():
                pass
    return tuple(out)
