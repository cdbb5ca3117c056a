"""The physical layer's counts of an edited design, from the template's link arrays and the edits.

An edit removes a switch and its cables, removes cables between two switches, or adds manual
cables. Instead of building the device graph and walking every link, this replays the edits on
the template's link arrays (closed_form_bom.py `_generate`): removed links are masked out, added
links are appended with the ports `builders.apply_edits` gives them, and every link is put in the
order the device graph would list it. Placement follows `floor_layout.lay_out` with the leaves
and switches that remain, and the counting pass is the template's (`counts_from_links`).

The result equals the link-by-link computation (media.py `compute_physical`) on the edited graph;
tests/test_edited_bom.py holds it so on random edits. Edits that name a server's NIC are left to
the link-by-link path (`edited_physical` returns None), as the switch-pair metrics leave them to
the graph.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from designer.catalog import Catalog, default_catalog
from designer.model.common.cache import ContentCache
from designer.model.intent.design import content_key
from designer.model.intent.serde import to_data
from designer.model.physical.class_bom import class_physical
from designer.model.physical.closed_form_bom import (
    PhysicalCounts,
    _Cages,
    _generate,
    closed_form_physical,
    counts_from_links,
    template_cages,
)
from designer.model.physical.floor_layout import Layout
from designer.model.physical.link_arrays import DeviceCodes, LinkArrays
from designer.model.physical.media import switch_cage
from designer.model.physical.template_layout import positions_of
from designer.model.topology.edited_fabric import SwitchPairs

if TYPE_CHECKING:
    from designer.model.intent.design import Edit, FabricDesign
    from designer.model.topology.derive import Derived

MANUAL = 3   # index of "manual" in closed_form_bom.TIERS


def counted_from_arrays(design: FabricDesign) -> bool:
    """Whether the design's BOM comes from arrays (closed form or replayed edits), not from a walk
    of every link: false only where an edit names a server's NIC."""
    return not any(SwitchPairs.names_nic(name) for edit in design.edits for name in (edit.a, edit.b))


@dataclass
class _Added:
    """A cable an edit adds: its ends (device codes, `lo` the lower level), ports, and the keys
    that put it in the device graph's edge order (`slot`: where its pair stands among the
    yielding switch's neighbours; `seq`: after the pair's earlier links)."""

    lo: int
    hi: int
    pa: int
    pb: int
    pair: tuple[int, int]
    slot: int
    seq: int
    alive: bool = True


