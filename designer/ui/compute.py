"""Derived results (metrics, BOM, collective estimates) computed off the UI thread.

The pattern: every request gets a generation number; a short timer gathers a burst of
requests (a drag sends one per mouse move) into one; a single worker thread computes the
newest design, skipping requests that were superseded before it got to them; the result
comes back to the UI thread through a queued signal and is dropped if a newer request was
made meanwhile. The design is immutable, so the worker reads it without copying or locks.
"""

from __future__ import annotations

import dataclasses
import threading
import time
import weakref
from dataclasses import dataclass

import shiboken6
from PySide6.QtCore import QObject, QThread, QTimer, Signal, Slot

from designer.catalog import Catalog, UnknownPartError, default_catalog
from designer.model.derive import Derived, derive
from designer.model.design import FabricDesign
from designer.model.sizing import SizingError

# The BOM and collective-estimate modules are optional: the window shows their cards and
# plots only when they are installed. This is the one place that checks.
try:
    from designer.model import bom as bom_module
except ImportError:  # pragma: no cover - depends on the installed modules
    bom_module = None
try:
    from designer.model import collectives as collectives_module
except ImportError:  # pragma: no cover - depends on the installed modules
    collectives_module = None

DEBOUNCE_MS = 30

_LIVE: "weakref.WeakSet[ComputeService]" = weakref.WeakSet()


def has_bom() -> bool:
    return bom_module is not None


def has_collectives() -> bool:
    return collectives_module is not None


# Designs with more links than this get their BOM in a second step, after the metrics: the
# physical layer behind it walks every link and takes seconds on a 16K-GPU fabric, while the
# metrics take tens of milliseconds. Drag previews of such designs skip the BOM.
QUICK_BOM_LINKS = 6000


@dataclass(frozen=True)
class ComputeResult:
    """Everything derived from one design; `error` is set when the design cannot be sized."""

    generation: int
    design: FabricDesign | None
    preview: bool = False             # computed for a drag in progress, not the document
    derived: Derived | None = None
    error: str | None = None
    bom: object | None = None         # designer.model.bom.Bom
    bom_pending: bool = False         # the BOM follows in a second result with the same generation
    allreduce: object | None = None   # designer.model.collectives.CollectiveResult at the chosen size
    sweep: object | None = None       # designer.model.collectives.Sweep over message sizes
    extras_error: str | None = None   # the BOM or collective estimate failed; metrics are still good
    elapsed_ms: float = 0.0

    @property
    def metrics(self):
        return self.derived.metrics if self.derived is not None else None


def _collectives(derived: Derived, design: FabricDesign):
    perf = design.performance
    allreduce = collectives_module.estimate(derived, perf.collective, size_bytes=perf.message_size_bytes)
    sweep = collectives_module.sweep(derived, perf.collective)
    return allreduce, sweep


def compute(design: FabricDesign | None, catalog: Catalog | None = None, generation: int = 0,
            preview: bool = False, bom: str = "auto") -> ComputeResult:
    """Derive `design` and everything shown about it; never raises for a bad design.

    `bom`: "auto" builds the BOM now for small fabrics and leaves it pending for large ones
    (see `compute_bom`), "now" always builds it, "skip" never does.
    """
    start = time.perf_counter()
    if design is None:
        return ComputeResult(generation, None, preview)
    catalog = catalog or default_catalog()
    try:
        derived = derive(design, catalog)
        metrics = derived.metrics  # computed here, off the UI thread
    except (SizingError, UnknownPartError, ValueError) as exc:
        return ComputeResult(generation, design, preview, error=str(exc),
                             elapsed_ms=(time.perf_counter() - start) * 1000)
    built = allreduce = sweep = None
    problems = []
    pending = False
    if collectives_module is not None:
        try:
            allreduce, sweep = _collectives(derived, design)
        except Exception as exc:  # an estimate problem must not hide the metrics
            problems.append(f"collective estimate: {exc}")
    if bom_module is not None and bom != "skip":
        if bom == "now" or metrics.links_total <= QUICK_BOM_LINKS:
            try:
                built = bom_module.build_bom(derived, catalog)
            except Exception as exc:  # likewise for the BOM
                problems.append(f"BOM: {exc}")
        else:
            pending = not preview
    return ComputeResult(generation, design, preview, derived, None, built, pending, allreduce, sweep,
                         "; ".join(problems) or None, (time.perf_counter() - start) * 1000)


def compute_bom(first: ComputeResult, catalog: Catalog | None = None) -> ComputeResult:
    """The second step for a large design: `first` with its BOM added."""
    start = time.perf_counter()
    try:
        built = bom_module.build_bom(first.derived, catalog or default_catalog())
        problem = first.extras_error
    except Exception as exc:
        built, problem = None, "; ".join(p for p in (first.extras_error, f"BOM: {exc}") if p)
    return dataclasses.replace(first, bom=built, bom_pending=False, extras_error=problem,
                               elapsed_ms=first.elapsed_ms + (time.perf_counter() - start) * 1000)


