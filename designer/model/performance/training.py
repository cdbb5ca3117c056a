"""Training-step view: how much of a step data-parallel gradient all-reduce takes on a design.

A step all-reduces the gradients of its model replica across the data-parallel group. With
model parallelism (degree m = job GPUs / DP degree) each GPU holds 1/m of the gradients and
its DP group takes one GPU from every m, so each NVLink domain holds domain_GPUs / m ranks of
every group and all groups run at once, each on its own GPUs and NICs. Gradients go in
buckets (PyTorch DDP's 25 MiB by default), one all-reduce each; a step pays every bucket's
latency. `comm_overlap` hides a share behind backward compute (0 by default: the worst case).

The rule-of-thumb advice on top of this estimate is a decision, in designer/model/decisions/
advice.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from designer.model.intent.perf_settings import PerformanceSettings
from designer.model.performance.collective_costs import CollectiveError
from designer.model.performance.collectives import context_for, evaluate


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
    advice: object = field(default=None)   # designer.model.decisions.advice.Advice, added there

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


def group_context(ctx, dp: int, gpus: int):
    mp = gpus // dp
    if mp == 1:
        return ctx
    domain = int(round(ctx.per_domain))
    per = domain // mp if mp <= domain and domain % mp == 0 else 1
    return ctx.for_group(per)


def gradient_comm(ctx, grad_bytes: int, bucket: int):
    """All-reduce time of the gradients in buckets, with the full bucket's estimate."""
    full, rest = divmod(grad_bytes, bucket)
    sizes = [bucket] + ([rest] if rest else [])
    sw = evaluate(ctx, "allreduce", sizes)
    total_us = full * sw.time_us[0] + (sw.time_us[1] if rest else 0.0)
    head = sw.results[0] if full else sw.results[-1]
    return total_us / 1000.0, full + (1 if rest else 0), head


def estimate_step(derived, params: float | None = None, bytes_per_grad: int | None = None,
                  dp_degree: int | None = None, compute_ms: float | None = None, gpus: int | None = None,
                  placement: str | None = None, settings: PerformanceSettings | None = None) -> StepEstimate:
    """Communication per training step and its share of the step (no advice: designer.model.decisions.advice)."""
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
    group = group_context(ctx, dp, gpus)
    comm_ms, buckets, head = gradient_comm(group, grad_bytes, settings.bucket_bytes)
    exposed = comm_ms * (1.0 - settings.comm_overlap)
    step_ms = compute_ms + exposed
    share = exposed / step_ms if step_ms > 0 else 0.0
    small = evaluate(group, "allreduce", [8]).time_us[0]
    est = StepEstimate(params, bytes_per_grad, gpus, dp, mp, grad_bytes, buckets, settings.bucket_bytes,
                       comm_ms, exposed, compute_ms, step_ms, share, head.algorithm, head.protocol,
                       head.bottleneck, head.busbw_GBps, ctx.technology, ctx.family, float(small))
    return est
