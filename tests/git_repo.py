"""Run git in a test's repository, with an author of its own (the machine's git
configuration may have none)."""

from __future__ import annotations

import subprocess
from pathlib import Path


def git(repo: Path, *args: str) -> None:
    """``git ARGS`` in ``repo``; a failure raises with git's output captured."""
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )
