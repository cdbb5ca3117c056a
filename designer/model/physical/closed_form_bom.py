"""The physical layer's counts for a template design, by class of link instead of link by link.

A template fabric repeats a few kinds of link many times. This module generates the links as
numpy arrays straight from the sizing plan (the port assignment and spreads of
designer/model/topology/builders.py, no device graph), places devices by the floor plan's rules
(designer/model/physical/floor_layout.py), finds the groups of cages that must share a medium
with a vectorized connected-components pass, and asks `choose_medium` once per distinct group
shape. Every count is then the per-group result times the number of groups of that class.

The result equals the link-by-link computation (designer/model/physical/media.py
`compute_physical`) exactly: same groups, same representative group per shape, same float sums
(power is added in the same order), same findings. tests/test_closed_form_bom.py checks this
on random designs. Edited designs replay their edits on these arrays first
(designer/model/physical/edited_bom.py); the cabling plan, which needs every link, uses the
link-by-link path.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from designer.catalog import Catalog, Switch, default_catalog
from designer.catalog.entries import Cable
from designer.model.physical.floor_layout import Layout, server_device
from designer.model.physical.link_arrays import DeviceCodes as _Devices
from designer.model.physical.link_arrays import LinkArrays as _Links
from designer.model.physical.link_runs import link_lengths
from designer.model.physical.media import (
    MEDIUM_OF_OPTIC,
    CableLength,
    CageKey,
    Choice,
    End,
    LinkPlan,
    MediaIndex,
    PartSide,
    _findings,
    _try_copper,
    choose_medium,
    host_ports_per_cage,
    part_id,
    sold_length,
    switch_cage_capacity,
)
from designer.model.physical.template_layout import rank_within, template_positions
from designer.model.topology.closed_form import leaf_assignment_arrays as _assignment
from designer.model.topology.metrics import Finding

if TYPE_CHECKING:
    from designer.model.topology.derive import Derived
    from designer.model.topology.sizing import Plan, Resolved

# The template's tiers, then the links an edit adds (designer/model/physical/edited_bom.py).
TIERS = ("node-leaf", "leaf-spine", "spine-core", "manual")
MEDIA_CODES = ("none", "dac", "acc", "aoc", "mmf", "smf")
FORCED_CODES = ("auto", "dac", "acc", "aoc", "mmf", "smf")


@dataclass
class PhysicalCounts:
    """What the bill of materials reads from the physical layer, without the per-link list."""

    layout: Layout
    transceivers: Counter[PartSide]
    transceiver_ends: Counter[PartSide]
    cables: Counter[CableLength]
    cable_power_w: dict[CableLength, float] = field(default_factory=dict)
    custom_lengths: Counter[CableLength] = field(default_factory=Counter)
    findings: list[Finding] = field(default_factory=list)
    tier_counts: dict[str, int] = field(default_factory=dict)      # tier -> links, in link order
    media_counts: dict[str, dict[str, int]] = field(default_factory=dict)     # tier -> {medium: links}

    @property
    def links_total(self) -> int:
        return sum(self.tier_counts.values())

    def links_by_tier(self) -> dict[str, int]:
        return dict(self.tier_counts)

    def media_by_tier(self) -> dict[str, dict[str, int]]:
        return {t: dict(m) for t, m in self.media_counts.items()}


# ----------------------------------------------------------------------------- links from the plan

def _spread_links(owners: int, count: int, targets: int, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per owner, `_spread(count, targets, offset)` expanded to one entry per link: (owner, t)."""
    if targets <= 0:  # no tier above (a one-tier fabric)
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    base, rem = divmod(count, targets)
    t = np.arange(targets, dtype=np.int64)
    per = base + (((t[None, :] - offsets[:, None]) % targets) < rem).astype(np.int64)
    owner = np.repeat(np.arange(owners, dtype=np.int64), targets)
    tt = np.tile(t, owners)
    flat = per.ravel()
    return np.repeat(owner, flat), np.repeat(tt, flat)


def _looked_up(table: dict[int, float], keys: np.ndarray) -> np.ndarray:
    """table[k] for each key, looked up once per distinct key (a few lengths over 262,144 links)."""
    distinct, inverse = np.unique(keys, return_inverse=True)
    return np.array([table[k] for k in distinct.tolist()], np.float64)[inverse.reshape(-1)]


def _repeat(x: np.ndarray, times: int) -> np.ndarray:
    """x, x, ... (`times` copies end to end); faster than np.tile for one dimension."""
    return np.concatenate([x] * times) if times > 1 else x


def _generate(r: Resolved, plan: Plan, dev: _Devices, numbered: bool = True) -> tuple[_Links, np.ndarray, np.ndarray]:
    """The links, plus per node-leaf link its server and rail (for host cages and placement).

    `numbered=False` leaves them tier by tier, not in the graph's edge order, and their ports
    unnumbered (0), for sums over links that read neither (cost_bound.py); every plane still
    repeats the first."""
    first, server, leaf_of = first_plane_links(r, plan, dev, numbered)
    return every_plane(first, r.planes, r.rails, dev), server, leaf_of


