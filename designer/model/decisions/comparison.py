"""Two to five designs side by side: cost, power, TCO, bandwidth, latency, collective time.

Each row holds one value per design and its delta against the first (baseline) design: in %,
or in percentage points on a row of shares and ratios (rows.Row.delta_unit).
The recommendation applies the InfiniBand-vs-Ethernet framework of the literature to the
designs' own numbers; its thresholds are heuristics, editable per design (performance.advice_*).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from designer.catalog import Catalog, default_catalog
from designer.model.common.units import size_label
from designer.model.decisions.advice import size_band, training_step
from designer.model.decisions.dollar_comparison import cost_rows, dollar_recommendation, training_costs
from designer.model.decisions.dollar_comparison import why_unpriced as _why_unpriced
from designer.model.decisions.flips import Flip, decide, price_flips, roce_flip, share_flip, sharp_flip
from designer.model.decisions.interruptions import Rate, RateTableError, load_rates, optics_failures_per_month
from designer.model.decisions.optics_sources import optics_sources
from designer.model.decisions.rows import HOURS_PER_YEAR as HOURS_PER_YEAR  # re-exported
from designer.model.decisions.rows import Row as Row
from designer.model.decisions.rows import energy_cost_usd as energy_cost_usd
from designer.model.decisions.training_cost import Confidence, TrainingCost
from designer.model.decisions.verdict import CloseCall
from designer.model.intent.design import FabricDesign
from designer.model.intent.perf_settings import PerformanceSettings
from designer.model.intent.serde import DesignValidationError
from designer.model.performance import fleet as fleet_mod
from designer.model.performance.collective_costs import CollectiveError, load_balancing_mode
from designer.model.performance.collectives import CollectiveResult, context_for, estimate
from designer.model.performance.training import StepEstimate, estimate_step
from designer.model.performance.workload import DEFAULT_WORKLOAD, SCHEDULE_NAMES, SCHEDULES, preset, presets
from designer.model.physical.bom import Bom, build_bom
from designer.model.physical.fabric_cost import shared_counts
from designer.model.topology.derive import Derived, derive, derive_as

# Designs one comparison holds: an InfiniBand design beside the four Ethernet options of
# `compare --counterpart ethernet` (counterpart.ETHERNET_CHOICES).
MAX_COMPARED = 5
SETTING_RANGES = {"years": (1, 100), "energy_usd_per_kwh": (0, 100), "pue": (1, 10), "params": (1, 1e16),
                  "compute_ms": (0, 1e9), "token_budget": (1e6, 1e16)}


@dataclass(frozen=True)
class CompareSettings:
    """Assumptions of a comparison. Energy price, PUE and the example job are the user's to set."""

    years: int = 5
    energy_usd_per_kwh: float = 0.10  # assumption: set your site's tariff
    pue: float = 1.3                  # assumption: set your data hall's power usage effectiveness
    sizes: tuple[int, ...] = (1 << 20, 1 << 30)  # 1 MiB (latency-bound) and 1 GiB (bandwidth-bound)
    # The example training job: a named workload that fits in memory (resources/perf/workloads.toml),
    # its compute time from FLOPs at the design's MFU. With workload None, the gradient-only
    # view: `params` of gradients all-reduced per step with `compute_ms` of compute (illustrative).
    params: float = 70e9
    compute_ms: float = 1000.0
    workload: str | None = DEFAULT_WORKLOAD
    # Tokens the example job trains, for "time to train" (an assumption: set your run's budget).
    token_budget: float = 1e12
    # The fleet the job runs in, the same for every design (None: the first design's setting,
    # else resources/perf/fleet.toml's default; the placement is always the fleet's unless given).
    placement: str | None = None
    occupancy: float | None = None
    background_load: float | None = None
    placement_seed: int | None = None
    # The job's batch and pipeline schedule (None: each design's setting, else the workload's).
    global_batch_tokens: int | None = None
    micro_batch: int | None = None
    pipeline_schedule: str | None = None
    virtual_stages: int | None = None

    @property
    def job_text(self) -> str:
        if self.workload:
            return f"example job {preset(self.workload).name}, compute from FLOPs at the designs' MFU"
        return f"example job {self.params / 1e9:g}B parameters with {self.compute_ms:,.0f} ms compute per step"

    def __post_init__(self) -> None:
        # Finite and in range: NaN fails every comparison, so `not low <= v <= high` refuses it.
        for name, (low, high) in SETTING_RANGES.items():
            if not low <= getattr(self, name) <= high:
                raise DesignValidationError(name, f"must be {low:g} to {high:g}, got {getattr(self, name)!r}")
        if self.workload is not None and self.workload not in presets():
            raise DesignValidationError("workload", f"unknown workload '{self.workload}' (choose from "
                                        f"{', '.join(presets())})")
        if not self.sizes or any(not 1 <= s <= 2**50 for s in self.sizes):
            raise DesignValidationError("sizes", "give at least one message size of 1 byte or more")
        if self.placement is not None and self.placement not in fleet_mod.PLACEMENTS:
            raise DesignValidationError("placement", f"unknown placement '{self.placement}' (choose from "
                                        f"{', '.join(fleet_mod.PLACEMENTS)})")
        # The same checks as a project file's performance settings.
        PerformanceSettings(occupancy=self.occupancy, background_load=self.background_load,
                            placement_seed=self.placement_seed or 0, global_batch_tokens=self.global_batch_tokens,
                            micro_batch=self.micro_batch, virtual_stages=self.virtual_stages)
        if self.pipeline_schedule is not None and self.pipeline_schedule not in SCHEDULES:
            raise DesignValidationError("pipeline_schedule", f"unknown pipeline schedule '{self.pipeline_schedule}' "
                                        f"(choose from {', '.join(SCHEDULES)})")

    def fleet(self, first: PerformanceSettings) -> fleet_mod.FleetAssumptions:
        """The fleet assumed for every design: what is set here, else the first design's, else the defaults."""
        return fleet_mod.assumptions(first, self.placement, self.occupancy, self.background_load, self.placement_seed)

    def applied(self, design: FabricDesign, assumed: fleet_mod.FleetAssumptions) -> FabricDesign:
        """The design with the comparison's job and fleet assumptions in its performance settings."""
        perf = design.performance
        changes: dict[str, Any] = {"placement": assumed.placement, "occupancy": assumed.occupancy,
                                   "background_load": assumed.background_load, "placement_seed": assumed.seed}
        for key in ("global_batch_tokens", "micro_batch", "pipeline_schedule", "virtual_stages"):
            if getattr(self, key) is not None:
                changes[key] = getattr(self, key)
        if all(getattr(perf, k) == v for k, v in changes.items()):
            return design
        return replace(design, performance=replace(perf, **changes))


