"""The physical layer's counts of a template design by class of link, from one plane's links.

A template's tiers each join one kind of cage below (a server's NIC cage, or a switch's cage at
the tier's speed) to one kind above. Where no copper cable can join them (every run of the tier
is beyond the copper reach, or no cable has the cages' breakout at the tier's speed), the medium
of a group of linked cages depends on its runs only through the reach each cage needs, and a
longer run never finds a module a shorter one does not. So when every length the tier's runs
take gets the same optic and the same module on each side, every group of the tier does: one
class of link per tier, and its bill is arithmetic:

- a transceiver per cage of each side (cages counted on one plane, times the planes; NIC cages
  from the ports' arithmetic);
- per link one fiber of its run (a histogram of runs), or per breakout slot one splitter as
  long as its longest run (a histogram of each slot's longest run);
- the media and links by tier, and findings, as the link-by-link path words them.

No component pass and no per-group choice: only the first plane's links are generated (every
plane repeats them, shifted), and each plane's runs are counted by `link_runs`' arithmetic.
Where the condition does not hold (copper within reach, lengths that change the optic, a cage
shared by two tiers), `class_physical` returns None and the per-link pass
(closed_form_bom.`closed_form_physical`) counts the design. The result equals it exactly;
tests/test_class_bom.py holds them equal on random designs.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from designer.catalog import Catalog
from designer.catalog.entries import Cable
from designer.model.physical.closed_form_bom import (
    _MIX,
    MEDIA_CODES,
    TIERS,
    PhysicalCounts,
    _Cages,
    _components,
    _mix,
    cage_slots,
    first_plane_cages,
    first_plane_links,
    host_cages,
    length_bins,
)
from designer.model.physical.floor_layout import server_device
from designer.model.physical.link_arrays import DeviceCodes, LinkArrays
from designer.model.physical.link_runs import link_lengths
from designer.model.physical.media import (
    CableLength,
    Choice,
    End,
    LinkPlan,
    MediaIndex,
    PartSide,
    _findings,
    _try_copper,
    choose_medium,
    host_ports_per_cage,
    sold_length,
)
from designer.model.physical.template_layout import template_positions

if TYPE_CHECKING:
    from designer.model.intent.floorplan import FloorPlan
    from designer.model.topology.derive import Derived


@dataclass
class _Side:
    """One side of a tier's links: its kind of cage and how many cages it has in all planes."""

    host: bool
    cage_type: str
    capacity: int
    cages: int


@dataclass
class _Tier:
    """A tier's links on the first plane, with the cages of their upper ends."""

    name: str
    gbps: int
    a_dev: np.ndarray       # first plane's device codes
    b_dev: np.ndarray
    b_cage: np.ndarray
    b_lane: np.ndarray
    lower: _Side
    upper: _Side
    host: bool              # the lower ends are servers' NIC ports (same codes in every plane)
    a_port: np.ndarray      # a NIC's port on the first plane (its rail), or the switch port
    b_port: np.ndarray
    a_cage: np.ndarray      # the lower switch's cage (0 for a NIC: see `host_cages`)
    a_lane: np.ndarray
    # per link: its tier (index into TIERS), speed, and each end's cage type (index into
    # type_names) and capacity: one value each, but for tiers merged where a cage serves two
    link_tier: np.ndarray
    link_gbps: np.ndarray
    a_type: np.ndarray
    a_cap: np.ndarray
    b_type: np.ndarray
    b_cap: np.ndarray
    type_names: list[str]
    merged: bool = False

    @property
    def a_host(self) -> np.ndarray:
        """Per link, whether its lower end is a server's NIC."""
        host: np.ndarray = self.link_tier == 0
        return host

    def forced(self, fp: FloorPlan, tiers: set[str]) -> str:
        """The medium forced on a group of the tiers named (none: "auto" for a group of two)."""
        return fp.forced_medium(next(iter(tiers))) if len(tiers) == 1 else "auto"


def _count_cages(dev: np.ndarray, cage: np.ndarray) -> int:
    """Distinct (device, cage) pairs."""
    if not len(dev):
        return 0
    lo = int(dev.min())
    width = int(cage.max()) + 1
    seen = np.zeros((int(dev.max()) - lo + 1) * width, bool)
    seen[(dev - lo) * width + cage] = True
    return int(np.count_nonzero(seen))


def _one(values: np.ndarray) -> int | None:
    """The one value of an array, or None when it holds several."""
    lo, hi = int(values.min()), int(values.max())
    return lo if lo == hi else None


