"""Metrics read off the device graph itself: used for edited fabrics and to check closed forms.

Bisection uses a fixed, documented partition: within each plane, endpoints sorted by
(leaf index, leaf port) are split into a first and second half. Leaves are numbered pod by
pod (SU by SU, rail by rail), so the cut separates whole halves of the fabric: the worst
case for a Clos, where all cross traffic has to climb the tiers.
"""

from __future__ import annotations

from collections import Counter, defaultdict, deque

import networkx as nx


def endpoint_halves(g: nx.MultiGraph) -> tuple[set[str], set[str]]:
    """The two halves of the bisection partition, over all planes."""
    by_plane: dict[int, list[tuple]] = defaultdict(list)
    for node, data in g.nodes(data=True):
        if data["role"] != "nic":
            continue
        leaf_key = (1 << 30, 0)
        for _, nbr, edge in g.edges(node, data=True):
            leaf_key = min(leaf_key, (g.nodes[nbr].get("index", 0), edge["pb"]))
        by_plane[data["plane"]].append((leaf_key, data["index"], node))
    first: set[str] = set()
    second: set[str] = set()
    for items in by_plane.values():
        items.sort()
        half = len(items) // 2
        first.update(n for *_, n in items[:half])
        second.update(n for *_, n in items[half:2 * half])
    return first, second


def bisection_maxflow(g: nx.MultiGraph) -> float:
    """Bisection bandwidth (Gb/s, one direction) as the max-flow between the two halves.

    Endpoints with a single link are folded into their switch: a source or sink edge of
    that link's capacity is exactly equivalent and keeps the flow network small.
    """
    first, second = endpoint_halves(g)
    flow = nx.DiGraph()
    capacity: dict[tuple[str, str], float] = defaultdict(float)
    for u, v, data in g.edges(data=True):
        capacity[(u, v)] += data["gbps"]
    folded: dict[str, str] = {}
    for node in first | second:
        if g.degree(node) == 1 or len(g[node]) == 1:
            folded[node] = next(iter(g[node]))
    for (u, v), cap in capacity.items():
        if u in folded or v in folded:
            nic, switch = (u, v) if u in folded else (v, u)
            if nic in first:
                _add(flow, "_source", switch, cap)
            elif nic in second:
                _add(flow, switch, "_sink", cap)
            continue
        _add(flow, u, v, cap)
        _add(flow, v, u, cap)
    for node in first - folded.keys():
        _add(flow, "_source", node, float("inf"))
    for node in second - folded.keys():
        _add(flow, node, "_sink", float("inf"))
    if "_source" not in flow or "_sink" not in flow:
        return 0.0
    return float(nx.maximum_flow_value(flow, "_source", "_sink"))


def _add(flow: nx.DiGraph, u: str, v: str, cap: float) -> None:
    if flow.has_edge(u, v):
        flow[u][v]["capacity"] += cap
    else:
        flow.add_edge(u, v, capacity=cap)


def _switch_distances(adj: dict[str, list[str]], start: str) -> dict[str, int]:
    """Switches reachable from `start` through switches only, by hop count."""
    dist = {start: 0}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for nbr in adj[node]:
            if nbr not in dist:
                dist[nbr] = dist[node] + 1
                queue.append(nbr)
    return dist


def max_hops_graph(g: nx.MultiGraph) -> tuple[int, int]:
    """(max switches traversed between two endpoints of a plane, the same for one rail).

    Endpoints in different planes never meet in the fabric and are not compared.
    """
    leaves_of: dict[str, Counter] = defaultdict(Counter)  # leaf -> {(plane, rail): endpoints}
    for node, data in g.nodes(data=True):
        if data["role"] == "nic":
            for leaf in g[node]:
                leaves_of[leaf][(data["plane"], data["rail"])] += 1
    worst = worst_rail = 0
    leaves = list(leaves_of)
    # Switch-to-switch adjacency, built once: the searches below never step onto a NIC.
    role = g.nodes.data("role")
    adj = {n: [m for m in g[n] if role[m] != "nic"] for n, r in role if r != "nic"}
    for leaf in leaves:
        dist = _switch_distances(adj, leaf)
        mine = leaves_of[leaf]
        planes = {p for p, _ in mine}
        for other in leaves:
            theirs = leaves_of[other]
            if not planes & {p for p, _ in theirs}:
                continue
            hops = dist.get(other)
            if hops is None or (other == leaf and sum(mine.values()) < 2):
                continue
            worst = max(worst, hops + 1)
            shared = mine.keys() & theirs.keys()
            if other == leaf:
                shared = {k for k in shared if mine[k] >= 2}
            if shared:
                worst_rail = max(worst_rail, hops + 1)
    return worst, worst_rail
