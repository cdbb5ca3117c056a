"""Placing a capture on a design: which as-built device is which design device.

Names in a real capture are unreliable (default HCA descriptions, site naming, servers absent),
so devices are placed by where they are cabled, the way the design's wiring rule places them:

- leaves fall into groups (SUs): two leaves belong together when many hosts have HCAs on both;
  leaves whose hosts carry no name join the group their name's numbers point to;
- a leaf's rail is the HCA index most of its hosts use on it, whatever the naming (mlx5_4,
  HCA-5), ranked among the indices the compute hosts use;
- groups pair with the design's groups in order (host names, then leaf names), and within a
  group leaves pair by rail;
- a host is the design server whose NIC positions (leaf, port) most of its HCAs occupy; where a
  design leaf holds several HCAs of each server, a free server of the leaf most of its HCAs are
  on, whatever ports they use (the design's port order is no rule a site follows);
- a named HCA is its server's NIC of the same rank; a default-named HCA is the NIC designed at
  the leaf port it is plugged into, when that NIC is not already someone else's;
- spines and cores pair with the design switches whose lower neighbours they share most, then
  in name order (switches with the same neighbours are interchangeable in the wiring rule);
- management HCAs (hosts named unlike the compute hosts, with fewer HCAs) and SHARP
  aggregation nodes are set apart: they are part of no design.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from designer.model.topology.asbuilt import (
    KIND_HOST,
    AsBuilt,
    Device,
    DeviceTable,
    LinkEnds,
    device_table,
    link_ends,
    natural_key,
)
from designer.model.topology.capture_groups import (
    LEAF,
    NIC,
    ROLE_CODE,
    SPINE,
    GroupView,
    LeafEndRows,
    group_view_on_arrays,
    leaf_end_rows,
    order_groups,
    shares_of,
    shares_on_arrays,
    slot_counts,
    union_groups,
)
from designer.model.topology.capture_upper import place_upper, place_upper_by_objects, switch_names
from designer.model.topology.design_view import DesignView, view_from_graph

ROLES = ("leaf", "spine", "core")
_DIGITS = re.compile(r"\d+", re.ASCII)


@dataclass
class Placement:
    """Where each as-built device sits in the design."""

    mapping: dict[str, str] = field(default_factory=dict)        # as-built id -> design node
    server_of_host: dict[str, int] = field(default_factory=dict)  # host name -> design server (0-based)
    management: list[str] = field(default_factory=list)          # as-built ids set apart
    attributed: dict[str, int] = field(default_factory=dict)     # default-named HCA id -> design server
    unplaced: list[tuple[str, str, int]] = field(default_factory=list)  # (HCA id, leaf id, leaf port)
    rank: dict[int, int] = field(default_factory=dict)           # HCA index -> rail rank
    groups: list[list[str]] = field(default_factory=list)        # as-built leaf groups, design order
    group_size: int = 0                                          # most common hosts per group
    # HCAs placed by the leaf they are on, not by its port: an inferred design of one-HCA servers
    # cannot know the site's port plan (hosts on ports 1-16 and the even ports above), so a host
    # on its leaf is where the design wants it whatever the port.
    by_leaf: set[str] = field(default_factory=set)
    # HCAs in place on any port of the leaf they are on, when it is their designed leaf: a leaf
    # holding several HCAs of each server (a leaf-spine of two-HCA servers) numbers its ports
    # as the site plans, so a server is placed by its HCAs' names, not by their ports.
    any_port: set[str] = field(default_factory=set)


def name_stem(host: str) -> str:
    """A host name with its numbers blanked: 'dgx-h100-042' -> 'dgx-h#-#'."""
    return _DIGITS.sub("#", host.lower())


def management_hosts(fabric: AsBuilt, roles: dict[str, str]) -> set[str]:
    """Hosts that are not compute servers: named unlike most hosts and with fewer HCAs than most.

    Both are asked, so a compute server with ports down (fewer HCAs, same naming) stays a server
    and a site that names its servers two ways keeps both.
    """
    per_host = _hcas_per_host(fabric, roles)
    if not per_host:
        return _spine_hosts(fabric, roles)
    stems = Counter[str]()
    for host, n in per_host.items():
        stems[name_stem(host)] += n
    main_stem = stems.most_common(1)[0][0]
    usual = Counter(per_host.values()).most_common(1)[0][0]
    return {h for h, n in per_host.items() if name_stem(h) != main_stem and n < usual} | _spine_hosts(fabric, roles)


def _hcas_per_host(fabric: AsBuilt, roles: dict[str, str]) -> dict[str, int]:
    """Host name -> its HCAs (role "nic"), the hosts in the order their first HCA comes; read on
    the capture's device columns (131,072 HCAs at 131K GPUs)."""
    table = device_table(fabric)
    ids = table.ids
    nic = role_codes(fabric, roles, ids) == NIC
    codes = table.host_code[(table.kind == KIND_HOST) & (table.host_code >= 0) & nic]
    found, first, counts = np.unique(codes, return_index=True, return_counts=True)
    order = np.argsort(first, kind="stable")
    hosts = table.hosts
    per_host: dict[str, int] = {}
    for c, n in zip(found[order].tolist(), counts[order].tolist(), strict=True):
        per_host[hosts[c]] = per_host.get(hosts[c], 0) + n
    return per_host