def every_plane(first: _Links, planes: int, rails: int, dev: _Devices) -> _Links:
    """The first plane's links repeated for every plane, their switches (and the NICs' global
    ports) shifted."""
    if planes == 1:
        return first
    tier1, gbps1, a_dev0, a_port0, b_dev0, b_port0 = (first.tier, first.gbps, first.a_dev, first.a_port,
                                                      first.b_dev, first.b_port)
    host = tier1 == 0
    a_shift = np.where(host, 0, dev.per_plane)
    port_shift = np.where(host, rails, 0)
    plane_no = np.repeat(np.arange(planes, dtype=np.int64), len(tier1))
    return _Links(_repeat(tier1, planes), _repeat(gbps1, planes),
                  _repeat(a_dev0, planes) + plane_no * _repeat(a_shift, planes),
                  _repeat(a_port0, planes) + plane_no * _repeat(port_shift, planes),
                  _repeat(b_dev0, planes) + plane_no * dev.per_plane,
                  _repeat(b_port0, planes))


def first_plane_links(r: Resolved, plan: Plan, dev: _Devices, numbered: bool = True,
                      ordered: bool = True) -> tuple[_Links, np.ndarray, np.ndarray]:
    """`_generate`'s links of the first plane (every other plane repeats them), the server and
    the leaf of each NIC port. `ordered=False` leaves them tier by tier (server links in NIC port
    order, the others already in the graph's order within their tier)."""
    e = r.rails
    leaf_of, port_of = _assignment(plan, e)
    endpoints = len(leaf_of)
    server, rail = floor_divmod(np.arange(endpoints, dtype=np.int64), e)
    leaves_per_pod = plan.leaves_per_pod if plan.tiers == 3 else plan.leaves

    # leaf-spine, one plane
    li = np.arange(plan.leaves, dtype=np.int64)
    pod = li // leaves_per_pod if plan.tiers == 3 else np.zeros_like(li)
    local = li - pod * leaves_per_pod
    ls_leaf, ls_t = _spread_links(plan.leaves, plan.leaf_up, plan.spines_per_pod, local * plan.leaf_up)
    ls_spine = pod[ls_leaf] * plan.spines_per_pod + ls_t
    unnumbered = np.zeros(len(ls_leaf), np.int64)
    ls_pa = plan.leaf_down + 1 + rank_within(ls_leaf) if numbered else unnumbered
    ls_pb = 1 + rank_within(ls_spine) if numbered else unnumbered

    # spine-core, one plane
    if plan.tiers == 3:
        si = np.arange(plan.spines, dtype=np.int64)
        s_local, s_pod = si % plan.spines_per_pod, si // plan.spines_per_pod
        sc_spine, sc_t = _spread_links(plan.spines, plan.spine_up, plan.core_groups_size, s_pod * plan.spine_up)
        sc_core = (s_local[sc_spine] * plan.core_groups_size + sc_t) % plan.cores
        sc_pa = plan.spine_down + 1 + rank_within(sc_spine) if numbered else np.zeros_like(sc_spine)
        sc_pb = 1 + rank_within(sc_core) if numbered else np.zeros_like(sc_spine)
    else:
        sc_spine = sc_core = sc_pa = sc_pb = np.zeros(0, dtype=np.int64)

    # Edge order of the graph: per plane, each leaf's server links then its uplinks, then each
    # spine's uplinks (networkx walks nodes in insertion order and skips edges already seen).
    # (uplinks and spine uplinks are generated owner by owner already)
    n_nl, n_ls, n_sc = endpoints, len(ls_leaf), len(sc_spine)
    order: np.ndarray | slice = slice(None)
    numbered_order = numbered and ordered
    nl_order = np.argsort(leaf_of, kind="stable") if numbered_order else np.arange(n_nl)
    if numbered_order:
        nl_cnt = np.bincount(leaf_of, minlength=plan.leaves)
        ls_cnt = np.bincount(ls_leaf, minlength=plan.leaves)
        block = np.r_[0, np.cumsum(nl_cnt + ls_cnt)[:-1]]
        nl_first = np.r_[0, np.cumsum(nl_cnt)[:-1]]
        ls_first = np.r_[0, np.cumsum(ls_cnt)[:-1]]
        nl_leaf = leaf_of[nl_order]
        pos = np.concatenate([block[nl_leaf] + np.arange(n_nl) - nl_first[nl_leaf],
                              block[ls_leaf] + nl_cnt[ls_leaf] + np.arange(n_ls) - ls_first[ls_leaf],
                              n_nl + n_ls + np.arange(n_sc)])
        order = np.empty_like(pos)
        order[pos] = np.arange(len(pos))

    tier1 = np.concatenate([np.zeros(n_nl, np.int64), np.ones(n_ls, np.int64), np.full(n_sc, 2, np.int64)])[order]
    gbps1 = np.concatenate([np.full(n_nl, r.link_gbps, np.int64), np.full(n_ls + n_sc, r.uplink_gbps, np.int64)])[order]
    nl_srv, nl_rail = server[nl_order], rail[nl_order]

    a_dev0 = np.concatenate([nl_srv, dev.leaf(0, ls_leaf), dev.spine(0, sc_spine)])[order]
    n_all = n_nl + n_ls + n_sc
    a_port0 = np.concatenate([nl_rail, ls_pa, sc_pa])[order] if numbered else np.zeros(n_all, np.int64)
    b_dev0 = np.concatenate([dev.leaf(0, leaf_of[nl_order]), dev.spine(0, ls_spine),
                             dev.core(0, sc_core)])[order]
    b_port0 = (np.concatenate([port_of[nl_order], ls_pb, sc_pb])[order] if numbered
               else np.zeros(n_all, np.int64))
    return _Links(tier1, gbps1, a_dev0, a_port0, b_dev0, b_port0), server, leaf_of