@dataclass(frozen=True)
class Recommendation:
    verdict: str
    family: str                   # "infiniband", "ethernet" or "" when the designs do not differ
    reasons: tuple[str, ...]
    heuristic: bool = True
    flips: tuple[Flip, ...] = ()   # break-even of each assumption behind the verdict (flips.py)
    # Set when the design cheapest at book prices is not the one cheapest in the most draws.
    close_call: CloseCall | None = None


@dataclass(frozen=True)
class Comparison:
    names: tuple[str, ...]
    technologies: tuple[str, ...]
    families: tuple[str, ...]
    rows: tuple[Row, ...]
    recommendation: Recommendation
    warnings: tuple[str, ...] = ()
    settings: CompareSettings = field(default_factory=CompareSettings)
    steps: tuple[StepEstimate | None, ...] = ()   # each design's training step (None where it cannot run)
    costs: tuple[TrainingCost, ...] = ()   # each design's cost of training; () when unpriced
    confidence: Confidence | None = None
    # Where the figures that set a pluggable fabric apart from a co-packaged-optics one come from
    # (transceivers, power, failures), one line each; () when no design has a CPO switch.
    sources: tuple[str, ...] = ()
    fleet: fleet_mod.FleetAssumptions | None = None   # the placement and background load assumed

    def row(self, key: str) -> Row:
        return next(r for r in self.rows if r.key == key)

    def _job(self, key: str) -> Any:
        """The example job's figure: the workload's own when one is set (the first design's step)."""
        if self.settings.workload:
            step = self.steps[0] if self.steps else None
            return getattr(step, key) if step is not None else None
        return getattr(self.settings, key)

    def _batch_json(self) -> dict[str, Any]:
        step = self.steps[0] if self.steps else None
        if step is None or step.workload is None or step.plan is None:
            return {}
        p = step.plan
        return {"global_batch_tokens": step.workload.global_batch_tokens, "micro_batch": step.workload.micro_batch,
                "pipeline_schedule": p.schedule, "virtual_stages": p.virtual_stages, "batch_basis": p.batch_basis}

    def job_lines(self) -> list[str]:
        """What the comparison assumed of the job and its fleet, one line each, for text and window."""
        out = []
        step0 = self.steps[0] if self.steps else None
        if self.fleet is not None:
            fills = (self.fleet.placement == "scattered" and step0 is not None and self.rows
                     and step0.gpus >= (self.row("gpus").values[0] or 0))
            out.append(f"fleet: {self.fleet.text()}" + (
                " (the job fills the cluster: its servers are ranked in a random order, the occupancy has "
                "no effect)" if fills else ""))
            out += [f"  basis of {b}" for b in self.fleet.bases]
        step = self.steps[0] if self.steps else None
        if step is not None and step.workload is not None and step.plan is not None:
            p = step.plan
            sched = SCHEDULE_NAMES.get(p.schedule, p.schedule) + (
                f" with {p.virtual_stages} virtual stages" if p.virtual_stages > 1 else "")
            out.append(f"batch: {step.workload.global_batch_tokens:,} tokens per step, micro-batch "
                       f"{step.workload.micro_batch}, {p.micro_batches} micro-batches per pipeline, {sched} "
                       f"schedule (bubble {step.bubble_ms:,.0f} ms, {step.bubble_ms / step.step_ms:.0%} of "
                       f"{step.step_ms:,.0f} ms step on {self.names[0]}); batch {p.batch_basis}")
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "designs": [{"name": n, "technology": t, "family": f}
                        for n, t, f in zip(self.names, self.technologies, self.families, strict=True)],
            "baseline": self.names[0],
            "rows": [{"key": r.key, "label": r.label, "unit": r.unit, "group": r.group, "better": r.better,
                      "values": list(r.values), "delta_pct": list(r.delta_pct), "delta_pt": list(r.delta_pt),
                      "delta_unit": r.delta_unit} for r in self.rows],
            "recommendation": {"verdict": self.recommendation.verdict, "family": self.recommendation.family,
                               "reasons": list(self.recommendation.reasons), "heuristic": True,
                               "flips": [f.to_json() for f in self.recommendation.flips],
                               "close_call": (self.recommendation.close_call.to_json(self.names)
                                              if self.recommendation.close_call is not None else None)},
            "warnings": list(self.warnings),
            "assumptions": {"years": self.settings.years, "energy_usd_per_kwh": self.settings.energy_usd_per_kwh,
                            "pue": self.settings.pue, "params": self._job("params"),
                            "compute_ms": self._job("compute_ms"), "sizes": list(self.settings.sizes),
                            "workload": self.settings.workload, "token_budget": self.settings.token_budget,
                            **self._batch_json(), "fleet": self.fleet.to_json() if self.fleet else None},
            "training_cost": [c.to_json() for c in self.costs],
            "confidence": self.confidence.to_json(self.names) if self.confidence is not None else None,
            "sources": list(self.sources),
        }


