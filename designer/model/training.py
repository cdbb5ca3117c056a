"""Training-step view: how much of a step data-parallel gradient all-reduce takes on a design.

A step all-reduces the gradients of its model replica across the data-parallel group. With
model parallelism (degree m = job GPUs / DP degree) each GPU holds 1/m of the gradients and
its DP group takes one GPU from every m, so each NVLink domain holds domain_GPUs / m ranks of
every group and all groups run at once, each on its own GPUs and NICs. Gradients go in
buckets (PyTorch DDP's 25 MiB by default), one all-reduce each; a step pays every bucket's
latency. `comm_overlap` hides a share behind backward compute (0 by default: the worst case).

The advice applies the decision framework of the InfiniBand-vs-Ethernet literature
(REFERENCE.md), labelled as heuristics with editable thresholds, to this design's own numbers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from designer.catalog import Catalog, UnknownPartError, default_catalog
from designer.model.collective_costs import CollectiveError, build_context
from designer.model.collectives import context_for, evaluate
from designer.model.counterpart import COUNTERPART_TECHNOLOGIES, make_counterpart
from designer.model.derive import derive
from designer.model.perf_settings import PerformanceSettings


@dataclass(frozen=True)
class Advice:
    """The rule of thumb applied to this design; `heuristic` is always True: these are not measurements."""

    verdict: str
    reasons: tuple[str, ...]
    thresholds: dict[str, float]
    heuristic: bool = True

    def lines(self) -> list[str]:
        return [self.verdict] + [f"- {r}" for r in self.reasons]


@dataclass(frozen=True)
class StepEstimate:
    params: float
    bytes_per_grad: int
    gpus: int                  # GPUs of the job
    dp_degree: int
    model_parallel: int        # GPUs per model replica
    grad_bytes: int            # gradients all-reduced per GPU per step
    buckets: int
    bucket_bytes: int
    comm_ms: float             # all-reduce time per step
    exposed_comm_ms: float     # after overlap with compute
    compute_ms: float
    step_ms: float
    comm_share: float          # exposed communication / step time
    algorithm: str             # of the full buckets
    protocol: str
    bottleneck: str
    busbw_GBps: float
    technology: str
    family: str
    small_allreduce_us: float  # an 8 B all-reduce on the same group: the latency floor
    advice: Advice = field(default=None)

    def to_json(self) -> dict:
        return {
            "params": self.params, "bytes_per_grad": self.bytes_per_grad, "gpus": self.gpus,
            "dp_degree": self.dp_degree, "model_parallel": self.model_parallel,
            "grad_bytes": self.grad_bytes, "buckets": self.buckets, "bucket_bytes": self.bucket_bytes,
            "comm_ms": self.comm_ms, "exposed_comm_ms": self.exposed_comm_ms,
            "compute_ms": self.compute_ms, "step_ms": self.step_ms, "comm_share": self.comm_share,
            "algorithm": self.algorithm, "protocol": self.protocol, "bottleneck": self.bottleneck,
            "busbw_GBps": self.busbw_GBps, "technology": self.technology,
            "small_allreduce_us": self.small_allreduce_us,
            "advice": {"verdict": self.advice.verdict, "reasons": list(self.advice.reasons),
                       "thresholds": dict(self.advice.thresholds), "heuristic": True}
            if self.advice else None,
        }


def _group_context(ctx, dp: int, gpus: int):
    mp = gpus // dp
    if mp == 1:
        return ctx
    domain = int(round(ctx.per_domain))
    per = domain // mp if mp <= domain and domain % mp == 0 else 1
    return ctx.for_group(per)


def _comm(ctx, grad_bytes: int, bucket: int):
    """All-reduce time of the gradients in buckets, with the full bucket's estimate."""
    full, rest = divmod(grad_bytes, bucket)
    sizes = [bucket] + ([rest] if rest else [])
    sw = evaluate(ctx, "allreduce", sizes)
    total_us = full * sw.time_us[0] + (sw.time_us[1] if rest else 0.0)
    head = sw.results[0] if full else sw.results[-1]
    return total_us / 1000.0, full + (1 if rest else 0), head


def _counterpart_context(derived, settings, gpus: int, placement: str, catalog: Catalog):
    """The same cluster on the other fabric family, for the advice; None when none fits.

    Prefers a full counterpart design (switches, NICs and sizing redone, designer/model/
    counterpart.py); when that cannot be sized, swaps the technology on this topology.
    """
    tech = derived.resolved.technology
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


