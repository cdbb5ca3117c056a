"""A floor under a template fabric's bill of materials, for sizing to skip candidates cheaply.

Sizing prices every layout of every switch model (topology/switch_choice.py), and a full bill of
materials at 16,384 GPUs takes tens of milliseconds. This floor takes a fraction of that: the
links, device positions, cages and cable runs of the closed-form pass (closed_form_bom.py), but
no grouping of cages and no choice of medium. It adds, each counted so that it never exceeds the
bill's own figure:

- switches: every leaf, spine and core some link reaches, at its price-book price (the bill
  counts every switch built, at least these);
- NICs: exactly the bill's NIC line; network racks: exactly the bill's count, at its price;
- optics: a link longer than every copper and active optical cable of the technology reaches
  cannot take a cable, so each of its ends holds a transceiver (or a co-packaged-optics port,
  0), and a cage's module serves at most the cage's capacity of links: the near end counts the
  cheapest module that fits its cage, runs its speed at that capacity and reaches the link,
  divided by the capacity; the far end the same module with the fiber the bill takes for it (a
  straight fiber per link sold for the link's run, or a splitter shared by at most
  capacity / connectors links, at least the run long). This holds only when every group of
  cages finds optics, which is checked first: some optic and lane serves every kind of end at
  its longest link. Otherwise there is no floor (None) and the candidate is priced in full.

Copper cables count 0. Prices are never negative (the price book refuses them), so a part left
out, or unpriced (counted 0; its bill has no total anyway), only lowers the floor.
tests/test_cost_bound.py holds the floor at or under the full price on random designs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from designer.catalog import Catalog, Switch, UnknownPartError
from designer.catalog.entries import Cable, Transceiver
from designer.model.common.cache import ContentCache
from designer.model.intent.design import FabricDesign
from designer.model.physical.bom import _nic_items, _Pricer
from designer.model.physical.closed_form_bom import TIERS
from designer.model.physical.fabric_cost import physical_key
from designer.model.physical.link_arrays import DeviceCodes, LinkArrays
from designer.model.physical.link_runs import tier_length_counts
from designer.model.physical.media import OPTICS, MediaIndex, host_ports_per_cage, sold_length, switch_cage_capacity
from designer.model.physical.prices import PriceBook
from designer.model.physical.template_layout import template_positions
from designer.model.topology.closed_form import _spread_matrix, leaf_assignment_arrays
from designer.model.topology.derive import Derived
from designer.model.topology.sizing import Plan, Resolved, SizingError, plan_fabric, resolve
from designer.model.topology.switch_choice import FabricBound


def _price(prices: PriceBook, key: str) -> float:
    price = prices.get(key)
    return price.for_length(None) if price is not None else 0.0


def _sold(cable: Cable, runs: np.ndarray) -> np.ndarray:
    """`media.sold_length` of each run, as arrays: the first stock length that covers it, else
    the run rounded up to the metre (to 10 m above 10 m)."""
    stock = np.array(cable.lengths_m, dtype=np.float64)
    if np.any(np.diff(stock) < 0):   # stock lengths out of order: ask for each run
        return np.array([sold_length(cable, x)[0] for x in runs.tolist()])
    need = np.maximum(runs, cable.min_m)
    first = np.searchsorted(stock + 1e-9, need, side="left")
    step = np.where(need > 10, 10.0, 1.0)
    custom = np.ceil(need / step - 1e-9) * step
    return np.where(first < len(stock), stock[np.minimum(first, max(len(stock) - 1, 0))] if len(stock) else 0.0,
                    custom)


def _fiber_price(media: MediaIndex, prices: PriceBook, cable_id: str, lengths: np.ndarray,
                 straight: bool) -> np.ndarray:
    """Per length, the least a fiber of `cable_id` costs on a link that long: a straight fiber is
    sold for its own link's run (media.sold_length), a splitter for its longest link's, at
    least the run; a price grows with the length."""
    price = prices.get(cable_id)
    if price is None:
        return np.zeros(len(lengths))
    if straight:
        return np.round(price.unit_price + price.per_m * _sold(media.fibers[cable_id], lengths), 2)
    return price.unit_price + price.per_m * np.maximum(lengths - 1e-9, 0.0)


def _modules(media: MediaIndex, cage_type: str, capacity: int, gbps: int) -> list[Transceiver]:
    """Every module an end of this kind can hold, of any optic and lane rate."""
    return [t for o in OPTICS for lane in media.lanes for t in media.modules(o, lane, cage_type, capacity, gbps)]


def _serving(media: MediaIndex, cage_type: str, capacity: int, gbps: int, longest: float) -> set[tuple[str, int]]:
    """The (optic, lane) pairs that serve an end of this kind whose longest link is `longest`."""
    if cage_type in media.cpo:
        return {(o, lane) for o in OPTICS for lane in media.lanes if media.cpo_fits(cage_type, o, lane, longest)}
    return {(t.optic, t.lane_gbps) for t in _modules(media, cage_type, capacity, gbps) if t.reach_m + 1e-9 >= longest}


def _end_floor(media: MediaIndex, prices: PriceBook, cage_type: str, capacity: int, gbps: int,
               lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For an end of this kind, per length: the cheapest module a link that long can take, per
    link (price / capacity; 0 for a co-packaged-optics port), and the same with the fiber that
    module takes when this is the link's far end (media.compute_physical reads the far end's
    module: a straight fiber per link, or a splitter per `capacity // connectors` links)."""
    if cage_type in media.cpo:
        return np.zeros(len(lengths)), _fiber_price(media, prices, media.cpo_fiber(cage_type), lengths, True)
    modules = _modules(media, cage_type, capacity, gbps)
    module = np.full(len(lengths), np.inf)
    with_fiber = np.full(len(lengths), np.inf)
    for t in modules:
        reaches = t.reach_m + 1e-9 >= lengths
        split = capacity > t.connectors and bool(t.split_fiber)
        fiber_t = (_fiber_price(media, prices, t.split_fiber, lengths, False) / (capacity // t.connectors)
                   if split else _fiber_price(media, prices, t.fiber, lengths, True))
        price_t = _price(prices, t.id) / capacity
        module = np.where(reaches, np.minimum(module, price_t), module)
        with_fiber = np.where(reaches, np.minimum(with_fiber, price_t + fiber_t), with_fiber)
    # no module reaches: the group finds no optics, which the check on `_serving` rules out
    return np.where(np.isfinite(module), module, 0.0), np.where(np.isfinite(with_fiber), with_fiber, 0.0)


# A template fabric's switches some link reaches, per tier, and its optics floor (None: no
# floor), by the physical key (fabric_cost.py): the Spectrum-X and Tomahawk 5 fabrics of one
# layout, and the static and enhanced ECMP ones, share them. A value keeps its catalog and
# price book alive, so the ids in its key name no other object while it is cached.
_GEOMETRY: ContentCache[tuple[tuple[int, int, int, float] | None, Any, Any]] = ContentCache(size=1024)


def bill_floor(derived: Derived, catalog: Catalog, prices: PriceBook) -> float | None:
    """A floor under `build_bom(derived, catalog, prices).total_cost` for an unedited template
    design; None when no floor is given (see the module docstring)."""
    if derived.design.edits:
        return None
    key = (physical_key(derived, catalog), id(catalog), id(prices))
    geometry = _GEOMETRY.get_or_compute(key, lambda: (_geometry(derived, catalog, prices), catalog, prices))[0]
    if geometry is None:
        return None
    leaves, spines, cores, optics = geometry
    r = derived.resolved
    total = (leaves * _price(prices, r.leaf_switch.id) + spines * _price(prices, r.spine_switch.id)
             + cores * _price(prices, r.core_switch.id))
    return total + optics + sum(item.extended_price for item in _nic_items(derived, catalog, _Pricer(prices)))


def _geometry(derived: Derived, catalog: Catalog, prices: PriceBook) -> tuple[int, int, int, float] | None:
    """(leaves, spines, cores some link reaches, the optics floor), or None without a floor."""
    design, r, plan = derived.design, derived.resolved, derived.plan
    servers, planes = design.cluster.servers, r.planes
    dev = DeviceCodes(servers, plan, planes)
    links, weights, server_of_ep, leaf_of = _alike_links(r, plan, dev, design.floorplan.servers_per_rack)
    if len(links.tier) == 0:
        return None
    row, slot, layout = template_positions(design.floorplan, servers, plan, planes, r.rails, dev, leaf_of, server_of_ep)
    len_values, by_tier = tier_length_counts(design.floorplan, links, row, slot, len(TIERS), weights)
    media = MediaIndex(catalog, r.technology.family)

    # switches some link reaches, by tier
    present = np.zeros(dev.total, bool)
    present[links.a_dev], present[links.b_dev] = True, True
    codes = np.flatnonzero(present[servers:])
    local = codes % dev.per_plane
    leaves = int(np.count_nonzero(local < plan.leaves))
    spines = int(np.count_nonzero((local >= plan.leaves) & (local < plan.leaves + plan.spines)))
    cores = len(local) - leaves - spines
    racks = layout.network_racks * _price(prices, "network-rack")    # the bill's own rack count

    # optics: the ends of each tier's links, by kind (cage type and capacity, as template_cages
    # gives them: a server's cage, a leaf's downlink or uplink cage, a spine's, a core's)
    optical = len_values > media.copper_reach_m + 1e-9     # by length
    k_host, host_type = host_ports_per_cage(catalog, derived)

    def switch_end(sw: Switch, gbps: int) -> tuple[str, int, int]:
        return sw.cage_type, switch_cage_capacity(sw, gbps), gbps

    up = r.uplink_gbps
    ends = {0: ((host_type, k_host, r.link_gbps), switch_end(r.leaf_switch, r.link_gbps)),
            1: (switch_end(r.leaf_switch, up), switch_end(r.spine_switch, up)),
            2: (switch_end(r.spine_switch, up), switch_end(r.core_switch, up))}
    floors: dict[tuple[str, int, int], tuple[np.ndarray, np.ndarray]] = {}   # by kind, per length
    common: set[tuple[str, int]] | None = None
    optics = 0.0
    for tier, (near, far) in ends.items():
        every = by_tier[tier]
        if not every.any():
            continue
        longest = float(len_values[np.flatnonzero(every)[-1]])
        long_ = np.where(optical, every, 0)
        for is_far, kind in enumerate((near, far)):
            if kind not in floors:
                floors[kind] = _end_floor(media, prices, *kind, len_values)
            serving = _serving(media, *kind, longest)
            common = serving if common is None else common & serving
            optics += float((floors[kind][is_far] * long_).sum())
    if not common:
        return None    # some group of cages may find no optics: its links would cost nothing
    return leaves, spines, cores, optics + racks


def _alike_links(r: Resolved, plan: Plan, dev: DeviceCodes,
                 per_rack: int) -> tuple[LinkArrays, np.ndarray, np.ndarray, np.ndarray]:
    """`_generate`'s links (numbered=False) with the links alike in tier and ends' positions
    merged: (links, how many each stands for, server and leaf per NIC port as `_generate`
    gives them). A server's links count from its rack's first server, which stands where it
    does (template_layout.py places servers by rack); a switch's repeated links to one switch
    (a spread of several uplinks per pair) count once. The floor reads only tiers, ends and
    lengths, so this changes no sum and the arrays are a third of the size at 16,384 GPUs."""
    e, planes = r.rails, r.planes
    leaf_of, _ = leaf_assignment_arrays(plan, e)
    server = np.arange(len(leaf_of), dtype=np.int64) // e
    servers = dev.servers
    # node-leaf: (rack's first server, leaf) pairs with their link counts
    racks = max(1, -(-servers // per_rack))
    if racks * plan.leaves <= 8 * len(leaf_of) + 1024:
        count = np.bincount(server // per_rack * plan.leaves + leaf_of, minlength=racks * plan.leaves)
        pair = np.flatnonzero(count)
        nl_w = count[pair]
    else:   # too many racks and leaves for a table: sort instead
        pair, nl_w = np.unique(server // per_rack * plan.leaves + leaf_of, return_counts=True)
    nl_srv, nl_leaf = pair // plan.leaves * per_rack, pair % plan.leaves

    # leaf-spine and spine-core: each (owner, target) pair with its links, as _spread_links spreads them
    leaves_per_pod = plan.leaves_per_pod if plan.tiers == 3 else plan.leaves
    li = np.arange(plan.leaves, dtype=np.int64)
    pod = li // leaves_per_pod if plan.tiers == 3 else np.zeros_like(li)
    offsets = (li - pod * leaves_per_pod) * plan.leaf_up
    ls_leaf, ls_t, ls_w = _spread_pairs(plan.leaves, plan.leaf_up, plan.spines_per_pod, offsets)
    ls_spine = pod[ls_leaf] * plan.spines_per_pod + ls_t
    if plan.tiers == 3:
        si = np.arange(plan.spines, dtype=np.int64)
        s_local, s_pod = si % plan.spines_per_pod, si // plan.spines_per_pod
        sc_spine, sc_t, sc_w = _spread_pairs(plan.spines, plan.spine_up, plan.core_groups_size, s_pod * plan.spine_up)
        sc_core = (s_local[sc_spine] * plan.core_groups_size + sc_t) % plan.cores
    else:
        sc_spine = sc_core = sc_w = np.zeros(0, dtype=np.int64)

    tier0 = np.concatenate([np.zeros(len(nl_srv), np.int64), np.ones(len(ls_leaf), np.int64),
                            np.full(len(sc_spine), 2, np.int64)])
    a0 = np.concatenate([nl_srv, dev.leaf(0, ls_leaf), dev.spine(0, sc_spine)])
    b0 = np.concatenate([dev.leaf(0, nl_leaf), dev.spine(0, ls_spine), dev.core(0, sc_core)])
    w0 = np.concatenate([nl_w, ls_w, sc_w]).astype(np.float64)
    if planes > 1:   # every plane is the first with its switches shifted
        shift = np.repeat(np.arange(planes, dtype=np.int64) * dev.per_plane, len(tier0))
        host = np.tile(tier0 == 0, planes)
        a0 = np.tile(a0, planes) + np.where(host, 0, shift)
        b0 = np.tile(b0, planes) + shift
        tier0, w0 = np.tile(tier0, planes), np.tile(w0, planes)
    none = np.zeros(0, np.int64)
    return LinkArrays(tier0, none, a0, none, b0, none), w0, server, leaf_of


def _spread_pairs(owners: int, count: int, targets: int,
                  offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`_spread_links` as (owner, target, links) for each pair with at least one link."""
    if targets <= 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    per = _spread_matrix(count, targets, offsets).ravel()
    keep = np.flatnonzero(per)
    return keep // targets, keep % targets, per[keep]


def fabric_bound(catalog: Catalog, prices: PriceBook | None) -> FabricBound | None:
    """A floor function for sizing, under `fabric_cost(catalog, prices)`; None without a book."""
    if prices is None:
        return None

    def bound(design: FabricDesign) -> float | None:
        try:
            # resolved and sized only: the metrics, which derive() computes, are not needed
            r = resolve(design, catalog)
            return bill_floor(Derived(design, r, plan_fabric(design, r)), catalog, prices)
        except (SizingError, UnknownPartError, ValueError):
            return None

    return bound
