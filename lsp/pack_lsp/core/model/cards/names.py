"""Constants of the card modules that the command line needs before any of them."""

from __future__ import annotations

#: The A2A versions cards can be derived in.
A2A_VERSIONS: tuple[str, ...] = ("0.3.0", "1.0")
#: The card address when none is configured (``{agent}``: the member key).
LOCAL_URL = "http://localhost:8080/{agent}"