class _Worker(QObject):
    """Lives in the worker thread; computes what the service hands it."""

    done = Signal(object)
    """A computation finished; carries its ComputeResult (delivered queued to the UI thread)."""

    def __init__(self, service: "ComputeService", catalog: Catalog):
        super().__init__()
        self._service = service
        self._catalog = catalog

    @Slot(int, object, bool)
    def run(self, generation: int, design, preview: bool) -> None:
        if generation < self._service.latest_generation:
            self._service.count_skipped()
            return  # superseded while it waited in the queue: never computed
        result = compute(design, self._catalog, generation, preview)
        self.done.emit(result)
        if result.bom_pending and generation == self._service.latest_generation:
            self.done.emit(compute_bom(result, self._catalog))


class ComputeService(QObject):
    """Computes derived results for the newest requested design, off the UI thread.

    `synchronous=True` computes inside `request` instead (tests, screenshots): same results,
    no thread, no timer.
    """

    resultReady = Signal(object)
    """The newest request's ComputeResult is ready; emitted on the UI thread, never for stale requests.

    A large design gets two: the metrics first (bom_pending=True), then the same with its BOM."""

    busyChanged = Signal(bool)
    """True when a computation is pending or running, False once its (last) result has arrived."""

    _submit = Signal(int, object, bool)
    """Internal: hands one request to the worker thread (queued connection)."""

    def __init__(self, catalog: Catalog | None = None, synchronous: bool = False,
                 debounce_ms: int = DEBOUNCE_MS, parent=None):
        super().__init__(parent)
        self.catalog = catalog or default_catalog()
        self.synchronous = synchronous
        self._generation = 0
        self._pending: tuple[int, FabricDesign | None, bool] | None = None
        self._busy = False
        self.dropped = 0  # stale results thrown away after computing (figures for the benchmark)
        self.skipped = 0  # stale requests never computed
        self.latest: ComputeResult | None = None
        self._lock = threading.Lock()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(debounce_ms)
        self._timer.timeout.connect(self._dispatch)
        self._thread: QThread | None = None
        self._worker: _Worker | None = None
        if not synchronous:
            self._thread = QThread()
            self._thread.setObjectName("fabric-designer-compute")
            self._worker = _Worker(self, self.catalog)
            self._worker.moveToThread(self._thread)
            self._submit.connect(self._worker.run)
            self._worker.done.connect(self._on_done)
            self._thread.start()
        _LIVE.add(self)

    @property
    def latest_generation(self) -> int:
        with self._lock:
            return self._generation

    def count_skipped(self) -> None:
        with self._lock:
            self.skipped += 1

    @property
    def busy(self) -> bool:
        return self._busy

    def request(self, design: FabricDesign | None, preview: bool = False) -> int:
        """Ask for the results of `design`; returns the request's generation number.

        Requests in quick succession are gathered: the timer is not restarted by later
        requests, so a long drag still gets results every few tens of milliseconds.
        """
        with self._lock:
            self._generation += 1
            generation = self._generation
        if self.synchronous:
            self._publish(compute(design, self.catalog, generation, preview, bom="skip" if preview else "now"))
            return generation
        self._pending = (generation, design, preview)
        self._set_busy(True)
        if not self._timer.isActive():
            self._timer.start()
        return generation

    def _dispatch(self) -> None:
        if self._pending is None or self._thread is None:
            return
        generation, design, preview = self._pending
        self._pending = None
        self._submit.emit(generation, design, preview)

    @Slot(object)
    def _on_done(self, result: ComputeResult) -> None:
        if result.generation != self.latest_generation:
            self.dropped += 1
            return
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
        """Stop the timer and the worker thread; waits for a computation in progress. Idempotent."""
        self._timer.stop()
        self._pending = None
        if self._thread is not None:
            with self._lock:
                self._generation += 1  # anything still queued is stale now
            self._thread.quit()
            self._thread.wait()
            self._thread = None
            self._worker = None  # its thread has ended; Python owns and frees it
        self._set_busy(False)

    def is_running(self) -> bool:
        """True while the worker thread or the gathering timer is active."""
        thread_running = self._thread is not None and shiboken6.isValid(self._thread) and self._thread.isRunning()
        return thread_running or (shiboken6.isValid(self._timer) and self._timer.isActive())


def running_services() -> list[ComputeService]:
    """Services whose thread or timer still runs (tests check that none outlive a test)."""
    return [s for s in list(_LIVE) if s.is_running()]