@dataclass(frozen=True)
class _Column:
    derived: Derived
    bom: Bom
    step: StepEstimate | None
    collectives: dict[tuple[str, int], CollectiveResult]
    # The same training step under other performance settings (for the break-evens); None if none.
    rerun: Callable[..., StepEstimate | None] | None = None
    step_error: str = ""


def _column(design: FabricDesign, s: CompareSettings, catalog: Catalog, gpus: int,
            beside: Sequence[Derived] = (), as_sized: FabricDesign | None = None) -> _Column:
    d = derive(design, catalog)
    # the counts sizing computed for this fabric, or for one physically alike (a counterpart's
    # candidates were counted while its switch was chosen). The fleet assumptions the comparison
    # writes into the performance settings move no cable, nor switch (sizing and the physical
    # layer never read them): the design as sized (`as_sized`), on the same resolved parts and
    # plan, finds the counts its sizing left, where the fleet's copy of it would count them again.
    sized = d if as_sized is None else Derived(as_sized, d.resolved, d.plan)
    bom = build_bom(d, catalog, physical=shared_counts(sized, catalog))
    results = {}
    for collective in ("allreduce", "alltoall"):
        for size in s.sizes:
            results[(collective, size)] = estimate(d, collective, size, gpus=gpus)

    job = dict(workload=s.workload) if s.workload else dict(params=s.params, compute_ms=s.compute_ms)

    memo: dict[tuple[tuple[str, Any], ...], StepEstimate | None] = {}

    def rerun(**perf: Any) -> StepEstimate | None:
        # The step alone: the break-evens need its time and share, not the advice's counterpart.
        # The confidence and the break-evens ask some settings alike (the other placement): once.
        key = tuple(sorted(perf.items()))
        if key in memo:
            return memo[key]
        settings = replace(d.design.performance, **perf)
        try:
            out: StepEstimate | None = estimate_step(d, gpus=gpus, settings=settings, **job)
        except CollectiveError:
            out = None
        memo[key] = out
        return out

    error = ""
    try:
        step = training_step(d, gpus=gpus, catalog=catalog, beside=beside, **job)
    except CollectiveError as exc:
        step, error = None, str(exc)
    return _Column(d, bom, step, results, rerun, error)


