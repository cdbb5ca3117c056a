"""What placing and auditing a capture needs to know of a design, without its device graph.

A `DesignView` holds every device with the attributes the graph builder gives it (role, level,
plane, pod, rail, index, and for NICs server and port), the host links as (NIC, leaf, leaf
port, rate), and the switch links as pairs with their link count. A template design's view is
read off its sizing plan in closed form (`leaf_assignment` for the host ports, the template's
switch pairs as arrays), so a 131,072-GPU capture is audited without building the per-link
graph; an edited design's view is read off its graph, where the edits are. The two are held
equal by a property test.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

import numpy as np

from designer.model.common.arrays import sorted_distinct
from designer.model.common.made_when_read import MadeWhenRead
from designer.model.topology.builders import leaf_assignment, nic_id, plane_prefix

# The leaf port of a host link that may be on any port of its leaf (one added by an edit).
ANY_PORT = 0


@dataclass
class DesignView:
    nodes: dict[str, dict[str, Any]] = field(default_factory=dict)
    host_links: Sequence[tuple[str, str, int, int]] = field(default_factory=list)  # (nic, leaf, leaf port, gbps)
    pairs: dict[tuple[str, str], tuple[int, int, str]] = field(default_factory=dict)  # (lower, upper) -> n, gbps, tier
    _below: dict[str, set[str]] | None = None
    _arrays: DesignArrays | None = None

    def __contains__(self, node: object) -> bool:
        return node in self.nodes

    def role(self, node: str) -> str:
        return str(self.nodes[node]["role"])

    def below(self, node: str) -> set[str]:
        """The switch's lower neighbours (leaves of a spine, spines of a core)."""
        if self._below is None:
            below: dict[str, set[str]] = {}
            for lo, hi in self.pairs:
                below.setdefault(hi, set()).add(lo)
            self._below = below
        return self._below.get(node, set())

    def by_role(self, role: str) -> list[str]:
        return [n for n, d in self.nodes.items() if d["role"] == role]

    def arrays_if_made(self) -> DesignArrays | None:
        return self._arrays

    def arrays(self) -> DesignArrays:
        """The view as codes and columns, made once (the audit compares a capture on them)."""
        if self._arrays is None:
            self._arrays = _arrays_of(self)
        return self._arrays


@dataclass(frozen=True)
class DesignArrays:
    """A design view as columns: node i is `names[i]`; host links and switch pairs by node code.

    Host links are in the view's order; pairs are sorted by their key lo * len(names) + hi, with
    `pair_order` the position of each in the view's own order (the audit reports in it)."""

    names: list[str]
    code: dict[str, int]
    level: np.ndarray            # per node
    leaf: np.ndarray             # per node: a leaf
    nic: np.ndarray              # per node: a NIC
    host_nic: np.ndarray         # per host link: its NIC, leaf, leaf port and rate
    host_leaf: np.ndarray
    host_port: np.ndarray
    host_gbps: np.ndarray
    host_server: np.ndarray      # per host link: its NIC's server, coded by the name it carries
    host_server_index: np.ndarray  # per host link: its NIC's server as the design numbers it
    row_of: np.ndarray           # per node: its host link (NICs), else -1
    pair_key: np.ndarray
    pair_links: np.ndarray
    pair_gbps: np.ndarray
    pair_order: np.ndarray
    pair_leaf_spine: np.ndarray  # per pair: of the leaf-spine tier
    one_link_per_nic: bool       # no NIC has two host links (an edit can add one)
    nic_server: np.ndarray       # per node: a NIC's server as the design numbers it, else -1
    nic_port: np.ndarray         # per node: a NIC's port on its server (plane * rails + rail), else -1


