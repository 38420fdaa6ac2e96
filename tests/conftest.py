from __future__ import annotations


# Test helper modules (paths, golden_support, ...) import by plain name.
