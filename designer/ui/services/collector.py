"""Cyclic garbage collection on the UI thread only.

Python starts a cyclic collection in whichever thread happens to allocate. In a Qt program
that can be a worker: it then destroys widgets and other Qt objects that belong to the UI
thread, and Qt crashes. So the window turns automatic collection off and collects on a timer
in the UI thread instead, with Python's own generation thresholds (the same approach as
pyqtgraph's GarbageCollector). Reference counting still frees everything that is not in a cycle
at once, in whichever thread drops it.
"""

from __future__ import annotations

import gc
import time

from PySide6.QtCore import QCoreApplication, QObject, Qt, QTimer
from PySide6.QtGui import QGuiApplication

INTERVAL_MS = 1000   # often enough that cycles never pile up; a young collection costs microseconds
FULL_EVERY_S = 30.0  # a full collection walks every object (tens of ms on a large design): rarely


class UiThreadCollector(QObject):
    def __init__(self, parent: QObject):
        super().__init__(parent)
        self.threshold = gc.get_threshold()
        self._last_full = time.monotonic()
        self.timer = QTimer(self)
        self.timer.setObjectName("garbageCollector")
        self.timer.timeout.connect(self.check)
        gc.disable()
        self.timer.start(INTERVAL_MS)

    def check(self) -> None:
        """Collect the generations whose allocation counts passed Python's thresholds.

        Python itself runs a full collection only when the long-lived objects have grown by a
        quarter, a count it keeps to itself; here a full collection waits at least FULL_EVERY_S
        and never runs while a mouse button is held (a drag in progress), so it cannot stall one.
        """
        young, middle, old = gc.get_count()
        if young > self.threshold[0]:
            gc.collect(0)
            if middle > self.threshold[1]:
                gc.collect(1)
                now = time.monotonic()
                if (old > self.threshold[2] and now - self._last_full >= FULL_EVERY_S
                        and QGuiApplication.mouseButtons() == Qt.MouseButton.NoButton):
                    gc.collect(2)
                    self._last_full = now


def install_collector(app: QCoreApplication | None = None) -> UiThreadCollector:
    """Turn automatic collection off and collect on the UI thread (once per application)."""
    app = app or QCoreApplication.instance()
    assert app is not None, "install_collector needs a Qt application"
    existing = app.findChild(UiThreadCollector)
    if existing is not None:
        gc.disable()
        return existing
    return UiThreadCollector(app)