def _spine_hosts(fabric: AsBuilt, roles: dict[str, str]) -> set[str]:
    """Hosts cabled only to spines or cores (a storage or service host on the spine, as sites
    cable them): no compute server of a leaf-spine design sits there. An HCA with a factory
    description (no host name) on a spine is set apart by its own id."""
    upper = {d for d, role in roles.items() if role in ("spine", "core")}
    if not upper:
        return set()
    devs = fabric.devices
    ends = link_ends(fabric)
    if ends is not None:
        # On arrays: per host (an HCA without a host name by its own id), whether it has a link to
        # a spine or core, and whether to a leaf.
        table = device_table(fabric)
        if table.ids is ends.ids or table.ids == ends.ids:
            # Each HCA's server off the device columns (an HCA without one by its own row after
            # the servers): not 131,072 objects at 131K GPUs.
            role = role_codes(fabric, roles, ends.ids)
            n_hosts = len(table.hosts)
            code = np.where(role == NIC, np.where(table.host_code >= 0, table.host_code,
                                                  n_hosts + np.arange(len(role), dtype=np.int64)), -1)
            tier = np.where(role >= SPINE, 2, np.where(role == LEAF, 1, 0)).astype(np.int8)
            names = table.hosts + ends.ids
            x, y = np.concatenate([ends.a, ends.b]), np.concatenate([ends.b, ends.a])
            host_end = (code[x] >= 0) & (tier[y] > 0)
            up = np.bincount(code[x[host_end & (tier[y] == 2)]], minlength=len(names)) > 0
            low = np.bincount(code[x[host_end & (tier[y] == 1)]], minlength=len(names)) > 0
            return {names[i] for i in np.flatnonzero(up & ~low).tolist()}
        key_of = [devs[d].host or d if roles.get(d) == "nic" else "" for d in ends.ids]
        codes: dict[str, int] = {}
        code = np.array([codes.setdefault(k, len(codes)) if k else -1 for k in key_of], dtype=np.int64)
        tier = np.array([2 if roles.get(d) in ("spine", "core") else 1 if roles.get(d) == "leaf" else 0
                         for d in ends.ids], dtype=np.int8)
        x, y = np.concatenate([ends.a, ends.b]), np.concatenate([ends.b, ends.a])
        host_end = (code[x] >= 0) & (tier[y] > 0)
        up = np.bincount(code[x[host_end & (tier[y] == 2)]], minlength=len(codes)) > 0
        low = np.bincount(code[x[host_end & (tier[y] == 1)]], minlength=len(codes)) > 0
        names = list(codes)
        return {names[i] for i in np.flatnonzero(up & ~low).tolist()}
    # Link by link where a link names a device the capture does not describe.
    tiers: dict[str, set[bool]] = defaultdict(set)
    key_by_id = {d: devs[d].host or d for d, role in roles.items() if role == "nic"}
    is_upper = {d: d in upper for d, role in roles.items() if role in ("leaf", "spine", "core")}
    for w in fabric.links:
        a, b = w.a, w.b
        key = key_by_id.get(a)
        if key is not None and b in is_upper:
            tiers[key].add(is_upper[b])
        key = key_by_id.get(b)
        if key is not None and a in is_upper:
            tiers[key].add(is_upper[a])
    return {h for h, seen in tiers.items() if seen == {True}}


def _leaf_ends(fabric: AsBuilt, roles: dict[str, str]) -> dict[str, list[tuple[int, str]]]:
    """leaf id -> [(leaf port, HCA id)] of its host links."""
    out: dict[str, list[tuple[int, str]]] = defaultdict(list)
    ends = link_ends(fabric)
    if ends is not None:
        # On arrays: the links with a leaf at one end and an HCA at the other, in link order (the
        # leaf at the link's first end before its second, as read link by link).
        ids = ends.ids
        rows = _leaf_rows(fabric, ends, roles)
        for lf, p, h in zip(rows.leaf.tolist(), rows.port.tolist(), rows.hca.tolist(), strict=True):
            out[ids[lf]].append((p, ids[h]))
        return out
    # Sets of leaves and HCAs, read once per link end: a 131,072-GPU capture has 400,000 links.
    leaves = {d for d, role in roles.items() if role == "leaf"}
    nics = {d for d, role in roles.items() if role == "nic"}
    for w in fabric.links:
        a, b = w.a, w.b
        if a in leaves and b in nics:
            out[a].append((w.pa, b))
        if b in leaves and a in nics:
            out[b].append((w.pb, a))
    return out


