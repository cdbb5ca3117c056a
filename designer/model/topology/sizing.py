"""Sizing: turn a design's intent into concrete switch counts and per-switch port splits.

This is pure arithmetic on the design and the catalog; the builder then wires the plan.
Conventions (see README, "How fabrics are sized"):
- A leaf with d downlinks at s_d and u uplinks at s_u has oversubscription d*s_d / (u*s_u).
- Uplinks spread evenly over the spines above (links per pair = u / spines), so spine counts
  are chosen among the divisors of u: equal ECMP/adaptive-routing paths everywhere.
- Two tiers hold at most one leaf per spine port; three tiers one pod per core port.
- Three tiers take the layout with the fewest switches in total (three_tier.py), except that a
  spine-leaf group keeps its reference-architecture layout (the rule is stated in plan_fabric).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from designer.catalog import Catalog, Nic, Server, Switch, Technology
from designer.model.intent.design import FabricDesign
from designer.model.topology.bounds import bounded
from designer.model.topology.three_tier import fewest_switches

if TYPE_CHECKING:
    import numpy as np

# A server, rail or leaf index: one int, or a numpy array of them (the closed forms pass arrays).
_IntOrArray = TypeVar("_IntOrArray", int, "np.ndarray")


class SizingError(ValueError):
    """The request cannot be built: the message states the limit that was hit."""


@dataclass(frozen=True)
class Resolved:
    """The design's parts looked up in the catalog, with every default filled in."""

    server: Server
    nic: Nic
    technology: Technology
    leaf_switch: Switch
    spine_switch: Switch
    core_switch: Switch
    gpus_per_server: int
    ports_per_server: int
    port_gbps: int
    link_gbps: int
    uplink_gbps: int
    planes: int
    rails: int                 # endpoints per server in one plane

    @property
    def family(self) -> str:
        return self.technology.family


