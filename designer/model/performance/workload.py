"""A training job that fits: model shape, parallel plan, memory per GPU and compute per step.

Presets come from resources/perf/workloads.toml, each with its source. The plan splits the
job's GPUs into tensor parallel (TP, inside the NVLink domain), pipeline parallel (PP), data
parallel (DP, with ZeRO stage 0-3; stage 3 is FSDP) and, for mixture-of-experts models,
expert parallel (EP, carved out of the data-parallel ranks as in DeepSpeed-MoE and Megatron).
Memory per GPU counts weights, gradients, optimizer state and activations; a plan that does
not fit is refused with the memory it needs. Compute time per step is 6 x active parameters
x tokens per step over the GPUs' peak dense BF16 times an editable MFU (a heuristic).
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from designer.catalog.gpus import GpuSpec
from designer.catalog.loader import RESOURCES
from designer.limits import read_text
from designer.model.intent.perf_settings import PerformanceSettings
from designer.model.performance.collective_costs import CollectiveError

WORKLOADS_FILE = RESOURCES / "perf" / "workloads.toml"
DEFAULT_WORKLOAD = "dense-70b"
SCHEDULES = ("1f1b", "interleaved")
SCHEDULE_NAMES = {"1f1b": "1F1B", "interleaved": "interleaved 1F1B"}
DEFAULT_VIRTUAL_STAGES = 2


class WorkloadError(CollectiveError):
    """A job that cannot run as asked (does not fit, or the plan does not divide); fit for the user."""


@dataclass(frozen=True)
class Workload:
    id: str
    name: str
    params: float
    active_params: float
    expert_params: float
    layers: int
    moe_layers: int
    hidden: int
    seq_len: int
    global_batch_tokens: int
    micro_batch: int
    top_k: int
    tp: int
    pp: int
    ep: int
    zero: int
    source: str = ""
    plan_source: str = ""
    batch_ceiling_tokens: int = 0        # the largest published batch of its class (0: the preset's)
    batch_ceiling_source: str = ""

    @property
    def dense_params(self) -> float:
        return self.params - self.expert_params

    @property
    def moe(self) -> bool:
        return self.expert_params > 0 and self.moe_layers > 0


@dataclass(frozen=True)
class WorkloadConstants:
    bytes_per_sbh: float
    weight_bytes: float
    grad_bytes: float
    optimizer_bytes: float
    mfu: float
    sources: tuple[str, ...]
    microbatches_per_stage: int = 4
    batch_basis: str = ""


def _load() -> tuple[dict[str, Workload], WorkloadConstants]:
    data = tomllib.loads(read_text(WORKLOADS_FILE, "workloads file"))
    out = {}
    for row in data["workload"]:
        w = Workload(id=str(row["id"]), name=str(row["name"]), params=float(row["params"]),
                     active_params=float(row["active_params"]), expert_params=float(row["expert_params"]),
                     layers=int(row["layers"]), moe_layers=int(row["moe_layers"]), hidden=int(row["hidden"]),
                     seq_len=int(row["seq_len"]), global_batch_tokens=int(row["global_batch_tokens"]),
                     micro_batch=int(row["micro_batch"]), top_k=int(row["top_k"]), tp=int(row["tp"]),
                     pp=int(row["pp"]), ep=int(row["ep"]), zero=int(row["zero"]),
                     source=str(row.get("source", "")), plan_source=str(row.get("plan_source", "")),
                     batch_ceiling_tokens=int(row.get("batch_ceiling_tokens", 0)),
                     batch_ceiling_source=str(row.get("batch_ceiling_source", "")))
        out[w.id] = w
    act, state, compute, batch = data["activations"], data["state"], data["compute"], data["batch"]
    consts = WorkloadConstants(float(act["bytes_per_sbh"]), float(state["weight_bytes"]),
                               float(state["grad_bytes"]), float(state["optimizer_bytes"]),
                               float(compute["mfu"]),
                               (str(act["source"]), str(state["source"]), str(compute["source"])),
                               int(batch["microbatches_per_stage"]), str(batch["basis"]))
    return out, consts


@lru_cache(maxsize=1)
def _cached() -> tuple[dict[str, Workload], WorkloadConstants]:
    return _load()


def presets() -> dict[str, Workload]:
    """The named workloads of resources/perf/workloads.toml, by id."""
    return dict(_cached()[0])


def constants() -> WorkloadConstants:
    return _cached()[1]


def preset(name: str) -> Workload:
    found = presets().get(name)
    if found is None:
        raise WorkloadError(f"unknown workload '{name}' (choose from {', '.join(presets())})")
    return found


@dataclass(frozen=True)
class Plan:
    """How a job's GPUs split: gpus = tp x pp x dp; ep divides dp (experts only)."""

    tp: int
    pp: int
    dp: int
    ep: int
    zero: int
    micro_batches: int      # per pipeline per step (gradient accumulation)
    schedule: str = "1f1b"  # pipeline schedule: 1f1b or interleaved
    virtual_stages: int = 1  # model chunks per GPU (interleaved)
    batch_basis: str = ""   # where the global batch comes from

    @property
    def expert_dp(self) -> int:
        """Ranks holding the same experts: the data-parallel group of the expert weights."""
        return max(1, self.dp // self.ep)


@dataclass(frozen=True)
class Memory:
    """Bytes per GPU (the busiest: the first pipeline stage)."""

    weights: float
    gradients: float
    optimizer: float
    activations: float
    capacity: float
    gpu: str

    @property
    def total(self) -> float:
        return self.weights + self.gradients + self.optimizer + self.activations

    @property
    def fits(self) -> bool:
        return self.total <= self.capacity

    def to_json(self) -> dict[str, Any]:
        return {"weights_GB": self.weights / 1e9, "gradients_GB": self.gradients / 1e9,
                "optimizer_GB": self.optimizer / 1e9, "activations_GB": self.activations / 1e9,
                "total_GB": self.total / 1e9, "capacity_GB": self.capacity / 1e9, "gpu": self.gpu,
                "fits": self.fits}


def with_overrides(w: Workload, settings: PerformanceSettings) -> Workload:
    """The preset with the design's own plan and model choices (performance.*_degree, zero_stage,
    micro_batch, global_batch_tokens)."""
    changes: dict[str, Any] = {k: v for k, v in (("tp", settings.tp_degree), ("pp", settings.pp_degree),
                                  ("ep", settings.ep_degree), ("zero", settings.zero_stage),
                                  ("micro_batch", settings.micro_batch),
                                  ("global_batch_tokens", settings.global_batch_tokens)) if v is not None}
    return replace(w, **changes) if changes else w


def batch_tokens(w: Workload, dp: int, pp: int, settings: PerformanceSettings) -> tuple[int, str]:
    """The job's global batch in tokens and where it comes from: the user's, or the workload's
    grown with data parallelism (every pipeline at least microbatches_per_stage x pp micro-batches)
    up to the published ceiling, never below the workload's own batch."""
    if settings.global_batch_tokens is not None:
        return max(w.seq_len, settings.global_batch_tokens), "as set (--global-batch, performance.global_batch_tokens)"
    c = constants()
    floor = w.global_batch_tokens
    ceiling = max(floor, w.batch_ceiling_tokens or floor)
    per_seq = w.seq_len * w.micro_batch
    wanted = dp * max(1, pp) * c.microbatches_per_stage * per_seq if pp > 1 else floor
    tokens = max(floor, min(ceiling, wanted))
    tokens -= tokens % w.seq_len
    if tokens == floor:
        basis = f"the workload's own batch ({floor / 2**20:,.3g}M tokens: {w.source.split(':')[0]})"
    elif tokens >= ceiling:
        basis = (f"grown with data parallelism {dp:,} to the published ceiling {ceiling / 2**20:,.3g}M tokens "
                 f"({w.batch_ceiling_source})")
    else:
        basis = (f"grown with data parallelism {dp:,}: {c.microbatches_per_stage} x PP micro-batches per pipeline "
                 f"({c.batch_basis})")
    return tokens, basis


def scaled(w: Workload, gpus: int, domain_gpus: int, settings: PerformanceSettings) -> tuple[Workload, str]:
    """The workload with the global batch this job runs (batch_tokens), and its basis."""
    plan = make_plan(w, gpus, domain_gpus)
    tokens, basis = batch_tokens(w, plan.dp, plan.pp, settings)
    return (replace(w, global_batch_tokens=tokens) if tokens != w.global_batch_tokens else w), basis


def make_plan(w: Workload, gpus: int, domain_gpus: int, schedule: str | None = None,
              virtual_stages: int | None = None, batch_basis: str = "") -> Plan:
    """Split `gpus` by the workload's plan; a plan that does not divide is refused, saying why."""
    tp, pp, ep = w.tp, w.pp, w.ep
    if tp > domain_gpus:
        raise WorkloadError(f"tensor parallel {tp} does not fit the {domain_gpus}-GPU NVLink domain: "
                            "keep TP inside it (performance.tp_degree)")
    if gpus % (tp * pp):
        raise WorkloadError(f"{gpus:,} GPUs do not split into tensor parallel {tp} x pipeline parallel {pp}")
    dp = gpus // (tp * pp)
    if w.layers and w.layers < pp:
        raise WorkloadError(f"pipeline parallel {pp} exceeds the model's {w.layers} layers")
    if w.moe and (ep > dp or dp % ep):
        raise WorkloadError(f"expert parallel {ep} must divide the data-parallel degree {dp} "
                            f"({gpus:,} GPUs / TP {tp} / PP {pp}); the plan needs at least "
                            f"{tp * pp * ep:,} GPUs")
    seqs = max(1, w.global_batch_tokens // w.seq_len)
    micro = max(1, math.ceil(seqs / (dp * w.micro_batch)))
    sched = schedule or "1f1b"
    if sched not in SCHEDULES:
        raise WorkloadError(f"unknown pipeline schedule '{sched}' (choose from {', '.join(SCHEDULES)})")
    v = 1
    if sched == "interleaved" and pp > 1:
        v = virtual_stages or DEFAULT_VIRTUAL_STAGES
        if w.layers and pp * v > w.layers:
            raise WorkloadError(f"an interleaved schedule of {v} virtual stages x pipeline parallel {pp} needs "
                                f"{pp * v} layers; the model has {w.layers} (performance.virtual_stages)")
    return Plan(tp, pp, dp, ep if w.moe else 1, w.zero, micro, sched, v, batch_basis)


def memory(w: Workload, plan: Plan, gpu: GpuSpec) -> Memory:
    """Weights, gradients, optimizer state and activations per GPU (ZeRO sharding over DP)."""
    c = constants()
    dense = w.dense_params / (plan.tp * plan.pp)
    expert = w.expert_params / (plan.ep * plan.pp * plan.tp) if w.moe else 0.0

    def shard(n: float, stage: int) -> float:   # ZeRO shards state from this stage up
        return 1.0 / (plan.dp if plan.zero >= stage else 1)

    def shard_e(stage: int) -> float:
        return 1.0 / (plan.expert_dp if plan.zero >= stage else 1)

    weights = c.weight_bytes * (dense * shard(dense, 3) + expert * shard_e(3))
    grads = c.grad_bytes * (dense * shard(dense, 2) + expert * shard_e(2))
    optim = c.optimizer_bytes * (dense * shard(dense, 1) + expert * shard_e(1))
    acts = c.bytes_per_sbh * w.seq_len * w.micro_batch * w.hidden / plan.tp * w.layers
    return Memory(weights, grads, optim, acts, gpu.memory_bytes, gpu.id)


def compute_ms(w: Workload, gpus: int, gpu: GpuSpec, mfu: float) -> float:
    """6 x active parameters x tokens per step, over the job's peak dense BF16 x MFU."""
    flops = 6.0 * w.active_params * w.global_batch_tokens
    return flops / (gpus * gpu.bf16_dense_TFLOPS * 1e12 * mfu) * 1000.0


def refuse_if_too_big(mem: Memory, w: Workload, plan: Plan) -> None:
    if mem.fits:
        return
    raise WorkloadError(
        f"{w.name} does not fit: it needs {mem.total / 1e9:,.0f} GB per GPU (weights {mem.weights / 1e9:,.0f}, "
        f"gradients {mem.gradients / 1e9:,.0f}, optimizer {mem.optimizer / 1e9:,.0f}, activations "
        f"{mem.activations / 1e9:,.0f}) and the {mem.gpu} has {mem.capacity / 1e9:,.0f} GB, with TP {plan.tp}, "
        f"PP {plan.pp}, DP {plan.dp}" + (f", EP {plan.ep}" if plan.ep > 1 else "")
        + f", ZeRO-{plan.zero}: shard more (performance.zero_stage, tp_degree, pp_degree)")