def _tiers(derived: Derived, catalog: Catalog, first: LinkArrays) -> list[_Tier] | None:
    """The template's tiers, first plane, or None where a cage serves two tiers or a side of a
    tier has two kinds of cage."""
    r = derived.resolved
    planes, rails = r.planes, r.rails
    cages = first_plane_cages(derived, catalog, first.tier, first.a_port, first.b_port)
    tiers: list[_Tier] = []
    highest_below: dict[str, int] = {}   # the highest cage of each switch role's lower tier
    roles = ("leaf", "spine", "core")
    # `first_plane_links(ordered=False)` gives the tiers one after the other: slices, not masks
    bounds = np.searchsorted(first.tier, np.arange(4))
    for t in range(3):
        mask = slice(int(bounds[t]), int(bounds[t + 1]))
        if mask.start == mask.stop:
            continue
        gbps = _one(first.gbps[mask])
        a_cap, a_type = _one(cages.a_cap[mask]), _one(cages.a_type[mask])
        b_cap, b_type = _one(cages.b_cap[mask]), _one(cages.b_type[mask])
        if gbps is None or a_cap is None or a_type is None or b_cap is None or b_type is None:
            return None
        a_dev, b_dev = first.a_dev[mask], first.b_dev[mask]
        b_cage, b_lane = cages.b_cage[mask], cages.b_lane[mask]
        if t and int(cages.a_cage[mask].min()) <= highest_below.get(roles[t - 1], -1):
            # a cage of the lower switch serves this tier and the one below: one tier of both
            below = tiers.pop() if tiers and tiers[-1].link_tier[-1] == t - 1 else None
            if below is None:
                return None
            tiers.append(_merged(below, first, cages, mask))
            highest_below[roles[t]] = int(b_cage.max())
            continue
        if t == 0:
            # NIC cages in every plane: global port = plane * rails + rail
            ports = first.a_port[mask]
            if len(ports) == derived.design.cluster.servers * rails:
                # every server has each of its NIC ports once: the same cages each
                global_ports = np.arange(planes * rails, dtype=np.int64)
                per_server = len(np.unique(host_cages(global_ports, cages.k_host, planes, rails)[0]))
                lower_cages = derived.design.cluster.servers * per_server
            else:
                per_plane = [host_cages(ports + p * rails, cages.k_host, planes, rails)[0] for p in range(planes)]
                lower_cages = _count_cages(np.concatenate([a_dev] * planes), np.concatenate(per_plane))
        else:
            lower_cages = _count_cages(a_dev, cages.a_cage[mask]) * planes
        highest_below[roles[t]] = int(b_cage.max())
        lower = _Side(t == 0, cages.type_names[a_type], a_cap, lower_cages)
        upper = _Side(False, cages.type_names[b_type], b_cap, _count_cages(b_dev, b_cage) * planes)
        tiers.append(_Tier(TIERS[t], gbps, a_dev, b_dev, b_cage, b_lane, lower, upper, t == 0, first.a_port[mask],
                           first.b_port[mask], cages.a_cage[mask], cages.a_lane[mask], first.tier[mask],
                           first.gbps[mask], cages.a_type[mask], cages.a_cap[mask], cages.b_type[mask],
                           cages.b_cap[mask], cages.type_names))
    return tiers