@dataclass(frozen=True)
class Plan:
    """Counts for one plane; every plane is identical."""

    template: str
    tiers: int
    servers: int
    endpoints: int             # per plane
    leaves: int
    leaf_down: int             # downlink ports designed per leaf
    leaf_up: int               # uplinks per leaf
    pods: int                  # 1 for two tiers
    spines_per_pod: int        # all spines for two tiers
    spine_down: int            # designed downlinks per spine (3 tiers)
    spine_up: int              # uplinks per spine (3 tiers)
    core_groups_size: int      # cores per spine index (3 tiers)
    cores: int
    rail_su_size: int          # servers per SU for rail-optimized, else 0
    sus: int                   # scalable units (rail-optimized), else 0
    # Leaves per rail in one SU: 1, or for a rack-scale SU (GB200 NVL72: 8 racks) one leaf per
    # whole-rack group, as the reference architecture builds it. Leaves are numbered SU by SU,
    # rail by rail within the SU, and by rack group within the rail.
    rail_leaves: int = 1
    # Rails of one SU on one leaf (k): 1 as the reference architectures build it; a high-radix
    # leaf may take k rails of its SU (k divides the rails). Rails 0..k-1 share leaf 0 of an SU,
    # and a server's port on rail p sits in the (p % k)-th block of the leaf's down ports.
    rails_per_leaf: int = 1

    @property
    def spines(self) -> int:
        return self.spines_per_pod * self.pods

    @property
    def rail_leaf_size(self) -> int:
        """Servers on one rail leaf of an SU (per rail it takes)."""
        return math.ceil(self.rail_su_size / self.rail_leaves) if self.rail_su_size else 0

    def rail_groups(self, rails: int) -> int:
        """Leaves per SU and rack group: one per group of `rails_per_leaf` rails."""
        return max(1, rails // self.rails_per_leaf)

    def rail_leaf(self, server: _IntOrArray, rail: _IntOrArray | int, rails: int) -> _IntOrArray:
        """Leaf of a server's rail port in a rail-optimized fabric (ints or numpy arrays)."""
        su, m = server // self.rail_su_size, server % self.rail_su_size
        group = rail // self.rails_per_leaf
        leaf: _IntOrArray = (su * self.rail_groups(rails) + group) * self.rail_leaves + m // self.rail_leaf_size
        return leaf

    def rail_port(self, server: _IntOrArray, rail: _IntOrArray | int = 0) -> _IntOrArray:
        """1-based down port of a server's rail port on its rail leaf."""
        port: _IntOrArray = ((rail % self.rails_per_leaf) * self.rail_leaf_size
                             + server % self.rail_su_size % self.rail_leaf_size + 1)
        return port

    def leaf_su(self, leaf: _IntOrArray, rails: int) -> _IntOrArray:
        """SU of a rail-optimized leaf."""
        return leaf // (self.rail_groups(rails) * self.rail_leaves)

    def leaf_rail(self, leaf: _IntOrArray, rails: int) -> _IntOrArray:
        """(First) rail of a rail-optimized leaf."""
        first: _IntOrArray = leaf // self.rail_leaves % self.rail_groups(rails) * self.rails_per_leaf
        return first

    @property
    def leaves_per_pod(self) -> int:
        return math.ceil(self.leaves / self.pods)


def scheduled_tiers(design: FabricDesign, tier_switch: dict[str, Switch], catalog: Catalog) -> None:
    """Refuse a spine or core switch that a scheduled fabric cannot use, as the design names it.

    A scheduled fabric's leaf box (Jericho3-AI class) sprays cells only to its own fabric element
    (Ramon3 class), and a fabric element takes cells only from the leaf boxes that name it: a
    Tomahawk spine above a Jericho3-AI leaf, or a Ramon3 spine above a Tomahawk leaf, is no fabric.
    """
    leaf = tier_switch["leaf"]
    for name in ("spine", "core"):
        if not design.fabric.tier(name).switch:
            continue          # the tier takes the leaf's fabric element (or the leaf's switch)
        sw = tier_switch[name]
        if leaf.fabric_switch and sw.id != leaf.fabric_switch:
            element = catalog.switch(leaf.fabric_switch).name
            raise SizingError(f"the {name} tier names {sw.name}, but a {leaf.name} sends its uplinks only to "
                              f"its fabric element, {element}: choose {element} or leave the {name} switch to "
                              "the leaf's choice")
        if sw.fabric_element and leaf.fabric_switch != sw.id:
            raise SizingError(f"the {name} tier names {sw.name}, which takes cells only from the leaf boxes "
                              f"of its scheduled fabric, not from a {leaf.name}: choose a leaf box whose fabric "
                              f"element it is, or another {name} switch")


def resolve(design: FabricDesign, catalog: Catalog) -> Resolved:
    """Look up every part of the design; raises UnknownPartError or SizingError."""
    c, f = design.cluster, design.fabric
    server = catalog.server(c.server)
    tech = catalog.technology(f.technology)
    nic = catalog.nic(c.nic or server.compute_nic)
    switch = catalog.switch(f.switch)
    # A leaf box of a scheduled fabric sends its uplinks to its own fabric element (Ramon3 class
    # behind Jericho3-AI class leaves); the tiers above take that switch unless the design names one.
    upper = catalog.switch(switch.fabric_switch) if switch.fabric_switch else switch
    tier_switch = {name: catalog.switch(asked) if (asked := f.tier(name).switch) else
                   (switch if name == "leaf" else upper) for name in ("leaf", "spine", "core")}
    scheduled_tiers(design, tier_switch, catalog)
    gpus = c.gpus_per_server or server.gpus
    if c.ports_per_server:
        ports = c.ports_per_server
    elif c.gpus_per_server:
        # Keep the server model's NIC-per-GPU ratio when only the GPU count is changed.
        ports = max(1, round(server.compute_ports * gpus / server.gpus))
    else:
        ports = server.compute_ports
    port_gbps = c.port_gbps or server.port_gbps
    link = f.link_gbps or port_gbps
    uplink = f.uplink_gbps or link
    if ports % f.planes:
        raise SizingError(
            f"{ports} NIC ports per server cannot be split evenly over {f.planes} planes")
    planes, rails = f.planes, ports // f.planes
    if f.template == "rail-only":
        # Rail-only (Wang et al., arXiv 2307.12169): no spine joins the rails, so every rail of
        # every plane is a fabric of its own, one port per server: sized, built and counted as
        # planes of one rail each (port p of a server is rail-fabric p, as plane * rails + rail).
        planes, rails = ports, 1
    return Resolved(server, nic, tech, tier_switch["leaf"], tier_switch["spine"], tier_switch["core"],
                    gpus, ports, port_gbps, link, uplink, planes, rails)


def _ports(switch: Switch, gbps: int, role: str) -> int:
    n = switch.ports_at(gbps)
    if n <= 0:
        raise SizingError(
            f"{role} switch {switch.name} has no {gbps}G ports (it offers {switch.radix_label()})")
    return n


@functools.lru_cache(maxsize=1024)   # asked for every candidate layout with the same few port counts
def split_ports(n_down: int, n_up: int, s_down: int, s_up: int, ratio: float) -> tuple[int, int]:
    """Most downlinks d, with u = ceil(d*s_down / (ratio*s_up)) uplinks, that fit one switch.

    Port budgets at two speeds share the same cages, so d/n_down + u/n_up <= 1.
    """
    for d in range(n_down, 0, -1):
        u = max(1, math.ceil(d * s_down / (ratio * s_up) - 1e-9))
        if d * n_up + u * n_down <= n_down * n_up:
            return d, u
    raise SizingError(f"a {ratio:g}:1 oversubscription leaves no room for downlinks on this switch")


def uplinks_for(d: int, s_down: int, s_up: int, ratio: float) -> int:
    return max(1, math.ceil(d * s_down / (ratio * s_up) - 1e-9))


def _uplink_cap(leaf_down: int, d_max: int, n_down: int, n_up: int, leaf_up: int) -> int:
    """Most uplinks a leaf with `leaf_down` downlinks can hold (ports at two speeds share cages)."""
    if leaf_down > d_max:
        return leaf_up
    return max(leaf_up, (n_down * n_up - leaf_down * n_up) // n_down)


def fewest_spines(u_min: int, u_max: int, leaves: int, spine_ports: int) -> tuple[int, int]:
    """(spines, uplinks per leaf) with the fewest spines, then the fewest uplinks.

    Uplinks may rise above the `u_min` the ratio needs (which only lowers oversubscription) when
    that lets them spread evenly over fewer spines: 12 uplinks over 6 spines beat 11 over 11.
    Spines divide the uplinks (equal paths) and hold `leaves * uplinks` on `spine_ports` each.
    """
    best: tuple[int, int] | None = None
    for u in range(u_min, max(u_min, u_max) + 1):
        low = math.ceil(leaves * u / spine_ports)
        if best is not None and low >= best[0]:
            continue  # cannot beat the best spine count already found
        s = smallest_divisor_at_least(u, low)
        if s is not None and (best is None or s < best[0]):
            best = (s, u)
    if best is None:
        return smallest_divisor_at_least(u_min, math.ceil(leaves * u_min / spine_ports)) or u_min, u_min
    return best


def smallest_divisor_at_least(n: int, low: int) -> int | None:
    """Smallest divisor of n that is >= low, or None."""
    for k in range(max(1, low), n + 1):
        if n % k == 0:
            return k
    return None


def parse_ratio(text: str) -> float:
    """'2:1' -> 2.0, '1.5' -> 1.5; raises ValueError with a clear message."""
    raw = text.strip()
    try:
        if ":" in raw:
            a, b = raw.split(":", 1)
            value = float(a) / float(b)
        else:
            value = float(raw)
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"malformed oversubscription ratio '{text}' (use a form like 1:1, 3:1 or 1.5)") from None
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"oversubscription ratio '{text}' must be positive")
    return value


