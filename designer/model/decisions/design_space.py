"""Design-space sweep: every buildable combination of technology, oversubscription, planes,
switch and tiers for one cluster, each measured, with the Pareto fronts marked.

Each point is a design built exactly as `fabric-designer new` builds it, then derived: closed-
form metrics, the bill of materials (capex and power), TCO with the comparison's assumptions,
and the chosen collective's estimate. A combination that cannot be built is kept, with the one
line that says why.

The work is spread over an executor: by default a process pool of the machine's cores. Any
object with the `concurrent.futures.Executor` interface (`submit`) will do, so a
`dask.distributed` Client's executor or a Ray executor can spread a cluster-sized sweep.
Points are evaluated in chunks, so each task carries enough work to pay for its dispatch. A
chunk holds neighbouring points that differ only in the innermost axes (planes, switch, tiers,
uplink speed), where two choices can build the same design (the technology's default switch
named and left unnamed): a worker measures such a design once and gives every point of it the
same figures, under the point's own name.
"""

from __future__ import annotations

import itertools
import math
import multiprocessing
import os
import threading
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import suppress
from dataclasses import asdict, dataclass, field, replace
from functools import lru_cache
from typing import Any

from designer.catalog import Catalog, Technology, UnknownPartError, default_catalog
from designer.model.common.cache import ContentCache
from designer.model.decisions.comparison import CompareSettings, energy_cost_usd
from designer.model.decisions.interruptions import Rate, RateTableError, load_rates, optics_failures_per_month
from designer.model.intent.design import FabricDesign, Meta
from designer.model.performance.collective_costs import CollectiveError
from designer.model.performance.collectives import estimate, normalize_collective
from designer.model.physical.bom import build_bom
from designer.model.topology.derive import derive
from designer.model.topology.presets import DEFAULT_SERVER, TEMPLATES, default_server, new_design
from designer.model.topology.sizing import SizingError

DEFAULT_TECHNOLOGIES = ("ib-ndr", "ib-xdr", "roce-400g", "roce-800g")
MAX_POINTS = 20_000      # a sweep larger than this is refused: it would run for many minutes
CHUNK = 8                # points per task at least: one task costs about one design's derivation in overhead
MAX_CHUNK = 36           # and at most: progress and Cancel answer within a chunk


@dataclass(frozen=True)
class SweepSpec:
    """The axes of a sweep; each tuple is one axis, and every combination is a point."""

    gpus: int
    server: str | None = None
    templates: tuple[str, ...] = ("rail-optimized",)
    technologies: tuple[str, ...] = DEFAULT_TECHNOLOGIES
    oversubscriptions: tuple[float, ...] = (1.0,)
    planes: tuple[int | None, ...] = (None,)           # None: the server model's default
    switches: tuple[str | None, ...] = (None,)         # None: the technology's default switch
    tiers: tuple[int | None, ...] = (None,)            # None: the fewest tiers that fit
    # Switch-to-switch speeds (speed-asymmetric uplinks where a switch's modes allow them);
    # None: the technology's. A point whose switch has no such mode is listed as refused.
    uplink_speeds: tuple[int | None, ...] = (None,)
    nodes_per_su: int = 32
    collective: str = "allreduce"
    size_bytes: int = 1 << 30
    settings: CompareSettings = field(default_factory=CompareSettings)

    def __post_init__(self) -> None:
        if self.gpus < 1:
            raise ValueError(f"GPU count must be positive, got {self.gpus}")
        for name in ("templates", "technologies", "oversubscriptions", "planes", "switches", "tiers",
                     "uplink_speeds"):
            if not getattr(self, name):
                raise ValueError(f"give at least one value for {name}")
        for t in self.templates:
            if t not in TEMPLATES:
                raise ValueError(f"unknown template '{t}' (choose from {', '.join(TEMPLATES)})")
        for r in self.oversubscriptions:
            if not (math.isfinite(r) and r > 0):
                raise ValueError(f"oversubscription must be a positive ratio, got {r}")
        if self.size_bytes < 1:
            raise ValueError("message size must be at least 1 byte")
        object.__setattr__(self, "collective", normalize_collective(self.collective))
        if self.count > MAX_POINTS:
            raise ValueError(f"the sweep has {self.count:,} combinations; at most {MAX_POINTS:,} are run "
                             "at once (narrow an axis)")

    @property
    def count(self) -> int:
        return math.prod(len(getattr(self, n)) for n in
                         ("templates", "technologies", "oversubscriptions", "planes", "switches", "tiers",
                          "uplink_speeds"))

    def choices(self) -> list[dict[str, Any]]:
        """Every combination, in a stable order."""
        axes = itertools.product(self.templates, self.technologies, self.oversubscriptions, self.planes,
                                 self.switches, self.tiers, self.uplink_speeds)
        return [{"template": t, "technology": tech, "oversubscription": o, "planes": p, "switch": sw, "tiers": k,
                 "uplink_speed": u} for t, tech, o, p, sw, k, u in axes]


