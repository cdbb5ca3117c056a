"""Estimated collective performance on a design: "will my GPUs wait on the network?".

Model. Each algorithm costs `latency + size x (time per byte)`, as in NCCL's tuner
(src/graph/tuning.cc): the latency is NCCL's base latency plus its per-step hardware latency
for every NVLink and network step (network steps corrected for this fabric's hops, switch and
NIC latency); the time per byte is the alpha-beta bandwidth term (Thakur, Rabenseifner and
Gropp) on the resource each phase loads most: NVLink per GPU, NIC per GPU, or the tier
uplinks the traffic crosses in this fabric for this placement (collective_costs.py).
Phases that run pipelined take the slowest resource; phases that run one after the other add.
The algorithm and protocol (LL, LL128, Simple) are chosen per size as NCCL's tuner does: the
fastest of the candidates (enqueue.cc topoGetAlgoInfo takes the least estimated time). Each
candidate's time is affine in the size, so the fastest never takes longer for a smaller size:
a sweep never falls.

Algorithms. `auto` picks among what NCCL itself would run on the hardware: ring and tree;
NVLS (one NVLink domain) and NVLSTree (NVLS inside each domain, a tree across), which need
only NVLink SHARP in the server; CollNet and multi-node NVLS only when the design enables
InfiniBand SHARP (performance.sharp; off by default, as in NCCL); PAT for all-gather and
reduce-scatter with one GPU per node; send/receive for all-to-all; ring for broadcast. The
"hierarchical" reduction (NVLink phase, network phase, NVLink phase, as Horovod's
hierarchical all-reduce) and the binomial broadcast tree are not NCCL algorithms: they are
offered on request only, and labelled so. Each result names NCCL's algorithm
(`nccl_algorithm`).

Sizes follow nccl-tests: the buffer per rank (all-reduce, broadcast, all-to-all send buffer),
the gathered output (all-gather) or the input (reduce-scatter). algbw = size / time and
busbw = algbw x 2(n-1)/n (all-reduce), x (n-1)/n (all-gather, reduce-scatter, all-to-all),
x 1 (broadcast), as in nccl-tests doc/PERFORMANCE.md.
"""

from __future__ import annotations

import math
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from threading import Lock
from typing import TYPE_CHECKING, Any

import numpy as np

from designer.model.intent.perf_settings import PerformanceSettings
from designer.model.performance.collective_costs import (
    PROTOCOLS,
    CollectiveError,
    FabricContext,
    TierLimit,
    build_context,
)
from designer.model.performance.rail_only import stages

if TYPE_CHECKING:
    from designer.model.topology.derive import Derived

COLLECTIVES = ("allreduce", "allgather", "reducescatter", "alltoall", "broadcast")
ALGORITHMS = ("auto", "ring", "tree", "hierarchical", "innetwork")
PLACEMENTS = ("packed", "scattered", "spread")
SWEEP_SIZES = tuple(1 << k for k in range(3, 35))   # 8 B to 16 GiB
IN_NETWORK = ("nvls", "nvls+sharp", "nvls+tree", "sharp", "nvls+ring")
LATENCY = "latency"

# NCCL's name for each algorithm the model runs (src/include/device.h NCCL_ALGO_*); "-" marks
# an algorithm NCCL does not have.
NCCL_NAMES = {"ring": "RING", "tree": "TREE", "nvls": "NVLS", "nvls+sharp": "NVLS",
              "nvls+tree": "NVLS_TREE", "sharp": "COLLNET_DIRECT", "nvls+ring": "NVLS",
              "pat": "PAT", "pairwise": "SEND_RECV", "hierarchical": "-", "binomial": "-"}
NOT_NCCL = {"hierarchical": "hierarchical reduction as in Horovod, not an NCCL algorithm",
            "binomial": "binomial tree (MPICH), not an NCCL algorithm"}

__all__ = ["ALGORITHMS", "COLLECTIVES", "PLACEMENTS", "SWEEP_SIZES", "CollectiveError",
           "CollectiveResult", "Sweep", "busbw_factor", "estimate", "sweep", "context_for", "uplink_reading"]