def _arrays_of(view: DesignView) -> DesignArrays:
    names = list(view.nodes)
    code = {n: i for i, n in enumerate(names)}
    data = list(view.nodes.values())
    level = np.array([d["level"] for d in data], dtype=np.int64)
    leaf = np.array([d["role"] == "leaf" for d in data], dtype=bool)
    nic = np.array([d["role"] == "nic" for d in data], dtype=bool)
    hl = view.host_links
    host_nic = np.array([code[h[0]] for h in hl], dtype=np.int64)
    host_leaf = np.array([code[h[1]] for h in hl], dtype=np.int64)
    host_port = np.array([h[2] for h in hl], dtype=np.int64)
    host_gbps = np.array([h[3] for h in hl], dtype=np.float64)
    servers: dict[str, int] = {}
    host_server = np.array([servers.setdefault(h[0].split(".nic-")[0], len(servers)) for h in hl], dtype=np.int64)
    host_server_index = np.array([view.nodes[h[0]]["server"] for h in hl], dtype=np.int64)
    row_of = np.full(len(names), -1, dtype=np.int64)
    row_of[host_nic] = np.arange(len(hl), dtype=np.int64)
    one_link_per_nic = len(sorted_distinct(host_nic)) == len(host_nic)
    n = max(1, len(names))
    keys = np.array([code[lo] * n + code[hi] for lo, hi in view.pairs], dtype=np.int64)
    links = np.array([v[0] for v in view.pairs.values()], dtype=np.int64)
    gbps = np.array([v[1] for v in view.pairs.values()], dtype=np.float64)
    leaf_spine = np.array([v[2] == "leaf-spine" for v in view.pairs.values()], dtype=bool)
    order = np.argsort(keys, kind="stable")
    nic_server = np.array([d["server"] if d["role"] == "nic" else -1 for d in data], dtype=np.int64)
    nic_port = np.array([d["port"] if d["role"] == "nic" else -1 for d in data], dtype=np.int64)
    return DesignArrays(names, code, level, leaf, nic, host_nic, host_leaf, host_port, host_gbps, host_server,
                        host_server_index, row_of, keys[order], links[order], gbps[order], order,
                        leaf_spine[order], one_link_per_nic, nic_server, nic_port)


class _PairNames:
    """A template's pair i, named as the graph builder names its switches."""

    def __init__(self, f: Any, keys: np.ndarray, counts: np.ndarray, nodes: dict[str, dict[str, Any]],
                 gbps: Any) -> None:
        self.f, self.keys, self.counts, self.nodes, self.gbps = f, keys, counts, nodes, gbps
        self.names: dict[int, str] = {}

    def entries(self, rows: Iterable[int]) -> Iterator[tuple[tuple[str, str], tuple[int, int, str]]]:
        f, names, nodes = self.f, self.names, self.nodes
        keys, counts = self.keys.tolist(), self.counts.tolist()
        for i in rows:
            u, v = divmod(keys[i], f.n)
            a = names.get(u) or names.setdefault(u, f.name(u))
            b = names.get(v) or names.setdefault(v, f.name(v))
            lo, hi = (a, b) if nodes[a]["level"] < nodes[b]["level"] else (b, a)
            tier = "leaf-spine" if nodes[lo]["role"] == "leaf" else "spine-core"
            yield (lo, hi), (int(counts[i]), self.gbps, tier)


class PlanPairs(MadeWhenRead[tuple[str, str], tuple[int, int, str]]):
    """A template view's pairs, (lower, upper) -> (links, Gb/s, tier) in the template's order,
    named when first read as a whole; `some` names only the pairs asked for."""

    def __init__(self, names: _PairNames) -> None:
        super().__init__()
        self._names: _PairNames | None = names

    def made(self) -> bool:
        return self._names is None

    def some(self, rows: Iterable[int]) -> dict[tuple[str, str], tuple[int, int, str]]:
        """The pairs at these positions of the template's order, in the order given."""
        if self._names is None:
            every = list(dict.keys(self))
            return {every[i]: dict.__getitem__(self, every[i]) for i in rows}
        return dict(self._names.entries(rows))

    def _make(self) -> None:
        names = self._names
        if names is not None:
            self._names = None
            dict.update(self, names.entries(range(len(names.keys))))

    def __len__(self) -> int:
        return len(self._names.keys) if self._names is not None else dict.__len__(self)


