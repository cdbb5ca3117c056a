"""Comparisons computed away from the UI thread.

`compare()` builds every design's bill of materials, which takes a second or more for a
fabric of several thousand GPUs. A worker thread runs it, with the pattern of
designer.ui.services.compute: every request gets a generation number, a request made while the
worker is busy waits and is replaced by any newer one ("latest wins"), and a result that
is not the newest request's is dropped on arrival. `synchronous=True` computes inside
`request` instead (tests, screenshots): same results, no thread.

The worker also sweeps the all-reduce bus bandwidth over message sizes for each design, at
the GPU count the comparison uses, so the curves agree with the table, and prices the cluster's
other networks where a design has them: each design as designed, and the baseline's network
arrangements (hybrid, all-Ethernet, merged) with capex and power.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from dataclasses import dataclass

import numpy as np
import shiboken6
from PySide6.QtCore import QObject, QThread, Signal, Slot

from designer.catalog import Catalog, CatalogError, UnknownPartError
from designer.model.decisions.comparison import CompareSettings, Comparison, compare
from designer.model.intent.design import FabricDesign
from designer.model.networks.arrangements import Arrangement, arrangements, price_arrangement
from designer.model.performance.collectives import sweep
from designer.model.topology.derive import derive

log = logging.getLogger(__name__)

# Everything a design or a setting can make compare() raise: each carries a user-ready message.
# (SizingError, CollectiveError, DesignValidationError and ProjectFileError are ValueErrors.)
USER_ERRORS = (ValueError, UnknownPartError, CatalogError)

_LIVE: weakref.WeakSet[CompareService] = weakref.WeakSet()


@dataclass(frozen=True)
class CompareJob:
    designs: tuple[FabricDesign, ...]
    settings: CompareSettings


@dataclass(frozen=True, eq=False)
class CompareOutcome:
    """A finished comparison, or the reason it failed (`error`, one user-ready sentence)."""

    generation: int
    job: CompareJob
    comparison: Comparison | None = None
    curves: tuple[tuple[np.ndarray, np.ndarray], ...] = ()  # (sizes in bytes, busbw GB/s) per design
    curve_gpus: int = 0
    error: str | None = None
    elapsed_ms: float = 0.0
    # Per design, its networks priced: the baseline's every arrangement, the others as designed;
    # () when no design has networks beside its compute fabric.
    networks: tuple[tuple[Arrangement, ...], ...] = ()


def network_arrangements(designs: tuple[FabricDesign, ...], catalog: Catalog) -> tuple[tuple[Arrangement, ...], ...]:
    """The cluster-wide capex and power of each design (compute fabric and its other networks),
    and the baseline's arrangements; () when no design has other networks."""
    if not any(d.networks for d in designs):
        return ()
    from designer.model.physical.prices import default_prices

    book = default_prices()
    return tuple(arrangements(d, catalog, book) if i == 0 else
                 (price_arrangement("design", "as designed", d, catalog, book),)
                 for i, d in enumerate(designs))


def run_compare(job: CompareJob, catalog: Catalog, generation: int = 0) -> CompareOutcome:
    """The comparison and the busbw curves of `job`; never raises."""
    start = time.perf_counter()
    try:
        comparison = compare(list(job.designs), job.settings, catalog)
        gpus = int(min(v for v in comparison.row("gpus").values if v is not None))
        curves = tuple(sweep(derive(d, catalog), "allreduce", gpus=gpus).curve("busbw") for d in job.designs)
        networks = network_arrangements(job.designs, catalog)
    except USER_ERRORS as exc:
        return CompareOutcome(generation, job, error=str(exc), elapsed_ms=(time.perf_counter() - start) * 1000)
    except Exception as exc:  # noqa: BLE001 - a worker thread must always answer, or the window waits forever
        log.exception("comparison failed")
        return CompareOutcome(generation, job, error=f"the comparison failed unexpectedly ({exc})",
                              elapsed_ms=(time.perf_counter() - start) * 1000)
    return CompareOutcome(generation, job, comparison, curves, gpus,
                          elapsed_ms=(time.perf_counter() - start) * 1000, networks=networks)


