"""Training-step view: the collectives of one step of a job that fits, and their share of it.

Two ways in. A named workload (performance.workload, resources/perf/workloads.toml) models
the whole job (designer/model/performance/workload.py): tensor parallel inside the NVLink
domain, pipeline parallel, data parallel with ZeRO/FSDP, expert parallel for mixture of
experts; memory per GPU is checked (a job that does not fit is refused with what it needs)
and compute time comes from 6 x active parameters x tokens at an editable MFU. The step lists
each collective:
  - TP all-reduce on NVLink, 4 per layer per micro-batch (Megatron-LM: 2 forward, 2 backward),
    of the micro-batch's activations; on the critical path, so not overlapped;
  - PP send/receive between stages, 2 per micro-batch (activation forward, gradient back),
    of the activations over the TP ranks; not overlapped;
  - DP gradient all-reduce (ZeRO-0), reduce-scatter + all-gather (ZeRO-1/2) or all-gather x2 +
    reduce-scatter (ZeRO-3/FSDP) in buckets; `comm_overlap` of it may hide behind the backward
    pass (two thirds of the compute), a heuristic share, 0 by default;
  - EP all-to-all, 4 per MoE layer per micro-batch (dispatch and combine, forward and
    backward), of tokens x top-k x hidden; not overlapped.
Without a workload, the older gradient-only view remains: `params` of gradients all-reduced
per step in DDP buckets with a given compute time; weights, gradients and ZeRO-1 optimizer
state must still fit in GPU memory.

The rule-of-thumb advice on top of this estimate is a decision, in designer/model/decisions/
advice.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

from designer.catalog.gpus import GpuSpec, gpu_spec
from designer.model.intent.perf_settings import PerformanceSettings
from designer.model.performance import workload as W
from designer.model.performance.collective_costs import PROTOCOLS, CollectiveError, FabricContext
from designer.model.performance.collectives import CollectiveResult, context_for, evaluate

if TYPE_CHECKING:
    from designer.model.topology.derive import Derived


@dataclass(frozen=True)
class StepCollective:
    """One kind of collective in the step: how many, how big, how long, how much is hidden."""

    name: str            # "TP all-reduce", "PP send/receive", "DP reduce-scatter", "EP all-to-all", ...
    collective: str      # allreduce, allgather, reducescatter, alltoall, sendrecv
    where: str           # "NVLink" or "network"
    count: int           # per step per GPU
    bytes_each: int
    time_ms: float
    exposed_ms: float
    algorithm: str

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "collective": self.collective, "where": self.where, "count": self.count,
                "bytes_each": self.bytes_each, "time_ms": self.time_ms, "exposed_ms": self.exposed_ms,
                "overlapped_ms": self.time_ms - self.exposed_ms, "algorithm": self.algorithm}


class StepAdvice(Protocol):
    """What the step carries of the advice (designer.model.decisions.advice.Advice, a later stage)."""

    @property
    def verdict(self) -> str: ...
    @property
    def reasons(self) -> tuple[str, ...]: ...
    @property
    def thresholds(self) -> dict[str, float]: ...
    def lines(self) -> list[str]: ...


@dataclass(frozen=True)
class StepEstimate:
    params: float
    bytes_per_grad: int
    gpus: int                  # GPUs of the job
    dp_degree: int
    model_parallel: int        # GPUs per model replica
    grad_bytes: int            # gradients reduced per GPU per step (data parallel)
    buckets: int
    bucket_bytes: int
    comm_ms: float             # all communication per step
    exposed_comm_ms: float     # after overlap with compute
    compute_ms: float
    step_ms: float
    comm_share: float          # exposed communication / step time (NVLink and network)
    algorithm: str             # of the full data-parallel buckets
    protocol: str
    bottleneck: str
    busbw_GBps: float
    technology: str
    family: str
    small_allreduce_us: float  # an 8 B all-reduce on the same group: the latency floor
    advice: StepAdvice | None = field(default=None)   # added by designer.model.decisions.advice
    workload: W.Workload | None = None     # None for the gradient-only view
    plan: W.Plan | None = None
    memory: W.Memory | None = None
    collectives: tuple[StepCollective, ...] = ()   # workload view
    mfu: float | None = None
    gpu: str = ""
    # The scale-out network's part: exposed communication that crosses the network (DP across
    # domains, PP between domains, EP beyond a domain), not NVLink tensor parallelism. Only this
    # share can tell one scale-out fabric from another, so only it enters the advice thresholds.
    scaleout_ms: float = 0.0
    # Idle time of the pipeline schedule: (pp - 1) / (virtual stages x micro-batches) of the compute
    # (Narayanan et al., SC21, "Efficient Large-Scale Language Model Training on GPU Clusters").
    bubble_ms: float = 0.0

    @property
    def scaleout_share(self) -> float:
        """Exposed scale-out communication / step time."""
        return self.scaleout_ms / self.step_ms if self.step_ms > 0 else 0.0

    @property
    def nvlink_comm_ms(self) -> float:
        """Exposed communication that stays on NVLink (tensor parallelism, groups inside a domain)."""
        return max(0.0, self.exposed_comm_ms - self.scaleout_ms)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "params": self.params, "bytes_per_grad": self.bytes_per_grad, "gpus": self.gpus,
            "dp_degree": self.dp_degree, "model_parallel": self.model_parallel,
            "grad_bytes": self.grad_bytes, "buckets": self.buckets, "bucket_bytes": self.bucket_bytes,
            "comm_ms": self.comm_ms, "exposed_comm_ms": self.exposed_comm_ms,
            "compute_ms": self.compute_ms, "step_ms": self.step_ms, "comm_share": self.comm_share,
            "scaleout_comm_ms": self.scaleout_ms, "scaleout_share": self.scaleout_share,
            "nvlink_comm_ms": self.nvlink_comm_ms, "pipeline_bubble_ms": self.bubble_ms,
            "algorithm": self.algorithm, "protocol": self.protocol, "bottleneck": self.bottleneck,
            "busbw_GBps": self.busbw_GBps, "technology": self.technology,
            "small_allreduce_us": self.small_allreduce_us,
            "advice": {"verdict": self.advice.verdict, "reasons": list(self.advice.reasons),
                       "thresholds": dict(self.advice.thresholds), "heuristic": True}
            if self.advice else None,
        }
        if self.memory is not None:
            out["memory"] = self.memory.to_json()
        if self.workload is not None:
            w, p = self.workload, self.plan
            assert p is not None   # the workload view always carries its plan
            out["workload"] = {"id": w.id, "name": w.name, "params": w.params, "active_params": w.active_params,
                               "source": w.source, "plan_source": w.plan_source}
            out["plan"] = {"tp": p.tp, "pp": p.pp, "dp": p.dp, "ep": p.ep, "zero": p.zero,
                           "micro_batches": p.micro_batches, "global_batch_tokens": w.global_batch_tokens,
                           "micro_batch": w.micro_batch, "pipeline_schedule": p.schedule,
                           "virtual_stages": p.virtual_stages, "batch_basis": p.batch_basis}
            out["pipeline_bubble_share"] = self.bubble_ms / self.step_ms if self.step_ms > 0 else 0.0
            out["mfu"] = self.mfu
            out["mfu_heuristic"] = True
            out["collectives"] = [c.to_json() for c in self.collectives]
        if self.gpu:
            out["gpu"] = self.gpu
        return out


def group_context(ctx: FabricContext, dp: int, gpus: int) -> FabricContext:
    mp = gpus // dp
    if mp == 1:
        return ctx
    domain = int(round(ctx.per_domain))
    per = domain // mp if mp <= domain and domain % mp == 0 else 1
    return ctx.for_group(per)


def _bucketed(ctx: FabricContext, collective: str, total_bytes: int,
              bucket: int) -> tuple[float, int, CollectiveResult]:
    """Time of `total_bytes` in buckets of `bucket`, with the full bucket's estimate."""
    full, rest = divmod(total_bytes, bucket)
    sizes = [bucket] + ([rest] if rest else [])
    sw = evaluate(ctx, collective, sizes)
    total_us = full * sw.time_us[0] + (sw.time_us[1] if rest else 0.0)
    head = sw.results[0] if full else sw.results[-1]
    return total_us / 1000.0, full + (1 if rest else 0), head