def place(fabric: AsBuilt, roles: dict[str, str], design: Any, one_by_one: bool = False) -> Placement:
    """Place the capture's devices on the design (a DesignView, or a device graph). Servers of
    one HCA whose port is not the one the design gives are placed by their leaf: every host port
    of a leaf-spine leaf is alike, and a site's port plan (hosts on ports 1-16 and the even ports
    above) is its own, so the design's numbering is no wiring rule for them.

    `one_by_one` reads the groups, the votes and the spines and cores device by device and link
    by link instead of on the capture's columns: the reference the columns are held equal to."""
    g = design if isinstance(design, DesignView) else view_from_graph(design)
    devs = fabric.devices
    out = Placement()
    view = _group_view_by_objects(fabric, roles) if one_by_one else group_view(fabric, roles)
    mgmt_hosts = view.management
    # The HCAs read on the capture's columns: 131,072 at 131K GPUs.
    table = device_table(fabric)
    ids, hosts, host_code = table.ids, table.hosts, table.host_code.tolist()
    host_of, hca_by_id = _host_columns(fabric)
    endpoints = np.flatnonzero(table.kind == KIND_HOST).tolist()
    out.management = sorted(ids[i] for i in endpoints if (hosts[host_code[i]] if host_code[i] >= 0 else ids[i])
                            in mgmt_hosts) if mgmt_hosts else []
    set_apart = [h in mgmt_hosts for h in hosts]
    set_apart_row = np.array(set_apart + [False], dtype=bool)[table.host_code]
    compute = np.flatnonzero((table.kind == KIND_HOST) & (role_codes(fabric, roles, ids) == NIC)
                             & ~set_apart_row).tolist()
    out.rank = view.rank

    # --- the design's groups, rails and host positions -------------------------------------
    side = _design_side(g)
    at_port, d_hosts, d_rail_of, server_min = side.at_port, side.hosts, side.rail, side.server_min
    d_groups = union_groups(side.leaves, side.shares, {leaf: d_hosts.get(leaf, 0) for leaf in side.leaves})
    d_groups.sort(key=lambda grp: (min(g.nodes[x]["plane"] for x in grp), min(server_min[x] for x in grp),
                                   min(g.nodes[x]["index"] for x in grp)))

    ends, rail_of, groups = view.ends, view.rail_of, view.groups
    out.groups = groups
    out.group_size = view.group_size

    # --- leaves: group by group, rail by rail ----------------------------------------------
    mapping = out.mapping
    names = switch_names(fabric)
    same_name = {d: name for d, name in names.items() if roles.get(d) in ROLES and name in g.nodes
                 and g.nodes[name]["role"] == roles.get(d)}
    for grp, d_grp in zip(groups, d_groups, strict=False):
        free = sorted(d_grp, key=lambda n: g.nodes[n]["index"])
        d_rail = {n: d_rail_of.get(n, -1) for n in free}
        rest = []
        for leaf in sorted(grp, key=lambda x: natural_key(names[x])):
            want = same_name.get(leaf)
            if want not in free:
                want = next((n for n in free if rail_of.get(leaf, -2) == d_rail[n]), None)
            if want is None:
                rest.append(leaf)
                continue
            mapping[leaf] = want
            free.remove(want)
        mapping.update(zip(rest, free, strict=False))
    by_leaf = side.one_port
    if by_leaf and all(len(grp) == 1 for grp in d_groups):
        _pair_leaves_by_hosts(mapping, ends, devs, d_hosts, same_name)

    # --- servers: by the positions their HCAs occupy ---------------------------------------
    bundled = _bundled_leaves(g)
    votes: dict[str, Counter[int]] = defaultdict(Counter)
    on_leaf: dict[str, Counter[str]] = defaultdict(Counter)     # host -> design leaf -> its HCAs there
    on_rows = None if view.end_rows is None or one_by_one else \
        _votes_on_rows(view.end_rows, table, mgmt_hosts, mapping, bundled, g, out.rank, votes, on_leaf)
    for leaf, rows in ends.items() if on_rows is None else ():
        d_leaf = mapping.get(leaf)
        for port, nic in rows:
            host = host_of[nic]
            if host and host not in mgmt_hosts and d_leaf in bundled:
                on_leaf[host][d_leaf] += 1
                continue
            target = at_port.get((d_leaf, port)) if d_leaf else None
            if host and host not in mgmt_hosts and target:
                votes[host][g.nodes[target]["server"]] += 1
    taken: set[int] = set()
    ballots = sorted(((n, host, server) for host, c in votes.items() for server, n in c.items()),
                     key=lambda t: (-t[0], natural_key(t[1]), t[2]))
    for _, host, server in ballots:
        if host not in out.server_of_host and server not in taken:
            out.server_of_host[host] = server
            taken.add(server)
    if by_leaf:
        _place_by_leaf(out, ends, host_of, devs, mgmt_hosts, g, at_port, taken)
    if on_leaf:
        _place_by_hcas(out, on_leaf, g, ends, host_of, hca_by_id, bundled, taken, on_rows)
    chosen_of = [out.server_of_host.get(h) for h in hosts]
    rank = out.rank
    _map_named_hcas(mapping, table, compute, chosen_of, rank, g)
    # Default-named HCAs: the NIC designed at their leaf port, unless a named HCA holds it; on a
    # leaf of several HCAs per server, else a free NIC of that leaf (a server there first).
    held = set(mapping.values())
    nics_on: dict[str, list[tuple[int, str]]] = defaultdict(list)   # bundled design leaf -> [(port, NIC)]
    # Read only where a leaf has a default-named HCA (on the end rows: none at 131K GPUs).
    some_unnamed = view.end_rows is None or bool(np.any(table.host_code[view.end_rows.hca] < 0))
    if bundled and some_unnamed and any(not host_of[nic] and nic not in mapping
                                        for rows in ends.values() for _, nic in rows):
        for nid, d_leaf, port, _ in g.host_links:
            if d_leaf in bundled:
                nics_on[d_leaf].append((port, nid))
    # Only they are sorted and read: at 131K GPUs every HCA is named.
    unnamed = {leaf: [row for row in rows if not host_of[row[1]] and row[1] not in mapping]
               for leaf, rows in (ends.items() if some_unnamed else ())}
    for leaf, rows in sorted((leaf, rows) for leaf, rows in unnamed.items() if rows):
        for port, nic in sorted(rows):
            if host_of[nic] or nic in mapping:
                continue
            target = at_port.get((mapping[leaf], port)) if leaf in mapping else None
            if (target is None or target in held) and mapping.get(leaf) in bundled:
                target = _free_nic(g, nics_on[mapping[leaf]], held, set(out.server_of_host.values()))
                out.any_port.add(nic)
            if target is not None and target not in held:
                mapping[nic] = target
                held.add(target)
                out.attributed[nic] = g.nodes[target]["server"]
            else:
                out.unplaced.append((nic, leaf, port))
    if one_by_one:
        place_upper_by_objects(fabric, roles, g, mapping, same_name)
    else:
        place_upper(fabric, roles, g, mapping, same_name, names)
    return out


