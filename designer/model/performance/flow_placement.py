"""Load balance from placing NCCL's connections as flows on the design's own uplinks.

A collective's traffic that leaves a leaf crosses the leaf's uplinks to the spines and comes
down one spine's downlink to the destination leaf. How evenly it spreads depends on how a
flow finds its path:

- ``adaptive`` (Spectrum-X, InfiniBand) and ``spray`` (a scheduled, cell-spraying fabric)
  spread each flow packet by packet, so every uplink carries the mean load;
- ``ecmp`` hashes each flow (one RoCE queue pair of one NCCL connection) onto one uplink, and
  ``ecmp-qp`` does the same with the queue pair in the hash and several queue pairs per
  connection (Meta's enhanced ECMP with QP scaling), so the fabric sees more, thinner flows.

For hashed modes the flows of every leaf carrying the job's traffic are placed at random on
its uplinks, and each flow's destination leaf at random among the others (the spine's
downlink to it is then fixed). Each flow runs at the fair share of the busiest link on its
path; the delivered throughput is the mean over flows, against what the same load would get
perfectly balanced. The expectation and the p10 tail are taken over hash seeds, and the
slowest flow's share (what a synchronous collective waiting on its last flow would see) is
reported beside them. Everything is numpy over seeds x flows, cached by its inputs.

What it leaves out: other jobs' traffic on the same uplinks, PFC pause storms, incast at the
receiver and the congestion control's reaction to collisions (docs/method/verdict.md).
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np

from designer.catalog.loader import RESOURCES
from designer.limits import read_text

CONSTANTS_FILE = RESOURCES / "perf" / "flow_placement.toml"
HASHED = ("ecmp", "ecmp-qp")
MODES = ("adaptive", "spray", *HASHED)
MODE_NAMES = {"adaptive": "adaptive routing", "spray": "cell spraying", "ecmp": "static ECMP",
              "ecmp-qp": "enhanced ECMP with QP scaling"}


@dataclass(frozen=True)
class PlacementConstants:
    channels_per_net_peer: int
    seeds: int
    max_samples: int
    qps_range: tuple[int, int]
    channels_range: tuple[int, int]
    source: str


@lru_cache(maxsize=1)
def placement_constants() -> PlacementConstants:
    """The constants, read once from resources/perf/flow_placement.toml."""
    data = tomllib.loads(read_text(CONSTANTS_FILE, "flow placement constants file"))
    nccl, place = data["nccl"], data["placement"]
    return PlacementConstants(
        channels_per_net_peer=int(nccl["channels_per_net_peer"]), seeds=int(place["seeds"]),
        max_samples=int(place["max_samples"]),
        qps_range=(int(place["qps_range"][0]), int(place["qps_range"][1])),
        channels_range=(int(place["channels_range"][0]), int(place["channels_range"][1])),
        source=str(nccl["channels_source"]))


@dataclass(frozen=True)
class Placement:
    """Where a collective's load balance comes from, in the design's own figures."""

    mode: str
    leaves: int               # leaves carrying the job's traffic across their uplinks
    uplinks: int              # uplinks per leaf (paths to the spines)
    flows_per_leaf: int       # NCCL flows leaving the busiest leaf (NICs x channels x QPs)
    flows_per_nic: int
    load: float               # mean uplink load over capacity, perfectly balanced
    expected: float           # delivered throughput over the balanced figure, mean over seeds
    p10: float                # the same, 10th percentile over seeds
    slowest: float            # the slowest flow's share over the balanced figure, mean over seeds
    busiest_flows: float      # flows on the busiest link, mean over seeds
    seeds: int

    @property
    def hashed(self) -> bool:
        return self.mode in HASHED

    def text(self) -> str:
        """'static ECMP: 128 flows on 64 uplinks per leaf, ...' for notes and the verdict."""
        name = MODE_NAMES.get(self.mode, self.mode)
        if not self.hashed:
            return f"{name}: traffic spreads packet by packet over {self.uplinks} uplinks per leaf, as balanced"
        balanced = self.flows_per_leaf / self.uplinks
        return (f"{name}: {self.flows_per_leaf:,} flows ({self.flows_per_nic} per NIC) on {self.uplinks} uplinks "
                f"per leaf at {self.load:.0%} of their capacity, over {self.leaves:,} leaves; expected busiest "
                f"link {self.busiest_flows:.1f} flows against {balanced:.1f} balanced: {self.expected:.0%} of "
                f"balanced throughput (p10 {self.p10:.0%}, slowest flow {self.slowest:.0%}, {self.seeds} hash seeds)")

    def to_json(self) -> dict[str, object]:
        return {"mode": self.mode, "leaves": self.leaves, "uplinks": self.uplinks,
                "flows_per_leaf": self.flows_per_leaf, "flows_per_nic": self.flows_per_nic, "load": self.load,
                "expected": self.expected, "p10": self.p10, "slowest": self.slowest,
                "busiest_flows": self.busiest_flows, "seeds": self.seeds, "text": self.text()}


def flows_per_nic(mode: str, qps_per_connection: int, channels: int | None = None) -> int:
    """NCCL flows one NIC sends across the uplinks: channels per peer x queue pairs (ECMP-QP only)."""
    ch = placement_constants().channels_per_net_peer if channels is None else channels
    return ch * (qps_per_connection if mode == "ecmp-qp" else 1)


def place(mode: str, leaves: int, uplinks: int, nics_per_leaf: int, load: float, per_nic: int,
          seed: int = 0, budget: int | None = None) -> Placement:
    """Place the flows of `leaves` leaves, each with `nics_per_leaf` NICs of `per_nic` flows, on
    `uplinks` uplinks per leaf; `load` is the mean uplink load over capacity when balanced;
    `budget` caps flows x seeds (default: the constants' max_samples)."""
    if mode not in MODES:
        raise ValueError(f"unknown load-balancing mode '{mode}' (choose from {', '.join(MODES)})")
    return _place(mode, max(1, int(leaves)), max(1, int(uplinks)), max(1, int(nics_per_leaf)),
                  round(float(load), 6), max(1, int(per_nic)), seed,
                  budget or placement_constants().max_samples)


@lru_cache(maxsize=512)
def _place(mode: str, leaves: int, uplinks: int, nics: int, load: float, per_nic: int, seed: int,
           budget: int) -> Placement:
    flows = nics * per_nic
    consts = placement_constants()
    if mode not in HASHED or leaves < 2:
        # Packet spraying, or one leaf (nothing crosses): every link carries the mean.
        return Placement(mode, leaves, uplinks, flows, per_nic, load, 1.0, 1.0, 1.0, flows / uplinks, 0)
    seeds = max(4, min(consts.seeds, budget // (leaves * flows)))
    hists, busiest_of_seed = _draws(leaves, uplinks, flows, seeds, seed)
    busiest, most = float(busiest_of_seed.mean()), int(busiest_of_seed.max())
    flows_per_link = flows / uplinks
    if load <= 1.0 and load / flows_per_link * most <= 1.0:
        # No link of any draw carries more than it can: every flow runs at its demand. (The same
        # figures as the formula below, whose every share is then exactly 1, without reading the
        # draws: a comparison asks most of its loads below the uplinks' capacity.)
        return Placement(mode, leaves, uplinks, flows, per_nic, load, 1.0, 1.0, 1.0, busiest, seeds)
    # The shares of the flow counts a path can see (flow_shares of each count). A share falls as
    # the flows on a path grow, so a seed's slowest flow is on its busiest link: its share is the
    # table's at that count, without a pass over the flows.
    counts = np.arange(most + 1)
    counts[0] = 1   # no flow sees 0 flows on its path (it is one of them): a placeholder
    table = flow_shares(counts, load, flows_per_link)
    # a seed's mean over its flows from how many flows see each count on their path (a sum over
    # a few dozen counts, not a pass over millions of flows)
    flows_per_seed = leaves * flows
    throughput = np.array([histogram_mean(table, hist, flows_per_seed) for hist in hists])
    return Placement(mode, leaves, uplinks, flows, per_nic, load, float(throughput.mean()),
                     float(np.percentile(throughput, 10)), float(table[busiest_of_seed].mean()),
                     busiest, seeds)


def histogram_mean(table: np.ndarray, hist: np.ndarray, n: int) -> float:
    """The mean of ``table[c]`` over `n` values of which ``hist[c]`` are `c`, exactly rounded: the
    sum is taken in exact fractions, so it is the same whatever the order or the machine (numpy's
    pairwise sum over the flows rounds at every addition, in an order set by its blocks)."""
    total = sum((Fraction(v) * c for c, v in zip(hist.tolist(), table[:len(hist)].tolist(), strict=True) if c),
                Fraction(0))
    return float(total / n)


def flow_shares(on_path: np.ndarray, load: float, flows_per_link: float) -> np.ndarray:
    """Each flow's throughput over the perfectly balanced figure, from the flows on the busier
    link of its path (`on_path`); `load` is the mean link load over capacity when balanced and
    `flows_per_link` the flows a link carries when balanced. Shared with the routing twin, which
    counts the flows the kernel's hash put on each link."""
    # A flow's rate against capacity: its link's fair share, or its own demand if the link keeps up.
    per_flow_load = load / flows_per_link
    balanced = min(1.0, 1.0 / load) if load > 0 else 1.0
    result: np.ndarray = np.minimum(1.0, 1.0 / (per_flow_load * on_path)) / balanced
    return result


# The draws do not depend on the load, nor on which hashed mode asked: a collective's several
# loads (each message size, the full-load figure) on one fabric share one placement of flows.
# A comparison asks each fabric's loads together, and its re-runs (the other rank placement,
# other jobs' load) come back to them, so a dozen entries are kept; each holds a count per flow
# and seed as a histogram: how many of its flows see each count of flows on their path.
@lru_cache(maxsize=12)
def _draws(leaves: int, uplinks: int, flows: int, seeds: int, seed: int) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
    """Per seed, how many flows see each count of flows on the busier link of their path (index:
    the count; read-only), and per seed the flows on its busiest link."""
    rng = np.random.default_rng(seed)
    n = leaves * flows
    links = leaves * uplinks
    # Destination leaf: any other leaf, uniformly; path: one uplink (spine), uniformly. Every
    # seed's destinations are drawn first, then each seed's uplinks (the generator's stream: its
    # draws of a range below 2**32 are the same numbers in one call or several, in 32 or 64 bits),
    # and counted seed by seed: a seed's links fit in the caches where every seed's would not.
    # The index arithmetic runs in 32 bits where every index fits (half the bytes to go through);
    # the indices counted and looked up are 64-bit: bincount and take would widen narrower ones
    # on every call.
    narrow = 2 * leaves * uplinks < 2**31
    itype: type[np.signedinteger[Any]] = np.int32 if narrow else np.int64
    utype: type[np.unsignedinteger[Any]] = np.uint32 if narrow else np.uint64
    dst = rng.integers(1, leaves, size=(seeds, n), dtype=np.int32 if leaves < 2**31 else np.int64)
    src = np.repeat(np.arange(leaves, dtype=itype), flows)
    src_up = np.repeat(np.arange(0, links, uplinks, dtype=np.int64), flows)
    down_leaf = np.empty(n, itype)
    down_idx, up_idx = np.empty(n, np.int64), np.empty(n, np.int64)
    hists = []
    busiest = np.zeros(seeds, np.int64)
    for s in range(seeds):
        spine = rng.integers(0, uplinks, size=n, dtype=itype)
        np.add(dst[s], src, out=down_leaf)   # from 1 to 2 x leaves - 2, wrapped below
        if leaves & (leaves - 1) == 0:
            down_leaf &= leaves - 1
        else:
            # as unsigned, x - leaves wraps above x where x < leaves: the smaller is x mod leaves
            wrap = down_leaf.view(utype)
            np.minimum(wrap, wrap - utype(leaves), out=wrap)
        down_leaf *= uplinks
        np.add(down_leaf, spine, out=down_idx)
        np.add(src_up, spine, out=up_idx)
        up = np.bincount(up_idx, minlength=links)
        down = np.bincount(down_idx, minlength=links)
        busiest[s] = most = max(int(up.max()), int(down.max()))
        # the counts in the narrowest type that holds them: the lookups hit the caches
        ctype: type[np.integer[Any]] = np.uint8 if most < 2**8 else np.uint16 if most < 2**16 else np.int32
        hist = np.bincount(np.maximum(up.astype(ctype).take(up_idx), down.astype(ctype).take(down_idx)),
                           minlength=most + 1)
        hist.flags.writeable = False
        hists.append(hist)
    busiest.flags.writeable = False
    return tuple(hists), busiest


def full_load(mode: str, leaves: int, uplinks: int, nics_per_leaf: int, qps_per_connection: int) -> Placement:
    """Every NIC of every leaf sending its full rate across the uplinks (the load the published
    figures describe): the design's load-balance efficiency at full bisection load."""
    per_nic = flows_per_nic(mode, qps_per_connection)
    load = nics_per_leaf / uplinks if uplinks else math.inf
    return place(mode, leaves, uplinks, nics_per_leaf, min(load, 1e6), per_nic)
