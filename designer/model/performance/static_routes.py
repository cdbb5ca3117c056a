"""Load balance on a subnet manager's real forwarding tables: static routing, every flow on its path.

The tables are data (`RoutingTables`): for each switch, the output port for each endpoint, and
what each switch port leads to. A traffic pattern is a list of (source, destination) endpoint
flows; each flow follows the tables hop by hop from the source's leaf, and the flows share the
links max-min fairly (progressive filling: every unfrozen flow grows at the same pace until a
link fills, whose flows then freeze). Identical flows (same path) are carried once with a
weight, so all-to-all on 16K endpoints is the (source leaf, destination) pairs, not 268M flows.

Each pattern's figures sit beside the model's own: the model spreads each tier's traffic evenly
over the tier's links (what adaptive routing approaches; model/performance/flow_placement.py),
so its busiest port carries the tier's mean load (a NIC's own link excepted: no routing spreads
it). The difference is what static routing costs.

Patterns, on the design's rank order (servers in order, GPU i on NIC port i):
- ring: NCCL's ring, one per rail, each server's GPU sending to the same GPU of the next server;
- tree: NCCL's binary tree over the servers, one per rail, each edge carrying both directions;
- all-to-all: every endpoint to every other.
Pure numpy, no file or process: designer/twin reads the tables and calls this.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from designer.model.common.arrays import sorted_distinct

PATTERNS = ("ring", "tree", "all-to-all")
MAX_HOPS = 16


@dataclass(frozen=True)
class RoutingTables:
    """A fabric's forwarding state as data.

    lft[s, e]: output port of switch s toward endpoint e (0 or a port with no link: no route).
    peer_switch[s, p]: the switch behind port p of switch s, or -1 (an endpoint or nothing).
    peer_endpoint[s, p]: the endpoint behind port p of switch s, or -1.
    gbps[s, p]: the speed of the link at port p of switch s (0: no link).
    level[s]: 1 for leaves, 2 spines, 3 cores. leaf_of[e]: the switch endpoint e hangs from.
    server_of[e], rail_of[e]: where the endpoint sits in the rank order.
    """

    lft: np.ndarray
    peer_switch: np.ndarray
    peer_endpoint: np.ndarray
    gbps: np.ndarray
    level: np.ndarray
    leaf_of: np.ndarray
    server_of: np.ndarray
    rail_of: np.ndarray
    nic_gbps: float

    @property
    def switches(self) -> int:
        return int(self.lft.shape[0])

    @property
    def endpoints(self) -> int:
        return int(self.lft.shape[1])

    @property
    def ports(self) -> int:
        return int(self.peer_switch.shape[1])


@dataclass(frozen=True)
class PatternLoad:
    """One traffic pattern on the real tables and in the model."""

    pattern: str
    flows: int                     # endpoint-to-endpoint flows
    unrouted: int                  # flows the tables do not deliver
    worst_load: float              # busiest link's offered load over its capacity (real tables)
    model_worst_load: float        # the same, each tier's traffic spread evenly (the model)
    throughput: float              # delivered over offered, mean over flows (max-min fair)
    model_throughput: float        # the same in the model
    slowest: float                 # the slowest flow's delivered over offered
    busiest_link: str              # "spine tier, up" etc.

    def to_json(self) -> dict[str, object]:
        return {"pattern": self.pattern, "flows": self.flows, "unrouted": self.unrouted,
                "worst_port_load": self.worst_load, "model_worst_port_load": self.model_worst_load,
                "throughput": self.throughput, "model_throughput": self.model_throughput,
                "slowest_flow": self.slowest, "busiest_link": self.busiest_link}


@dataclass(frozen=True)
class TierRoutes:
    """All-to-all flows per port at one tier and direction."""

    tier: str
    ports: int
    least: int
    mean: float
    most: int

    def to_json(self) -> dict[str, object]:
        return {"tier": self.tier, "ports": self.ports, "min": self.least, "mean": self.mean, "max": self.most}


@dataclass(frozen=True)
class StaticRoutingLoad:
    """What OpenSM's static routes give, pattern by pattern, beside the model."""

    patterns: tuple[PatternLoad, ...]
    routes_per_port: tuple[TierRoutes, ...] = field(default=())

    def pattern(self, name: str) -> PatternLoad:
        return next(p for p in self.patterns if p.pattern == name)

    def to_json(self) -> dict[str, object]:
        return {"patterns": [p.to_json() for p in self.patterns],
                "all_to_all_routes_per_port": [t.to_json() for t in self.routes_per_port]}


