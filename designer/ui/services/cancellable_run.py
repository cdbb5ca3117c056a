"""A run of real programs (the InfiniBand stack) behind a progress dialog: the work goes on a
worker thread (background.py) and says which step it is on; the dialog's Cancel sets the run's
cancel event, which the twin's process helper obeys by stopping every program it started and
removing the run's folder. Tools > Run on the InfiniBand Stack… and Compare's static routing from
OpenSM both run this way.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QProgressDialog, QWidget

from designer.ui.message_box import dismiss_progress
from designer.ui.services.background import background

Work = Callable[[threading.Event, Callable[[str], None]], Any]


class CancellableRun(QObject):
    """One run at a time. `start(work, done)`: `work(cancel, progress)` runs on the worker and
    returns plain data; `done(result, cancelled)` runs on the UI thread."""

    progressed = Signal(str)          # emitted by the worker, delivered on the UI thread

    def __init__(self, parent: QObject, title: str, object_name: str) -> None:
        super().__init__(parent)
        self.title = title
        self.object_name = object_name
        self.cancel_event: threading.Event | None = None
        self.progress: QProgressDialog | None = None
        self.progressed.connect(self._progressed)

    @property
    def running(self) -> bool:
        return self.cancel_event is not None

    def start(self, work: Work, done: Callable[[Any, bool], None], owner: QWidget | None = None,
              synchronous: bool = False) -> bool:
        """False (nothing started) when a run is already under way."""
        if self.running:
            return False
        cancel = threading.Event()
        self.cancel_event = cancel
        emit = self.progressed.emit

        def finish(result: Any) -> None:
            cancelled = self.cancel_event is None or self.cancel_event.is_set()
            self.cancel_event = None
            self._close_progress()
            done(result, cancelled)

        self._show_progress(owner)
        if synchronous:
            finish(work(cancel, emit))
        else:
            background().start(self, lambda: work(cancel, emit), finish, name=self.object_name)
        return True

    def cancel(self) -> None:
        """Stop the run under way: its processes stop and its folder goes."""
        if self.cancel_event is not None:
            self.cancel_event.set()
        self._close_progress()

    def _show_progress(self, owner: QWidget | None) -> None:
        progress = QProgressDialog("Starting…", "Cancel", 0, 0, owner)
        progress.setObjectName(self.object_name)
        progress.setWindowTitle(self.title)
        progress.setWindowModality(Qt.WindowModality.NonModal)
        progress.setAutoClose(False)
        progress.setAutoReset(False)
        progress.setMinimumDuration(0)
        progress.canceled.connect(self.cancel)
        progress.show()
        self.progress = progress

    def _progressed(self, message: str) -> None:
        if self.progress is not None:
            self.progress.setLabelText(message[:1].upper() + message[1:] + "…")

    def _close_progress(self) -> None:
        if self.progress is not None:
            progress, self.progress = self.progress, None
            dismiss_progress(progress, self.cancel)
