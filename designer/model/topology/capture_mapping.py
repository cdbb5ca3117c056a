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
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from designer.model.common.arrays import sorted_distinct
from designer.model.common.made_when_read import MadeWhenRead
from designer.model.topology.asbuilt import (
    KIND_HOST,
    AsBuilt,
    Device,
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
from designer.model.topology.capture_servers import (
    Placement as Placement,  # where callers have always imported it from
)
from designer.model.topology.capture_servers import (
    bundled_leaves,
    map_named_hcas,
    place_by_hcas,
    votes_on_rows,
)
from designer.model.topology.capture_upper import place_upper, place_upper_by_objects, switch_names
from designer.model.topology.design_view import DesignView, PlanNodes, view_from_graph

ROLES = ("leaf", "spine", "core")
_DIGITS = re.compile(r"\d+", re.ASCII)


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
    stem_of = {host: name_stem(host) for host in per_host}     # once per host: 16,384 at 131K GPUs
    stems = Counter[str]()
    for host, n in per_host.items():
        stems[stem_of[host]] += n
    main_stem = stems.most_common(1)[0][0]
    usual = Counter(per_host.values()).most_common(1)[0][0]
    return {h for h, n in per_host.items() if n < usual and stem_of[h] != main_stem} | _spine_hosts(fabric, roles)


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
    same_name = _same_name(g, names, roles)
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
    bundled = bundled_leaves(g)
    votes: dict[str, Counter[int]] = defaultdict(Counter)
    on_leaf: dict[str, Counter[str]] = defaultdict(Counter)     # host -> design leaf -> its HCAs there
    on_rows = None if view.end_rows is None or one_by_one else \
        votes_on_rows(view.end_rows, table, mgmt_hosts, mapping, bundled, g, out.rank, votes)
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
    if on_leaf or (on_rows is not None and on_rows.ballots.hosts):
        place_by_hcas(out, on_leaf, g, ends, host_of, hca_by_id, bundled, taken, on_rows, view.host_rank)
    _place_without_votes(out, ends, host_of, mgmt_hosts, d_groups, g, taken, compute, table)
    chosen_of = [out.server_of_host.get(h) for h in hosts]
    rank = out.rank
    map_named_hcas(mapping, table, compute, chosen_of, rank, g)
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


def _same_name(g: DesignView, names: dict[str, str], roles: dict[str, str]) -> dict[str, str]:
    """Switch id -> the design switch of its name and role, where there is one. A template's
    switch has its role by its level (`PlanNodes`), read off the columns: 10,240 switches at
    131K GPUs, whose records would otherwise each be made to be read once."""
    if isinstance(g.nodes, PlanNodes):
        da = g.arrays()
        code, level = da.code, da.level
        want = {"leaf": 1, "spine": 2, "core": 3}
        found = [(d, name, code[name], want[role]) for d, name in names.items()
                 if (role := roles.get(d)) in want and name in code]
        at = np.array([c for _, _, c, _ in found], dtype=np.int64)
        same = level[at] == np.array([lv for *_, lv in found], dtype=np.int64)
        return {d: name for (d, name, _, _), s in zip(found, same.tolist(), strict=True) if s}
    return {d: name for d, name in names.items() if roles.get(d) in ROLES and name in g.nodes
            and g.nodes[name]["role"] == roles.get(d)}


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


class _AtPort(MadeWhenRead[tuple[str, int], str]):
    """(design leaf, leaf port) -> the NIC designed there (the last one, as a dict filled in the
    host links' order keeps it), filled when first read: at 131K GPUs every HCA is placed by
    its server's name and this is not read."""

    def __init__(self, names: list[str], leaves: np.ndarray, ports: np.ndarray, nics: np.ndarray) -> None:
        super().__init__()
        self._rows: tuple[list[str], np.ndarray, np.ndarray, np.ndarray] | None = (names, leaves, ports, nics)

    def _make(self) -> None:
        if self._rows is not None:
            names, leaves, ports, nics = self._rows
            self._rows = None
            dict.update(self, zip(zip([names[c] for c in leaves.tolist()], ports.tolist(), strict=True),
                                  [names[c] for c in nics.tolist()], strict=True))


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
    pairs = sorted_distinct(row_leaf * width + server)
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
    switches = sorted_distinct(row_leaf)
    shares = shares_on_arrays(np.searchsorted(switches, p_leaf), p_server, [names[c] for c in switches.tolist()])
    made = _DesignSide(at_port, {names[c]: int(counts[c]) for c in on.tolist()},
                       rail, {names[c]: int(lowest[c]) for c in leaf_codes.tolist()}, leaves, shares,
                       len(sorted_distinct(da.nic_port[nic_rows])) == 1)
    g.__dict__["_placing_side"] = made
    return made



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


def _place_without_votes(out: Placement, ends: dict[str, list[tuple[int, str]]], host_of: dict[str, str],
                         mgmt_hosts: set[str], d_groups: list[Any], g: DesignView, taken: set[int],
                         compute: list[int], table: Any) -> None:
    """Hosts no designed port voted for (every named HCA of theirs on a leaf port the design
    leaves empty: an edit removed those links): each takes a free design server of the design
    group its HCAs' leaves are in, hosts in natural order taking the group's free servers in
    index order. Their HCAs then pair with the server's NICs by rank, so a cable the design no
    longer has is an extra link on its HCA, not a host missing from the design."""
    # One unique over the compute HCAs' host codes (131,072 rows at 131K GPUs, every host placed).
    codes = sorted_distinct(table.host_code[np.array(compute, dtype=np.int64)]).tolist() if compute else []
    waiting = {table.hosts[c] for c in codes if c >= 0} - out.server_of_host.keys() - mgmt_hosts
    if not waiting:
        return
    group_of = {leaf: i for i, grp in enumerate(d_groups) for leaf in grp}
    groups_of: dict[str, set[int]] = defaultdict(set)
    for leaf, rows in ends.items():
        d_leaf = out.mapping.get(leaf)
        if d_leaf not in group_of:
            continue
        for _, nic in rows:
            if host_of[nic] in waiting:
                groups_of[host_of[nic]].add(group_of[d_leaf])
    free: dict[int, set[int]] = defaultdict(set)
    for nid, d_leaf, _, _ in g.host_links:
        server = g.nodes[nid]["server"]
        if d_leaf in group_of and server not in taken:
            free[group_of[d_leaf]].add(server)
    for host in sorted(groups_of, key=natural_key):
        choice = sorted(s for i in groups_of[host] for s in free[i] if s not in taken)
        if choice:
            out.server_of_host[host] = choice[0]
            taken.add(choice[0])


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
    if cached is not None and cached[0] is roles and cached[1] == len(roles) and (cached[2] is ids or cached[2] == ids):
        return cached[3]  # type: ignore[no-any-return]
    get, code = roles.get, ROLE_CODE.get
    made = np.fromiter((code(get(d, ""), 0) for d in ids), dtype=np.int8, count=len(ids))
    fabric.__dict__["_role_codes"] = (roles, len(roles), ids, made)
    return made


# The inference's role numbers (inference_counts: isolated 0, LEAF 1, SPINE 2, CORE 3, NIC 4,
# AGGREGATION 5) as `role_codes` numbers them.
_FROM_INFERENCE = np.array([0, ROLE_CODE["leaf"], ROLE_CODE["spine"], ROLE_CODE["core"], ROLE_CODE["nic"], 0],
                           dtype=np.int8)


def remember_role_codes(fabric: AsBuilt, roles: dict[str, str], ids: list[str], inferred: np.ndarray) -> None:
    """Keep `role_codes` of `roles` on `ids` from the inference's own codes (`inferred`, row i
    for `ids[i]`, numbered as inference_counts numbers them) instead of a look-up per device."""
    fabric.__dict__["_role_codes"] = (roles, len(roles), ids, _FROM_INFERENCE[inferred])


def _group_view(fabric: AsBuilt, roles: dict[str, str]) -> GroupView:
    """On the capture's columns where its links are arrays on its device rows; else device by
    device (`_group_view_by_objects`, the reference)."""
    ends = link_ends(fabric)
    table = device_table(fabric)
    if ends is None or not (table.ids is ends.ids or table.ids == ends.ids):
        return _group_view_by_objects(fabric, roles)
    devs = fabric.devices
    names = switch_names(fabric)        # the placement reads them all again
    return group_view_on_arrays(table, role_codes(fabric, roles, table.ids), management_hosts(fabric, roles),
                                _leaf_rows(fabric, ends, roles),
                                lambda leaf: names[leaf] if leaf in names else devs[leaf].name)


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
