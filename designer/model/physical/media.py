"""Physical layer: where every device stands, how long every link is, and what carries it.

Rules (README, "Physical layer"):
- Each link runs between two cages: a switch cage holds `ports_at(speed) / cages` links (a
  twin-port OSFP on QM9700 holds two 400G links); a server cage holds what its catalog
  `host_ports` entry says (DGX H100: two NICs per OSFP cage), else one NIC card's ports.
- A copper cable or an active optical cable plugs a whole cage at each end. It fits a group
  of cages tied together by links only when the group is one cage wired to one or more far
  cages (a straight cable, or a splitter whose legs each serve one far cage), within reach.
- Everything else is optical: one transceiver per cage. Both ports of a twin-port module use
  the same optics and both ends of a link the same optics, so a whole group of linked cages
  shares one optic: multimode SR first, then single-mode DR, then FR, the first whose modules
  reach the longest link of every cage. Each cage gets the shortest-reach module that suffices.
- Fibers are counted per link (twice for an 800G port over a twin-port module), or one 1:2
  splitter per module port when a cage runs more links than the module has fiber connectors.
The user can force a medium per tier in the floor plan; a forced medium that cannot work is
reported as a finding and the automatic choice is used instead.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from designer.catalog import Catalog, default_catalog
from designer.catalog.entries import Cable, Switch, Transceiver
from designer.model.common.cache import ContentCache
from designer.model.physical.floor_layout import (
    Layout,
    LeafSpot,
    cable_run_m,
    lay_out,
    server_device,
)
from designer.model.topology.metrics import Finding

if TYPE_CHECKING:
    import networkx as nx

    from designer.model.topology.derive import Derived
    from designer.model.topology.sizing import Plan, Resolved

PartSide = tuple[str, str]          # (transceiver id, "switch" | "host")
CableLength = tuple[str, float]     # (cable id, sold length in m)
CageKey = tuple[str, int]           # End.key: (device, cage)

COPPER_KINDS: tuple[str, ...] = ("dac", "acc", "aoc")
OPTICS: tuple[str, ...] = ("sr", "dr", "fr")
MEDIUM_OF_OPTIC = {"sr": "mmf", "dr": "smf", "fr": "smf"}
MEDIUM_LABELS = {
    "dac": "passive copper (DAC)", "acc": "active copper (ACC)", "aoc": "active optical cable (AOC)",
    "mmf": "multimode fiber", "smf": "single-mode fiber", "none": "no catalog medium",
}


@dataclass(frozen=True)
class End:
    """One end of a link: the device, its port and the cage the port lives in."""

    device: str        # "srv-3" or "leaf-2"
    port: str          # "nic-5" or "17"
    cage: int          # 0-based cage on the device
    lane: int          # 0-based position of the port in its cage
    host: bool
    cage_type: str
    capacity: int      # ports one cage holds at the link's speed

    @property
    def key(self) -> tuple[str, int]:
        return (self.device, self.cage)

    @property
    def cage_label(self) -> str:
        """Cage and position as printed on a cabling plan, from 1 ('3/2': cage 3, second port)."""
        return f"{self.cage + 1}/{self.lane + 1}" if self.capacity > 1 else f"{self.cage + 1}"


@dataclass
class LinkPlan:
    """One physical link with its estimated length and the parts that carry it."""

    index: int
    tier: str
    gbps: int
    a: End             # the lower device (NIC or lower switch)
    b: End
    length_m: float
    medium: str = "none"
    optic: str = ""
    a_part: str = ""   # transceiver id at each end ("" for cables)
    b_part: str = ""
    cable: str = ""    # copper / AOC cable id, or the fiber's id
    cable_length_m: float = 0.0


@dataclass
class Physical:
    links: list[LinkPlan]
    layout: Layout
    transceivers: Counter[PartSide]             # (transceiver id, "switch"|"host") -> modules
    transceiver_ends: Counter[PartSide]         # (transceiver id, side) -> link ends they serve
    cables: Counter[CableLength]                # (cable id, sold length) -> pieces
    cable_power_w: dict[CableLength, float] = field(default_factory=dict)   # (cable id, sold length) -> total W
    custom_lengths: Counter[CableLength] = field(default_factory=Counter)  # (cable id, length) made to order
    findings: list[Finding] = field(default_factory=list)

    def links_by_tier(self) -> dict[str, int]:
        return dict(Counter(link.tier for link in self.links))

    def media_by_tier(self) -> dict[str, dict[str, int]]:
        out: dict[str, Counter[str]] = defaultdict(Counter)
        for link in self.links:
            out[link.tier][link.medium] += 1
        return {tier: dict(c) for tier, c in out.items()}


# ----------------------------------------------------------------------------- cages and ends

def switch_cage_capacity(sw: Switch, gbps: int) -> int:
    """Logical ports one cage of `sw` holds at `gbps` (2 on a twin-port OSFP at 400G)."""
    n = sw.ports_at(gbps)
    if sw.cages and n and n % sw.cages == 0:
        return n // sw.cages
    return 1


def host_ports_per_cage(catalog: Catalog, derived: Derived) -> tuple[int, str]:
    """(NIC ports per server cage, cage type) from the catalog's host_ports entry or the NIC."""
    r = derived.resolved
    entry = catalog.host_ports.get(r.server.id)
    own_nic = r.nic.id == r.server.compute_nic
    cage_type = (entry.cage_type if entry and own_nic and entry.cage_type else r.nic.form_factor)
    if entry and own_nic and entry.ports_per_cage:
        return entry.ports_per_cage, cage_type
    mode = r.nic.mode_for(r.technology.family, r.port_gbps)
    if mode and mode.ports > 1 and r.nic.form_factor == "OSFP":
        return mode.ports, cage_type  # one OSFP cage per multi-port card (ConnectX-8 2 x 400GbE)
    return 1, cage_type