@dataclass(frozen=True)
class _DesignSide:
    """What placing reads of a design's host positions, on its columns, once per design view."""

    at_port: Mapping[tuple[str, int], str]   # (design leaf, leaf port) -> NIC there
    hosts: dict[str, int]                    # design leaf -> servers with a NIC on it
    rail: dict[str, int]                     # design leaf -> NIC port most of its NICs have (first on a tie)
    server_min: dict[str, int]               # design leaf -> its lowest server
    leaves: list[str]                        # the design's leaves, in its order
    shares: dict[tuple[str, str], int]       # (leaf, leaf) in name order -> servers on both
    one_port: bool                           # every NIC is its server's only one


class _AtPort(dict[tuple[str, int], str]):
    """(design leaf, leaf port) -> the NIC designed there (the last one, as a dict filled in the
    host links' order keeps it), filled when first read: at 131K GPUs every HCA is placed by
    its server's name and this is not read."""

    def __init__(self, names: list[str], leaves: np.ndarray, ports: np.ndarray, nics: np.ndarray) -> None:
        super().__init__()
        self._rows: tuple[list[str], np.ndarray, np.ndarray, np.ndarray] | None = (names, leaves, ports, nics)

    def _fill(self) -> None:
        if self._rows is not None:
            names, leaves, ports, nics = self._rows
            self._rows = None
            dict.update(self, zip(zip([names[c] for c in leaves.tolist()], ports.tolist(), strict=True),
                                  [names[c] for c in nics.tolist()], strict=True))

    def __getitem__(self, key: tuple[str, int]) -> str:
        self._fill()
        return dict.__getitem__(self, key)

    def __contains__(self, key: object) -> bool:
        self._fill()
        return dict.__contains__(self, key)

    def __iter__(self) -> Iterator[tuple[str, int]]:
        self._fill()
        return dict.__iter__(self)

    def __len__(self) -> int:
        self._fill()
        return dict.__len__(self)

    def __eq__(self, other: object) -> bool:
        self._fill()
        return dict.__eq__(self, other)

    __hash__ = None

    def get(self, key: tuple[str, int], default: Any = None) -> Any:
        self._fill()
        return dict.get(self, key, default)

    def items(self) -> Any:
        self._fill()
        return dict.items(self)


def _design_side(g: DesignView) -> _DesignSide:
    cached = g.__dict__.get("_placing_side")
    if isinstance(cached, _DesignSide):
        return cached
    da = g.arrays()
    names = da.names
    nic_rows = np.flatnonzero(da.nic)
    row_leaf, row_nic, row_port = da.host_leaf, da.host_nic, da.host_port
    at_port = _AtPort(names, row_leaf, row_port, row_nic)
    leaf_codes = np.flatnonzero(da.leaf)
    leaves = [names[c] for c in leaf_codes.tolist()]
    n = max(1, len(names))
    server = da.nic_server[row_nic]
    width = int(server.max(initial=0)) + 1
    pairs = np.unique(row_leaf * width + server)
    p_leaf, p_server = np.divmod(pairs, width)
    counts = np.bincount(p_leaf, minlength=n)
    lowest = np.full(n, 1 << 30, dtype=np.int64)
    np.minimum.at(lowest, p_leaf, p_server)
    on = np.flatnonzero(counts)
    # Each leaf's most common NIC port, the first seen on a tie (as a Counter's most_common).
    port = da.nic_port[row_nic]
    pw = int(port.max(initial=0)) + 2
    keys, first, times = np.unique(row_leaf * pw + port + 1, return_index=True, return_counts=True)
    k_leaf = keys // pw
    best = np.lexsort((first, -times, k_leaf))
    lead = best[np.r_[True, k_leaf[best][1:] != k_leaf[best][:-1]]] if len(best) else best
    rail = {names[c]: r - 1 for c, r in zip(k_leaf[lead].tolist(), (keys[lead] % pw).tolist(), strict=True)}
    # Servers shared between the switches their NICs are on (leaves, and any switch an edit put a
    # NIC on), each switch numbered by its place among them.
    switches = np.unique(row_leaf)
    shares = shares_on_arrays(np.searchsorted(switches, p_leaf), p_server, [names[c] for c in switches.tolist()])
    made = _DesignSide(at_port, {names[c]: int(counts[c]) for c in on.tolist()},
                       rail, {names[c]: int(lowest[c]) for c in leaf_codes.tolist()}, leaves, shares,
                       len(np.unique(da.nic_port[nic_rows])) == 1)
    g.__dict__["_placing_side"] = made
    return made


@dataclass(frozen=True)
class _OnLeafRows:
    """The HCAs of compute hosts on leaves placed on bundled design leaves (`on_leaf`'s)."""

    hcas: list[str]                          # their ids, and their hosts
    hosts: list[str]
    first: dict[tuple[str, str], int]        # (host, design leaf) -> lowest HCA rank there


