"""Derived results (metrics, BOM, collective estimates) computed away from the UI thread.

The pattern: every request gets a generation number; a short timer gathers a burst of
requests (a drag sends one per mouse move) into one; a worker computes the newest design
only ("latest wins": a request waiting for a busy worker is replaced by the next one); the
answer comes back to the UI thread through a queued signal and is dropped if a newer
request was made meanwhile. The design is immutable, so it is handed over as it is.

The workers are child processes, not threads: the computation is pure Python, and a thread
would hold the interpreter lock for long stretches and make the UI thread wait for it. Two
children run side by side, one for metrics and estimates (tens of milliseconds), one for the
bill of materials of large designs (seconds), so a slow BOM never delays fresh metrics. If a
child cannot be started (a frozen build, a platform without fork) the same jobs run on a
QThread instead.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import socket
import subprocess
import sys
import threading
import weakref
from multiprocessing.connection import Connection
from pathlib import Path

import shiboken6
from PySide6.QtCore import QObject, QThread, QTimer, Signal, Slot

import designer
from designer.catalog import Catalog, default_catalog
from designer.model.intent.design import FabricDesign
from designer.ui.services import compute_job
from designer.ui.services.compute_job import ComputeResult, compute, compute_bom

__all__ = ["ComputeResult", "ComputeService", "compute", "compute_bom", "running_services"]

DEBOUNCE_MS = 30
BOM_DELAY_MS = 250   # the BOM of a large design starts once edits pause for this long

_LIVE: weakref.WeakSet[ComputeService] = weakref.WeakSet()


class _Reader(QThread):
    """Waits for a child process's answers (blocking, without the interpreter lock) and passes them on."""

    answered = Signal(object)
    """A message from the child: ('ready', None) once, then (job id, ComputeResult) per job."""

    def __init__(self, conn, name: str):
        super().__init__()
        self.conn = conn
        self.setObjectName(name)

    def run(self) -> None:
        while True:
            try:
                message = self.conn.recv()
            except (EOFError, OSError):
                self.answered.emit(("gone", None))
                return
            self.answered.emit(message)


class _Child:
    """A started child process, whichever way it was started."""

    def __init__(self, popen: subprocess.Popen | None = None, process=None):
        self.popen = popen
        self.process = process   # a multiprocessing.Process (frozen builds)

    def alive(self) -> bool:
        return self.popen.poll() is None if self.popen is not None else self.process.is_alive()

    def stop(self) -> None:
        """Wait briefly for a clean exit; a long computation in progress is cut short."""
        if self.popen is not None:
            try:
                self.popen.wait(0.5)
            except subprocess.TimeoutExpired:
                self.popen.terminate()
                try:
                    self.popen.wait(2)
                except subprocess.TimeoutExpired:
                    self.popen.kill()
                    self.popen.wait()
            return
        self.process.join(0.5)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(2)


def _start_child(kind: str) -> tuple[_Child, Connection]:
    """A fresh interpreter running compute_job.child_main, and our end of its connection.

    From source, a plain subprocess: it imports only the compute modules, never the program
    that started it. A frozen build has no interpreter to start, so there the child is the
    executable itself, through multiprocessing (the launcher calls freeze_support()).
    """
    if getattr(sys, "frozen", False):
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")
        ours, theirs = ctx.Pipe()
        process = ctx.Process(target=compute_job.child_run, args=(theirs, kind),
                              name=f"fabric-designer-{kind}", daemon=True)
        process.start()
        theirs.close()
        return _Child(process=process), ours
    ours_end, theirs_end = socket.socketpair()
    root = str(Path(designer.__file__).resolve().parents[1])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    code = ("import sys; from designer.ui.services.compute_job import child_main; "
            "child_main(int(sys.argv[1]), sys.argv[2])")
    popen = subprocess.Popen([sys.executable, "-c", code, str(theirs_end.fileno()), kind],
                             pass_fds=(theirs_end.fileno(),), env=env, stdin=subprocess.DEVNULL)
    theirs_end.close()
    return _Child(popen=popen), Connection(ours_end.detach())


