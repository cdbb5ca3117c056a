"""Where a template design's devices stand, as arrays: `floor_layout.lay_out`'s rules without a
device graph (closed_form_bom.py uses it; the tests hold the two equal through the BOM)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from designer.model.common.arrays import sorted_distinct
from designer.model.physical.floor_layout import Layout

# An index or an array of them: numpy's arithmetic on either is not followed by its type hints.
IntOrArray = Any

if TYPE_CHECKING:
    from designer.model.intent.floorplan import FloorPlan
    from designer.model.physical.link_arrays import DeviceCodes
    from designer.model.topology.sizing import Plan


def rank_within(keys: np.ndarray) -> np.ndarray:
    """0-based running count of each key among the entries before it with the same key."""
    if len(keys) and bool(np.all(keys[1:] >= keys[:-1])):   # already in order (links owner by owner)
        start = np.r_[0, np.flatnonzero(keys[1:] != keys[:-1]) + 1]
        ranks: np.ndarray = np.arange(len(keys)) - np.repeat(start, np.diff(np.r_[start, len(keys)]))
        return ranks
    order = np.argsort(keys, kind="stable")
    sk = keys[order]
    start = np.r_[0, np.flatnonzero(sk[1:] != sk[:-1]) + 1]
    runs = np.diff(np.r_[start, len(sk)])
    rank_sorted = np.arange(len(sk)) - np.repeat(start, runs)
    out: np.ndarray = np.empty_like(rank_sorted)
    out[order] = rank_sorted
    return out


def template_positions(fp: FloorPlan, servers: int, plan: Plan, planes: int, rails: int, dev: DeviceCodes,
                       leaf_of: np.ndarray, server_of_ep: np.ndarray,
                       weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, Layout]:
    """(row, slot) per device code, and the Layout counts, by `floor_layout.lay_out`'s rules: the
    template's leaves (each serving the same servers in every plane), spines and cores, placed by
    `positions_of` as an edited design's are. `weights`: each (leaf, server) entry stands for
    that many of the first plane's server links (a server's ports on one leaf, tier_shapes.py)."""
    li = np.arange(plan.leaves, dtype=np.int64)
    spread = plan.leaf_rail(li, rails) if plan.rail_su_size else li
    fallback = li * servers // (plan.leaves * planes)
    leaf_codes = np.concatenate([dev.leaf(p, li) for p in range(planes)])
    # every plane's leaves serve the first plane's servers: sort the first plane's pairs by leaf
    # and server once, and shift them plane by plane (a plane's leaf codes are above the last's)
    by_leaf = np.lexsort((server_of_ep, leaf_of))
    leaf_of, server_of_ep = leaf_of[by_leaf], server_of_ep[by_leaf]
    tiled = np.tile(weights[by_leaf], planes) if weights is not None else None
    host_leaf = np.concatenate([dev.leaf(p, leaf_of) for p in range(planes)])
    switch_codes = []
    for p in range(planes):
        switch_codes.append(dev.spine(p, np.arange(plan.spines, dtype=np.int64)))
        switch_codes.append(dev.core(p, np.arange(plan.cores, dtype=np.int64)))
    others = np.concatenate(switch_codes) if switch_codes else np.zeros(0, np.int64)
    return positions_of(fp, servers, dev.total, leaf_codes, np.tile(spread, planes), np.tile(fallback, planes),
                        host_leaf, np.tile(server_of_ep, planes), others, presorted=True, host_weight=tiled)


def positions_of(fp: FloorPlan, servers: int, n_codes: int, leaf_codes: np.ndarray, spread: np.ndarray,
                 fallback: np.ndarray, host_leaf: np.ndarray, host_server: np.ndarray,
                 others: np.ndarray, presorted: bool = False,
                 host_weight: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, Layout]:
    """(row, slot) per device code and the Layout counts, by `floor_layout.lay_out`'s rules, for
    any set of leaves: those left by an edited design's edits (edited_bom.py), given in the
    order `lay_out` takes them, with the servers each serves (one entry per host link, the
    leaf's code and the server), each one's spread and fallback server, and the spines and
    cores left (`others`, in order). Devices that are not given keep row and slot 0.
    `presorted`: the host links come sorted by leaf, then server. `host_weight`: each entry
    stands for that many host links (the leaf's home is the median of its links' servers)."""
    per_rack, per_row, per_net = fp.servers_per_rack, fp.racks_per_row, fp.switches_per_network_rack
    n_racks = max(1, -(-servers // per_rack))
    server_rows = -(-n_racks // per_row)

    def rack_of(s: IntOrArray) -> Any:
        return np.minimum(s, servers - 1) // per_rack if servers else np.zeros_like(s)

    def racks_in_row(row: IntOrArray) -> Any:
        return np.minimum(per_row, n_racks - row * per_row)

    # Each leaf's served servers, sorted: the median is its home.
    if presorted:
        s_leaf, s_srv, s_weight = host_leaf, host_server, host_weight
    else:
        order = np.lexsort((host_server, host_leaf))
        s_leaf, s_srv = host_leaf[order], host_server[order]
        s_weight = host_weight[order] if host_weight is not None else None
    starts = np.searchsorted(s_leaf, leaf_codes, side="left")
    counts = np.searchsorted(s_leaf, leaf_codes, side="right") - starts
    if s_weight is None:
        pick = np.minimum(starts + counts // 2, max(len(s_srv) - 1, 0))
    else:
        # the entry holding the leaf's middle link: links before the leaf's entries, plus half its own
        ends = np.cumsum(s_weight)
        before = np.where(starts > 0, ends[np.maximum(starts - 1, 0)], 0) if len(ends) else np.zeros_like(starts)
        links = np.where(counts > 0, ends[np.minimum(starts + counts - 1, max(len(ends) - 1, 0))] - before, 0) \
            if len(ends) else np.zeros_like(starts)
        pick = np.minimum(np.searchsorted(ends, before + links // 2, side="right"), max(len(s_srv) - 1, 0))
    home = np.where(counts > 0, s_srv[pick] if len(s_srv) else fallback, fallback)

    block: dict[int, int] = {}
    leaf_row: Any = None
    leaf_slot_local: Any = None
    if fp.placement == "middle-of-row" and len(leaf_codes):
        leaf_row = rack_of(home) // per_row
        leaf_slot_local = rank_within(leaf_row) // per_net
        rows_present, n_in_row = np.unique(leaf_row, return_counts=True)
        block = {int(rw): -(-int(n) // per_net) for rw, n in zip(rows_present, n_in_row, strict=True)}
    block_arr = np.zeros(server_rows, dtype=np.int64)
    for rw, b in block.items():
        block_arr[rw] = b
    net = np.concatenate([leaf_codes, others]) if fp.placement == "network-row" else others
    net_racks = -(-len(net) // per_net)
    net_rows = -(-net_racks // per_row)
    mid = server_rows // 2

    def floor_row(server_row: IntOrArray) -> Any:
        return np.where(server_row < mid, server_row, server_row + net_rows)

    def slot_of(rack: IntOrArray) -> tuple[Any, Any]:
        row, loc = rack // per_row, rack % per_row
        half = racks_in_row(row) // 2
        return row, np.where(loc < half, loc, loc + block_arr[row])

    row = np.zeros(n_codes, dtype=np.int64)
    slot = np.zeros(n_codes, dtype=np.int64)
    srv = np.arange(servers, dtype=np.int64)
    sr, ss = slot_of(rack_of(srv))
    row[:servers], slot[:servers] = floor_row(sr), ss

    if fp.placement == "su-racks" and len(leaf_codes):
        # the leaf's distinct racks in order; racks[spread % len(racks)], or its fallback's rack
        position = np.searchsorted(leaf_codes, s_leaf, sorter=np.argsort(leaf_codes))
        position = np.argsort(leaf_codes)[np.minimum(position, len(leaf_codes) - 1)]
        known = leaf_codes[position] == s_leaf
        key = sorted_distinct(position[known] * (n_racks + 1) + rack_of(s_srv[known]))
        u_leaf, u_rack = key // (n_racks + 1), key % (n_racks + 1)
        u_counts = np.bincount(u_leaf, minlength=len(leaf_codes))
        u_starts = np.r_[0, np.cumsum(u_counts)[:-1]]
        fallback_rack = rack_of(fallback)
        chosen = np.where(u_counts > 0, u_rack[np.minimum(u_starts + spread % np.maximum(u_counts, 1),
                                                          max(len(u_rack) - 1, 0))] if len(u_rack)
                          else fallback_rack, fallback_rack)
        lrow, lslot = slot_of(chosen)
        row[leaf_codes], slot[leaf_codes] = floor_row(lrow), lslot
    elif fp.placement == "middle-of-row" and len(leaf_codes):
        half = racks_in_row(leaf_row) // 2
        row[leaf_codes] = floor_row(leaf_row)
        slot[leaf_codes] = half + leaf_slot_local

    widest = int(max(racks_in_row(np.arange(server_rows)) + block_arr))
    i = np.arange(len(net), dtype=np.int64)
    rack = i // per_net
    net_row, loc = rack // per_row, rack % per_row
    in_this_row = np.minimum(per_row, net_racks - net_row * per_row)
    start = np.maximum(0, (widest - in_this_row) // 2)
    row[net], slot[net] = mid + net_row, start + loc

    layout = Layout({}, n_racks, sum(block.values()) + net_racks, server_rows + net_rows)
    return row, slot, layout