def _votes_on_rows(rows: LeafEndRows, table: DeviceTable, mgmt_hosts: set[str], mapping: dict[str, str],
                   bundled: set[str], g: DesignView, rank: dict[int, int], votes: dict[str, Counter[int]],
                   on_leaf: dict[str, Counter[str]]) -> _OnLeafRows:
    """Fill `votes` (host -> design server -> its HCAs on that server's ports) and `on_leaf` (host
    -> bundled design leaf -> its HCAs there) as the leaves' ends read in order fill them, on the
    end rows: the hosts, servers and leaves in the order they first come."""
    da = g.arrays()
    ids, names, code = table.ids, da.names, da.code
    e_leaf, e_port, e_hca = rows.leaf, rows.port, rows.hca
    # The ends as `GroupView.ends` lists them: leaf by leaf as each first comes, in link order.
    leaves, first_at, inverse = np.unique(e_leaf, return_index=True, return_inverse=True)
    leaf_rank = np.empty(len(leaves), dtype=np.int64)
    leaf_rank[np.argsort(first_at, kind="stable")] = np.arange(len(leaves), dtype=np.int64)
    order = np.argsort(leaf_rank[inverse], kind="stable")
    e_leaf, e_port, e_hca = e_leaf[order], e_port[order], e_hca[order]
    placed_on = np.array([code.get(mapping.get(ids[r], ""), -1) for r in leaves.tolist()] + [-1], dtype=np.int64)
    d_leaf = placed_on[np.searchsorted(leaves, e_leaf)]
    is_bundled = np.zeros(len(names) + 1, dtype=bool)
    is_bundled[[code[n] for n in bundled]] = True
    host = table.host_code[e_hca]
    mgmt = np.array([h in mgmt_hosts for h in table.hosts] + [True], dtype=bool)   # -1: no host name
    compute = ~mgmt[host]
    on = compute & (d_leaf >= 0) & is_bundled[d_leaf]
    n_nodes = len(names) + 1
    hosts = table.hosts
    # on_leaf: (host, design leaf) as each first comes, with its HCAs there.
    keys, first, counts = np.unique(host[on] * n_nodes + d_leaf[on], return_index=True, return_counts=True)
    by_first = np.argsort(first, kind="stable")
    for key, c in zip(keys[by_first].tolist(), counts[by_first].tolist(), strict=True):
        h, lf = divmod(key, n_nodes)
        on_leaf[hosts[h]][names[lf]] = c
    rank_of = np.full(int(table.hca.max(initial=0)) + 2, 1 << 30, dtype=np.int64)
    for h, r in rank.items():
        rank_of[h] = r
    lowest = np.full(len(keys), 1 << 30, dtype=np.int64)
    np.minimum.at(lowest, np.searchsorted(keys, host[on] * n_nodes + d_leaf[on]), rank_of[table.hca[e_hca[on]]])
    lowest_of = {(hosts[h], names[lf]): int(r) for (h, lf), r in
                 zip((divmod(k, n_nodes) for k in keys.tolist()), lowest.tolist(), strict=True)}
    # votes: the NIC designed at each other end's leaf port, its server.
    ports = int(max(int(e_port.max(initial=0)), int(da.host_port.max(initial=0)))) + 1
    at_keys = da.host_leaf * ports + da.host_port
    last = len(at_keys) - 1 - np.unique(at_keys[::-1], return_index=True)[1]    # the last NIC of a position
    by_key = np.argsort(at_keys[last], kind="stable")
    known, nic_at = at_keys[last][by_key], da.host_nic[last][by_key]
    want = np.where(compute & ~on & (d_leaf >= 0) & (d_leaf < len(names)), d_leaf * ports + e_port, -1)
    at = np.minimum(np.searchsorted(known, want), max(0, len(known) - 1))
    hit = (want >= 0) & (known[at] == want) if len(known) else np.zeros(len(want), dtype=bool)
    server = da.nic_server[nic_at[at[hit]]]
    width = int(server.max(initial=0)) + 1
    keys, first, counts = np.unique(host[hit] * width + server, return_index=True, return_counts=True)
    by_first = np.argsort(first, kind="stable")
    for key, c in zip(keys[by_first].tolist(), counts[by_first].tolist(), strict=True):
        h, sv = divmod(key, width)
        votes[hosts[h]][sv] = c
    on_hcas = e_hca[on].tolist()
    return _OnLeafRows([ids[r] for r in on_hcas], [hosts[h] for h in host[on].tolist()], lowest_of)


def _servers_on(g: DesignView, leaves: set[str]) -> dict[str, list[int]]:
    """Design leaf of `leaves` -> its servers, in order; the leaves as their first host link comes."""
    da = g.arrays()
    names = da.names
    pick = np.zeros(len(names), dtype=bool)
    pick[[da.code[n] for n in leaves]] = True
    rows = np.flatnonzero(pick[da.host_leaf])
    leaf, server = da.host_leaf[rows], da.host_server_index[rows]
    found, first = np.unique(leaf, return_index=True)
    out: dict[str, list[int]] = {}
    width = int(server.max(initial=0)) + 1
    pairs = np.unique(leaf * width + server)
    p_leaf, p_server = np.divmod(pairs, width)
    bounds = np.searchsorted(p_leaf, found)
    ends_at = np.searchsorted(p_leaf, found, side="right")
    servers = p_server.tolist()
    for i in np.argsort(first, kind="stable").tolist():
        out[names[int(found[i])]] = servers[int(bounds[i]):int(ends_at[i])]
    return out