@dataclass(frozen=True)
class SweepPoint:
    """One combination and what it measured; `error` says why it could not be built."""

    index: int
    choice: dict[str, Any]
    name: str = ""
    technology: str = ""
    family: str = ""
    switch: str = ""
    gpus: int = 0
    tiers: int = 0
    planes: int = 0
    switches: int = 0
    oversubscription: float | None = None    # achieved, worst leaf
    capex_usd: float | None = None
    power_w: float | None = None
    tco_usd: float | None = None
    unpriced: tuple[str, ...] = ()           # parts without a price: capex and TCO read low
    bisection_tbps: float | None = None
    bisection_ratio: float | None = None
    time_us: float | None = None             # the collective's estimated time
    busbw_GBps: float | None = None
    algorithm: str = ""
    error: str | None = None
    transceivers: int = 0                    # pluggable modules, both sides
    transceivers_switch_side: int = 0        # none on a co-packaged-optics switch
    failures_month: float | None = None      # expected link and optics failures (estimate)
    front_cost_time: bool = False
    front_cost_power: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["unpriced"] = list(self.unpriced)
        return data


@dataclass(frozen=True)
class SweepResult:
    spec: SweepSpec
    points: tuple[SweepPoint, ...]

    @property
    def built(self) -> list[SweepPoint]:
        return [p for p in self.points if p.ok]

    @property
    def refused(self) -> list[SweepPoint]:
        return [p for p in self.points if not p.ok]

    def front(self, kind: str = "cost_time") -> list[SweepPoint]:
        flag = {"cost_time": "front_cost_time", "cost_power": "front_cost_power"}[kind]
        return sorted((p for p in self.points if getattr(p, flag)), key=lambda p: p.capex_usd or 0.0)

    def design(self, point: SweepPoint, catalog: Catalog | None = None) -> FabricDesign:
        """The design of a point, rebuilt exactly as the sweep built it."""
        return _build(self.spec, point.choice, catalog or default_catalog())

    def to_json(self) -> dict[str, Any]:
        s = self.spec
        return {
            "gpus": s.gpus, "server": s.server, "server_used": sweep_server(s, default_catalog()),
            "collective": s.collective, "size_bytes": s.size_bytes,
            "assumptions": {"years": s.settings.years, "energy_usd_per_kwh": s.settings.energy_usd_per_kwh,
                            "pue": s.settings.pue},
            "combinations": len(self.points), "built": len(self.built), "refused": len(self.refused),
            "points": [p.to_json() for p in self.points],
        }


def _build(spec: SweepSpec, choice: dict[str, Any], catalog: Catalog) -> FabricDesign:
    tech = catalog.technology(choice["technology"])
    ratio = choice["oversubscription"]
    parts = [f"{spec.gpus:,} GPU {choice['template']}", tech.name, f"{ratio:g}:1"]
    if choice["planes"]:
        parts.append(f"{choice['planes']} plane(s)")
    if choice["tiers"]:
        parts.append(f"{choice['tiers']} tiers")
    if choice["switch"]:
        parts.append(catalog.switch(choice["switch"]).name)
    uplink = choice.get("uplink_speed")
    if uplink:
        parts.append(f"{uplink}G uplinks")
    # One cluster across every technology: the server is fixed, never the newest one each
    # technology would start a new design on.
    return new_design(catalog, choice["template"], gpus=spec.gpus, server=sweep_server(spec, catalog),
                      switch=choice["switch"],
                      technology=tech.id, oversubscription=ratio, planes=choice["planes"], tiers=choice["tiers"],
                      nodes_per_su=spec.nodes_per_su, name=", ".join(parts), uplink_speed=uplink)


