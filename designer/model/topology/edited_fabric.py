"""An edited template fabric measured without its device graph.

Manual edits (add links, remove links, remove a switch) change a handful of switch pairs of a
fabric that is otherwise the template. Building the device graph of a 65,536-GPU fabric and
running max-flow on it takes seconds; an edit in the window must not. So this module keeps the
template's switch-to-switch links as numpy arrays generated from the sizing plan (the same
wiring as designer/model/topology/builders.py), replays the edits on the few pairs they touch,
and measures:

- ports per switch, links per tier and endpoints left without a link, by counting;
- bisection as the max-flow of designer/model/topology/graph_metrics.py, with endpoints folded
  into their leaves and the network reduced by its coarsest equitable partition, refined with
  numpy on exact integer signatures;
- the longest path on the quotient by "twins" (switches with the same neighbours), where
  distances equal those between the switches themselves.

The result equals `metrics.measure_graph` on the built graph exactly; tests/test_edited_fabric.py
checks that on random designs and edits. An edit that names an endpoint (a NIC) is not handled
here: `measure_edits` returns None and the caller builds the graph.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from designer.limits import quote
from designer.model.intent.design import Edit, FabricDesign
from designer.model.topology.builders import leaf_assignment, plane_prefix
from designer.model.topology.closed_form import leaf_assignment_arrays
from designer.model.topology.metrics import TIERS, EditedFabric
from designer.model.topology.sizing import Plan, Resolved

# (leaf index, down port) of each endpoint of a plane, as builders.leaf_assignment gives them.
Assignment = Sequence[tuple[int, int]]
# u, v, template links, manual links, all links (per switch pair), alive, endpoints per switch, assignment
FabricState = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                    Assignment]

if TYPE_CHECKING:   # networkx loads only where a graph is built or walked
    pass


@lru_cache(maxsize=4)
def _assignment_columns(plan: Plan, rails: int) -> tuple[np.ndarray, np.ndarray]:
    """(leaf, down port) of every endpoint of a plane as two arrays, made once per plan: an N-1
    sweep reads them per failure, and a Python tuple per endpoint of a 131,072-GPU fabric takes
    a tenth of a second to walk each time."""
    # The same (leaf, port) as leaf_assignment's tuples, worked out as arrays (a test holds them
    # equal), not converted from a tuple per endpoint.
    leaf, port = (np.ascontiguousarray(a, dtype=np.int64) for a in leaf_assignment_arrays(plan, rails))
    leaf.flags.writeable = port.flags.writeable = False   # shared by every caller
    return leaf, port


class PlanAssignment(Sequence[tuple[int, int]]):
    """The plan's own assignment, `leaf_assignment`'s (leaf, down port) pairs, read from its
    arrays: a failure or an edited fabric reads it as columns, and making a tuple per endpoint
    takes a fifth of a second for a plane of 262,144 endpoints (a million GPUs on four planes)."""

    def __init__(self, plan: Plan, rails: int) -> None:
        self.leaf, self.port = _assignment_columns(plan, rails)

    def __len__(self) -> int:
        return len(self.leaf)

    @overload
    def __getitem__(self, k: int) -> tuple[int, int]: ...

    @overload
    def __getitem__(self, k: slice) -> list[tuple[int, int]]: ...

    def __getitem__(self, k: int | slice) -> tuple[int, int] | list[tuple[int, int]]:
        if isinstance(k, slice):
            return list(zip(self.leaf[k].tolist(), self.port[k].tolist(), strict=True))
        return int(self.leaf[k]), int(self.port[k])

    def __iter__(self) -> Iterator[tuple[int, int]]:
        return zip(self.leaf.tolist(), self.port.tolist(), strict=True)


@lru_cache(maxsize=4)
def plan_assignment(plan: Plan, rails: int) -> PlanAssignment:
    """The plan's own assignment as a sequence over its arrays (made once per plan)."""
    return PlanAssignment(plan, rails)


def assignment_columns(f: SwitchPairs, assignment: Assignment) -> tuple[np.ndarray, np.ndarray]:
    """`assignment` as (leaf, down port) arrays; the plan's own assignment is read from the cache."""
    if isinstance(assignment, PlanAssignment):
        return assignment.leaf, assignment.port
    if assignment is leaf_assignment(f.plan, f.r.rails):
        return _assignment_columns(f.plan, f.r.rails)
    return (np.fromiter((a for a, _ in assignment), dtype=np.int64, count=len(assignment)),
            np.fromiter((b for _, b in assignment), dtype=np.int64, count=len(assignment)))


