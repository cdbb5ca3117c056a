"""NCCL-like flows placed by the kernel's own ECMP hash, beside the model's flow placement.

The flows are those the verdict's flow placement (designer.model.performance.flow_placement)
draws at full load: every NIC under every leaf sends `flows_per_nic` flows (NCCL's channels per
peer, times its queue pairs per connection where the fabric hashes on them), each to a leaf
drawn at random among the others of its fabric. Each flow is RoCE v2: UDP to port 4791, its
source port chosen per queue pair (as the NIC derives it from the queue pair number), here drawn
at random, seeded, from the dynamic range.

The kernel is asked where each flow goes, in each namespace, with `ip route get` carrying the
5-tuple (net.ipv4.fib_multipath_hash_policy=1 is set in every namespace): the source leaf picks
the uplink, the spine it lands on picks the downlink (`iif` the port the flow came in on). The
twin's switches carry no server addresses (the exported configuration routes loopbacks and
links only), so a flow's addresses are its leaves' loopbacks; its queue pair's source port is
what varies, as it is what varies between one NIC's queue pairs on a real fabric.

The load balance then follows the model's own formula (`flow_shares`): each flow runs at the fair
share of the busier link on its path, against the same load perfectly balanced. The model's
figure beside it is the same placement drawn at random on the same number of paths.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from designer.model.performance.flow_placement import MODE_NAMES, Placement, flow_shares, flows_per_nic, place

ROCE_PORT = 4791
SPORT_RANGE = (49152, 65536)        # the dynamic port range RoCE NICs draw source ports from
_DEV = re.compile(r"^\S+ .*?\bdev (\S+)", re.MULTILINE)


@dataclass(frozen=True)
class Flow:
    src: str            # leaf
    dst: str            # leaf
    sport: int


@dataclass(frozen=True)
class FlowPlan:
    """The flows the verdict's placement uses, on the twin's leaves."""

    mode: str               # the hashed mode the flows are counted for (ecmp or ecmp-qp)
    design_mode: str        # the design's own load balancing
    nics_per_leaf: int
    per_nic: int
    load: float             # mean uplink load over capacity, balanced (the design's full load)
    flows: tuple[Flow, ...]
    fabric_leaves: int = 0  # leaves of the largest fabric (plane) the flows cross


def plan_flows(leaves_by_fabric: Sequence[Sequence[str]], nics_per_leaf: int, design_uplinks: int, mode: str,
               design_mode: str, qps_per_connection: int, seed: int = 0) -> FlowPlan:
    per_nic = flows_per_nic(mode, qps_per_connection)
    rng = np.random.default_rng(seed)
    flows = []
    for leaves in leaves_by_fabric:
        if len(leaves) < 2:
            continue
        for k, src in enumerate(leaves):
            n = nics_per_leaf * per_nic
            dst = (k + rng.integers(1, len(leaves), size=n)) % len(leaves)
            sports = rng.integers(*SPORT_RANGE, size=n)
            flows += [Flow(src, leaves[int(d)], int(s)) for d, s in zip(dst, sports, strict=True)]
    load = nics_per_leaf / design_uplinks if design_uplinks else 1.0
    return FlowPlan(mode, design_mode, nics_per_leaf, per_nic, load, tuple(flows),
                    max((len(lv) for lv in leaves_by_fabric), default=0))


def route_get(flow: Flow, loopbacks: dict[str, str], iif: str = "") -> str:
    return (f"route get {loopbacks[flow.dst]} from {loopbacks[flow.src]}" + (f" iif {iif}" if iif else "")
            + f" ipproto udp sport {flow.sport} dport {ROCE_PORT}")


def parse_devices(output: str) -> list[str]:
    """The outgoing interface of every answer of an `ip -batch` of `route get`, in order."""
    return _DEV.findall(output)


@dataclass(frozen=True)
class KernelPlacement:
    """Where the kernel put the flows, and what that does to the load balance."""

    flows: int
    leaves: int
    paths: int                      # next hops per leaf towards another leaf (the ECMP width)
    busiest_uplink: int             # flows on the busiest leaf uplink
    busiest_link: int               # flows on the busiest link, uplink or downlink
    balanced: float                 # flows per uplink, perfectly balanced
    expected: float                 # delivered throughput over balanced, mean over flows
    slowest: float
    unrouted: int                   # flows the kernel found no route for
    model: Placement                # the model's placement of the same flows on the same paths
    plan: FlowPlan

    def to_json(self) -> dict[str, Any]:
        return {"mode": self.plan.mode, "design_mode": self.plan.design_mode, "flows": self.flows,
                "flows_per_nic": self.plan.per_nic, "nics_per_leaf": self.plan.nics_per_leaf,
                "leaves": self.leaves, "paths": self.paths, "busiest_uplink_flows": self.busiest_uplink,
                "busiest_link_flows": self.busiest_link, "balanced_flows_per_uplink": self.balanced,
                "load_balance": self.expected, "slowest_flow": self.slowest, "unrouted": self.unrouted,
                "model": self.model.to_json()}

    def lines(self) -> list[str]:
        name = MODE_NAMES.get(self.plan.mode, self.plan.mode)
        out = [f"Flows: {self.flows:,} NCCL-like flows ({self.plan.nics_per_leaf} NICs per leaf x {self.plan.per_nic} "
               f"per NIC, UDP to {ROCE_PORT}, a source port per queue pair), placed by the kernel's 5-tuple "
               f"hash on {self.paths} paths per leaf"]
        if self.plan.design_mode != self.plan.mode:
            out.append(f"  the design asks for {MODE_NAMES.get(self.plan.design_mode, self.plan.design_mode)}; the "
                       f"kernel hashes flows, so both are counted as {name}")
        out += [f"  {'':<24} {'kernel':>8} {'model':>8}",
                f"  {'busiest uplink, flows':<24} {self.busiest_uplink:>8,} {self.model.busiest_flows:>8.1f}"
                f"   (balanced {self.balanced:.1f})",
                f"  {'load balance':<24} {self.expected:>8.0%} {self.model.expected:>8.0%}"
                f"   (slowest flow {self.slowest:.0%} / {self.model.slowest:.0%})"]
        if self.unrouted:
            out.append(f"  {self.unrouted:,} flows found no route")
        return out


def kernel_placement(plan: FlowPlan, loopbacks: dict[str, str], peer_of: dict[tuple[str, str], tuple[str, str]],
                     ask: Callable[[str, list[str]], str], paths: int) -> KernelPlacement:
    """Ask each leaf, then each spine, where every flow goes; `peer_of[(switch, interface)]` is the
    (switch, interface) across the link, `ask(switch, commands)` runs an `ip -batch` there."""
    by_src: dict[str, list[int]] = {}
    for i, f in enumerate(plan.flows):
        by_src.setdefault(f.src, []).append(i)
    up: list[tuple[str, str] | None] = [None] * len(plan.flows)
    for leaf, idx in by_src.items():
        devs = parse_devices(ask(leaf, [route_get(plan.flows[i], loopbacks) for i in idx]))
        for i, dev in zip(idx, devs, strict=False):
            up[i] = (leaf, dev)
    by_spine: dict[str, list[int]] = {}
    for i, u in enumerate(up):
        if u is not None and u in peer_of:
            by_spine.setdefault(peer_of[u][0], []).append(i)
    down: list[tuple[str, str] | None] = [None] * len(plan.flows)
    for spine, idx in by_spine.items():
        cmds = []
        for i in idx:
            u = up[i]
            assert u is not None
            cmds.append(route_get(plan.flows[i], loopbacks, iif=peer_of[u][1]))
        for i, dev in zip(idx, parse_devices(ask(spine, cmds)), strict=False):
            down[i] = (spine, dev)
    routed = [i for i in range(len(plan.flows)) if up[i] is not None and down[i] is not None]
    up_count = Counter(up[i] for i in routed)
    down_count = Counter(down[i] for i in routed)
    on_path = np.array([max(up_count[up[i]], down_count[down[i]]) for i in routed], dtype=float)
    leaves = len(by_src)
    per_leaf = plan.nics_per_leaf * plan.per_nic
    balanced = per_leaf / paths if paths else 0.0
    shares = flow_shares(on_path, plan.load, balanced) if len(on_path) and paths else np.zeros(1)
    model = place(plan.mode, plan.fabric_leaves or leaves, max(paths, 1), plan.nics_per_leaf, plan.load,
                  plan.per_nic)
    return KernelPlacement(len(plan.flows), leaves, paths, max(up_count.values(), default=0),
                           max([*up_count.values(), *down_count.values()], default=0), balanced,
                           float(shares.mean()), float(shares.min()), len(plan.flows) - len(routed), model, plan)
