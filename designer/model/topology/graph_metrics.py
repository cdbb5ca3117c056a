"""Metrics read off the device graph itself: used for edited fabrics and to check closed forms.

Bisection uses a fixed, documented partition: within each plane, endpoints sorted by
(leaf index, leaf port) are split into a first and second half. Leaves are numbered pod by
pod (SU by SU, rail by rail), so the cut separates whole halves of the fabric: the worst
case for a Clos, where all cross traffic has to climb the tiers.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

import networkx as nx


def endpoint_halves(g: nx.MultiGraph[str]) -> tuple[set[str], set[str]]:
    """The two halves of the bisection partition, over all planes."""
    by_plane: dict[int, list[tuple[Any, ...]]] = defaultdict(list)
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


def bisection_maxflow(g: nx.MultiGraph[str]) -> float:
    """Bisection bandwidth (Gb/s, one direction) as the max-flow between the two halves.

    Endpoints with a single link are folded into their switch: a source or sink edge of
    that link's capacity is exactly equivalent and keeps the flow network small. The flow is
    then solved on the quotient of the network by its coarsest equitable partition (see
    `_equitable_cells`), which has the same maximum flow and, for a Clos, a handful of nodes.
    """
    first, second = endpoint_halves(g)
    capacity: dict[tuple[str, str], float] = defaultdict(float)
    gbps: float
    for u, v, gbps in g.edges(data="gbps"):
        capacity[(u, v)] += gbps
    folded: dict[str, str] = {}
    for node in first | second:
        if g.degree(node) == 1 or len(g[node]) == 1:
            folded[node] = next(iter(g[node]))
    arcs: dict[tuple[str, str], float] = defaultdict(float)
    for (u, v), cap in capacity.items():
        if u in folded or v in folded:
            nic, switch = (u, v) if u in folded else (v, u)
            if nic in first:
                arcs[("_source", switch)] += cap
            elif nic in second:
                arcs[(switch, "_sink")] += cap
            continue
        arcs[(u, v)] += cap
        arcs[(v, u)] += cap
    for node in first - folded.keys():
        arcs[("_source", node)] = float("inf")
    for node in second - folded.keys():
        arcs[(node, "_sink")] = float("inf")
    ends = {x for arc in arcs for x in arc}
    if "_source" not in ends or "_sink" not in ends:
        return 0.0
    cell = _equitable_cells(arcs, ("_source", "_sink"))
    quotient: nx.DiGraph[Any] = nx.DiGraph()
    for (u, v), cap in arcs.items():
        a, b = cell[u], cell[v]
        if a != b:  # flow inside one cell cancels out by symmetry
            if quotient.has_edge(a, b):
                quotient[a][b]["capacity"] += cap
            else:
                quotient.add_edge(a, b, capacity=cap)
    if cell["_source"] not in quotient or cell["_sink"] not in quotient:
        return 0.0
    return float(nx.maximum_flow_value(quotient, cell["_source"], cell["_sink"]))


def _equitable_cells(arcs: dict[tuple[str, str], float], singletons: tuple[str, ...]) -> dict[str, int]:
    """The coarsest equitable partition of a flow network (colour refinement), keeping `singletons`
    apart: every node of a cell sends the same capacity into each cell and receives the same from it.

    Max-flow on the quotient by such a partition equals max-flow on the network. A quotient flow
    lifts to the network by sharing each cell-to-cell flow over its arcs in proportion to
    capacity: every node of a cell then sends and receives the same share, so conservation and
    capacities hold. Any network flow projects onto the quotient with its value. Capacities are
    whole Gb/s, so the sums compared are exact.
    """
    succ: dict[str, list[tuple[str, float]]] = defaultdict(list)
    pred: dict[str, list[tuple[str, float]]] = defaultdict(list)
    for (u, v), cap in arcs.items():
        succ[u].append((v, cap))
        pred[v].append((u, cap))
    nodes = list(succ.keys() | pred.keys())
    cell = {n: 0 for n in nodes}
    for i, name in enumerate(singletons, start=1):
        cell[name] = i
    count = len(set(cell.values()))
    while True:
        signatures: dict[tuple[Any, ...], int] = {}
        refined: dict[str, int] = {}
        for n in nodes:
            out: dict[int, float] = defaultdict(float)
            for v, cap in succ[n]:
                out[cell[v]] += cap
            into: dict[int, float] = defaultdict(float)
            for u, cap in pred[n]:
                into[cell[u]] += cap
            key = (cell[n], tuple(sorted(out.items())), tuple(sorted(into.items())))
            refined[n] = signatures.setdefault(key, len(signatures))
        cell = refined
        if len(signatures) == count:
            return cell
        count = len(signatures)


def _switch_adjacency(g: nx.MultiGraph[str]) -> dict[str, tuple[str, ...]]:
    """Each switch's switch neighbours (NICs left out): the only paths hops are counted on."""
    role = nx.get_node_attributes(g, "role")
    return {n: tuple(m for m in g[n] if role[m] != "nic") for n in g if role[n] != "nic"}