# ----------------------------------------------------------------------------- cages and groups

def _components(a: np.ndarray, b: np.ndarray, n: int) -> np.ndarray:
    """A connected-component label of each of n nodes joined by edges a-b (one label per component)."""
    label = np.arange(n, dtype=np.int64)
    while True:   # every label is a root here (label[label] == label)
        la, lb = label[a], label[b]
        differ = la != lb
        if not differ.any():  # every edge inside one label: the labels are the components
            return label
        la, lb = la[differ], lb[differ]
        # Hook the larger root of each edge across two labels onto the smaller. A root on several
        # such edges takes one of its smaller neighbours (any: a plain assignment, cheaper than
        # a minimum over them); every pass still joins, and labels only fall, so no cycle forms.
        label[np.maximum(la, lb)] = np.minimum(la, lb)
        while True:  # pointer jumping
            nxt = label[label]
            if np.array_equal(nxt, label):
                break
            label = nxt


_MIX = np.array([0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0xD6E8FEB86659FD93,
                 0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53, 0x94D049BB133111EB, 0xBF58476D1CE4E5B9],
                dtype=np.uint64)


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64 finalizer, elementwise on uint64."""
    x = x.astype(np.uint64, copy=False)   # the operations below copy it anyway
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * _MIX[6]
        x = (x ^ (x >> np.uint64(27))) * _MIX[7]
        mixed: np.ndarray = x ^ (x >> np.uint64(31))
        return mixed


def choose_for_group(group: list[LinkPlan], media: MediaIndex, forced: str
                     ) -> tuple[Choice | None, bool, dict[tuple[str, int], End]]:
    """`choose_medium` for a group of links; whether device names could give another group of
    the same shape another cable (copper centers are tried in name order); the group's cages."""
    cages = {}
    for link in group:
        cages[link.a.key], cages[link.b.key] = link.a, link.b
    choice = choose_medium(group, media, forced)
    by_name = False
    if choice is not None and choice.cable is not None:
        copper = _try_copper(group, cages, media, (choice.kind,))
        assert copper is not None   # the choice is this very kind of cable
        center = copper[1]
        centers = [k for k in cages if all(k in (link.a.key, link.b.key) for link in group)]
        by_name = sum(cages[k].host == cages[center].host for k in centers) > 1 or bool(
            cages[center].host and any(not cages[k].host for k in centers))
    return choice, by_name, cages


