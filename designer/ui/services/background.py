"""Work on a plain Python thread whose outcome comes back on the UI thread.

Why one helper instead of a `threading.Thread` at each call site: a cyclic garbage collection
runs in whichever thread happens to allocate. Started from a worker, it can destroy widgets and
other Qt objects that belong to the UI thread, which crashes Qt; started from the UI thread while
a worker paints, it can collect the worker's Qt objects. So automatic collection is paused from
the moment a worker starts until its outcome has reached the UI thread, and it is paused and
resumed only on the UI thread. The worker never collects.

    background().start(owner, work, on_done, name="export")

`work()` runs on the worker and returns plain data; it should catch the errors it expects.
`on_done(result)` runs on the UI thread, unless `owner` (a QObject) was deleted meanwhile. An
unexpected exception in `work` is printed and `on_done` is not called.
"""

from __future__ import annotations

import gc
import sys
import threading
import traceback
from typing import Any, Callable

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, Signal

_pauses = 0


def pause_collection() -> None:
    """Stop automatic cyclic collection (UI thread only); pairs with `resume_collection`."""
    global _pauses
    _pauses += 1
    gc.disable()


def resume_collection() -> None:
    """Undo one `pause_collection`; the last one collects what the workers left (UI thread)."""
    global _pauses
    _pauses = max(0, _pauses - 1)
    if _pauses == 0:
        gc.enable()
        gc.collect()


def workers_running() -> int:
    """How many workers started through `background()` have not yet delivered."""
    return _pauses


class _NoResult:
    """The work raised: nothing to deliver."""


class Background(QObject):
    """Starts workers and delivers their outcomes through a queued signal."""

    _delivered = Signal(object, object, object)   # (owner, on_done, result)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._delivered.connect(self._deliver)

    def start(self, owner: QObject, work: Callable[[], Any], on_done: Callable[[Any], None],
              name: str = "worker") -> None:
        pause_collection()

        def run() -> None:
            try:
                result = work()
            except Exception:   # a bug in the work: say so, and still resume collection
                traceback.print_exc(file=sys.stderr)
                result = _NoResult
            self._delivered.emit(owner, on_done, result)

        threading.Thread(target=run, name=name, daemon=True).start()

    def _deliver(self, owner: QObject, on_done: Callable[[Any], None], result: Any) -> None:
        resume_collection()
        if result is _NoResult or not shiboken6.isValid(owner):
            return
        on_done(result)


_instance: Background | None = None


def background() -> Background:
    """The one Background of the application (made on first use, on the UI thread)."""
    global _instance
    if _instance is None or not shiboken6.isValid(_instance):
        _instance = Background(QCoreApplication.instance())
    return _instance