def gradient_comm(ctx: FabricContext, grad_bytes: int, bucket: int) -> tuple[float, int, CollectiveResult]:
    """All-reduce time of the gradients in buckets, with the full bucket's estimate."""
    return _bucketed(ctx, "allreduce", grad_bytes, bucket)


def _gpu(derived: Derived) -> GpuSpec:
    server = derived.resolved.server
    spec = gpu_spec(server.gpu)
    if spec is None:
        raise CollectiveError(f"no memory or FLOPS figures for the {server.gpu} GPU of {server.name}: add it to "
                              "resources/catalog/gpus.toml")
    return spec


def estimate_step(derived: Derived, params: float | None = None, bytes_per_grad: int | None = None,
                  dp_degree: int | None = None, compute_ms: float | None = None, gpus: int | None = None,
                  placement: str | None = None, settings: PerformanceSettings | None = None,
                  workload: str | None = None) -> StepEstimate:
    """Communication per training step and its share of the step (no advice: designer.model.decisions.advice)."""
    settings = settings or derived.design.performance
    ctx = context_for(derived, gpus, placement, settings)
    gpu = _gpu(derived)
    name = workload or (None if params is not None else settings.workload)
    if name is not None:
        w = W.with_overrides(W.preset(name), settings)
        if params is not None:
            raise CollectiveError("give either a workload or a parameter count, not both")
        return workload_step(ctx, w, settings, gpu, compute_ms if compute_ms is not None else settings.compute_ms)
    params = params if params is not None else settings.params
    bytes_per_grad = bytes_per_grad or settings.bytes_per_grad
    compute_ms = compute_ms if compute_ms is not None else settings.compute_ms
    if params is None or params < 1:
        raise CollectiveError("give the model size in parameters (for example 70e9) or a workload "
                              f"({', '.join(W.presets())})")
    if compute_ms is None or compute_ms < 0:
        raise CollectiveError("give the compute time per step in milliseconds")
    if bytes_per_grad < 1:
        raise CollectiveError("bytes per gradient element must be at least 1")
    n = ctx.gpus
    dp = dp_degree or settings.dp_degree or n
    if dp < 2 or dp > n or n % dp:
        raise CollectiveError(f"data-parallel degree {dp} must be at least 2 and divide the job's {n:,} GPUs")
    return gradient_step(ctx, params, bytes_per_grad, dp, compute_ms, settings, gpu)