def compare(designs: list[FabricDesign], settings: CompareSettings | None = None,
            catalog: Catalog | None = None) -> Comparison:
    """Compare 2 to MAX_COMPARED designs; the first is the baseline for the deltas."""
    if not 2 <= len(designs) <= MAX_COMPARED:
        raise ValueError(f"compare takes 2 to {MAX_COMPARED} designs, got {len(designs)}")
    s = settings or CompareSettings()
    catalog = catalog or default_catalog()
    assumed = s.fleet(designs[0].performance)
    as_sized = designs
    designs = [s.applied(d, assumed) for d in designs]
    # the assumptions move no switch nor cable: each design as sized gives its parts, plan and metrics
    derived = [derive_as(d, derive(sized, catalog), catalog) for d, sized in zip(designs, as_sized, strict=True)]
    gpu_counts = [d.metrics.gpus for d in derived]
    warnings = []
    if len(set(gpu_counts)) > 1:
        warnings.append("the designs have different GPU counts (" + ", ".join(f"{g:,}" for g in gpu_counts)
                        + f"); collective and training figures use {min(gpu_counts):,} GPUs on each")
    job = min(gpu_counts)
    # Each design's rule-of-thumb context reads a compared design of the other family, if any.
    cols = [_column(d, s, catalog, job, [o for o in derived if o is not own], sized)
            for d, own, sized in zip(designs, derived, as_sized, strict=True)]
    for name, col in zip((d.meta.name for d in designs), cols, strict=True):
        for finding in col.derived.metrics.errors:
            warnings.append(f"{name}: {finding.message}")
        if col.step_error:
            warnings.append(f"{name}: the example job cannot run: {col.step_error}")
        if col.bom.unpriced:
            warnings.append(f"{name}: {len(col.bom.unpriced)} item(s) have no price; its cost reads low")
        r = col.derived.resolved
        _, fallback = load_balancing_mode(r.technology, r, col.derived.design.performance)
        if fallback:
            warnings.append(f"{name}: {fallback}")
    rows = _rows(cols, s)
    names = tuple(d.meta.name for d in designs)
    costs: Sequence[TrainingCost] = ()
    conf: Confidence | None = None
    priced = training_costs(names, cols, s)
    rec = recommend(cols, rows, s, with_flips=priced is None)
    if priced is None:
        rec = replace(rec, reasons=rec.reasons + (
            "no verdict in dollars of training: " + _why_unpriced(cols),))
    else:
        costs, sens, conf = priced
        rows += cost_rows(costs, conf, s)
        rec = dollar_recommendation(cols, costs, sens, conf, rec, s, names)
    try:
        rates: tuple[Rate, ...] | None = load_rates()
    except RateTableError:
        rates = None
    return Comparison(names, tuple(c.derived.resolved.technology.id for c in cols),
                      tuple(c.derived.resolved.family for c in cols), tuple(rows), rec, tuple(warnings), s,
                      tuple(c.step for c in cols), tuple(costs), conf,
                      optics_sources([c.derived for c in cols], rates), assumed)


