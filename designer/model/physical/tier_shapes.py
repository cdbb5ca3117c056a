"""A template's tiers on one plane as its arithmetic gives them, without an entry per link: the
bill by class of link (class_bom.py) counts a tier's cages, runs and breakout slots from them.

- **Server links as segments.** Where every leaf serves a run of consecutive endpoints on its
  ports 1, 2, ... (every template but the rail-optimized ones: `closed_form.leaf_assignment_arrays`),
  a server's ports on one leaf are one segment, on consecutive ports of the leaf: a million links
  of eight ports per server are 131,072 segments.
- **Links between switches as blocks.** Where each switch spreads its uplinks evenly over the
  switches of its block (a pod's spines, a core group), every owner of a block links `base`
  times to every target of the block, on the same ports of every owner and of every target, in
  every block alike (a partial last pod is a group of blocks of its own). The runs are counted
  per pair of classes of devices (`link_runs.TierRuns`) met in each block, weighted by the
  block's owners and targets of each class; a breakout slot's longest run per block, slot and
  class of target.

Anything else (rail-optimized assignments, uneven spreads, overlapping core groups, a cage
serving two tiers) has no shape here: its links are generated (closed_form_bom.first_plane_links),
and tests/test_tier_shapes.py holds every count here equal to the one from generated links.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from designer.catalog import Catalog
from designer.model.common.arrays import sorted_distinct
from designer.model.physical.class_parts import ShapedTier, Side, Tier
from designer.model.physical.closed_form_bom import (
    TIERS,
    _Cages,
    first_plane_cages,
    first_plane_links,
    host_cages,
    switch_port_cages,
)
from designer.model.physical.link_arrays import LinkArrays
from designer.model.physical.link_runs import TierRuns, device_classes
from designer.model.physical.media import host_ports_per_cage

if TYPE_CHECKING:
    from designer.catalog import Switch
    from designer.model.intent.floorplan import FloorPlan
    from designer.model.physical.link_arrays import DeviceCodes
    from designer.model.topology.derive import Derived
    from designer.model.topology.sizing import Plan, Resolved


@dataclass
class HostSegments:
    """A plane's server links as segments: `count` links of `server` on one leaf, on its
    consecutive ports from `port` (1-based), from the server's NIC port `rail` on."""

    server: np.ndarray
    leaf: np.ndarray      # the first plane's leaf index
    count: np.ndarray
    port: np.ndarray
    rail: np.ndarray


