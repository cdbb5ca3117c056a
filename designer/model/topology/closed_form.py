"""Closed-form metrics of template-built fabrics, from the sizing plan alone.

These are exact for unedited templates (tests check them against the graph methods) and
cost almost nothing, so live feedback on a 64K-endpoint fabric stays instant.
"""

from __future__ import annotations

import math

from designer.model.topology.builders import _spread, leaf_assignment
from designer.model.topology.sizing import Plan, Resolved


def links_by_tier(plan: Plan, r: Resolved) -> dict[str, int]:
    p = r.planes
    out = {"node-leaf": plan.endpoints * p}
    if plan.tiers >= 2:
        out["leaf-spine"] = plan.leaves * plan.leaf_up * p
    if plan.tiers == 3:
        out["spine-core"] = plan.spines * plan.spine_up * p
    return out


def _leaf_counts(plan: Plan, r: Resolved) -> tuple[list[int], list[int]]:
    """Endpoints per leaf in the first and second half of the bisection partition."""
    assignment = leaf_assignment(plan, r.rails)
    # (leaf, port) of each endpoint, in order; the sort is stable, so equal keys keep their order
    order = sorted(range(len(assignment)), key=assignment.__getitem__)
    half = len(order) // 2
    a = [0] * plan.leaves
    b = [0] * plan.leaves
    for i in order[:half]:
        a[assignment[i][0]] += 1
    for i in order[half:2 * half]:
        b[assignment[i][0]] += 1
    return a, b


def bisection_gbps(plan: Plan, r: Resolved) -> float:
    """Max-flow between the partition halves, computed level by level.

    Pairs inside one leaf meet at that leaf; a leaf's surplus climbs its uplinks; inside a
    pod the spines pair surpluses up, and a pod's net surplus climbs to the core. Equal
    links to every switch above make each tier a full crossbar for what reaches it.
    """
    a, b = _leaf_counts(plan, r)
    s_d, s_u = r.link_gbps, r.uplink_gbps
    up = plan.leaf_up * s_u
    total = 0.0
    leaves_per_pod = plan.leaves_per_pod if plan.tiers == 3 else plan.leaves
    pod_net: list[float] = []
    pod_surplus: dict[int, list[float]] = {}
    for i in range(plan.leaves):
        total += min(a[i], b[i]) * s_d
        surplus = (a[i] - b[i]) * s_d
        climbed = math.copysign(min(abs(surplus), up), surplus)
        pod = i // leaves_per_pod if plan.tiers == 3 else 0
        pod_surplus.setdefault(pod, []).append(climbed)
    for values in pod_surplus.values():
        pos = sum(v for v in values if v > 0)
        neg = -sum(v for v in values if v < 0)
        total += min(pos, neg)
        pod_net.append(pos - neg)
    if plan.tiers == 3:
        pod_up = plan.spines_per_pod * plan.spine_up * s_u
        capped = [math.copysign(min(abs(v), pod_up), v) for v in pod_net]
        total += min(sum(v for v in capped if v > 0), -sum(v for v in capped if v < 0))
    return total * r.planes


def full_bisection_gbps(plan: Plan, r: Resolved) -> float:
    return (plan.endpoints // 2) * r.link_gbps * r.planes


def max_hops(plan: Plan) -> tuple[int, int]:
    """(switches traversed on the longest path, the same between two GPUs of one rail).

    0 where no such pair of endpoints exists.
    """
    if plan.endpoints <= 1:
        return 0, 0
    if plan.leaves <= 1:
        return 1, (1 if plan.servers > 1 else 0)
    worst = 5 if plan.tiers == 3 and plan.pods > 1 else 3
    if plan.servers <= 1:
        return worst, 0
    if plan.rail_su_size:
        if plan.servers <= plan.rail_leaf_size:
            return worst, 1
        if plan.rail_leaves > 1 and plan.sus <= 1:
            return worst, 3  # one rail of the SU spreads over several leaves, joined by spines
        return worst, worst
    return worst, worst


def ports_per_switch(plan: Plan, r: Resolved) -> dict[str, list[tuple[int, int]]]:
    """(downlinks, uplinks) in use on each switch of one plane, by tier."""
    assignment = leaf_assignment(plan, r.rails)
    down = [0] * plan.leaves
    for leaf, _ in assignment:
        down[leaf] += 1
    out = {"leaf": [(d, plan.leaf_up) for d in down]}
    spine_down = [0] * plan.spines
    leaves_per_pod = plan.leaves_per_pod if plan.tiers == 3 else plan.leaves
    for i in range(plan.leaves):
        pod = i // leaves_per_pod if plan.tiers == 3 else 0
        local = i - pod * leaves_per_pod
        for t, links in enumerate(_spread(plan.leaf_up, plan.spines_per_pod, local * plan.leaf_up)):
            spine_down[pod * plan.spines_per_pod + t] += links
    out["spine"] = [(d, plan.spine_up if plan.tiers == 3 else 0) for d in spine_down]
    if plan.tiers == 3:
        core = [0] * plan.cores
        for s in range(plan.spines):
            local, pod = s % plan.spines_per_pod, s // plan.spines_per_pod
            for t, links in enumerate(_spread(plan.spine_up, plan.core_groups_size, pod * plan.spine_up)):
                core[(local * plan.core_groups_size + t) % plan.cores] += links
        out["core"] = [(d, 0) for d in core]
    return out