_SWITCH_ID = re.compile(r"(?:p(\d+)\.)?(leaf|spine|core)-(\d+)")
_NIC_ID = re.compile(r"srv-(\d+)\.nic-(\d+)")
_LEVEL = {"leaf": 1, "spine": 2, "core": 3}


class SwitchPairs:
    """Switch numbering: plane by plane, leaves then spines then cores, as the builder adds them."""

    def __init__(self, plan: Plan, r: Resolved) -> None:
        self.plan, self.r = plan, r
        self.planes = r.planes
        self.counts = {"leaf": plan.leaves, "spine": plan.spines, "core": plan.cores if plan.tiers == 3 else 0}
        self.per_plane = sum(self.counts.values())
        self.n = self.per_plane * self.planes
        self.first = {"leaf": 0, "spine": plan.leaves, "core": plan.leaves + plan.spines}
        level = np.empty(self.per_plane, dtype=np.int8)
        for tier, start in self.first.items():
            level[start:start + self.counts[tier]] = _LEVEL[tier]
        self.level = np.tile(level, self.planes)

    def index(self, device: str) -> int | None:
        """The switch's number, or None when `device` is not a switch of this fabric."""
        m = _SWITCH_ID.fullmatch(device)
        if not m:
            return None
        plane = int(m.group(1)) - 1 if m.group(1) else 0
        tier, number = m.group(2), int(m.group(3))
        if not (0 <= plane < self.planes and 1 <= number <= self.counts[tier]):
            return None
        if f"{plane_prefix(plane, self.planes)}{tier}-{number}" != device:
            return None   # "leaf-01", or a plane prefix on a one-plane fabric: not a device name
        return plane * self.per_plane + self.first[tier] + number - 1

    @staticmethod
    def names_nic(device: str | None) -> bool:
        """Whether `device` has the form of a NIC's name (`srv-3.nic-2`), whatever the fabric."""
        return bool(device and _NIC_ID.fullmatch(device))

    def is_nic(self, device: str) -> bool:
        m = _NIC_ID.fullmatch(device)
        if not m:
            return False
        server, port = int(m.group(1)), int(m.group(2))
        return (f"srv-{server}.nic-{port}" == device and 1 <= server <= self.plan.servers
                and 1 <= port <= self.r.rails * self.planes)

    def names(self) -> list[str]:
        """Every switch's name, by number: one list built tier by tier, not a lookup per switch."""
        out: list[str] = []
        for plane in range(self.planes):
            prefix = plane_prefix(plane, self.planes)
            for tier in ("leaf", "spine", "core"):
                out += [f"{prefix}{tier}-{i}" for i in range(1, self.counts[tier] + 1)]
        return out

    def name(self, node: int) -> str:
        plane, local = divmod(node, self.per_plane)
        for tier in ("core", "spine", "leaf"):
            if local >= self.first[tier] and self.counts[tier]:
                return f"{plane_prefix(plane, self.planes)}{tier}-{local - self.first[tier] + 1}"
        raise ValueError(node)

    def template_pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """Sorted pair keys (u * n + v, u < v) of the template's switch links, and link counts
        (read-only arrays, shared: the canvas asks again at every edit of a large design)."""
        return _template_pairs(self.plan, self.planes)


