"""Finding where a configuration key is written, to rename it (``core/base/tomlkeys``)."""

from __future__ import annotations

from pack_lsp.core.base.tomlkeys import bare_or_quoted, rename_key
from pack_lsp.core.ide.rename import Edit, apply_edits

PATH = ("cards", "agents", "researchr")


def renamed(text: str, path: tuple[str, ...] = PATH, new: str = "researcher") -> str | None:
    spans = rename_key(text, path, new)
    if not spans:
        return None
    return apply_edits(text, [Edit(s, bare_or_quoted(new)) for s in spans])


def test_headers_and_sub_tables_are_renamed_together() -> None:
    text = (
        "# researchr is a typo\n[cards.agents.researchr]\nurl = 'x'\n\n"
        "[[cards.agents.researchr.extensions]]\nuri = 'u'\n"
    )
    assert renamed(text) == text.replace(".researchr", ".researcher")


def test_quoted_and_dotted_keys() -> None:
    assert renamed('[cards.agents."researchr"]\nurl = "x"\n') == (
        '[cards.agents.researcher]\nurl = "x"\n'
    )
    assert renamed('[cards.agents]\nresearchr.url = "x"\n') == (
        '[cards.agents]\nresearcher.url = "x"\n'
    )
    assert renamed('[cards]\nagents.researchr.url = "x"\n') == (
        '[cards]\nagents.researcher.url = "x"\n'
    )


def test_pyproject_prefix_and_names_that_need_quotes() -> None:
    text = '[tool.pack-lsp.cards.agents.researchr]\nurl = "x"\n'
    assert renamed(text, ("tool", "pack-lsp", *PATH), "re search") == (
        '[tool.pack-lsp.cards.agents."re search"]\nurl = "x"\n'
    )


def test_no_edit_rather_than_a_guess() -> None:
    # Inside an inline table: not followed.
    assert renamed('[cards]\nagents = { researchr = { url = "x" } }\n') is None
    # The new name is taken: the two tables would merge.
    assert renamed('[cards.agents.researchr]\nurl = "x"\n[cards.agents.researcher]\n') is None
    # Not valid TOML, or no such key.
    assert renamed("[cards.agents.researchr\n") is None
    assert renamed('[cards.agents.writer]\nurl = "x"\n') is None
    # The name in a string value or a multi-line string is not a key.
    text = '[cards.agents.researchr]\nnote = """\n[cards.agents.researchr]\n"""\n'
    assert renamed(text) == text.replace(
        "[cards.agents.researchr]\nnote", "[cards.agents.researcher]\nnote"
    )
