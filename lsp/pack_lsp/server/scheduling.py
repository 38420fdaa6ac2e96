"""When documents are analysed: one analysis path per open document, off the event loop.

Every open document has a ``Track``: the newest finished analysis (and only that
one), a generation counter bumped by every change of its text or of what its
analysis depends on (settings, configuration files, other manifests), and one
driver task that brings the analysis up to date:

- the analysis runs in a worker thread (``ANALYSIS_THREADS`` shared by all
  documents), never on the event loop, so the server keeps reading messages while a
  large pack is analysed; one document is analysed by at most one thread at a time;
- the driver always analyses the newest text: versions that arrive while an analysis
  runs are coalesced, and superseded versions are never started;
- the wait before an analysis adapts to what the last one cost: none when it was
  cheap (under ``CHEAP_ANALYSIS``) or when the edit came alone (longer after the
  previous edit than that wait), else as long as that analysis took, at most the
  ``changeDelay`` setting, counted from the last change, so a burst of typing on a
  large pack costs one analysis instead of one per keystroke;
- a request (completion, hover, a diagnostics pull, ...) on a version that is not
  analysed yet makes the driver start at once, and awaits the result without
  blocking the event loop;
- requests that read only the document's structure (completion, hover, navigation:
  everything but diagnostics and code actions) are answered as soon as the new
  version's pack model is built and its templates scanned, before its schema
  validation and rules (``structure_listener`` of the core; what they read is
  complete by then, ``core.context.Derived``); the analysis waits in its thread
  until they are answered, so that the event loop does not compete with it for the
  GIL;
- a result that is already superseded when it finishes is neither published nor
  served for the newer version; it is kept as the base (``previous``) of the next
  analysis, which the core can update instead of starting over.

Every analysis goes through ``DocumentStore._analyze(uri, text, previous, config)``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from lsprotocol import types

from pack_lsp.core.base.text import LineIndex
from pack_lsp.core.checks.analysis import (
    RULES_REUSED,
    RULES_REUSED_PACK,
    Analysis,
    structure_listener,
)
from pack_lsp.core.model.config import Config
from pack_lsp.core.syntax.reuse import ReuseMismatch
from pack_lsp.server import collector
from pack_lsp.server.documents import DocumentStore
from pack_lsp.server.track import Track

log = logging.getLogger(__name__)

#: An analysis that took less than this (seconds) is repeated at once after an edit.
CHEAP_ANALYSIS = 0.05
#: Worker threads for analyses (all documents together).
ANALYSIS_THREADS = 2
#: Longest time (seconds) an analysis waits for the requests answered from its
#: structure (a guard: they are normally answered within milliseconds).
READERS_PAUSE = 1.0


@dataclass(slots=True, eq=False)
class StructureListener:
    """The structure listener of one analysis and how long it waited for requests."""

    listen: Callable[[Analysis], None]
    paused: float = 0.0


def timings_text(timings: Mapping[str, float]) -> str:
    """An analysis's ``timings`` for the log: each stage in milliseconds, and how many
    prompts and modules took their rule results from the previous version."""
    return ", ".join(
        f"{key} {int(value)}" if key in _COUNTS else f"{key} {value * 1000:.1f} ms"
        for key, value in timings.items()
    )


_COUNTS = frozenset({RULES_REUSED, RULES_REUSED_PACK})


def _nothing() -> None:
    """The end of a count that was never started."""


class AnalysisFailed(RuntimeError):
    """The analysis of the requested version raised (already logged once)."""


class AnalysisScheduler(DocumentStore):
    """The analysis of open documents: one driver task per document (module docstring)."""

    tracks: dict[str, Track]
    change_delay: float
    _executor: ThreadPoolExecutor | None = None
    #: Pause and freeze the collector around analyses (``collector``).
    freeze_gc: bool = True

    # ------------------------------------------------------------------ triggers

    def track_document(self, uri: str) -> None:
        """Start following an opened document: analysed at once, then after each change."""
        old = self.tracks.pop(uri, None)
        if old is not None:
            self._stop(old)
        track = Track()
        self.tracks[uri] = track
        track.urgent = True
        track.changed_at = asyncio.get_running_loop().time()
        track.driver = asyncio.get_running_loop().create_task(self._drive(uri, track))

    def document_changed(self, uri: str, *, reuse: bool = True, at_once: bool = False) -> None:
        """A new generation of ``uri``: its text changed, or (``reuse=False``) what its
        analysis depends on; ``at_once`` skips the wait (nothing is being typed)."""
        track = self.tracks.get(uri)
        if track is None:
            return
        track.generation += 1
        if not reuse:
            track.base_from = track.generation
        now = asyncio.get_running_loop().time()
        # Only edits that come faster than the wait are coalesced; an edit on its own
        # is analysed at once (its result is what the user is waiting for).
        track.burst = now - track.changed_at < self.analysis_delay(track, burst=True)
        track.changed_at = now
        track.urgent = track.urgent or at_once
        track.wake.set()

    def untrack_document(self, uri: str) -> None:
        track = self.tracks.pop(uri, None)
        if track is not None:
            self._stop(track)

    def _stop(self, track: Track) -> None:
        track.closed = True
        track.analysis = track.structure = None
        if track.resume is not None:
            track.resume[1].set()
            track.resume = None
        if track.driver is not None:
            track.driver.cancel()
        track.notify()

    def analysis_delay(self, track: Track, *, burst: bool | None = None) -> float:
        """Seconds to wait after the last change before analysing (module docstring).

        ``burst`` overrides whether the last change was part of a burst of edits.
        """
        in_burst = track.burst if burst is None else burst
        if track.cost < CHEAP_ANALYSIS or not in_burst:
            return 0.0
        return min(self.change_delay, track.cost)

    def known_lines(self, uri: str, text: str) -> LineIndex | None:
        track = self.tracks.get(uri)
        if track is None:
            return None
        for analysis in (track.structure, track.analysis):
            if analysis is not None and analysis.text is text:
                return analysis.lines
        return None

    # ------------------------------------------------------------------ requests

    async def current_analysis(
        self, uri: str, *, diagnostics: bool = True
    ) -> tuple[Analysis | None, int | None]:
        """The analysis of the document's current text and its version, awaited.

        An open document's analysis is started at once if it is not there yet; an
        unopened file is read and analysed in the worker and not kept. Raises
        ``AnalysisFailed`` when the analysis of that text raised. With
        ``diagnostics=False`` the structure of the current text is enough: an
        ``Analysis`` whose ``diagnostics`` may be empty because its schema
        validation and rules still run (see ``structure_listener``); callers then
        release it with ``structure_read``.
        """
        track = self.tracks.get(uri)
        if track is None:
            return await asyncio.get_running_loop().run_in_executor(
                self.analysis_executor(), self._analyze_unopened, uri, self.config_for(uri)
            )
        wanted = track.generation
        while not track.closed:
            if track.analysis_generation >= wanted:
                return track.analysis, track.version
            if not diagnostics and track.structure_generation >= wanted:
                return track.structure, track.structure_version
            if track.analysed >= wanted:  # the attempts since then failed
                raise AnalysisFailed(f"{type(track.error).__name__}: {track.error}")
            track.urgent = True
            track.wake.set()
            await track.finished.wait()
        return None, None

    def structure_reader(self, uri: str) -> Callable[[], None]:
        """Count a request that will read the structure of ``uri``'s current text.

        While it is counted, an analysis of that text waits in its thread after
        handing over its structure, so that the request is answered without
        competing with it for the GIL. The returned function ends the count; call
        it once the request is answered (in a ``finally``).
        """
        track = self.tracks.get(uri)
        if track is None:
            return _nothing
        wanted = track.generation
        track.readers[wanted] = track.readers.get(wanted, 0) + 1

        def done() -> None:
            left = track.readers.pop(wanted, 1) - 1
            if left > 0:
                track.readers[wanted] = left
            elif track.resume is not None and track.resume[0] == wanted:
                resume = track.resume[1]
                track.resume = None
                # Let the response be written first: it is sent by a callback of
                # the request's task, scheduled when the task ends, after this one.
                loop = asyncio.get_running_loop()
                loop.call_soon(loop.call_soon, resume.set)

        return done

    def _analyze_unopened(self, uri: str, config: Config) -> tuple[Analysis | None, int | None]:
        doc = self.document(uri)
        if doc is None:
            return None, None
        return self._analyze(uri, doc.text, None, config), None

    # ------------------------------------------------------------------ the driver

    def analysis_executor(self) -> ThreadPoolExecutor:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(ANALYSIS_THREADS, "pack-lsp-analysis")
        return self._executor

    async def _drive(self, uri: str, track: Track) -> None:
        """Keep ``track`` analysed until the document is closed."""
        loop = asyncio.get_running_loop()
        while not track.closed:
            if track.analysed >= track.generation:
                track.urgent = False
                track.wake.clear()
                await track.wake.wait()
                continue
            if not track.urgent:
                wait = track.changed_at + self.analysis_delay(track) - loop.time()
                if wait > 0:  # a change or a request ends the wait early; then re-check
                    track.wake.clear()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(track.wake.wait(), wait)
                    continue
            track.urgent = False
            generation = track.generation
            try:
                await self._run_once(uri, track)
            except Exception as exc:  # never leave a request waiting for a dead driver
                self._failed(uri, track, generation, exc)

    async def _run_once(self, uri: str, track: Track) -> None:
        doc = self.documents.get(uri)
        workspace = self.workspace_index
        if (
            doc is not None
            and workspace.scanning
            and workspace.depends_on_scan(self.kind_of(uri, doc.text))
        ):
            # A manifest or an arena document: its analysis reads what the workspace
            # scan finds; it waits here, not in a worker thread that a pack opened
            # meanwhile would wait for.
            await workspace.wait_scanned()
            if track.closed:
                return
            doc = self.documents.get(uri)
        if doc is None:
            track.closed = True
            track.notify()
            return
        generation, version, text = track.generation, doc.version, doc.text
        previous = track.analysis if track.analysis_generation >= track.base_from else None
        config = self.config_for(uri)
        loop = asyncio.get_running_loop()
        listener = self._structure_listener(loop, track, generation, version)
        result, cost = await loop.run_in_executor(
            self.analysis_executor(), self._timed_analyze, uri, text, previous, config, listener
        )
        if track.closed:
            return
        del previous
        replaced = track.analysis
        track.analysis, track.analysis_generation, track.version = result, generation, version
        track.analysed, track.error, track.cost = generation, None, cost
        if track.structure_generation <= generation:
            track.structure = None
        track.notify()
        if generation == track.generation:
            self.publish_result(uri, version, result)
        # Freeing the replaced analysis takes ~8 ms at 70k lines: not on the event
        # loop; then the freed memory goes back to the system (``memory``).
        self.analysis_executor().submit(collector.release, [replaced])
        del replaced
        # After the waiting requests (woken above, scheduled before this) are answered.
        asyncio.get_running_loop().call_soon(self._stored)

    def _failed(self, uri: str, track: Track, generation: int, exc: Exception) -> None:
        """The analysis of ``generation`` raised: log it, answer its requests empty."""
        log.exception("analysis failed for %s", uri)
        self.log_message(
            f"pack-lsp: analysis failed for {uri}: {type(exc).__name__}: {exc}",
            types.MessageType.Error,
        )
        if isinstance(exc, ReuseMismatch):  # PACK_LSP_INCREMENTAL=verify found a stale reuse
            self.show_once(
                f"pack-lsp: incremental analysis reused a stale result ({uri}); the details "
                f"are in the output log. Please report it.",
                types.MessageType.Error,
            )
        if track.analysed < generation:
            track.error, track.analysed = exc, generation
        track.notify()

    def _structure_listener(
        self, loop: asyncio.AbstractEventLoop, track: Track, generation: int, version: int | None
    ) -> StructureListener:
        """What the analysis thread does with the structure of ``generation``.

        It hands the structure to the event loop; when requests already wait for it,
        it then waits (at most ``READERS_PAUSE``) until they are answered: the
        schema validation and rules that follow would otherwise hold the GIL the
        event loop needs to answer them, in slices of the interpreter's switch
        interval (5 ms).
        """

        def listen(structure: Analysis) -> None:
            if not track.readers.get(generation):
                loop.call_soon_threadsafe(self._structured, track, generation, version, structure)
                return
            resume = threading.Event()
            loop.call_soon_threadsafe(
                self._structured, track, generation, version, structure, resume
            )
            start = time.perf_counter()
            resume.wait(READERS_PAUSE)
            listener.paused += time.perf_counter() - start

        listener = StructureListener(listen)
        return listener

    def _structured(
        self,
        track: Track,
        generation: int,
        version: int | None,
        structure: Analysis,
        resume: threading.Event | None = None,
    ) -> None:
        """On the event loop: the structure of ``generation`` is known."""
        if (
            not track.closed
            and generation > track.analysis_generation
            and generation > track.structure_generation
        ):
            track.structure, track.structure_generation = structure, generation
            track.structure_version = version
            track.notify()
        if resume is not None:
            if track.readers.get(generation) and not track.closed:
                track.resume = (generation, resume)  # released by the last reader
            else:
                resume.set()

    def _timed_analyze(
        self,
        uri: str,
        text: str,
        previous: Analysis | None,
        config: Config,
        listener: StructureListener | None = None,
    ) -> tuple[Analysis | None, float]:
        """Analyse; the cost is the thread's time without the wait for requests."""
        start = time.perf_counter()
        with collector.paused(self.freeze_gc), contextlib.ExitStack() as stack:
            if listener is not None:
                stack.enter_context(structure_listener(listener.listen))
            result = self._analyze(uri, text, previous, config)
        paused = listener.paused if listener is not None else 0.0
        cost = time.perf_counter() - start - paused
        if result is not None and log.isEnabledFor(logging.DEBUG):
            log.debug("analysed %s in %.1f ms: %s", uri, cost * 1000, timings_text(result.timings))
        return result, cost

    def _stored(self) -> None:
        """After a new analysis replaced the older one of its document: the
        collector's periodic full collection (``collector.stored``)."""
        if self.freeze_gc:
            collector.stored()

    def publish_result(self, uri: str, version: int | None, result: Analysis | None) -> None:
        """Deliver the result of the current version (push clients; see diagnostics)."""