@dataclass(frozen=True)
class CollectiveResult:
    size_bytes: int
    time_us: float
    algbw_GBps: float
    busbw_GBps: float
    algorithm: str        # ring, tree, pat, pairwise, nvls, nvls+sharp, nvls+tree, sharp, nvls+ring,
                          # hierarchical, binomial (the last two on request only: not NCCL's)
    bottleneck: str       # NVLink, NIC, oversubscription at <tier> tier (r:1), <tier> uplinks, latency...
    protocol: str = "Simple"

    @property
    def nccl_algorithm(self) -> str:
        """NCCL's name for the algorithm ("-" when NCCL has no such algorithm)."""
        return NCCL_NAMES.get(self.algorithm, "-")

    def to_json(self) -> dict[str, Any]:
        """The documented JSON shape of `fabric-designer collectives --json` (keep key names stable)."""
        return {"size_bytes": self.size_bytes, "time_us": self.time_us, "algbw_GBps": self.algbw_GBps,
                "busbw_GBps": self.busbw_GBps, "algorithm": self.algorithm, "protocol": self.protocol,
                "bottleneck": self.bottleneck, "nccl_algorithm": self.nccl_algorithm}


@dataclass(frozen=True)
class Candidate:
    """One algorithm with one protocol: time(size) = latency_us + size x us_per_byte."""

    algorithm: str
    protocol: str
    latency_us: float
    us_per_byte: float
    bottleneck: str


@dataclass(frozen=True, eq=False)
class Sweep:
    """Estimates over a range of sizes; the arrays plug straight into a pyqtgraph curve."""

    collective: str
    gpus: int
    placement: str
    requested: str                 # the algorithm asked for (auto, ring, ...)
    sizes: np.ndarray              # bytes (int64)
    time_us: np.ndarray
    algbw_GBps: np.ndarray
    busbw_GBps: np.ndarray
    algorithms: list[str]
    protocols: list[str]
    bottlenecks: list[str]
    context: FabricContext

    @property
    def results(self) -> list[CollectiveResult]:
        return [CollectiveResult(int(s), float(t), float(a), float(b), alg, neck, proto)
                for s, t, a, b, alg, proto, neck in zip(self.sizes, self.time_us, self.algbw_GBps,
                                                         self.busbw_GBps, self.algorithms,
                                                         self.protocols, self.bottlenecks, strict=True)]

    def curve(self, metric: str = "busbw") -> tuple[np.ndarray, np.ndarray]:
        """(x, y) float arrays: x = message size in bytes (plot with log x), y = the metric."""
        y = {"busbw": self.busbw_GBps, "algbw": self.algbw_GBps, "time": self.time_us}.get(metric)
        if y is None:
            raise ValueError(f"unknown metric '{metric}' (choose busbw, algbw or time)")
        return self.sizes.astype(np.float64), np.asarray(y, dtype=np.float64)

    def to_json(self) -> list[dict[str, Any]]:
        return [r.to_json() for r in self.results]


def busbw_factor(collective: str, n: int) -> float:
    """nccl-tests' bus-bandwidth factor for `n` ranks."""
    if collective == "allreduce":
        return 2.0 * (n - 1) / n
    if collective == "broadcast":
        return 1.0
    return (n - 1) / n


def normalize_collective(name: str) -> str:
    key = name.strip().lower().replace("-", "").replace("_", "").replace(" ", "")
    if key not in COLLECTIVES:
        raise CollectiveError(f"unknown collective '{name}' (choose from {', '.join(COLLECTIVES)})")
    return key


# ----------------------------------------------------------------------------------------
# Cost of each algorithm


def _time_per_byte(phases: list[list[tuple[float, float, str]]]) -> tuple[float, str]:
    """Phases run one after another; resources within a phase run at once.

    Each resource is (bytes per user byte, rate in GB/s, name); returns (us per byte, the
    name of the resource that costs most).
    """
    total, worst, worst_name = 0.0, -1.0, "NVLink"
    for phase in phases:
        loads = [(load / (rate * 1e3), name) for load, rate, name in phase if load > 0]
        if not loads:
            continue
        t, name = max(loads)
        total += t
        if t > worst:
            worst, worst_name = t, name
    return total, worst_name


def _nic(ctx: FabricContext, lim: TierLimit, factor: float = 1.0) -> tuple[float, str]:
    rate = ctx.nic_GBps * lim.factor * factor
    return rate, (lim.name if lim.factor < 1 else "NIC")


def _net_step(ctx: FabricContext, base_step: float, lim: TierLimit) -> float:
    return max(0.0, base_step + ctx.extra_us.get(lim.hops, 0.0))


def _ll_cap(ctx: FabricContext, collective: str, upb: float, name: str) -> tuple[float, str]:
    """NCCL caps LL bus bandwidth (llMaxBws); expressed as a floor on time per byte."""
    floor = busbw_factor(collective, ctx.gpus) / (ctx.ll_cap_GBps * 1e3)
    return (floor, "LL protocol") if floor > upb else (upb, name)