def _map_named_hcas(mapping: dict[str, str], table: DeviceTable, compute: list[int],
                    chosen_of: list[int | None], rank: dict[int, int], g: DesignView) -> None:
    """Each compute HCA of a placed server: its server's NIC of the same rail rank (the NIC of
    that server and port), on the columns."""
    da = g.arrays()
    rows = np.array(compute, dtype=np.int64)
    chosen = np.array([-1 if c is None else c for c in chosen_of] + [-1], dtype=np.int64)[table.host_code[rows]]
    rank_of = np.full(int(table.hca.max(initial=0)) + 2, -1, dtype=np.int64)
    for h, r in rank.items():
        rank_of[h] = r
    r = rank_of[table.hca[rows]]
    nics = np.flatnonzero(da.nic)
    width = int(max(int(da.nic_port[nics].max(initial=0)), max(rank.values(), default=0))) + 1
    keys = da.nic_server[nics] * width + da.nic_port[nics]
    # The last NIC of a (server, port) stands, as a dict filled in node order keeps it.
    last = len(keys) - 1 - np.unique(keys[::-1], return_index=True)[1]
    order = np.argsort(keys[last], kind="stable")
    known, node = keys[last][order], nics[last][order]
    want = np.where((chosen >= 0) & (r >= 0), chosen * width + r, -1)
    at = np.minimum(np.searchsorted(known, want), max(0, len(known) - 1))
    hit = (want >= 0) & (known[at] == want) if len(known) else np.zeros(len(want), dtype=bool)
    ids, names = table.ids, da.names
    mapping.update(zip([ids[i] for i in rows[hit].tolist()], [names[c] for c in node[at[hit]].tolist()], strict=True))


def _host_columns(fabric: AsBuilt) -> tuple[dict[str, str], dict[str, int]]:
    """Each device's server name ('' for none) and HCA index by id, off the device columns: the
    placement reads them for every HCA, and a `Device` made for each would be 131,072 objects at
    131K GPUs. Made once per device table."""
    table = device_table(fabric)
    cached = fabric.__dict__.get("_host_columns")
    if cached is not None and cached[0] is table:
        return cached[1]  # type: ignore[no-any-return]
    made = (_Filled(table.ids, table.host_code, table.hosts + [""]), _Filled(table.ids, table.hca, None))
    fabric.__dict__["_host_columns"] = (table, made)
    return made


class _Filled(dict[str, Any]):
    """Device id -> its value in a column (through `names` where given), filled when a key is
    first read: placing a 131K-GPU capture whose HCAs are all named on their leaves reads
    neither of `_host_columns`' 151,552 entries."""

    def __init__(self, ids: list[str], column: np.ndarray, names: list[str] | None) -> None:
        super().__init__()
        self._source: tuple[list[str], np.ndarray, list[str] | None] | None = (ids, column, names)

    def __missing__(self, key: str) -> Any:
        if self._source is None:
            raise KeyError(key)
        (ids, column, names), self._source = self._source, None
        values = column.tolist()
        self.update(zip(ids, values if names is None else [names[c] for c in values], strict=True))
        return self[key]


def _bundled_leaves(g: DesignView) -> set[str]:
    """Design leaves holding two or more NICs of one server."""
    da = g.arrays()
    key = da.host_leaf * (int(da.host_server_index.max(initial=0)) + 1) + da.host_server_index
    values, counts = np.unique(key, return_counts=True)
    return {da.names[c] for c in np.unique(da.host_leaf[np.isin(key, values[counts > 1])]).tolist()}


def _place_by_hcas(out: Placement, on_leaf: dict[str, Counter[str]], g: DesignView,
                   ends: dict[str, list[tuple[int, str]]], host_of: dict[str, str], hca_by_id: dict[str, int],
                   bundled: set[str], taken: set[int], on_rows: _OnLeafRows | None = None) -> None:
    """Servers whose HCAs share a design leaf: a host takes a free design server of the leaf most
    of its HCAs are on (its lowest-numbered HCA's leaf breaks a tie), whatever ports they use;
    its HCAs then pair with the server's NICs by name. Hosts whose leaf is full take the servers
    left anywhere, in place on any leaf: the design spreads its servers evenly over its leaves
    (7, 7, 6), a site fills them its own way (6, 7, 7)."""
    servers_on = _servers_on(g, bundled)
    first: dict[tuple[str, str], int] = {} if on_rows is None else on_rows.first  # (host, design leaf) -> lowest rank
    for leaf, rows in ends.items() if on_rows is None else ():
        d_leaf = out.mapping.get(leaf)
        for _, nic in rows:
            host = host_of[nic]
            if host in on_leaf and d_leaf in bundled:
                key = (host, d_leaf)
                first[key] = min(first.get(key, 1 << 30), out.rank.get(hca_by_id[nic], 1 << 30))
    # A host split evenly between two leaves (one of its two HCAs crossed with another server's)
    # says nothing of its leaf by itself: a site numbers the hosts of a leaf together, so the
    # leaf of the hosts named next to it decides, and then its lowest-numbered HCA's leaf.
    # Names compare by their rank in natural order (equal keys, equal ranks): 16,384 hosts and
    # 65,536 ballots at 131K GPUs sort on integers.
    key_of = _natural_ranks([*on_leaf, *servers_on, *(leaf for c in on_leaf.values() for leaf in c)])
    home: dict[str, str] = {}
    for h, c in on_leaf.items():
        best = max(c.values())
        if sum(1 for v in c.values() if v == best) == 1:
            home[h] = next(lf for lf, v in c.items() if v == best)
    decided = sorted(home, key=key_of.__getitem__)
    keys = [key_of[h] for h in decided]
    near_of: dict[str, set[str]] = {}
    for host in on_leaf:
        if host not in home:
            i = bisect_left(keys, key_of[host])
            near_of[host] = {home[decided[j]] for j in (i - 1, i) if 0 <= j < len(decided)}

    def doubt(host: str, leaf: str) -> int:
        if host in home:
            return 0 if home[host] == leaf else 2
        near = near_of[host]
        return 0 if near == {leaf} else 1 if leaf in near else 2

    # The ballots' order, ties in the order they are made (each one's position, before its names).
    ballots = sorted((-n, doubt(host, leaf), first[(host, leaf)], key_of[host], key_of[leaf], i, host, leaf)
                     for i, (host, leaf, n) in enumerate((host, leaf, n) for host, c in on_leaf.items()
                                                         for leaf, n in c.items()))
    room = {leaf: sum(1 for s in servers if s not in taken) for leaf, servers in servers_on.items()}
    leaf_of: dict[str, str] = {}
    for *_, host, leaf in ballots:
        if host not in out.server_of_host and host not in leaf_of and room[leaf]:
            leaf_of[host] = leaf
            room[leaf] -= 1
    # Within a leaf, hosts take its servers in name order (a site numbers its hosts as it cables).
    hosts_of: dict[str, list[str]] = defaultdict(list)
    for host, leaf in leaf_of.items():
        hosts_of[leaf].append(host)
    for leaf, hosts in hosts_of.items():
        free = [s for s in servers_on[leaf] if s not in taken]
        for host, server in zip(sorted(hosts, key=key_of.__getitem__), free, strict=False):
            out.server_of_host[host] = server
            taken.add(server)
    left = [s for leaf in sorted(servers_on, key=key_of.__getitem__) for s in servers_on[leaf] if s not in taken]
    spread = set()
    for host, server in zip(sorted((h for h in on_leaf if h not in out.server_of_host), key=key_of.__getitem__),
                            left, strict=False):
        out.server_of_host[host] = server
        taken.add(server)
        spread.add(host)
    if on_rows is not None:
        if not spread:          # every host on its leaf (131,072 HCAs at 131K GPUs)
            out.any_port.update(on_rows.hcas)
            return
        for nic, host in zip(on_rows.hcas, on_rows.hosts, strict=True):
            (out.by_leaf if host in spread else out.any_port).add(nic)
        return
    for leaf, rows in ends.items():
        if out.mapping.get(leaf) in bundled:
            for _, nic in rows:
                if host_of[nic] in on_leaf:
                    (out.by_leaf if host_of[nic] in spread else out.any_port).add(nic)


