"""Workers started through the one Background helper: collection is paused while they run and
resumed on the UI thread, outcomes arrive on the UI thread, and a bug in the work stops nothing."""

import gc
import re
import threading
from pathlib import Path

from PySide6.QtCore import QObject

from designer.ui.services.background import background, workers_running

ROOT = Path(__file__).resolve().parent.parent


def test_outcome_arrives_on_the_ui_thread_and_collection_resumes(qtbot):
    owner = QObject()
    seen = {}
    release = threading.Event()

    def work():
        seen["enabled_in_worker"] = gc.isenabled()
        seen["worker"] = threading.current_thread()
        release.wait(5)
        return 42

    got = []
    background().start(owner, work, got.append, name="t")
    assert not gc.isenabled() and workers_running() == 1
    release.set()
    qtbot.waitUntil(lambda: got == [42], timeout=5000)
    assert seen["enabled_in_worker"] is False
    assert seen["worker"] is not threading.main_thread()
    assert gc.isenabled() and workers_running() == 0


def test_two_workers_resume_collection_only_when_both_are_done(qtbot):
    owner = QObject()
    first, second = threading.Event(), threading.Event()
    got = []
    background().start(owner, lambda: first.wait(5) and "a", got.append)
    background().start(owner, lambda: second.wait(5) and "b", got.append)
    first.set()
    qtbot.waitUntil(lambda: got == ["a"], timeout=5000)
    assert not gc.isenabled(), "one worker is still painting"
    second.set()
    qtbot.waitUntil(lambda: got == ["a", "b"], timeout=5000)
    assert gc.isenabled()


def test_a_bug_in_the_work_is_printed_and_collection_still_resumes(qtbot, capfd):
    owner = QObject()
    got = []

    def work():
        raise ZeroDivisionError("boom")

    background().start(owner, work, got.append)
    qtbot.waitUntil(lambda: workers_running() == 0, timeout=5000)
    assert got == [] and gc.isenabled()
    assert "ZeroDivisionError: boom" in capfd.readouterr().err


def test_an_owner_deleted_meanwhile_gets_nothing(qtbot):
    import shiboken6

    owner = QObject()
    release = threading.Event()
    got = []
    background().start(owner, lambda: release.wait(5) and 1, got.append)
    shiboken6.delete(owner)
    release.set()
    qtbot.waitUntil(lambda: workers_running() == 0, timeout=5000)
    assert got == [] and gc.isenabled()


def test_the_window_starts_no_thread_of_its_own():
    """A bare thread would run collections off the UI thread; every worker goes through Background."""
    offenders = [str(p.relative_to(ROOT)) for p in (ROOT / "designer" / "ui").rglob("*.py")
                 if p.name != "background.py" and re.search(r"threading\.Thread\(|\bThread\(", p.read_text())]
    assert offenders == []