class _Replay:
    """The edits replayed on the template's links, as `builders.apply_edits` applies them."""

    def __init__(self, links: LinkArrays, dev: DeviceCodes, switches: SwitchPairs) -> None:
        self.links, self.dev, self.switches = links, dev, switches
        self.n = n = len(links.tier)
        self.alive = np.ones(n, bool)
        self.removed: set[int] = set()
        self.added: list[_Added] = []
        self.next_port: dict[int, int] = {}
        # template links between switches by unordered pair, in link order
        up = np.flatnonzero(links.tier > 0)
        key = np.minimum(links.a_dev[up], links.b_dev[up]) * dev.total + np.maximum(links.a_dev[up], links.b_dev[up])
        order = np.argsort(key, kind="stable")
        self._pair_sorted, self._pair_links = key[order], up[order]
        # link ends by device: index i < n is link i's a end, n + i its b end
        ends = np.concatenate([links.a_dev, links.b_dev])
        by_dev = np.argsort(ends, kind="stable")
        self._end_dev, self._end_at = ends[by_dev], by_dev

    def template_pair(self, a: int, b: int) -> np.ndarray:
        """Every template link between two switches, alive or not, in link order."""
        key = min(a, b) * self.dev.total + max(a, b)
        lo, hi = np.searchsorted(self._pair_sorted, [key, key + 1])
        return self._pair_links[lo:hi]

    def _ends_at(self, device: int) -> np.ndarray:
        lo, hi = np.searchsorted(self._end_dev, [device, device + 1])
        return self._end_at[lo:hi]

    def take_port(self, device: int) -> int:
        """The device's next free port: one above the highest in use when first asked."""
        if device not in self.next_port:
            at = self._ends_at(device)
            link = at % self.n
            ports = np.where(at < self.n, self.links.a_port[link], self.links.b_port[link])[self.alive[link]]
            used = [int(ports.max())] if len(ports) else []
            used += [x.pa if x.lo == device else x.pb for x in self.added if x.alive and device in (x.lo, x.hi)]
            self.next_port[device] = max(used, default=0) + 1
        self.next_port[device] += 1
        return self.next_port[device] - 1

    def apply(self, edits: Iterable[Edit], level: Callable[[int], int]) -> bool:
        """Replay `edits`; False when one names a NIC (left to the link-by-link path)."""
        seq = 0
        for edit in edits:
            names = (edit.a,) if edit.op == "remove-device" else (edit.a, edit.b)
            codes: list[int] = []
            for name in names:
                if self.switches.is_nic(name or ""):
                    return False
                index = self.switches.index(name or "")
                if index is None or self.dev.servers + index in self.removed:
                    break                        # an unknown or removed device: the edit fails
                codes.append(self.dev.servers + index)
            if len(codes) < len(names):
                continue
            if edit.op == "remove-device":
                device = codes[0]
                self.removed.add(device)
                self.next_port.pop(device, None)
                self.alive[self._ends_at(device) % self.n] = False
                for x in self.added:
                    if device in (x.lo, x.hi):
                        x.alive = False
                continue
            a, b = codes
            pair = (min(a, b), max(a, b))
            template = self.template_pair(a, b)
            live = template[self.alive[template]]
            extra = [x for x in self.added if x.alive and x.pair == pair]
            if edit.op == "add-links":
                if a == b:
                    continue
                lo, hi = sorted((a, b), key=level)
                if len(live):        # the pair's neighbour entry stands where the template put it
                    slot = int(template[0])
                elif extra:          # a pair joined by an earlier edit
                    slot = extra[0].slot
                else:                # a new neighbour: after every link the switch yields so far
                    slot = 2 * self.n + seq
                for _ in range(edit.count):
                    seq += 1
                    self.added.append(_Added(lo, hi, self.take_port(lo), self.take_port(hi), pair, slot,
                                             self.n + seq))
            elif edit.op == "remove-links":
                # the pair's keys in order are its template links, then the added ones; the last go
                drop = edit.count
                for x in reversed(extra):
                    if drop == 0:
                        break
                    x.alive, drop = False, drop - 1
                if drop:
                    self.alive[live[max(0, len(live) - drop):]] = False
        return True