def _ring_like(ctx: FabricContext, collective: str, steps_factor: int) -> list[Candidate]:
    """Ring all-reduce (steps_factor 2), ring all-gather / reduce-scatter and ring broadcast (1)."""
    c = ctx.constants
    n, N, L = ctx.gpus, ctx.domains, ctx.per_domain
    lim = ctx.limits["ring"]
    nsteps = steps_factor * (n - 1)
    inter = steps_factor * (N - 1)
    if collective == "broadcast":   # every rank receives the whole buffer once
        nvl_load = 1.0 if N == 1 else (L - 1) / L
        nic_load = 0.0 if N == 1 else 1.0 / L
    else:
        traffic = steps_factor * (n - 1) / n
        nvl_load = traffic if N == 1 else traffic * (L - 1) / L
        nic_load = 0.0 if N == 1 else traffic / L
    nic_load *= L / domain_nics(ctx)
    out = []
    for i, proto in enumerate(PROTOCOLS):
        intra = c.nvlink_ring_step_us[i]
        if N > 1:  # inter-node rings launch every step through the network proxy
            intra = max(intra, c.net_overhead_us * (3 if proto == "Simple" else 1))
        lat = (c.base_ring_us[i] + (nsteps - inter) * intra
               + inter * _net_step(ctx, c.net_ring_step_us[i], lim))
        f = c.ring_protocol_factor[i]
        rate, nic_name = _nic(ctx, lim, f)
        upb, neck = _time_per_byte([[(nvl_load, ctx.nvlink_GBps * f, "NVLink"), (nic_load, rate, nic_name)]])
        if proto == "LL":
            upb, neck = _ll_cap(ctx, collective, upb, neck)
        out.append(Candidate("ring", proto, lat, upb, neck))
    return out


def _tree_allreduce(ctx: FabricContext) -> list[Candidate]:
    """NCCL's tree: a chain inside the domain, a double binary tree across domains."""
    c = ctx.constants
    N, L = ctx.domains, ctx.per_domain
    lim = ctx.limits["tree"]
    depth = int(math.floor(math.log2(N))) if N > 1 else 0
    out = []
    for i, proto in enumerate(PROTOCOLS):
        lat = c.base_tree_us[i] + 2 * ((L - 1) * c.nvlink_tree_step_us[i]
                                       + depth * (_net_step(ctx, c.net_tree_step_us[i], lim)
                                                  + _rack_step_latency(ctx)))
        f = c.tree_factor * (c.tree_ll128_one_node_factor if (proto == "LL128" and N == 1)
                             else c.tree_protocol_factor[i])
        rate, nic_name = _nic(ctx, lim, f)
        nvl_load = 2 * (L - 1) / L
        nic_load = 0.0 if N == 1 else 2.0 / domain_nics(ctx)
        upb, neck = _time_per_byte([[(nvl_load, ctx.nvlink_GBps * f, "NVLink"), (nic_load, rate, nic_name)]])
        if proto == "LL":
            upb, neck = _ll_cap(ctx, "allreduce", upb, neck)
        out.append(Candidate("tree", proto, lat, upb, neck))
    return out


def _hierarchical(ctx: FabricContext, collective: str) -> list[Candidate]:
    """Inside the domains over NVLink, across them on each GPU's own rail, one phase at a time."""
    c = ctx.constants
    N, L = ctx.domains, ctx.per_domain
    pattern = "alltoall" if collective == "alltoall" else "ring"
    lim = ctx.limits[pattern]
    out = []
    for i, proto in enumerate(PROTOCOLS):
        f = c.ring_protocol_factor[i]
        nvl = ctx.nvlink_GBps * f
        rate, nic_name = _nic(ctx, lim, f)
        net = _net_step(ctx, c.net_ring_step_us[i], lim)
        nv = c.nvlink_ring_step_us[i]
        if collective == "allreduce":   # reduce-scatter, all-reduce of a shard, all-gather
            lat = 3 * c.base_ring_us[i] + 2 * (L - 1) * nv + 2 * (N - 1) * net
            phases = [[((L - 1) / L, nvl, "NVLink")], [(2 * (N - 1) / N / L, rate, nic_name)],
                      [((L - 1) / L, nvl, "NVLink")]]
        else:                           # two phases: across domains and inside them
            lat = 2 * c.base_ring_us[i] + (L - 1) * nv + (N - 1) * net
            cross = (N - 1) / N if collective == "alltoall" else (N - 1) / N / L
            phases = [[((L - 1) / L, nvl, "NVLink")], [(cross, rate, nic_name)]]
        upb, neck = _time_per_byte(phases)
        if proto == "LL":
            upb, neck = _ll_cap(ctx, collective, upb, neck)
        out.append(Candidate("hierarchical", proto, lat, upb, neck))
    return out


