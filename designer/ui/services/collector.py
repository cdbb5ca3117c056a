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

from PySide6.QtCore import QCoreApplication, QObject, QTimer

INTERVAL_MS = 1000   # often enough that cycles never pile up; a young collection costs microseconds


class UiThreadCollector(QObject):
    def __init__(self, parent: QObject):
        super().__init__(parent)
        self.threshold = gc.get_threshold()
        self.timer = QTimer(self)
        self.timer.setObjectName("garbageCollector")
        self.timer.timeout.connect(self.check)
        gc.disable()
        self.timer.start(INTERVAL_MS)

    def check(self) -> None:
        """Collect the generations whose allocation counts passed Python's thresholds."""
        young, middle, old = gc.get_count()
        if young > self.threshold[0]:
            gc.collect(0)
            if middle > self.threshold[1]:
                gc.collect(1)
                if old > self.threshold[2]:
                    gc.collect(2)


def install_collector(app: QCoreApplication | None = None) -> UiThreadCollector:
    """Turn automatic collection off and collect on the UI thread (once per application)."""
    app = app or QCoreApplication.instance()
    existing = app.findChild(UiThreadCollector)
    if existing is not None:
        gc.disable()
        return existing
    return UiThreadCollector(app)
