"""The device graph's wiring, read switch by switch from the sizing plan, without building it.

Exports that write one line per port (ibnetdiscover) or per bundle (draw.io) or need only the
servers under each leaf (Slurm) walk this instead of the networkx graph of
designer/model/topology/builders.py: the template's links come from formulas over the plan's
arrays (the same wiring and port numbers as `build_graph`), one switch at a time, and the edits
are replayed (as `apply_edits` replays them) on the few devices they touch, which alone are
held in memory. The order of devices, of each device's neighbours and of the links between two
devices is the graph's, so a writer walking this writes byte for byte what it wrote from the
graph; tests/test_export_streaming.py holds that on generated designs with edits and planes.

Devices are numbered as in edited_fabric.SwitchPairs (plane by plane: leaves, spines, cores),
then the endpoints (NIC ports) after every switch, plane by plane in (server, rail) order. The
graph adds each plane's switches, then its endpoints, plane after plane; `order()` gives that.
A link is `(tier, gbps, lower device, port on it, port on the other)`, as the graph's edge data.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from designer.limits import quote
from designer.model.intent.design import FabricDesign
from designer.model.topology.builders import leaf_assignment
from designer.model.topology.edited_fabric import SwitchPairs
from designer.model.topology.sizing import Plan, Resolved

Link = tuple[str, int, int, int, int]          # (tier, gbps, lower device, port on it, port on the other)
Adjacency = list[tuple[int, list[Link]]]        # (neighbour, its links, in the graph's key order)
ROLES = ("nic", "leaf", "spine", "core")
TIERS = ("node-leaf", "leaf-spine", "spine-core", "manual")


class Wiring:
    """The fabric's devices and links as the builder wires them, edits replayed."""

    def __init__(self, design: FabricDesign, r: Resolved, plan: Plan):
        self.design, self.r, self.plan = design, r, plan
        self.pairs = SwitchPairs(plan, r)
        f = self.pairs
        self._levels: list[int] = f.level.tolist()    # per switch, read often: a list, not numpy
        self._first_of_level = [0, f.first["leaf"], f.first["spine"], f.first["core"]]
        self.n_switches = f.n
        self.planes = r.planes
        self.rails = r.rails
        assignment = leaf_assignment(plan, r.rails)
        self.endpoints = len(assignment)                 # per plane
        self.n = f.n + self.endpoints * self.planes
        self.leaf_of = np.fromiter((a for a, _ in assignment), dtype=np.int64, count=self.endpoints)
        self.port_of = np.fromiter((b for _, b in assignment), dtype=np.int64, count=self.endpoints)
        # Endpoints of each leaf in endpoint order (the order the builder adds their links).
        order = np.argsort(self.leaf_of, kind="stable")
        starts = np.searchsorted(self.leaf_of[order], np.arange(plan.leaves + 1))
        self._nics_of_leaf = order
        self._nic_starts = starts
        self._leaf_spine()
        if plan.tiers == 3:
            self._spine_core()
        self.removed: set[int] = set()
        self._tiers: dict[str, tuple[np.ndarray, ...]] = {}
        self._adj: dict[int, dict[int, dict[int, Link]]] = {}
        self.problems = self._replay(design)

    # --- devices --------------------------------------------------------------------------------

    def is_switch(self, node: int) -> bool:
        return node < self.n_switches

    def level(self, node: int) -> int:
        return self._levels[node] if node < self.n_switches else 0

    def role(self, node: int) -> str:
        return ROLES[self._levels[node]] if node < self.n_switches else "nic"

    def plane(self, node: int) -> int:
        if node < self.n_switches:
            return node // self.pairs.per_plane
        return (node - self.n_switches) // self.endpoints

    def local(self, node: int) -> int:
        """A switch's index within its tier and plane; an endpoint's index within its plane."""
        if node < self.n_switches:
            return node % self.pairs.per_plane - self._first_of_level[self._levels[node]]
        return (node - self.n_switches) % self.endpoints

    def server_port(self, nic: int) -> tuple[int, int]:
        """(server, NIC port) of an endpoint, both from 0; the port counts over every plane."""
        plane, idx = divmod(nic - self.n_switches, self.endpoints)
        server, rail = divmod(idx, self.rails)
        return server, plane * self.rails + rail

    def nic(self, plane: int, idx: int) -> int:
        return self.n_switches + plane * self.endpoints + idx

    def switch(self, plane: int, tier: str, i: int) -> int:
        return plane * self.pairs.per_plane + self.pairs.first[tier] + i

    def name(self, node: int) -> str:
        if node < self.n_switches:
            return self.pairs.name(node)
        server, port = self.server_port(node)
        return f"srv-{server + 1}.nic-{port + 1}"

    def node(self, name: str) -> int | None:
        """The device named `name` (a switch id or `srv-N.nic-P`), or None."""
        found = self.pairs.index(name)
        if found is not None:
            return found
        if not self.pairs.is_nic(name):
            return None
        server, port = (int(x) for x in name[4:].split(".nic-"))
        plane, rail = divmod(port - 1, self.rails)
        return self.nic(plane, (server - 1) * self.rails + rail)

    def pod(self, node: int) -> int:
        """The graph's `pod` of a device (the SU for a rail-optimized fabric; -1 for cores)."""
        plan = self.plan
        lpp = plan.leaves_per_pod if plan.tiers == 3 else plan.leaves
        role, i = self.role(node), self.local(node)
        if role == "leaf":
            return int(plan.leaf_su(i, self.rails)) if plan.rail_su_size else (i // lpp if plan.tiers == 3 else 0)
        if role == "spine":
            return i // plan.spines_per_pod if plan.tiers == 3 else 0
        if role == "core":
            return -1
        server = i // self.rails
        if plan.rail_su_size:
            return server // plan.rail_su_size
        return int(self.leaf_of[i]) // lpp if plan.tiers == 3 else 0

    def nic_pods(self) -> np.ndarray:
        """`pod` of every endpoint of a plane, in endpoint order (the same in every plane)."""
        plan = self.plan
        if plan.rail_su_size:
            return np.arange(self.endpoints, dtype=np.int64) // self.rails // plan.rail_su_size
        if plan.tiers == 3:
            return self.leaf_of // plan.leaves_per_pod
        return np.zeros(self.endpoints, dtype=np.int64)

    def alive(self, node: int) -> bool:
        return node not in self.removed

    def order(self) -> Iterator[int]:
        """Every device left, in the graph's order: each plane's switches, then its endpoints."""
        per_plane, removed = self.pairs.per_plane, self.removed
        for plane in range(self.planes):
            for node in range(plane * per_plane, (plane + 1) * per_plane):
                if node not in removed:
                    yield node
            first = self.nic(plane, 0)
            for node in range(first, first + self.endpoints):
                if node not in removed:
                    yield node

    def leaves_of_servers(self, plane: int) -> np.ndarray:
        """Leaf device of every endpoint of a plane, in endpoint order (template wiring)."""
        return self.leaf_of + plane * self.pairs.per_plane

    @property
    def edited(self) -> frozenset[int]:
        """Devices whose links the edits changed (or that they removed)."""
        return frozenset(self._adj) | frozenset(self.removed)

    # --- the template's links ---------------------------------------------------------------------

    def _leaf_spine(self) -> None:
        plan = self.plan
        sp = plan.spines_per_pod
        lpp = plan.leaves_per_pod if plan.tiers == 3 else plan.leaves
        i = np.arange(plan.leaves, dtype=np.int64)
        pod = i // lpp if plan.tiers == 3 else np.zeros_like(i)
        local = i - pod * lpp
        t = np.arange(sp, dtype=np.int64)
        base, rem = divmod(plan.leaf_up, sp) if sp else (0, 0)   # a one-tier plane has no spine
        count = base + (((t[None, :] - (local * plan.leaf_up)[:, None]) % sp) < rem).astype(np.int64)
        up_start = plan.leaf_down + 1 + np.cumsum(count, axis=1) - count
        down_start = np.ones_like(count)
        for p in range(int(pod.max()) + 1 if len(pod) else 0):
            rows = pod == p
            block = count[rows]
            down_start[rows] = 1 + np.cumsum(block, axis=0) - block
        self._ls = (pod, count, up_start, down_start)

    def _spine_core(self) -> None:
        plan = self.plan
        sp, group = plan.spines_per_pod, plan.core_groups_size
        s = np.arange(plan.spines, dtype=np.int64)
        g = np.arange(group, dtype=np.int64)
        base, rem = divmod(plan.spine_up, group)
        count = base + (((g[None, :] - ((s // sp) * plan.spine_up)[:, None]) % group) < rem).astype(np.int64)
        core = ((s % sp)[:, None] * group + g[None, :]) % plan.cores
        up_start = plan.spine_down + 1 + np.cumsum(count, axis=1) - count
        flat_core, flat_count = core.ravel(), count.ravel()
        # A core's ports count up over the spines in order (and a spine's groups in order).
        order = np.argsort(flat_core, kind="stable")
        ends = np.cumsum(flat_count[order])
        group_start = np.searchsorted(flat_core[order], np.arange(plan.cores))
        before = ends - flat_count[order]
        first_of_core = np.where(group_start < len(order), before[np.minimum(group_start, len(order) - 1)], 0)
        down = np.empty_like(flat_count)
        down[order] = 1 + before - first_of_core[flat_core[order]]
        self._sc = (count, core, up_start, down.reshape(count.shape))
        # Spines feeding each core, in the order their links were added.
        self._spines_of_core = order
        self._core_starts = np.searchsorted(flat_core[order], np.arange(plan.cores + 1))

    def template_adjacency(self, node: int) -> Adjacency:
        """A device's neighbours and links in the unedited fabric, in the graph's order."""
        plan, r = self.plan, self.r
        plane, role, i = self.plane(node), self.role(node), self.local(node)
        s_d, s_u = r.link_gbps, r.uplink_gbps
        out: Adjacency = []
        if role == "nic":
            leaf = self.switch(plane, "leaf", int(self.leaf_of[i]))
            return [(leaf, [("node-leaf", s_d, node, 1, int(self.port_of[i]))])]
        sp = plan.spines_per_pod
        if role == "leaf":
            nics = self._nics_of_leaf[self._nic_starts[i]:self._nic_starts[i + 1]].tolist()
            first = self.nic(plane, 0)
            ports = self.port_of
            out = [(first + k, [("node-leaf", s_d, first + k, 1, int(ports[k]))]) for k in nics]
            pod, count, up, down = self._ls
            spine0 = self.switch(plane, "spine", int(pod[i]) * sp)
            for t in np.flatnonzero(count[i]).tolist():
                a, b = int(up[i, t]), int(down[i, t])
                out.append((spine0 + t, [("leaf-spine", s_u, node, a + k, b + k) for k in range(int(count[i, t]))]))
            return out
        if role == "spine":
            pod, count, up, down = self._ls
            t = i % sp
            leaf0 = self.switch(plane, "leaf", 0)
            for leaf in np.flatnonzero((pod == i // sp) & (count[:, t] > 0)).tolist():
                a, b = int(up[leaf, t]), int(down[leaf, t])
                out.append((leaf0 + leaf, [("leaf-spine", s_u, leaf0 + leaf, a + k, b + k)
                                           for k in range(int(count[leaf, t]))]))
            if plan.tiers == 3:
                c_count, core, c_up, c_down = self._sc
                core0 = self.switch(plane, "core", 0)
                grouped: dict[int, list[Link]] = {}
                for g in np.flatnonzero(c_count[i]).tolist():
                    a, b = int(c_up[i, g]), int(c_down[i, g])
                    grouped.setdefault(core0 + int(core[i, g]), []).extend(
                        ("spine-core", s_u, node, a + k, b + k) for k in range(int(c_count[i, g])))
                out += list(grouped.items())
            return out
        c_count, core, c_up, c_down = self._sc
        group = plan.core_groups_size
        spine0 = self.switch(plane, "spine", 0)
        grouped = {}
        for flat in self._spines_of_core[self._core_starts[i]:self._core_starts[i + 1]].tolist():
            s, g = divmod(flat, group)
            if c_count[s, g]:
                a, b = int(c_up[s, g]), int(c_down[s, g])
                grouped.setdefault(spine0 + s, []).extend(
                    ("spine-core", s_u, spine0 + s, a + k, b + k) for k in range(int(c_count[s, g])))
        return list(grouped.items())

    def adjacency(self, node: int) -> Adjacency:
        """A device's neighbours and links after the edits, in the graph's order."""
        held = self._adj.get(node)
        if held is None:
            return self.template_adjacency(node)
        return [(nbr, list(keys.values())) for nbr, keys in held.items()]

    def neighbours_above(self, node: int) -> list[int]:
        """The devices of a higher tier linked to a switch, in the graph's order."""
        level = self.level(node)
        held = self._adj.get(node)
        if held is not None:
            return [nbr for nbr in held if self.level(nbr) > level]
        plane, role, i = self.plane(node), self.role(node), self.local(node)
        if role == "leaf":
            pod, count, _, _ = self._ls
            spine0 = self.switch(plane, "spine", int(pod[i]) * self.plan.spines_per_pod)
            return (spine0 + np.flatnonzero(count[i])).tolist()
        if role == "spine" and self.plan.tiers == 3:
            c_count, core, _, _ = self._sc
            core0 = self.switch(plane, "core", 0)
            return list(dict.fromkeys((core0 + core[i][c_count[i] > 0]).tolist()))
        return []

    def links_above(self, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(device, neighbour above it) for each of `nodes` (switches of one tier) and each of
        their neighbours of a higher tier, in the order of `nodes` and each one's neighbours:
        `neighbours_above` for many switches at once, from the plan's arrays."""
        lows, ups = [], []
        held = np.fromiter(self._adj, dtype=np.int64, count=len(self._adj)) if self._adj else None
        template = nodes if held is None else nodes[~np.isin(nodes, held)]
        if len(template):
            role = self.role(int(template[0]))
            if role == "leaf" or (role == "spine" and self.plan.tiers == 3):
                starts, above = self._above(role)
                plane, local = np.divmod(template, self.pairs.per_plane)
                local = local - self.pairs.first[role]
                counts = starts[local + 1] - starts[local]
                step = np.arange(int(counts.sum()), dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
                lows.append(np.repeat(template, counts))
                shift = np.repeat(plane, counts) * self.pairs.per_plane
                ups.append(above[np.repeat(starts[local], counts) + step] + shift)
        out_low, out_up = (np.concatenate(lows), np.concatenate(ups)) if lows else (np.zeros(0, np.int64),) * 2
        if held is not None:
            mine = [(v, u) for v in nodes[np.isin(nodes, held)].tolist() for u in self.neighbours_above(v)]
            if mine:
                # keep the order of `nodes`: template rows and held rows merged by position
                extra_low = np.array([v for v, _ in mine], dtype=np.int64)
                extra_up = np.array([u for _, u in mine], dtype=np.int64)
                rank = {v: k for k, v in enumerate(nodes.tolist())}
                low = np.concatenate([out_low, extra_low])
                up = np.concatenate([out_up, extra_up])
                order = np.argsort(np.fromiter((rank[v] for v in low.tolist()), dtype=np.int64, count=len(low)),
                                   kind="stable")
                return low[order], up[order]
        return out_low, out_up

    def _above(self, role: str) -> tuple[np.ndarray, np.ndarray]:
        """Per switch of a tier of the first plane, its neighbours above: (offsets, devices)."""
        if role == "leaf":
            pod, count, _, _ = self._ls
            li, t = np.nonzero(count)
            above = self.switch(0, "spine", 0) + pod[li] * self.plan.spines_per_pod + t
            n = self.plan.leaves
        else:
            c_count, core, _, _ = self._sc
            si, g = np.nonzero(c_count)
            above = self.switch(0, "core", 0) + core[si, g]
            if self.plan.core_groups_size > self.plan.cores:   # a core met twice is one neighbour
                keep = np.ones(len(si), dtype=bool)
                seen: set[tuple[int, int]] = set()
                for k, pair in enumerate(zip(si.tolist(), above.tolist(), strict=True)):
                    keep[k] = pair not in seen
                    seen.add(pair)
                si, above = si[keep], above[keep]
            li = si
            n = self.plan.spines
        return np.searchsorted(li, np.arange(n + 1)), above

    def edges(self) -> Iterator[tuple[int, int, list[Link]]]:
        """(device, neighbour, links) of every linked pair once, in the graph's edge order.

        An endpoint's only link in the template goes to a leaf that comes before it, so only
        the endpoints the edits touched are visited."""
        seen: set[int] = set()
        touched_nics = {n for n in self._adj if n >= self.n_switches}
        for node in self.order():
            if node >= self.n_switches and node not in touched_nics:
                continue
            for nbr, links in self.adjacency(node):
                if nbr not in seen:
                    yield node, nbr, links
            seen.add(node)

    def template_blocks(self, node: int) -> list[tuple[np.ndarray, np.ndarray, int, int, bool]]:
        """A device's template links by neighbour, as arrays: blocks of (neighbours, links to
        each, tier code in TIERS, Gb/s, whether the neighbour is the lower end), in the graph's
        order. No Python object per link: this is what a walk over every link of a large
        fabric reads."""
        plan, r = self.plan, self.r
        plane, role, i = self.plane(node), self.role(node), self.local(node)
        s_d, s_u = r.link_gbps, r.uplink_gbps
        sp = plan.spines_per_pod
        if role == "nic":
            return [(np.array([self.switch(plane, "leaf", int(self.leaf_of[i]))]), np.ones(1, dtype=np.int64),
                     0, s_d, False)]
        if role == "leaf":
            nics = self.nic(plane, 0) + self._nics_of_leaf[self._nic_starts[i]:self._nic_starts[i + 1]]
            pod, count, _, _ = self._ls
            spines = np.flatnonzero(count[i])
            return [(nics, np.ones(len(nics), dtype=np.int64), 0, s_d, True),
                    (self.switch(plane, "spine", int(pod[i]) * sp) + spines, count[i][spines], 1, s_u, False)]
        if role == "spine":
            pod, count, _, _ = self._ls
            t = i % sp
            leaves = np.flatnonzero((pod == i // sp) & (count[:, t] > 0))
            out = [(self.switch(plane, "leaf", 0) + leaves, count[leaves, t], 1, s_u, True)]
            if plan.tiers == 3:
                c_count, core, _, _ = self._sc
                used = c_count[i] > 0
                cores, links = core[i][used], c_count[i][used]
                if plan.core_groups_size > plan.cores:    # a core met twice: one neighbour
                    cores, first, inverse = np.unique(cores, return_index=True, return_inverse=True)
                    links = np.bincount(inverse.ravel(), weights=links).astype(np.int64)
                    order = np.argsort(first, kind="stable")
                    cores, links = cores[order], links[order]
                out.append((self.switch(plane, "core", 0) + cores, links, 2, s_u, False))
            return out
        c_count, _, _, _ = self._sc
        group = plan.core_groups_size
        flat = self._spines_of_core[self._core_starts[i]:self._core_starts[i + 1]]
        links = c_count.ravel()[flat]
        flat, links = flat[links > 0], links[links > 0]
        spines = flat // group
        if group > plan.cores:
            spines, first, inverse = np.unique(spines, return_index=True, return_inverse=True)
            links = np.bincount(inverse.ravel(), weights=links).astype(np.int64)
            order = np.argsort(first, kind="stable")
            spines, links = spines[order], links[order]
        return [(self.switch(plane, "spine", 0) + spines, links, 2, s_u, True)]

    def ports(self, node: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Every link at a device as arrays (peer, own port, peer's port, Gb/s); sort by port
        for the order of the device's cages."""
        held = self._adj.get(node)
        if held is not None:
            rows = [(nbr, lk[3] if lk[2] == node else lk[4], lk[4] if lk[2] == node else lk[3], lk[1])
                    for nbr, keys in held.items() for lk in keys.values()]
            if not rows:
                empty = np.zeros(0, dtype=np.int64)
                return empty, empty, empty, empty
            peers, own, other, gbps = (np.array(col, dtype=np.int64) for col in zip(*rows, strict=True))
            return peers, own, other, gbps
        plane, role, i = self.plane(node), self.role(node), self.local(node)
        if role == "nic":
            leaf = np.array([self.switch(plane, "leaf", int(self.leaf_of[i]))])
            return leaf, np.ones(1, dtype=np.int64), self.port_of[i:i + 1], np.array([self.r.link_gbps])
        found = self._tiers.get(role)
        if found is None:
            found = self._tiers[role] = self._tier_ports(role)
        starts, peers, own, other, gbps = found
        a, b = starts[i], starts[i + 1]
        peers = peers[a:b]
        if plane:
            peers = peers + np.where(peers >= self.n_switches, plane * self.endpoints, plane * self.pairs.per_plane)
        return peers, own[a:b], other[a:b], gbps[a:b]

    def _tier_ports(self, role: str) -> tuple[np.ndarray, ...]:
        """The links of every switch of a tier of the first plane, by switch: (offsets, peers,
        own ports, peers' ports, Gb/s), from the plan's arrays in a few numpy passes."""
        plan, r = self.plan, self.r
        sp = plan.spines_per_pod
        first = self.pairs.first
        owners: list[np.ndarray] = []
        peers: list[np.ndarray] = []
        own: list[np.ndarray] = []
        other: list[np.ndarray] = []
        gbps: list[np.ndarray] = []

        def expand(owner: np.ndarray, peer: np.ndarray, own_start: np.ndarray, other_start: np.ndarray,
                   counts: np.ndarray, speed: int) -> None:
            total = int(counts.sum())
            step = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
            owners.append(np.repeat(owner, counts))
            peers.append(np.repeat(peer, counts))
            own.append(np.repeat(own_start, counts) + step)
            other.append(np.repeat(other_start, counts) + step)
            gbps.append(np.full(total, speed, dtype=np.int64))

        pod, count, up, down = self._ls
        li, t = np.nonzero(count)                      # leaf-spine pairs, leaf by leaf
        spine = pod[li] * sp + t
        if role == "leaf":
            nics = self._nics_of_leaf
            expand(self.leaf_of[nics], self.n_switches + nics, self.port_of[nics], np.ones(len(nics), dtype=np.int64),
                   np.ones(len(nics), dtype=np.int64), r.link_gbps)
            expand(li, first["spine"] + spine, up[li, t], down[li, t], count[li, t], r.uplink_gbps)
            n = plan.leaves
        elif role == "spine":
            expand(spine, first["leaf"] + li, down[li, t], up[li, t], count[li, t], r.uplink_gbps)
            if plan.tiers == 3:
                c_count, core, c_up, c_down = self._sc
                si, g = np.nonzero(c_count)
                expand(si, first["core"] + core[si, g], c_up[si, g], c_down[si, g], c_count[si, g], r.uplink_gbps)
            n = plan.spines
        else:
            c_count, core, c_up, c_down = self._sc
            si, g = np.nonzero(c_count)
            expand(core[si, g], first["spine"] + si, c_down[si, g], c_up[si, g], c_count[si, g], r.uplink_gbps)
            n = plan.cores
        owner = np.concatenate(owners)
        order = np.argsort(owner, kind="stable")
        starts = np.searchsorted(owner[order], np.arange(n + 1))
        return (starts, np.concatenate(peers)[order], np.concatenate(own)[order], np.concatenate(other)[order],
                np.concatenate(gbps)[order])

    def edge_blocks(self) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, int, int]]:
        """Every link once, in the graph's edge order, as blocks of arrays: (lower devices,
        upper devices, links between them, tier code in TIERS, Gb/s). The lower device is the
        graph's `a`: the one of the lower tier (or the first named by a manual edit)."""
        seen = np.zeros(self.n, dtype=bool)
        touched_nics = {n for n in self._adj if n >= self.n_switches}
        tier_code = {t: k for k, t in enumerate(TIERS)}
        one = np.ones(1, dtype=np.int64)
        for node in self.order():
            if node >= self.n_switches and node not in touched_nics:
                continue
            held = self._adj.get(node)
            if held is None:
                for nbrs, counts, tier, gbps, nbr_lower in self.template_blocks(node):
                    fresh = ~seen[nbrs]
                    nbrs, counts = nbrs[fresh], counts[fresh]
                    if len(nbrs):
                        mine = np.full(len(nbrs), node, dtype=np.int64)
                        yield (nbrs, mine, counts, tier, gbps) if nbr_lower else (mine, nbrs, counts, tier, gbps)
            else:
                for nbr, keys in held.items():
                    if seen[nbr]:
                        continue
                    for tier_name, speed, a, _, _ in keys.values():
                        other = nbr if a == node else node
                        yield np.array([a]), np.array([other]), one, tier_code[tier_name], speed
            seen[node] = True

    # --- the edits ---------------------------------------------------------------------------------

    def _hold(self, node: int) -> dict[int, dict[int, Link]]:
        held = self._adj.get(node)
        if held is None:
            # A neighbour already held shares its key dict for the pair, as both ends of a
            # graph edge do (the pair is as the template made it, or this device would be held).
            held = self._adj[node] = {}
            for nbr, links in self.template_adjacency(node):
                other = self._adj.get(nbr)
                held[nbr] = other[node] if other is not None and node in other else dict(enumerate(links))
        return held

    def _replay(self, design: FabricDesign) -> tuple[str, ...]:
        """builders.apply_edits on the devices the edits touch."""
        problems: list[str] = []
        next_port: dict[int, int] = {}
        gbps = self.r.uplink_gbps

        def take_port(node: int) -> int:
            if node not in next_port:
                used = [lk[3] if lk[2] == node else lk[4] for keys in self._hold(node).values() for lk in keys.values()]
                next_port[node] = max(used, default=0) + 1
            next_port[node] += 1
            return next_port[node] - 1

        for n, edit in enumerate(design.edits, start=1):
            names = (edit.a,) if edit.op == "remove-device" else (edit.a, edit.b)
            nodes = [self.node(x) if x else None for x in names]
            missing = [x for x, node in zip(names, nodes, strict=True) if node is None or node in self.removed]
            if missing:
                problems.append(f"edit {n} ({edit.op}) names unknown device {quote(missing[0], 60)}")
                continue
            ends = [node for node in nodes if node is not None]   # every one known, checked above
            if edit.op == "remove-device":
                gone = ends[0]
                for nbr in list(self._hold(gone)):
                    self._hold(nbr).pop(gone, None)
                del self._adj[gone]
                self.removed.add(gone)
                next_port.pop(gone, None)
            elif edit.op == "add-links":
                if edit.a == edit.b:
                    problems.append(f"edit {n} (add-links) links {quote(edit.a, 60)} to itself")
                    continue
                lo, hi = sorted(ends, key=self.level)
                for _ in range(edit.count):
                    link = ("manual", gbps, lo, take_port(lo), take_port(hi))
                    keys = self._hold(lo).get(hi)
                    if keys is None:
                        keys = self._hold(lo)[hi] = {}
                        self._hold(hi)[lo] = keys
                    key = len(keys)
                    while key in keys:
                        key += 1
                    keys[key] = link
            elif edit.op == "remove-links":
                a, b = ends
                self._hold(b)
                keys = self._hold(a).get(b)
                have = list(keys) if keys else []
                if len(have) < edit.count:
                    problems.append(f"edit {n} removes {edit.count} links between {quote(edit.a, 60)} and "
                                    f"{quote(edit.b, 60)}, which have {len(have)}")
                if keys is None:
                    continue
                for key in have[-edit.count:]:
                    del keys[key]
                if not keys:
                    del self._adj[a][b]
                    del self._adj[b][a]
        return tuple(problems)