def _nvls_allreduce_load(ctx: FabricContext) -> float:
    """NVLink bytes per user byte of an NVLS all-reduce, at the NVLS rate (ctx.nvls_GBps).

    Port bound: each GPU sends its buffer and its reduced shard (1 + 1/L). Switch bound: the
    bus bandwidth stays at the 8-GPU board's (nccl.toml nvls_max_bus_factor), so a 72-GPU
    domain does not gain the port bound's 2(L-1)/(L+1).
    """
    L = ctx.per_domain
    return max(1.0 + 1.0 / L, 2.0 * (L - 1) / L / ctx.constants.nvls_max_bus_factor)


def _nvls_latency(ctx: FabricContext) -> float:
    """One NVLS pass: NCCL's figure, paid per compute tray in a multi-node NVLink domain."""
    c = ctx.constants
    return c.nvls_nvlink_us * (ctx.trays if c.nvls_latency_per_tray else 1)


def _pat(ctx: FabricContext, collective: str) -> list[Candidate]:
    """NCCL's PAT all-gather / reduce-scatter (one GPU per node): log2(n) network steps, ring bandwidth."""
    c = ctx.constants
    n = ctx.gpus
    lim = ctx.limits["ring"]
    steps = math.ceil(math.log2(n))
    out = []
    for cand in _ring_like(ctx, collective, 1):
        if cand.protocol != "Simple":
            continue   # PAT runs the Simple protocol only
        i = PROTOCOLS.index("Simple")
        lat = c.base_ring_us[i] + steps * _net_step(ctx, c.net_ring_step_us[i], lim)
        out.append(Candidate("pat", "Simple", lat, cand.us_per_byte, cand.bottleneck))
    return out


def _in_network(ctx: FabricContext, collective: str) -> list[Candidate]:
    """NVLink SHARP inside the domain and SHARP in the switches across domains (Simple only)."""
    c = ctx.constants
    N, L = ctx.domains, ctx.per_domain
    simple = PROTOCOLS.index("Simple")
    nvls = ctx.nvls_GBps
    if collective in ("allgather", "reducescatter"):
        if not ctx.nvls:
            return []
        if N == 1:   # multicast: each GPU takes in the (L-1)/L it lacks
            upb, neck = _time_per_byte([[((L - 1) / L, nvls, "NVLink")]])
            return [Candidate("nvls", "Simple", _nvls_latency(ctx), upb, neck)]
        lim = ctx.limits["ring"]
        rate, nic_name = _nic(ctx, lim)
        lat = (_nvls_latency(ctx) + c.base_ring_us[simple]
               + (N - 1) * _net_step(ctx, c.net_ring_step_us[simple], lim))
        upb, neck = _time_per_byte([[((L - 1) / L, nvls, "NVLink")], [((N - 1) / N / L, rate, nic_name)]])
        return [Candidate("nvls+ring", "Simple", lat, upb, neck)]
    if collective != "allreduce":
        return []
    # NVLS all-reduce: each GPU sends its buffer and its reduced shard, receives the same.
    nvls_load = _nvls_allreduce_load(ctx)
    nvls_lat = _nvls_latency(ctx)
    if N == 1:
        if not ctx.nvls:
            return []
        upb, neck = _time_per_byte([[(nvls_load, nvls, "NVLink")]])
        return [Candidate("nvls", "Simple", nvls_lat, upb, neck)]
    if ctx.sharp:   # each GPU's NIC sends its shard up once and gets the result once
        lim = ctx.limits["sharp"]
        rate, nic_name = _nic(ctx, lim)
        extra = ctx.extra_us.get(lim.hops, 0.0)
        if ctx.nvls:
            lat = nvls_lat + max(0.0, c.nvls_net_us + extra)
            upb, neck = _time_per_byte([[(nvls_load, nvls, "NVLink"), (1.0 / L, rate, nic_name)]])
            return [Candidate("nvls+sharp", "Simple", lat, upb, neck)]
        lat = (2 * (min(1.0, L - 1) * c.collnet_nvlink_us + (L - 1) * c.collnet_arity_us)
               + max(0.0, c.collnet_net_us + extra))
        upb, neck = _time_per_byte([[(2 * (L - 1) / L, ctx.nvlink_GBps, "NVLink"), (1.0 / L, rate, nic_name)]])
        return [Candidate("sharp", "Simple", lat, upb, neck)]
    if ctx.nvls:    # NVLS inside, double binary tree of the shards across (NCCL NVLSTree)
        lim = ctx.limits["tree"]
        rate, nic_name = _nic(ctx, lim)
        heads, head_rate, head_name = nvls_tree_heads(ctx, rate, nic_name)
        lat = nvls_lat + nvls_tree_steps(N) * (_net_step(ctx, c.nvls_tree_net_step_us, lim)
                                               + _rack_step_latency(ctx))
        # The domain's tree traffic (2 x the buffer, NCCL's bus bandwidth) crosses the network
        # through its heads only; two domains exchange, at twice the NIC rate (see below).
        head_load = 2.0 / heads
        upb, neck = _time_per_byte([[(nvls_load, nvls, "NVLink"), (head_load, head_rate, head_name)]])
        return [Candidate("nvls+tree", "Simple", lat, upb, neck)]
    return []