def host_segments(plan: Plan, e: int) -> HostSegments | None:
    """`leaf_assignment_arrays(plan, e)` as segments, or None for a rail-optimized assignment."""
    n, leaves = plan.servers, plan.leaves
    if plan.rail_su_size or n <= 0 or e <= 0 or leaves <= 0:
        return None
    per_leaf = plan.leaf_down
    j = np.arange(n, dtype=np.int64)
    if e <= per_leaf and per_leaf % e == 0 and leaves * (per_leaf // e) >= n:
        # whole servers to a leaf: server j on leaf j * leaves // n, after the servers before it
        leaf_s = j * leaves // n
        first = np.searchsorted(leaf_s, leaf_s, side="left")
        return HostSegments(j, leaf_s, np.full(n, e, np.int64), (j - first) * e + 1, np.zeros(n, np.int64))
    # endpoint i on leaf i * leaves // total: a segment starts at each server and at each leaf
    total = n * e
    leaf_starts = (np.arange(leaves, dtype=np.int64) * total + leaves - 1) // leaves
    start = np.union1d(j * e, leaf_starts[leaf_starts < total])
    leaf = start * leaves // total
    return HostSegments(start // e, leaf, np.diff(np.r_[start, total]), start - leaf_starts[leaf] + 1, start % e)


@dataclass
class Blocks:
    """A tier between switches as blocks: each owner of a block (a row of `owners`, in the order
    the generator takes them) links `base` times to each target of it (a row of `targets`), on
    its ports from `owner_port` on, target by target; a target's port of owner i's copy c is
    1 + i * base + c."""

    owners: np.ndarray     # (blocks, owners per block): first plane's switch index of the lower role
    targets: np.ndarray    # (blocks, targets per block): of the upper role
    base: int
    owner_port: int


def leaf_spine_blocks(plan: Plan) -> list[Blocks] | None:
    """The leaf-spine links of `first_plane_links` as groups of blocks (the full pods, then a
    partial last pod), or None where a leaf's uplinks do not spread evenly over its pod's spines."""
    spp, up = plan.spines_per_pod, plan.leaf_up
    if plan.tiers < 2 or spp <= 0 or up <= 0 or up % spp:
        return None
    per_pod = plan.leaves_per_pod if plan.tiers == 3 else plan.leaves
    if per_pod <= 0:
        return None
    full, rest = divmod(plan.leaves, per_pod)
    if (full + (rest > 0)) * spp > plan.spines:
        return None
    groups = []
    for first_pod, pods, owners in ((0, full, per_pod), (full, 1, rest)):
        if pods and owners:
            pod = np.arange(first_pod, first_pod + pods, dtype=np.int64)[:, None]
            groups.append(Blocks(pod * per_pod + np.arange(owners, dtype=np.int64)[None, :],
                                 pod * spp + np.arange(spp, dtype=np.int64)[None, :], up // spp, plan.leaf_down + 1))
    return groups


def spine_core_blocks(plan: Plan) -> list[Blocks] | None:
    """The spine-core links as blocks (the spines of one place in every pod, their core group),
    or None where the spread is uneven or core groups overlap."""
    spp, group, up = plan.spines_per_pod, plan.core_groups_size, plan.spine_up
    if plan.tiers != 3 or spp <= 0 or group <= 0 or up <= 0 or up % group:
        return None
    if spp * group != plan.cores or plan.spines % spp:
        return None
    pods = plan.spines // spp
    owners = np.arange(pods, dtype=np.int64)[None, :] * spp + np.arange(spp, dtype=np.int64)[:, None]
    targets = np.arange(spp, dtype=np.int64)[:, None] * group + np.arange(group, dtype=np.int64)[None, :]
    return [Blocks(owners, targets, up // group, plan.spine_down + 1)]


@dataclass
class PortCages:
    """The cages of one switch's ports on a tier: per port its cage and lane, the capacity and
    cage type of its side (one kind: else the tier has no shape)."""

    cage: np.ndarray
    lane: np.ndarray
    capacity: int
    cage_type: str

    @property
    def distinct(self) -> int:
        return len(sorted_distinct(self.cage))


def port_cages(r: Resolved, plan: Plan, role: str, sw: Switch, gbps: int, ports: np.ndarray) -> PortCages | None:
    cage, lane, cap = switch_port_cages(r, plan, role, sw, gbps, ports)
    if len(cap) and int(cap.min()) != int(cap.max()):
        return None
    return PortCages(cage, lane, int(cap[0]) if len(cap) else 0, sw.cage_type)


def _slot_keys(cages: PortCages, split: int) -> np.ndarray:
    """Per port, its breakout slot within its switch (`class_parts.Runs.slots`' key)."""
    per_cage = -(-cages.capacity // split)
    keys: np.ndarray = cages.cage * per_cage + cages.lane // split
    return keys


def _histogram(runs: TierRuns, codes_of_plane: list[np.ndarray], weights: np.ndarray) -> Counter[float]:
    out: Counter[float] = Counter()
    for p, codes in enumerate(codes_of_plane):
        values = runs.plane(p)[0]
        for v, n in zip(values, np.bincount(codes, weights=weights, minlength=len(values)).astype(np.int64).tolist(),
                        strict=True):
            if n:
                out[v] += n
    return out


class SegmentRuns:
    """The server links' runs on every plane from their segments."""

    def __init__(self, fp: FloorPlan, segments: HostSegments, dev: DeviceCodes, planes: int, row: np.ndarray,
                 slot: np.ndarray, leaf_ports: PortCages) -> None:
        self.segments, self.dev, self.leaf_ports = segments, dev, leaf_ports
        self.leaf_codes = dev.leaf(0, segments.leaf)
        self.runs = TierRuns(fp, segments.server, self.leaf_codes, dev.servers, dev.per_plane, planes, row, slot,
                             weights=segments.count)

    def per_link_runs(self) -> TierRuns:
        """The runs link by link (NIC port order), as a TierRuns of the links themselves has them:
        the segments hold every server and every leaf with server links, so their classes and
        pairs are the links' own, and a link's pair is its segment's."""
        by_link = copy.copy(self.runs)
        by_link.pair_of_link = np.repeat(self.runs.pair_of_link, self.segments.count)
        return by_link

    def slots(self, split: int) -> Counter[float]:
        """Breakout slots of the leaves' server ports per longest run of the slot."""
        seg = self.segments
        keys = _slot_keys(self.leaf_ports, split)       # per leaf port - 1
        first = keys[seg.port - 1]
        last = keys[seg.port + seg.count - 2]
        spans = last - first + 1
        which = np.repeat(np.arange(len(first)), spans)
        offset = np.arange(len(which)) - np.repeat(np.cumsum(spans) - spans, spans)
        n_slots = int(keys.max()) + 1
        key = seg.leaf[which] * n_slots + first[which] + offset
        distinct, inverse = np.unique(key, return_inverse=True)
        pair = self.runs.pair_index(seg.server, self.leaf_codes)[which]
        codes = []
        for p in range(self.runs.n_planes):
            longest = np.full(len(distinct), -1, np.int64)
            np.maximum.at(longest, inverse.reshape(-1), self.runs.plane(p)[1][pair])
            codes.append(longest)
        return _histogram(self.runs, codes, np.ones(len(distinct), np.int64))


class _BlockGroup:
    """One group of like blocks, by class: per block, a device of each class of owner and of
    target met in it and how many of the class it holds."""

    def __init__(self, blocks: Blocks, owner_codes: np.ndarray, target_codes: np.ndarray, dev: DeviceCodes,
                 planes: int, row: np.ndarray, slot: np.ndarray, target_ports: PortCages) -> None:
        self.blocks, self.target_ports, self.owner_codes = blocks, target_ports, owner_codes
        self.n_blocks = len(owner_codes)
        self.owner_rep, self.owner_block, self.owner_n, self.rep_of_owner = _per_block(
            owner_codes, dev, planes, row, slot)
        self.target_rep, self.target_block, self.target_n, _ = _per_block(target_codes, dev, planes, row, slot)

    def pairs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each (owner class, target class) met in a block: their devices and links."""
        o, t = _joined(self.owner_block, self.target_block, self.n_blocks)
        return self.owner_rep[o], self.target_rep[t], self.owner_n[o] * self.target_n[t] * self.blocks.base

    def slots(self, runs: TierRuns, split: int) -> Counter[float]:
        """Breakout slots of the targets' ports per longest run of the slot: a slot's owners are
        the same in every block's targets, so per block, slot and class of target."""
        b = self.blocks
        keys = _slot_keys(self.target_ports, split)      # per target port - 1 (= owner * base + copy)
        n_slots = int(keys.max()) + 1
        per_block = b.owners.shape[1]
        owner_of_port = np.arange(len(keys)) // b.base
        slot_owner = sorted_distinct(keys * per_block + owner_of_port)   # the (slot, owner) pairs
        s, i = slot_owner // per_block, slot_owner % per_block
        block = np.repeat(np.arange(self.n_blocks, dtype=np.int64), len(s))
        owner_dev = self.rep_of_owner[self.owner_codes[:, i].ravel()]
        slot_of = np.tile(s, self.n_blocks)
        # per (block, slot), every class of target in the block
        a, t = _joined(block, self.target_block, self.n_blocks)
        group = (block[a] * n_slots + slot_of[a]) * len(self.target_rep) + t
        distinct, inverse = np.unique(group, return_inverse=True)
        inverse = inverse.reshape(-1)
        pair = runs.pair_index(owner_dev[a], self.target_rep[t])
        weights = self.target_n[distinct % len(self.target_rep)]
        codes = []
        for p in range(runs.n_planes):
            longest = np.full(len(distinct), -1, np.int64)
            np.maximum.at(longest, inverse, runs.plane(p)[1][pair])
            codes.append(longest)
        return _histogram(runs, codes, weights)


def _per_block(codes: np.ndarray, dev: DeviceCodes, planes: int, row: np.ndarray,
               slot: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A device of each class met in each block, its block, how many of the class the block
    holds (sorted by block), and each device's representative."""
    width = int(slot.max(initial=0)) + 1
    class_of, reps = device_classes(codes.ravel(), dev.servers, dev.per_plane, planes, row, slot, width)
    block = np.repeat(np.arange(len(codes), dtype=np.int64), codes.shape[1])
    key = block * len(reps) + class_of[codes.ravel()]
    distinct, n = np.unique(key, return_counts=True)
    return reps[distinct % len(reps)], distinct // len(reps), n, reps[class_of]


def _joined(block_a: np.ndarray, block_b: np.ndarray, n_blocks: int) -> tuple[np.ndarray, np.ndarray]:
    """Every (i, j) with block_a[i] == block_b[j] (both sorted by block)."""
    n_b = np.bincount(block_b, minlength=n_blocks)
    first_b = np.r_[0, np.cumsum(n_b)[:-1]]
    per_a = n_b[block_a]
    i = np.repeat(np.arange(len(block_a)), per_a)
    j = first_b[block_a][i] + np.arange(len(i)) - np.repeat(np.cumsum(per_a) - per_a, per_a)
    return i, j


class BlockRuns:
    """A tier between switches' runs on every plane from its groups of blocks (the full pods,
    and a partial last one): the pairs of classes met in each block, weighted by how many of
    each class the block holds."""

    def __init__(self, fp: FloorPlan, groups: list[_BlockGroup], dev: DeviceCodes, planes: int, row: np.ndarray,
                 slot: np.ndarray) -> None:
        self.groups = groups
        owner, target, weights = (np.concatenate(x) for x in zip(*(g.pairs() for g in groups), strict=True))
        self.runs = TierRuns(fp, owner, target, dev.servers, dev.per_plane, planes, row, slot, weights=weights)

    def per_link_runs(self) -> None:
        """The runs link by link are not read from the blocks (a block holds a device of each
        class, not every device): they are counted from the links."""
        return None

    def slots(self, split: int) -> Counter[float]:
        out: Counter[float] = Counter()
        for group in self.groups:
            out.update(group.slots(self.runs, split))
        return out


@dataclass
class SegmentShape:
    segments: HostSegments
    leaf_ports: PortCages     # the leaves' server ports 1, 2, ...

    def runs(self, fp: FloorPlan, dev: DeviceCodes, planes: int, row: np.ndarray, slot: np.ndarray) -> SegmentRuns:
        return SegmentRuns(fp, self.segments, dev, planes, row, slot, self.leaf_ports)


@dataclass
class BlockShape:
    groups: list[tuple[Blocks, PortCages]]   # each group of like blocks, its targets' port cages
    roles: tuple[str, str]                   # the owners' and targets' roles
    owner_ports: list[PortCages]             # each group's owners' port cages (their ports from owner_port)

    def runs(self, fp: FloorPlan, dev: DeviceCodes, planes: int, row: np.ndarray, slot: np.ndarray) -> BlockRuns:
        code = {"leaf": dev.leaf, "spine": dev.spine, "core": dev.core}
        return BlockRuns(fp, [_BlockGroup(b, code[self.roles[0]](0, b.owners), code[self.roles[1]](0, b.targets),
                                          dev, planes, row, slot, ports) for b, ports in self.groups],
                         dev, planes, row, slot)


@dataclass
class ShapedPlane:
    """The first plane's tiers from their shapes, what placement reads of the server links, and
    the links per tier (all planes) with the tiers in the device graph's edge order."""

    tiers: list[Tier]
    segments: HostSegments
    links_by_tier: dict[str, int]
    order: list[str]


def shaped_first_plane(derived: Derived, catalog: Catalog, dev: DeviceCodes) -> ShapedPlane | None:
    """Every tier of the first plane from its shape, or None where one has none (then every link
    is generated, class_parts.first_plane_tiers): the same sides, cages and speeds as there."""
    r, plan = derived.resolved, derived.plan
    planes, rails = r.planes, r.rails
    segments = host_segments(plan, rails)
    if segments is None or plan.tiers not in (1, 2, 3):
        return None
    k_host, host_type = host_ports_per_cage(catalog, derived)
    per_leaf = np.bincount(segments.leaf, weights=segments.count, minlength=plan.leaves).astype(np.int64)
    leaf_ports = port_cages(r, plan, "leaf", r.leaf_switch, r.link_gbps, np.arange(1, int(per_leaf.max()) + 1))
    if leaf_ports is None:
        return None
    # a leaf's server ports are 1 .. its links: its cages those of the first ports
    used = per_leaf[per_leaf > 0]
    n_used, n_leaves = np.unique(used, return_counts=True)
    upper_cages = sum(len(sorted_distinct(leaf_ports.cage[:n])) * m for n, m in zip(n_used.tolist(), n_leaves.tolist(),
                                                                               strict=True))
    global_ports = np.arange(planes * rails, dtype=np.int64)
    per_server = len(sorted_distinct(host_cages(global_ports, k_host, planes, rails)[0]))
    load = _shaped_loader(derived, catalog, dev, k_host)
    n_links = int(segments.count.sum())
    host_shape = SegmentShape(segments, leaf_ports)
    tiers: list[Tier] = [ShapedTier(
        TIERS[0], r.link_gbps, Side(True, host_type, k_host, plan.servers * per_server),
        Side(False, leaf_ports.cage_type, leaf_ports.capacity, upper_cages * planes), True, n_links,
        host_shape, lambda: load(host_shape, 0))]
    links = {TIERS[0]: n_links * planes}
    highest = int(leaf_ports.cage[:int(used.max())].max())
    first_of = {TIERS[0]: int(dev.leaf(0, int(segments.leaf.min())))}
    roles = (("leaf", "spine", r.leaf_switch, r.spine_switch), ("spine", "core", r.spine_switch, r.core_switch))
    for t, groups in ((1, leaf_spine_blocks(plan)), (2, spine_core_blocks(plan))):
        if plan.tiers <= t:
            break
        if groups is None:
            return None
        low_role, up_role, low_sw, up_sw = roles[t - 1]
        sides: list[tuple[PortCages, PortCages]] = []
        for blocks in groups:
            n_o, n_t = blocks.owners.shape[1], blocks.targets.shape[1]
            owner = port_cages(r, plan, low_role, low_sw, r.uplink_gbps,
                               blocks.owner_port + np.arange(n_t * blocks.base, dtype=np.int64))
            target = port_cages(r, plan, up_role, up_sw, r.uplink_gbps,
                                1 + np.arange(n_o * blocks.base, dtype=np.int64))
            if owner is None or target is None:
                return None     # two kinds of cage on a side
            sides.append((owner, target))
        kinds = {(o.capacity, o.cage_type, tg.capacity, tg.cage_type) for o, tg in sides}
        if len(kinds) > 1 or min(int(o.cage.min()) for o, _ in sides) <= highest:
            return None         # two kinds of cage on a side, or a cage serving this tier and the one below
        highest = max(int(tg.cage.max()) for _, tg in sides)
        n = sum(b.owners.size * b.targets.shape[1] * b.base for b in groups)
        lower = sum(b.owners.size * o.distinct for b, (o, _) in zip(groups, sides, strict=True)) * planes
        upper = sum(b.targets.size * tg.distinct for b, (_, tg) in zip(groups, sides, strict=True)) * planes
        owner, target = sides[0]
        block_shape = BlockShape([(b, tg) for b, (_, tg) in zip(groups, sides, strict=True)], (low_role, up_role),
                                 [o for o, _ in sides])
        tiers.append(ShapedTier(
            TIERS[t], r.uplink_gbps, Side(False, owner.cage_type, owner.capacity, lower),
            Side(False, target.cage_type, target.capacity, upper), False, n, block_shape,
            lambda t=t, shape=block_shape: load(shape, t)))  # type: ignore[misc]
        links[TIERS[t]] = n * planes
        if t == 1:
            first_of[TIERS[1]] = int(dev.leaf(0, min(int(b.owners.min()) for b in groups)))
    order = sorted(first_of, key=lambda name: (first_of[name], TIERS.index(name)))
    return ShapedPlane(tiers, segments, links, order + ([TIERS[2]] if TIERS[2] in links else []))


def _shaped_loader(derived: Derived, catalog: Catalog, dev: DeviceCodes,
                   k_host: int) -> Callable[[SegmentShape | BlockShape, int], dict[str, Any]]:
    """A shaped tier's per-link arrays as `generated_loader` has them (the same values in the same
    order), expanded from the tier's own shape alone: no other tier's links, no port assignment,
    no sort of ports by switch, and each port's cage read from its switch's table of ports."""
    r = derived.resolved
    # the cage types numbered as first_plane_cages numbers them (its calls, on no link)
    none = np.zeros(0, np.int64)
    type_names = first_plane_cages(derived, catalog, none, none, none).type_names

    def load(shape: SegmentShape | BlockShape, t: int) -> dict[str, Any]:
        arrays: dict[str, Any] = (segment_arrays(shape, dev, r.link_gbps, k_host, type_names)
                                  if isinstance(shape, SegmentShape)
                                  else block_arrays(shape, dev, t, r.uplink_gbps, type_names))
        arrays["type_names"] = type_names
        return arrays

    return load


def _filled(n: int, value: int) -> np.ndarray:
    """n links' one value (a tier's speed, kind of cage, ...): a read-only view, not n copies."""
    return np.broadcast_to(np.int64(value), (n,))


def segment_arrays(shape: SegmentShape, dev: DeviceCodes, gbps: int, k_host: int,
                   type_names: list[str]) -> dict[str, np.ndarray]:
    """The server links of the first plane in NIC port order, from their segments: a segment's
    links are its server's consecutive NIC ports on its leaf's consecutive ports."""
    seg, ports = shape.segments, shape.leaf_ports
    n = int(seg.count.sum())
    starts = np.cumsum(seg.count) - seg.count
    step = np.arange(n, dtype=np.int64) - np.repeat(starts, seg.count)
    b_port = np.repeat(seg.port, seg.count) + step
    zeros = _filled(n, 0)
    return {"a_dev": np.repeat(seg.server, seg.count), "b_dev": dev.leaf(0, np.repeat(seg.leaf, seg.count)),
            "a_port": np.repeat(seg.rail, seg.count) + step, "b_port": b_port, "link_tier": zeros,
            "link_gbps": _filled(n, gbps), "a_cage": zeros, "a_lane": zeros, "a_cap": _filled(n, k_host),
            "a_type": zeros, "b_cage": ports.cage[b_port - 1], "b_lane": ports.lane[b_port - 1],
            "b_cap": _filled(n, ports.capacity), "b_type": _filled(n, type_names.index(ports.cage_type))}


def block_arrays(shape: BlockShape, dev: DeviceCodes, t: int, gbps: int,
                 type_names: list[str]) -> dict[str, np.ndarray]:
    """A tier between switches on the first plane as generated (owner by owner, each owner's
    targets in order, `base` links to each), from its blocks: every owner links alike, so an
    owner's row of links is its block's targets, its ports from `owner_port` on, and at each
    target the port of its place in the block. The owners are put in order first (a few
    thousand), then each row is made in place."""
    code = {"leaf": dev.leaf, "spine": dev.spine, "core": dev.core}
    first, owner_side = shape.groups[0][0], shape.owner_ports[0]
    base, up = first.base, first.targets.shape[1] * first.base
    owners, places, target_rows, blocks_before = [], [], [], 0
    for b, _ in shape.groups:
        n_blocks, per_block = b.owners.shape
        owners.append(b.owners.reshape(-1))
        places.append(np.tile(np.arange(per_block, dtype=np.int64), n_blocks))     # an owner's place in its block
        # an owner's block, as a row of every group's targets one after the other
        target_rows.append(blocks_before + np.repeat(np.arange(n_blocks, dtype=np.int64), per_block))
        blocks_before += n_blocks
    owner, place, target_row = (np.concatenate(x) for x in (owners, places, target_rows))
    by_owner = np.argsort(owner)      # each owner's links one after the other, owner by owner
    owner, place, target_row = owner[by_owner], place[by_owner], target_row[by_owner]
    # a target's port (and so its cage) is a function of the port alone: the longest table holds every one
    target_side = max((ports for _, ports in shape.groups), key=lambda ports: len(ports.cage))
    b_port = (1 + place[:, None] * base + (np.arange(up, dtype=np.int64) % base)[None, :]).reshape(-1)
    targets = np.concatenate([g.targets for g, _ in shape.groups])[target_row]
    if base > 1:
        targets = np.repeat(targets, base, axis=1)
    n, n_owners = len(owner) * up, len(owner)
    return {"a_dev": np.repeat(code[shape.roles[0]](0, owner), up),
            "b_dev": code[shape.roles[1]](0, targets.reshape(-1)),
            "a_port": np.tile(first.owner_port + np.arange(up, dtype=np.int64), n_owners), "b_port": b_port,
            "link_tier": _filled(n, t), "link_gbps": _filled(n, gbps),
            "a_cage": np.tile(owner_side.cage, n_owners), "a_lane": np.tile(owner_side.lane, n_owners),
            "a_cap": _filled(n, owner_side.capacity), "a_type": _filled(n, type_names.index(owner_side.cage_type)),
            "b_cage": target_side.cage[b_port - 1], "b_lane": target_side.lane[b_port - 1],
            "b_cap": _filled(n, target_side.capacity), "b_type": _filled(n, type_names.index(target_side.cage_type))}


def generated_loader(derived: Derived, catalog: Catalog, dev: DeviceCodes) -> Callable[[int], dict[str, Any]]:
    """Tier t's per-link arrays, as `first_plane_tiers` has them: the first plane's links are
    generated once, the first time a tier's are read. The reference the shaped tiers' arrays
    (`segment_arrays`, `block_arrays`) are held to (tests/test_tier_shapes.py)."""
    made: list[tuple[LinkArrays, _Cages]] = []

    def load(t: int) -> dict[str, Any]:
        if not made:
            first = first_plane_links(derived.resolved, derived.plan, dev, ordered=False)[0]
            made.append((first, first_plane_cages(derived, catalog, first.tier, first.a_port, first.b_port)))
        first, cages = made[0]
        bounds = np.searchsorted(first.tier, np.arange(4))
        part = slice(int(bounds[t]), int(bounds[t + 1]))
        arrays: dict[str, Any] = {
            "a_dev": first.a_dev[part], "b_dev": first.b_dev[part], "a_port": first.a_port[part],
            "b_port": first.b_port[part], "link_tier": first.tier[part], "link_gbps": first.gbps[part],
            "a_cage": cages.a_cage[part], "a_lane": cages.a_lane[part], "b_cage": cages.b_cage[part],
            "b_lane": cages.b_lane[part], "a_type": cages.a_type[part], "a_cap": cages.a_cap[part],
            "b_type": cages.b_type[part], "b_cap": cages.b_cap[part], "type_names": cages.type_names}
        return arrays

    return load