class _Worker(QObject):
    done = Signal(int, object)
    """A job finished; carries its generation and its CompareOutcome (delivered queued)."""

    def __init__(self, catalog: Catalog):
        super().__init__()
        self.catalog = catalog

    @Slot(int, object)
    def run(self, generation: int, job: CompareJob) -> None:
        self.done.emit(generation, run_compare(job, self.catalog, generation))


class CompareService(QObject):
    """Runs the newest requested comparison on a worker thread (started on the first request)."""

    resultReady = Signal(object)
    """The newest request's CompareOutcome; emitted on the UI thread, never for a stale request."""

    busyChanged = Signal(bool)
    """True while a comparison is waiting or running, False once the newest one has arrived."""

    _submit = Signal(int, object)
    """Internal: hands (generation, CompareJob) to the worker thread."""

    def __init__(self, catalog: Catalog, synchronous: bool = False, parent=None):
        super().__init__(parent)
        self.catalog = catalog
        self.synchronous = synchronous
        self._generation = 0
        self._lock = threading.Lock()
        self._thread: QThread | None = None
        self._worker: _Worker | None = None
        self._in_flight = False
        self._pending: tuple[int, CompareJob] | None = None
        self._busy = False
        self.dropped = 0  # results that arrived after a newer request (stale)
        _LIVE.add(self)

    @property
    def busy(self) -> bool:
        return self._busy

    @property
    def latest_generation(self) -> int:
        with self._lock:
            return self._generation

    def request(self, designs: list[FabricDesign], settings: CompareSettings) -> int:
        """Compare `designs` (2 to MAX_COMPARED) under `settings`; returns the request's generation number."""
        with self._lock:
            self._generation += 1
            generation = self._generation
        job = CompareJob(tuple(designs), settings)
        if self.synchronous:
            self._set_busy(True)
            self._publish(run_compare(job, self.catalog, generation))
            return generation
        self._set_busy(True)
        if self._in_flight:
            self._pending = (generation, job)  # replaces an older waiting request
        else:
            self._send(generation, job)
        return generation

    def _send(self, generation: int, job: CompareJob) -> None:
        if self._thread is None:
            self._thread = QThread()
            self._thread.setObjectName("fabric-designer-compare")
            self._worker = _Worker(self.catalog)
            self._worker.moveToThread(self._thread)
            self._submit.connect(self._worker.run)
            self._worker.done.connect(self._on_done)
            self._thread.start()
        self._in_flight = True
        self._submit.emit(generation, job)

    @Slot(int, object)
    def _on_done(self, generation: int, outcome: CompareOutcome) -> None:
        self._in_flight = False
        if self._pending is not None and self._thread is not None:
            waiting, self._pending = self._pending, None
            self._send(*waiting)
        if generation != self.latest_generation:
            self.dropped += 1
            return
        self._publish(outcome)

    def _publish(self, outcome: CompareOutcome) -> None:
        self._set_busy(False)
        self.resultReady.emit(outcome)

    def _set_busy(self, busy: bool) -> None:
        if busy != self._busy:
            self._busy = busy
            self.busyChanged.emit(busy)

    def shutdown(self) -> None:
        """Stop the worker thread. A comparison in progress is waited for (Python code cannot be
        interrupted), and its result is dropped. Idempotent."""
        with self._lock:
            self._generation += 1
        self._pending = None
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.quit()
            thread.wait()
            self._worker = None
        self._in_flight = False
        self._set_busy(False)

    def is_running(self) -> bool:
        return self._thread is not None and shiboken6.isValid(self._thread) and self._thread.isRunning()


def running_compare_services() -> list[CompareService]:
    """Services whose worker thread still runs (tests check that none outlive a test)."""
    return [s for s in list(_LIVE) if s.is_running()]
