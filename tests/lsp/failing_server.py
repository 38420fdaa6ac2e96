"""pack-lsp whose analysis raises for any text containing ``FAIL_MARKER``.

Started by ``test_scheduling.py`` to check that a failing analysis is logged and
the server keeps answering; everything else is the real server.
"""

from __future__ import annotations

from pack_lsp.core.checks.analysis import Analysis
from pack_lsp.core.model.config import Config
from pack_lsp.server import start
from pack_lsp.server.app import PackServer

FAIL_MARKER = "# analysis-fails-here"

_analyze = PackServer._analyze


def _failing(
    self: PackServer, uri: str, text: str, previous: Analysis | None, config: Config
) -> Analysis | None:
    if FAIL_MARKER in text:
        raise RuntimeError("the analysis broke")
    return _analyze(self, uri, text, previous, config)


if __name__ == "__main__":
    PackServer._analyze = _failing  # type: ignore[method-assign]
    start()
