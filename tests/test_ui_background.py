"""Workers started through the one Background helper, and garbage collected on the UI thread only."""

import gc
import re
import threading
from pathlib import Path

import shiboken6
from PySide6.QtCore import QObject

from designer.ui.services.background import background, workers_running
from designer.ui.services.collector import UiThreadCollector, install_collector

ROOT = Path(__file__).resolve().parent.parent


class _Cycle:
    """A reference cycle that records the thread that finally collects it."""

    def __init__(self, seen: list):
        self.me = self
        self.seen = seen

    def __del__(self):
        self.seen.append(threading.current_thread())


def test_outcome_arrives_on_the_ui_thread(qtbot):
    owner = QObject()
    seen = {}
    release = threading.Event()

    def work():
        seen["worker"] = threading.current_thread()
        release.wait(5)
        return 42

    got = []
    background().start(owner, work, lambda value: got.append((value, threading.current_thread())), name="t")
    assert workers_running() == 1
    release.set()
    qtbot.waitUntil(lambda: len(got) == 1, timeout=5000)
    assert got == [(42, threading.main_thread())]
    assert seen["worker"] is not threading.main_thread()
    assert workers_running() == 0


def test_a_bug_in_the_work_is_printed_and_the_worker_still_ends(qtbot, capfd):
    owner = QObject()
    got = []

    def work():
        raise ZeroDivisionError("boom")

    background().start(owner, work, got.append)
    qtbot.waitUntil(lambda: workers_running() == 0, timeout=5000)
    assert got == []
    assert "ZeroDivisionError: boom" in capfd.readouterr().err


def test_an_owner_deleted_meanwhile_gets_nothing(qtbot):
    owner = QObject()
    release = threading.Event()
    got = []
    background().start(owner, lambda: release.wait(5) and 1, got.append)
    shiboken6.delete(owner)
    release.set()
    qtbot.waitUntil(lambda: workers_running() == 0, timeout=5000)
    assert got == []


def test_garbage_made_by_a_worker_is_collected_on_the_ui_thread(qtbot, qapp):
    collector = install_collector(qapp)
    assert isinstance(collector, UiThreadCollector) and install_collector(qapp) is collector
    assert not gc.isenabled(), "automatic collection would run in whichever thread allocates"
    seen: list = []

    def work():
        for _ in range(5):
            _Cycle(seen)
        # Allocate, and keep, well past the young generation's threshold: no collection may
        # start here, and the UI thread's collector sees the count when the timer fires.
        return [[] for _ in range(gc.get_threshold()[0] * 5)]

    got = []
    background().start(QObject(qapp), work, got.append)
    qtbot.waitUntil(lambda: bool(got), timeout=5000)     # the worker is done; its cycles are garbage
    # Then drive the collector as its timer does, each time with a young generation past its
    # threshold. A collection that ran while the worker was inside a cycle's constructor found it
    # still reachable and moved it to the middle generation, which the collector (as Python's own)
    # collects after threshold[1] young collections; one that ran while a middle collection
    # was under way moved it on to the old generation, which the collector collects after
    # threshold[2] middle collections and FULL_EVERY_S of the clock. The run must depend on
    # neither race nor on the clock: the last full collection is made long past, and each
    # round's young objects are kept (freeing them would take them off the young count, which
    # then never passes its threshold again).
    collector._last_full = float("-inf")
    kept = []
    for _ in range((collector.threshold[1] + 2) * (collector.threshold[2] + 2) + 2):
        if len(seen) == 5:
            break
        kept.append([[] for _ in range(collector.threshold[0] + 1)])
        collector.check()
    del kept
    assert len(seen) == 5 and set(seen) == {threading.main_thread()}


def test_the_window_starts_no_thread_of_its_own():
    """Every Python worker of the window goes through Background."""
    offenders = [str(p.relative_to(ROOT)) for p in (ROOT / "designer" / "ui").rglob("*.py")
                 if p.name != "background.py" and re.search(r"threading\.Thread\(|\bThread\(", p.read_text())]
    assert offenders == []


def test_only_the_newest_request_is_delivered(qtbot):
    from designer.ui.services.background import Latest

    owner = QObject()
    latest = Latest(owner, "t")
    first, second = threading.Event(), threading.Event()
    got = []
    latest.run(lambda: first.wait(5) and "old", got.append)
    latest.run(lambda: second.wait(5) and "new", got.append)
    second.set()
    qtbot.waitUntil(lambda: got == ["new"], timeout=5000)
    first.set()
    qtbot.waitUntil(lambda: workers_running() == 0, timeout=5000)
    assert got == ["new"], "the older outcome arrived after the newer one and was dropped"
    latest.run(lambda: "x", got.append)
    latest.drop()
    qtbot.waitUntil(lambda: workers_running() == 0, timeout=5000)
    assert got == ["new"]