def edited_physical(derived: Derived, catalog: Catalog,
                    per_link: dict[str, Any] | None = None) -> PhysicalCounts | None:
    """The counts of an edited design, or None when an edit names a NIC. Given a dict `per_link`,
    fills it as `counts_from_links` does, with the links, their cages, the device codes and
    positions, and the removed devices ("links", "cages", "dev", "row", "slot", "removed")."""
    r, plan, design = derived.resolved, derived.plan, derived.design
    servers, planes = design.cluster.servers, r.planes
    dev = DeviceCodes(servers, plan, planes)
    links, _server_of_ep, _leaf_of = _generate(r, plan, dev)
    n = len(links.tier)
    levels = {"leaf": 1, "spine": 2, "core": 3}

    def level(code: int) -> int:
        return levels[dev.describe(code)[0]]

    replay = _Replay(links, dev, SwitchPairs(plan, r))
    if not replay.apply(design.edits, level):
        return None
    added = [x for x in replay.added if x.alive]
    keep = np.flatnonzero(replay.alive)

    # The device graph's edge order: switches in node order (plane by plane, leaves, spines,
    # cores: the device codes' order), each yielding the links to neighbours it has not met,
    # neighbour by neighbour as they were first joined, each neighbour's links as they were
    # added. A template pair's links are contiguous, so its first link's index is its slot.
    yield_dev = np.where(links.tier == 0, links.b_dev, links.a_dev)
    slot_of = np.arange(n, dtype=np.int64)
    up = np.flatnonzero(links.tier > 0)
    if len(up):
        key = np.minimum(links.a_dev[up], links.b_dev[up]) * dev.total + np.maximum(links.a_dev[up], links.b_dev[up])
        starts = np.r_[True, key[1:] != key[:-1]]       # links of a pair are adjacent in link order
        slot_of[up] = up[np.flatnonzero(starts)][np.cumsum(starts) - 1]
    cages = template_cages(derived, catalog, links)
    extra_links = _manual_links(added, derived, catalog, cages, dev)
    order = np.lexsort((np.r_[keep, [x.seq for x in added]].astype(np.int64),
                        np.r_[slot_of[keep], [x.slot for x in added]].astype(np.int64),
                        np.r_[yield_dev[keep], [min(x.lo, x.hi) for x in added]].astype(np.int64)))
    merged = _concat_links(links, keep, extra_links, order)
    merged_cages = _concat_cages(cages, keep, extra_links, order)

    row, slot, layout = _positions(derived, dev, links, replay.alive, replay.removed)
    if per_link is not None:
        per_link.update(links=merged, cages=merged_cages, dev=dev, row=row, slot=slot, removed=set(replay.removed))
    return counts_from_links(derived, catalog, merged, merged_cages, dev, row, slot, layout, per_link)


def _manual_links(added: list[_Added], derived: Derived, catalog: Catalog, cages: _Cages,
                  dev: DeviceCodes) -> dict[str, np.ndarray]:
    """Arrays of the added links with their cages (few: computed one by one)."""
    r, plan = derived.resolved, derived.plan
    cols: dict[str, list[int]] = defaultdict(list)
    switch_of = {"leaf": r.leaf_switch, "spine": r.spine_switch, "core": r.core_switch}
    for x in added:
        for side, device, port in (("a", x.lo, x.pa), ("b", x.hi, x.pb)):
            role = dev.describe(device)[0]
            sw = catalog.switch(switch_of[role].id)
            cage, lane, cap = switch_cage(sw, role, port, r.uplink_gbps, r, plan)
            if sw.cage_type not in cages.type_names:
                cages.type_names.append(sw.cage_type)
            cols[side + "_dev"].append(device)
            cols[side + "_port"].append(port)
            cols[side + "_cage"].append(cage)
            cols[side + "_lane"].append(lane)
            cols[side + "_cap"].append(cap)
            cols[side + "_type"].append(cages.type_names.index(sw.cage_type))
        cols["gbps"].append(r.uplink_gbps)
    return {k: np.array(v, np.int64) for k, v in cols.items()}


def _concat_links(links: LinkArrays, keep: np.ndarray, extra: dict[str, np.ndarray], order: np.ndarray) -> LinkArrays:
    m = len(extra.get("a_dev", ()))

    def cat(template: np.ndarray, added: Sequence[int] | np.ndarray) -> np.ndarray:
        joined: np.ndarray = np.concatenate([template[keep], np.asarray(added, np.int64)])[order]
        return joined

    return LinkArrays(cat(links.tier, [MANUAL] * m), cat(links.gbps, extra.get("gbps", [])),
                  cat(links.a_dev, extra.get("a_dev", [])), cat(links.a_port, extra.get("a_port", [])),
                  cat(links.b_dev, extra.get("b_dev", [])), cat(links.b_port, extra.get("b_port", [])))