@lru_cache(maxsize=4)
def _template_pairs(plan: Plan, planes: int) -> tuple[np.ndarray, np.ndarray]:
    first = {"leaf": 0, "spine": plan.leaves, "core": plan.leaves + plan.spines}
    per_plane = plan.leaves + plan.spines + (plan.cores if plan.tiers == 3 else 0)
    n = per_plane * planes
    us, vs, cs = [], [], []
    leaves, sp = plan.leaves, plan.spines_per_pod
    if sp == 0:  # one tier: no switch links in the template
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    lpp = plan.leaves_per_pod if plan.tiers == 3 else plan.leaves
    i = np.arange(leaves, dtype=np.int64)
    pod = i // lpp if plan.tiers == 3 else np.zeros_like(i)
    local = i - pod * lpp
    t = np.arange(sp, dtype=np.int64)
    base, rem = divmod(plan.leaf_up, sp)
    count = base + (((t[None, :] - (local * plan.leaf_up)[:, None]) % sp) < rem)
    us.append(np.repeat(i, sp))
    vs.append((first["spine"] + pod[:, None] * sp + t[None, :]).ravel())
    cs.append(count.ravel())
    if plan.tiers == 3:
        s = np.arange(plan.spines, dtype=np.int64)
        group = plan.core_groups_size
        g = np.arange(group, dtype=np.int64)
        base, rem = divmod(plan.spine_up, group)
        count = base + (((g[None, :] - ((s // sp) * plan.spine_up)[:, None]) % group) < rem)
        core = ((s % sp)[:, None] * group + g[None, :]) % plan.cores
        us.append(np.repeat(first["spine"] + s, group))
        vs.append((first["core"] + core).ravel())
        cs.append(count.ravel())
    u, v, c = np.concatenate(us), np.concatenate(vs), np.concatenate(cs)
    keep = c > 0
    u, v, c = u[keep], v[keep], c[keep]
    offsets = np.arange(planes, dtype=np.int64)[:, None] * per_plane
    keys = ((u[None, :] + offsets) * n + (v[None, :] + offsets)).ravel()
    counts = np.tile(c, planes)
    keys, inverse = np.unique(keys, return_inverse=True)
    counts = np.bincount(inverse, weights=counts).astype(np.int64)
    keys.setflags(write=False)
    counts.setflags(write=False)
    return keys, counts


def measure_edits(design: FabricDesign, r: Resolved, plan: Plan) -> EditedFabric | None:
    """The edited fabric measured from the plan and the edits; None if an edit names an endpoint."""
    f = SwitchPairs(plan, r)
    for edit in design.edits:
        if any(f.is_nic(x) for x in (edit.a, edit.b) if x):
            return None
    keys, template = f.template_pairs()
    replay = replay_edits(design.edits, f, keys, template)
    if replay is None:
        return None
    removed, touched, problems = replay
    return _measure(f, keys, template, removed, touched, problems)


def replay_edits(edits: Iterable[Edit], f: SwitchPairs, keys: np.ndarray,
                 template: np.ndarray) -> tuple[set[int], dict[int, list[int]], tuple[str, ...]]:
    """Apply the edits in order, as builders.apply_edits does, on the pairs they touch.

    Each pair holds (template links, manual links); removing links takes the newest first,
    so manual links go before template ones.
    """
    removed: set[int] = set()
    touched: dict[int, list[int]] = {}
    problems: list[str] = []

    def pair(a: int, b: int) -> list[int]:
        key = min(a, b) * f.n + max(a, b)
        if key not in touched:
            at = int(np.searchsorted(keys, key))
            base = int(template[at]) if at < len(keys) and keys[at] == key else 0
            touched[key] = [base, 0]
        return touched[key]

    for n, edit in enumerate(edits, start=1):
        names = (edit.a,) if edit.op == "remove-device" else (edit.a, edit.b)
        nodes = [f.index(x) if x else None for x in names]
        missing = [x for x, node in zip(names, nodes, strict=True) if node is None or node in removed]
        if missing:
            problems.append(f"edit {n} ({edit.op}) names unknown device {quote(missing[0], 60)}")
            continue
        ends = [node for node in nodes if node is not None]   # all of them: none is missing
        if edit.op == "remove-device":
            removed.add(ends[0])
        elif edit.op == "add-links":
            if edit.a == edit.b:
                problems.append(f"edit {n} (add-links) links {quote(edit.a, 60)} to itself")
                continue
            pair(*ends)[1] += edit.count
        elif edit.op == "remove-links":
            links = pair(*ends)
            have = links[0] + links[1]
            if have < edit.count:
                problems.append(f"edit {n} removes {edit.count} links between {quote(edit.a, 60)} and "
                                f"{quote(edit.b, 60)}, which have {have}")
            take = min(edit.count, have)
            manual = min(take, links[1])
            links[1] -= manual
            links[0] -= take - manual
    return removed, touched, tuple(problems)


def fabric_state(f: SwitchPairs, keys: np.ndarray, template: np.ndarray, removed: set[int],
                 touched: dict[int, list[int]]) -> FabricState:
    """The fabric after the replayed edits: linked switch pairs (u < v) with their template and
    manual links, the switches left, and the endpoints on each switch."""
    plan, r = f.plan, f.r
    n = f.n
    manual = np.zeros(len(keys), dtype=np.int64)
    counts = template.copy()
    extra_keys: list[int] = []
    extra_template: list[int] = []
    extra_manual: list[int] = []
    for key, (base, added) in touched.items():
        at = int(np.searchsorted(keys, key))
        if at < len(keys) and keys[at] == key:
            counts[at], manual[at] = base, added
        else:
            extra_keys.append(key)
            extra_template.append(base)
            extra_manual.append(added)
    if extra_keys:
        keys = np.concatenate([keys, np.array(extra_keys, dtype=np.int64)])
        counts = np.concatenate([counts, np.array(extra_template, dtype=np.int64)])
        manual = np.concatenate([manual, np.array(extra_manual, dtype=np.int64)])
    u, v = np.divmod(keys, n)
    alive = np.ones(n, dtype=bool)
    if removed:
        alive[list(removed)] = False
    if removed or touched or not (counts > 0).all():   # the template's own pairs all have links
        keep = alive[u] & alive[v] & ((counts + manual) > 0)
        u, v, counts, manual = u[keep], v[keep], counts[keep], manual[keep]

    # Endpoints: the same assignment in every plane; a removed leaf leaves its endpoints unlinked.
    assignment = plan_assignment(plan, r.rails)
    leaf_of = assignment.leaf
    nics_per_leaf = np.bincount(leaf_of, minlength=plan.leaves)
    leaf_nodes = (np.arange(f.planes)[:, None] * f.per_plane + np.arange(plan.leaves)[None, :]).ravel()
    nics = np.zeros(n, dtype=np.int64)
    nics[leaf_nodes] = np.tile(nics_per_leaf, f.planes)
    nics[~alive] = 0
    return u, v, counts, manual, counts + manual, alive, nics, assignment


def _measure(f: SwitchPairs, keys: np.ndarray, template: np.ndarray, removed: set[int],
             touched: dict[int, list[int]], problems: tuple[str, ...]) -> EditedFabric:
    u, v, counts, manual, total, alive, nics, assignment = fabric_state(f, keys, template, removed, touched)
    tier_of_pair = np.where(f.level[u] == 1, 0, 1)   # template pairs: leaf-spine or spine-core
    links = {"node-leaf": int(nics.sum()),
             "leaf-spine": int(counts[tier_of_pair == 0].sum()),
             "spine-core": int(counts[tier_of_pair == 1].sum()),
             "manual": int(manual.sum())}
    links = {k: v for k, v in links.items() if v}

    disconnected = _disconnected(f, assignment, alive)
    use = _port_use(f, u, v, total, nics, alive)
    bisection = pair_bisection(f, assignment, u, v, total, alive)
    hops = _max_hops(f, assignment, u, v, alive, nics)
    return EditedFabric(use, links, bisection, hops, disconnected, problems)


def _disconnected(f: SwitchPairs, assignment: Assignment, alive: np.ndarray) -> list[str]:
    out = []
    e = f.r.rails
    for plane in range(f.planes):
        base = plane * f.per_plane
        dead = {i for i in range(f.plan.leaves) if not alive[base + i]}
        if not dead:
            continue
        for idx, (leaf, _) in enumerate(assignment):
            if leaf in dead:
                server, rail = divmod(idx, e)
                out.append(f"srv-{server + 1}.nic-{plane * e + rail + 1}")
    return out


def switch_links(f: SwitchPairs, u: np.ndarray, v: np.ndarray, total: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(links down, links up) of every switch, endpoints not counted. A link counts as down for
    its higher end, up for its lower end, and up for both ends of a link between equals (as
    metrics.measure_graph counts it)."""
    lu, lv = f.level[u], f.level[v]
    down = (np.bincount(u, weights=total * (lv < lu), minlength=f.n)
            + np.bincount(v, weights=total * (lu < lv), minlength=f.n)).astype(np.int64)
    up = (np.bincount(u, weights=total * (lv >= lu), minlength=f.n)
          + np.bincount(v, weights=total * (lu >= lv), minlength=f.n)).astype(np.int64)
    return down, up


def _port_use(f: SwitchPairs, u: np.ndarray, v: np.ndarray, total: np.ndarray, nics: np.ndarray,
              alive: np.ndarray) -> dict[str, list[tuple[str, int, int, float, float]]]:
    """Per switch: (id, downlinks, uplinks, down Gb/s, up Gb/s), by tier, in the builder's order."""
    s_d, s_u = f.r.link_gbps, f.r.uplink_gbps
    down, up = switch_links(f, u, v, total)
    out: dict[str, list[tuple[str, int, int, float, float]]] = {t: [] for t in TIERS}
    down_list, up_list, nic_list, levels = down.tolist(), up.tolist(), nics.tolist(), f.level.tolist()
    for node in np.flatnonzero(alive).tolist():
        dn_switch, up_links, nic = down_list[node], up_list[node], nic_list[node]
        tier = ("leaf", "spine", "core")[levels[node] - 1]
        out[tier].append((f.name(node), nic + dn_switch, up_links,
                          float(nic * s_d + dn_switch * s_u), float(up_links * s_u)))
    return out


def pair_bisection(f: SwitchPairs, assignment: Assignment, u: np.ndarray, v: np.ndarray, total: np.ndarray,
                   alive: np.ndarray, ordered: np.ndarray | None = None, counted: np.ndarray | None = None,
                   dropped: np.ndarray | None = None, planes: Iterable[int] | None = None) -> float:
    """graph_metrics.bisection_maxflow without the graph (same partition, same reduction).

    `ordered` (default `alive`): the switches whose endpoints keep their place when the
    endpoints are split into halves (a failure keeps the intact fabric's halves); `counted`
    (default `alive`): the leaves whose endpoints take part in the flow. `planes` (default
    all): the flow of these planes alone; planes share no switch, so the whole fabric's flow is
    the sum of its planes' flows."""
    ordered = alive if ordered is None else ordered
    counted = alive if counted is None else counted
    # dropped[plane]: endpoints whose own cable failed (they keep their place in the halves)
    s_d, s_u = f.r.link_gbps, f.r.uplink_gbps
    leaf, port = assignment_columns(f, assignment)
    idx = np.arange(len(assignment), dtype=np.int64)
    half = len(assignment) // 2
    chosen = sorted(set(planes)) if planes is not None else list(range(f.planes))
    # The switches the flow runs on: the chosen planes' when they are one run, numbered from
    # `low` (a pair never joins two planes, so the other planes' switches, isolated here, would
    # only make every round of the partition below longer: 4x at four planes).
    low, n = 0, f.n
    if len(chosen) < f.planes:
        if chosen and chosen == list(range(chosen[0], chosen[-1] + 1)):   # one run of planes
            low, n = chosen[0] * f.per_plane, len(chosen) * f.per_plane
            inside = (u >= low) & (u < low + n)
        else:
            inside = np.isin(u // f.per_plane, chosen)
        if not inside.all():   # a failure's pairs may come measured for its planes alone
            u, v, total = u[inside], v[inside], total[inside]
        if low:
            u, v = u - low, v - low
    supply = np.zeros(n, dtype=np.int64)   # from the source: endpoints of the first half
    demand = np.zeros(n, dtype=np.int64)   # to the sink: endpoints of the second half
    plan_endpoints = isinstance(assignment, PlanAssignment) or assignment is leaf_assignment(f.plan, f.r.rails)
    for plane in chosen:
        base = plane * f.per_plane
        linked, taking_part = ordered[base + leaf], counted[base + leaf]
        # Endpoints sorted by (leaf, port), those without a link last, as endpoint_halves does.
        if plan_endpoints and linked.all():
            order = _endpoint_order(f.plan, f.r.rails)
        else:
            order = np.lexsort((idx, np.where(linked, port, 0), np.where(linked, leaf, 1 << 30)))
        first, second = order[:half], order[half:2 * half]
        if dropped is not None:
            taking_part = taking_part & ~dropped[plane]
        first, second = first[taking_part[first]], second[taking_part[second]]
        supply += np.bincount(base - low + leaf[first], minlength=n) * s_d
        demand += np.bincount(base - low + leaf[second], minlength=n) * s_d
    if not supply.any() or not demand.any():
        return 0.0
    cap = total * s_u
    src = np.concatenate([u, v])
    dst = np.concatenate([v, u])
    caps = np.concatenate([cap, cap])
    cell = _equitable_cells(n, src, dst, caps, supply, demand)
    cs, cd = cell[src], cell[dst]
    between = cs != cd   # flow inside one cell cancels out by symmetry
    # The capacity from cell a to cell b, summed over their links in one pass.
    cells = int(cell.max()) + 1
    if cells * cells <= _DENSE_SIGNATURES:   # a dense table of cell pairs, no sort
        table = np.bincount((cs * cells + cd)[between], weights=caps[between], minlength=cells * cells)
        pair = np.flatnonzero(table)
        sums = table[pair].astype(caps.dtype)
    else:
        pair, at = np.unique(cs[between] * cells + cd[between], return_inverse=True)
        sums = np.zeros(len(pair), dtype=caps.dtype)
        np.add.at(sums, at.ravel(), caps[between])
    source, sink = cells, cells + 1
    arcs = [(key // cells, key % cells, c) for key, c in zip(pair.tolist(), sums.tolist(), strict=True)]
    source_cap = np.bincount(cell, weights=supply).astype(np.int64)
    sink_cap = np.bincount(cell, weights=demand).astype(np.int64)
    arcs += [(source, a, int(source_cap[a])) for a in np.flatnonzero(source_cap).tolist()]
    arcs += [(a, sink, int(sink_cap[a])) for a in np.flatnonzero(sink_cap).tolist()]
    if len(arcs) <= _SMALL_QUOTIENT:
        return float(_max_flow(cells + 2, arcs, source, sink))
    import networkx as nx  # a quotient this large is rare (a much edited fabric)
    quotient: nx.DiGraph[int] = nx.DiGraph()
    for a, b, c in arcs:
        quotient.add_edge(a, b, capacity=c)
    return float(nx.maximum_flow_value(quotient, source, sink))


@lru_cache(maxsize=4)
def _endpoint_order(plan: Plan, rails: int) -> np.ndarray:
    """The plan's endpoints sorted by (leaf, port, index), where every leaf is linked: the same
    halves for every failure of an N-1 sweep, sorted once."""
    leaf, port = _assignment_columns(plan, rails)
    order = np.lexsort((np.arange(len(leaf), dtype=np.int64), port, leaf))
    order.flags.writeable = False
    return order


# A quotient with up to this many arcs is solved here, without loading networkx (a template's
# symmetry leaves tens of cells); a larger one by networkx's preflow-push.
_SMALL_QUOTIENT = 5_000


def _max_flow(nodes: int, arcs: list[tuple[int, int, float]], source: int, sink: int) -> float:
    """Dinic's maximum flow from `source` to `sink` over directed arcs (tail, head, capacity).

    The capacities are whole Gb/s, so every sum is exact and the value equals networkx's."""
    out: list[list[int]] = [[] for _ in range(nodes)]
    head: list[int] = []
    room: list[float] = []
    for a, b, c in arcs:   # arc 2k and its residual twin 2k + 1
        out[a].append(len(head))
        head.append(b)
        room.append(c)
        out[b].append(len(head))
        head.append(a)
        room.append(0)
    level = [-1] * nodes      # BFS depth of each node in this phase
    next_arc = [0] * nodes    # the next arc of each node to try in this phase

    def push(x: int, limit: float) -> float:
        if x == sink:
            return limit
        while next_arc[x] < len(out[x]):
            arc = out[x][next_arc[x]]
            y = head[arc]
            if room[arc] > 0 and level[y] == level[x] + 1:
                sent = push(y, min(limit, room[arc]))
                if sent > 0:
                    room[arc] -= sent
                    room[arc ^ 1] += sent
                    return sent
            next_arc[x] += 1
        return 0

    total: float = 0
    while True:
        level[:] = [-1] * nodes
        level[source] = 0
        queue = [source]
        for x in queue:
            for arc in out[x]:
                if room[arc] > 0 and level[head[arc]] < 0:
                    level[head[arc]] = level[x] + 1
                    queue.append(head[arc])
        if level[sink] < 0:
            return total
        next_arc[:] = [0] * nodes
        while (sent := push(source, math.inf)) > 0:
            total += sent


def _row_classes(rows: np.ndarray) -> np.ndarray:
    """A class number per row, equal rows alike, numbered in the rows' sorted order (as
    np.unique(axis=0) numbers them), by one stable sort per column: faster than comparing rows
    as opaque records when there are few columns."""
    order = np.lexsort(rows.T[::-1])
    ordered = rows[order]
    starts = np.empty(len(rows), dtype=bool)
    starts[:1] = True
    starts[1:] = np.any(ordered[1:] != ordered[:-1], axis=1)
    classes = np.empty(len(rows), dtype=np.int64)
    classes[order] = np.cumsum(starts) - 1
    return classes


# Up to this many (switch, cell) pairs, a round of refinement sums capacities in a dense table.
_DENSE_SIGNATURES = 4_000_000


def _equitable_cells(n: int, src: np.ndarray, dst: np.ndarray, caps: np.ndarray, supply: np.ndarray,
                     demand: np.ndarray) -> np.ndarray:
    """The coarsest equitable partition of the switches (source and sink kept apart): every switch
    of a cell has the same supply and demand and the same capacity into each cell.

    Refined round by round on exact signatures, rows of integers compared by np.unique: no hashing,
    so no two different signatures can ever be taken for one.
    """
    cell = np.zeros(n, dtype=np.int64)
    cells = 1
    by_switch = False
    while True:
        if n * cells <= _DENSE_SIGNATURES:
            # Few cells (a template's symmetry): each switch's capacity into every cell as one
            # dense row, summed without sorting the links (the same partition as below).
            into = np.bincount(src * cells + cell[dst], weights=caps, minlength=n * cells).reshape(n, cells)
            refined = _row_classes(np.column_stack([cell, supply, demand, into]))
            count = int(refined.max()) + 1
            cell = refined
            if count == cells:
                return cell
            cells = count
            continue
        if not by_switch:   # the sparse rows below rank each switch's links in order
            order = np.argsort(src, kind="stable")
            src, dst, caps = src[order], dst[order], caps[order]
            by_switch = True
        key = src * (cells + 1) + cell[dst]
        uniq, inverse = np.unique(key, return_inverse=True)
        capsum = np.bincount(inverse, weights=caps).astype(np.int64)
        node = uniq // (cells + 1)
        neighbour_cell = uniq % (cells + 1)
        per_node = np.bincount(node, minlength=n)
        width = int(per_node.max()) if len(per_node) else 0
        starts = np.concatenate([[0], np.cumsum(per_node)[:-1]])
        rank = np.arange(len(uniq)) - starts[node]
        rows = np.full((n, 3 + 2 * width), -1, dtype=np.int64)
        rows[:, 0], rows[:, 1], rows[:, 2] = cell, supply, demand
        rows[node, 3 + 2 * rank] = neighbour_cell
        rows[node, 4 + 2 * rank] = capsum
        _, refined = np.unique(rows, axis=0, return_inverse=True)
        refined = refined.ravel()
        count = int(refined.max()) + 1
        cell = refined
        if count == cells:
            return cell
        cells = count


def _max_hops(f: SwitchPairs, assignment: Assignment, u: np.ndarray, v: np.ndarray, alive: np.ndarray,
              nics: np.ndarray) -> tuple[int, int]:
    """graph_metrics.max_hops_graph on the quotient by twins (switches with the same neighbours).

    Two switches with the same neighbours are at the same distance from every other switch, and
    a path between classes runs through any member of each, so distances between classes are
    the distances between their members. Classes are searched together, one bit per class.
    """
    e = f.r.rails
    # Each switch's neighbours, sorted, as slices of one list (a 131,072-GPU fabric has 260,000
    # linked pairs: sorted once by numpy rather than a list appended per pair).
    ends, others = np.concatenate([u, v]), np.concatenate([v, u])
    order = np.lexsort((others, ends))
    flat = others[order].tolist()
    start = np.searchsorted(ends[order], np.arange(f.n + 1)).tolist()
    twin: dict[tuple[int, ...], int] = {}
    class_of: dict[int, int] = {}
    has_neighbours: dict[int, bool] = {}
    cls = np.full(f.n, -1, dtype=np.int64)
    first: list[int] = []       # the first switch of each class stands for it in the quotient
    for node in np.flatnonzero(alive).tolist():
        row = tuple(flat[start[node]:start[node + 1]])
        c = twin.setdefault(row, len(twin))
        if c == len(first):
            first.append(node)
        class_of[node] = c
        has_neighbours[node] = bool(row)
    cls[list(class_of)] = list(class_of.values())
    # The quotient: each class's neighbour classes, read off its first switch's pairs.
    stands = np.zeros(f.n, dtype=bool)
    stands[first] = True
    by_end = ends[order]
    picked = stands[by_end]
    classes = max(len(twin), 1)
    q_pairs = np.sort(cls[by_end[picked]] * classes + cls[others[order][picked]])
    q_pairs = q_pairs[np.concatenate([[True], q_pairs[1:] != q_pairs[:-1]])] if len(q_pairs) else q_pairs
    quotient: list[set[int]] = [set() for _ in twin]
    for a, b in zip((q_pairs // classes).tolist(), (q_pairs % classes).tolist(), strict=True):
        quotient[a].add(b)
    # Leaves with endpoints, by twin class: (plane, rail) counts, as max_hops_graph keeps them.
    leaf_of = assignment_columns(f, assignment)[0]
    rail_of = np.arange(len(leaf_of), dtype=np.int64) % e
    per_rail = np.bincount(leaf_of * e + rail_of, minlength=f.plan.leaves * e).reshape(f.plan.leaves, e)
    keys_per_leaf = [{rail: k for rail, k in enumerate(row) if k} for row in per_rail.tolist()]
    info: dict[int, dict[str, Any]] = {}
    alive_list, nics_list = alive.tolist(), nics.tolist()
    # Per leaf: its endpoints' rails, whether two share it (both figures are the same in every plane)
    pairs_on_leaf = [(sum(rails.values()) >= 2, any(k >= 2 for k in rails.values())) for rails in keys_per_leaf]
    for plane in range(f.planes):
        base = plane * f.per_plane
        for leaf in range(f.plan.leaves):
            node = base + leaf
            if not alive_list[node] or not nics_list[node]:
                continue
            c = class_of[node]
            entry = info.get(c)
            if entry is None:
                entry = info[c] = {"members": 0, "planes": Counter(), "keys": Counter(), "self": False,
                                   "self_rail": False, "has_neighbours": has_neighbours[node]}
            rails = keys_per_leaf[leaf]
            entry["members"] += 1
            if rails:
                entry["planes"][plane] += 1
            keys = entry["keys"]
            for rail in rails:
                keys[(plane, rail)] += 1
            two, two_on_a_rail = pairs_on_leaf[leaf]
            if two:
                entry["self"] = True
                entry["self_rail"] = entry["self_rail"] or two_on_a_rail
    sources = list(info)
    bit = {c: 1 << i for i, c in enumerate(sources)}
    plane_mask: dict[int, int] = defaultdict(int)
    key_mask: dict[tuple[int, int], int] = defaultdict(int)
    for c, x in info.items():
        for p in x["planes"]:
            plane_mask[p] |= bit[c]
        for k in x["keys"]:
            key_mask[k] |= bit[c]
    worst = worst_rail = 0
    for x in info.values():
        if x["self"]:
            worst = max(worst, 1)
        if x["self_rail"]:
            worst_rail = max(worst_rail, 1)
        if x["members"] >= 2 and x["has_neighbours"]:
            if any(k >= 2 for k in x["planes"].values()):
                worst = max(worst, 3)
            if any(k >= 2 for k in x["keys"].values()):
                worst_rail = max(worst_rail, 3)
    # Breadth-first from every class at once: bit i of a class's mask says that source class i
    # has reached it. A pair counts when the two share a plane (a rail for the rail figure).
    shares_plane = {c: _or(plane_mask[p] for p in x["planes"]) for c, x in info.items()}
    shares_key = {c: _or(key_mask[k] for k in x["keys"]) for c, x in info.items()}
    reached = [0] * len(quotient)
    for c, b in bit.items():
        reached[c] = b
    frontier = dict(bit)
    step = 0
    while frontier:
        step += 1
        incoming: dict[int, int] = defaultdict(int)
        for node, mask in frontier.items():
            for nbr in quotient[node]:
                incoming[nbr] |= mask
        frontier = {}
        for node, mask in incoming.items():
            new = mask & ~reached[node]
            if not new:
                continue
            reached[node] |= new
            frontier[node] = new
            if node in info:
                if new & shares_plane[node]:
                    worst = max(worst, step + 1)
                if new & shares_key[node]:
                    worst_rail = max(worst_rail, step + 1)
    return worst, worst_rail


def _or(masks: Iterable[int]) -> int:
    out = 0
    for m in masks:
        out |= m
    return out


@dataclass(frozen=True)
class PlaneEdits:
    """What the edits leave of one plane, for drawing it: removed switches and edited pairs."""

    removed: dict[str, frozenset[int]]                       # tier -> removed switches (0-based)
    # (lower tier, i, upper tier, j) -> (template links, manual links) left between them
    pairs: dict[tuple[str, int, str, int], tuple[int, int]]

    def __bool__(self) -> bool:
        return any(self.removed.values()) or bool(self.pairs)


def plane_edits(design: FabricDesign, r: Resolved, plan: Plan, plane: int) -> PlaneEdits:
    """The switch edits that fall in `plane`, replayed as `measure_edits` replays them."""
    f = SwitchPairs(plan, r)
    keys, template = f.template_pairs()
    removed, touched, _ = replay_edits(design.edits, f, keys, template)

    def local(node: int) -> tuple[int, str, int]:
        p, rest = divmod(node, f.per_plane)
        tier = ("leaf", "spine", "core")[int(f.level[node]) - 1]
        return p, tier, rest - f.first[tier]

    gone: dict[str, set[int]] = {"leaf": set(), "spine": set(), "core": set()}
    for node in removed:
        p, tier, i = local(node)
        if p == plane:
            gone[tier].add(i)
    pairs = {}
    for key, (base, added) in touched.items():
        (pa, ta, ia), (pb, tb, ib) = local(key // f.n), local(key % f.n)
        if pa == pb == plane:
            if _LEVEL[ta] > _LEVEL[tb]:
                ta, ia, tb, ib = tb, ib, ta, ia
            pairs[(ta, ia, tb, ib)] = (base, added)
    return PlaneEdits({t: frozenset(s) for t, s in gone.items()}, pairs)


def edited_planes(design: FabricDesign, planes: int) -> list[int]:
    """The planes (0-based) that switch edits touch, so that they differ from the template."""
    out = set()
    for edit in design.edits:
        for name in (edit.a, edit.b):
            m = _SWITCH_ID.fullmatch(name or "")
            if m:
                out.add(int(m.group(1)) - 1 if m.group(1) else 0)
    return sorted(p for p in out if p < planes)