@bounded  # ceilings on devices, links and ports: designer/model/topology/bounds.py
def plan_fabric(design: FabricDesign, r: Resolved) -> Plan:
    f = design.fabric
    n = design.cluster.servers
    e = r.rails
    endpoints = n * e
    if r.leaf_switch.fabric_element:
        raise SizingError(f"{r.leaf_switch.name} switches cells between the leaf boxes of a scheduled fabric "
                          "and takes no servers; choose a leaf box as the switch (its spines follow)")
    n_leaf_down = _ports(r.leaf_switch, r.link_gbps, "leaf")
    n_leaf_up = _ports(r.leaf_switch, r.uplink_gbps, "leaf")
    n_spine = _ports(r.spine_switch, r.uplink_gbps, "spine")
    d_max, u_max = split_ports(n_leaf_down, n_leaf_up, r.link_gbps, r.uplink_gbps, f.leaf.oversubscription)

    rail = f.template == "rail-optimized"
    if one_tier_fits(design, r, n_leaf_down):
        # Rule of the single switch: every endpoint of a plane fits on one switch, so a spine tier
        # would carry nothing (no two leaves to join). A rail design then has one SU of the whole
        # cluster with every rail on the one leaf.
        return Plan(f.template, 1, n, endpoints, 1, endpoints, 0, 1, 0, 0, 0, 0, 0,
                    n if rail else 0, 1 if rail else 0, 1, e if rail else 1)
    if f.tiers == 1:
        raise SizingError(f"one tier holds at most {n_leaf_down} endpoints per plane on "
                          f"{r.leaf_switch.name}; this design has {endpoints}")
    rail_leaves = 1
    k = f.rails_per_leaf or 1
    if rail:
        if e % k:
            raise SizingError(f"{k} rails per leaf do not divide the {e} rails of a server evenly")
        su = f.nodes_per_su
        per_leaf = su
        if su > d_max:
            per_leaf = rack_group(r.server, su, d_max)
            if not per_leaf:
                racks = _rack_text(r.server)
                raise SizingError(
                    f"{su} nodes per SU need {su} downlinks per leaf, but {r.leaf_switch.name} has "
                    f"{d_max} at {f.leaf.oversubscription:g}:1; use at most {d_max} nodes per SU{racks}")
            rail_leaves = su // per_leaf
        if k > 1 and (rail_leaves > 1 or per_leaf * k > d_max):
            raise SizingError(
                f"{k} rails of an SU of {su} nodes need {su * k} downlinks per leaf, but "
                f"{r.leaf_switch.name} has {d_max} at {f.leaf.oversubscription:g}:1")
        sus = math.ceil(n / su)
        leaves = sus * (e // k) * rail_leaves
        leaf_down = per_leaf * k
        leaf_up = uplinks_for(leaf_down, r.link_gbps, r.uplink_gbps, f.leaf.oversubscription)
    else:
        su = sus = 0
        if f.leaf.count:
            leaves = f.leaf.count
            leaf_down = math.ceil(endpoints / leaves)
        else:
            per_leaf = (d_max // e) * e if e <= d_max else d_max
            leaves = math.ceil(endpoints / per_leaf)
            leaf_down = per_leaf
        leaf_up = uplinks_for(min(leaf_down, d_max), r.link_gbps, r.uplink_gbps, f.leaf.oversubscription)

    fits_two = leaves <= n_spine
    tiers = f.tiers or (2 if fits_two else 3)
    if tiers == 2:
        if not fits_two and not f.spine.count:
            capacity = _capacity_text(design, r, tiers=2)
            raise SizingError(
                f"{_gpus(design, r):,} GPUs need {leaves} leaves, but two tiers of {r.spine_switch.name} "
                f"hold at most {n_spine} leaves ({capacity}); allow three tiers or use a larger switch")
        if f.spine.count:
            spines = f.spine.count
        else:
            cap = _uplink_cap(leaf_down, d_max, n_leaf_down, n_leaf_up, leaf_up)
            spines, leaf_up = fewest_spines(leaf_up, cap, leaves, n_spine)
        return Plan(f.template, 2, n, endpoints, leaves, leaf_down, leaf_up, 1, spines, 0, 0, 0, 0, su, sus,
                    rail_leaves, k if rail else 1)

    n_core = _ports(r.core_switch, r.uplink_gbps, "core")
    d_s, u_s = split_ports(n_spine, n_spine, r.uplink_gbps, r.uplink_gbps, f.spine.oversubscription)
    if rail and rail_leaves > 1:
        # A rack-scale SU: each rail's leaves form a spine-leaf group (SLG) with spines of their
        # own, and the groups meet at the core (the GB200 NVL72 reference architecture).
        if rail_leaves > d_s:
            raise SizingError(f"a spine-leaf group of {rail_leaves} leaves does not fit under spines "
                              f"with {d_s} downlinks")
        leaves_per_pod, pods = rail_leaves, sus * e
    elif rail:
        groups = e // k
        if groups > d_s:  # the pod is one SU: every SU leaf needs a port on each of its spines
            raise SizingError(f"an SU of {groups} leaves does not fit under spines with {d_s} downlinks")
        leaves_per_pod, pods = groups, sus
    else:
        leaves_per_pod = min(d_s, leaves)
        pods = math.ceil(leaves / leaves_per_pod)
        leaves_per_pod = math.ceil(leaves / pods)
    if pods > n_core:
        capacity = _capacity_text(design, r, tiers=3)
        raise SizingError(
            f"{_gpus(design, r):,} GPUs need {pods} pods, but three tiers of {r.core_switch.name} "
            f"hold at most {n_core} pods ({capacity}); use a larger switch, more planes or more oversubscription")
    if not f.spine.count and not f.core.count:
        # The fewest switches in total over uplinks per leaf, spines per pod, spine uplinks and
        # core group size (designer/model/topology/three_tier.py).
        u_cap = _uplink_cap(leaf_down, d_max, n_leaf_down, n_leaf_up, leaf_up)
        if rail and rail_leaves > 1:
            # Rule of the spine-leaf group (GB200 NVL72 reference architecture): each leaf has
            # exactly the uplinks its ratio needs, spread in whole, equal links over the group's
            # spines: 18 down, 18 up, 3 links to each of 6 spines. Fewer switches would need
            # more uplinks (20 over 5 spines: 992 switches at 16 SU instead of 1,040, with 2,048
            # more links). The published layout wins over the count, so the group keeps the
            # uplinks the ratio needs and the search runs over the other three counts only.
            u_cap = leaf_up
        layout = fewest_switches(leaves, pods, leaves_per_pod, leaf_up, u_cap, n_spine, n_core,
                                 f.spine.oversubscription, d_s)
        if layout is None:
            raise SizingError(f"no three-tier layout of {r.spine_switch.name} spines and "
                              f"{r.core_switch.name} cores fits {pods} pods of {leaves_per_pod} leaves")
        return Plan(f.template, 3, n, endpoints, leaves, leaf_down, layout.leaf_up, pods,
                    layout.spines_per_pod, layout.spine_down, layout.spine_up, layout.core_group,
                    layout.core_group * layout.spines_per_pod, su, sus, rail_leaves, k if rail else 1)
    # A spine or core count set in the design: leaves keep the uplinks their ratio needs, and
    # the other tiers follow the counts given.
    if f.spine.count:
        spines_per_pod = max(1, f.spine.count // pods)
    else:
        spines_per_pod, leaf_up = fewest_spines(leaf_up, leaf_up, leaves_per_pod, d_s)
    # Each spine splits its ports by the downlinks it actually has, not half and half: a spine
    # with 24 leaf links at 1:1 needs 24 uplinks, and the core tier is sized for those.
    achieved_down = math.ceil(leaves_per_pod * leaf_up / spines_per_pod)
    if achieved_down <= d_s:
        d_s = achieved_down
        u_s = min(uplinks_for(d_s, r.uplink_gbps, r.uplink_gbps, f.spine.oversubscription), n_spine - d_s)
    if f.core.count:
        group = max(1, f.core.count // spines_per_pod)
    else:
        group = smallest_divisor_at_least(u_s, math.ceil(pods * u_s / n_core)) or u_s
    return Plan(f.template, 3, n, endpoints, leaves, leaf_down, leaf_up, pods, spines_per_pod,
                d_s, u_s, group, group * spines_per_pod, su, sus, rail_leaves, k if rail else 1)


def one_tier_fits(design: FabricDesign, r: Resolved, n_leaf_down: int) -> bool:
    """One switch per plane takes every endpoint on its ports, and the design asks for no more:
    no tier count above one, no switch counts, no leaf count above one."""
    f = design.fabric
    if f.tiers not in (None, 1) or f.spine.count or f.core.count or (f.leaf.count or 1) > 1:
        return False
    return design.cluster.servers * r.rails <= n_leaf_down


def rack_size(server: Server) -> int:
    """Servers (compute trays) per rack of a rack-scale system such as GB200 NVL72, else 0."""
    domain, gpus = server.nvlink_domain_gpus, server.gpus
    return domain // gpus if gpus and domain > gpus and domain % gpus == 0 else 0


def rack_group(server: Server, su: int, d_max: int) -> int:
    """Servers per leaf when an SU of whole racks spreads each rail over several leaves: the
    most whole racks one leaf holds that divide the SU evenly; 0 when that cannot be done."""
    per_rack = rack_size(server)
    if not per_rack or su % per_rack or d_max < per_rack:
        return 0
    racks = su // per_rack
    fit = min(racks, d_max // per_rack)
    best = max(k for k in range(1, fit + 1) if racks % k == 0)
    return best * per_rack


def _rack_text(server: Server) -> str:
    per_rack = rack_size(server)
    return (f", or a whole number of {per_rack}-tray racks (each rail then spreads over one leaf "
            f"per rack group)") if per_rack else ""


def _gpus(design: FabricDesign, r: Resolved) -> int:
    return design.cluster.servers * r.gpus_per_server


def capacity_servers(design: FabricDesign, r: Resolved, tiers: int) -> int:
    """Most servers this design's switches and ratios can connect with `tiers` tiers."""
    f = design.fabric
    n_leaf_down = _ports(r.leaf_switch, r.link_gbps, "leaf")
    n_leaf_up = _ports(r.leaf_switch, r.uplink_gbps, "leaf")
    n_spine = _ports(r.spine_switch, r.uplink_gbps, "spine")
    e = r.rails
    if tiers == 1:  # one switch: every port a downlink
        return n_leaf_down // e
    d_max, _ = split_ports(n_leaf_down, n_leaf_up, r.link_gbps, r.uplink_gbps, f.leaf.oversubscription)
    if f.template == "rail-optimized":
        per_leaf = rack_group(r.server, f.nodes_per_su, d_max) if f.nodes_per_su > d_max else 0
        if per_leaf:  # a rack-scale SU: e x k leaves per SU, one spine-leaf group per rail
            su, k = f.nodes_per_su, f.nodes_per_su // per_leaf
            if tiers == 2:
                return (n_spine // (e * k)) * su
            return (_ports(r.core_switch, r.uplink_gbps, "core") // e) * su
        su = min(f.nodes_per_su, d_max)
        if tiers == 2:
            return (n_spine // e) * su
        return _ports(r.core_switch, r.uplink_gbps, "core") * su
    servers_per_leaf = d_max / e
    if tiers == 2:
        return math.floor(n_spine * servers_per_leaf)
    d_s, _ = split_ports(n_spine, n_spine, r.uplink_gbps, r.uplink_gbps, f.spine.oversubscription)
    return math.floor(_ports(r.core_switch, r.uplink_gbps, "core") * d_s * servers_per_leaf)


def _capacity_text(design: FabricDesign, r: Resolved, tiers: int) -> str:
    servers = capacity_servers(design, r, tiers)
    return f"{servers * r.gpus_per_server:,} GPUs at {design.fabric.leaf.oversubscription:g}:1"
