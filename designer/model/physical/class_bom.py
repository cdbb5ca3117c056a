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
    MEDIA_CODES,
    TIERS,
    PhysicalCounts,
    first_plane_cages,
    first_plane_links,
    host_cages,
    length_bins,
)
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
    choose_medium,
    sold_length,
)
from designer.model.physical.template_layout import template_positions

if TYPE_CHECKING:
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
    for t in range(3):
        mask = first.tier == t
        if not mask.any():
            continue
        gbps = _one(first.gbps[mask])
        a_cap, a_type = _one(cages.a_cap[mask]), _one(cages.a_type[mask])
        b_cap, b_type = _one(cages.b_cap[mask]), _one(cages.b_type[mask])
        if gbps is None or a_cap is None or a_type is None or b_cap is None or b_type is None:
            return None
        a_dev, b_dev = first.a_dev[mask], first.b_dev[mask]
        b_cage, b_lane = cages.b_cage[mask], cages.b_lane[mask]
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
            a_cage = cages.a_cage[mask]
            # the lower switch's cages of this tier must lie above those of the tier below it
            if int(a_cage.min()) <= highest_below.get(roles[t - 1], -1):
                return None
            lower_cages = _count_cages(a_dev, a_cage) * planes
        highest_below[roles[t]] = int(b_cage.max())
        lower = _Side(t == 0, cages.type_names[a_type], a_cap, lower_cages)
        upper = _Side(False, cages.type_names[b_type], b_cap, _count_cages(b_dev, b_cage) * planes)
        tiers.append(_Tier(TIERS[t], gbps, a_dev, b_dev, b_cage, b_lane, lower, upper, t == 0))
    return tiers


def _copper_impossible(tier: _Tier, media: MediaIndex, shortest: float) -> bool:
    """No copper or AOC cable can join any group of the tier's cages: every run is beyond the
    copper reach, or no cable has a port mode at the tier's speed and either side's breakout
    (what `_try_copper` requires of the cage at a cable's main end)."""
    if shortest > media.copper_reach_m:
        return True
    capacities = {tier.lower.capacity, tier.upper.capacity}
    return not any(m.gbps == tier.gbps and m.count in capacities for c in media.cables for m in c.port_modes)


def _choice_at(tier: _Tier, media: MediaIndex, forced: str, length: float) -> Choice | None:
    """`choose_medium` for one link of the tier at `length`, between a cage of each side."""
    lower = End("lower", "1", 0, 0, tier.lower.host, tier.lower.cage_type, tier.lower.capacity)
    upper = End("upper", "1", 0, 0, False, tier.upper.cage_type, tier.upper.capacity)
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


def _tiers_in_graph_order(tiers: list[_Tier]) -> list[str]:
    """The tiers in the order of their first link in the device graph's edge order: there each
    leaf gives its server links, then its uplinks, leaf by leaf; the spines' uplinks come last."""
    first_leaf = {t.name: int(t.b_dev.min() if t.host else t.a_dev.min()) for t in tiers if t.name != "spine-core"}
    names = sorted(first_leaf, key=lambda name: (first_leaf[name], TIERS.index(name)))
    return names + [t.name for t in tiers if t.name == "spine-core"]


class _Bill:
    """What the bill of materials reads, added up class by class."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.transceivers: Counter[PartSide] = Counter()
        self.ends: Counter[PartSide] = Counter()
        self.cables: Counter[CableLength] = Counter()
        self.custom: Counter[CableLength] = Counter()
        self.watts: dict[CableLength, float] = {}        # one cable's power in each bucket
        self.problems: Counter[tuple[str, int]] = Counter()
        self.forced_failed: Counter[tuple[str, str]] = Counter()
        self.media: dict[str, dict[str, int]] = {}

    def add(self, cable: Cable, runs: Counter[float], pieces: int, watts: float = 0.0) -> None:
        for length, n in runs.items():
            sold, made = sold_length(cable, length)
            self.cables[(cable.id, sold)] += n * pieces
            if made:
                self.custom[(cable.id, sold)] += n * pieces
            self.watts.setdefault((cable.id, sold), watts)

    def power(self) -> dict[CableLength, float]:
        """Each bucket's power, added cable by cable as the link-by-link path adds it (the same
        float additions: every cable of a bucket draws the same)."""
        return {key: float(np.cumsum(np.full(self.cables[key], w))[-1]) if w else 0.0
                for key, w in self.watts.items()}

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
            bill.add(cable, links, 1, cable.power_w + cable.leg_power_w)
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
    tiers = _tiers(derived, catalog, first)
    if tiers is None:
        return None
    row, slot, layout = template_positions(fp, servers, plan, planes, r.rails, dev, leaf_of, server_of_ep)
    media = MediaIndex(catalog, r.technology.family)
    bill = _Bill(catalog)
    for tier in tiers:
        runs = _Runs(derived, tier, dev, row, slot, media)
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
        if not _copper_impossible(tier, media, float(lengths[0])) or len(outcomes) != 1:
            return None
        _one_class(bill, tier, runs, next(iter(choice_of_bin.values())), forced, planes)

    tier_counts = {t.name: len(t.a_dev) * planes for t in tiers}
    present = _tiers_in_graph_order(tiers)
    findings = _findings(bill.problems, bill.forced_failed, bill.custom, r.technology.family)
    return PhysicalCounts(layout, bill.transceivers, bill.ends, bill.cables, bill.power(), bill.custom, findings,
                          {name: tier_counts[name] for name in present}, {name: bill.media[name] for name in present})