def _distances(adj: dict[str, tuple[str, ...]], start: str) -> dict[str, int]:
    """Switches reachable from `start` through switches only, by hop count."""
    dist = {start: 0}
    frontier = [start]
    step = 0
    while frontier:
        step += 1
        nxt = []
        for node in frontier:
            for nbr in adj[node]:
                if nbr not in dist:
                    dist[nbr] = step
                    nxt.append(nbr)
        frontier = nxt
    return dist


def max_hops_graph(g: nx.MultiGraph[str]) -> tuple[int, int]:
    """(max switches traversed between two endpoints of a plane, the same for one rail).

    Endpoints in different planes never meet in the fabric and are not compared.
    Leaves with the same set of switch neighbours are at the same distance from every other
    switch, so one search per such class serves them all: a Clos of thousands of leaves has a
    few classes per pod, which keeps an edited 65,536-GPU fabric interactive.
    """
    leaves_of: dict[str, Counter[tuple[int, int]]] = defaultdict(Counter)  # leaf -> {(plane, rail): endpoints}
    for node, data in g.nodes(data=True):
        if data["role"] == "nic":
            for leaf in g[node]:
                leaves_of[leaf][(data["plane"], data["rail"])] += 1
    adj = _switch_adjacency(g)
    classes: dict[frozenset[Any], list[str]] = defaultdict(list)
    for leaf in leaves_of:
        classes[frozenset(adj[leaf])].append(leaf)
    # Per class: the planes and (plane, rail) keys of its leaves, and those shared by two leaves.
    info = []
    for nbrs, members in classes.items():
        plane_count: Counter[int] = Counter()
        key_count: Counter[tuple[int, int]] = Counter()
        worst_self = worst_self_rail = False
        for leaf in members:
            mine = leaves_of[leaf]
            plane_count.update({p for p, _ in mine})
            key_count.update(mine.keys())
            if sum(mine.values()) >= 2:
                worst_self = True
                worst_self_rail = worst_self_rail or any(c >= 2 for c in mine.values())
        info.append((members, nbrs, set(plane_count), set(key_count),
                     any(c >= 2 for c in plane_count.values()), any(c >= 2 for c in key_count.values()),
                     worst_self, worst_self_rail))
    worst = worst_rail = 0
    for members, nbrs, planes, keys, planes_shared, keys_shared, self_pair, self_rail in info:
        # Two endpoints on one leaf: one switch.
        if self_pair:
            worst = max(worst, 1)
        if self_rail:
            worst_rail = max(worst_rail, 1)
        # Two leaves of one class: through a common neighbour, three switches.
        if len(members) >= 2 and nbrs:
            if planes_shared:
                worst = max(worst, 3)
            if keys_shared:
                worst_rail = max(worst_rail, 3)
        dist = _distances(adj, members[0])
        for other_members, _, other_planes, other_keys, *_ in info:
            if other_members is members:
                continue
            hops = dist.get(other_members[0])
            if hops is None or not planes & other_planes:
                continue
            worst = max(worst, hops + 1)
            if keys & other_keys:
                worst_rail = max(worst_rail, hops + 1)
    return worst, worst_rail