# --- flows ----------------------------------------------------------------------------------------

def pattern_flows(t: RoutingTables, pattern: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(first switch, destination endpoint, weight, source) of each row of a pattern.

    Ring and tree: one row per flow, the first switch its source's leaf and the source the
    sending endpoint. All-to-all: one row per (source leaf, destination), standing for the
    leaf's NICs that send to it (the weight); the source is then the leaf."""
    e = t.endpoints
    servers = int(t.server_of.max()) + 1 if e else 0
    index = {(int(s), int(r)): i for i, (s, r) in enumerate(zip(t.server_of.tolist(), t.rail_of.tolist(), strict=True))}
    src: list[int] = []
    dst: list[int] = []
    if pattern == "ring":
        for (s, r), i in index.items():
            j = index.get(((s + 1) % servers, r))
            if j is not None and j != i:
                src.append(i)
                dst.append(j)
    elif pattern == "tree":
        for (s, r), i in index.items():
            if s == 0:
                continue
            j = index.get(((s - 1) // 2, r))
            if j is not None:
                src += [i, j]
                dst += [j, i]
    elif pattern == "all-to-all":
        leaves = t.leaf_of.astype(np.int32)
        uniq, counts = np.unique(leaves, return_counts=True)
        srcs = np.repeat(uniq, e)
        dsts = np.tile(np.arange(e, dtype=np.int32), len(uniq))
        weight = np.repeat(counts.astype(np.float64), e)
        weight -= leaves.take(dsts) == srcs      # a leaf's endpoints do not send to themselves
        keep = weight > 0
        if not keep.all():
            srcs, dsts, weight = srcs[keep], dsts[keep], weight[keep]
        return srcs, dsts, weight, srcs       # rows stand for a leaf's NICs: no one source
    else:
        raise ValueError(f"unknown pattern '{pattern}' (use {', '.join(PATTERNS)})")
    sources = np.asarray(src, dtype=np.int64)
    return t.leaf_of[sources], np.asarray(dst, dtype=np.int64), np.ones(len(sources)), sources


def _paths(t: RoutingTables, start: np.ndarray, dst: np.ndarray, pad: int) -> tuple[np.ndarray, np.ndarray]:
    """The links of every flow, hop by hop between switches and down to the endpoint, as a
    (flows x hops) matrix of link ids (switch * ports + port; `pad` past a flow's last hop),
    and a delivered flag per flow. Tables are read through flat indexes (`take`), the fastest
    gather numpy has."""
    n = len(dst)
    lft = t.lft.ravel()
    usable = t.gbps.ravel() > 0
    peer_switch = t.peer_switch.ravel()
    peer_endpoint = t.peer_endpoint.ravel()
    endpoints, ports = t.endpoints, t.ports
    delivered = np.zeros(n, dtype=bool)
    hops: list[np.ndarray] = []
    a = np.arange(n, dtype=np.int64)           # the flows still on their way
    here = start.astype(np.int64)
    to = dst.astype(np.int64)
    for _ in range(MAX_HOPS):
        if not len(a):
            break
        port = lft.take(here * endpoints + to).astype(np.int64)
        link = here * ports + port
        ok = (port > 0) & usable.take(link)    # no route out of this switch: the flow is lost
        if not ok.all():
            a, here, to, link = a[ok], here[ok], to[ok], link[ok]
        column = np.full(n, pad, dtype=np.int32 if pad < 2**31 else np.int64)
        column[a] = link
        hops.append(column)
        nxt = peer_switch.take(link)
        arrived = peer_endpoint.take(link) == to
        delivered[a[arrived]] = True
        going = ~arrived & (nxt >= 0)
        a, here, to = a[going], nxt[going], to[going]
    matrix = np.stack(hops, axis=1) if hops else np.full((n, 0), pad, dtype=np.int32)
    return matrix, delivered


def _fill(paths: np.ndarray, capacity: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """Max-min fair rates of the rows of `paths` (link ids; the last id of `capacity` is padding,
    never a bottleneck), each row standing for `weight` identical flows."""
    n, width = paths.shape
    pad = len(capacity) - 1
    rate = np.zeros(n)
    frozen = np.zeros(n, dtype=bool)
    remaining = capacity.astype(np.float64).copy()
    remaining[pad] = np.inf
    # Each round fills at least one link, so there are at most as many rounds as links; in a
    # fat tree a handful (one per distinct bottleneck share).
    for _ in range(len(capacity) + 1):
        if frozen.all():
            break
        # While every row grows, read the matrix itself rather than a copy of its live rows.
        live = np.arange(n) if not frozen.any() else np.flatnonzero(~frozen)
        rows = paths if len(live) == n else paths[live]
        load = _column_load(rows, weight[live], len(capacity))
        load[pad] = 0.0
        busy = load > 0
        if not busy.any():
            break
        step = np.min(remaining[busy] / load[busy])
        rate[live] += step
        remaining -= step * load
        full = busy & (remaining <= 1e-9 * np.maximum(capacity, 1.0))
        frozen[live[full[rows].any(axis=1)]] = True
    rate[~frozen] = np.inf
    return rate


def _column_load(paths: np.ndarray, weight: np.ndarray, size: int) -> np.ndarray:
    """Sum of `weight` over the rows crossing each link, one hop column at a time (no
    rows x hops copy of the weights)."""
    load = np.zeros(size)
    for column in paths.T:
        load += np.bincount(column, weights=weight, minlength=size)
    return load


def max_min_fair(flow: np.ndarray, link: np.ndarray, capacity: np.ndarray, weight: np.ndarray,
                 n_flows: int) -> np.ndarray:
    """Max-min fair rates (per single flow) of weighted flows over links, by progressive filling:
    every unfrozen flow grows at one pace until a link fills, whose flows then freeze.

    `flow`, `link`: the (flow, link) incidence; `capacity[link]`; `weight[flow]`: how many
    identical flows a row stands for. A flow crossing no link gets infinity."""
    order = np.argsort(flow, kind="stable")
    f, lk = flow[order], link[order]
    counts = np.bincount(f, minlength=n_flows)
    width = int(counts.max()) if len(f) else 0
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    paths = np.full((n_flows, width), len(capacity), dtype=np.int64)
    paths[f, np.arange(len(f)) - starts[f]] = lk
    return _fill(paths, np.concatenate([capacity.astype(np.float64), [np.inf]]), weight)


def _tier_name(t: RoutingTables, link: np.ndarray) -> np.ndarray:
    """A tier key per directed link: level * 2 + (1 if it goes up)."""
    s, p = np.divmod(link, t.ports)
    nxt = t.peer_switch[s, p]
    up = (nxt >= 0) & (t.level[np.maximum(nxt, 0)] > t.level[s])
    return np.asarray(t.level[s] * 2 + up.astype(np.int64))


NIC_TIER = 2
TIER_NAMES = {NIC_TIER: "leaf down to NICs", 3: "leaf up", 4: "spine down", 5: "spine up", 6: "core down", 7: "core up"}


def pattern_load(t: RoutingTables, pattern: str) -> tuple[PatternLoad, list[TierRoutes]]:
    start, dst, weight, counted = pattern_flows(t, pattern)
    n = len(dst)
    per_flow = float(t.nic_gbps)
    # Host links: each source NIC's link to its leaf. Ring and tree: one link per source
    # endpoint; all-to-all rows are per source leaf, so the leaf's NICs share one link id of
    # their summed capacity (exact: the leaf's NICs send alike).
    links_n = t.switches * t.ports
    if pattern == "all-to-all":
        host = links_n + start
        host_cap = np.bincount(t.leaf_of, minlength=t.switches).astype(np.float64) * per_flow
    else:
        host = links_n + counted
        host_cap = np.full(t.endpoints, per_flow)
    capacity = np.concatenate([t.gbps.ravel().astype(np.float64), host_cap, [0.0]])   # last: padding
    pad = len(capacity) - 1
    hops, delivered = _paths(t, start, dst, pad)
    paths = np.concatenate([host.astype(hops.dtype)[:, None], hops], axis=1)
    # Offered: every stream at one rate, the busiest NIC (sending or receiving) at its line rate:
    # a ring's NIC sends one stream, a binary tree's inner node three (parent and two children).
    if pattern == "all-to-all":
        offered = np.full(n, per_flow / max(t.endpoints - 1, 1))
    else:
        busiest = max(int(np.bincount(counted).max()), int(np.bincount(dst).max())) if n else 1
        offered = np.full(n, per_flow / busiest)
    offered_load = _column_load(paths, offered * weight, len(capacity))
    offered_load[pad] = 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(capacity > 0, offered_load / capacity, 0.0)
    switch_ratio = ratio[:links_n]
    worst = int(np.argmax(switch_ratio)) if links_n else 0
    tiers = _tier_name(t, np.arange(links_n)) if links_n else np.zeros(0, np.int64)
    used = t.gbps.ravel() > 0
    # The model: each tier's offered load spread over the tier's links, except the links down to
    # the NICs, which no routing can spread (a NIC's traffic ends on its own link).
    model_worst = 0.0
    for key in sorted_distinct(tiers[used]):
        in_tier = used & (tiers == key)
        if key == NIC_TIER:
            model_worst = max(model_worst, float(switch_ratio[in_tier].max()))
            continue
        cap = float(t.gbps.ravel()[in_tier].sum())
        model_worst = max(model_worst, float(offered_load[:links_n][in_tier].sum()) / cap if cap else 0.0)
    rates = _fill(paths, capacity, weight)
    rates[~delivered] = 0.0
    share = np.minimum(rates / offered, 1.0)
    w = weight / weight.sum() if n else weight
    load = PatternLoad(
        pattern=pattern, flows=int(weight.sum()), unrouted=int(weight[~delivered].sum()),
        worst_load=float(switch_ratio[worst]) if links_n else 0.0, model_worst_load=model_worst,
        throughput=float((share * w).sum()) if n else 1.0,
        model_throughput=min(1.0, 1.0 / model_worst) if model_worst > 1 else 1.0,
        slowest=float(share.min()) if n else 1.0,
        busiest_link=TIER_NAMES.get(int(tiers[worst]), "?") if links_n else "")
    routes: list[TierRoutes] = []
    if pattern == "all-to-all":
        counts = _column_load(hops, weight, len(capacity))[:links_n]
        for key in sorted(sorted_distinct(tiers[used]).tolist()):
            in_tier = used & (tiers == key)
            c = counts[in_tier]
            routes.append(TierRoutes(TIER_NAMES.get(int(key), str(key)), int(in_tier.sum()), int(c.min()),
                                     float(c.mean()), int(c.max())))
    return load, routes


def static_routing_load(t: RoutingTables, patterns: tuple[str, ...] = PATTERNS) -> StaticRoutingLoad:
    """The three patterns on the tables, with all-to-all's flows per port by tier."""
    loads = []
    routes: list[TierRoutes] = []
    for name in patterns:
        load, tier_routes = pattern_load(t, name)
        loads.append(load)
        routes += tier_routes
    return StaticRoutingLoad(tuple(loads), tuple(routes))


def static_routing_penalty(result: StaticRoutingLoad) -> float:
    """The worst pattern's throughput on the real tables over the model's, for the verdict's
    "InfiniBand, static routing (open SM)" flavour: 1.0 where static routes lose nothing."""
    ratios = [p.throughput / p.model_throughput for p in result.patterns if p.model_throughput > 0]
    return min(ratios) if ratios else 1.0
