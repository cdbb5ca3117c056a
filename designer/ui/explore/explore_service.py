"""Design-space sweeps run away from the UI thread, with progress and cancel.

A worker thread runs `run_sweep`, which spreads the points over a process pool; the thread
itself mostly waits. Progress arrives as queued signals. Cancel stops at the next chunk and
returns the points done so far. `synchronous=True` runs inside `start` (tests, screenshots).
"""

from __future__ import annotations

import logging
import threading
import weakref

import shiboken6
from PySide6.QtCore import QObject, QThread, Signal, Slot

from designer.model.decisions.design_space import SweepResult, SweepSpec, run_sweep

log = logging.getLogger(__name__)

_LIVE: weakref.WeakSet[SweepService] = weakref.WeakSet()


class _Worker(QObject):
    progress = Signal(int, int, int)     # generation, done, total
    done = Signal(int, object, str)      # generation, SweepResult or None, error

    def __init__(self, cancel: threading.Event, workers: int | None):
        super().__init__()
        self.cancel = cancel
        self.workers = workers

    @Slot(int, object)
    def run(self, generation: int, spec: SweepSpec) -> None:
        try:
            result = run_sweep(spec, workers=self.workers, cancelled=self.cancel.is_set,
                               progress=lambda d, t: self.progress.emit(generation, d, t))
        except Exception as exc:  # noqa: BLE001 - the window must always get an answer
            log.exception("sweep failed")
            self.done.emit(generation, None, f"the sweep failed unexpectedly ({exc})")
            return
        self.done.emit(generation, result, "")


class SweepService(QObject):
    """Runs one sweep at a time on a worker thread; a new start cancels the running one."""

    progressChanged = Signal(int, int)
    """(points done, total) of the running sweep."""

    finished = Signal(object, bool)
    """(SweepResult, cancelled) of the newest sweep; a superseded sweep's result is dropped."""

    failed = Signal(str)

    _submit = Signal(int, object)

    def __init__(self, synchronous: bool = False, workers: int | None = None, parent=None):
        super().__init__(parent)
        self.synchronous = synchronous
        self.workers = 1 if synchronous else workers
        self._generation = 0
        self._cancel = threading.Event()
        self._thread: QThread | None = None
        self._worker: _Worker | None = None
        self._retired: list[QThread] = []   # threads of cancelled sweeps, finishing their chunk
        self.running = False
        _LIVE.add(self)

    def start(self, spec: SweepSpec) -> None:
        self._generation += 1
        self._cancel.set()                      # a running sweep stops at its next chunk
        self._cancel = threading.Event()
        self.running = True
        if self.synchronous:
            result = run_sweep(spec, workers=1, progress=lambda d, t: self.progressChanged.emit(d, t))
            self.running = False
            self.finished.emit(result, False)
            return
        # One worker per sweep: a cancelled one may still be finishing its chunk.
        self._stop_thread(wait=False)
        self._thread = QThread()
        self._thread.setObjectName("fabric-designer-sweep")
        self._worker = _Worker(self._cancel, self.workers)
        self._worker.moveToThread(self._thread)
        self._submit.connect(self._worker.run)
        self._worker.progress.connect(self._on_progress)
        self._worker.done.connect(self._on_done)
        self._thread.start()
        self._submit.emit(self._generation, spec)
        self._submit.disconnect(self._worker.run)

    def cancel(self) -> None:
        self._cancel.set()

    @property
    def cancelling(self) -> bool:
        return self._cancel.is_set()

    @Slot(int, int, int)
    def _on_progress(self, generation: int, done: int, total: int) -> None:
        if generation == self._generation:
            self.progressChanged.emit(done, total)

    @Slot(int, object, str)
    def _on_done(self, generation: int, result: SweepResult | None, error: str) -> None:
        if generation != self._generation:
            return
        self.running = False
        if result is None:
            self.failed.emit(error)
        else:
            self.finished.emit(result, self._cancel.is_set())

    def _stop_thread(self, wait: bool) -> None:
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.quit()
            if wait:
                thread.wait()
            else:
                self._retired.append(thread)
        self._retired = [t for t in self._retired if shiboken6.isValid(t) and t.isRunning()]

    def shutdown(self) -> None:
        """Cancel the sweep and stop the worker threads (waits for the chunk in progress). Idempotent."""
        self._generation += 1
        self._cancel.set()
        self._stop_thread(wait=True)
        for thread in self._retired:
            thread.quit()
            thread.wait()
        self._retired = []
        self.running = False

    def is_running(self) -> bool:
        threads = [self._thread, *self._retired]
        return any(t is not None and shiboken6.isValid(t) and t.isRunning() for t in threads)


def running_sweep_services() -> list[SweepService]:
    return [s for s in list(_LIVE) if s.is_running()]