def domain_nics(ctx: FabricContext) -> float:
    """NICs of one NVLink domain that carry NCCL's traffic between domains: every GPU's NIC on
    an 8-GPU server; a multi-node NVLink domain (NVL72) sustains only `multinode_domain_nics`
    of them (fitted, nccl.toml)."""
    if ctx.servers_per_domain > 1:
        return min(ctx.per_domain, float(ctx.constants.multinode_domain_nics))
    return ctx.per_domain


def nvls_tree_steps(domains: int) -> int:
    """Network steps of NCCL's NVLSTree: up and down a binary tree of the domains
    (2 x log2i(nNodes), tuning.cc); two domains exchange in one step."""
    if domains <= 1:
        return 0
    return 1 if domains == 2 else 2 * int(math.floor(math.log2(domains)))


def _rack_step_latency(ctx: FabricContext) -> float:
    """What one tree step between rack-scale domains adds: the data a step brings into a rack
    reaches its compute trays one after the other (NVLSTree through the rack's NVLS buffers, the
    tree along its chain of the rack's GPUs), at the per-tray NVLS latency of the trays beyond
    the first (0 on an 8-GPU board, whose step latency NCCL's constants already hold).

    Fitted to NVLSTree's measured fixed cost across 2 and 20 GB200 racks (nccl.toml); NCCL
    counts both trees' steps alike (tuning.cc: 2 x log2i(nNodes) x interLat), so the tree pays it
    too. Charged to NVLSTree alone, the tree was the fastest candidate across 20 racks at 512 MiB
    by 2.2x the measured figure, which is why `auto` once had to follow NCCL's own choice there
    instead of the fastest."""
    c = ctx.constants
    if not c.nvls_latency_per_tray:
        return 0.0
    return c.nvls_nvlink_us * (ctx.trays - 1)


def nvls_tree_heads(ctx: FabricContext, rate: float, nic_name: str) -> tuple[int, float, str]:
    """(heads per domain, GB/s one head's tree carries, what limits it) for NCCL's NVLSTree.

    NCCL picks one head per GPU with a local NIC, at most NCCL_MAX_NVLS_ARITY (32); a
    multi-node NVLink domain sustains the fitted `multinode_domain_nics` (nccl.toml). A
    head carries its GPU's NIC rate, at most NCCL's per-channel NVLSTree figure
    (perChMaxNVLSTreeBws), doubled NIC rate between two domains as tuning.cc models it.
    """
    c = ctx.constants
    heads = max(1, int(min(domain_nics(ctx), c.nvls_max_heads)))
    two = ctx.domains == 2
    nic = rate * (2.0 if two else 1.0)
    cap = ctx.generation.nvls_tree_head_max_GBps[0 if two else 1]
    if cap < nic:
        return heads, cap, "NVLSTree head rate"
    return heads, nic, nic_name


def _alltoall(ctx: FabricContext) -> list[Candidate]:
    """Pairwise exchange (Thakur et al.): n-1 steps; remote data goes through the same-rail GPU."""
    c = ctx.constants
    n, L = ctx.gpus, ctx.per_domain
    lim = ctx.limits["alltoall"]
    local, remote = (L - 1) / n, (n - L) / n
    nvl_load = local + remote * (L - 1) / L      # PXN: to the rail's GPU over NVLink first
    out = []
    for i, proto in enumerate(PROTOCOLS):
        f = c.ring_protocol_factor[i]
        rate, nic_name = _nic(ctx, lim, f)
        lat = (c.base_ring_us[i] + (L - 1) * c.nvlink_ring_step_us[i]
               + (n - L) * _net_step(ctx, c.net_ring_step_us[i], lim))
        upb, neck = _time_per_byte([[(nvl_load, ctx.nvlink_GBps * f, "NVLink"), (remote, rate, nic_name)]])
        if proto == "LL":
            upb, neck = _ll_cap(ctx, "alltoall", upb, neck)
        out.append(Candidate("pairwise", proto, lat, upb, neck))
    return out