def link_groups(ca: np.ndarray, cb: np.ndarray, n_cages: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The groups of cages joined by links (the links' cages numbered 0..n_cages-1), numbered in
    the order of each group's first link: (each cage's component label, each label's group, each
    link's group, the number of groups)."""
    n = len(ca)
    comp = _components(ca, cb, n_cages)
    g_raw = comp[ca]
    first_link = np.full(n_cages, n, np.int64)
    np.minimum.at(first_link, g_raw, np.arange(n))
    is_first = first_link[g_raw] == np.arange(n)
    n_groups = int(is_first.sum())
    group_of_label = np.zeros(n_cages, np.int64)
    group_of_label[g_raw[is_first]] = np.arange(n_groups)
    return comp, group_of_label, group_of_label[g_raw], n_groups


def _group_sum(h: np.ndarray, group_sorted: np.ndarray, n_groups: int) -> np.ndarray:
    """Wrap-around sum of token hashes per group (tokens sorted by group)."""
    starts = np.r_[0, np.flatnonzero(group_sorted[1:] != group_sorted[:-1]) + 1]
    out = np.zeros(n_groups, dtype=np.uint64)
    with np.errstate(over="ignore"):
        out[group_sorted[starts]] = np.add.reduceat(h, starts)
    return out


@dataclass
class _Cages:
    """Per link, the cage, lane, capacity and cage type (index into `type_names`) of each end."""

    a_cage: np.ndarray
    a_lane: np.ndarray
    a_cap: np.ndarray
    a_type: np.ndarray
    b_cage: np.ndarray
    b_lane: np.ndarray
    b_cap: np.ndarray
    b_type: np.ndarray
    type_names: list[str]
    host_type: str
    k_host: int


def closed_form_physical(derived: Derived, catalog: Catalog | None = None) -> PhysicalCounts:
    """The physical layer's counts for a template (unedited) design; see the module docstring."""
    catalog = catalog or default_catalog()
    r, plan, design = derived.resolved, derived.plan, derived.design
    servers, planes, e = design.cluster.servers, r.planes, r.rails
    dev = _Devices(servers, plan, planes)
    links, server_of_ep, leaf_of = _generate(r, plan, dev)
    row, slot, layout = template_positions(design.floorplan, servers, plan, planes, e, dev, leaf_of, server_of_ep)
    return counts_from_links(derived, catalog, links, template_cages(derived, catalog, links), dev, row, slot,
                             layout)


def template_cages(derived: Derived, catalog: Catalog, links: _Links) -> _Cages:
    """The cages of the template's links (`_generate`'s order), as `media.switch_cage` and
    `media._host_cage` give them."""
    planes = derived.resolved.planes
    # switch ports are the same in every plane: work out the first plane's cages, then repeat
    n0 = len(links.tier) // planes
    first = first_plane_cages(derived, catalog, links.tier[:n0], links.a_port[:n0], links.b_port[:n0])
    if planes > 1:
        a_cage, a_lane, a_cap, a_type, b_cage, b_lane, b_cap, b_type = (
            _repeat(x, planes) for x in (first.a_cage, first.a_lane, first.a_cap, first.a_type,
                                         first.b_cage, first.b_lane, first.b_cap, first.b_type))
        first = _Cages(a_cage, a_lane, a_cap, a_type, b_cage, b_lane, b_cap, b_type, first.type_names,
                       first.host_type, first.k_host)
    is_nl = links.tier == 0
    first.a_cage[is_nl], first.a_lane[is_nl] = host_cages(links.a_port[is_nl], first.k_host, planes,
                                                          derived.resolved.rails)
    return first


def host_cages(global_port: np.ndarray, k_host: int, planes: int, rails: int) -> tuple[np.ndarray, np.ndarray]:
    """(cage, lane) of servers' NIC ports by their global port, as `media._host_cage` gives them
    (the port's plane is global_port // rails, its rail global_port % rails)."""
    gp = global_port
    if k_host <= 1:
        return gp, np.zeros_like(gp)
    if planes > 1 and planes % k_host == 0:
        plane_, rail_ = gp // rails, gp % rails
        return rail_ * (planes // k_host) + plane_ // k_host, plane_ % k_host
    return gp // k_host, gp % k_host


def switch_port_cages(r: Resolved, plan: Plan, role: str, sw: Switch, gbps: int,
                      p: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(cage, lane, capacity) of the switch ports `p` (1-based) of a `role` switch on links of
    `gbps`, as `media.switch_cage` gives them: a leaf whose uplinks run at another speed than its
    server ports has its server ports' cages first, then its uplinks' in the cages after them."""
    k = switch_cage_capacity(sw, gbps)
    if role == "leaf" and r.link_gbps != r.uplink_gbps:
        k_down = switch_cage_capacity(sw, r.link_gbps)
        base = -(-plan.leaf_down // k_down)
        off = p - plan.leaf_down - 1
        down = p <= plan.leaf_down
        down_cage, down_lane = floor_divmod(p - 1, k_down)
        up_cage, up_lane = floor_divmod(off, k)
        return (np.where(down, down_cage, base + up_cage), np.where(down, down_lane, up_lane),
                np.where(down, k_down, k))
    cage, lane = floor_divmod(p - 1, k)
    return cage, lane, np.full(len(p), k)


def floor_divmod(x: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """`np.divmod(x, k)` for a positive `k`: by a shift and a mask where `k` is a power of two
    (the same floor quotient and remainder, negatives included, at a fifth of the CPU: a
    million-GPU plane's millions of ports are divided several times)."""
    if k & (k - 1) == 0:
        return x >> (k.bit_length() - 1), x & (k - 1)
    q, r = np.divmod(x, k)
    return q, r


def first_plane_cages(derived: Derived, catalog: Catalog, tier0: np.ndarray, a_port0: np.ndarray,
                      b_port0: np.ndarray) -> _Cages:
    """The switch cages of one plane's links, as `media.switch_cage` gives them; the host ends
    get their capacity and type, their cage and lane are left 0 (`host_cages`)."""
    r, plan = derived.resolved, derived.plan
    k_host, host_type = host_ports_per_cage(catalog, derived)
    n0 = len(tier0)
    a_cage, a_lane, a_cap, a_type, b_cage, b_lane, b_cap, b_type = (np.zeros(n0, np.int64) for _ in range(8))
    type_names = [host_type]

    def type_code(name: str) -> int:
        if name not in type_names:
            type_names.append(name)
        return type_names.index(name)

    def switch_ends(mask: np.ndarray | slice, ports: np.ndarray, role: str, sw: Switch, gbps: int, cage_out: np.ndarray,
                    lane_out: np.ndarray, cap_out: np.ndarray, type_out: np.ndarray) -> None:
        cage, lane, cap = switch_port_cages(r, plan, role, sw, gbps, ports[mask])
        cage_out[mask], lane_out[mask], cap_out[mask], type_out[mask] = cage, lane, cap, type_code(sw.cage_type)

    nl0: np.ndarray | slice
    t_ls: np.ndarray | slice
    t_sc: np.ndarray | slice
    if len(tier0) and bool(np.all(tier0[1:] >= tier0[:-1])):   # tier by tier: slices, not masks
        bounds = np.searchsorted(tier0, np.arange(4)).tolist()
        nl0, t_ls, t_sc = (slice(bounds[t], bounds[t + 1]) for t in range(3))
    else:
        nl0, t_ls, t_sc = tier0 == 0, tier0 == 1, tier0 == 2
    switch_ends(nl0, b_port0, "leaf", r.leaf_switch, r.link_gbps, b_cage, b_lane, b_cap, b_type)
    switch_ends(t_ls, a_port0, "leaf", r.leaf_switch, r.uplink_gbps, a_cage, a_lane, a_cap, a_type)
    switch_ends(t_ls, b_port0, "spine", r.spine_switch, r.uplink_gbps, b_cage, b_lane, b_cap, b_type)
    switch_ends(t_sc, a_port0, "spine", r.spine_switch, r.uplink_gbps, a_cage, a_lane, a_cap, a_type)
    switch_ends(t_sc, b_port0, "core", r.core_switch, r.uplink_gbps, b_cage, b_lane, b_cap, b_type)
    a_cap[nl0], a_type[nl0] = k_host, 0
    return _Cages(a_cage, a_lane, a_cap, a_type, b_cage, b_lane, b_cap, b_type, type_names, host_type, k_host)


def length_bins(media: MediaIndex, lengths: np.ndarray) -> np.ndarray:
    """Each length's bin among the reaches `choose_medium` compares lengths with: it reads a
    length only through "longer than this reach" tests, so lengths of one bin get one medium."""
    cuts = sorted({media.copper_reach_m} | {c.reach_m + 1e-9 for c in media.cables}
                  | {t.reach_m + 1e-9 for t in media.transceivers}
                  | {sw.cpo_reach_m + 1e-9 for sw in media.cpo.values() if sw.cpo_reach_m})
    bins: np.ndarray = np.searchsorted(np.array(cuts, dtype=np.float64), lengths, side="left")
    return bins


def cage_slots(a_dev: np.ndarray, a_cage: np.ndarray, b_dev: np.ndarray, b_cage: np.ndarray,
               servers: int, total: int) -> tuple[np.ndarray, np.ndarray, int]:
    """A slot per (device, cage) for both ends of every link, and the number of slots: servers
    (codes below `servers`) take as many slots each as the widest server cage number used, the
    switches as many as the widest switch cage number. Slots follow device, then cage order."""
    host_a, host_b = a_dev < servers, b_dev < servers
    host_w = int(max(a_cage[host_a].max(initial=-1), b_cage[host_b].max(initial=-1))) + 1
    switch_w = int(max(a_cage[~host_a].max(initial=-1), b_cage[~host_b].max(initial=-1))) + 1
    base = servers * host_w

    def slot(d: np.ndarray, c: np.ndarray, host: np.ndarray) -> np.ndarray:
        out: np.ndarray = np.where(host, d * host_w + c, base + (d - servers) * switch_w + c).astype(np.int64)
        return out

    return slot(a_dev, a_cage, host_a), slot(b_dev, b_cage, host_b), base + (total - servers) * switch_w


def counts_from_links(derived: Derived, catalog: Catalog, links: _Links, cages: _Cages, dev: _Devices,
                      row: np.ndarray, slot: np.ndarray, layout: Layout,
                      per_link: dict[str, Any] | None = None) -> PhysicalCounts:
    """Lengths, groups of cages, media, transceivers and cables of the links given, in their order.

    A link end is a host (a server's NIC cage) when its device code is a server's. Given a dict
    `per_link`, fills it with what a cabling export writes per link, as arrays in link order:
    "length" (estimated run, m), "medium" (index into MEDIA_CODES), "cable" (index into
    "cables", -1 for none), "sold" (the stock length bought, m; 0 for none) and "a_part",
    "b_part" (each end's transceiver, index into "parts", ids; -1 for none).
    """
    r, design = derived.resolved, derived.design
    fp = design.floorplan
    servers = dev.servers
    n_links = len(links.tier)
    a_cage, a_lane, a_cap, a_type = cages.a_cage, cages.a_lane, cages.a_cap, cages.a_type
    b_cage, b_lane, b_cap, b_type = cages.b_cage, cages.b_lane, cages.b_cap, cages.b_type
    type_names, host_type = cages.type_names, cages.host_type
    if n_links == 0:   # every link edited away
        return PhysicalCounts(layout, Counter(), Counter(), Counter())

    len_values, len_inv = link_lengths(fp, links, row, slot)
    length = len_values[len_inv]

    # cage ids: (device, cage) numbered densely over the cages in use (no sort needed). Each
    # class of device (servers, switches) is as wide as its own widest cage number, so a
    # one-NIC server takes one slot, not as many as the largest switch has cages (245,000
    # servers times 1,024 cages was 8 GB of scratch).
    ca, cb, n_slots = cage_slots(links.a_dev, a_cage, links.b_dev, b_cage, servers, dev.total)
    used = np.zeros(n_slots, bool)
    used[ca], used[cb] = True, True
    renumber = np.cumsum(used) - 1
    ca, cb = renumber[ca], renumber[cb]
    n_cages = int(used.sum())
    del used, renumber
    _, _, group, n_groups = link_groups(ca, cb, n_cages)
    lorder = np.argsort(group, kind="stable")             # links grouped, link order inside
    lpos = np.empty(n_links, np.int64)
    lpos[lorder] = np.arange(n_links)
    g_sorted = group[lorder]
    g_start = np.r_[0, np.flatnonzero(g_sorted[1:] != g_sorted[:-1]) + 1]
    g_nlinks = np.diff(np.r_[g_start, n_links])
    link_rank = lpos - g_start[group]                     # position of each link in its group

    # cage local index: order of first appearance (a then b) in the group's links
    ends_seq = np.empty(2 * n_links, np.int64)
    ends_seq[0::2], ends_seq[1::2] = ca[lorder], cb[lorder]
    firstpos = np.full(n_cages, 2 * n_links, np.int64)
    np.minimum.at(firstpos, ends_seq, np.arange(2 * n_links))
    first_occ = firstpos[ends_seq] == np.arange(2 * n_links)
    seen = np.cumsum(first_occ)                           # distinct cages up to each end
    before_group = np.r_[0, seen][2 * g_start]            # distinct cages before each group
    local = np.zeros(n_cages, np.int64)
    occ_pos = np.flatnonzero(first_occ)
    occ_cage = ends_seq[occ_pos]
    occ_group = g_sorted[occ_pos // 2]
    local[occ_cage] = seen[occ_pos] - 1 - before_group[occ_group]
    g_ncages = np.bincount(occ_group, minlength=n_groups)
    del ends_seq, firstpos, first_occ, seen

    cage_host = np.zeros(n_cages, np.int8)
    cage_type = np.zeros(n_cages, np.int8)
    cage_cap = np.zeros(n_cages, np.int16)
    cage_host[ca] = links.a_dev < servers
    cage_host[cb] = links.b_dev < servers
    cage_type[ca], cage_type[cb] = a_type, b_type
    cage_cap[ca], cage_cap[cb] = a_cap, b_cap

    # group tiers: a single tier gives its forced medium, mixed tiers "auto"
    g_tmin = np.full(n_groups, 9, np.int64)
    g_tmax = np.full(n_groups, -1, np.int64)
    np.minimum.at(g_tmin, group, links.tier)
    np.maximum.at(g_tmax, group, links.tier)
    forced_of_tier = np.array([FORCED_CODES.index(fp.forced_medium(t)) for t in TIERS])
    g_forced = np.where(g_tmin == g_tmax, forced_of_tier[np.clip(g_tmin, 0, len(TIERS) - 1)], 0)

    media = MediaIndex(catalog, r.technology.family)
    bin_of_len = length_bins(media, len_values)
    len_bin = bin_of_len[len_inv]

    # shape (what _ChoiceMemo keys on: exact lengths) and class (shape plus what the accounting
    # reads), each also with lengths binned
    u = np.uint64
    ctok = _mix((local[occ_cage].astype(u) << u(32)) | (cage_cap[occ_cage].astype(u) << u(16))
                | (cage_type[occ_cage].astype(u) << u(8)) | cage_host[occ_cage].astype(u))
    rank_u = link_rank.astype(u)
    rank_gbps = (rank_u << u(16)) | links.gbps.astype(u)
    ends_local = (local[ca].astype(u) << u(20)) | local[cb].astype(u)
    with np.errstate(over="ignore"):
        common = _group_sum(ctok, occ_group, n_groups) + _mix(
            g_forced.astype(u) * _MIX[2] + g_nlinks.astype(u) * _MIX[3] + g_ncages.astype(u) * _MIX[4])
        xtok = _mix((rank_u << u(24)) | (b_lane.astype(u) << u(4)) | links.tier.astype(u))
        extra = _group_sum(xtok[lorder], g_sorted, n_groups)

        def shape_and_class(lcode: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            ltok = _mix(_mix((lcode.astype(u) << u(40)) | ends_local) ^ rank_gbps)
            shape = _mix(_group_sum(ltok[lorder], g_sorted, n_groups) + common)
            return shape, _mix(shape ^ extra)

        shape_b, class_b = shape_and_class(len_bin)

    built: dict[int, list[LinkPlan]] = {}
    names: dict[int, str] = {}

    def name(code: int) -> str:
        if code not in names:
            names[code] = dev.name(code)
        return names[code]

    def group_links(g: int) -> list[LinkPlan]:
        if g in built:
            return built[g]
        ids = lorder[g_start[g]:g_start[g] + g_nlinks[g]]
        cols = zip(ids.tolist(), *(arr[ids].tolist() for arr in (
            links.tier, links.gbps, links.a_dev, links.a_port, a_cage, a_lane, a_type, a_cap,
            links.b_dev, links.b_port, b_cage, b_lane, b_type, b_cap, length)), strict=True)
        out = []
        for li_, t, gb, ad, ap, ac, al, at, acp, bd, bp, bc, bl, bt, bcp, ln in cols:
            if ad < servers:
                a = End(server_device(ad), f"nic-{ap + 1}", ac, al, True, host_type, acp)
            else:
                a = End(name(ad), str(ap), ac, al, False, type_names[at], acp)
            if bd < servers:
                b = End(server_device(bd), f"nic-{bp + 1}", bc, bl, True, host_type, bcp)
            else:
                b = End(name(bd), str(bp), bc, bl, False, type_names[bt], bcp)
            out.append(LinkPlan(li_, TIERS[t], gb, a, b, ln))
        built[g] = out
        return out

    def choose(g: int) -> tuple[Choice | None, bool]:
        """(choice by local cage index, whether another group of the same binned shape could get
        another cable because copper centers are tried in device-name order)."""
        choice, by_name, cages = choose_for_group(group_links(g), media, FORCED_CODES[int(g_forced[g])])
        if choice is not None and choice.modules:
            pos = {k: i for i, k in enumerate(cages)}
            choice = type(choice)(choice.kind, choice.cable, choice.optic,
                                  {pos[k]: m for k, m in choice.modules.items()}, choice.forced_failed)
        return choice, by_name

    # one choice per binned shape, from its first group; where device names could change the
    # cable, fall back to the exact shapes, as the link-by-link path remembers them
    binned_first = np.unique(shape_b, return_index=True)[1]
    choice_of: dict[tuple[str, int], Choice | None] = {}
    by_name_shapes = []
    for g in np.sort(binned_first).tolist():
        choice, by_name = choose(g)
        if by_name:
            by_name_shapes.append(shape_b[g])
        else:
            choice_of[("b", int(shape_b[g]))] = choice
    exact = np.isin(shape_b, np.array(by_name_shapes, dtype=np.uint64)) if by_name_shapes else None
    if exact is not None and exact.any():
        with np.errstate(over="ignore"):
            shape_x, class_x = shape_and_class(len_inv)
            class_h = np.where(exact, class_x ^ _MIX[5], class_b)
        for g in np.flatnonzero(exact)[np.unique(shape_x[exact], return_index=True)[1]].tolist():
            choice_of[("x", int(shape_x[g]))] = choose(g)[0]
    else:
        class_h = class_b
    class_keys, class_first, class_of_group, class_count = np.unique(
        class_h, return_index=True, return_inverse=True, return_counts=True)
    class_of_group = class_of_group.reshape(-1)
    n_classes = len(class_keys)

    transceivers: Counter[PartSide] = Counter()
    ends: Counter[PartSide] = Counter()
    cables: Counter[CableLength] = Counter()
    custom: Counter[CableLength] = Counter()
    problems: Counter[tuple[str, int]] = Counter()
    forced_failed: Counter[tuple[str, str]] = Counter()
    max_links = int(g_nlinks.max(initial=1))
    class_medium = np.zeros((n_classes, max_links), np.int64)
    # per class and link position: fiber (index into fibers, -1 none), pieces, splitter (-1 none)
    class_fiber = np.full((n_classes, max_links), -1, np.int64)
    class_pieces = np.zeros((n_classes, max_links), np.int64)
    class_split = np.full((n_classes, max_links), -1, np.int64)
    class_cable = np.full(n_classes, -1, np.int64)
    # per class and cage (local index in the group): its transceiver, index into parts (-1 none)
    max_cages = int(g_ncages.max(initial=1))
    class_module = np.full((n_classes, max_cages), -1, np.int64)
    parts: list[str] = []
    class_watts = np.zeros(n_classes)
    fibers: list[Cable] = []                               # catalog cables by index
    split_fiber: dict[tuple[int, int], int] = {}           # (class, splitter) -> fibers index

    fiber_ids: dict[str, int] = {}                         # cable id -> index into fibers

    def fiber_index(cable: Cable) -> int:
        if cable.id not in fiber_ids:
            fiber_ids[cable.id] = len(fibers)
            fibers.append(cable)
        return fiber_ids[cable.id]

    for c, g in enumerate(class_first.tolist()):
        mult = int(class_count[c])
        group_ = group_links(g)
        choice = choice_of["x", int(shape_x[g])] if exact is not None and exact[g] else choice_of["b", int(shape_b[g])]
        group_cages: dict[CageKey, End] = {}
        for link in group_:
            group_cages[link.a.key], group_cages[link.b.key] = link.a, link.b
        if choice is None:
            for link in group_:
                problems[(link.tier, link.gbps)] += mult
            continue
        if choice.forced_failed:
            forced_failed[(group_[0].tier, FORCED_CODES[int(g_forced[g])])] += len(group_) * mult
        if choice.cable:
            cable = choice.cable
            class_cable[c] = fiber_index(cable)
            class_watts[c] = cable.power_w + cable.leg_power_w * (len(group_cages) - 1)
            class_medium[c, :len(group_)] = MEDIA_CODES.index(cable.kind)
            continue
        keys_ = list(group_cages)
        modules = {keys_[i]: m for i, m in choice.modules.items()}
        class_medium[c, :len(group_)] = MEDIA_CODES.index(MEDIUM_OF_OPTIC[choice.optic])
        for key, module in modules.items():
            if module is not None:   # None: a co-packaged-optics port
                transceivers[(module.id, "host" if group_cages[key].host else "switch")] += mult
                if module.id not in parts:
                    parts.append(module.id)
                class_module[c, keys_.index(key)] = parts.index(module.id)
        slots: dict[tuple[CageKey, int], int] = {}
        for j, link in enumerate(group_):
            for part, e in ((part_id(modules[link.a.key]), link.a), (part_id(modules[link.b.key]), link.b)):
                if part:
                    ends[(part, "host" if e.host else "switch")] += mult
            main = modules[link.b.key]
            if main is None:   # a CPO port above: one fiber per link, as media.compute_physical
                class_fiber[c, j] = fiber_index(catalog.cables[media.cpo_fiber(link.b.cage_type)])
                class_pieces[c, j] = 1
                continue
            k, cn = link.b.capacity, main.connectors
            if k > cn and main.split_fiber:
                slot_key = (link.b.key, link.b.lane // (k // cn))
                if slot_key not in slots:
                    slots[slot_key] = len(slots)
                    split_fiber[(c, slots[slot_key])] = fiber_index(catalog.cables[main.split_fiber])
                class_split[c, j] = slots[slot_key]
                continue
            class_fiber[c, j] = fiber_index(catalog.cables[main.fiber])
            class_pieces[c, j] = max(1, cn // k)

    # exact lengths: sold lengths per link, per splitter and per cable, counted in numpy
    n_len = len(len_values)
    flat = class_of_group[group] * max_links + link_rank     # (class, position in group) per link
    power: dict[CableLength, float] = {}

    def add(fiber_codes: np.ndarray, len_codes: np.ndarray, weights: np.ndarray | None = None) -> dict[int, float]:
        """cables[(id, sold)] += weight for each (fiber, length) pair; returns sold per pair key."""
        key = fiber_codes * n_len + len_codes
        counts = np.bincount(key, weights=weights, minlength=0)
        out: dict[int, float] = {}
        for k in np.flatnonzero(counts).tolist():
            cable = fibers[k // n_len]
            sold, made = sold_length(cable, float(len_values[k % n_len]))
            n = int(counts[k])
            cables[(cable.id, sold)] += n
            if made:
                custom[(cable.id, sold)] += n
            power.setdefault((cable.id, sold), 0.0)
            out[k] = sold
        return out

    link_cable = np.full(n_links, -1, np.int64)
    link_sold = np.zeros(n_links)
    lf = class_fiber.ravel()[flat]
    has = lf >= 0
    if has.any():
        sold_fiber = add(lf[has], len_inv[has], class_pieces.ravel()[flat][has].astype(np.float64))
        if per_link is not None:
            link_cable[has] = lf[has]
            link_sold[has] = _looked_up(sold_fiber, lf[has] * n_len + len_inv[has])
    ls = class_split.ravel()[flat]
    has = ls >= 0
    if has.any():
        width_s = int(ls.max()) + 1
        sid = group[has] * width_s + ls[has]
        uniq_s, inv_s = np.unique(sid, return_inverse=True)
        longest = np.zeros(len(uniq_s), np.int64)
        np.maximum.at(longest, inv_s.reshape(-1), len_inv[has])
        s_group, s_local = uniq_s // width_s, uniq_s % width_s
        s_class = class_of_group[s_group]
        s_fiber = np.array([split_fiber[(c_, l_)] for c_, l_ in zip(s_class.tolist(), s_local.tolist(), strict=True)],
                           np.int64)
        sold_split = add(s_fiber, longest)
        if per_link is not None:
            inv_s = inv_s.reshape(-1)
            link_cable[has] = s_fiber[inv_s]
            link_sold[has] = np.array([sold_split[k] for k in (s_fiber * n_len + longest).tolist()])[inv_s]
    g_cable = class_cable[class_of_group]
    cabled = np.flatnonzero(g_cable >= 0)                  # groups in group order
    if len(cabled):
        g_longest = np.zeros(n_groups, np.int64)
        np.maximum.at(g_longest, group, len_inv)
        sold_of = add(g_cable[cabled], g_longest[cabled])
        if per_link is not None:
            cabled_link = g_cable[group] >= 0
            link_cable[cabled_link] = g_cable[group][cabled_link]
            keys_l = g_cable[group][cabled_link] * n_len + g_longest[group][cabled_link]
            link_sold[cabled_link] = _looked_up(sold_of, keys_l)
        bucket_key = g_cable[cabled] * n_len + g_longest[cabled]
        # power: the same float additions, in the same (group) order, as the link-by-link path
        keys_u, inv_u = np.unique(bucket_key, return_inverse=True)
        sold_bucket = [(fibers[k // n_len].id, sold_of[k]) for k in keys_u.tolist()]
        bucket_ids = {b: i for i, b in enumerate(dict.fromkeys(sold_bucket))}
        b_of_group = np.array([bucket_ids[b] for b in sold_bucket], np.int64)[inv_u.reshape(-1)]
        watts = class_watts[class_of_group[cabled]]
        for b_key, i in bucket_ids.items():
            power[b_key] = float(np.cumsum(watts[b_of_group == i])[-1])

    # per link medium, then counts by tier in order of first appearance
    n_media = len(MEDIA_CODES)
    code = links.tier * n_media + class_medium.ravel()[flat]
    n_tiers = len(TIERS)
    c_n = np.bincount(code, minlength=n_tiers * n_media)
    c_first = np.full(n_tiers * n_media, n_links, np.int64)
    np.minimum.at(c_first, code, np.arange(n_links))
    t_n = c_n.reshape(n_tiers, n_media).sum(axis=1)
    t_first = c_first.reshape(n_tiers, n_media).min(axis=1)
    tier_first = {TIERS[t]: int(t_n[t]) for t in np.argsort(t_first, kind="stable").tolist() if t_n[t]}
    media_counts: dict[str, dict[str, int]] = {}
    for k in np.argsort(c_first, kind="stable").tolist():
        if c_n[k]:
            t, m = divmod(k, n_media)
            media_counts.setdefault(TIERS[t], {})[MEDIA_CODES[m]] = int(c_n[k])
    media_counts = {t: media_counts[t] for t in tier_first}

    if per_link is not None:
        module_of = class_module.ravel()
        cage_class = class_of_group[group] * max_cages
        per_link.update(length=length, medium=class_medium.ravel()[flat], cable=link_cable, sold=link_sold,
                        cables=fibers, a_part=module_of[cage_class + local[ca]],
                        b_part=module_of[cage_class + local[cb]], parts=parts)
    findings = _findings(problems, forced_failed, custom, r.technology.family)
    return PhysicalCounts(layout, transceivers, ends, cables, power, custom, findings, tier_first, media_counts)