def _state_memory(params_local: float, dp: int, zero: int, gpu: GpuSpec) -> W.Memory:
    c = W.constants()
    shard = [1.0 / dp if zero >= stage else 1.0 for stage in (3, 2, 1)]
    return W.Memory(c.weight_bytes * params_local * shard[0], c.grad_bytes * params_local * shard[1],
                    c.optimizer_bytes * params_local * shard[2], 0.0, gpu.memory_bytes, gpu.id)


def gradient_step(ctx: FabricContext, params: float, bytes_per_grad: int, dp: int, compute_ms: float,
                  settings: PerformanceSettings, gpu: GpuSpec) -> StepEstimate:
    """The gradient-only view: DDP buckets of `params / model parallel` gradients, memory checked."""
    gpus = ctx.gpus
    mp = gpus // dp
    zero = settings.zero_stage if settings.zero_stage is not None else 1
    mem = _state_memory(params / mp, dp, zero, gpu)
    if not mem.fits:
        raise W.WorkloadError(
            f"{params / 1e9:,.4g}B parameters over data parallel {dp} x model parallel {mp} do not fit: they need "
            f"{mem.total / 1e9:,.0f} GB per GPU before activations (weights {mem.weights / 1e9:,.0f}, gradients "
            f"{mem.gradients / 1e9:,.0f}, ZeRO-{zero} optimizer {mem.optimizer / 1e9:,.0f}) and the {gpu.id} has "
            f"{gpu.memory_GB:,.0f} GB: use a workload preset with a parallel plan, or more model parallelism")
    grad_bytes = max(1, math.ceil(params * bytes_per_grad / mp))
    group = group_context(ctx, dp, gpus)
    comm_ms, buckets, head = gradient_comm(group, grad_bytes, settings.bucket_bytes)
    exposed = comm_ms * (1.0 - settings.comm_overlap)
    step_ms = compute_ms + exposed
    share = exposed / step_ms if step_ms > 0 else 0.0
    small = evaluate(group, "allreduce", [8]).time_us[0]
    return StepEstimate(params, bytes_per_grad, gpus, dp, mp, grad_bytes, buckets, settings.bucket_bytes,
                        comm_ms, exposed, compute_ms, step_ms, share, head.algorithm, head.protocol,
                        head.bottleneck, head.busbw_GBps, ctx.technology, ctx.family, float(small),
                        memory=mem, gpu=gpu.id, scaleout_ms=exposed if group.domains > 1 else 0.0)


# ----------------------------------------------------------------------------------------
# The workload view


def _one_domain(ctx: FabricContext, ranks: int) -> FabricContext:
    """`ranks` GPUs of one NVLink domain: no network (TP groups, small EP groups)."""
    trays = max(1, math.ceil(ranks / ctx.gpus_per_server))
    return replace(ctx, gpus=ranks, domains=1, per_domain=float(ranks), servers=trays, sharp=False,
                   servers_per_domain=min(ctx.servers_per_domain, trays),
                   nvls=ctx.nvls_capable and ranks >= 2, ll_cap_GBps=ctx.generation.ll_max_busbw_GBps[0])


