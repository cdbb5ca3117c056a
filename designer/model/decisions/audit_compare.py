"""The audit's comparison on arrays: which of a capture's links can be in a finding.

A 131,072-GPU capture has 400,000 links and nearly all are where the design puts them. Here the
capture's host ports and switch pairs, as codes of the design devices they are placed on, are
compared with the design's (`DesignView.arrays`) as sorted packed keys, and only the links that
differ are handed to the audit's link-by-link judgement (decisions/audit.py), which words the
findings:

- a host link is handed on with every other link of its HCA when the HCA is not placed, its
  first cable is not where the design (or its placement by leaf or by port) allows, or that cable
  runs below the designed rate or width; links between two HCAs always are;
- a switch link is handed on when either end is not placed, or its pair's link count differs
  from the design's, or a link of its pair runs below the designed rate or width; the designed
  pairs that differ are handed on with them, in the design's order.

The links handed on keep their order, so the findings come out as the link-by-link reading of
every link gives them (held equal by tests/test_audit_compare.py). Where an assumption of this
reading does not hold (two HCAs placed on one design NIC, a design NIC with two host links, an
HCA placed on a design NIC an edit left without one), the audit reads every link instead
(`select` returns None). A host link an edit added may be on any port of its leaf.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from designer.model.common.arrays import sorted_distinct
from designer.model.decisions.audit_uplinks import LeafUplinks
from designer.model.topology.asbuilt import AsBuilt, Link, link_ends
from designer.model.topology.capture_mapping import Placement, role_codes
from designer.model.topology.design_view import ANY_PORT, DesignArrays, DesignView, PlanPairs

# Role codes of a capture's devices.
_OTHER, _NIC, _SWITCH = 0, 1, 2
# The placement's role codes (capture_groups: 0 other, NIC, LEAF, SPINE, CORE) as these.
_ROLE_OF_CODE = np.array([_OTHER, _NIC, _SWITCH, _SWITCH, _SWITCH], dtype=np.int8)


@dataclass
class Held:
    """The design NICs that an HCA with a cable to a switch is placed on."""

    unheld: list[str]                        # design NICs without such an HCA (not sorted)
    present: Callable[[str], bool]           # does the server of this design NIC have one
    node_hca: Callable[[], dict[str, str]]   # design NIC -> its HCA, every one (read for ports down)


@dataclass
class Selection:
    """The links that can be in a finding, in capture order, and what the rest tells."""

    self_loops: list[Link]
    host_wires: list[Link]
    switch_wires: list[Link]
    pairs: dict[tuple[str, str], tuple[int, int, str]]    # the designed pairs that differ, in design order
    held: Held
    uplinks: LeafUplinks | None                           # for the leaves' own rule (inferred design)
    present: np.ndarray                                   # per design node: a capture device placed on it


def select(fabric: AsBuilt, roles: Mapping[str, str], g: DesignView, placement: Placement, aside: set[str],
           own_rule: bool) -> Selection | None:
    """The links to judge one by one, or None when the capture must be read link by link."""
    ends = link_ends(fabric)
    if ends is None or not fabric.links:
        return None
    da = g.arrays()
    if not da.one_link_per_nic:
        return None
    ids, n_nodes = ends.ids, len(da.names)
    mapping, code = placement.mapping, da.code
    # The roles as the placement coded them (read once per capture and roles).
    role = _ROLE_OF_CODE[role_codes(fabric, roles, ids)] if isinstance(roles, dict) else np.array(
        [_NIC if r == "nic" else _SWITCH if r in ("leaf", "spine", "core") else _OTHER
         for r in (roles.get(d) for d in ids)], dtype=np.int8)
    # Each device's design node code: the mapping read key by key in C (141,312 HCAs and
    # switches at 131K GPUs), every key a capture device and every value a design node.
    try:
        rows = np.fromiter(map(ends.index.__getitem__, mapping), dtype=np.int64, count=len(mapping))
        to = np.fromiter(map(code.__getitem__, mapping.values()), dtype=np.int64, count=len(mapping))
    except KeyError:
        return None                      # a device placed on no design node, or not in the capture
    m = np.full(len(ids), -1, dtype=np.int64)
    m[rows] = to
    set_apart = _flags(aside, ends.index, len(ids))
    a, b, pa, pb = ends.a, ends.b, ends.pa, ends.pb
    # Rates off the link arrays: reading them off the links would make all 400,000 at 131K GPUs.
    rates = ends
    kept = ~set_apart[a] & ~set_apart[b]
    self_loop = kept & (a == b)
    kept &= a != b
    nic, switch = role == _NIC, role == _SWITCH
    present = np.zeros(n_nodes, dtype=bool)
    present[m[m >= 0]] = True

    # --- host links ------------------------------------------------------------------------
    host = kept & (nic[a] | nic[b])
    between_nics = host & nic[a] & nic[b]
    on_switch = host & ~between_nics
    w = np.flatnonzero(on_switch)
    a_is_nic = nic[a[w]]
    hca = np.where(a_is_nic, a[w], b[w])
    sw = np.where(a_is_nic, b[w], a[w])
    port = np.where(a_is_nic, pb[w], pa[w])
    hcas, first = np.unique(hca, return_index=True)
    node = m[hcas]
    held = node[node >= 0]
    if len(sorted_distinct(held)) != len(held):
        return None                      # two HCAs on one design NIC: read link by link
    row = np.where(node >= 0, da.row_of[np.maximum(node, 0)], -1)
    if np.any(row[node >= 0] < 0):
        return None                      # an HCA placed on a NIC without a designed host link
    safe = np.maximum(row, 0)
    f = first
    on = m[sw[f]]
    any_port = _flags(placement.any_port, ends.index, len(ids))[hcas]
    by_leaf = _flags(placement.by_leaf, ends.index, len(ids))[hcas]
    in_place = ((on == da.host_leaf[safe]) & ((port[f] == da.host_port[safe]) | any_port
                                              | (da.host_port[safe] == ANY_PORT))) | (
        by_leaf & (on >= 0) & da.leaf[np.maximum(on, 0)])
    wire = w[f]
    slow = ((rates.gbps[wire] > 0) & (rates.gbps[wire] < da.host_gbps[safe])) | (
        (rates.width[wire] > 0) & (rates.width[wire] < 4))
    judge = np.zeros(len(ids), dtype=bool)
    judge[hcas[(row < 0) | ~in_place | slow]] = True
    host_pick = between_nics.copy()
    host_pick[w[judge[hca]]] = True

    held_row = np.zeros(len(da.host_nic), dtype=bool)
    held_row[da.row_of[held]] = True
    server_present = np.zeros(int(da.host_server.max()) + 1 if len(da.host_server) else 0, dtype=bool)
    server_present[da.host_server[held_row]] = True

    def node_hca() -> dict[str, str]:
        # As the link-by-link reading makes it: in placement order, the HCAs with a switch cable.
        cabled = np.zeros(len(ids), dtype=bool)
        cabled[hcas] = True
        index = ends.index
        return {n: d for d, n in mapping.items() if d in index and cabled[index[d]] and roles.get(d) == "nic"}

    names = da.names
    held_of = Held([names[c] for c in da.host_nic[~held_row].tolist()],
                   lambda nic: bool(server_present[da.host_server[da.row_of[code[nic]]]]), node_hca)

    # --- switch pairs ----------------------------------------------------------------------
    s = np.flatnonzero(kept & switch[a] & switch[b])
    ma, mb = m[a[s]], m[b[s]]
    placed = (ma >= 0) & (mb >= 0)
    sp = s[placed]
    ma, mb = ma[placed], mb[placed]
    low_first = da.level[ma] <= da.level[mb]
    key = np.where(low_first, ma, mb) * max(1, n_nodes) + np.where(low_first, mb, ma)
    built, built_inverse, built_count = np.unique(key, return_inverse=True, return_counts=True)
    dk = da.pair_key
    if len(built):      # links built per designed pair
        at = np.minimum(np.searchsorted(built, dk), len(built) - 1)
        have = np.where(built[at] == dk, built_count[at], 0)
    else:
        have = np.zeros(len(dk), dtype=np.int64)
    if len(dk):         # which built pairs are designed, and their rate
        at_design = np.minimum(np.searchsorted(dk, built), len(dk) - 1)
        designed = dk[at_design] == built
        rate = np.where(designed, da.pair_gbps[at_design], 0.0)
    else:
        designed, rate = np.zeros(len(built), dtype=bool), np.zeros(len(built))
    slow_wire = ((rates.gbps[sp] > 0) & (rates.gbps[sp] < rate[built_inverse])) | (
        (rates.width[sp] > 0) & (rates.width[sp] < 4))
    # A designed pair differs when its link count does, or a link of it runs slow.
    d_differ = (have != da.pair_links) | np.isin(dk, built[built_inverse[slow_wire]])
    differ = ~designed | np.isin(built, dk[d_differ])
    switch_pick = np.zeros(len(a), dtype=bool)
    switch_pick[s[~placed]] = True
    switch_pick[sp[differ[built_inverse]]] = True
    differing = sorted(da.pair_order[d_differ].tolist())
    if isinstance(g.pairs, PlanPairs):
        pairs = g.pairs.some(differing)      # only these named (262,144 pairs at 131K GPUs)
    else:
        pair_names = list(g.pairs)
        pairs = {pair_names[i]: g.pairs[pair_names[i]] for i in differing}

    uplinks = _uplinks(fabric, da, names, dk, have, d_differ, built, built_count, present, hca, sw, m) \
        if own_rule else None
    links = fabric.links
    return Selection([links[i] for i in np.flatnonzero(self_loop).tolist()],
                     [links[i] for i in np.flatnonzero(host_pick).tolist()],
                     [links[i] for i in np.flatnonzero(switch_pick).tolist()],
                     pairs, held_of, uplinks, present)


def _flags(members: set[str], index: Mapping[str, int], size: int) -> np.ndarray:
    out = np.zeros(size, dtype=bool)
    try:        # read in C: 131,072 HCAs at 131K GPUs, every one a capture device
        out[np.fromiter(map(index.__getitem__, members), dtype=np.int64, count=len(members))] = True
    except KeyError:
        out[[i for i in map(index.get, members) if i is not None]] = True
    return out


def _uplinks(fabric: AsBuilt, da: DesignArrays, names: list[str], dk: np.ndarray, have: np.ndarray,
             d_differ: np.ndarray, built: np.ndarray, built_count: np.ndarray, present: np.ndarray,
             hca: np.ndarray, sw: np.ndarray, m: np.ndarray) -> LeafUplinks:
    """The leaves' uplink summary on the pair arrays (as `audit_uplinks.uplinks_of_pairs`)."""
    n = max(1, len(names))
    d_lo, d_hi = dk // n, dk % n
    of_leaf = da.leaf[d_lo] & present[d_lo]
    leaf_codes = sorted_distinct(d_lo[of_leaf])
    want = np.bincount(d_lo[of_leaf], weights=da.pair_links[of_leaf], minlength=n)
    b_lo, b_hi = built // n, built % n
    is_leaf = np.zeros(n, dtype=bool)
    is_leaf[leaf_codes] = True
    b_of = is_leaf[b_lo]
    up_sum = np.bincount(b_lo[b_of], weights=built_count[b_of], minlength=n)
    wrong = np.zeros(n, dtype=bool)
    wrong[d_lo[of_leaf & (have != da.pair_links)]] = True
    as_designed = is_leaf & ~wrong & (up_sum == want)
    # Host links per design switch (the switch end of every HCA's cables, as placed).
    ends_on = m[sw]
    hosts = np.bincount(ends_on[ends_on >= 0], minlength=n)
    ratio = hosts[as_designed] / np.maximum(1, want[as_designed])
    worst = float(ratio.max()) if len(ratio) else None
    others = np.flatnonzero(is_leaf & ~as_designed)
    up: dict[str, Counter[str]] = {}
    sel = np.flatnonzero(b_of & ~as_designed[b_lo])
    for lo, hi, c in zip(b_lo[sel].tolist(), b_hi[sel].tolist(), built_count[sel].tolist(), strict=True):
        up.setdefault(names[lo], Counter())[names[hi]] = c
    # The most common designed links per pair, the first seen in the design's order on a tie.
    values, first, counts = np.unique(da.pair_links[of_leaf][np.argsort(da.pair_order[of_leaf], kind="stable")],
                                      return_index=True, return_counts=True)
    best = counts == counts.max() if len(counts) else counts.astype(bool)
    per_pair = int(values[best][np.argmin(first[best])]) if len(values) else 0
    return LeafUplinks({names[c] for c in leaf_codes.tolist()},
                       {names[c]: int(want[c]) for c in leaf_codes.tolist()},
                       {names[c] for c in others.tolist()}, up,
                       {names[c]: int(hosts[c]) for c in others.tolist()}, worst,
                       {names[c] for c in sorted_distinct(d_hi[of_leaf]).tolist()}, per_pair)
