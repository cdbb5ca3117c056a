"""A template's tiers on one plane, their runs on every plane, and the bill they add up to: the
parts the bill by class of link (class_bom.py, class_groups.py) is counted from.

Only the first plane's links are generated (`closed_form_bom.first_plane_links`): every plane
repeats them with its own switches, standing elsewhere on the floor, so each plane's runs are
counted (`link_runs`' arithmetic). A tier whose lower switches' cages also serve the tier below
(an oversubscribed leaf's cage of server ports and uplinks) is merged with it into one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from designer.catalog import Catalog
from designer.catalog.entries import Cable
from designer.model.common.arrays import sorted_distinct
from designer.model.physical.closed_form_bom import (
    TIERS,
    _Cages,
    first_plane_cages,
    host_cages,
)
from designer.model.physical.link_arrays import DeviceCodes, LinkArrays
from designer.model.physical.link_runs import TierRuns
from designer.model.physical.media import (
    CableLength,
    Choice,
    MediaIndex,
    PartSide,
    sold_length,
)

if TYPE_CHECKING:
    from designer.model.intent.floorplan import FloorPlan
    from designer.model.topology.derive import Derived


@dataclass
class Side:
    """One side of a tier's links: its kind of cage and how many cages it has in all planes."""

    host: bool
    cage_type: str
    capacity: int
    cages: int


@dataclass
class Tier:
    """A tier's links on the first plane, with the cages of their upper ends."""

    name: str
    gbps: int
    a_dev: np.ndarray       # first plane's device codes
    b_dev: np.ndarray
    b_cage: np.ndarray
    b_lane: np.ndarray
    lower: Side
    upper: Side
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
    def first_plane_links(self) -> int:
        return len(self.a_dev)

    @property
    def a_host(self) -> np.ndarray:
        """Per link, whether its lower end is a server's NIC."""
        host: np.ndarray = self.link_tier == 0
        return host

    def forced(self, fp: FloorPlan, tiers: set[str]) -> str:
        """The medium forced on a group of the tiers named (none: "auto" for a group of two)."""
        return fp.forced_medium(next(iter(tiers))) if len(tiers) == 1 else "auto"


# A tier's per-link arrays: a tier counted from its shape has them made only when a count reads them.
TIER_ARRAYS = ("a_dev", "b_dev", "b_cage", "b_lane", "a_port", "b_port", "a_cage", "a_lane", "link_tier",
               "link_gbps", "a_type", "a_cap", "b_type", "b_cap", "type_names")


class ShapedTier(Tier):
    """A tier counted from its template's arithmetic (tier_shapes.py): its sides, speed and
    links come from the shape; its per-link arrays (the groups, a NIC cage's partners) are made
    by `load` the first time a count reads one."""

    def __init__(self, name: str, gbps: int, lower: Side, upper: Side, host: bool, links: int, shape: Any,
                 load: Callable[[], dict[str, Any]]) -> None:
        self.name, self.gbps, self.lower, self.upper, self.host = name, gbps, lower, upper, host
        self.merged = False
        self.shape, self._links, self._load = shape, links, load

    @property
    def first_plane_links(self) -> int:
        return self._links

    def __getattr__(self, attr: str) -> Any:
        if attr in TIER_ARRAYS and "_load" in self.__dict__:
            arrays = self._load()
            for name in TIER_ARRAYS:
                setattr(self, name, arrays[name])
            return arrays[attr]
        raise AttributeError(attr)


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


def first_plane_tiers(derived: Derived, catalog: Catalog, first: LinkArrays) -> list[Tier] | None:
    """The template's tiers, first plane, or None where a cage serves two tiers or a side of a
    tier has two kinds of cage."""
    r = derived.resolved
    planes, rails = r.planes, r.rails
    cages = first_plane_cages(derived, catalog, first.tier, first.a_port, first.b_port)
    tiers: list[Tier] = []
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
                per_server = len(sorted_distinct(host_cages(global_ports, cages.k_host, planes, rails)[0]))
                lower_cages = derived.design.cluster.servers * per_server
            else:
                per_plane = [host_cages(ports + p * rails, cages.k_host, planes, rails)[0] for p in range(planes)]
                lower_cages = _count_cages(np.concatenate([a_dev] * planes), np.concatenate(per_plane))
        else:
            lower_cages = _count_cages(a_dev, cages.a_cage[mask]) * planes
        highest_below[roles[t]] = int(b_cage.max())
        lower = Side(t == 0, cages.type_names[a_type], a_cap, lower_cages)
        upper = Side(False, cages.type_names[b_type], b_cap, _count_cages(b_dev, b_cage) * planes)
        tiers.append(Tier(TIERS[t], gbps, a_dev, b_dev, b_cage, b_lane, lower, upper, t == 0, first.a_port[mask],
                           first.b_port[mask], cages.a_cage[mask], cages.a_lane[mask], first.tier[mask],
                           first.gbps[mask], cages.a_type[mask], cages.a_cap[mask], cages.b_type[mask],
                           cages.b_cap[mask], cages.type_names))
    return tiers


