"""Closed-form metrics of template-built fabrics, from the sizing plan alone.

These are exact for unedited templates (tests check them against the graph methods) and
cost almost nothing, so live feedback on a 64K-endpoint fabric stays instant.
"""

from __future__ import annotations

import math

import numpy as np

from designer.model.topology.sizing import Plan, Resolved


def leaf_assignment_arrays(plan: Plan, e: int) -> tuple[np.ndarray, np.ndarray]:
    """(leaf, down port) per endpoint of a plane, as `builders.leaf_assignment` gives them, as
    arrays: sizing prices many layouts of a 16K-GPU fabric, and a Python tuple per endpoint of
    each cost seconds."""
    n = plan.servers
    if plan.rail_su_size:
        j = np.repeat(np.arange(n, dtype=np.int64), e)
        p = np.tile(np.arange(e, dtype=np.int64), n)
        return plan.rail_leaf(j, p, e), plan.rail_port(j, p)
    per_leaf = plan.leaf_down
    if e <= per_leaf and per_leaf % e == 0 and plan.leaves * (per_leaf // e) >= n:
        j = np.arange(n, dtype=np.int64)
        leaf_s = j * plan.leaves // n
        first = np.searchsorted(leaf_s, leaf_s, side="left")
        fill = (j - first) * e
        p = np.tile(np.arange(e, dtype=np.int64), n)
        return np.repeat(leaf_s, e), np.repeat(fill, e) + p + 1
    total = n * e
    idx = np.arange(total, dtype=np.int64)
    leaf = idx * plan.leaves // total
    first = np.searchsorted(leaf, leaf, side="left")
    return leaf, idx - first + 1


def links_by_tier(plan: Plan, r: Resolved) -> dict[str, int]:
    p = r.planes
    out = {"node-leaf": plan.endpoints * p}
    if plan.tiers >= 2:
        out["leaf-spine"] = plan.leaves * plan.leaf_up * p
    if plan.tiers == 3:
        out["spine-core"] = plan.spines * plan.spine_up * p
    return out


def _leaf_counts(plan: Plan, r: Resolved) -> tuple[list[int], list[int]]:
    """Endpoints per leaf in the first and second half of the bisection partition (endpoints
    in order of leaf, then down port, then endpoint)."""
    leaf, port = leaf_assignment_arrays(plan, r.rails)
    return _halves_per_leaf(leaf, port, plan.leaves)


def _halves_per_leaf(leaf: np.ndarray, port: np.ndarray, leaves: int) -> tuple[list[int], list[int]]:
    """Per leaf, its endpoints among the first half and among the second half of the endpoints
    ordered by leaf, then port, then endpoint. Counted per (leaf, port) key instead of sorting
    every endpoint (a million-GPU plane has millions): the halves split at one key, whose
    endpoints before the split all sit on that key's leaf."""
    n = len(leaf)
    half = n // 2
    if n == 0:
        return [0] * leaves, [0] * leaves
    low = int(port.min())
    width = int(port.max()) - low + 1
    rows = max(leaves, int(leaf.max()) + 1)
    per_key = np.bincount(leaf * width + (port - low), minlength=rows * width)
    split = int(np.searchsorted(np.cumsum(per_key), half, side="right"))   # the key the split falls in
    first = per_key.copy()
    first[split:] = 0
    if split < len(first):
        first[split] = half - int(per_key[:split].sum())
    a = first.reshape(rows, width).sum(axis=1)
    b = per_key.reshape(rows, width).sum(axis=1) - a
    if n % 2:   # the last endpoint (of the last key) is in neither half
        b[int(np.flatnonzero(per_key)[-1]) // width] -= 1
    return a.tolist(), b.tolist()


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


def _spread_matrix(count: int, targets: int, offsets: np.ndarray) -> np.ndarray:
    """`builders._spread(count, targets, offset)` for every offset at once: one row per device."""
    if targets <= 0:
        return np.zeros((len(offsets), 0), dtype=np.int64)
    base, rem = divmod(count, targets)
    t = np.arange(targets, dtype=np.int64)
    extra: np.ndarray = (((t[None, :] - offsets[:, None]) % targets) < rem).astype(np.int64)
    return extra + base


def ports_per_switch(plan: Plan, r: Resolved) -> dict[str, list[tuple[int, int]]]:
    """(downlinks, uplinks) in use on each switch of one plane, by tier."""
    leaf, _ = leaf_assignment_arrays(plan, r.rails)
    down = np.bincount(leaf, minlength=plan.leaves).tolist()
    out = {"leaf": [(d, plan.leaf_up) for d in down]}
    leaves_per_pod = plan.leaves_per_pod if plan.tiers == 3 else plan.leaves
    i = np.arange(plan.leaves, dtype=np.int64)
    pod = i // leaves_per_pod if plan.tiers == 3 else np.zeros_like(i)
    per = _spread_matrix(plan.leaf_up, plan.spines_per_pod, (i - pod * leaves_per_pod) * plan.leaf_up)
    spine_down = np.zeros(plan.spines, dtype=np.int64)
    if per.size:
        # Each leaf's links go to the spines of its own pod.
        spine_down += np.bincount((pod[:, None] * plan.spines_per_pod + np.arange(plan.spines_per_pod)).ravel(),
                                  weights=per.ravel(), minlength=plan.spines).astype(np.int64)
    out["spine"] = [(d, plan.spine_up if plan.tiers == 3 else 0) for d in spine_down.tolist()]
    if plan.tiers == 3:
        # Spine s (local index l in pod p) spreads its uplinks over core group l, as builders do.
        s = np.arange(plan.spines, dtype=np.int64)
        local, pod_s = s % plan.spines_per_pod, s // plan.spines_per_pod
        per_core = _spread_matrix(plan.spine_up, plan.core_groups_size, pod_s * plan.spine_up)
        target = (local[:, None] * plan.core_groups_size + np.arange(plan.core_groups_size)) % max(plan.cores, 1)
        core = np.bincount(target.ravel(), weights=per_core.ravel(), minlength=plan.cores).astype(np.int64)
        out["core"] = [(d, 0) for d in core.tolist()]
    return out