def _host_cage(port: int, plane: int, rail: int, k: int, planes: int) -> tuple[int, int]:
    """(cage, lane) of a server's global NIC port; a card's ports go to different planes."""
    if k <= 1:
        return port, 0
    if planes > 1 and planes % k == 0:
        return rail * (planes // k) + plane // k, plane % k
    return divmod(port, k)


def _cached_switch_cage() -> Callable[[Switch, str, int, int, Resolved, Plan], tuple[int, int, int]]:
    """`switch_cage`, with each switch model's cage capacity looked up once."""
    capacity: dict[tuple[str, int], int] = {}

    def cap(sw: Switch, gbps: int) -> int:
        key = (sw.id, gbps)
        if key not in capacity:
            capacity[key] = switch_cage_capacity(sw, gbps)
        return capacity[key]

    def cage(sw: Switch, role: str, port: int, gbps: int, r: Resolved, plan: Plan) -> tuple[int, int, int]:
        return switch_cage(sw, role, port, gbps, r, plan, cap)

    return cage


def switch_cage(sw: Switch, role: str, port: int, gbps: int, r: Resolved, plan: Plan,
                capacity: Callable[[Switch, int], int] = switch_cage_capacity) -> tuple[int, int, int]:
    """(cage, lane, capacity) of a 1-based switch port. Down ports come first, then uplinks."""
    k = capacity(sw, gbps)
    if role == "leaf" and r.link_gbps != r.uplink_gbps:
        k_down = capacity(sw, r.link_gbps)
        if port <= plan.leaf_down:
            return (port - 1) // k_down, (port - 1) % k_down, k_down
        base = -(-plan.leaf_down // k_down)
        off = port - plan.leaf_down - 1
        return base + off // k, off % k, k
    return (port - 1) // k, (port - 1) % k, k


# ----------------------------------------------------------------------------- catalog lookups

class MediaIndex:
    """Catalog media indexed for the questions the physical layer asks, answers cached."""

    def __init__(self, catalog: Catalog, family: str) -> None:
        self.family = family
        self.transceivers = [t for t in catalog.transceivers.values() if family in t.families]
        self.cables = [c for c in catalog.cables.values() if c.kind in COPPER_KINDS and family in c.families]
        self.fibers = catalog.cables
        self.lanes = sorted({t.lane_gbps for t in self.transceivers})
        self.copper_reach_m = max((c.reach_m for c in self.cables), default=0.0)
        self.known_types = ({f for t in catalog.transceivers.values() for f in t.form_factors}
                            | {f for c in catalog.cables.values() for f in c.form_factors})
        # Co-packaged-optics ports by cage type: they take a fiber, never a module or a cable.
        self.cpo: dict[str, Switch] = {}
        for sw in catalog.switches.values():
            if sw.co_packaged_optics:
                self.cpo.setdefault(sw.cage_type, sw)
        self.lanes = sorted(set(self.lanes) | {sw.cpo_lane_gbps for sw in self.cpo.values() if sw.cpo_lane_gbps})
        self._modules: dict[tuple[str, int, str, int, int], list[Transceiver]] = {}

    def fits(self, form_factors: tuple[str, ...], cage_type: str) -> bool:
        # A cage type the catalog does not know (a generic switch) accepts any form factor; a
        # co-packaged-optics port accepts none.
        if cage_type in self.cpo:
            return False
        return cage_type not in self.known_types or cage_type in form_factors

    def cpo_fits(self, cage_type: str, optic: str, lane: int, need_m: float) -> bool:
        """A co-packaged-optics port speaks `optic` at `lane` Gb/s per lane and reaches `need_m`."""
        sw = self.cpo[cage_type]
        return (sw.cpo_optic == optic and (not sw.cpo_lane_gbps or sw.cpo_lane_gbps == lane)
                and (not sw.cpo_reach_m or sw.cpo_reach_m + 1e-9 >= need_m))

    def cpo_fiber(self, cage_type: str) -> str:
        return self.cpo[cage_type].cpo_fiber

    def modules(self, optic: str, lane: int, cage_type: str, k: int, gbps: int) -> list[Transceiver]:
        key = (optic, lane, cage_type, k, gbps)
        if key not in self._modules:
            found = [t for t in self.transceivers
                     if t.optic == optic and t.lane_gbps == lane and self.fits(t.form_factors, cage_type)
                     and any(m.count == k and m.gbps == gbps for m in t.port_modes)]
            self._modules[key] = sorted(found, key=lambda t: (t.reach_m, t.power_w, t.id))
        return self._modules[key]

    def module(self, optic: str, lane: int, cage_type: str, k: int, gbps: int, need_m: float) -> Transceiver | None:
        for t in self.modules(optic, lane, cage_type, k, gbps):
            if t.reach_m + 1e-9 >= need_m:
                return t
        return None


def sold_length(cable: Cable, length_m: float) -> tuple[float, bool]:
    """The shortest length sold that covers `length_m`, and whether it is a custom length."""
    need = max(length_m, cable.min_m)
    for sold in cable.lengths_m:
        if sold + 1e-9 >= need:
            return float(sold), False
    step = 10 if need > 10 else 1
    return float(math.ceil(need / step - 1e-9) * step), bool(cable.lengths_m)


# ----------------------------------------------------------------------------- the computation

def part_id(module: Transceiver | None) -> str:
    """A link end's transceiver id; "" for a co-packaged-optics port, which has none."""
    return module.id if module is not None else ""


class _Groups:
    """Union-find over cages: cages tied together by links must share one medium."""

    def __init__(self) -> None:
        self.parent: dict[CageKey, CageKey] = {}

    def find(self, x: CageKey) -> CageKey:
        parent = self.parent
        parent.setdefault(x, x)
        root = x
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:
            parent[x], x = root, parent[x]
        return root

    def union(self, a: CageKey, b: CageKey) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[ra] = rb


def _leaf_spots(g: nx.MultiGraph[str]) -> tuple[list[LeafSpot], list[str]]:
    served: dict[str, list[int]] = defaultdict(list)
    for u, v, d in g.edges(data=True):
        if d["tier"] == "node-leaf":
            nic, leaf = (u, v) if u == d["a"] else (v, u)
            served[leaf].append(g.nodes[nic]["server"])
    leaves, others = [], []
    servers = max((d.get("server", 0) for _, d in g.nodes(data=True) if d["role"] == "nic"), default=0) + 1
    n_leaves = sum(1 for _, d in g.nodes(data=True) if d["role"] == "leaf") or 1
    for node, d in g.nodes(data=True):
        if d["role"] == "leaf":
            spread = d["rail"] if d.get("rail", -1) >= 0 else d["index"]
            leaves.append(LeafSpot(node, tuple(sorted(served[node])), spread,
                                   d["index"] * servers // n_leaves))
        elif d["role"] in ("spine", "core"):
            others.append(node)
    return leaves, others


def _build_links(derived: Derived, catalog: Catalog, layout: Layout) -> list[LinkPlan]:
    g, r, plan = derived.graph, derived.resolved, derived.plan
    fp = derived.design.floorplan
    k_host, host_type = host_ports_per_cage(catalog, derived)
    switches: dict[str, Switch] = {}
    links: list[LinkPlan] = []
    nodes = g.nodes
    pos = layout.positions
    cage_of = _cached_switch_cage()

    def end(node: str, port: int, gbps: int) -> End:
        d = nodes[node]
        if d["role"] == "nic":
            cage, lane = _host_cage(d["port"], d["plane"], d["rail"], k_host, r.planes)
            return End(server_device(d["server"]), f"nic-{d['port'] + 1}", cage, lane, True, host_type, k_host)
        model = d["model"]
        sw = switches.get(model) or switches.setdefault(model, catalog.switch(model))
        cage, lane, k = cage_of(sw, d["role"], port, gbps, r, plan)
        return End(node, str(port), cage, lane, False, sw.cage_type, k)

    for i, (u, v, d) in enumerate(g.edges(data=True)):
        lower = d["a"]
        upper = v if lower == u else u
        a, b = end(lower, d["pa"], d["gbps"]), end(upper, d["pb"], d["gbps"])
        length = cable_run_m(fp, pos[a.device], pos[b.device])
        links.append(LinkPlan(i, d["tier"], d["gbps"], a, b, length))
    return links


def _try_copper(links: list[LinkPlan], cages: dict[CageKey, End], media: MediaIndex,
               kinds: tuple[str, ...]) -> tuple[Cable, CageKey] | None:
    """(cable, center cage) when the group of cages can be wired with one copper/AOC cable."""
    longest = max(link.length_m for link in links)
    if not kinds or longest > media.copper_reach_m or len({link.gbps for link in links}) != 1:
        return None
    gbps = links[0].gbps
    keys = set(cages)
    centers = [k for k in keys if all(k in (link.a.key, link.b.key) for link in links)]
    centers.sort(key=lambda k: (cages[k].host, k))  # a switch cage is the better main end
    any_host = any(e.host for e in cages.values())
    for kind in kinds:
        options = sorted((c for c in media.cables if c.kind == kind), key=lambda c: (c.reach_m, c.id))
        for center in centers:
            main = cages[center]
            far = keys - {center}
            if not far:
                continue
            for cable in options:
                if longest > cable.reach_m + 1e-9 or len(far) > cable.legs:
                    continue
                if not all(media.fits(cable.form_factors, e.cage_type) for e in cages.values()):
                    continue
                if cable.ends == "switch-switch" and any_host:
                    continue
                if cable.ends == "switch-host" and (main.host or not all(cages[f].host for f in far)):
                    continue
                mode = next((m for m in cable.port_modes if m.gbps == gbps and m.count == main.capacity), None)
                if mode is None or mode.count % cable.legs:
                    continue
                if all(cages[f].capacity == mode.count // cable.legs for f in far):
                    return cable, center
    return None


def _try_optics(links: list[LinkPlan], cages: dict[CageKey, End], media: MediaIndex,
                optics: tuple[str, ...]) -> tuple[str, dict[CageKey, Transceiver | None]] | None:
    """(optic, {cage: module}) for the first optic whose modules reach every cage's longest link."""
    need: dict[CageKey, float] = defaultdict(float)
    gbps: dict[CageKey, int] = {}
    for link in links:
        for e in (link.a, link.b):
            need[e.key] = max(need[e.key], link.length_m)
            gbps[e.key] = link.gbps
    for optic in optics:
        for lane in media.lanes:
            chosen: dict[CageKey, Transceiver | None] = {}
            for key, e in cages.items():
                if e.cage_type in media.cpo:
                    # the optics are in the switch package: no module, the port must speak it
                    if not media.cpo_fits(e.cage_type, optic, lane, need[key]):
                        break
                    chosen[key] = None
                    continue
                module = media.module(optic, lane, e.cage_type, e.capacity, gbps[key], need[key])
                if module is None:
                    break
                chosen[key] = module
            else:
                return optic, chosen
    return None


@dataclass(frozen=True)
class Choice:
    """The medium of one group of linked cages: a cable, or an optic with a module per cage."""

    kind: str                      # dac | acc | aoc | mmf | smf
    cable: Cable | None = None     # copper / AOC cable
    optic: str = ""                # sr | dr | fr
    modules: dict[Any, Transceiver | None] = field(default_factory=dict)   # cage -> module (None: CPO)
    forced_failed: bool = False    # the forced medium could not be used


def choose_medium(links: list[LinkPlan], media: MediaIndex, forced: str = "auto") -> Choice | None:
    """The medium for a group of links whose cages are tied together (None: nothing fits)."""
    cages = {}
    for link in links:
        cages[link.a.key], cages[link.b.key] = link.a, link.b
    if forced == "auto":
        copper_kinds, optics = COPPER_KINDS, OPTICS
    elif forced in COPPER_KINDS:
        copper_kinds, optics = (forced,), ()
    else:
        copper_kinds, optics = (), {"mmf": ("sr",), "smf": ("dr", "fr")}[forced]
    for attempt in range(2):
        copper = _try_copper(links, cages, media, copper_kinds)
        if copper:
            return Choice(copper[0].kind, cable=copper[0], forced_failed=attempt == 1)
        optical = _try_optics(links, cages, media, optics)
        if optical:
            return Choice(MEDIUM_OF_OPTIC[optical[0]], optic=optical[0], modules=optical[1],
                          forced_failed=attempt == 1)
        if forced == "auto":
            return None
        copper_kinds, optics = COPPER_KINDS, OPTICS  # the forced medium cannot work: choose freely
    return None


class _ChoiceMemo:
    """`choose_medium` remembered by the shape of a group: big fabrics repeat a few shapes."""

    def __init__(self, media: MediaIndex) -> None:
        self.media = media
        self.seen: dict[tuple[Any, ...], Choice | None] = {}

    def choose(self, group: list[LinkPlan], cages: dict[CageKey, End], forced: str) -> Choice | None:
        local = {key: i for i, key in enumerate(cages)}
        shape = (forced,
                 tuple((link.gbps, local[link.a.key], local[link.b.key], link.length_m) for link in group),
                 tuple((e.host, e.cage_type, e.capacity) for e in cages.values()))
        if shape not in self.seen:
            choice = choose_medium(group, self.media, forced)
            if choice is not None and choice.modules:
                # keep modules by position in the group, to map them onto other groups' cages
                choice = Choice(choice.kind, choice.cable, choice.optic,
                                {local[k]: m for k, m in choice.modules.items()}, choice.forced_failed)
            self.seen[shape] = choice
        choice = self.seen[shape]
        if choice is None or not choice.modules:
            return choice
        keys = list(cages)
        return Choice(choice.kind, choice.cable, choice.optic,
                      {keys[i]: m for i, m in choice.modules.items()}, choice.forced_failed)


def compute_physical(derived: Derived, catalog: Catalog | None = None) -> Physical:
    """Positions, lengths, media, transceivers and cables of every link of the design."""
    catalog = catalog or default_catalog()
    g = derived.graph
    fp = derived.design.floorplan
    leaves, others = _leaf_spots(g)
    layout = lay_out(fp, derived.design.cluster.servers, leaves, others)
    links = _build_links(derived, catalog, layout)
    media = MediaIndex(catalog, derived.resolved.technology.family)
    memo = _ChoiceMemo(media)

    groups = _Groups()
    for link in links:
        groups.union(link.a.key, link.b.key)
    members: dict[CageKey, list[LinkPlan]] = defaultdict(list)
    for link in links:
        members[groups.find(link.a.key)].append(link)

    transceivers: Counter[PartSide] = Counter()
    ends: Counter[PartSide] = Counter()
    cables: Counter[CableLength] = Counter()
    power: dict[CableLength, float] = defaultdict(float)
    custom: Counter[CableLength] = Counter()
    problems: Counter[tuple[str, int]] = Counter()
    forced_failed: Counter[tuple[str, str]] = Counter()

    def add_cable(cable: Cable, length: float, pieces: int = 1, watts: float = 0.0) -> float:
        sold, made = sold_length(cable, length)
        cables[(cable.id, sold)] += pieces
        power[(cable.id, sold)] += watts
        if made:
            custom[(cable.id, sold)] += pieces
        return sold

    for group in members.values():
        cages = {}
        for link in group:
            cages[link.a.key], cages[link.b.key] = link.a, link.b
        tiers = {link.tier for link in group}
        forced = fp.forced_medium(next(iter(tiers))) if len(tiers) == 1 else "auto"
        choice = memo.choose(group, cages, forced)
        if choice is None:
            for link in group:
                problems[(link.tier, link.gbps)] += 1
            continue
        if choice.forced_failed:
            forced_failed[(next(iter(tiers)), forced)] += len(group)
        if choice.cable:
            cable = choice.cable
            legs_used = len(cages) - 1
            sold = add_cable(cable, max(link.length_m for link in group), 1,
                             cable.power_w + cable.leg_power_w * legs_used)
            for link in group:
                link.medium, link.cable, link.cable_length_m = cable.kind, cable.id, sold
            continue
        optic, modules = choice.optic, choice.modules
        for key, module in modules.items():
            if module is not None:   # None: a co-packaged-optics port
                transceivers[(module.id, "host" if cages[key].host else "switch")] += 1
        splitters: dict[tuple[CageKey, int], list[LinkPlan]] = defaultdict(list)
        for link in group:
            link.medium, link.optic = MEDIUM_OF_OPTIC[optic], optic
            link.a_part, link.b_part = part_id(modules[link.a.key]), part_id(modules[link.b.key])
            for part, e in ((link.a_part, link.a), (link.b_part, link.b)):
                if part:
                    ends[(part, "host" if e.host else "switch")] += 1
            main = modules[link.b.key]
            if main is None:   # the upper end is a CPO port: one fiber per link, of the port's kind
                fiber = catalog.cables[media.cpo_fiber(link.b.cage_type)]
                link.cable = fiber.id
                link.cable_length_m = add_cable(fiber, link.length_m, 1)
                continue
            k, c = link.b.capacity, main.connectors
            if k > c and main.split_fiber:
                splitters[(link.b.key, link.b.lane // (k // c))].append(link)
                continue
            fiber = catalog.cables[main.fiber]
            link.cable = fiber.id
            link.cable_length_m = add_cable(fiber, link.length_m, max(1, c // k))
        for (key, _slot), shared in splitters.items():
            split = modules[key]
            assert split is not None   # only a module's cage is split; a co-packaged port never is
            fiber = catalog.cables[split.split_fiber]
            sold = add_cable(fiber, max(link.length_m for link in shared), 1)
            for link in shared:
                link.cable, link.cable_length_m = fiber.id, sold

    findings = _findings(problems, forced_failed, custom, derived.resolved.technology.family)
    return Physical(links, layout, transceivers, ends, cables, dict(power), custom, findings)


def _findings(problems: Counter[tuple[str, int]], forced_failed: Counter[tuple[str, str]],
              custom: Counter[CableLength], family: str) -> list[Finding]:
    out = []
    for (tier, gbps), n in sorted(problems.items()):
        out.append(Finding("error", "no-medium",
                           f"{n} {tier} links at {gbps}G have no {family} cable or transceiver in the "
                           "catalog that fits their cages and length; they are left out of the BOM", tier))
    for (tier, forced), n in sorted(forced_failed.items()):
        out.append(Finding("warning", "forced-medium-not-possible",
                           f"{MEDIUM_LABELS[forced]} cannot carry {n} {tier} links (reach, speed or cage "
                           "layout); the automatic choice is used for them", tier))
    for (cable, length), n in sorted(custom.items()):
        out.append(Finding("info", "custom-length",
                           f"{n:g} x {cable} longer than the longest stock length: ordered as "
                           f"custom {length:g} m", cable))
    return out


_CACHE: ContentCache[Physical] = ContentCache(size=4)


def physical_layer(derived: Derived, catalog: Catalog | None = None) -> Physical:
    """`compute_physical`, cached by the design's content (designs are immutable)."""
    catalog = catalog or default_catalog()
    return _CACHE.get_or_compute((derived.design.content_key(), id(catalog)),
                                 lambda: compute_physical(derived, catalog))