def base_latency_us(d: Derived) -> float:
    """NIC to NIC across the longest path: two NICs and one latency per switch (catalog estimates)."""
    tech = d.resolved.technology
    switch_ns = max(sw.latency_ns for sw in (d.resolved.leaf_switch, d.resolved.spine_switch)) or tech.switch_latency_ns
    return (2 * tech.nic_latency_ns + d.metrics.max_hops * switch_ns) / 1000


def _failures(c: _Column, rates: tuple[Rate, ...] | None) -> float | None:
    if rates is None:
        return None
    return optics_failures_per_month(c.bom.counts["links_total"], c.bom.optics_count, rates)


def _rows(cols: list[_Column], s: CompareSettings) -> list[Row]:
    try:  # resources/reliability/failure_rates.toml, each rate with its source
        rates = load_rates()
    except RateTableError:
        rates = None

    def row(key: str, label: str, unit: str, values: Sequence[float | None], better: str = "",
            group: str = "") -> Row:
        return Row(key, label, unit, tuple(None if v is None else float(v) for v in values), better, group)

    out = [
        row("gpus", "GPUs", "", [c.derived.metrics.gpus for c in cols], "", "Cluster"),
        row("switches", "Switches", "", [c.derived.metrics.switches_total for c in cols], "lower", "Hardware"),
        row("optics", "Transceivers", "", [c.bom.optics_count for c in cols], "lower", "Hardware"),
        row("optics_switch_side", "Transceivers, switch side", "",
            [c.bom.counts["transceivers"]["switch_side"] for c in cols], "lower", "Hardware"),
        row("cables", "Cables and fibers", "", [c.bom.cable_count for c in cols], "lower", "Hardware"),
        row("nics", "NICs", "", [c.bom.counts_by_category.get("NICs", 0) for c in cols], "", "Hardware"),
        row("capex_usd", "Capex (network)", "USD", [c.bom.total_cost for c in cols], "lower", "Cost"),
        row("power_kw", "Power (network)", "kW", [c.bom.total_power_w / 1000 for c in cols], "lower", "Cost"),
        row("opex_usd", f"Energy over {s.years} years", "USD",
            [energy_cost_usd(c.bom.total_power_w, s) for c in cols], "lower", "Cost"),
    ]
    tco = [c.bom.total_cost + energy_cost_usd(c.bom.total_power_w, s) for c in cols]
    out += [
        row("tco_usd", f"TCO over {s.years} years", "USD", tco, "lower", "Cost"),
        row("tco_per_gpu_usd", "TCO per GPU", "USD",
            [t / c.derived.metrics.gpus for t, c in zip(tco, cols, strict=True)], "lower", "Cost"),
        row("bisection_tbps", "Bisection", "Tb/s", [c.derived.metrics.bisection_gbps / 1000 for c in cols],
            "higher", "Fabric"),
        row("bisection_ratio", "Bisection ratio", "%", [c.derived.metrics.bisection_ratio * 100 for c in cols],
            "higher", "Fabric"),
        row("max_hops", "Max switch hops", "", [c.derived.metrics.max_hops for c in cols], "lower", "Fabric"),
        row("failures_month", "Link and optics failures / month (estimate)", "",
            [_failures(c, rates) for c in cols], "lower", "Fabric"),
        row("base_latency_us", "Base latency (estimate)", "us", [base_latency_us(c.derived) for c in cols],
            "lower", "Fabric"),
    ]
    for collective, title in (("allreduce", "All-reduce"), ("alltoall", "All-to-all")):
        for size in s.sizes:
            res = [c.collectives[(collective, size)] for c in cols]
            out.append(row(f"{collective}_{size}_time_us", f"{title} {size_label(size)} time", "us",
                           [r.time_us for r in res], "lower", "Collectives"))
            out.append(row(f"{collective}_{size}_busbw", f"{title} {size_label(size)} busbw", "GB/s",
                           [r.busbw_GBps for r in res], "higher", "Collectives"))
    steps = [c.step for c in cols]
    out.append(row("step_ms", "Training step time", "ms",
                   [st.step_ms if st else None for st in steps], "lower", "Training job"))
    out.append(row("comm_share", "Communication share of step", "%",
                   [st.comm_share * 100 if st else None for st in steps], "lower", "Training job"))
    out.append(row("scaleout_share", "Scale-out network share of step", "%",
                   [st.scaleout_share * 100 if st else None for st in steps], "lower", "Training job"))
    out.append(row("pipeline_bubble_ms", "Pipeline bubble", "ms",
                   [st.bubble_ms if st else None for st in steps], "lower", "Training job"))
    return out