def _natural_ranks(names: list[str]) -> dict[str, int]:
    """Each name's rank in natural order (`natural_key`), names of equal keys ranked equal, so
    that sorting by rank is sorting by key, ties in the same order."""
    distinct = sorted(((n, natural_key(n)) for n in dict.fromkeys(names)), key=lambda t: t[1])
    out: dict[str, int] = {}
    rank, last = -1, None
    for name, key in distinct:
        if key != last:
            rank, last = rank + 1, key
        out[name] = rank
    return out


def _free_nic(g: DesignView, nics: list[tuple[int, str]], held: set[str], present: set[int]) -> str | None:
    """Of a leaf's (port, NIC), one no HCA holds: of a server that is there first, then by port."""
    free = [(g.nodes[nic]["server"] not in present, port, nic) for port, nic in nics if nic not in held]
    return min(free)[2] if free else None


def _pair_leaves_by_hosts(mapping: dict[str, str], ends: dict[str, list[tuple[int, str]]], devs: Mapping[str, Device],
                          d_hosts: dict[str, int], same_name: dict[str, str]) -> None:
    """Leaves of one-HCA servers, each its own group: in name order, each takes the first free
    design leaf with room for the hosts it holds (the last leaf of a design is often the short
    one), so that a full leaf is not held to a short leaf's positions."""
    built = sorted((lf for lf in mapping if lf in ends and lf not in same_name),
                   key=lambda x: natural_key(devs[x].name))
    design = sorted((mapping[lf] for lf in built), key=natural_key)
    room = {d: d_hosts.get(d, 0) for d in design}
    for leaf in built:
        need = len(ends[leaf])
        pick = next((d for d in design if room[d] >= need), None) or max(design, key=lambda d: room[d])
        mapping[leaf] = pick
        design.remove(pick)


def _place_by_leaf(out: Placement, ends: dict[str, list[tuple[int, str]]], host_of: dict[str, str],
                   devs: Mapping[str, Device], mgmt_hosts: set[str], g: DesignView,
                   at_port: Mapping[tuple[str, int], str], taken: set[int]) -> None:
    """One-HCA servers that no designed port took: the free design positions of their leaf, in
    port order (named hosts first take a server; default-named HCAs are attributed to one)."""
    mapping = out.mapping
    spare: list[tuple[int, str, str]] = []      # (port, HCA, leaf) of hosts their leaf had no room for
    # A default-named HCA on a designed port keeps it (the default-named pass places it).
    kept = {at_port[(mapping[leaf], port)] for leaf, rows in ends.items() if leaf in mapping
            for port, nic in rows if not host_of[nic] and (mapping[leaf], port) in at_port}
    for leaf, rows in sorted(ends.items()):
        d_leaf = mapping.get(leaf)
        if d_leaf is None:
            continue
        free = [n for (lf, _), n in sorted(at_port.items(), key=lambda t: t[0][1])
                if lf == d_leaf and g.nodes[n]["server"] not in taken and n not in kept]
        for port, nic in sorted(rows):
            host = host_of[nic]
            if (host and (host in mgmt_hosts or host in out.server_of_host)) or (
                    not host and (d_leaf, port) in at_port):
                continue
            if not free:
                spare.append((port, nic, leaf))
                continue
            _take(out, nic, host, free.pop(0), g, taken)
    # The design spreads its servers evenly over the leaves (24, 23, 24, ...), the site fills
    # some and leaves others short (24, 24, 22): without a design to say which leaf a one-HCA
    # server belongs on, any leaf is its place, so the rest take the positions left anywhere.
    left = [n for (_, _), n in sorted(at_port.items(), key=lambda t: (natural_key(t[0][0]), t[0][1]))
            if g.nodes[n]["server"] not in taken and n not in kept]
    for _, nic, _ in sorted(spare, key=lambda t: (natural_key(devs[t[2]].name), t[0])):
        host = host_of[nic]
        if left and not (host and host in out.server_of_host):
            _take(out, nic, host, left.pop(0), g, taken)