def sweep_server(spec: SweepSpec, catalog: Catalog) -> str:
    """The one server every point of the sweep is built on: the named one, else DGX H100 where it
    runs every technology of the sweep, else the newest shipping server of its family where that
    one runs more of them (a sweep of XDR or 800G Ethernet alone starts on DGX B300, as `new`
    does)."""
    if spec.server:
        return spec.server
    techs = [catalog.technology(t) for t in spec.technologies]

    def runs(server_id: str) -> int:
        return sum(_runs(catalog, server_id, t) for t in techs)

    if runs(DEFAULT_SERVER) == len(techs):
        return DEFAULT_SERVER
    lacking = next(t for t in techs if not _runs(catalog, DEFAULT_SERVER, t))
    other = default_server(catalog, lacking, catalog.server(DEFAULT_SERVER)).id
    return other if runs(other) > runs(DEFAULT_SERVER) else DEFAULT_SERVER


def _runs(catalog: Catalog, server_id: str, tech: Technology) -> bool:
    """The server's NIC runs the technology's family at its link speed, on a fabric it is built for."""
    srv = catalog.server(server_id)
    return (catalog.nic(srv.compute_nic).mode_for(tech.family) is not None and srv.port_gbps == tech.link_gbps
            and (not srv.fabric_families or tech.family in srv.fabric_families))


# A worker's measured designs by content, their names left out: the points of a sweep that build
# the same design (the technology's default switch named and not) share one measurement. The key
# names the catalog by its id, and the entry holds it, so that a catalog loaded afresh (a user
# catalog folder read again) is never mistaken for the one measured.
_MEASURED: ContentCache[tuple[Catalog, SweepPoint, bool]] = ContentCache(size=64)


@lru_cache(maxsize=1)
def _rates() -> tuple[Rate, ...]:
    """The built-in failure-rate table, read once per process (every point reads it)."""
    return load_rates()


def evaluate_point(spec: SweepSpec, index: int, choice: dict[str, Any], catalog: Catalog | None = None) -> SweepPoint:
    """Build and measure one combination; a combination that cannot be built carries its reason."""
    shared = catalog is None   # another catalog's figures are not the default one's
    catalog = catalog or default_catalog()
    try:
        design = _build(spec, choice, catalog)
    except (SizingError, UnknownPartError, CollectiveError, ValueError) as exc:
        return SweepPoint(index, choice, error=str(exc) or type(exc).__name__)
    if not shared:
        point, named = _measure(spec, design, catalog)
    else:
        unnamed = replace(design, meta=Meta())
        key = (id(catalog), spec.collective, spec.size_bytes, spec.settings, unnamed.content_key())
        _catalog, point, named = _MEASURED.get_or_compute(key, lambda: (catalog, *_measure(spec, unnamed, catalog)))
    return replace(point, index=index, choice=choice, name=design.meta.name if named else "")


def _measure(spec: SweepSpec, design: FabricDesign, catalog: Catalog) -> tuple[SweepPoint, bool]:
    """A design's figures as a point without index, choice or name, and whether the point
    carries the design's name (a failure after the design was built does not)."""
    try:
        derived = derive(design, catalog)
        m = derived.metrics
        if m.errors:
            return SweepPoint(-1, {}, error=m.errors[0].message), True
        bom = build_bom(derived, catalog)
        result = estimate(derived, spec.collective, spec.size_bytes)
    except (SizingError, UnknownPartError, CollectiveError, ValueError) as exc:
        return SweepPoint(-1, {}, error=str(exc) or type(exc).__name__), False
    power = bom.total_power_w
    worst = max((m.oversubscription(t) or 0.0 for t in m.ports_by_tier), default=0.0)
    try:
        failures = optics_failures_per_month(bom.counts["links_total"], bom.optics_count, _rates())
    except RateTableError:
        failures = None
    return SweepPoint(
        -1, {}, "", derived.resolved.technology.id, derived.resolved.family,
        derived.resolved.leaf_switch.name, m.gpus, m.tiers, m.planes, m.switches_total,
        worst or None, bom.total_cost, power, bom.total_cost + energy_cost_usd(power, spec.settings),
        tuple(sorted({i.key or i.description for i in bom.unpriced})),
        m.bisection_gbps / 1000, m.bisection_ratio, result.time_us, result.busbw_GBps, result.algorithm,
        transceivers=bom.optics_count, transceivers_switch_side=bom.counts["transceivers"]["switch_side"],
        failures_month=failures), True


def _evaluate_chunk(spec: SweepSpec, chunk: list[tuple[int, dict[str, Any]]]) -> list[SweepPoint]:
    # Runs in a worker process: the default catalog is loaded there once and cached.
    return [evaluate_point(spec, i, c) for i, c in chunk]