def _pct(a: float, b: float) -> str:
    return f"{(a - b) / b * 100:+.0f}%" if b else "n/a"


def _money(v: float) -> str:
    return f"${v / 1e6:,.2f}M" if abs(v) >= 1e6 else f"${v:,.0f}"


def recommend(cols: list[_Column], rows: list[Row], s: CompareSettings, with_flips: bool = True) -> Recommendation:
    """The framework of the InfiniBand-vs-Ethernet literature, applied to these designs."""
    fams = [c.derived.resolved.family for c in cols]
    # The TCO row has a figure for every design.
    tco = [0.0 if v is None else v for v in {r.key: r for r in rows}["tco_usd"].values]
    perf = cols[0].derived.design.performance
    eth_max, ib_min, limit = (perf.advice_ethernet_max_gpus, perf.advice_infiniband_min_gpus,
                              perf.advice_comm_share)
    heuristics = (f"thresholds {eth_max:,} / {ib_min:,} GPUs and {limit:.0%} of step time are editable "
                  "heuristics from the literature (performance.advice_*), not measurements")
    if "infiniband" not in fams or "ethernet" not in fams:
        cheapest = min(range(len(cols)), key=lambda i: tco[i])
        return Recommendation(
            f"All designs are {fams[0]}: add a counterpart on the other family to weigh InfiniBand "
            f"against Ethernet. Lowest TCO: {cols[cheapest].derived.design.meta.name}.", "",
            (f"TCO over {s.years} years: " + ", ".join(f"{c.derived.design.meta.name} {_money(t)}"
                                                        for c, t in zip(cols, tco, strict=True)), heuristics))
    ib = min((i for i, f in enumerate(fams) if f == "infiniband"), key=lambda i: tco[i])
    eth = min((i for i, f in enumerate(fams) if f == "ethernet"), key=lambda i: tco[i])
    ci, ce = cols[ib], cols[eth]
    n = ci.derived.metrics.gpus
    name_i, name_e = ci.derived.resolved.technology.name, ce.derived.resolved.technology.name
    # Only the scale-out network's share enters the thresholds (NVLink time is the same on both).
    share_e = ce.step.scaleout_share if ce.step else None
    share_i = ci.step.scaleout_share if ci.step else None
    big = max(s.sizes)
    ar_i, ar_e = ci.collectives[("allreduce", big)], ce.collectives[("allreduce", big)]
    reasons = []
    band = size_band(n, perf)
    # The literature's case for Ethernet below the InfiniBand band is its lower cost; when these
    # designs say otherwise, the premise fails and the faster, cheaper fabric is the answer.
    eth_cheaper = tco[eth] <= tco[ib]
    cost_premise = (f"but the usual reason for Ethernet, lower cost, does not hold here: its TCO over "
                    f"{s.years} years is {_money(tco[eth])} against {_money(tco[ib])} for {name_i} "
                    f"({_pct(tco[eth], tco[ib])})")
    family = decide(band, eth_cheaper, share_e, limit)
    if band == "ethernet":
        reasons.append(f"{n:,} GPUs is within the up-to-{eth_max:,} band where Ethernet with RoCE is the "
                       "usual default")
        if not eth_cheaper:
            reasons.append(cost_premise)
        if share_e is not None and share_e > limit:
            reasons.append(f"scale-out communication already takes {share_e:.0%} of the example step on {name_e}, "
                           f"above {limit:.0%}: check bandwidth per GPU before settling on either fabric")
    elif band == "middle":
        reasons.append(f"{n:,} GPUs is in the {eth_max:,}-{ib_min:,} band: Ethernet stays attractive unless "
                       f"scale-out communication passes about {limit:.0%} of step time")
        if not eth_cheaper:
            reasons.append(cost_premise)
    else:
        reasons.append(f"{n:,} GPUs is above about {ib_min:,}, where InfiniBand's latency advantage compounds")
    if share_e is not None and share_i is not None and ce.step is not None:
        side = "above" if share_e > limit else "below"
        what_extra = ""
        if ce.step.workload is not None and ce.step.plan is not None and ce.step.memory is not None:
            p = ce.step.plan
            job = (f"the example job ({ce.step.workload.name}: TP {p.tp} x PP {p.pp} x DP {p.dp}"
                   + (f", EP {p.ep}" if p.ep > 1 else "") + f", ZeRO-{p.zero}; {ce.step.memory.total / 1e9:,.0f} of "
                   f"{ce.step.memory.capacity / 1e9:,.0f} GB per GPU; {ce.step.compute_ms:,.0f} ms compute at "
                   f"{ce.step.mfu:.0%} MFU, a heuristic)")
            what = "scale-out communication not hidden behind compute"
            st_e = ce.step
            if st_e.nvlink_comm_ms:
                what_extra = (f" (NVLink adds {st_e.nvlink_comm_ms:,.0f} ms on both fabrics alike, and counts in no "
                              "threshold)")
            if st_e.bubble_ms:
                what_extra += (f"; the pipeline bubble, {st_e.bubble_ms:,.0f} ms ((PP - 1) / {p.micro_batches} "
                               "micro-batches of the compute, 1F1B), is in the step time")
        else:
            job = f"the example job ({s.params / 1e9:g}B parameters, {s.compute_ms:,.0f} ms compute)"
            what = "gradient all-reduce"
        reasons.append(f"for {job}, {what} takes {share_e:.0%} of the step on {name_e} ({side} {limit:.0%}) "
                       f"and {share_i:.0%} on {name_i}{what_extra}")
    reasons.append(f"all-reduce of {size_label(big)}: {ar_e.time_us / 1000:,.2f} ms on {name_e} "
                   f"({ar_e.algorithm}, {ar_e.busbw_GBps:,.0f} GB/s busbw) against "
                   f"{ar_i.time_us / 1000:,.2f} ms on {name_i} ({ar_i.algorithm}, {ar_i.busbw_GBps:,.0f} GB/s); "
                   f"Ethernet is {_pct(ar_e.time_us, ar_i.time_us)}")
    if "sharp" in ar_i.algorithm:
        reasons.append("the InfiniBand figure uses SHARP in-network reduction, which no published "
                       "multi-node measurement in the reference set confirms: treat it as an upper bound")
    reasons.append(f"capex {_money(ce.bom.total_cost)} ({name_e}) against {_money(ci.bom.total_cost)} ({name_i}): "
                   f"Ethernet is {_pct(ce.bom.total_cost, ci.bom.total_cost)}; network power "
                   f"{ce.bom.total_power_w / 1000:,.1f} kW against {ci.bom.total_power_w / 1000:,.1f} kW "
                   f"({_pct(ce.bom.total_power_w, ci.bom.total_power_w)}); TCO over {s.years} years "
                   f"{_money(tco[eth])} against {_money(tco[ib])} ({_pct(tco[eth], tco[ib])})")
    adaptive = ce.derived.resolved.technology.adaptive_routing
    reasons.append("RoCE needs lossless or near-lossless behaviour (PFC, ECN), quality optics and validation "
                   "at application level; " + ("this Ethernet design assumes adaptive routing" if adaptive else
                                               "this Ethernet design uses static ECMP hashing, which loses "
                                               "uplink bandwidth to flow collisions"))
    reasons.append("InfiniBand brings SHARP and adaptive routing but needs specialised operations skills "
                   "(subnet manager, UFM) and a single-vendor supply chain")
    reasons.append(heuristics)
    chosen = name_i if family == "infiniband" else name_e
    verdict = (f"{chosen} ({'InfiniBand' if family == 'infiniband' else 'Ethernet/RoCE'}) fits this "
               f"{n:,}-GPU cluster better, by the rule of thumb applied to these designs' numbers.")
    # The rule of thumb's own break-evens, only where it still decides (no verdict in dollars).
    flips = _flips(ci, ce, band, family, eth_cheaper, share_e, share_i, limit, s) if with_flips else []
    return Recommendation(verdict, family, tuple(reasons), flips=tuple(flips))