def _take(out: Placement, nic: str, host: str, target: str, g: DesignView, taken: set[int]) -> None:
    server = g.nodes[target]["server"]
    taken.add(server)
    out.by_leaf.add(nic)
    if host:
        out.server_of_host[host] = server
    else:
        out.mapping[nic] = target
        out.attributed[nic] = server


def group_view(fabric: AsBuilt, roles: dict[str, str]) -> GroupView:
    """The capture's groups, read once per capture and roles (inference and audit both ask)."""
    cache = fabric.__dict__.setdefault("_group_views", {})
    key = (id(roles), len(fabric.links), len(fabric.devices))
    if key not in cache:
        cache.clear()
        cache[key] = _group_view(fabric, roles)
    return cast(GroupView, cache[key])


def _leaf_rows(fabric: AsBuilt, ends: LinkEnds, roles: dict[str, str]) -> LeafEndRows:
    """The leaves' host ends on the link arrays (see `LeafEndRows`)."""
    role = role_codes(fabric, roles, ends.ids)
    return leaf_end_rows(ends.a, ends.pa, ends.b, ends.pb, role == LEAF, role == NIC)


def role_codes(fabric: AsBuilt, roles: dict[str, str], ids: list[str]) -> np.ndarray:
    """Each device's role as a code (NIC, LEAF, SPINE, CORE; 0 for any other), row i for
    `ids[i]`: read once per capture and roles (151,552 devices at 131K GPUs)."""
    cached = fabric.__dict__.get("_role_codes")
    if cached is not None and cached[0] is roles and cached[1] == len(roles) and cached[2] is ids:
        return cached[3]  # type: ignore[no-any-return]
    get, code = roles.get, ROLE_CODE.get
    made = np.fromiter((code(get(d, ""), 0) for d in ids), dtype=np.int8, count=len(ids))
    fabric.__dict__["_role_codes"] = (roles, len(roles), ids, made)
    return made


def _group_view(fabric: AsBuilt, roles: dict[str, str]) -> GroupView:
    """On the capture's columns where its links are arrays on its device rows; else device by
    device (`_group_view_by_objects`, the reference)."""
    ends = link_ends(fabric)
    table = device_table(fabric)
    if ends is None or not (table.ids is ends.ids or table.ids == ends.ids):
        return _group_view_by_objects(fabric, roles)
    devs = fabric.devices
    return group_view_on_arrays(table, role_codes(fabric, roles, table.ids), management_hosts(fabric, roles),
                                _leaf_rows(fabric, ends, roles),
                                lambda leaf: devs[leaf].name)


def _group_view_by_objects(fabric: AsBuilt, roles: dict[str, str]) -> GroupView:
    devs = fabric.devices
    mgmt_hosts = management_hosts(fabric, roles)
    compute = [d for d in fabric.endpoints() if roles.get(d.id) == "nic" and d.host not in mgmt_hosts]
    rank = {h: i for i, h in enumerate(sorted({d.hca for d in compute if d.hca >= 0}))}
    # --- the capture's groups and rails ----------------------------------------------------
    ends = _leaf_ends(fabric, roles)
    leaves = [d.id for d in devs.values() if roles.get(d.id) == "leaf"]
    hosts_on: dict[str, set[str]] = {leaf: {devs[n].host for _, n in ends.get(leaf, ()) if devs[n].host
                                            and devs[n].host not in mgmt_hosts} for leaf in leaves}
    rail_of: dict[str, int] = {}
    for leaf in leaves:
        ranks = Counter(rank[devs[n].hca] for _, n in ends.get(leaf, ())
                        if devs[n].host and devs[n].host not in mgmt_hosts and devs[n].hca in rank)
        if ranks:
            rail_of[leaf] = ranks.most_common(1)[0][0]
    shares = shares_of(hosts_on)
    groups = union_groups(leaves, shares, {leaf: len(hosts_on[leaf]) for leaf in leaves})
    order_groups(groups, shares, hosts_on, {leaf: devs[leaf].name for leaf in leaves})
    mgmt_ids = {d.id for d in fabric.endpoints() if d.host in mgmt_hosts}
    # A server's slot is the leaf port its HCAs use on every rail leaf of its group: a port used on
    # at most half the group's leaves holds a stray or moved cable, not a server.
    slots = []
    for grp in groups:
        used = Counter(p for leaf in grp for p in {p for p, n in ends.get(leaf, ()) if n not in mgmt_ids})
        slots.append(sorted(p for p, n in used.items() if 2 * n > len(grp) or len(grp) == 1))
    single = sum(1 for leaf in leaves if len({devs[n].hca for _, n in ends.get(leaf, ())
                                              if devs[n].host and devs[n].host not in mgmt_hosts}) == 1)
    counts, size = slot_counts(slots)
    return GroupView(mgmt_hosts, rank, ends, hosts_on, rail_of, groups, counts, single, size)
