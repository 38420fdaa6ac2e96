"""A2A Agent Cards derived from a pack's ``agents`` section, and the agent topology.

- :mod:`.settings`: the ``cards`` configuration (deployment fields), validated.
- :mod:`.derive`: one card per agent, in A2A 0.3.0 or 1.0 form, with the pack
  location of every derived value.
- :mod:`.problems`: card problems traced back to the pack (``validate``).
- :mod:`.extensions`: checks for the card extensions pack-lsp knows.
- :mod:`.topology`: who calls whom; Mermaid, Graphviz and JSON output.

Entry points for the CLI, the server and other language features:
:func:`cards_for` and :func:`card_markdown`.

The names below are loaded on first use (PEP 562): a pack without agents is checked
without loading the card modules, their A2A schemas or jsonschema.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pack_lsp.core.base.lazy import lazy_exports

if TYPE_CHECKING:
    from pack_lsp.core.model.cards.api import card_markdown, cards_for, describe, settings_for
    from pack_lsp.core.model.cards.derive import DISCOVERY_PATH, Card, CardSet
    from pack_lsp.core.model.cards.names import A2A_VERSIONS, LOCAL_URL
    from pack_lsp.core.model.cards.problems import CardProblem, validate
    from pack_lsp.core.model.cards.settings import CardsConfigError, CardsSettings, parse_settings

_EXPORTS = {
    "A2A_VERSIONS": "names",
    "DISCOVERY_PATH": "derive",
    "LOCAL_URL": "names",
    "Card": "derive",
    "CardProblem": "problems",
    "CardSet": "derive",
    "CardsConfigError": "settings",
    "CardsSettings": "settings",
    "card_markdown": "api",
    "cards_for": "api",
    "describe": "api",
    "parse_settings": "settings",
    "settings_for": "api",
    "validate": "problems",
}

__all__ = [
    "A2A_VERSIONS",
    "DISCOVERY_PATH",
    "LOCAL_URL",
    "Card",
    "CardProblem",
    "CardSet",
    "CardsConfigError",
    "CardsSettings",
    "card_markdown",
    "cards_for",
    "describe",
    "parse_settings",
    "settings_for",
    "validate",
]

__getattr__ = lazy_exports(__name__, _EXPORTS)