def _flips(ci: _Column, ce: _Column, band: str, family: str, eth_cheaper: bool, share_e: float | None,
           share_i: float | None, limit: float, s: CompareSettings) -> list[Flip]:
    """The break-even of price, communication share, SHARP and RoCE efficiency (designer/model/decisions/flips.py)."""
    tco_i = ci.bom.total_cost + energy_cost_usd(ci.bom.total_power_w, s)
    energy_e = energy_cost_usd(ce.bom.total_power_w, s)
    out = price_flips(band, family, share_e, limit, ce.bom.total_cost, ci.bom.total_cost, energy_e, tco_i, s.years)
    out.append(share_flip(band, family, eth_cheaper, share_e, limit))
    perf_i = ci.derived.design.performance
    capable = ci.step is not None and context_for(ci.derived, ci.step.gpus).sharp_capable
    toggled = ci.rerun(sharp=not perf_i.sharp) if ci.rerun and ci.step is not None else None
    out.append(sharp_flip(family, perf_i.sharp, capable, share_i, toggled.scaleout_share if toggled else None))
    perf_e = ce.derived.design.performance
    current = perf_e.protocol_efficiency or ce.derived.resolved.technology.protocol_efficiency

    def share_at(e: float) -> float | None:
        st = ce.rerun(protocol_efficiency=e) if ce.rerun else None
        return st.scaleout_share if st is not None else None

    if ce.step is None:
        out.append(Flip("roce_efficiency", current, None, "share of line rate",
                        "no training step on the Ethernet design"))
    elif decide(band, eth_cheaper, 0.0, limit) == decide(band, eth_cheaper, 1.0, limit):
        out.append(Flip("roce_efficiency", current, None, "share of line rate",
                        "the verdict does not depend on Ethernet's communication share here"))
    else:
        out.append(roce_flip(band, family, eth_cheaper, limit, current, share_at))
    return out
