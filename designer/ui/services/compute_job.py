"""What the background computation does, without Qt: it runs in a child process.

A job derives one design and measures it; a second kind of job builds its bill of
materials. Results carry plain data only (metrics, the estimate, the busbw curve, the BOM),
so they cross the process boundary cheaply. `serve` is the child's main loop.
"""

from __future__ import annotations

import dataclasses
import os
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from designer.catalog import Catalog, UnknownPartError, default_catalog
from designer.model.intent.design import FabricDesign
from designer.model.intent.serde import DesignValidationError
from designer.model.performance import collectives as collectives_module
from designer.model.physical import bom as bom_module
from designer.model.physical.edited_bom import counted_from_arrays
from designer.model.topology.derive import derive
from designer.model.topology.sizing import SizingError

if TYPE_CHECKING:
    from designer.model.performance.collectives import CollectiveResult
    from designer.model.physical.bom import Bom
    from designer.model.topology.metrics import Metrics

# Edited designs with more links than this get their BOM as a second job, after the metrics:
# their physical layer walks every link and takes seconds on a 16K-GPU fabric, while the metrics
# take tens of milliseconds. Template designs get it in closed form, so with the metrics (drag
# previews of large ones skip it). Drag previews of large edited designs skip the BOM.
QUICK_BOM_LINKS = 6000
# Template designs above this many links (a million GPUs: 12.6 million) also get their BOM as a
# second job: the closed form still takes tens of seconds there, and the metrics must not wait.
CLOSED_FORM_BOM_LINKS = 1_000_000


# What sizing a design can raise for a reason the user can fix: shown as a message, never a crash.
SIZING_ERRORS = (SizingError, UnknownPartError, DesignValidationError, ValueError)

@dataclass(frozen=True)
class ComputeResult:
    """Everything shown about one design; `error` is set when the design cannot be sized."""

    generation: int
    design: FabricDesign | None = None
    preview: bool = False             # computed for a drag in progress, not the document
    metrics: Metrics | None = None
    family: str = ""                  # technology family, for colours
    error: str | None = None
    bom: Bom | None = None
    bom_pending: bool = False         # the BOM follows in a second result with the same generation
    allreduce: CollectiveResult | None = None   # at the chosen size
    busbw_curve: tuple | None = None  # (message sizes in bytes, busbw in GB/s), numpy arrays
    allreduce_uplinks: str = ""       # what the uplinks do to that collective (collectives.uplink_reading)
    allreduce_other: str = ""         # the same with the ranks placed the other way, where it differs
    extras_error: str | None = None   # the BOM or collective estimate failed; metrics are still good
    elapsed_ms: float = 0.0
    bom_ms: float = 0.0               # the BOM's own time when it came in a second step (in elapsed_ms)
    # The cluster's other networks (storage, in-band, out-of-band...), one NetworkBom each, with the BOM.
    networks: tuple = ()


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
        metrics = derived.metrics
    except (SizingError, UnknownPartError, ValueError) as exc:
        return ComputeResult(generation, design, preview, error=str(exc),
                             elapsed_ms=(time.perf_counter() - start) * 1000)
    built = allreduce = curve = None
    uplinks = other = ""
    problems = []
    pending = False
    try:
        perf = design.performance
        allreduce = collectives_module.estimate(derived, perf.collective, size_bytes=perf.message_size_bytes)
        curve = collectives_module.sweep(derived, perf.collective).curve("busbw")
        uplinks = collectives_module.uplink_reading(collectives_module.context_for(derived), allreduce.algorithm)
        if _oversubscribed(metrics):
            other = collectives_module.other_placement_reading(derived, perf.collective, perf.message_size_bytes,
                                                               allreduce)
    except Exception as exc:  # an estimate problem must not hide the metrics
        problems.append(f"collective estimate: {exc}")
    if bom != "skip":
        closed_form = not preview and counted_from_arrays(design) and metrics.links_total <= CLOSED_FORM_BOM_LINKS
        if bom == "now" or metrics.links_total <= QUICK_BOM_LINKS or closed_form:
            try:
                built = bom_module.build_bom(derived, catalog)
            except Exception as exc:  # likewise for the BOM
                problems.append(f"BOM: {exc}")
        else:
            pending = not preview
    networks: tuple = ()
    if built is not None:
        try:
            networks = other_networks(design, catalog, built)
        except Exception as exc:  # the other networks must not hide the fabric's figures
            problems.append(f"other networks: {exc}")
    return ComputeResult(generation, design, preview, metrics, derived.resolved.family, None, built, pending,
                         allreduce, curve, uplinks, other, "; ".join(problems) or None,
                         (time.perf_counter() - start) * 1000, networks=networks)


