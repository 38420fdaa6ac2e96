"""Derived data read from several threads: computed once, under per-instance locks.

The server answers requests on its event loop from the structure of a version while
the analysis thread runs its rules (docs/decisions.md, D25, D37 and D43): what both
read is computed once, whole, and a computation on one document must never
hold up a reader of another (``functools.cached_property`` took one lock shared by
every instance on Python 3.11). Threads are synchronised with events, not sleeps.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from pack_lsp.core.checks.analysis import Analysis, analyze, structure_listener
from pack_lsp.core.model import context
from pack_lsp.core.model.context import Derived
from paths import ROOT

PACK = (ROOT / "examples" / "support.promptpack.yaml").read_text(encoding="utf-8")


def test_the_analysis_scans_the_templates_once_in_its_thread_after_the_hand_over(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    scans: list[str] = []
    scan = context.pack_templates

    def counted(*args: Any, **kwargs: Any) -> Any:
        scans.append(threading.current_thread().name)
        return scan(*args, **kwargs)

    monkeypatch.setattr(context, "pack_templates", counted)
    handed: list[tuple[Analysis, list[str]]] = []
    made: list[Analysis] = []

    def run() -> None:
        with structure_listener(lambda a: handed.append((a, list(scans)))):
            made.append(analyze(PACK, path="support.promptpack.yaml"))

    worker = threading.Thread(target=run, name="analysis")
    worker.start()
    worker.join()
    [(structure, scanned_before)] = handed
    assert scanned_before == []  # the structure does not wait for the scan
    assert scans == ["analysis"]  # the analysis scans, in its thread, once
    derived = made[0].derived
    assert structure.derived is derived
    templates = derived.templates
    assert templates is not None and templates.templates
    assert derived.template_scans() is not None
    assert templates.of_prompt(templates.templates[0].key)
    assert scans == ["analysis"]  # reading computes nothing more


def test_a_reader_before_the_scan_scans_once_and_the_analysis_reuses_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    analysis = analyze(PACK, path="support.promptpack.yaml")
    scans: list[str] = []
    scan = context.pack_templates

    def counted(*args: Any, **kwargs: Any) -> Any:
        scans.append(threading.current_thread().name)
        return scan(*args, **kwargs)

    monkeypatch.setattr(context, "pack_templates", counted)
    derived = Derived(analysis.pack, analysis.text, analysis.config)
    assert scans == []  # made without scanning
    read: list[object] = []
    readers = [
        threading.Thread(target=lambda: read.append(derived.templates), name=f"reader{i}")
        for i in range(4)
    ]
    for r in readers:
        r.start()
    for r in readers:
        r.join()
    assert len(scans) == 1  # one scan, whichever thread came first
    assert len(read) == 4 and all(t is read[0] for t in read)


def test_a_slow_memo_of_one_analysis_does_not_hold_up_another() -> None:
    first = analyze(PACK, path="a.promptpack.yaml").derived
    second = analyze(PACK, path="b.promptpack.yaml").derived
    started = threading.Event()
    release = threading.Event()
    built: list[object] = []

    def slow() -> object:
        started.set()
        assert release.wait(30), "never released"
        return "slow"

    worker = threading.Thread(target=lambda: built.append(first.memo("key", slow)))
    worker.start()
    try:
        assert started.wait(30)
        # ``first`` is still being built in the other thread: ``second`` answers at once.
        assert second.memo("key", lambda: "fast") == "fast"
        assert worker.is_alive() and not release.is_set()
    finally:
        release.set()
        worker.join()
    assert built == ["slow"]


def test_a_memo_is_built_once_when_two_threads_ask() -> None:
    derived = analyze(PACK, path="a.promptpack.yaml").derived
    started = threading.Event()
    release = threading.Event()
    calls: list[str] = []
    results: list[object] = []

    def build() -> object:
        calls.append(threading.current_thread().name)
        started.set()
        assert release.wait(30), "never released"
        return object()

    def ask() -> None:
        results.append(derived.memo("index", build))

    builder = threading.Thread(target=ask, name="builder")
    builder.start()
    assert started.wait(30)
    waiter = threading.Thread(target=ask, name="waiter")
    waiter.start()
    release.set()
    builder.join()
    waiter.join()
    assert calls == ["builder"]
    assert len(results) == 2 and results[0] is results[1]


def test_a_memo_may_ask_for_another_key_of_the_same_analysis() -> None:
    derived = analyze(PACK, path="a.promptpack.yaml").derived
    assert derived.memo("outer", lambda: derived.memo("inner", lambda: 1) + 1) == 2