def _rail_only_alltoall(ctx: FabricContext) -> list[Candidate]:
    """The pairwise exchange with no spine: NVLink forward, then the rail (rail_only.py)."""
    out = []
    for st in stages(ctx):
        upb, neck = st.us_per_byte, st.bottleneck
        if PROTOCOLS[st.protocol] == "LL":
            upb, neck = _ll_cap(ctx, "alltoall", upb, neck)
        out.append(Candidate("pairwise", PROTOCOLS[st.protocol], st.latency_us, upb, neck))
    return out


def _binomial_broadcast(ctx: FabricContext) -> list[Candidate]:
    """Binomial tree (Thakur et al.): lg p rounds of the whole buffer, domains first."""
    c = ctx.constants
    N, L = ctx.domains, ctx.per_domain
    lim = ctx.limits["binomial"]
    net_rounds = math.ceil(math.log2(N)) if N > 1 else 0
    nvl_rounds = math.ceil(math.log2(L)) if L > 1 else 0
    out = []
    for i, proto in enumerate(PROTOCOLS):
        f = c.ring_protocol_factor[i]
        rate, nic_name = _nic(ctx, lim, f)
        lat = (c.base_tree_us[i] + nvl_rounds * c.nvlink_tree_step_us[i]
               + net_rounds * _net_step(ctx, c.net_tree_step_us[i], lim))
        # A round between domains uses all the sending domain's NICs: 1/L of the buffer per GPU.
        upb, neck = _time_per_byte([[(net_rounds / L, rate, nic_name)],
                                    [(nvl_rounds, ctx.nvlink_GBps * f, "NVLink")]])
        if proto == "LL":
            upb, neck = _ll_cap(ctx, "broadcast", upb, neck)
        out.append(Candidate("binomial", proto, lat, upb, neck))
    return out


_NAMES = {"allreduce": "all-reduce", "allgather": "all-gather", "reducescatter": "reduce-scatter",
          "alltoall": "all-to-all", "broadcast": "broadcast"}


def candidates(ctx: FabricContext, collective: str, algorithm: str = "auto") -> list[Candidate]:
    """Every (algorithm, protocol) the request allows; raises CollectiveError if none does.

    `auto` takes only NCCL's own algorithms; "hierarchical" and the binomial broadcast tree
    are there on request, to compare with other libraries.
    """
    multi = ctx.domains > 1 and ctx.per_domain > 1
    families: dict[str, list[Candidate]] = {}
    extra: dict[str, list[Candidate]] = {}     # not NCCL's: never chosen by auto
    if collective == "allreduce":
        families["ring"] = _ring_like(ctx, collective, 2)
        families["tree"] = _tree_allreduce(ctx)
        if multi:
            extra["hierarchical"] = _hierarchical(ctx, collective)
        families["innetwork"] = _in_network(ctx, collective)
    elif collective in ("allgather", "reducescatter"):
        families["ring"] = _ring_like(ctx, collective, 1)
        if ctx.domains > 1 and ctx.per_domain <= 1:
            families["pat"] = _pat(ctx, collective)
        if multi:
            extra["hierarchical"] = _hierarchical(ctx, collective)
        families["innetwork"] = _in_network(ctx, collective)
    elif collective == "alltoall":
        families["pairwise"] = _rail_only_alltoall(ctx) if ctx.rail_only else _alltoall(ctx)
    else:
        families["ring"] = _ring_like(ctx, collective, 1)
        extra["tree"] = _binomial_broadcast(ctx)
    if algorithm == "auto":
        return [cand for group in families.values() for cand in group]
    if algorithm not in ALGORITHMS:
        raise CollectiveError(f"unknown algorithm '{algorithm}' (choose from {', '.join(ALGORITHMS)})")
    chosen = families.get(algorithm) or extra.get(algorithm)
    if chosen:
        return chosen
    name = _NAMES[collective]
    if algorithm == "innetwork" and "innetwork" in families:
        raise CollectiveError(
            f"no in-network {name} on this design: it needs NVLink SHARP servers"
            + (" or InfiniBand switches with SHARP (performance.sharp on)" if collective == "allreduce" else "")
            + " (and performance.in_network_reduction left on)")
    if algorithm == "hierarchical" and collective == "alltoall":
        raise CollectiveError("NCCL has no hierarchical all-to-all: it runs send/receive pairs "
                              "(auto, the pairwise exchange)")
    if algorithm == "hierarchical" and collective != "broadcast":
        raise CollectiveError(f"a hierarchical {name} needs more than one NVLink domain with more than "
                              "one GPU each")
    offered = ", ".join(["auto"] + [f for f in (*families, *extra) if (families.get(f) or extra.get(f))
                                    and f in ALGORITHMS])
    auto = " (auto is the pairwise exchange)" if collective == "alltoall" else ""
    raise CollectiveError(f"{name} has no {algorithm} algorithm here: choose from {offered}{auto}")