def _merged(below: _Tier, first: LinkArrays, cages: _Cages, mask: slice) -> _Tier:
    """`below` and the next tier (`mask` of the first plane's links) as one tier: links in the
    device graph's order (server links and uplinks leaf by leaf, the spines' uplinks last)."""
    def cat(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        joined: np.ndarray = np.concatenate([x, y])
        return joined

    upper = _Tier(TIERS[int(first.tier[mask.start])], 0, first.a_dev[mask], first.b_dev[mask], cages.b_cage[mask],
                  cages.b_lane[mask], below.lower, below.upper, False, first.a_port[mask], first.b_port[mask],
                  cages.a_cage[mask], cages.a_lane[mask], first.tier[mask], first.gbps[mask], cages.a_type[mask],
                  cages.a_cap[mask], cages.b_type[mask], cages.b_cap[mask], cages.type_names)
    fields = ("a_dev", "b_dev", "b_cage", "b_lane", "a_port", "b_port", "a_cage", "a_lane", "link_tier",
              "link_gbps", "a_type", "a_cap", "b_type", "b_cap")
    joined = {f: cat(getattr(below, f), getattr(upper, f)) for f in fields}
    return _Tier(f"{below.name}+{upper.name}", 0, joined["a_dev"], joined["b_dev"], joined["b_cage"],
                 joined["b_lane"], below.lower, below.upper, below.host, joined["a_port"], joined["b_port"],
                 joined["a_cage"], joined["a_lane"], joined["link_tier"], joined["link_gbps"], joined["a_type"],
                 joined["a_cap"], joined["b_type"], joined["b_cap"], cages.type_names, merged=True)


def _copper_impossible(tier: _Tier, media: MediaIndex, shortest: float, block: int | None, k_host: int,
                       planes: int, rails: int) -> bool:
    """No copper or AOC cable can join any group of the tier's cages: every run is beyond the
    copper reach, or no cable has a port mode at the tier's speed and either side's breakout
    (what `_try_copper` requires of the cage at a cable's main end), or no group has a cage on
    all its links (a cable's main end must be)."""
    if shortest > media.copper_reach_m:
        return True
    capacities = {tier.lower.capacity, tier.upper.capacity}
    if not any(m.gbps == tier.gbps and m.count in capacities for c in media.cables for m in c.port_modes):
        return True
    return block is not None and _no_center(tier, block, k_host, planes, rails)


def _no_center(tier: _Tier, block: int, k_host: int, planes: int, rails: int) -> bool:
    """Whether every cage of the tier is linked to two cages or more of the other side. Then no
    group has a cage on all its links: were one, a cage it links to would link to another cage,
    on a link of the group that misses it."""
    n0 = len(tier.a_dev)
    if tier.host:
        # a NIC cage's ports on the planes that share it: each plane's leaf is another device
        a_cage = host_cages(tier.a_port, k_host, planes, rails)[0]
        lower = tier.a_dev * (int(a_cage.max()) + 1) + a_cage
        lower_ok: bool | None = True if block > 1 else None
    else:
        lower = (tier.a_dev - int(tier.a_dev.min())) * (int(tier.a_cage.max()) + 1) + tier.a_cage
        lower_ok = None
    upper = (tier.b_dev - int(tier.b_dev.min())) * (int(tier.b_cage.max()) + 1) + tier.b_cage
    if not n0:
        return True
    pairs = np.unique(lower * (int(upper.max()) + 1) + upper)
    lower_of, upper_of = pairs // (int(upper.max()) + 1), pairs % (int(upper.max()) + 1)
    # every cage of a side appears in `pairs` at least once: twice or more for two partners
    uppers_ok = bool((np.bincount(upper_of)[np.unique(upper)] >= 2).all())
    if lower_ok is None:
        lower_ok = bool((np.bincount(lower_of)[np.unique(lower)] >= 2).all())
    return lower_ok and uppers_ok


def _choice_at(tier: _Tier, media: MediaIndex, forced: str, length: float) -> Choice | None:
    """`choose_medium` for one link of the tier at `length`, between a cage of each side."""
    # the devices' roles as names: copper is tried on the cages in name order
    lower_name, upper_name = {"node-leaf": ("srv-1", "leaf-1"), "leaf-spine": ("leaf-1", "spine-1"),
                              "spine-core": ("spine-1", "core-1")}[tier.name]
    lower = End(lower_name, "1", 0, 0, tier.lower.host, tier.lower.cage_type, tier.lower.capacity)
    upper = End(upper_name, "1", 0, 0, False, tier.upper.cage_type, tier.upper.capacity)
    return choose_medium([LinkPlan(0, tier.name, tier.gbps, lower, upper, length)], media, forced)


def _outcome(choice: Choice | None) -> tuple[object, ...]:
    if choice is None:
        return (None,)
    modules = tuple(m.id if m is not None else None for m in choice.modules.values())
    return (choice.kind, choice.cable.id if choice.cable else None, choice.optic, modules, choice.forced_failed)


class _Runs:
    """A tier's runs on every plane, by `link_runs`' arithmetic: per plane the distinct runs and
    each link's index among them."""

    def __init__(self, derived: Derived, tier: _Tier, dev: DeviceCodes, row: np.ndarray, slot: np.ndarray,
                 media: MediaIndex) -> None:
        fp = derived.design.floorplan
        self.tier, self.media = tier, media
        self.planes: list[tuple[list[float], np.ndarray]] = []
        zeros = np.zeros(len(tier.a_dev), np.int64)
        for p in range(derived.resolved.planes):
            shift = p * dev.per_plane
            if tier.merged:
                a = np.where(tier.a_host, tier.a_dev, tier.a_dev + shift)
            else:
                a = tier.a_dev if tier.host else tier.a_dev + shift
            values, inverse = link_lengths(fp, LinkArrays(zeros, zeros, a, zeros, tier.b_dev + shift, zeros), row,
                                           slot)
            self.planes.append((values.tolist(), inverse))

    @staticmethod
    def _counted(values: list[float], codes: np.ndarray, into: Counter[float]) -> None:
        for v, n in zip(values, np.bincount(codes, minlength=len(values)).tolist(), strict=True):
            if n:
                into[v] += n

    def links(self) -> Counter[float]:
        """Links per distinct run."""
        out: Counter[float] = Counter()
        for values, inverse in self.planes:
            self._counted(values, inverse, out)
        return out

    def _first(self, mask: np.ndarray) -> int:
        """The place in the device graph's edge order of the tier's first link in `mask`: the
        server links are listed leaf by leaf there (NIC port order here), the others as here."""
        if not self.tier.host:
            return int(np.argmax(mask))
        n = len(mask)
        return int((self.tier.b_dev[mask] * n + np.flatnonzero(mask)).min())

    def media_in_order(self, medium_of: dict[float, str]) -> dict[str, int]:
        """Links per medium, the media in the order of their first link (plane by plane, each
        plane's links in the device graph's edge order)."""
        counts: Counter[str] = Counter()
        order: dict[str, tuple[int, int]] = {}
        for p, (values, inverse) in enumerate(self.planes):
            medium_codes = sorted(set(medium_of.values()))
            code_of_value = np.array([medium_codes.index(medium_of[v]) for v in values], np.int64)
            per_link = code_of_value[inverse]
            n = np.bincount(per_link, minlength=len(medium_codes))
            for c, medium in enumerate(medium_codes):
                if n[c]:
                    counts[medium] += int(n[c])
                    order.setdefault(medium, (p, self._first(per_link == c)))
        return {m: counts[m] for m in sorted(order, key=order.__getitem__)}

    def slots(self, split_lanes: int) -> Counter[float]:
        """Breakout slots (lanes // split_lanes of an upper cage) per longest run of the slot."""
        tier = self.tier
        per_cage = -(-tier.upper.capacity // split_lanes)
        lo = int(tier.b_dev.min())
        width = (int(tier.b_cage.max()) + 1) * per_cage
        key = (tier.b_dev - lo) * width + tier.b_cage * per_cage + tier.b_lane // split_lanes
        n_keys = (int(tier.b_dev.max()) - lo + 1) * width
        out: Counter[float] = Counter()
        for values, inverse in self.planes:
            longest = np.full(n_keys, -1, np.int64)
            np.maximum.at(longest, key, inverse)
            self._counted(values, longest[longest >= 0], out)
        return out


def _block_planes(tier: _Tier, k_host: int, planes: int, rails: int) -> int | None:
    """How many planes in a row share their servers' NIC cages (their links' groups span them);
    None where a NIC cage joins ports of two planes in another way."""
    if not tier.host or k_host <= 1 or planes == 1:
        return 1
    if planes % k_host == 0:
        return k_host
    return 1 if rails % k_host == 0 else None


def _row_classes(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The first row of each distinct row, and each row's class: `np.unique(rows, axis=0)`'s index
    and inverse (classes in another order), by a hash of each row checked against its class's
    first row (a sort of one column instead of all)."""
    h = np.zeros(len(rows), np.uint64)
    with np.errstate(over="ignore"):
        for j in range(rows.shape[1]):
            h = _mix(h * _MIX[0] + rows[:, j].astype(np.uint64) + np.uint64(j))
    _, first, inverse = np.unique(h, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    if not np.array_equal(rows[first][inverse], rows):   # two rows of one hash: sort them all
        _, first, inverse = np.unique(rows, axis=0, return_index=True, return_inverse=True)
        inverse = inverse.reshape(-1)
    return first, inverse


class _Groups:
    """A tier's groups of linked cages on its first plane, each group's links in the device
    graph's order, and the shape of each group (its links' cages and lanes as `counts_from_links`
    reads them). Where `block` planes share their servers' NIC cages, a group of those planes is
    the first plane's group with its leaves' cages on each plane: its links are the first plane's
    links, then their copies on the next planes (columns of `width0` each)."""

    def __init__(self, tier: _Tier, dev: DeviceCodes, block: int, k_host: int, planes: int, rails: int) -> None:
        n = len(tier.a_dev)
        # the tier's links in the graph's order: server links leaf by leaf, the others as generated
        if tier.merged:   # each leaf's server links, then its uplinks, leaf by leaf; spines' uplinks last
            leaf = np.where(tier.link_tier == 0, tier.b_dev, np.where(tier.link_tier == 1, tier.a_dev, dev.total))
            self.order0 = np.lexsort((np.arange(n), tier.link_tier, leaf))
        else:
            self.order0 = np.argsort(tier.b_dev, kind="stable") if tier.host else np.arange(n)
        o = self.order0
        self.block, self.n0 = block, n
        ad, bd, bc = tier.a_dev[o], tier.b_dev[o], tier.b_cage[o]
        if tier.merged:
            ac = np.where(tier.a_host[o], host_cages(tier.a_port[o], k_host, planes, rails)[0], tier.a_cage[o])
        else:
            ac = host_cages(tier.a_port[o], k_host, planes, rails)[0] if tier.host else tier.a_cage[o]
        ca, cb, n_slots = cage_slots(ad, ac, bd, bc, dev.servers, dev.total)
        used = np.zeros(n_slots, bool)
        used[ca], used[cb] = True, True
        renumber = np.cumsum(used) - 1
        ca, cb = renumber[ca], renumber[cb]
        n_cages = int(used.sum())
        comp = _components(ca, cb, n_cages)
        # groups in the order of their first link; links of each group in link order
        g_raw = comp[ca]
        first_link = np.full(n_cages, n, np.int64)
        np.minimum.at(first_link, g_raw, np.arange(n))
        is_first = first_link[g_raw] == np.arange(n)
        n_groups = int(is_first.sum())
        group_of_label = np.zeros(n_cages, np.int64)
        group_of_label[g_raw[is_first]] = np.arange(n_groups)
        group = group_of_label[g_raw]
        # each group's first link of each tier (n past the last where it has none)
        self.first_of_tier = np.full((n_groups, len(TIERS)), n, np.int64)
        np.minimum.at(self.first_of_tier, (group, tier.link_tier[o]), np.arange(n))
        lorder = np.argsort(group, kind="stable")
        g_sorted = group[lorder]
        g_start = np.r_[0, np.flatnonzero(g_sorted[1:] != g_sorted[:-1]) + 1]
        g_nlinks = np.diff(np.r_[g_start, n])
        rank = np.empty(n, np.int64)
        rank[lorder] = np.arange(n) - np.repeat(g_start, g_nlinks)
        # cage local index: order of first appearance (a then b) in the group's links
        ends_seq = np.empty(2 * n, np.int64)
        ends_seq[0::2], ends_seq[1::2] = ca[lorder], cb[lorder]
        firstpos = np.full(n_cages, 2 * n, np.int64)
        np.minimum.at(firstpos, ends_seq, np.arange(2 * n))
        first_occ = firstpos[ends_seq] == np.arange(2 * n)
        seen = np.cumsum(first_occ)
        before_group = np.r_[0, seen][2 * g_start]
        local = np.zeros(n_cages, np.int64)
        occ_pos = np.flatnonzero(first_occ)
        local[ends_seq[occ_pos]] = seen[occ_pos] - 1 - before_group[g_sorted[occ_pos // 2]]
        self.n_groups, self.width0 = n_groups, int(g_nlinks.max())
        self.group, self.rank, self.lorder = group, rank, lorder
        self.g_nlinks, self.g_start = g_nlinks, g_start
        # cages of a group of the block: its NIC cages once, its upper cages on every plane
        cages0 = np.bincount(g_sorted[occ_pos // 2], minlength=n_groups)
        upper_seen = np.zeros(n_cages, bool)
        upper_seen[cb] = True
        uppers0 = np.bincount(group_of_label[comp[np.flatnonzero(upper_seen)]], minlength=n_groups)
        self.g_ncages = cages0 + (block - 1) * uppers0
        # the shape: per link place (local a cage, local b cage, b lane), -1 past a group's links
        # (a group of the block follows from its first plane's shape)
        shape = np.full((n_groups, 4 * self.width0 + 1), -1, np.int64)
        for col, values in enumerate((local[ca], local[cb], tier.b_lane[o], tier.link_tier[o])):
            shape[group, 4 * rank + col] = values
        shape[:, -1] = cages0
        self.shape = _row_classes(shape)[1]

    def matrix(self, per_plane: list[np.ndarray]) -> np.ndarray:
        """Per group and place in it, the value of its link (-1 past its links), from each plane
        of the block's values in the groups' link order."""
        out = np.full((self.n_groups, self.block * self.width0), -1, np.int64)
        for p, values in enumerate(per_plane):
            out[self.group, p * self.width0 + self.rank] = values
        return out


def _grouped(bill: _Bill, tier: _Tier, runs: _Runs, derived: Derived, dev: DeviceCodes, k_host: int) -> bool:
    """A tier's groups of several cages, class by class: a class is a shape of group with its
    runs' bins, as in `counts_from_links`, whose choice it takes from its first group. False where
    this count does not apply (a NIC cage joins ports of two planes other than plane by plane)."""
    r = derived.resolved
    planes, rails = r.planes, r.rails
    block = _block_planes(tier, k_host, planes, rails)
    if block is None:
        return False
    groups = _Groups(tier, dev, block, k_host, planes, rails)
    media = runs.media
    values = np.array(sorted({v for vals, _ in runs.planes for v in vals}), np.float64)
    bins_of_value = length_bins(media, values)
    # per block of planes, each link's run (index into values), in the groups' link order
    blocks = []
    for q in range(planes // block):
        codes = []
        for p in range(q * block, (q + 1) * block):
            vals, inverse = runs.planes[p]
            code_of = np.searchsorted(values, np.array(vals, np.float64))
            codes.append(code_of[inverse[groups.order0]])
        blocks.append(groups.matrix(codes))
    lengths = np.concatenate(blocks)                         # groups of every block, block by block
    n_groups = groups.n_groups
    shape = np.tile(groups.shape, len(blocks))
    binned = np.where(lengths >= 0, bins_of_value[np.maximum(lengths, 0)], -1)
    keys = np.concatenate([shape[:, None], binned], axis=1)
    class_first, class_of = _row_classes(keys)
    names: dict[int, str] = {}
    types = tier.type_names
    fp = derived.design.floorplan

    def name(code: int) -> str:
        if code not in names:
            names[code] = server_device(code) if code < dev.servers else dev.name(code)
        return names[code]

    def links_of(g_all: int) -> list[LinkPlan]:
        """A group's links as the link-by-link path sees them (g_all: index over every block)."""
        q, g = divmod(g_all, n_groups)
        out: list[LinkPlan] = []
        at = groups.lorder[groups.g_start[g]:groups.g_start[g] + groups.g_nlinks[g]].tolist()
        for p_in in range(block):
            p = q * block + p_in
            shift = p * dev.per_plane
            for i in at:
                j = int(groups.order0[i])
                bd = int(tier.b_dev[j]) + shift
                a_type, b_type = types[int(tier.a_type[j])], types[int(tier.b_type[j])]
                if tier.link_tier[j] == 0:
                    gp = int(tier.a_port[j]) + p * rails
                    cage, lane = host_cages(np.array([gp]), k_host, planes, rails)
                    a = End(name(int(tier.a_dev[j])), f"nic-{gp + 1}", int(cage[0]), int(lane[0]), True, a_type,
                            int(tier.a_cap[j]))
                else:
                    a = End(name(int(tier.a_dev[j]) + shift), str(int(tier.a_port[j])), int(tier.a_cage[j]),
                            int(tier.a_lane[j]), False, a_type, int(tier.a_cap[j]))
                b = End(name(bd), str(int(tier.b_port[j])), int(tier.b_cage[j]), int(tier.b_lane[j]), False,
                        b_type, int(tier.b_cap[j]))
                run = float(values[int(lengths[g_all][p_in * groups.width0 + int(groups.rank[i])])])
                out.append(LinkPlan(0, TIERS[int(tier.link_tier[j])], int(tier.link_gbps[j]), a, b, run))
        return out

    class_groups = np.argsort(class_of, kind="stable")
    class_start = np.r_[0, np.cumsum(np.bincount(class_of, minlength=len(class_first)))]
    # one choice per class, from its first group; where device names could change the cable,
    # one per exact shape instead (its runs themselves, not their bins), as counts_from_links
    classes: list[tuple[np.ndarray, int, list[LinkPlan], Choice | None]] = []
    for c, g0 in enumerate(class_first.tolist()):
        members = class_groups[class_start[c]:class_start[c + 1]]
        group_links = links_of(g0)
        forced = tier.forced(fp, {link.tier for link in group_links})
        choice, by_name = _choose(group_links, media, forced)
        if not by_name:
            classes.append((members, g0, group_links, choice))
            continue
        exact_keys = np.concatenate([shape[members, None], lengths[members]], axis=1)
        exact_first, exact_of = _row_classes(exact_keys)
        for x, first_at in enumerate(exact_first.tolist()):
            exact_links = links_of(int(members[first_at]))
            classes.append((members[exact_of == x], int(members[first_at]), exact_links,
                            _choose(exact_links, media, tier.forced(fp, {link.tier for link in exact_links}))[0]))
    # per (tier, medium): links, and the first link's place (block of planes, place in the block)
    media_n: Counter[tuple[str, str]] = Counter()
    media_first: dict[tuple[str, str], int] = {}
    cabled: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []     # (groups, buckets, watts)
    bucket_ids: dict[CableLength, int] = {}
    for members, g0, group_links, choice in classes:
        mult = len(members)
        n_links = len(group_links) * mult
        local0 = g0 % n_groups
        medium = MEDIA_CODES[0] if choice is None else choice.kind
        for t in sorted({TIERS.index(link.tier) for link in group_links}):
            media_n[(TIERS[t], medium)] += mult * sum(link.tier == TIERS[t] for link in group_links)
            # members in block order: the class's first link of the tier
            place = int(((members // n_groups) * (groups.n0 + 1) + groups.first_of_tier[members % n_groups, t]).min())
            media_first[(TIERS[t], medium)] = min(media_first.get((TIERS[t], medium), place), place)
        if choice is None:
            for link in group_links:
                bill.problems[(link.tier, link.gbps)] += mult
            continue
        if choice.forced_failed:
            forced = tier.forced(fp, {link.tier for link in group_links})
            bill.forced_failed[(group_links[0].tier, forced)] += n_links
        # the columns of the class's links, in their order in the group
        m0 = len(group_links) // block
        rows = lengths[members][:, [p * groups.width0 + i for p in range(block) for i in range(m0)]]
        if choice.cable:
            cable = choice.cable
            each = cable.power_w + cable.leg_power_w * (int(groups.g_ncages[local0]) - 1)
            longest = rows.max(axis=1)
            buckets = np.zeros(mult, np.int64)
            for code in np.unique(longest).tolist():
                sold, made = sold_length(cable, float(values[code]))
                n = int(np.count_nonzero(longest == code))
                bill.counted(cable.id, sold, made, n)
                buckets[longest == code] = bucket_ids.setdefault((cable.id, sold), len(bucket_ids))
            cabled.append((members, buckets, np.full(mult, each)))
            continue
        cages = {}
        for link in group_links:
            cages[link.a.key], cages[link.b.key] = link.a, link.b
        modules = [choice.modules[key] for key in cages]      # by local cage index
        for key, module in zip(cages, modules, strict=True):
            if module is not None:   # None: a co-packaged-optics port
                bill.transceivers[(module.id, "host" if cages[key].host else "switch")] += mult
        slots: dict[tuple[int, int], list[int]] = {}
        for j, link in enumerate(group_links):
            for module, e in ((modules[list(cages).index(link.a.key)], link.a),
                              (modules[list(cages).index(link.b.key)], link.b)):
                if module is not None:
                    bill.ends[(module.id, "host" if e.host else "switch")] += mult
            main = modules[list(cages).index(link.b.key)]
            if main is None:
                bill.add(bill.catalog.cables[media.cpo_fiber(link.b.cage_type)], _runs_of(values, rows[:, j]), 1)
                continue
            k, cn = link.b.capacity, main.connectors
            if k > cn and main.split_fiber:
                slots.setdefault((list(cages).index(link.b.key), link.b.lane // (k // cn)), []).append(j)
                continue
            bill.add(bill.catalog.cables[main.fiber], _runs_of(values, rows[:, j]), max(1, cn // k))
        for (local_b, _slot), places in slots.items():
            split = modules[local_b]
            assert split is not None and split.split_fiber
            bill.add(bill.catalog.cables[split.split_fiber], _runs_of(values, rows[:, places].max(axis=1)), 1)
    if cabled:
        order = np.concatenate([m for m, _, _ in cabled])
        buckets = np.concatenate([b for _, b, _ in cabled])
        watts = np.concatenate([w for _, _, w in cabled])
        by_group = np.argsort(order, kind="stable")
        buckets, watts = buckets[by_group], watts[by_group]
        for bucket, i in bucket_ids.items():
            bill.watts[bucket].append((tier.name, watts[buckets == i]))
    for tier_medium in sorted(media_first, key=media_first.__getitem__):
        bill.media.setdefault(tier_medium[0], {})[tier_medium[1]] = media_n[tier_medium]
    return True


def _runs_of(values: np.ndarray, codes: np.ndarray) -> Counter[float]:
    """Runs counted by their index into `values`."""
    out: Counter[float] = Counter()
    counts = np.bincount(codes, minlength=len(values))
    for code in np.flatnonzero(counts).tolist():
        out[float(values[code])] = int(counts[code])
    return out


def _choose(group: list[LinkPlan], media: MediaIndex, forced: str) -> tuple[Choice | None, bool]:
    """`choose_medium` for a group, and whether device names could give another group of the
    same shape another cable (copper centers are tried in name order), as `counts_from_links`
    asks it."""
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
        by_name = sum(cages[k].host == cages[center].host for k in centers) > 1 or (
            cages[center].host and any(not cages[k].host for k in centers))
    return choice, by_name


def _tier_counts(first: LinkArrays, planes: int) -> tuple[dict[str, int], list[str]]:
    """Links per tier, and the tiers in the order of their first link in the device graph's edge
    order: there each leaf gives its server links, then its uplinks, leaf by leaf; the spines'
    uplinks come last."""
    bounds = np.searchsorted(first.tier, np.arange(4))
    counts = {TIERS[t]: int(bounds[t + 1] - bounds[t]) * planes for t in range(3) if bounds[t + 1] > bounds[t]}
    first_leaf = {}
    if "node-leaf" in counts:
        first_leaf["node-leaf"] = int(first.b_dev[bounds[0]:bounds[1]].min())
    if "leaf-spine" in counts:
        first_leaf["leaf-spine"] = int(first.a_dev[bounds[1]:bounds[2]].min())
    names = sorted(first_leaf, key=lambda name: (first_leaf[name], TIERS.index(name)))
    return counts, names + (["spine-core"] if "spine-core" in counts else [])


class _Bill:
    """What the bill of materials reads, added up class by class."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.transceivers: Counter[PartSide] = Counter()
        self.ends: Counter[PartSide] = Counter()
        self.cables: Counter[CableLength] = Counter()
        self.custom: Counter[CableLength] = Counter()
        # per bucket, the power of its cables in the link-by-link path's order, tier by tier
        self.watts: dict[CableLength, list[tuple[str, np.ndarray]]] = {}
        self.problems: Counter[tuple[str, int]] = Counter()
        self.forced_failed: Counter[tuple[str, str]] = Counter()
        self.media: dict[str, dict[str, int]] = {}

    def add(self, cable: Cable, runs: Counter[float], pieces: int, watts: float = 0.0, tier: str = "") -> None:
        """`pieces` of `cable` per run counted in `runs`, each drawing `watts`."""
        for length, n in runs.items():
            sold, made = sold_length(cable, length)
            self.counted(cable.id, sold, made, n * pieces)
            if watts:
                self.watts[(cable.id, sold)].append((tier, np.full(n * pieces, watts)))

    def counted(self, cable: str, sold: float, made: bool, n: int) -> None:
        self.cables[(cable, sold)] += n
        if made:
            self.custom[(cable, sold)] += n
        self.watts.setdefault((cable, sold), [])

    def power(self) -> dict[CableLength, float] | None:
        """Each bucket's power, added cable by cable in the link-by-link path's order (the same
        float additions); None where two tiers put cables of different power in one bucket, whose
        order there this count does not know."""
        out = {}
        for key, parts in self.watts.items():
            if not parts:
                out[key] = 0.0
                continue
            watts = np.concatenate([w for _, w in parts])
            if len({t for t, _ in parts}) > 1 and len(np.unique(watts)) > 1:
                return None
            out[key] = float(np.cumsum(watts)[-1])
        return out

    def optics(self, tier: _Tier, choice: Choice, runs: _Runs, links: Counter[float], n_links: int,
               lower_cages: int, upper_cages: int) -> None:
        """A class of `n_links` links (with the runs `links`) on optics: modules, ends, fibers."""
        modules = list(choice.modules.values())     # the lower cage's, then the upper's
        low, up = modules[0], modules[1]
        for module, side, cages in ((low, tier.lower, lower_cages), (up, tier.upper, upper_cages)):
            if module is not None:   # None: a co-packaged-optics port
                where = "host" if side.host else "switch"
                self.transceivers[(module.id, where)] += cages
                self.ends[(module.id, where)] += n_links
        if up is None:   # the upper end is a CPO port: one fiber per link, of the port's kind
            self.add(self.catalog.cables[runs.media.cpo_fiber(tier.upper.cage_type)], links, 1)
            return
        k, cn = tier.upper.capacity, up.connectors
        if k > cn and up.split_fiber:
            self.add(self.catalog.cables[up.split_fiber], runs.slots(k // cn), 1)
            return
        self.add(self.catalog.cables[up.fiber], links, max(1, cn // k))


def _one_class(bill: _Bill, tier: _Tier, runs: _Runs, choice: Choice | None, forced: str, planes: int) -> None:
    """Every link of the tier in one class: `choice`."""
    n_links = len(tier.a_dev) * planes
    links = runs.links()
    if choice is None:
        bill.problems[(tier.name, tier.gbps)] += n_links
        bill.media[tier.name] = {MEDIA_CODES[0]: n_links}
        return
    if choice.forced_failed:
        bill.forced_failed[(tier.name, forced)] += n_links
    bill.media[tier.name] = {choice.kind: n_links}
    bill.optics(tier, choice, runs, links, n_links, tier.lower.cages, tier.upper.cages)


def _single_links(bill: _Bill, tier: _Tier, runs: _Runs, choice_of: dict[float, Choice | None], forced: str) -> None:
    """Each link its own group (one port per cage at both ends): a class per medium's choice,
    read from the link's run."""
    by_choice: dict[int, tuple[Choice | None, Counter[float]]] = {}
    for length, n in runs.links().items():
        choice = choice_of[length]
        by_choice.setdefault(id(choice), (choice, Counter()))[1][length] += n
    medium_of: dict[float, str] = {}
    for choice, links in by_choice.values():
        n = sum(links.values())
        medium = MEDIA_CODES[0] if choice is None else choice.kind
        medium_of.update(dict.fromkeys(links, medium))
        if choice is None:
            bill.problems[(tier.name, tier.gbps)] += n
            continue
        if choice.forced_failed:
            bill.forced_failed[(tier.name, forced)] += n
        if choice.cable:
            cable = choice.cable
            bill.add(cable, links, 1, cable.power_w + cable.leg_power_w, tier.name)
            continue
        bill.optics(tier, choice, runs, links, n, n, n)
    bill.media[tier.name] = runs.media_in_order(medium_of)


def class_physical(derived: Derived, catalog: Catalog) -> PhysicalCounts | None:
    """The counts by class of link (module docstring), or None where a tier's links are not
    counted so: count those link by link."""
    r, plan, design = derived.resolved, derived.plan, derived.design
    fp = design.floorplan
    servers, planes = design.cluster.servers, r.planes
    dev = DeviceCodes(servers, plan, planes)
    first, server_of_ep, leaf_of = first_plane_links(r, plan, dev, ordered=False)
    if not len(first.tier) or int(first.tier.max()) > 2:
        return None
    if np.any(np.diff(first.tier) < 0):
        return None   # not tier by tier: a template this count does not know
    tiers = _tiers(derived, catalog, first)
    if tiers is None:
        return None
    row, slot, layout = template_positions(fp, servers, plan, planes, r.rails, dev, leaf_of, server_of_ep)
    media = MediaIndex(catalog, r.technology.family)
    k_host = host_ports_per_cage(catalog, derived)[0]
    bill = _Bill(catalog)
    for tier in tiers:
        runs = _Runs(derived, tier, dev, row, slot, media)
        if tier.merged:
            if not _grouped(bill, tier, runs, derived, dev, k_host):
                return None
            continue
        lengths = np.array(sorted(runs.links()), np.float64)
        forced = fp.forced_medium(tier.name)
        bins = length_bins(media, lengths)
        firsts = np.unique(bins, return_index=True)[1]
        choice_of_bin = {int(bins[i]): _choice_at(tier, media, forced, float(lengths[i])) for i in firsts.tolist()}
        if tier.lower.capacity == 1 and tier.upper.capacity == 1:
            choice_of = {float(v): choice_of_bin[int(b)] for v, b in zip(lengths, bins, strict=True)}
            _single_links(bill, tier, runs, choice_of, forced)
            continue
        outcomes = {_outcome(c) for c in choice_of_bin.values()}
        block = _block_planes(tier, k_host, planes, r.rails)
        if len(outcomes) == 1 and _copper_impossible(tier, media, float(lengths[0]), block, k_host, planes, r.rails):
            _one_class(bill, tier, runs, next(iter(choice_of_bin.values())), forced, planes)
        elif not _grouped(bill, tier, runs, derived, dev, k_host):
            return None

    tier_counts, present = _tier_counts(first, planes)
    findings = _findings(bill.problems, bill.forced_failed, bill.custom, r.technology.family)
    power = bill.power()
    if power is None:
        return None
    return PhysicalCounts(layout, bill.transceivers, bill.ends, bill.cables, power, bill.custom, findings,
                          {name: tier_counts[name] for name in present}, {name: bill.media[name] for name in present})
