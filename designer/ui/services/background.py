"""Work on a plain Python thread whose outcome comes back on the UI thread.

One helper instead of a `threading.Thread` at each call site, so that every worker follows the
same rules: the worker never touches widgets and never collects garbage (the UI thread does that,
see `collector`), its outcome arrives through a queued signal, an owner deleted meanwhile gets
nothing, and a bug in the work is printed instead of leaving the caller waiting.

    background().start(owner, work, on_done, name="export")

`work()` runs on the worker and returns plain data; it should catch the errors it expects.
`on_done(result)` runs on the UI thread, unless `owner` (a QObject) was deleted meanwhile. An
unexpected exception in `work` is printed and `on_done` is not called.
"""

from __future__ import annotations

import sys
import threading
import traceback
from collections.abc import Callable
from typing import Any

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, Signal

_running = 0


def workers_running() -> int:
    """How many workers started through `background()` have not yet delivered."""
    return _running


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
        global _running
        _running += 1

        def run() -> None:
            try:
                result = work()
            except Exception:   # a bug in the work: say so; the caller is still told the worker ended
                traceback.print_exc(file=sys.stderr)
                result = _NoResult
            self._delivered.emit(owner, on_done, result)

        threading.Thread(target=run, name=name, daemon=True).start()

    def _deliver(self, owner: QObject, on_done: Callable[[Any], None], result: Any) -> None:
        global _running
        _running -= 1
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


class Latest:
    """Work for one owner where only the newest request counts: a request, or `drop()`, makes
    every earlier outcome stale, and a stale outcome is never delivered. `synchronous` runs the
    work at once on the calling thread (tests, screenshots)."""

    def __init__(self, owner: QObject, name: str, synchronous: bool = False):
        self.owner = owner
        self.name = name
        self.synchronous = synchronous
        self.generation = 0

    def drop(self) -> None:
        self.generation += 1

    def run(self, work: Callable[[], Any], on_done: Callable[[Any], None]) -> None:
        self.generation += 1
        mine = self.generation

        def deliver(result: Any) -> None:
            if mine == self.generation:
                on_done(result)
        if self.synchronous:
            deliver(work())
        else:
            background().start(self.owner, work, deliver, name=self.name)
