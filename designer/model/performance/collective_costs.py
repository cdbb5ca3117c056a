"""The per-design constants of the collective estimate: bandwidths, hop latencies, tier crossing.

Everything here is computed once per (design, job, placement) and is independent of message
size, so a sweep evaluates all sizes as arrays afterwards (designer/model/performance/collectives.py).
Only the sizing plan is used, never the device graph: a 32K-GPU fabric stays cheap.

Job layout. The job is a list of NVLink domains (a DGX server, or the 18 trays of an NVL72
rack) in rank order. "packed" takes domains in index order, which fills SUs one after the
other; "spread" round-robins domains over the leaf groups (SUs for rail-optimized fabrics), so
consecutive ranks sit in different SUs. Rank order is also ring order, as in NCCL, where the
ring across nodes follows the ranks.

Tier crossing. Traffic between domains follows NCCL's rail alignment (PXN): a NIC talks to the
NIC of the same rail in other domains, so in a rail-optimized fabric ring traffic stays on one
leaf per SU and only traffic between SUs climbs to the spines. For each communication pattern
(ring, double binary tree, all-to-all, SHARP tree, binomial tree) the share of each leaf
group's traffic that leaves it is counted on the actual rank order; a leaf whose uplinks carry
less than that share of its NICs' traffic slows every NIC of the job (collectives are
synchronous), and likewise the spine uplinks of a pod in three-tier fabrics.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from designer.catalog import Catalog, Server, Switch, Technology
from designer.catalog.loader import RESOURCES
from designer.limits import read_text
from designer.model.common.units import ratio_label
from designer.model.intent.perf_settings import PerformanceSettings
from designer.model.performance import fleet
from designer.model.performance.bin_sums import busiest_sum, uniform_weight
from designer.model.performance.flow_placement import HASHED, MODE_NAMES, Placement, flows_per_nic, place
from designer.model.performance.rail_only import overhead_note

if TYPE_CHECKING:
    from designer.model.topology.derive import Derived
    from designer.model.topology.sizing import Plan, Resolved

PROTOCOLS = ("LL", "LL128", "Simple")
NCCL_FILE = RESOURCES / "perf" / "nccl.toml"
PATTERNS = ("ring", "tree", "alltoall", "sharp", "binomial")


class CollectiveError(ValueError):
    """A collective request that cannot be estimated; the message is fit for the user."""


# ----------------------------------------------------------------------------------------
# Constants from resources/perf/nccl.toml


@dataclass(frozen=True)
class Generation:
    id: str
    nvlink_efficiency: float
    nvls_efficiency: float
    ll_max_busbw_GBps: tuple[float, float, float]
    source: str
    estimate: bool = False
    match: tuple[str, ...] = ()
    nvls_tree_head_max_GBps: tuple[float, float] = (math.inf, math.inf)   # [2 nodes, more]


@dataclass(frozen=True)
class NcclConstants:
    base_ring_us: tuple[float, ...]
    base_tree_us: tuple[float, ...]
    nvlink_ring_step_us: tuple[float, ...]
    nvlink_tree_step_us: tuple[float, ...]
    net_ring_step_us: tuple[float, ...]
    net_tree_step_us: tuple[float, ...]
    nvls_nvlink_us: float
    nvls_net_us: float
    nvls_tree_net_step_us: float
    collnet_nvlink_us: float
    collnet_arity_us: float
    collnet_net_us: float
    net_overhead_us: float
    reference_path_ns: float
    ring_protocol_factor: tuple[float, ...]
    tree_factor: float
    tree_protocol_factor: tuple[float, ...]
    tree_ll128_one_node_factor: float
    nvls_max_bus_factor: float
    nvls_latency_per_tray: bool
    nvls_max_heads: int
    multinode_domain_nics: int
    generations: tuple[Generation, ...]
    default_generation: Generation

    def generation(self, server: Server) -> Generation:
        """The GPU generation of a server, matched on the catalog's `gpu` text."""
        for gen in self.generations:
            if any(token.lower() in server.gpu.lower() for token in gen.match):
                return gen
        return self.default_generation


def _triple(values: object, where: str) -> tuple[float, float, float]:
    if not isinstance(values, list) or len(values) != 3 or not all(isinstance(v, (int, float)) for v in values):
        raise ValueError(f"{NCCL_FILE.name}: {where} must list three numbers (LL, LL128, Simple)")
    low, mid, high = (float(v) for v in values)
    return low, mid, high


def _generation(row: dict[str, Any], where: str) -> Generation:
    return Generation(
        id=str(row["id"]), nvlink_efficiency=float(row["nvlink_efficiency"]),
        nvls_efficiency=float(row["nvls_efficiency"]),
        ll_max_busbw_GBps=_triple(row["ll_max_busbw_GBps"], f"{where}.ll_max_busbw_GBps"),
        source=str(row.get("source", "")), estimate=bool(row.get("estimates")),
        match=tuple(row.get("match", ())),
        nvls_tree_head_max_GBps=_pair(row.get("nvls_tree_head_max_GBps"), f"{where}.nvls_tree_head_max_GBps"))


