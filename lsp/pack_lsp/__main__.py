"""``python -m pack_lsp`` is the ``pack-lsp`` command."""

import sys

from pack_lsp.cli import main

sys.exit(main())