def _merged(below: Tier, first: LinkArrays, cages: _Cages, mask: slice) -> Tier:
    """`below` and the next tier (`mask` of the first plane's links) as one tier: links in the
    device graph's order (server links and uplinks leaf by leaf, the spines' uplinks last)."""
    def cat(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        joined: np.ndarray = np.concatenate([x, y])
        return joined

    upper = Tier(TIERS[int(first.tier[mask.start])], 0, first.a_dev[mask], first.b_dev[mask], cages.b_cage[mask],
                  cages.b_lane[mask], below.lower, below.upper, False, first.a_port[mask], first.b_port[mask],
                  cages.a_cage[mask], cages.a_lane[mask], first.tier[mask], first.gbps[mask], cages.a_type[mask],
                  cages.a_cap[mask], cages.b_type[mask], cages.b_cap[mask], cages.type_names)
    fields = ("a_dev", "b_dev", "b_cage", "b_lane", "a_port", "b_port", "a_cage", "a_lane", "link_tier",
              "link_gbps", "a_type", "a_cap", "b_type", "b_cap")
    joined = {f: cat(getattr(below, f), getattr(upper, f)) for f in fields}
    return Tier(f"{below.name}+{upper.name}", 0, joined["a_dev"], joined["b_dev"], joined["b_cage"],
                 joined["b_lane"], below.lower, below.upper, below.host, joined["a_port"], joined["b_port"],
                 joined["a_cage"], joined["a_lane"], joined["link_tier"], joined["link_gbps"], joined["a_type"],
                 joined["a_cap"], joined["b_type"], joined["b_cap"], cages.type_names, merged=True)


class Runs:
    """A tier's runs on every plane, by `link_runs`' arithmetic worked out per distinct pair of
    racks (`TierRuns`): per plane the distinct runs and each link's index among them, read
    only where a count needs a link's run."""

    def __init__(self, derived: Derived, tier: Tier, dev: DeviceCodes, row: np.ndarray, slot: np.ndarray,
                 media: MediaIndex) -> None:
        self.tier, self.media = tier, media
        self._links: Counter[float] | None = None
        self._planes: list[tuple[list[float], np.ndarray]] | None = None
        fp, planes = derived.design.floorplan, derived.resolved.planes
        # a shaped tier's runs come from its shape (tier_shapes.py); its runs link by link, where
        # a count reads them, from its links made then
        self._shape = tier.shape.runs(fp, dev, planes, row, slot) if isinstance(tier, ShapedTier) else None
        self._runs = self._shape.runs if self._shape is not None else None
        self._by_link: TierRuns | None = None
        self._made = (fp, dev, planes, row, slot)

    def _per_link_runs(self) -> TierRuns:
        fp, dev, planes, row, slot = self._made
        return TierRuns(fp, self.tier.a_dev, self.tier.b_dev, dev.servers, dev.per_plane, planes, row, slot)

    def _share_runs(self, by_link: TierRuns) -> TierRuns:
        """The runs link by link of a shaped tier, each plane's runs taken from its shape's where
        both count the same pairs of classes of devices (a class's devices stand in the same
        racks on every plane, so a pair's runs are the same whichever devices stand for it)."""
        shaped = self._runs
        if shaped is not None and shaped.same_pairs(by_link):
            by_link.share_planes(shaped)
        return by_link

    @property
    def _tier_runs(self) -> TierRuns:
        if self._runs is None:
            self._runs = self._per_link_runs()
        return self._runs

    @property
    def _link_runs(self) -> TierRuns:
        """The runs link by link: a shaped tier's are counted by classes of devices, not by
        links, so they are made from its links the first time a count reads a link's run."""
        if self._shape is None:
            return self._tier_runs
        if self._by_link is None:
            # a shape that holds every device of its links gives them (the server links' segments)
            self._by_link = self._shape.per_link_runs() or self._share_runs(self._per_link_runs())
        return self._by_link

    @property
    def planes(self) -> list[tuple[list[float], np.ndarray]]:
        """Per plane, its distinct runs and each link's index among them."""
        if self._planes is None:
            runs = self._link_runs
            self._planes = [runs.per_link(p) for p in range(runs.n_planes)]
        return self._planes

    def plane_pairs(self) -> tuple[list[tuple[list[float], np.ndarray]], np.ndarray]:
        """Per plane its distinct runs and per pair of classes the index of its run, and each
        link's pair (`planes` without a run per link and plane: a link's run is its pair's, read
        only for the links a count reads)."""
        runs = self._link_runs
        return [runs.plane(p) for p in range(runs.n_planes)], runs.pair_of_link

    def link_classes(self) -> np.ndarray:
        """Per link (the first plane's, in the tier's order), a class of links whose runs are the
        same on every plane: the pair of classes of devices it joins (`TierRuns`)."""
        classes: np.ndarray = self._link_runs.pair_of_link
        return classes

    @staticmethod
    def _counted(values: list[float], codes: np.ndarray, into: Counter[float]) -> None:
        for v, n in zip(values, np.bincount(codes, minlength=len(values)).tolist(), strict=True):
            if n:
                into[v] += n

    def links(self) -> Counter[float]:
        """Links per distinct run (counted once, read by every class of the tier)."""
        if self._links is None:
            self._links = Counter()
            runs = self._tier_runs
            for p in range(runs.n_planes):
                values, counts = runs.histogram(p)
                for v, n in zip(values, counts.tolist(), strict=True):
                    if n:
                        self._links[v] += n
        return Counter(self._links)

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
        if self._shape is not None:
            return Counter(self._shape.slots(split_lanes))
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


class Bill:
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
            if len({t for t, _ in parts}) > 1 and len(sorted_distinct(watts)) > 1:
                return None
            out[key] = float(np.cumsum(watts)[-1])
        return out

    def optics(self, tier: Tier, choice: Choice, runs: Runs, links: Counter[float], n_links: int,
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