def _spanning(ctx: FabricContext, ranks: int, per_domain: int) -> FabricContext:
    """`ranks` GPUs, `per_domain` in each domain, across the network (EP groups beyond a domain)."""
    domains = max(1, ranks // per_domain)
    if domains == 1:
        return _one_domain(ctx, ranks)
    bucket = 1 if domains == 2 else 2
    trays = max(1, math.ceil(per_domain / ctx.gpus_per_server))   # consecutive ranks fill trays in order
    return replace(ctx, gpus=ranks, domains=domains, per_domain=float(per_domain),
                   servers_per_domain=min(ctx.servers_per_domain, trays),
                   nvls=ctx.nvls_capable and per_domain >= 2, ll_cap_GBps=ctx.generation.ll_max_busbw_GBps[bucket])


def _strided(ctx: FabricContext, ranks: int, stride: int) -> FabricContext:
    """A group of `ranks` GPUs `stride` apart in rank order (Megatron: TP fastest, then DP/EP, then PP)."""
    per = max(1, min(ranks, ctx.domain_gpus // max(1, stride)))
    return _spanning(ctx, ranks, per)


def _p2p_ms(ctx: FabricContext, nbytes: int, network: bool) -> float:
    """One send/receive: NCCL's Simple base latency plus a step, then the bytes at the link rate."""
    c = ctx.constants
    s = PROTOCOLS.index("Simple")
    if network:
        lim = ctx.limits["ring"]
        lat = c.base_ring_us[s] + max(0.0, c.net_ring_step_us[s] + ctx.extra_us.get(lim.hops, 0.0))
        rate = ctx.nic_GBps * lim.factor
    else:
        lat = c.base_ring_us[s] + c.nvlink_ring_step_us[s]
        rate = ctx.nvlink_GBps
    return (lat + nbytes / (rate * 1e3)) / 1000.0


def workload_step(ctx: FabricContext, w: W.Workload, settings: PerformanceSettings, gpu: GpuSpec,
                  compute_override: float | None = None) -> StepEstimate:
    """Every collective of one step of `w` on this fabric context; refused when it does not fit."""
    gpus = ctx.gpus
    w, basis = W.scaled(w, gpus, ctx.domain_gpus, settings)
    plan = W.make_plan(w, gpus, ctx.domain_gpus, settings.pipeline_schedule, settings.virtual_stages, basis)
    mem = W.memory(w, plan, gpu)
    W.refuse_if_too_big(mem, w, plan)
    mfu = settings.mfu or W.constants().mfu
    compute = compute_override if compute_override is not None else W.compute_ms(w, gpus, gpu, mfu)
    act = w.seq_len * w.micro_batch * w.hidden * 2          # bf16 activations of one micro-batch
    items: list[StepCollective] = []

    if plan.tp > 1:
        tp_ctx = _one_domain(ctx, plan.tp)
        r = evaluate(tp_ctx, "allreduce", [act]).results[0]
        count = 4 * math.ceil(w.layers / plan.pp) * plan.micro_batches
        t = count * r.time_us / 1000.0
        items.append(StepCollective("TP all-reduce", "allreduce", "NVLink", count, act, t, t, r.algorithm))

    if plan.pp > 1:
        network = gpus > ctx.domain_gpus
        nbytes = max(1, act // plan.tp)
        # Each micro-batch crosses every stage boundary forward and back; an interleaved schedule
        # crosses them once per virtual stage (Narayanan et al., SC21, section 2.2.2).
        count = 2 * plan.micro_batches * plan.virtual_stages
        t = count * _p2p_ms(ctx, nbytes, network)
        items.append(StepCollective("PP send/receive", "sendrecv", "network" if network else "NVLink",
                                    count, nbytes, t, t, "p2p"))

    dp_items: list[StepCollective] = []
    head: CollectiveResult | None = None
    grad_bytes = max(1, math.ceil(w.dense_params / (plan.tp * plan.pp) * 2))
    buckets = 0
    small_ctx: FabricContext | None = None

    def dp_phase(group: FabricContext, label: str, nbytes: int, dp_size: int) -> None:
        nonlocal head, buckets, small_ctx
        if dp_size < 2:
            return
        where = "network" if group.domains > 1 else "NVLink"
        phases = ([("allreduce", "all-reduce")] if plan.zero == 0 else
                  [("reducescatter", "reduce-scatter"), ("allgather", "all-gather")]
                  + ([("allgather", "all-gather (forward)")] if plan.zero >= 3 else []))
        for coll, text in phases:
            t, n, res = _bucketed(group, coll, nbytes, settings.bucket_bytes)
            dp_items.append(StepCollective(f"{label} {text}", coll, where, n, settings.bucket_bytes, float(t),
                                           float(t), res.algorithm))
            if head is None:
                head, buckets, small_ctx = res, n, group

    dp_phase(_strided(ctx, plan.dp, plan.tp), "DP", grad_bytes, plan.dp)
    if w.moe:
        expert_bytes = max(1, math.ceil(w.expert_params / (plan.ep * plan.pp * plan.tp) * 2))
        dp_phase(_strided(ctx, plan.expert_dp, plan.tp * plan.ep), "Expert DP", expert_bytes, plan.expert_dp)
    # Data-parallel traffic may hide behind the backward pass (2/3 of the compute), by a heuristic share.
    dp_total = sum(i.time_ms for i in dp_items)
    hidden = min(dp_total * settings.comm_overlap, compute * 2.0 / 3.0)
    for i, item in enumerate(dp_items):
        share = item.time_ms / dp_total if dp_total > 0 else 0.0
        dp_items[i] = replace(item, exposed_ms=item.time_ms - hidden * share)
    items += dp_items

    if w.moe and plan.ep > 1:
        ep_ctx = _strided(ctx, plan.ep, plan.tp)
        nbytes = w.seq_len * w.micro_batch * w.top_k * w.hidden * 2 // plan.tp
        r = evaluate(ep_ctx, "alltoall", [nbytes]).results[0]
        count = 4 * math.ceil(w.moe_layers / plan.pp) * plan.micro_batches
        t = count * r.time_us / 1000.0
        items.append(StepCollective("EP all-to-all", "alltoall", "network" if ep_ctx.domains > 1 else "NVLink",
                                    count, nbytes, t, t, r.algorithm))

    comm = sum(i.time_ms for i in items)
    exposed = sum(i.exposed_ms for i in items)
    scaleout = sum(i.exposed_ms for i in items if i.where == "network")
    bubble = pipeline_bubble_ms(compute, plan.pp, plan.micro_batches, plan.virtual_stages)
    step = compute + bubble + exposed
    if head is None:   # no data parallelism: the TP figure heads the summary
        tp_ctx = _one_domain(ctx, max(2, plan.tp))
        head = evaluate(tp_ctx, "allreduce", [act]).results[0]
        small_ctx = tp_ctx
    assert small_ctx is not None   # set with head, above
    small = evaluate(small_ctx, "allreduce", [8]).time_us[0]
    return StepEstimate(w.params, 2, gpus, plan.dp, plan.tp * plan.pp, grad_bytes, buckets, settings.bucket_bytes,
                        comm, exposed, compute, step, exposed / step if step > 0 else 0.0, head.algorithm,
                        head.protocol, head.bottleneck, head.busbw_GBps, ctx.technology, ctx.family, float(small),
                        workload=w, plan=plan, memory=mem, collectives=tuple(items), mfu=mfu, gpu=gpu.id,
                        scaleout_ms=scaleout, bubble_ms=bubble)


def pipeline_bubble_ms(compute_ms: float, pp: int, micro_batches: int, virtual_stages: int = 1) -> float:
    """Idle time of a 1F1B pipeline: each of the pp - 1 warm-up and drain slots costs one micro-batch's
    forward and backward, (pp - 1) / m of the compute; an interleaved schedule of v model chunks per
    GPU makes each slot v times shorter, (pp - 1) / (v m) (Narayanan et al., SC21, sections 2.2.1-2.2.2);
    none without pipelining."""
    if pp <= 1:
        return 0.0
    return compute_ms * (pp - 1) / (max(1, micro_batches) * max(1, virtual_stages))


def step_on(ctx: FabricContext, est: StepEstimate, settings: PerformanceSettings,
            gpu_id: str | None = None) -> StepEstimate:
    """The same job on another fabric context (the counterpart in the advice)."""
    spec = gpu_spec(gpu_id or est.gpu)
    if spec is None:
        raise CollectiveError(f"no memory or FLOPS figures for the {gpu_id or est.gpu} GPU: add it to "
                              "resources/catalog/gpus.toml")
    if est.workload is not None:
        return workload_step(ctx, est.workload, settings, spec, est.compute_ms)
    return gradient_step(ctx, est.params, est.bytes_per_grad, est.dp_degree, est.compute_ms, settings, spec)