def _pair(values: Any, where: str) -> tuple[float, float]:
    if values is None:
        return (math.inf, math.inf)
    if not isinstance(values, list) or len(values) != 2 or not all(isinstance(v, (int, float)) for v in values):
        raise ValueError(f"{NCCL_FILE.name}: {where} must list two numbers (2 nodes, more)")
    return (float(values[0]), float(values[1]))


@lru_cache(maxsize=1)
def nccl_constants() -> NcclConstants:
    """The model's constants, read once from resources/perf/nccl.toml."""
    data = tomllib.loads(read_text(NCCL_FILE, "performance constants file"))
    lat, bw = data["latency"], data["bandwidth"]
    return NcclConstants(
        base_ring_us=_triple(lat["base_ring_us"], "latency.base_ring_us"),
        base_tree_us=_triple(lat["base_tree_us"], "latency.base_tree_us"),
        nvlink_ring_step_us=_triple(lat["nvlink_ring_step_us"], "latency.nvlink_ring_step_us"),
        nvlink_tree_step_us=_triple(lat["nvlink_tree_step_us"], "latency.nvlink_tree_step_us"),
        net_ring_step_us=_triple(lat["net_ring_step_us"], "latency.net_ring_step_us"),
        net_tree_step_us=_triple(lat["net_tree_step_us"], "latency.net_tree_step_us"),
        nvls_nvlink_us=float(lat["nvls_nvlink_us"]), nvls_net_us=float(lat["nvls_net_us"]),
        nvls_tree_net_step_us=float(lat["nvls_tree_net_step_us"]),
        collnet_nvlink_us=float(lat["collnet_nvlink_us"]), collnet_arity_us=float(lat["collnet_arity_us"]),
        collnet_net_us=float(lat["collnet_net_us"]), net_overhead_us=float(lat["net_overhead_us"]),
        reference_path_ns=float(lat["reference_path_ns"]),
        ring_protocol_factor=_triple(bw["ring_protocol_factor"], "bandwidth.ring_protocol_factor"),
        tree_factor=float(bw["tree_factor"]),
        tree_protocol_factor=_triple(bw["tree_protocol_factor"], "bandwidth.tree_protocol_factor"),
        tree_ll128_one_node_factor=float(bw["tree_ll128_one_node_factor"]),
        nvls_max_bus_factor=float(bw["nvls_max_bus_factor"]),
        nvls_latency_per_tray=bool(lat.get("nvls_latency_per_tray", False)),
        nvls_max_heads=int(lat.get("nvls_max_heads", 32)),
        multinode_domain_nics=int(lat.get("multinode_domain_nics", 32)),
        generations=tuple(_generation(row, f"generation[{i}]") for i, row in enumerate(data["generation"])),
        default_generation=_generation(data["default_generation"], "default_generation"),
    )


# ----------------------------------------------------------------------------------------
# The per-design context


@dataclass(frozen=True)
class TierLimit:
    """What the fabric leaves one traffic pattern: a share of the NIC rate and the path length."""

    factor: float       # <= 1: NIC payload rate the tier uplinks sustain for this pattern
    name: str           # the bottleneck's name when factor < 1, else "NIC"
    hops: int           # switch hops on the longest path the pattern takes (0: no network)
    leaf_share: float   # worst share of a leaf group's traffic that leaves it
    pod_share: float    # worst share of a pod's traffic that leaves it (three tiers)


@dataclass(frozen=True)
class FabricContext:
    """Size-independent inputs of the cost model for one job on one design."""

    gpus: int                 # ranks in the communicator
    domains: int              # NVLink domains the job spans
    per_domain: float         # ranks per domain (average when the last domain is partial)
    servers: int
    gpus_per_server: int
    domain_gpus: int          # GPUs of one NVLink domain
    nvlink_raw_GBps: float    # per GPU per direction, catalog
    nvlink_GBps: float        # usable by NCCL
    nvls: bool                # NVLink SHARP usable
    nvls_capable: bool        # the server has NVLink SHARP and the design allows it (any group size)
    nvls_GBps: float          # NVLink rate with NVLS (usable x NCCL nvlsEfficiency)
    nic_raw_GBps: float       # network line rate per GPU (all NICs of the server / GPUs)
    nic_GBps: float           # payload rate per GPU after protocol efficiency
    sharp: bool               # SHARP in the switches and the technology, and enabled
    sharp_capable: bool       # the hardware has SHARP (whether or not the design enables it)
    servers_per_domain: int   # compute trays (servers) of one NVLink domain
    limits: dict[str, TierLimit]
    extra_us: dict[int, float]  # this fabric's path latency minus NCCL's reference, by hop count
    ll_cap_GBps: float        # NCCL's LL bus-bandwidth cap for this node count
    constants: NcclConstants
    generation: Generation
    technology: str
    family: str
    placement: str
    sus_used: int
    notes: tuple[str, ...] = field(default=(), compare=False)
    # The load balancing the fabric gets (adaptive, spray, ecmp, ecmp-qp) and, for hashed modes,
    # the flow placement behind each pattern's uplink limit (flow_placement.py).
    load_balancing: str = "adaptive"
    flow_placements: tuple[tuple[str, Placement], ...] = field(default=(), compare=False)
    # The fleet around the job: the scattered draw's occupancy and seed, other jobs' uplink share.
    occupancy: float = 1.0
    placement_seed: int = 0
    background_load: float = 0.0
    # No spine joins the rails (rail-only template): all-to-all forwards over NVLink (rail_only.py).
    rail_only: bool = False

    def for_group(self, ranks_per_domain: int) -> FabricContext:
        """The same job seen by a communicator holding `ranks_per_domain` ranks of each domain.

        Used for data-parallel groups under model parallelism: every group runs at once on its
        own GPUs and NICs, so the tier shares of the whole job still apply.
        """
        per = max(1, min(ranks_per_domain, int(round(self.per_domain))))
        nvls = self.nvls and per >= 2
        return replace(self, gpus=self.domains * per, per_domain=float(per), nvls=nvls)

    @property
    def trays(self) -> int:
        """Compute trays (servers) of one domain the job's ranks sit on: NVLS pays latency per tray."""
        return max(1, min(self.servers_per_domain, math.ceil(self.per_domain)))


