"""Rule-of-thumb advice on the fabric family, from a design's training-step estimate.

The advice applies the decision framework of the InfiniBand-vs-Ethernet literature
(REFERENCE.md), labelled as heuristics with editable thresholds, to this design's own numbers,
and sets them beside the same cluster on the other fabric family (its counterpart).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from designer.catalog import Catalog, Technology, UnknownPartError, default_catalog
from designer.model.decisions.counterpart import COUNTERPART_TECHNOLOGIES, make_counterpart
from designer.model.intent.perf_settings import PerformanceSettings
from designer.model.performance.collective_costs import CollectiveError, FabricContext, build_context
from designer.model.performance.collectives import context_for
from designer.model.performance.training import StepEstimate, estimate_step, step_on
from designer.model.topology.derive import Derived, derive


@dataclass(frozen=True)
class Advice:
    """The rule of thumb applied to this design; `heuristic` is always True: these are not measurements."""

    verdict: str
    reasons: tuple[str, ...]
    thresholds: dict[str, float]
    heuristic: bool = True

    def lines(self) -> list[str]:
        return [self.verdict] + [f"- {r}" for r in self.reasons]


def _counterpart_context(derived: Derived, settings: PerformanceSettings, gpus: int, placement: str,
                         catalog: Catalog, beside: Sequence[Derived] = ()) -> tuple[Technology, FabricContext] | None:
    """The same cluster on the other fabric family, for the advice; None when none fits.

    A design of the other family compared beside this one (`beside`) is that cluster as the user
    has it. Else a full counterpart design (switches, NICs and sizing redone, designer/model/
    decisions/counterpart.py); when that cannot be sized, the technology swapped on this topology.
    """
    tech = derived.resolved.technology
    for other_design in beside:
        if other_design.resolved.technology.family != tech.family:
            try:
                return (other_design.resolved.technology,
                        build_context(other_design, gpus, placement, settings))
            except (ValueError, UnknownPartError):
                break
    others = [t for t in catalog.technologies.values() if t.family != tech.family]
    if not others:
        return None
    others.sort(key=lambda t: (t.link_gbps != tech.link_gbps, t.id not in COUNTERPART_TECHNOLOGIES))
    other = others[0]
    try:
        design = make_counterpart(derived.design, other.id, catalog).design
        return other, build_context(derive(design, catalog), gpus, placement, settings)
    except (ValueError, UnknownPartError):   # SizingError, CollectiveError, a design it cannot build
        pass
    try:
        return other, build_context(derived, gpus, placement, settings, other, catalog)
    except (ValueError, UnknownPartError):
        return None


def training_step(derived: Derived, params: float | None = None, bytes_per_grad: int | None = None,
                  dp_degree: int | None = None, compute_ms: float | None = None, gpus: int | None = None,
                  placement: str | None = None, settings: PerformanceSettings | None = None,
                  catalog: Catalog | None = None, workload: str | None = None,
                  beside: Sequence[Derived] = ()) -> StepEstimate:
    """Communication per training step and its share of the step, with the rule-of-thumb advice;
    `beside`: the designs compared with this one (the advice sets it beside one of the other
    family among them rather than size a counterpart afresh)."""
    settings = settings or derived.design.performance
    est = estimate_step(derived, params, bytes_per_grad, dp_degree, compute_ms, gpus, placement, settings,
                        workload=workload)
    placement = context_for(derived, gpus, placement, settings).placement
    alt: tuple[Technology, float, float] | None = None
    found = _counterpart_context(derived, settings, est.gpus, placement, catalog or default_catalog(), beside)
    if found is not None:
        other, alt_ctx = found
        try:
            alt_est = step_on(alt_ctx, est, settings)
            alt = (other, alt_est.scaleout_share, alt_est.small_allreduce_us)
        except CollectiveError:
            alt = None
    return _with_advice(est, settings, alt)


_NECK = {"NIC": "the NICs", "latency": "latency: many small all-reduces"}


def size_band(gpus: int, s: PerformanceSettings) -> str:
    """Which band of the literature's rule of thumb a cluster falls in (heuristic thresholds).

    "ethernet": up to advice_ethernet_max_gpus, where RoCE is the usual default;
    "middle": up to advice_infiniband_min_gpus, where the communication share decides;
    "infiniband": beyond it, where InfiniBand's latency advantage compounds.
    """
    if gpus <= s.advice_ethernet_max_gpus:
        return "ethernet"
    return "middle" if gpus <= s.advice_infiniband_min_gpus else "infiniband"


def _with_advice(est: StepEstimate, s: PerformanceSettings,
                 alt: tuple[Technology, float, float] | None) -> StepEstimate:
    eth_max, ib_min, limit = s.advice_ethernet_max_gpus, s.advice_infiniband_min_gpus, s.advice_comm_share
    n = est.gpus
    fabric = "InfiniBand" if est.family == "infiniband" else "Ethernet/RoCE"
    if est.workload is not None and est.plan is not None:   # the workload view carries its plan
        p = est.plan
        numbers = (f"this job: {est.workload.name} on {n:,} GPUs, TP {p.tp} x PP {p.pp} x DP {p.dp}"
                   + (f" (EP {p.ep})" if p.ep > 1 else "") + f", ZeRO-{p.zero}; "
                   + "; ".join(f"{c.name} {c.exposed_ms:,.1f} ms" for c in est.collectives)
                   + (f"; pipeline bubble {est.bubble_ms:,.1f} ms ((PP - 1) / {p.micro_batches} micro-batches "
                      "of the compute, 1F1B)" if est.bubble_ms else "")
                   + f"; communication {est.comm_share:.0%} of a {est.step_ms:,.1f} ms step, of which the "
                   f"scale-out network {est.scaleout_share:.0%} ({est.scaleout_ms:,.1f} ms) and NVLink "
                   f"{est.nvlink_comm_ms:,.1f} ms, on {fabric}")
    else:
        numbers = (f"this job: {n:,} GPUs, data-parallel degree {est.dp_degree:,}; gradient all-reduce "
                   f"{est.comm_ms:,.1f} ms per step ({est.buckets:,} bucket(s) of up to "
                   f"{est.bucket_bytes / 2**20:g} MiB, {est.algorithm}/{est.protocol}, limited by "
                   f"{est.bottleneck}); {est.comm_share:.0%} of a {est.step_ms:,.1f} ms step on {fabric}, "
                   f"{est.scaleout_share:.0%} across the scale-out network")
    reasons = [numbers]
    # Only the scale-out network's share can tell one fabric from another: NVLink tensor parallel
    # time is the same on both, so it never enters a threshold.
    share = est.scaleout_share
    if share > limit:
        reasons.append(f"scale-out communication takes {share:.0%} of the step, above the {limit:.0%} mark: "
                       f"the limit is {_NECK.get(est.bottleneck, est.bottleneck)}; larger buckets"
                       f" (performance.bucket_bytes) "
                       "pay fewer latencies, and overlap with compute (performance.comm_overlap) hides some")
    band = size_band(n, s)
    if band == "ethernet":
        verdict = (f"Up to about {eth_max:,} GPUs, Ethernet with RoCE is the usual default "
                   "(heuristic); at this size the fabric family matters less than bandwidth per GPU.")
    elif band == "middle":
        if share > limit:
            verdict = (f"Between {eth_max:,} and {ib_min:,} GPUs Ethernet stays attractive unless "
                       f"scale-out communication passes about {limit:.0%} of step time (heuristic); here it is "
                       f"{share:.0%}, so InfiniBand's latency and in-network reduction are worth pricing.")
        else:
            verdict = (f"Between {eth_max:,} and {ib_min:,} GPUs Ethernet stays attractive while "
                       f"scale-out communication stays under about {limit:.0%} of step time (heuristic); here it "
                       f"is {share:.0%}.")
    else:
        verdict = (f"Beyond about {ib_min:,} GPUs InfiniBand's latency advantage compounds (heuristic): "
                   "every all-reduce pays the network latency on each of its steps.")
    reasons.append(f"an 8 B all-reduce on this group takes {est.small_allreduce_us:,.1f} us on this design: "
                   "the latency floor each bucket pays")
    if alt is not None:
        other, alt_share, alt_small = alt
        reasons.append(f"the same cluster on {other.name} would spend {alt_share:.0%} of the step "
                       f"communicating across the scale-out network, with an 8 B all-reduce at {alt_small:,.1f} us "
                       "(catalog efficiencies and latencies, which are estimates)")
    if est.family == "ethernet":
        reasons.append("RoCE needs lossless or near-lossless behaviour (PFC, ECN) and validation at "
                       "application level; InfiniBand brings SHARP and adaptive routing")
    reasons.append(f"thresholds {eth_max:,} / {ib_min:,} GPUs and {limit:.0%} are editable heuristics "
                   "(performance.advice_*), not measurements")
    advice = Advice(verdict, tuple(reasons), {"ethernet_max_gpus": eth_max, "infiniband_min_gpus": ib_min,
                                              "comm_share": limit})
    return replace(est, advice=advice)