def _concat_cages(cages: _Cages, keep: np.ndarray, extra: dict[str, np.ndarray], order: np.ndarray) -> _Cages:
    def cat(template: np.ndarray, key: str) -> np.ndarray:
        joined: np.ndarray = np.concatenate([template[keep], np.asarray(extra.get(key, []), np.int64)])[order]
        return joined

    return _Cages(cat(cages.a_cage, "a_cage"), cat(cages.a_lane, "a_lane"), cat(cages.a_cap, "a_cap"),
                  cat(cages.a_type, "a_type"), cat(cages.b_cage, "b_cage"), cat(cages.b_lane, "b_lane"),
                  cat(cages.b_cap, "b_cap"), cat(cages.b_type, "b_type"), cages.type_names, cages.host_type,
                  cages.k_host)


def _positions(derived: Derived, dev: DeviceCodes, links: LinkArrays, alive: np.ndarray,
               removed: set[int]) -> tuple[np.ndarray, np.ndarray, Layout]:
    """`floor_layout.lay_out` on the leaves and switches left, as media._leaf_spots lists them:
    (row, slot) per device code and the Layout counts, from arrays (template_layout.positions_of)."""
    r, plan, design = derived.resolved, derived.plan, derived.design
    e = r.rails
    host = np.flatnonzero(alive & (links.tier == 0))
    gone = np.fromiter(removed, dtype=np.int64, count=len(removed))
    leaf_codes = np.concatenate([dev.leaf(p, np.arange(plan.leaves, dtype=np.int64)) for p in range(r.planes)])
    leaf_codes = leaf_codes[~np.isin(leaf_codes, gone)]
    index = (leaf_codes - dev.servers) % dev.per_plane
    spread = plan.leaf_rail(index, e) if plan.rail_su_size else index
    fallback = index * design.cluster.servers // max(len(leaf_codes), 1)
    others = np.concatenate([np.concatenate([dev.spine(p, np.arange(plan.spines, dtype=np.int64)),
                                             dev.core(p, np.arange(plan.cores if plan.tiers == 3 else 0,
                                                                   dtype=np.int64))])
                             for p in range(r.planes)])
    others = others[~np.isin(others, gone)]
    return positions_of(design.floorplan, design.cluster.servers, dev.total, leaf_codes, np.asarray(spread),
                        fallback, links.b_dev[host], links.a_dev[host], others)


# Physical counts by the design's physical content (`physical_content_key`): a report prices the
# design, the same fabric with its other networks converged, its counterpart's candidates and that
# counterpart with converged networks, and estimates its interruptions, and only the networks
# differ between several of them.
_CACHE: ContentCache[PhysicalCounts | None] = ContentCache(size=8)

# The parts of a design the physical layer never reads (its name, the collective settings, saved
# views, the growth plan, the other networks, which have their own bill). A field not listed is
# part of the key, so a field added to the design never makes two different fabrics share counts.
_NOT_PHYSICAL = frozenset({"meta", "performance", "slides", "growth", "networks"})


def physical_content_key(design: FabricDesign) -> str:
    """A digest of what the physical layer reads of the design (the fabric, cluster, edits and
    floor plan): designs equal in it have equal physical counts."""
    return content_key({name: value for name, value in to_data(design).items() if name not in _NOT_PHYSICAL})


def physical_counts(derived: Derived, catalog: Catalog | None = None) -> PhysicalCounts | None:
    """The counts without the per-link list, cached by the design's physical content (designs are
    immutable): by class of link or `closed_form_physical` for a template design, `edited_physical` for an edited
    one (None where an edit names a server's NIC: walk the links instead)."""
    catalog = catalog or default_catalog()
    key = (physical_content_key(derived.design), id(catalog))
    if derived.design.edits:
        return _CACHE.get_or_compute(key, lambda: edited_physical(derived, catalog))
    return _CACHE.get_or_compute(key, lambda: _template_counts(derived, catalog))


def _template_counts(derived: Derived, catalog: Catalog) -> PhysicalCounts:
    """A template design's counts by class of link where its tiers allow (class_bom.py), else
    link by link (closed_form_bom.py): the two are equal wherever both count."""
    counted = class_physical(derived, catalog)
    return counted if counted is not None else closed_form_physical(derived, catalog)