def _switch_latency(switch: Switch, tech: Technology, override: float | None) -> float:
    if override is not None:
        return override
    return switch.latency_ns if switch.latency_ns > 0 else tech.switch_latency_ns


def _leaf_of_servers(plan: Plan, rails: int, servers: np.ndarray) -> np.ndarray:
    """Leaf index of each server's first port (the builders' assignment, in closed form)."""
    if plan.rail_su_size:
        return plan.rail_leaf(servers, 0, rails)
    per_leaf = plan.leaf_down
    if rails <= per_leaf and per_leaf % rails == 0 and plan.leaves * (per_leaf // rails) >= plan.servers:
        return servers * plan.leaves // plan.servers
    return (servers * rails) * plan.leaves // (plan.servers * rails)


def _endpoint_leaves(plan: Plan, rails: int, servers: np.ndarray) -> np.ndarray:
    """Leaf index of every port of the given servers (one plane)."""
    ports = np.arange(rails)
    if plan.rail_su_size:
        return plan.rail_leaf(servers[:, None], ports[None, :], rails)
    per_leaf = plan.leaf_down
    if rails <= per_leaf and per_leaf % rails == 0 and plan.leaves * (per_leaf // rails) >= plan.servers:
        return np.repeat((servers * plan.leaves // plan.servers)[:, None], rails, axis=1)
    idx = servers[:, None] * rails + ports[None, :]
    return idx * plan.leaves // (plan.servers * rails)


def _one_leaf(plan: Plan, rails: int, servers: np.ndarray) -> np.ndarray | None:
    """Each server's leaf where all its ports on a plane plug into one (as _endpoint_leaves
    places them), else None."""
    per_leaf = plan.leaf_down
    if plan.rail_su_size or not (rails <= per_leaf and per_leaf % rails == 0
                                 and plan.leaves * (per_leaf // rails) >= plan.servers):
        return None
    leaf: np.ndarray = servers * plan.leaves // plan.servers
    return leaf


def _leaf_group(plan: Plan, rails: int, leaf: np.ndarray) -> np.ndarray:
    """Leaves that serve the same servers form a group: an SU's rail leaves (of one rack group
    when a rack-scale SU spreads each rail over several leaves), else one leaf."""
    if not plan.rail_su_size:
        return leaf
    group: np.ndarray = plan.leaf_su(leaf, rails) * plan.rail_leaves + leaf % plan.rail_leaves
    return group


def _pod(plan: Plan, rails: int, leaf: np.ndarray) -> np.ndarray:
    if plan.tiers < 3:
        return np.zeros_like(leaf)
    if plan.rail_su_size and plan.rail_leaves == 1:
        return leaf // plan.rail_groups(rails)
    return leaf // plan.leaves_per_pod


def _btree_parent(n: int, ranks: np.ndarray) -> np.ndarray:
    """Parent of each rank in NCCL's binary tree (ncclGetBtree); -1 for the root."""
    r = ranks.astype(np.int64)
    bit = r & -r
    up = (r ^ bit) | (bit << 1)
    up = np.where(up >= n, r ^ bit, up)
    return np.where(r == 0, -1, up)


def _tree_edges(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Directed sends of NCCL's double binary tree: child->parent and parent->child, both trees."""
    ranks = np.arange(n, dtype=np.int64)
    p1 = _btree_parent(n, ranks)
    if n % 2:  # odd: the second tree is the first shifted by one (ncclGetDtree)
        shifted = (ranks - 1) % n
        p = _btree_parent(n, shifted)
        p2 = np.where(p < 0, -1, (p + 1) % n)
    else:      # even: the second tree mirrors the first
        p = _btree_parent(n, n - 1 - ranks)
        p2 = np.where(p < 0, -1, n - 1 - p)
    child = np.concatenate([ranks[p1 >= 0], ranks[p2 >= 0]])
    parent = np.concatenate([p1[p1 >= 0], p2[p2 >= 0]])
    return np.concatenate([child, parent]), np.concatenate([parent, child])


def _binomial_edges(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Sends of a binomial broadcast tree rooted at rank 0: parent clears the top bit."""
    child = np.arange(1, n, dtype=np.int64)
    top = np.left_shift(1, np.floor(np.log2(child)).astype(np.int64))
    return child ^ top, child


def _out_share(groups: np.ndarray, src: np.ndarray, dst: np.ndarray, n_groups: int) -> np.ndarray:
    """Per group: share of the sends of its members that go to another group."""
    g_src = groups[src]
    crossing = (g_src != groups[dst]).astype(np.float64)
    sends = np.bincount(g_src, minlength=n_groups).astype(np.float64)
    out = np.bincount(g_src, weights=crossing, minlength=n_groups)
    return np.divide(out, sends, out=np.zeros(n_groups), where=sends > 0)


@lru_cache(maxsize=6)
def _edges(pattern: str, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The sends between `n` domains in rank order of a pattern that has them (ring, tree, binomial),
    read-only: a comparison lays out each design's job twice (its placement and the other) over
    the same number of domains, and the designs alike, so each pattern's sends are made once."""
    if pattern == "ring":
        src = np.arange(n)
        edges = src, (src + 1) % n
    else:
        edges = _tree_edges(n) if pattern == "tree" else _binomial_edges(n)
    for sends in edges:
        sends.flags.writeable = False
    return edges


def _shares(pattern: str, groups: np.ndarray, n_groups: int,
            edges: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Share of each group's network traffic that leaves it, for one pattern over domains
    (`edges`: the pattern's sends, if already made for these domains)."""
    n = len(groups)
    members = np.bincount(groups, minlength=n_groups).astype(np.float64)
    if n < 2:
        return np.zeros(n_groups)
    if pattern == "alltoall":  # every domain sends the same to every other domain
        return np.where(members > 0, (n - members) / (n - 1), 0.0)
    if pattern == "sharp":     # the aggregation tree sends one reduced stream up per group
        spans = np.count_nonzero(members) > 1
        return np.divide(1.0, members, out=np.zeros(n_groups), where=members > 0) if spans else np.zeros(n_groups)
    src, dst = edges if edges is not None else _edges(pattern, n)
    return _out_share(groups, src, dst, n_groups)


@dataclass(frozen=True)
class _Layout:
    domain_group: np.ndarray   # leaf group of each job domain, rank order (compact ids)
    domain_pod: np.ndarray     # pod of each job domain (compact ids)
    groups_used: int
    pods_used: int
    server_domain: np.ndarray  # for every job server: its domain's index in rank order
    rails: int                 # NICs of a server on one plane (each server's, one after the other)
    nic_leaf: np.ndarray       # ... the leaf it plugs into (empty where server_leaf is given)
    nic_pod: np.ndarray        # ... and that leaf's pod
    # Where all of a server's NICs plug into one leaf: each job server's leaf and pod (its NICs'
    # leaf and pod, repeated), else None.
    server_leaf: np.ndarray | None = None
    server_pod: np.ndarray | None = None


def _dense_ranks(values: np.ndarray) -> np.ndarray:
    """``np.unique(values, return_inverse=True)[1]``: each value's rank among the distinct values.
    Where the values are whole numbers and every one from 0 to the largest occurs (a job's leaves,
    groups or pods, numbered densely), each is its own rank: read with one count, not a sort."""
    if len(values) and values.dtype.kind in "iu":
        low, high = int(values.min()), int(values.max())
        if low == 0 and high < 2 * len(values) and np.bincount(values).all():
            return values.astype(np.intp)
    ranks: np.ndarray = np.unique(values, return_inverse=True)[1]
    return ranks


def _layout(plan: Plan, rails: int, servers_per_domain: int, job_servers: int, placement: str,
            occupancy: float = 1.0, seed: int = 0) -> _Layout:
    total = plan.servers
    n_domains = math.ceil(total / servers_per_domain)
    first = np.arange(n_domains, dtype=np.int64) * servers_per_domain
    group_of_domain = _leaf_group(plan, rails, _leaf_of_servers(plan, rails, first))
    order = np.arange(n_domains)
    if placement == "scattered":
        # The cluster's free domains are scattered among busy ones: the job's are drawn at random
        # from a window of job / (1 - occupancy) domains (the whole cluster at most), and ranked
        # in the order drawn, as a scheduler that knows no topology hands them out (Kubernetes
        # pods, Slurm without a topology plugin).
        need = math.ceil(job_servers / servers_per_domain)
        window = min(n_domains, max(need, math.ceil(need / max(1e-9, 1.0 - min(occupancy, 0.999)))))
        rng = np.random.default_rng(seed)
        order = rng.permutation(rng.choice(window, size=need, replace=False))
    inverse = _dense_ranks(group_of_domain)
    if placement == "spread" and inverse.max(initial=0) > 0:
        # Round-robin over groups: the first domain of every group, then the second...
        counts = np.bincount(inverse)
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        rank_in_group = np.empty(n_domains, dtype=np.int64)
        rank_in_group[np.argsort(inverse, kind="stable")] = np.arange(n_domains) - np.repeat(starts, counts)
        order = np.lexsort((inverse, rank_in_group))
    chosen = order[:math.ceil(job_servers / servers_per_domain)]
    servers = (chosen[:, None] * servers_per_domain + np.arange(servers_per_domain)[None, :]).ravel()
    server_domain = np.repeat(np.arange(len(chosen)), servers_per_domain)
    keep = servers < total
    servers, server_domain = servers[keep][:job_servers], server_domain[keep][:job_servers]
    dom_leaf = _leaf_of_servers(plan, rails, chosen * servers_per_domain)
    domain_group = _dense_ranks(_leaf_group(plan, rails, dom_leaf))
    domain_pod = _dense_ranks(_pod(plan, rails, dom_leaf))
    groups, pods = int(domain_group.max()) + 1, int(domain_pod.max()) + 1
    server_leaf = _one_leaf(plan, rails, servers)
    if server_leaf is not None:
        empty = np.zeros(0, np.int64)
        return _Layout(domain_group, domain_pod, groups, pods, server_domain, rails, empty, empty,
                       server_leaf, _pod(plan, rails, server_leaf))
    nic_leaf = _endpoint_leaves(plan, rails, servers).ravel()
    return _Layout(domain_group, domain_pod, groups, pods, server_domain, rails, nic_leaf, _pod(plan, rails, nic_leaf))


def _ratio(value: float) -> str:
    return ratio_label(value)


@dataclass(frozen=True)
class _PatternLoad:
    """What a pattern's traffic puts on the uplinks of one layout, before any capacity."""

    leaf_share: float      # the largest share of a leaf group's traffic that leaves it
    leaf_demand: float     # the busiest leaf's leaving traffic, in NIC links
    leaves: int            # leaves whose traffic leaves them
    sending: int           # the most job NICs of one leaf that send across its uplinks
    pod_share: float       # the same at the pods of a three-tier fabric (0: none crosses)
    pod_demand: float


@lru_cache(maxsize=32)
def _pattern_loads(plan: Plan, rails: int, servers_per_domain: int, job_servers: int,
                   placement: str, occupancy: float = 1.0, seed: int = 0) -> tuple[_Layout, dict[str, _PatternLoad]]:
    """The job's layout and each pattern's load on it. A comparison estimates each design's
    collectives under several performance settings (the training step, the break-evens, the
    advice's other technology): the layout and the traffic it sends are the same for all."""
    lay = _layout(plan, rails, servers_per_domain, job_servers, placement, occupancy, seed)
    loads = {}
    for pattern in PATTERNS:
        if len(lay.domain_group) < 2:
            loads[pattern] = _PatternLoad(0.0, 0.0, 0, 0, 0.0, 0.0)
            continue
        # the pattern's sends, made once for the leaf groups and the pods
        edges = _edges(pattern, len(lay.domain_group)) if pattern in ("ring", "tree", "binomial") else None
        g_share = _shares(pattern, lay.domain_group, lay.groups_used, edges)[lay.domain_group]
        leaf = _leaf_load(lay, g_share[lay.server_domain], lay.server_leaf, lay.nic_leaf)
        pod_share = pod_demand = 0.0
        if plan.tiers >= 3 and lay.pods_used > 1:
            p_share = _shares(pattern, lay.domain_pod, lay.pods_used, edges)[lay.domain_pod]
            pod_share = float(p_share.max())
            pod_demand = _leaf_load(lay, p_share[lay.server_domain], lay.server_pod, lay.nic_pod)[0]
        loads[pattern] = _PatternLoad(float(g_share.max()), leaf[0], leaf[1], leaf[2], pod_share, pod_demand)
    return lay, loads


def _leaf_load(lay: _Layout, server_share: np.ndarray, server_bin: np.ndarray | None,
               nic_bin: np.ndarray) -> tuple[float, int, int]:
    """The busiest bin's (leaf's or pod's) traffic leaving it, summed over its job NICs as
    bincount adds them, the bins with any, and the most NICs of one bin that send: each NIC
    carrying its server's share."""
    if server_bin is not None:
        n_bins = int(server_bin.max(initial=0)) + 1
        weight = uniform_weight(server_bin, server_share, n_bins)
        if weight is not None:
            # every NIC of a bin carries the same share: its sum is that share added NIC by NIC
            nics = np.bincount(server_bin, minlength=n_bins) * lay.rails
            live = (weight > 0) & (nics > 0)
            return busiest_sum(weight, nics), int(np.count_nonzero(live)), int(nics[live].max(initial=0))
        nic_bin = np.repeat(server_bin, lay.rails)
    # each job NIC's share: its server's, repeated over the server's NICs (in NIC order)
    nic_share = np.repeat(server_share, lay.rails)
    per_bin = np.bincount(nic_bin, weights=nic_share)
    # NICs whose traffic leaves the bin, counted (whole numbers: as a count of ones in floats)
    sending = np.bincount(nic_bin[nic_share > 0])
    return float(per_bin.max(initial=0.0)), int(np.count_nonzero(per_bin)), int(sending.max(initial=0))


def _tier_limit(pattern: str, lay: _Layout, load_of: _PatternLoad, plan: Plan, link: float, uplink_cap: float,
                pod_cap: float, lb: float, o_leaf: float, o_spine: float,
                balance: Callable[[str, int, int, float], float] | None = None,
                background: float = 0.0) -> TierLimit:
    n = len(lay.domain_group)
    if n < 2:
        return TierLimit(1.0, "NIC", 0, 0.0, 0.0)
    leaf_share = load_of.leaf_share
    factor, name = 1.0, "NIC"
    # Leaf uplinks: every job NIC on the leaf sends its domain's leaving share through them, on
    # top of other jobs' traffic (`background`, a share of each uplink's capacity). Where the
    # uplinks are overloaded every flow gets the same share, so the job keeps its proportion.
    demand = load_of.leaf_demand * link
    pod_lb = lb
    shared = " shared with other jobs" if background > 0 else ""
    if demand > 0 and math.isfinite(uplink_cap) and uplink_cap > 0:
        load = demand / uplink_cap + background
        if balance is not None:
            # Hashed paths: the flow placement at this load replaces a fixed efficiency: the job's
            # flows deliver `placed` of what they would balanced, and no more than capacity.
            placed = balance(pattern, load_of.leaves, load_of.sending, load)
            leaf_factor = min(1.0, placed * min(1.0, 1.0 / load))
            # Pod uplinks of a three-tier fabric hash the same flows: the leaf's efficiency against
            # their capacity (conservative where they carry less than the leaf uplinks).
            pod_lb = lb = placed
        else:
            leaf_factor = min(1.0, lb / load)
        if leaf_factor < factor - 1e-12:
            factor = leaf_factor
            name = (f"oversubscription at leaf tier ({_ratio(o_leaf)})" if o_leaf > 1.001
                    else f"leaf uplinks{shared} (load balancing)" if lb < 0.999 else f"leaf uplinks{shared}")
    pod_share = 0.0
    if plan.tiers >= 3 and lay.pods_used > 1:
        pod_share = load_of.pod_share
        demand = load_of.pod_demand * link
        if demand > 0 and math.isfinite(pod_cap) and pod_cap > 0:
            pod_factor = min(1.0, pod_lb / (demand / pod_cap + background))
            if pod_factor < factor - 1e-12:
                factor = pod_factor
                name = (f"oversubscription at spine tier ({_ratio(o_spine)})" if o_spine > 1.001
                        else f"spine uplinks{shared} (load balancing)" if pod_lb < 0.999
                        else f"spine uplinks{shared}")
    hops = 5 if pod_share > 0 else 3 if leaf_share > 0 else 1
    return TierLimit(float(factor), name, hops, leaf_share, pod_share)


def build_context(derived: Derived, gpus: int, placement: str, settings: PerformanceSettings,
                  technology: Technology | None = None, catalog: Catalog | None = None) -> FabricContext:
    """The size-independent part of the estimate for `gpus` GPUs of the design.

    `technology` replaces the design's technology (with its catalog switch latency and
    SHARP support) to ask "the same topology on the other fabric" for the advice.
    """
    r, plan, _design = derived.resolved, derived.plan, derived.design
    consts = nccl_constants()
    gen = consts.generation(r.server)
    g = r.gpus_per_server
    total_gpus = plan.servers * g
    if gpus < 2:
        raise CollectiveError("a collective needs at least 2 GPUs")
    if gpus > total_gpus:
        raise CollectiveError(f"{gpus:,} GPUs requested but the design has {total_gpus:,}")
    if gpus > g and gpus % g:
        raise CollectiveError(f"{gpus:,} GPUs is not a whole number of {g}-GPU servers")
    if placement not in ("packed", "scattered", "spread"):
        raise CollectiveError(f"unknown placement '{placement}' (choose packed, scattered or spread)")

    # NVLink domain: a server, or several servers sharing one NVLink fabric (NVL72).
    domain_gpus = r.server.nvlink_domain_gpus if r.server.nvlink_domain_gpus > r.server.gpus else g
    servers_per_domain = max(1, domain_gpus // g)
    job_servers = max(1, math.ceil(gpus / g))
    domains = math.ceil(job_servers / servers_per_domain)
    per_domain = gpus / domains

    tech = technology or r.technology
    pe = settings.protocol_efficiency or tech.protocol_efficiency
    mode, mode_note = load_balancing_mode(tech, r, settings, technology is None)
    adaptive = mode in ("adaptive", "spray")
    lb = settings.load_balance_efficiency or tech.load_balance_efficiency
    balance = None
    placements: dict[str, Placement] = {}
    if not adaptive and settings.load_balance_efficiency is None:
        lb = 1.0
        per_nic = flows_per_nic(mode, tech.qps_per_connection)

        def balance(pattern: str, leaves: int, nics: int, load: float) -> float:
            if pattern == "sharp" and not tech.in_network_reduction:
                return 1.0   # no in-network reduction on this fabric: the pattern is never used
            placed = place(mode, leaves, plan.leaf_up, nics, min(load, 1e6), per_nic)
            placements[pattern] = placed
            return placed.expected
    nvlink_eff = settings.nvlink_efficiency or gen.nvlink_efficiency
    nvls_eff = settings.nvls_efficiency or gen.nvls_efficiency
    nvlink_raw = r.server.nvlink_GBps_per_gpu
    nic_raw = r.ports_per_server * r.link_gbps / 8.0 / g

    # Uplink capacity per leaf and per pod (one plane); edits that lower it show in the metrics.
    metrics = derived.metrics
    link, up = float(r.link_gbps), float(r.uplink_gbps)
    uplink_cap = plan.leaf_up * up
    o_leaf = plan.leaf_down * link / uplink_cap if uplink_cap else math.inf
    if plan.tiers == 1:   # one switch: no uplink carries anything, nothing to oversubscribe
        uplink_cap, o_leaf = math.inf, 1.0
    worst = metrics.oversubscription("leaf")
    if worst and worst > o_leaf:
        uplink_cap *= o_leaf / worst
        o_leaf = worst
    pod_cap, o_spine = math.inf, 1.0
    if plan.tiers >= 3:
        pod_cap = plan.spines_per_pod * plan.spine_up * up
        pod_down = plan.leaves_per_pod * plan.leaf_up * up
        o_spine = pod_down / pod_cap if pod_cap else math.inf
        worst = metrics.oversubscription("spine")
        if worst and worst > o_spine:
            pod_cap *= o_spine / worst
            o_spine = worst

    occ = fleet.occupancy(settings) if placement == "scattered" else 1.0
    seed = settings.placement_seed if placement == "scattered" else 0
    background = fleet.background_load(settings)
    lay, loads = _pattern_loads(plan, r.rails, servers_per_domain, job_servers, placement, occ, seed)
    limits = {p: _tier_limit(p, lay, loads[p], plan, link, uplink_cap, pod_cap, lb, o_leaf, o_spine, balance,
                             background)
              for p in PATTERNS}

    # Latency of this fabric's path against the ~1 us InfiniBand path in NCCL's constants.
    sw_ovr = settings.switch_latency_ns
    if technology is not None:
        leaf_ns = spine_ns = core_ns = sw_ovr if sw_ovr is not None else technology.switch_latency_ns
    else:
        leaf_ns = _switch_latency(r.leaf_switch, tech, sw_ovr)
        spine_ns = _switch_latency(r.spine_switch, tech, sw_ovr)
        core_ns = _switch_latency(r.core_switch, tech, sw_ovr)
    nic_ns = settings.nic_latency_ns if settings.nic_latency_ns is not None else tech.nic_latency_ns
    path_ns = {0: 0.0, 1: 2 * nic_ns + leaf_ns, 3: 2 * nic_ns + 2 * leaf_ns + spine_ns,
               5: 2 * nic_ns + 2 * leaf_ns + 2 * spine_ns + core_ns}
    extra_us = {h: (ns - consts.reference_path_ns) / 1000.0 if h else 0.0 for h, ns in path_ns.items()}

    # In-network reduction: NVLS inside the domain; SHARP needs it in the technology and in
    # every switch tier the job's reduction tree climbs.
    allowed = settings.in_network_reduction
    nvls_capable = allowed and r.server.nvlink_sharp and nvls_eff > 0
    nvls = nvls_capable and per_domain >= 2
    if technology is not None and catalog is not None:
        switches_sharp = catalog.switch(technology.default_switch).in_network_reduction
    else:
        tiers_used = [r.leaf_switch] + ([r.spine_switch] if limits["sharp"].hops >= 3 else []) \
            + ([r.core_switch] if limits["sharp"].hops >= 5 else [])
        switches_sharp = all(s.in_network_reduction for s in tiers_used)
    # InfiniBand SHARP is off unless the design enables it (performance.sharp): NCCL uses it only
    # with the SHARP plugin and an aggregation manager, never out of the box.
    sharp_capable = domains >= 2 and tech.in_network_reduction and switches_sharp
    sharp = allowed and settings.sharp and sharp_capable

    bucket = 0 if domains == 1 else 1 if domains == 2 else 2
    ctx = FabricContext(
        gpus=gpus, domains=domains, per_domain=per_domain, servers=job_servers, gpus_per_server=g,
        domain_gpus=domain_gpus, nvlink_raw_GBps=nvlink_raw, nvlink_GBps=nvlink_raw * nvlink_eff,
        nvls=nvls, nvls_capable=nvls_capable, nvls_GBps=nvlink_raw * nvlink_eff * nvls_eff, nic_raw_GBps=nic_raw,
        nic_GBps=nic_raw * pe, sharp=sharp, sharp_capable=sharp_capable,
        servers_per_domain=servers_per_domain, limits=limits, extra_us=extra_us,
        ll_cap_GBps=gen.ll_max_busbw_GBps[bucket], constants=consts, generation=gen,
        technology=tech.id, family=tech.family, placement=placement, sus_used=lay.groups_used,
        load_balancing=mode, flow_placements=tuple(sorted(placements.items())), occupancy=occ,
        placement_seed=seed, background_load=background,
        rail_only=_design.fabric.template == "rail-only")
    notes = _notes(ctx, derived, tech, pe, lb, adaptive, nvlink_eff, nvls_eff, leaf_ns, nic_ns, o_leaf, o_spine)
    notes += tuple(f"Flow placement ({pattern}): {p.text()}." for pattern, p in ctx.flow_placements
                   if pattern in ("ring", "tree", "alltoall"))
    if mode_note:
        notes = (*notes, mode_note)
    if ctx.rail_only:
        notes = (*notes, overhead_note(ctx))
    return replace(ctx, notes=notes)


def load_balancing_mode(tech: Technology, resolved: Resolved, settings: PerformanceSettings,
                        own_switches: bool = True) -> tuple[str, str]:
    """The load balancing the fabric really gets, and a note where it is not what the technology asks.

    Adaptive routing and spraying follow the hardware, not the technology's name: a switch that
    states its load-balancing modes without them hashes flows instead (ECMP, or ECMP on the
    queue pair where the switch offers it and the technology scales queue pairs).
    """
    if settings.adaptive_routing is not None:
        return ("adaptive" if settings.adaptive_routing else "ecmp"), ""
    mode = tech.placement
    if not own_switches or mode in HASHED:
        return mode, ""
    switches = [sw for sw in (resolved.leaf_switch, resolved.spine_switch, resolved.core_switch) if sw is not None]
    lacking = [sw for sw in switches if sw.load_balancing and mode not in sw.load_balancing]
    if not lacking:
        return mode, ""
    offered = set.intersection(*(set(sw.load_balancing or HASHED) for sw in switches))
    fallback = "ecmp-qp" if "ecmp-qp" in offered and tech.qps_per_connection > 1 else "ecmp"
    return fallback, (f"Load balancing: {tech.name} asks for {MODE_NAMES[mode]}, but the {lacking[0].name} "
                      f"offers only {', '.join(MODE_NAMES[m] for m in lacking[0].load_balancing)}: flows are "
                      f"placed by {MODE_NAMES[fallback]} on the uplinks instead.")


def _notes(ctx: FabricContext, derived: Derived, tech: Technology, pe: float, lb: float, adaptive: bool,
           nvlink_eff: float, nvls_eff: float, leaf_ns: float, nic_ns: float, o_leaf: float,
           o_spine: float) -> tuple[str, ...]:
    """Why the numbers are what they are, in the design's own figures."""
    r, plan = derived.resolved, derived.plan
    # The groups counted are leaves serving the same servers: an SU, or one rack group of a
    # rack-scale SU that spreads each rail over several leaves (GB300 NVL72: 2 per SU of 8 racks).
    unit = ("SU" if plan.rail_leaves == 1 else "rack group") if plan.rail_su_size else "leaf group"
    ring = ctx.limits["ring"]
    out = [
        f"Job: {ctx.gpus:,} GPUs on {ctx.servers:,} {r.server.name} server(s) = {ctx.domains:,} NVLink "
        f"domain(s) of up to {ctx.domain_gpus} GPUs, {ctx.placement} over {ctx.sus_used} {unit}(s)"
        + ((f" (drawn from a cluster {ctx.occupancy:.0%} busy, seed {ctx.placement_seed})"
            if ctx.servers < plan.servers else
            f" (the job fills the cluster: its servers ranked in a random order, seed {ctx.placement_seed})")
           if ctx.placement == "scattered" else "")
        + (f"; other jobs' traffic takes {ctx.background_load:.0%} of every uplink" if ctx.background_load > 0
           else "") + ".",
        f"NVLink: {ctx.nvlink_GBps:.1f} GB/s usable per GPU per direction ({ctx.nvlink_raw_GBps:g} x "
        f"{nvlink_eff:.3g}, NCCL's usable share for {ctx.generation.id}); NVLink SHARP "
        + (f"on: {ctx.nvls_GBps:.1f} GB/s at NCCL's NVLS efficiency {nvls_eff:g}"
           + (f"; its latency is paid on each of {ctx.trays} compute trays (an estimate fitted to one NVL72 "
              "measurement)." if ctx.trays > 1 and ctx.constants.nvls_latency_per_tray else ".")
           if ctx.nvls else "off."),
        f"Network: {r.ports_per_server} x {r.link_gbps}G per server = {ctx.nic_raw_GBps:.1f} GB/s per GPU, "
        f"{ctx.nic_GBps:.1f} GB/s payload at {tech.name} protocol efficiency {pe:g}; InfiniBand SHARP "
        + ("on (performance.sharp)." if ctx.sharp else
           "available but off, as in NCCL's defaults (performance.sharp turns it on)." if ctx.sharp_capable
           else "not available."),
        f"Uplinks: leaf oversubscription {_ratio(o_leaf)}" + (f", spine {_ratio(o_spine)}" if plan.tiers >= 3 else "")
        + (f"; {MODE_NAMES.get(ctx.load_balancing, ctx.load_balancing)}: its flows are placed on the design's "
           "uplinks (below)." if ctx.load_balancing in HASHED and lb == 1.0 else
           f"; {'adaptive routing' if adaptive else 'static ECMP'} keeps {lb:.0%} of uplink bandwidth usable."),
    ]
    if ctx.domains > 1:
        out.append(f"Latency: {nic_ns:g} ns per NIC, {leaf_ns:g} ns per switch; the ring's longest path is "
                   f"{ring.hops} switch hop(s), {ctx.extra_us.get(ring.hops, 0.0):+.2f} us per network step "
                   "against NCCL's InfiniBand-tuned constants.")
        for pattern, label in (("ring", "Ring"), ("alltoall", "All-to-all")):
            lim = ctx.limits[pattern]
            if lim.leaf_share == 0:
                out.append(f"{label} traffic stays inside its {unit}: one switch hop, no uplinks.")
                continue
            out.append(f"{label} traffic leaving a {unit}: up to {lim.leaf_share:.0%} of it"
                       + (f" ({lim.pod_share:.0%} leaves its pod)" if plan.tiers >= 3 and lim.pod_share else "")
                       + (f"; the uplinks sustain {lim.factor:.0%} of the NIC rate: {lim.name}."
                          if lim.factor < 1 else "; the uplinks keep up."))
    else:
        out.append("One NVLink domain: no network traffic.")
    return tuple(out)