# ----------------------------------------------------------------------------------------
# Public API


_CTX_CACHE: OrderedDict[tuple[Any, ...], tuple[weakref.ref[Derived], FabricContext]] = OrderedDict()
_CTX_LOCK = Lock()


def context_for(derived: Derived, gpus: int | None = None, placement: str | None = None,
                settings: PerformanceSettings | None = None) -> FabricContext:
    """The size-independent inputs for this job, cached per derived design."""
    settings = settings or derived.design.performance
    total = derived.plan.servers * derived.resolved.gpus_per_server
    gpus = int(gpus or settings.job_gpus or total)
    placement = placement or settings.placement
    key = (id(derived), gpus, placement, settings)
    with _CTX_LOCK:
        hit = _CTX_CACHE.get(key)
        if hit is not None and hit[0]() is derived:
            _CTX_CACHE.move_to_end(key)
            return hit[1]
    ctx = build_context(derived, gpus, placement, settings)
    with _CTX_LOCK:
        _CTX_CACHE[key] = (weakref.ref(derived), ctx)
        while len(_CTX_CACHE) > 32:
            _CTX_CACHE.popitem(last=False)
    return ctx


def evaluate(ctx: FabricContext, collective: str, sizes: Sequence[int] | np.ndarray, algorithm: str = "auto") -> Sweep:
    """All sizes at once: every candidate's affine cost, the cheapest per size."""
    collective = normalize_collective(collective)
    sizes = np.asarray(sizes, dtype=np.int64)
    if sizes.size == 0 or sizes.min() < 1:
        raise CollectiveError("message size must be at least 1 byte")
    cands = candidates(ctx, collective, algorithm)
    lat = np.array([c.latency_us for c in cands])
    upb = np.array([c.us_per_byte for c in cands])
    cost = lat[:, None] + upb[:, None] * sizes[None, :].astype(np.float64)
    best = np.argmin(cost, axis=0)
    cols = np.arange(sizes.size)
    time_us = cost[best, cols]
    algbw = sizes / time_us / 1e3            # bytes/us -> GB/s
    busbw = algbw * busbw_factor(collective, ctx.gpus)
    latency_bound = lat[best] >= upb[best] * sizes
    algorithms = [cands[i].algorithm for i in best]
    protocols = [cands[i].protocol for i in best]
    necks = [LATENCY if lb else cands[i].bottleneck for i, lb in zip(best, latency_bound, strict=True)]
    if algorithm == "auto":
        necks = _uplinks_that_cost_the_faster_choice(ctx, collective, sizes, time_us, cands, necks)
    return Sweep(collective, ctx.gpus, ctx.placement, algorithm, sizes, time_us, algbw, busbw,
                 algorithms, protocols, necks, ctx)


