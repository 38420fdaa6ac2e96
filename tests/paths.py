"""Paths the tests share (import as ``from paths import ROOT, SHARED``).

``SHARED`` is the reference material next to the checkout (specs, official
schemas, a corpus of packs). A clone without it still passes the suite: tests that
compare against it skip. ``PACK_LSP_SHARED=/some/dir`` points elsewhere, e.g.
``PACK_LSP_SHARED=/nonexistent bash scripts/test.sh`` runs the suite as a user's
clone would.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SHARED = Path(os.environ.get("PACK_LSP_SHARED") or ROOT.parent / "shared")
#: Why a test that needs ``SHARED`` skipped.
NO_SHARED = f"needs the reference material in {SHARED} (absent; set PACK_LSP_SHARED)"

#: Decorator for tests that compare against the reference material.
needs_shared = pytest.mark.skipif(not SHARED.is_dir(), reason=NO_SHARED)
