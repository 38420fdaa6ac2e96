"""``render.jsontext.dumps`` writes what ``json.dumps(indent=2, ensure_ascii=False)`` writes."""

from __future__ import annotations

import enum
import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pack_lsp.cli.check import check_file
from pack_lsp.core.model.config import Config
from pack_lsp.render import json_format, sarif_format
from pack_lsp.render.jsontext import dumps

ROOT = Path(__file__).resolve().parents[1]


class Level(enum.IntEnum):
    LOW = 1


_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text()
    | st.just(Level.LOW)
)
_values = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(), inner, max_size=4)
        | st.dictionaries(st.integers() | st.booleans() | st.none(), inner, max_size=3)
    ),
    max_leaves=30,
)


@settings(max_examples=500, deadline=None, derandomize=True)
@given(_values)
def test_same_text_as_json_dumps(value: Any) -> None:
    assert dumps(value) == json.dumps(value, indent=2, ensure_ascii=False)


def test_same_text_for_check_results() -> None:
    paths = sorted((ROOT / "examples").rglob("*.yaml")) + sorted(
        (ROOT / "tests" / "golden").rglob("*.yaml")
    )
    results = [check_file(path, True, Config()) for path in paths]
    assert sum(len(r.diagnostics) for r in results) > 50  # messages, ranges, related
    for module in (json_format, sarif_format):
        document = module.document(results)
        assert dumps(document) == json.dumps(document, indent=2, ensure_ascii=False)
