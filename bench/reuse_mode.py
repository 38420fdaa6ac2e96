"""Benchmarks measure incremental analysis as users get it.

The test suite sets ``PACK_LSP_INCREMENTAL=verify`` (every reused result computed
again and compared), which would make every edit slower than a full analysis. A
benchmark started from such an environment (a shell or a test run) takes the
default instead, for itself and the servers it starts; ``off`` is kept, so that the
kill switch can still be measured.
"""

from __future__ import annotations

import os
import sys

ENV = "PACK_LSP_INCREMENTAL"


def not_verifying() -> None:
    """Drop ``PACK_LSP_INCREMENTAL=verify`` from this process's environment (which the
    servers a benchmark starts inherit), saying so on stderr."""
    if os.environ.get(ENV, "").strip().lower() == "verify":
        print(f"{ENV}=verify ignored: benchmarks measure the default", file=sys.stderr)
        del os.environ[ENV]