def view_from_graph(g: Any) -> DesignView:
    view = DesignView({n: dict(d) for n, d in g.nodes(data=True)})
    host_links: list[tuple[str, str, int, int]] = []
    view.host_links = host_links
    pairs: Counter[tuple[str, str]] = Counter()
    rate: dict[tuple[str, str], tuple[int, str]] = {}
    for u, v, d in g.edges(data=True):
        if d["tier"] == "node-leaf" or "nic" in (g.nodes[u]["role"], g.nodes[v]["role"]):
            nic, leaf = (u, v) if g.nodes[u]["role"] == "nic" else (v, u)
            # A host link added by an edit (a cable the audit found off its position, in an
            # imported design) names its leaf, not a port: the edit takes a spare one.
            port = ANY_PORT if d["tier"] == "manual" else d["pb"] if d["a"] == nic else d["pa"]
            host_links.append((nic, leaf, port, d["gbps"]))
        else:
            lo, hi = (u, v) if g.nodes[u]["level"] < g.nodes[v]["level"] else (v, u)
            pairs[(lo, hi)] += 1
            rate[(lo, hi)] = (d["gbps"], d["tier"])
    view.pairs = {p: (n, *rate[p]) for p, n in pairs.items()}
    return view


def view_from_plan(derived: Any) -> DesignView:
    """The view of a template design (no edits), in closed form from its plan. Its devices are
    columns (`PlanNodes`) and its host links rows of them (`PlanHostLinks`): a device's record
    is made when it is read, and the audit reads the few a finding names (150,000 devices at
    131K GPUs)."""
    from designer.model.topology.edited_fabric import SwitchPairs

    r, plan = derived.resolved, derived.plan
    e, planes = r.rails, r.planes
    leaves_per_pod = plan.leaves_per_pod if plan.tiers == 3 else plan.leaves
    cores = plan.cores if plan.tiers == 3 else 0
    assign = leaf_assignment(plan, e)
    names: list[str] = []
    for plane in range(planes):
        pre = plane_prefix(plane, planes)
        names += [f"{pre}leaf-{i + 1}" for i in range(plan.leaves)]
        names += [f"{pre}spine-{i + 1}" for i in range(plan.spines)]
        names += [f"{pre}core-{i + 1}" for i in range(cores)]
        # Names made once per NIC port, not per NIC: 131,072 NICs at 131K GPUs.
        nic_suffix = [nic_id(0, plane * e + rail).removeprefix("srv-1") for rail in range(e)]
        names += [f"srv-{server + 1}{suffix}" for server in range(len(assign) // max(1, e)) for suffix in nic_suffix]
        names += [f"srv-{len(assign) // max(1, e) + 1}{nic_suffix[rail]}" for rail in range(len(assign) % max(1, e))]
    view = DesignView()
    view.nodes = PlanNodes(names, _PlanRecords(plan, r, e, planes, cores, leaves_per_pod, assign))
    view.host_links = PlanHostLinks(view.nodes, r.link_gbps)
    f = SwitchPairs(plan, r)
    keys, counts = f.template_pairs()
    # The pairs' names are made when first read: the audit compares them as arrays, and names
    # only those that differ (262,144 pairs at 131K GPUs).
    view.pairs = PlanPairs(_PairNames(f, keys, counts, view.nodes, r.uplink_gbps))
    view._arrays = _plan_arrays(view, plan, e, planes, cores, f, keys, counts, r.link_gbps, r.uplink_gbps)
    view.host_links.arrays = view._arrays
    return view


class _PlanRecords:
    """A template's device records as the graph builder gives them, made from the plan one at a
    time: per plane its leaves, spines, cores, then its NICs in (server, rail) order."""

    def __init__(self, plan: Any, r: Any, rails: int, planes: int, cores: int, leaves_per_pod: int,
                 assign: tuple[tuple[int, int], ...]) -> None:
        self.plan, self.r, self.rails, self.planes, self.cores = plan, r, rails, planes, cores
        self.leaves_per_pod, self.assign = leaves_per_pod, assign
        self.block = plan.leaves + plan.spines + cores + len(assign)

    def record(self, code: int) -> dict[str, Any]:
        plan, r, e = self.plan, self.r, self.rails
        plane, i = divmod(code, self.block)
        if i < plan.leaves:
            pod = plan.leaf_su(i, e) if plan.rail_su_size else (i // self.leaves_per_pod if plan.tiers == 3 else 0)
            return {"role": "leaf", "level": 1, "plane": plane, "pod": pod, "index": i,
                    "rail": plan.leaf_rail(i, e) if plan.rail_su_size else -1, "model": r.leaf_switch.id}
        i -= plan.leaves
        if i < plan.spines:
            return {"role": "spine", "level": 2, "plane": plane, "index": i, "rail": -1,
                    "pod": i // plan.spines_per_pod if plan.tiers == 3 else 0, "model": r.spine_switch.id}
        i -= plan.spines
        if i < self.cores:
            return {"role": "core", "level": 3, "plane": plane, "pod": -1, "index": i, "rail": -1,
                    "model": r.core_switch.id}
        idx = i - self.cores
        server, rail = divmod(idx, e)
        leaf = self.assign[idx][0]
        su_size = plan.rail_su_size
        pod = server // su_size if su_size else (leaf // self.leaves_per_pod if plan.tiers == 3 else 0)
        return {"role": "nic", "level": 0, "plane": plane, "pod": pod, "index": idx, "rail": rail,
                "server": server, "port": plane * e + rail}

    def host_link(self, code: int) -> tuple[int, int]:
        """(leaf code, leaf port) of the NIC of this code."""
        plan = self.plan
        plane, i = divmod(code, self.block)
        leaf, port = self.assign[i - plan.leaves - plan.spines - self.cores]
        return plane * self.block + leaf, port

    def nic_codes(self) -> Iterator[int]:
        """The NICs' codes, in the order of their host links."""
        switches = self.block - len(self.assign)
        for plane in range(self.planes):
            yield from range(plane * self.block + switches, (plane + 1) * self.block)


class PlanNodes(MadeWhenRead[str, dict[str, Any]]):
    """A template view's devices, name -> record, in the builder's order: a record is made when
    it is read, all of them when the whole is read (iterated, compared, copied)."""

    def __init__(self, names: list[str], records: _PlanRecords) -> None:
        super().__init__()
        self.names = names
        self.code = {name: i for i, name in enumerate(names)}
        self.records: _PlanRecords | None = records

    def _make(self) -> None:
        records = self.records
        if records is not None:
            made = {name: dict.get(self, name) or records.record(i) for i, name in enumerate(self.names)}
            self.records = None
            dict.clear(self)
            dict.update(self, made)

    def __getitem__(self, name: str) -> dict[str, Any]:
        if self.records is None or dict.__contains__(self, name):
            return dict.__getitem__(self, name)
        made = self.records.record(self.code[name])
        dict.__setitem__(self, name, made)
        return made

    def get(self, name: str, default: Any = None) -> Any:
        return self[name] if name in self.code else default

    def __contains__(self, name: object) -> bool:
        return name in self.code

    def __len__(self) -> int:
        return len(self.names)

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)



class PlanHostLinks(Sequence[tuple[str, str, int, int]]):
    """A template view's host links, (NIC, leaf, leaf port, Gb/s) in the builder's order, each
    made when read (131,072 at 131K GPUs)."""

    def __init__(self, nodes: PlanNodes, gbps: Any) -> None:
        self.nodes, self.gbps = nodes, gbps
        self.arrays: DesignArrays | None = None
        self._records = nodes.records
        self._codes: list[int] | None = None

    def _nic_codes(self) -> list[int]:
        if self._codes is None:
            assert self._records is not None
            self._codes = list(self._records.nic_codes())
        return self._codes

    def _row(self, i: int) -> tuple[str, str, int, int]:
        names, da = self.nodes.names, self.arrays
        if da is not None:
            return names[int(da.host_nic[i])], names[int(da.host_leaf[i])], int(da.host_port[i]), self.gbps
        assert self._records is not None
        nic = self._nic_codes()[i]
        leaf, port = self._records.host_link(nic)
        return names[nic], names[leaf], port, self.gbps

    def __len__(self) -> int:
        return len(self._nic_codes()) if self.arrays is None else len(self.arrays.host_nic)

    @overload
    def __getitem__(self, i: int) -> tuple[str, str, int, int]: ...

    @overload
    def __getitem__(self, i: slice) -> list[tuple[str, str, int, int]]: ...

    def __getitem__(self, i: int | slice) -> tuple[str, str, int, int] | list[tuple[str, str, int, int]]:
        if isinstance(i, slice):
            return [self._row(j) for j in range(*i.indices(len(self)))]
        n = len(self)
        if not -n <= i < n:
            raise IndexError(i)
        return self._row(i % n)

    def __iter__(self) -> Iterator[tuple[str, str, int, int]]:
        da = self.arrays
        if da is None:
            for i in range(len(self)):
                yield self._row(i)
            return
        names, gbps = self.nodes.names, self.gbps
        for nic, leaf, port in zip(da.host_nic.tolist(), da.host_leaf.tolist(), da.host_port.tolist(), strict=True):
            yield names[nic], names[leaf], port, gbps

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(list(self))


def _plan_arrays(view: DesignView, plan: Any, rails: int, planes: int, cores: int, f: Any, keys: np.ndarray,
                 counts: np.ndarray, link_gbps: float, uplink_gbps: float) -> DesignArrays:
    """A template's view as columns, from its plan: each plane's leaves, spines, cores, then its
    NICs in (server, rail) order, as `view_from_plan` names them (held equal to `_arrays_of`)."""
    assign = np.array(leaf_assignment(plan, rails), dtype=np.int64).reshape(-1, 2)
    switches, nics = plan.leaves + plan.spines + cores, len(assign)
    block = switches + nics
    nodes = view.nodes
    names = nodes.names if isinstance(nodes, PlanNodes) else list(nodes)
    if len(names) != planes * block or f.per_plane != switches:
        return _arrays_of(view)
    n = len(names)
    base = np.arange(planes, dtype=np.int64) * block
    one = np.concatenate([np.full(plan.leaves, 1), np.full(plan.spines, 2), np.full(cores, 3),
                          np.zeros(nics)]).astype(np.int64)
    level = np.tile(one, planes)
    host_nic = (base[:, None] + switches + np.arange(nics, dtype=np.int64)[None, :]).ravel()
    host_leaf = (base[:, None] + assign[:, 0][None, :]).ravel()
    server = np.tile(np.arange(nics, dtype=np.int64) // max(1, rails), planes)
    row_of = np.full(n, -1, dtype=np.int64)
    row_of[host_nic] = np.arange(len(host_nic), dtype=np.int64)
    u, v = np.divmod(keys, f.n)
    cu = (u // f.per_plane) * block + u % f.per_plane
    cv = (v // f.per_plane) * block + v % f.per_plane
    low_first = level[cu] < level[cv]
    lo, hi = np.where(low_first, cu, cv), np.where(low_first, cv, cu)
    pair_key = lo * max(1, n) + hi
    order = np.argsort(pair_key, kind="stable")
    nic_server = np.full(n, -1, dtype=np.int64)
    nic_server[host_nic] = server
    nic_port = np.full(n, -1, dtype=np.int64)
    nic_port[host_nic] = (np.arange(planes, dtype=np.int64)[:, None] * rails
                          + (np.arange(nics, dtype=np.int64) % max(1, rails))[None, :]).ravel()
    code = nodes.code if isinstance(nodes, PlanNodes) else {name: i for i, name in enumerate(names)}
    return DesignArrays(names, code, level, level == 1, level == 0, host_nic,
                        host_leaf, np.tile(assign[:, 1], planes), np.full(len(host_nic), link_gbps, dtype=np.float64),
                        server, server, row_of, pair_key[order], counts.astype(np.int64)[order],
                        np.full(len(order), uplink_gbps, dtype=np.float64), order, (level[lo] == 1)[order], True,
                        nic_server, nic_port)


def design_view(derived: Any) -> DesignView:
    """The template's view in closed form; an edited design's from its graph. Kept with the
    derived design: the audit and its impact both ask."""
    cached = getattr(derived, "__dict__", {}).get("_design_view")
    if isinstance(cached, DesignView):
        return cached
    view = view_from_plan(derived) if not derived.design.edits else view_from_graph(derived.graph)
    if hasattr(derived, "__dict__"):
        derived.__dict__["_design_view"] = view
    return view
