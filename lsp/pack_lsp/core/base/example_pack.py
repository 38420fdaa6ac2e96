"""The base pack the rules' examples are written on.

Every pack example starts with the same top — an id, a name, a version and the
template engine — and then shows only what its rule is about; ``pack_example(body)``
is that top followed by ``body``. docs/rules.md shows each example whole, as
``pack-lsp`` checks it (``core/checks/examples.py``).
"""

from __future__ import annotations

#: The top of every pack example.
BASE_PACK = (
    "id: support\n"
    "name: Support\n"
    "version: 1.0.0\n"
    'template_engine: {version: v1, syntax: "{{variable}}"}\n'
)


def pack_example(body: str) -> str:
    """A whole pack: ``BASE_PACK`` followed by ``body`` (the sections the example is about)."""
    return BASE_PACK + body