def _uplinks_that_cost_the_faster_choice(ctx: FabricContext, collective: str, sizes: np.ndarray,
                                          time_us: np.ndarray, cands: list[Candidate],
                                          necks: list[str]) -> list[str]:
    """Name the oversubscribed uplinks where they, not the chosen algorithm's own limit, set the time.

    The uplinks can bind without binding the algorithm that wins: on a 3:1 leaf-spine fabric the
    tree's traffic leaves the leaves too often, so the ring wins, NIC-bound but slower than the
    tree on non-blocking uplinks. The same candidates on uplinks that keep up with the NICs
    (every tier factor 1) tell: where they are faster, the time is the uplinks' doing, and the
    bottleneck names the tier that slows the candidate that would have won.
    """
    if all(lim.factor >= 1.0 for lim in ctx.limits.values()):
        return necks
    free = replace(ctx, limits={p: replace(lim, factor=1.0, name="NIC") for p, lim in ctx.limits.items()})
    free_cands = candidates(free, collective, "auto")
    lat = np.array([c.latency_us for c in free_cands])
    upb = np.array([c.us_per_byte for c in free_cands])
    cost = lat[:, None] + upb[:, None] * sizes[None, :].astype(np.float64)
    free_best = np.argmin(cost, axis=0)
    free_time = cost[free_best, np.arange(sizes.size)]
    tier_names = {lim.name for lim in ctx.limits.values() if lim.factor < 1.0}
    out = list(necks)
    for k, (t, t_free, i) in enumerate(zip(time_us.tolist(), free_time.tolist(), free_best.tolist(), strict=True)):
        held_back = cands[i].bottleneck   # the same candidate (same order) on the real uplinks
        if necks[k] != LATENCY and t > t_free * (1 + 1e-6) and held_back in tier_names:
            out[k] = held_back
    return out


_PATTERN_OF = {"ring": "ring", "nvls+ring": "ring", "tree": "tree", "nvls+tree": "tree", "pat": "ring",
               "sharp": "sharp", "nvls+sharp": "sharp", "pairwise": "alltoall", "hierarchical": "ring",
               "binomial": "binomial"}


def uplink_reading(ctx: FabricContext, algorithm: str) -> str:
    """One line on what the uplinks do to `algorithm` in this job: the share of its traffic that
    leaves a leaf group (or a pod) and the share of the NIC rate the uplinks sustain for it.

    Empty when the job has no network traffic or the algorithm none across domains. Says why a
    collective on an oversubscribed fabric may still be NIC-bound: with ranks packed, a ring
    leaves each leaf once, so a 1.33:1 leaf carries its share with room to spare.
    """
    pattern = _PATTERN_OF.get(algorithm)
    lim = ctx.limits.get(pattern) if pattern else None
    if lim is None or ctx.domains < 2:
        return ""
    if lim.leaf_share == 0:
        return f"all its traffic stays under the leaves ({ctx.placement} ranks)"
    where = (f"{lim.leaf_share:.0%} of its traffic leaves a leaf" if not lim.pod_share
             else f"{lim.leaf_share:.0%} of its traffic leaves a leaf, {lim.pod_share:.0%} a pod")
    if lim.factor < 1:
        return f"{where} ({ctx.placement} ranks): the uplinks give it {lim.factor:.0%} of the NIC rate"
    return f"{where} ({ctx.placement} ranks): the uplinks keep up"


def other_placement_reading(derived: Derived, collective: str, size_bytes: int, shown: CollectiveResult) -> str:
    """The same collective with the ranks placed the other way, where that reads differently.

    With ranks packed, a ring leaves each leaf once and a mildly oversubscribed leaf keeps up; a
    job whose ranks land spread over the leaves (a fragmented cluster, a scheduler that does not
    place by topology) sends nearly all its traffic over the spines, and there the leaf ratio
    binds. A card that shows one figure shows the other beside it. Empty when they agree."""
    placement = derived.design.performance.placement
    other = "spread" if placement == "packed" else "packed"
    r = estimate(derived, collective, size_bytes, placement=other)
    if abs(r.busbw_GBps - shown.busbw_GBps) <= 0.005 * max(shown.busbw_GBps, 1e-12):
        return ""
    return f"with ranks {other}: {r.busbw_GBps:,.0f} GB/s, limited by {r.bottleneck}"


def sweep(derived: Derived, collective: str = "allreduce", gpus: int | None = None, algorithm: str = "auto",
          placement: str | None = None, sizes: Sequence[int] | np.ndarray | None = None,
          settings: PerformanceSettings | None = None) -> Sweep:
    """Estimates for `sizes` (default 8 B to 16 GiB in powers of two) on a derived design."""
    collective = normalize_collective(collective)
    ctx = context_for(derived, gpus, placement, settings)
    return evaluate(ctx, collective, SWEEP_SIZES if sizes is None else sizes, algorithm)


def estimate(derived: Derived, collective: str = "allreduce", size_bytes: int = 1 << 30, gpus: int | None = None,
             algorithm: str = "auto", placement: str | None = None,
             settings: PerformanceSettings | None = None) -> CollectiveResult:
    """One collective of `size_bytes` on a derived design."""
    if size_bytes is None or size_bytes < 1:
        raise CollectiveError("message size must be at least 1 byte")
    return sweep(derived, collective, gpus, algorithm, placement, [int(size_bytes)], settings).results[0]