def training_step(derived, params: float | None = None, bytes_per_grad: int | None = None,
                  dp_degree: int | None = None, compute_ms: float | None = None, gpus: int | None = None,
                  placement: str | None = None, settings: PerformanceSettings | None = None,
                  catalog: Catalog | None = None) -> StepEstimate:
    """Communication per training step and its share of the step, with the rule-of-thumb advice."""
    settings = settings or derived.design.performance
    params = params if params is not None else settings.params
    bytes_per_grad = bytes_per_grad or settings.bytes_per_grad
    compute_ms = compute_ms if compute_ms is not None else settings.compute_ms
    if params is None or params < 1:
        raise CollectiveError("give the model size in parameters (for example 70e9)")
    if compute_ms is None or compute_ms < 0:
        raise CollectiveError("give the compute time per step in milliseconds")
    if bytes_per_grad < 1:
        raise CollectiveError("bytes per gradient element must be at least 1")
    ctx = context_for(derived, gpus, placement, settings)
    gpus = ctx.gpus
    dp = dp_degree or settings.dp_degree or gpus
    if dp < 2 or dp > gpus or gpus % dp:
        raise CollectiveError(f"data-parallel degree {dp} must be at least 2 and divide the job's {gpus:,} GPUs")
    mp = gpus // dp
    grad_bytes = max(1, math.ceil(params * bytes_per_grad / mp))
    group = _group_context(ctx, dp, gpus)
    comm_ms, buckets, head = _comm(group, grad_bytes, settings.bucket_bytes)
    exposed = comm_ms * (1.0 - settings.comm_overlap)
    step_ms = compute_ms + exposed
    share = exposed / step_ms if step_ms > 0 else 0.0
    small = evaluate(group, "allreduce", [8]).time_us[0]
    est = StepEstimate(params, bytes_per_grad, gpus, dp, mp, grad_bytes, buckets, settings.bucket_bytes,
                       comm_ms, exposed, compute_ms, step_ms, share, head.algorithm, head.protocol,
                       head.bottleneck, head.busbw_GBps, ctx.technology, ctx.family, float(small))
    alt = None
    found = _counterpart_context(derived, settings, gpus, ctx.placement, catalog or default_catalog())
    if found is not None:
        other, alt_ctx = found
        alt_ctx = _group_context(alt_ctx, dp, gpus)
        alt_ms, _, _ = _comm(alt_ctx, grad_bytes, settings.bucket_bytes)
        alt_exposed = alt_ms * (1.0 - settings.comm_overlap)
        alt_step = compute_ms + alt_exposed
        alt = (other, alt_exposed / alt_step if alt_step > 0 else 0.0,
               float(evaluate(alt_ctx, "allreduce", [8]).time_us[0]))
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


def _with_advice(est: StepEstimate, s: PerformanceSettings, alt) -> StepEstimate:
    eth_max, ib_min, limit = s.advice_ethernet_max_gpus, s.advice_infiniband_min_gpus, s.advice_comm_share
    n = est.gpus
    fabric = "InfiniBand" if est.family == "infiniband" else "Ethernet/RoCE"
    numbers = (f"this job: {n:,} GPUs, data-parallel degree {est.dp_degree:,}; gradient all-reduce "
               f"{est.comm_ms:,.1f} ms per step ({est.buckets:,} bucket(s) of up to "
               f"{est.bucket_bytes / 2**20:g} MiB, {est.algorithm}/{est.protocol}, limited by "
               f"{est.bottleneck}); {est.comm_share:.0%} of a {est.step_ms:,.1f} ms step on {fabric}")
    reasons = [numbers]
    if est.comm_share > limit:
        reasons.append(f"communication takes {est.comm_share:.0%} of the step, above the {limit:.0%} mark: "
                       f"the limit is {_NECK.get(est.bottleneck, est.bottleneck)}; larger buckets (performance.bucket_bytes) "
                       "pay fewer latencies, and overlap with compute (performance.comm_overlap) hides some")
    band = size_band(n, s)
    if band == "ethernet":
        verdict = (f"Up to about {eth_max:,} GPUs, Ethernet with RoCE is the usual default "
                   "(heuristic); at this size the fabric family matters less than bandwidth per GPU.")
    elif band == "middle":
        if est.comm_share > limit:
            verdict = (f"Between {eth_max:,} and {ib_min:,} GPUs Ethernet stays attractive unless "
                       f"communication passes about {limit:.0%} of step time (heuristic); here it is "
                       f"{est.comm_share:.0%}, so InfiniBand's latency and in-network reduction are worth pricing.")
        else:
            verdict = (f"Between {eth_max:,} and {ib_min:,} GPUs Ethernet stays attractive while "
                       f"communication stays under about {limit:.0%} of step time (heuristic); here it is "
                       f"{est.comm_share:.0%}.")
    else:
        verdict = (f"Beyond about {ib_min:,} GPUs InfiniBand's latency advantage compounds (heuristic): "
                   "every all-reduce pays the network latency on each of its steps.")
    reasons.append(f"an 8 B all-reduce on this group takes {est.small_allreduce_us:,.1f} us on this design: "
                   "the latency floor each bucket pays")
    if alt is not None:
        other, alt_share, alt_small = alt
        reasons.append(f"the same cluster on {other.name} would spend {alt_share:.0%} of the step "
                       f"communicating, with an 8 B all-reduce at {alt_small:,.1f} us "
                       "(catalog efficiencies and latencies, which are estimates)")
    if est.family == "ethernet":
        reasons.append("RoCE needs lossless or near-lossless behaviour (PFC, ECN) and validation at "
                       "application level; InfiniBand brings SHARP and adaptive routing")
    reasons.append(f"thresholds {eth_max:,} / {ib_min:,} GPUs and {limit:.0%} are editable heuristics "
                   "(performance.advice_*), not measurements")
    advice = Advice(verdict, tuple(reasons), {"ethernet_max_gpus": eth_max, "infiniband_min_gpus": ib_min,
                                              "comm_share": limit})
    return replace(est, advice=advice)