class _ProcessChannel(QObject):
    """One child process that computes one job at a time.

    The child is a fresh interpreter started with subprocess (it runs
    compute_job.child_main, and never re-imports the program that started it), joined to this
    process by a socket pair that carries pickled jobs and results.
    """

    answered = Signal(int, object)
    """A job finished; carries its id and its ComputeResult (on the UI thread)."""

    failed = Signal()
    """The child process could not start or died; jobs must go elsewhere."""

    def __init__(self, kind: str, catalog: Catalog, parent=None):
        super().__init__(parent)
        self.kind = kind
        self.ready = False
        self.in_flight: tuple[int, object] | None = None
        self.queued: tuple[int, object] | None = None   # sent before the child was ready
        self.process: _Child | None
        self.process, self.conn = _start_child(kind)
        # If the child died at once, the reader sees the pipe close and reports it.
        with contextlib.suppress(BrokenPipeError, OSError):
            self.conn.send(("catalog", catalog))
        self.reader = _Reader(self.conn, f"fabric-designer-{kind}-reader")
        self.reader.answered.connect(self._on_message)
        self.reader.start()

    @property
    def busy(self) -> bool:
        return self.in_flight is not None

    def send(self, job_id: int, job) -> None:
        self.in_flight = (job_id, job)
        if not self.ready:
            self.queued = (job_id, job)
            return
        try:
            self.conn.send((job_id, job))
        except (BrokenPipeError, OSError):
            self.failed.emit()

    @Slot(object)
    def _on_message(self, message) -> None:
        tag, payload = message
        if tag == "ready":
            self.ready = True
            if self.queued is not None:
                job, self.queued = self.queued, None
                self.send(*job)
            return
        if tag == "gone":
            self.ready = False
            if self.process is not None:
                self.failed.emit()
            return
        self.in_flight = None
        self.answered.emit(tag, payload)

    def shutdown(self) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        with contextlib.suppress(BrokenPipeError, OSError):
            self.conn.send(None)
        process.stop()
        self.reader.wait(3000)
        self.conn.close()

    def running(self) -> bool:
        alive = self.process is not None and self.process.alive()
        return alive or (shiboken6.isValid(self.reader) and self.reader.isRunning())


class _ThreadWorker(QObject):
    """Runs jobs on a QThread (the fallback when no child process can be started)."""

    done = Signal(int, object)
    """A job finished; carries its id and its ComputeResult (delivered queued)."""

    def __init__(self, kind: str, catalog: Catalog):
        super().__init__()
        self.kind = kind
        self.catalog = catalog

    @Slot(int, object)
    def run(self, job_id: int, job) -> None:
        self.done.emit(job_id, compute_job.run_job(self.kind, job, self.catalog))


class _ThreadChannel(QObject):
    answered = Signal(int, object)
    """A job finished; carries its id and its ComputeResult (on the UI thread)."""

    failed = Signal()
    """Never emitted: a thread always starts. Here for the same interface as _ProcessChannel."""

    _submit = Signal(int, object)
    """Internal: hands a job to the worker thread."""

    def __init__(self, kind: str, catalog: Catalog, parent=None):
        super().__init__(parent)
        self.in_flight: tuple[int, object] | None = None
        self.worker_thread: QThread | None = QThread()
        self.worker_thread.setObjectName(f"fabric-designer-{kind}")
        self.worker: _ThreadWorker | None = _ThreadWorker(kind, catalog)
        self.worker.moveToThread(self.worker_thread)
        self._submit.connect(self.worker.run)
        self.worker.done.connect(self._on_done)
        self.worker_thread.start()

    @property
    def busy(self) -> bool:
        return self.in_flight is not None

    def send(self, job_id: int, job) -> None:
        self.in_flight = (job_id, job)
        self._submit.emit(job_id, job)

    @Slot(int, object)
    def _on_done(self, job_id: int, result) -> None:
        self.in_flight = None
        self.answered.emit(job_id, result)

    def shutdown(self) -> None:
        if self.worker_thread is not None:
            self.worker_thread.quit()
            self.worker_thread.wait()
            self.worker_thread = None
            self.worker = None

    def running(self) -> bool:
        return self.worker_thread is not None and self.worker_thread.isRunning()


