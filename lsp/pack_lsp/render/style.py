"""Whether the text output is for a person at a terminal, and in colour.

Colour follows the common conventions: ``FORCE_COLOR`` (set, not empty and not
``0``) turns it on, even in a pipe; otherwise ``NO_COLOR`` (set and not empty) turns
it off; otherwise a terminal gets colour unless ``TERM`` is ``dumb``. A pipe or a CI
log gets plain text.
"""

from __future__ import annotations

import os
from typing import TextIO


def on_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def colour_wanted(stream: TextIO) -> bool:
    force = os.environ.get("FORCE_COLOR", "")
    if force and force != "0":
        return True
    if os.environ.get("NO_COLOR", ""):
        return False
    return on_terminal(stream) and os.environ.get("TERM", "") != "dumb"