def other_networks(design: FabricDesign, catalog: Catalog, built) -> tuple:
    """The BOM of each of the cluster's other networks, priced from the same book as the fabric's."""
    if not design.networks:
        return ()
    from designer.model.networks.bom import compute_switch_count, network_boms
    from designer.model.physical.prices import default_prices

    return network_boms(design, catalog, default_prices(), compute_switch_count(built))


def _oversubscribed(m: Metrics) -> bool:
    return any((m.oversubscription(t) or 1.0) > 1.001 for t in ("leaf", "spine") if t in m.ports_by_tier)


def compute_bom(first: ComputeResult, catalog: Catalog | None = None) -> ComputeResult:
    """The second job for a large design: `first` with its BOM added."""
    start = time.perf_counter()
    try:
        assert first.design is not None   # a first result with metrics carries its design
        built = bom_module.build_bom(derive(first.design, catalog or default_catalog()), catalog)
        problem = first.extras_error
        networks = other_networks(first.design, catalog or default_catalog(), built)
    except Exception as exc:
        built, problem, networks = None, "; ".join(p for p in (first.extras_error, f"BOM: {exc}") if p), ()
    bom_ms = (time.perf_counter() - start) * 1000
    return dataclasses.replace(first, bom=built, bom_pending=False, extras_error=problem,
                               elapsed_ms=first.elapsed_ms + bom_ms, bom_ms=bom_ms, networks=networks)


def run_job(kind: str, job, catalog: Catalog) -> ComputeResult:
    """One job: ("metrics", (generation, design, preview)) or ("bom", first_result)."""
    if kind == "metrics":
        generation, design, preview = job
        return compute(design, catalog, generation, preview)
    return compute_bom(job, catalog)


def _light(result: ComputeResult) -> ComputeResult:
    """The result without its design: the parent holds the design already."""
    return dataclasses.replace(result, design=None)


def child_main(fd: int, kind: str) -> None:
    """Entry point of the child process: `fd` is its end of the socket pair to the window."""
    from multiprocessing.connection import Connection

    child_run(Connection(fd), kind)


def child_run(conn, kind: str) -> None:
    """The child's work on an open connection: the catalog first, then jobs until told to stop."""
    if hasattr(os, "nice"):
        # The window comes first: on a two-core machine both children compete with it during a
        # drag. The slow BOM yields to everything; the metrics child only to the window.
        os.nice(10 if kind == "bom" else 3)
    try:
        tag, catalog = conn.recv()
    except (EOFError, OSError, KeyboardInterrupt):
        return
    serve(conn, kind, catalog if tag == "catalog" else default_catalog())


def warm_up() -> None:
    """Import the modules an edited design's metrics need on first use (max-flow, the graph)."""
    import networkx  # noqa: F401


def serve(conn, kind: str, catalog: Catalog) -> None:
    """The child process: answer jobs one at a time until told to stop or the pipe closes."""
    conn.send(("ready", None))
    answered = warm = False
    while True:
        if answered and not warm and not conn.poll():
            # Idle after its first answer: load what an edited design's measures import lazily
            # (networkx, about 0.5 s), so that the first edit is answered in milliseconds too.
            warm_up()
            warm = True
        try:
            message = conn.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            return
        if message is None:
            return
        job_id, job = message
        try:
            answer = _light(run_job(kind, job, catalog))
        except Exception as exc:  # a bug: report it as the job's error, keep serving
            generation = job[0] if kind == "metrics" else job.generation
            answer = ComputeResult(generation, error=f"internal error: {type(exc).__name__}: {exc}")
        try:
            conn.send((job_id, answer))
        except (BrokenPipeError, OSError):
            return
        answered = True
