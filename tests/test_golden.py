"""Every golden case produces exactly its expected diagnostics."""

from __future__ import annotations

from pathlib import Path

import pytest

from golden_support import UPDATE, case_id, cases, render, run_case


@pytest.mark.parametrize("path", cases(), ids=case_id)
def test_golden_case(path: Path) -> None:
    expected_file = path.with_suffix(".expected")
    actual = render(run_case(path))
    if UPDATE:
        expected_file.write_text(actual, encoding="utf-8")
    assert expected_file.is_file(), f"missing {expected_file.name}; regenerate (see golden_support)"
    assert actual == expected_file.read_text(encoding="utf-8")


def test_every_code_has_a_golden_case() -> None:
    from pack_lsp.core.registry import REGISTRY

    covered: set[str] = set()
    for path in cases():
        expected = path.with_suffix(".expected")
        if expected.is_file():
            for line in expected.read_text(encoding="utf-8").splitlines():
                covered.add(line.split()[2])
    # PP000 (internal error) cannot be triggered on purpose; PP199 only fires for
    # schema keywords the PromptPack schema does not use (see test_schema_diagnostics).
    missing = sorted(set(REGISTRY) - covered - {"PP000", "PP199"})
    assert not missing, f"codes without a golden case: {missing}"