class ComputeService(QObject):
    """Computes derived results for the newest requested design, away from the UI thread.

    `synchronous=True` computes inside `request` instead (tests, screenshots): same results,
    no worker, no timer. `backend` is "process" (default) or "thread".
    """

    resultReady = Signal(object)
    """The newest request's ComputeResult is ready; emitted on the UI thread, never for stale requests.

    A large design gets two: the metrics first (bom_pending=True), then the same with its BOM."""

    busyChanged = Signal(bool)
    """True when a computation is pending or running, False once its (last) result has arrived."""

    def __init__(self, catalog: Catalog | None = None, synchronous: bool = False,
                 debounce_ms: int = DEBOUNCE_MS, backend: str = "process", parent=None):
        super().__init__(parent)
        self.catalog = catalog or default_catalog()
        self.synchronous = synchronous
        self.backend = backend
        self._generation = 0
        self._designs: dict[int, FabricDesign | None] = {}
        self._pending: dict[str, tuple[int, object] | None] = {"metrics": None, "bom": None}
        self._busy = False
        self.dropped = 0  # stale results thrown away after computing (figures for the benchmark)
        self.skipped = 0  # stale requests replaced before a worker took them
        self.latest: ComputeResult | None = None
        self._lock = threading.Lock()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(debounce_ms)
        self._timer.timeout.connect(self._dispatch)
        self._bom_timer = QTimer(self)
        self._bom_timer.setSingleShot(True)
        self._bom_timer.setInterval(BOM_DELAY_MS)
        self._bom_timer.timeout.connect(self._dispatch_bom)
        self._channels: dict[str, _ProcessChannel | _ThreadChannel] = {}
        if backend == "process" and not hasattr(os, "fork") and not getattr(sys, "frozen", False):
            backend = self.backend = "thread"  # passing a socket to a child needs POSIX
        if not synchronous:
            for kind in ("metrics", "bom"):
                self._channels[kind] = self._open(kind, backend)
        _LIVE.add(self)

    def _open(self, kind: str, backend: str):
        channel = (_ProcessChannel if backend == "process" else _ThreadChannel)(kind, self.catalog, self)
        channel.answered.connect(self._on_answer)
        channel.failed.connect(self._on_channel_failed)
        return channel

    @Slot()
    def _on_channel_failed(self) -> None:
        """A child process died or never started: continue with a thread for that kind of job."""
        for kind, channel in list(self._channels.items()):
            if isinstance(channel, _ProcessChannel) and not channel.ready and channel.process is not None:
                in_flight = channel.in_flight
                channel.shutdown()
                replacement = self._open(kind, "thread")
                self._channels[kind] = replacement
                if in_flight is not None:
                    replacement.send(*in_flight)

    @property
    def latest_generation(self) -> int:
        with self._lock:
            return self._generation

    @property
    def busy(self) -> bool:
        return self._busy

    def request(self, design: FabricDesign | None, preview: bool = False) -> int:
        """Ask for the results of `design`; returns the request's generation number.

        The first request of a burst starts at once; the ones after it within DEBOUNCE_MS are
        gathered into one (the timer is not restarted by later requests, so a long drag still
        gets results every few tens of milliseconds).
        """
        with self._lock:
            self._generation += 1
            generation = self._generation
        if self.synchronous:
            result = compute(design, self.catalog, generation, preview)
            if result.bom_pending:
                result = compute_bom(result, self.catalog)
            self._publish(result)
            return generation
        self._designs = {generation: design}
        if self._pending["metrics"] is not None:
            self.skipped += 1
        self._pending["metrics"] = (generation, (generation, design, preview))
        self._pending["bom"] = None
        self._bom_timer.stop()
        self._set_busy(True)
        if not self._timer.isActive():
            # Leading edge: an isolated edit goes to the worker at once; the timer then
            # gathers whatever follows within DEBOUNCE_MS into one request.
            self._dispatch()
            self._timer.start()
        return generation

    def _dispatch(self, kinds=("metrics",)) -> None:
        for kind in kinds:
            channel = self._channels.get(kind)
            job = self._pending[kind]
            if channel is not None and job is not None and not channel.busy:
                self._pending[kind] = None
                channel.send(*job)

    def _dispatch_bom(self) -> None:
        self._dispatch(("bom",))

    @Slot(int, object)
    def _on_answer(self, job_id: int, result: ComputeResult) -> None:
        self._dispatch(("metrics", "bom") if not self._bom_timer.isActive() else ("metrics",))
        if job_id != self.latest_generation:
            self.dropped += 1
            return
        design = self._designs.get(job_id)
        result = dataclasses.replace(result, design=design)
        if result.bom_pending and "bom" in self._channels:
            self._pending["bom"] = (job_id, result)
            self._bom_timer.start()
        self._publish(result)

    def _publish(self, result: ComputeResult) -> None:
        self.latest = result
        self._set_busy(result.bom_pending)
        self.resultReady.emit(result)

    def _set_busy(self, busy: bool) -> None:
        if busy != self._busy:
            self._busy = busy
            self.busyChanged.emit(busy)

    def shutdown(self) -> None:
        """Stop the timer and the workers; a long computation in progress is abandoned. Idempotent."""
        self._timer.stop()
        self._bom_timer.stop()
        with self._lock:
            self._generation += 1  # anything still on its way is stale now
        for channel in self._channels.values():
            channel.shutdown()
        self._channels = {}
        self._pending = {"metrics": None, "bom": None}
        self._set_busy(False)

    def is_running(self) -> bool:
        """True while a worker or the gathering timer is active."""
        for timer in (self._timer, self._bom_timer):
            if shiboken6.isValid(timer) and timer.isActive():
                return True
        return any(channel.running() for channel in self._channels.values())


def running_services() -> list[ComputeService]:
    """Services whose workers or timer still run (tests check that none outlive a test)."""
    return [s for s in list(_LIVE) if s.is_running()]
