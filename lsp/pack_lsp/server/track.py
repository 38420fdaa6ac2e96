"""The analysis state of one open document (``Track``), driven by ``scheduling``."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field

from pack_lsp.core.checks.analysis import Analysis


@dataclass(slots=True, eq=False)
class Track:
    """The analysis state of one open document (see ``scheduling``'s docstring).

    Only the event loop changes it, except ``readers``, which the analysis thread
    reads.
    """

    #: Bumped by every change of the text or of what the analysis depends on.
    generation: int = 0
    #: The newest finished analysis (None: not a PromptPack, or none yet).
    analysis: Analysis | None = None
    #: The generation and document version ``analysis`` was made from.
    analysis_generation: int = -1
    version: int | None = None
    #: Generation of the last finished attempt, successful or not (-1: none yet).
    analysed: int = -1
    #: Why the last attempt failed (None when it succeeded).
    error: BaseException | None = None
    #: First generation after a change of settings or of other files: an older
    #: analysis is not a valid base (``previous``) for the next one.
    base_from: int = 0
    #: Seconds the last analysis took in its thread.
    cost: float = 0.0
    #: Event-loop time of the last change (the wait is counted from it).
    changed_at: float = 0.0
    #: The last change came within the wait after the one before it (a burst).
    burst: bool = False
    #: A request waits for the current generation: no wait before the analysis.
    urgent: bool = False
    #: The structure (no diagnostics) of a generation newer than ``analysis``, whose
    #: schema validation and rules still run; requests that need no diagnostics
    #: are answered from it.
    structure: Analysis | None = None
    structure_generation: int = -1
    structure_version: int | None = None
    #: Requests waiting for the structure of a generation: generation → count
    #: (read by the analysis thread to decide whether to wait for them).
    readers: dict[int, int] = field(default_factory=dict)
    #: The generation and event of an analysis thread that waits until the
    #: requests for that generation's structure are answered.
    resume: tuple[int, threading.Event] | None = None
    closed: bool = False
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    finished: asyncio.Event = field(default_factory=asyncio.Event)
    driver: asyncio.Task[None] | None = None

    def notify(self) -> None:
        """Wake everything waiting for a result (a finished attempt or the close)."""
        done, self.finished = self.finished, asyncio.Event()
        done.set()
