from __future__ import annotations

import sys
from pathlib import Path

# Test helper modules (paths, golden_support, ...) import by plain name.
sys.path.insert(0, str(Path(__file__).resolve().parent))