def pool_context() -> multiprocessing.context.BaseContext:
    """How the sweep's own pool starts its workers.

    Forking is quick and the workers inherit the warmed catalog, but a forked child keeps every
    lock as it was at the fork, held or not: if another thread held one (a content cache's, while
    the window computes the open design's figures), the child waits on it forever, and so does
    the sweep. So a fork is used only from the main thread of a process with no other Python
    thread (the command line); otherwise each worker starts afresh (spawn), as on macOS and
    Windows by default.
    """
    default = multiprocessing.get_context()
    alone = threading.current_thread() is threading.main_thread() and threading.active_count() == 1
    if default.get_start_method() == "fork" and not alone:
        return multiprocessing.get_context("spawn")
    return default


def _warm_up() -> None:
    """Load what every point reads (the catalog, the failure rates) once per process: before
    the pool starts, so that forked workers inherit it, and in each worker that starts afresh."""
    default_catalog()
    with suppress(RateTableError):   # each point says so
        _rates()


def chunks_of(spec: SweepSpec, todo: list[tuple[int, dict[str, Any]]]) -> list[list[tuple[int, dict[str, Any]]]]:
    """The points in tasks of whole runs of the innermost axes (uplink speeds, tiers, switches,
    planes: as many of them as MAX_CHUNK points hold), at least CHUNK points a task, so that
    the points that build one fabric are measured by one worker."""
    run = 1
    for name in ("uplink_speeds", "tiers", "switches", "planes"):
        width = run * len(getattr(spec, name))
        if width > MAX_CHUNK:
            break
        run = width
    size = run * -(-CHUNK // run)   # below 2 x CHUNK where run < CHUNK, else run itself
    return [todo[i:i + size] for i in range(0, len(todo), size)]


def pareto(points: list[SweepPoint], x: str, y: str) -> set[int]:
    """Indices of the points no other point beats on both `x` and `y` (lower is better on both).

    Sorted by x then y, a point is on the front when its y is below every y seen so far, or
    when it equals the last front point on both (equal points are equally good).
    """
    usable = sorted((p for p in points if getattr(p, x) is not None and getattr(p, y) is not None),
                    key=lambda p: (getattr(p, x), getattr(p, y)))
    front, best, last = set(), math.inf, None
    for p in usable:
        key = (getattr(p, x), getattr(p, y))
        if key[1] < best or key == last:
            front.add(p.index)
            best, last = key[1], key
    return front


def dominates(a: SweepPoint, b: SweepPoint, x: str, y: str) -> bool:
    ax, ay, bx, by = getattr(a, x), getattr(a, y), getattr(b, x), getattr(b, y)
    return bool(ax <= bx and ay <= by and (ax < bx or ay < by))


def run_sweep(spec: SweepSpec, executor: Executor | None = None, progress: Callable[[int, int], None] | None = None,
              cancelled: Callable[[], bool] | None = None,
              workers: int | None = None) -> SweepResult:
    """Evaluate every combination of `spec`, spread over `executor` (a process pool by default).

    `progress(done, total)` is called as chunks finish; `cancelled()` returning True stops the
    sweep at the next chunk (the points done so far are returned). With the default catalog the
    work can run in other processes; pass `executor=None, workers=1` to stay in this process.
    """
    todo = list(enumerate(spec.choices()))
    total = len(todo)
    chunks = chunks_of(spec, todo)
    done: list[SweepPoint] = []
    own = None
    workers = workers if workers is not None else (os.cpu_count() or 1)
    if executor is None and workers > 1 and len(chunks) > 1:
        _warm_up()
        executor = own = ProcessPoolExecutor(max_workers=min(workers, len(chunks)), initializer=_warm_up,
                                             mp_context=pool_context())
    try:
        if executor is None:
            for chunk in chunks:
                if cancelled and cancelled():
                    break
                done += _evaluate_chunk(spec, chunk)
                if progress:
                    progress(len(done), total)
        else:
            futures = [executor.submit(_evaluate_chunk, spec, chunk) for chunk in chunks]
            for future in futures:
                if cancelled and cancelled():
                    for f in futures:
                        f.cancel()
                    break
                done += future.result()
                if progress:
                    progress(len(done), total)
    finally:
        if own is not None:
            own.shutdown(wait=True, cancel_futures=True)
    return mark_fronts(spec, done)


def mark_fronts(spec: SweepSpec, points: list[SweepPoint]) -> SweepResult:
    built = [p for p in points if p.ok]
    time_front = pareto(built, "capex_usd", "time_us")
    power_front = pareto(built, "capex_usd", "power_w")
    marked = [replace(p, front_cost_time=p.index in time_front, front_cost_power=p.index in power_front)
              for p in sorted(points, key=lambda p: p.index)]
    return SweepResult(spec, tuple(marked))
