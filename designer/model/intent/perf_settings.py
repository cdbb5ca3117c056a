"""Per-design settings of the collective-performance estimate.

Every field has a default, so a project file that says nothing about performance still loads.
`None` means "use the catalog's figure": technology efficiencies and latencies come from
resources/catalog/technologies.toml and switches.toml, NVLink efficiencies and NCCL constants
from resources/perf/nccl.toml, each with its source there. A value set here overrides that
figure for this design only.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass, field
from typing import Literal

from designer.limits import quote
from designer.model.intent.serde import DesignValidationError

Collective = Literal["allreduce", "allgather", "reducescatter", "alltoall", "broadcast"]
Algorithm = Literal["auto", "ring", "tree", "hierarchical", "innetwork"]
Placement = Literal["packed", "scattered", "spread"]
Schedule = Literal["1f1b", "interleaved"]
# OpenSM's routing engines (opensm 3.3's --routing_engine): the one the fabric's subnet manager
# runs, which the opensm export configures and the twin routes with.
RoutingEngine = Literal["ftree", "updn", "dnup", "minhop", "dfsssp", "sssp", "lash", "dor", "nue"]
ROUTING_ENGINES: tuple[str, ...] = typing.get_args(RoutingEngine)
DEFAULT_ROUTING_ENGINE = "ftree"   # the fat-tree engine, for the fat-trees and SUs the tool builds
# Fields added after files were saved without them: left out of a file while None (the
# default), so an older project file reads and writes back the same.
_NEW = {"omit_none": True}


def _check(name: str, value: float | None, low: float, high: float | None = None, allow_none: bool = True) -> None:
    if value is None and allow_none:
        return
    if value is None or value < low or (high is not None and value > high):
        bound = f"between {low:g} and {high:g}" if high is not None else f"at least {low:g}"
        raise DesignValidationError(f"performance.{name}", f"must be {bound}, got {quote(value)}")


@dataclass(frozen=True)
class PerformanceSettings:
    # What the estimate shows unless asked otherwise.
    message_size_bytes: int = 1 << 30
    collective: Collective = "allreduce"
    algorithm: Algorithm = "auto"
    # packed: fill SUs in order (a topology-aware scheduler); scattered: servers drawn at random
    # from a cluster at `occupancy`, seeded; spread: round-robin over SUs.
    placement: Placement = "packed"
    job_gpus: int | None = None            # GPUs taking part; None: every GPU of the design

    # The fleet the job runs in (None: resources/perf/fleet.toml's defaults, each with its basis).
    occupancy: float | None = field(default=None, metadata=_NEW)        # share of the cluster's servers busy
    placement_seed: int = field(default=0, metadata={"omit_empty": True})               # the scattered draw
    background_load: float | None = field(default=None, metadata=_NEW)  # other jobs' share of each uplink

    # Technology efficiencies (None: the technology's catalog figure).
    protocol_efficiency: float | None = None      # share of line rate NCCL moves as payload
    load_balance_efficiency: float | None = None  # share of uplink bandwidth usable by many flows
    adaptive_routing: bool | None = None          # None: the technology's; False: static ECMP
    # InfiniBand's subnet manager routing engine (None: ftree).
    routing_engine: RoutingEngine | None = field(default=None, metadata=_NEW)
    # Heuristic, used when adaptive routing is off and the technology gives no lower figure:
    # hashing k equal flows onto k paths leaves on average (1 - 1/k)^k ~ 1/e of the paths idle
    # (balls into bins), so about 63% of the uplink bandwidth carries traffic. Not a measurement.
    ecmp_efficiency: float = 0.63
    in_network_reduction: bool = True   # use SHARP / NVLink SHARP where the hardware has it
    # InfiniBand SHARP (NCCL's CollNet and multi-node NVLS) needs the SHARP plugin and an
    # aggregation manager on the fabric: it is not NCCL's out-of-the-box default, so it is off
    # unless the design turns it on. NVLink SHARP (NVLS, NVLSTree) needs only NVSwitch servers.
    sharp: bool = False

    # NVLink (None: NCCL's usable share for the GPU generation, resources/perf/nccl.toml).
    nvlink_efficiency: float | None = None
    nvls_efficiency: float | None = None

    # Latency (None: the switch's and technology's catalog figures; both are labelled estimates).
    switch_latency_ns: float | None = None
    nic_latency_ns: float | None = None

    # Training-step view.
    params: float | None = None          # model parameters, e.g. 70e9
    bytes_per_grad: int = 2              # bf16 / fp16 gradients
    dp_degree: int | None = None         # data-parallel degree; None: every GPU of the job
    compute_ms: float | None = None      # compute time per step
    bucket_bytes: int = 25 * 1024 * 1024  # PyTorch DistributedDataParallel default bucket_cap_mb = 25
    comm_overlap: float = 0.0            # heuristic: share of communication hidden behind compute
    # A named workload (resources/perf/workloads.toml) models a job that fits: TP/PP/DP/EP plan,
    # memory per GPU, compute from FLOPs. None: the gradient-only view of `params` above.
    workload: str | None = None
    mfu: float | None = None             # heuristic model FLOPs utilisation; None: workloads.toml's
    tp_degree: int | None = None         # plan overrides; None: the workload's own plan
    pp_degree: int | None = None
    ep_degree: int | None = None
    zero_stage: int | None = None        # 0 (DDP) .. 3 (FSDP); None: the workload's
    # The job's batch: global batch in tokens and sequences per micro-batch (None: the workload's,
    # the global batch grown with data parallelism up to its published ceiling, workloads.toml).
    global_batch_tokens: int | None = field(default=None, metadata=_NEW)
    micro_batch: int | None = field(default=None, metadata=_NEW)
    # Pipeline schedule (None: 1F1B); interleaved runs `virtual_stages` model chunks per GPU
    # (None: 2), dividing the bubble by them (Narayanan et al., SC21, section 2.2.2).
    pipeline_schedule: Schedule | None = field(default=None, metadata=_NEW)
    virtual_stages: int | None = field(default=None, metadata=_NEW)

    # Advice thresholds: heuristics from the InfiniBand-vs-Ethernet literature (REFERENCE.md),
    # not measurements. Shown as heuristics in every output that uses them.
    advice_ethernet_max_gpus: int = 512
    advice_infiniband_min_gpus: int = 2048
    advice_comm_share: float = 0.30

    def __post_init__(self) -> None:
        _check("message_size_bytes", self.message_size_bytes, 1, 2**50, allow_none=False)
        _check("job_gpus", self.job_gpus, 1, 2**24)
        _check("protocol_efficiency", self.protocol_efficiency, 0.01, 1.0)
        _check("load_balance_efficiency", self.load_balance_efficiency, 0.01, 1.0)
        _check("ecmp_efficiency", self.ecmp_efficiency, 0.01, 1.0, allow_none=False)
        _check("nvlink_efficiency", self.nvlink_efficiency, 0.01, 1.0)
        _check("nvls_efficiency", self.nvls_efficiency, 0.01, 1.0)
        _check("switch_latency_ns", self.switch_latency_ns, 0.0, 1e9)
        _check("nic_latency_ns", self.nic_latency_ns, 0.0, 1e9)
        _check("params", self.params, 1.0, 1e16)
        _check("bytes_per_grad", self.bytes_per_grad, 1, 64, allow_none=False)
        _check("dp_degree", self.dp_degree, 1, 2**24)
        _check("compute_ms", self.compute_ms, 0.0, 1e9)
        _check("bucket_bytes", self.bucket_bytes, 1, 2**40, allow_none=False)
        _check("comm_overlap", self.comm_overlap, 0.0, 1.0, allow_none=False)
        _check("mfu", self.mfu, 0.01, 1.0)
        _check("tp_degree", self.tp_degree, 1, 2**20)
        _check("pp_degree", self.pp_degree, 1, 2**20)
        _check("ep_degree", self.ep_degree, 1, 2**20)
        _check("zero_stage", self.zero_stage, 0, 3)
        _check("occupancy", self.occupancy, 0.01, 1.0)
        _check("placement_seed", self.placement_seed, 0, 2**31, allow_none=False)
        _check("background_load", self.background_load, 0.0, 0.95)
        _check("global_batch_tokens", self.global_batch_tokens, 1, 2**40)
        _check("micro_batch", self.micro_batch, 1, 2**16)
        _check("virtual_stages", self.virtual_stages, 1, 64)
        _check("advice_ethernet_max_gpus", self.advice_ethernet_max_gpus, 1, 2**30, allow_none=False)
        _check("advice_infiniband_min_gpus", self.advice_infiniband_min_gpus, 1, 2**30, allow_none=False)
        _check("advice_comm_share", self.advice_comm_share, 0.0, 1.0, allow_none=False)
        if self.advice_infiniband_min_gpus < self.advice_ethernet_max_gpus:
            raise DesignValidationError(
                "performance.advice_infiniband_min_gpus",
                f"must be at least advice_ethernet_max_gpus ({self.advice_ethernet_max_gpus})")
