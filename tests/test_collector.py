"""The server's collection policy (``server/collector.py``): what the start-up left
frozen as cyclic garbage is collected once the first analysis is stored."""

from __future__ import annotations

import gc
import weakref

import pytest

from pack_lsp.server import collector


class _Node:
    def __init__(self) -> None:
        self.me = self  # a reference cycle: only the cyclic collector frees it


def test_the_first_stored_analysis_frees_the_start_ups_frozen_garbage(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(collector, "_stores", 0)
    was_enabled = gc.isenabled()
    gc.disable()  # as ``pack-lsp`` starts the server
    try:
        garbage = _Node()
        alive = weakref.ref(garbage)
        del garbage
        gc.freeze()  # as ``server.start`` does
        gc.enable()
        gc.collect()
        assert alive() is not None  # frozen: out of the collector's reach
        collector.stored()
        assert alive() is None
        collector.stored()  # later ones leave the frozen objects alone
        assert collector._stores == 2
    finally:
        gc.unfreeze()
        if not was_enabled:
            gc.disable()
