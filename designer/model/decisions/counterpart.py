"""Counterpart designs: the same cluster on another fabric technology.

The servers, GPU count, template and oversubscription targets stay; the switches and link speeds
come from the target technology. A server's built-in NICs never change: where the catalog lists a
network variant of the same chassis for the target technology (DGX B300 with XDR or with
2 x 400GbE per GPU) the counterpart uses it, and where none runs the technology it is refused.
Per-server injection bandwidth is kept where the NIC allows it: a slower technology splits each
port over parallel planes when the NIC has the ports for it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from designer.catalog import Catalog, Nic, Server, Switch, Technology

# The choices are kept where a parser reads them without loading the sizing (re-exported here).
from designer.model.decisions.counterpart_choices import COUNTERPART_TECHNOLOGIES as COUNTERPART_TECHNOLOGIES
from designer.model.decisions.counterpart_choices import ETHERNET_CHOICES as ETHERNET_CHOICES
from designer.model.decisions.counterpart_choices import expand_counterparts as expand_counterparts
from designer.model.intent.design import ClusterSpec, FabricDesign, FabricSpec, Meta, TierSpec
from designer.model.physical.cost_bound import fabric_bound
from designer.model.physical.fabric_cost import fabric_cost
from designer.model.physical.prices import PriceBook, default_prices
from designer.model.topology.presets import leaf_downlinks, sizing_notes, split_uplink_variants
from designer.model.topology.rail_layout import rail_layouts, reference_su
from designer.model.topology.sizing import Resolved, SizingError, rack_group, rack_size, resolve, split_ports
from designer.model.topology.switch_choice import choose_switch


@dataclass(frozen=True)
class Counterpart:
    design: FabricDesign
    notes: tuple[str, ...]


def family_technology(current: Technology, family: str, catalog: Catalog) -> Technology:
    """The technology of `family` a design on `current` moves to when its family is switched: the
    one at the design's link speed (the first the catalog lists), else the fastest below it, else
    the slowest above it. The catalog's order alone would pick whatever file was read first (an
    end-of-life QDR fabric for a 400G design)."""
    options = [t for t in catalog.technologies.values() if t.family == family]
    if not options:
        raise ValueError(f"no {family} technology in the catalog")
    same = [t for t in options if t.link_gbps == current.link_gbps]
    if same:
        return same[0]
    below = [t for t in options if t.link_gbps < current.link_gbps]
    if below:
        return max(below, key=lambda t: t.link_gbps)
    return min(options, key=lambda t: t.link_gbps)


def counterpart_name(name: str, old: Technology, new: Technology) -> str:
    """'DGX H100 SuperPOD, 1 SU (NDR)' -> 'DGX H100 SuperPOD, 1 SU - RoCE 400GbE (Spectrum-X)'."""
    base = name.rstrip()
    if base.endswith(")") and "(" in base:
        tag = base[base.rindex("(") + 1:-1]
        if any(word and word.lower() in tag.lower() for word in (old.generation, old.name, old.id)):
            base = base[:base.rindex("(")].rstrip()
    return f"{base} \u2013 {new.name}"


def _short(nic: Nic) -> str:
    """'ConnectX-7 VPI NDR' -> 'ConnectX-7': the name people use for the card."""
    return nic.name.split(" ")[0] if nic.name else nic.id


def _runs(server: Server, nic: Nic, tech: Technology) -> bool:
    """The server variant's built-in NIC runs `tech` at its full NIC-facing speed."""
    if server.fabric_families and tech.family not in server.fabric_families:
        return False
    mode = nic.mode_for(tech.family)
    return mode is not None and mode.gbps >= tech.link_gbps


def pick_server(design: FabricDesign, source: Resolved, tech: Technology, catalog: Catalog) -> tuple[Server, Nic]:
    """The server (or its catalog variant) that runs `tech` with its own NICs; raises SizingError.

    A server's built-in NICs never change: a counterpart uses the same server if its NIC runs the
    target technology, else the variant of the same chassis built for it, else it is refused.
    """
    server, nic = source.server, source.nic
    if _runs(server, nic, tech):
        return server, nic
    if server.chassis:
        for other in catalog.servers.values():
            if other.chassis == server.chassis and other.id != server.id:
                other_nic = catalog.nic(other.compute_nic)
                if _runs(other, other_nic, tech):
                    return other, other_nic
    mode = nic.mode_for(tech.family)
    wanted = catalog.nic(tech.default_nic) if tech.default_nic in catalog.nics else None
    needs = f"; {tech.name} needs {_short(wanted)} servers" if wanted else ""
    if mode is None:
        raise SizingError(f"{server.name}'s {_short(nic)} does not run {tech.family}{needs}")
    if mode.gbps < tech.link_gbps:
        raise SizingError(f"{server.name}'s {_short(nic)} runs at most {mode.gbps}G{needs}")
    raise SizingError(f"{server.name} is built for {', '.join(server.fabric_families)} and the catalog "
                      f"lists no variant of it for {tech.name}")


def make_counterpart(design: FabricDesign, technology: str, catalog: Catalog,
                     prices: PriceBook | None = None, *, price_every_candidate: bool = False) -> Counterpart:
    """The same cluster built on `technology`; raises UnknownPartError or SizingError.

    The switch is the technology's switch whose fabric costs least in `prices` (default: the
    price book commands use) while meeting the original's oversubscription targets. Candidates
    whose cost floor shows they cannot be chosen go unpriced (switch_choice.price_candidates);
    `price_every_candidate` prices them all, to the same result.
    """
    tech = catalog.technology(technology)
    source = resolve(design, catalog)
    notes: list[str] = []

    server, nic = pick_server(design, source, tech, catalog)
    if server.id != source.server.id:
        notes.append(f"servers change from {source.server.name} to {server.name}, the same chassis's "
                     f"network variant for {tech.family}: {server.compute_ports} x {server.port_gbps}G "
                     f"on {server.planes_hint} plane{'s' if server.planes_hint > 1 else ''}")
        gpus = source.gpus_per_server
        source = dataclasses.replace(
            source, server=server, nic=nic, ports_per_server=server.compute_ports,
            port_gbps=server.port_gbps, link_gbps=server.port_gbps, planes=server.planes_hint,
            rails=server.compute_ports // server.planes_hint, gpus_per_server=gpus)
    mode = nic.mode_for(tech.family)
    assert mode is not None   # pick_server returns a NIC that runs the family
    link = min(tech.link_gbps, mode.gbps)

    old_bw = source.ports_per_server * source.link_gbps
    ports, planes = source.ports_per_server, source.planes
    if link < source.link_gbps and source.link_gbps % link == 0:
        factor = source.link_gbps // link
        if mode.ports >= factor:
            ports, planes = ports * factor, planes * factor
            notes.append(f"each {source.link_gbps}G port becomes {factor} x {link}G on {planes} planes, "
                         f"keeping {old_bw:,} Gb/s per server")
        else:
            notes.append(f"ports run at {link}G instead of {source.link_gbps}G: "
                         f"{ports * link:,} Gb/s per server instead of {old_bw:,}")
    elif link > source.link_gbps:
        notes.append(f"ports run at {link}G instead of {source.link_gbps}G: "
                     f"{ports * link:,} Gb/s per server instead of {old_bw:,}")

    if design.edits:
        notes.append(f"{len(design.edits)} manual edit(s) of the original are not carried over")
    if any(design.fabric.tier(t).count for t in ("leaf", "spine", "core")):
        notes.append("switch counts are derived afresh for the new switches")
    meta = Meta(name=counterpart_name(design.meta.name, source.technology, tech), author=design.meta.author,
                notes=f"Counterpart of '{design.meta.name}' on {tech.name}.")
    su_notes: dict[str, str] = {}

    # The SU follows the rules of `new`: an original built on its server's reference SU (or the
    # default) gets the target server's reference SU on the target technology, and the layouts
    # (SU size, rails per leaf) are priced; an SU the user set is kept, as --nodes-per-su is.
    original = resolve(design, catalog)
    src_d_max = leaf_downlinks(original.leaf_switch, original.link_gbps, original.uplink_gbps,
                               design.fabric.leaf.oversubscription)
    src_ref = reference_su(original.server, original.technology, src_d_max).nodes
    given_su = design.fabric.nodes_per_su if design.fabric.nodes_per_su != src_ref else None

    def build(switch: Switch) -> list[FabricDesign]:
        """The counterpart on one of the technology's switches (sizing compares them by price)."""
        uplink = tech.uplink_gbps if switch.ports_at(tech.uplink_gbps) else link
        rails = max(1, ports // planes)
        layouts: list[tuple[int, int | None]] = [(design.fabric.nodes_per_su, None)]
        if design.fabric.template == "rail-optimized":
            d_max, _ = split_ports(switch.ports_at(link), switch.ports_at(uplink), link, uplink,
                                   design.fabric.leaf.oversubscription)
            ref = reference_su(server, tech, d_max)
            fixed = given_su
            # A rack-scale SU larger than a leaf stays: each rail spreads over one leaf per rack group.
            if fixed and fixed > d_max and not rack_group(server, fixed, d_max):
                per_rack = rack_size(server)
                fit = per_rack * (d_max // per_rack) if per_rack and d_max >= per_rack else d_max
                su_notes[switch.id] = (f"SUs shrink from {fixed} to {fit} nodes: {switch.name} has "
                                       f"{d_max} downlinks per leaf at {design.fabric.leaf.oversubscription:g}:1")
                fixed = fit
            layouts = [(lay.nodes_per_su, lay.rails_per_leaf if lay.rails_per_leaf > 1 else None)
                       for lay in rail_layouts(design.cluster.servers, rails, d_max, ref.nodes, fixed,
                                               bool(rack_size(server)))]
        return split_uplink_variants(catalog, [_design(switch, uplink, su, k) for su, k in layouts])

    def _design(switch: Switch, uplink: int, nodes_per_su: int, rails_per_leaf: int | None) -> FabricDesign:
        fabric = FabricSpec(
            template=design.fabric.template, technology=tech.id, switch=switch.id,
            link_gbps=link if link != server.port_gbps else None,
            uplink_gbps=uplink if uplink != link else None,
            tiers=None, nodes_per_su=nodes_per_su, planes=planes,
            leaf=TierSpec(oversubscription=design.fabric.leaf.oversubscription),
            spine=TierSpec(oversubscription=design.fabric.spine.oversubscription),
            rails_per_leaf=rails_per_leaf)
        cluster = ClusterSpec(
            server=server.id, servers=design.cluster.servers, gpus_per_server=design.cluster.gpus_per_server,
            ports_per_server=ports if ports != server.compute_ports else None,
            port_gbps=link if link != server.port_gbps else None,
            nic=nic.id if nic.id != server.compute_nic else None)
        if cluster.server != design.cluster.server:
            # A variant brings its own GPU count; keep an explicit GPU override only where it differs.
            cluster = dataclasses.replace(
                cluster, gpus_per_server=design.cluster.gpus_per_server
                if design.cluster.gpus_per_server not in (None, server.gpus) else None)
        return dataclasses.replace(design, meta=meta, cluster=cluster, fabric=fabric, edits=())

    book = prices or default_prices()
    choice = choose_switch(catalog, tech, build, fabric_cost(catalog, book),
                           bound=None if price_every_candidate else fabric_bound(catalog, book))
    counterpart = choice.design
    if counterpart.fabric.switch in su_notes:
        notes.append(su_notes[counterpart.fabric.switch])
    notes.extend(choice.notes)
    notes.extend(sizing_notes(catalog, counterpart, given_su, layout_by_counts=choice.layout_by_counts))
    chosen = choice.chosen
    if chosen is not None:
        notes.append(f"leaf oversubscription {chosen.leaf_ratio:.2f}:1 (asked {chosen.asked_ratio:g}:1)")
    return Counterpart(counterpart, tuple(notes))


def optics_twin(design: FabricDesign, catalog: Catalog) -> Counterpart:
    """The same design on its switches' other-optics twins: a pluggable fabric on the
    co-packaged-optics switch of the same radix (Q3400-RA -> Q3450-LD), or back; raises
    SizingError when no switch of the design has a twin in the catalog.

    Only the switch changes: the cluster, template, counts and ratios are the design's own, so
    the two differ in their optics alone (transceivers, power, expected failures).
    """
    fabric = design.fabric
    swapped: dict[str, str] = {}

    def twin(switch_id: str | None) -> str | None:
        if switch_id is None:
            return None
        other = catalog.twin_of(switch_id)
        if other is None:
            return switch_id
        swapped[catalog.switch(switch_id).name] = other.name
        return other.id

    new_fabric = dataclasses.replace(
        fabric, switch=twin(fabric.switch) or fabric.switch,
        leaf=dataclasses.replace(fabric.leaf, switch=twin(fabric.leaf.switch)),
        spine=dataclasses.replace(fabric.spine, switch=twin(fabric.spine.switch)),
        core=dataclasses.replace(fabric.core, switch=twin(fabric.core.switch)))
    if not swapped:
        raise SizingError(f"no switch of '{design.meta.name}' has a co-packaged-optics or pluggable twin "
                          "in the catalog (switch entries name theirs in 'pluggable_twin')")
    names = ", ".join(f"{a} -> {b}" for a, b in swapped.items())
    label = design.meta.name
    for a, b in swapped.items():
        label = label.replace(a, b)
    if label == design.meta.name:
        label = f"{design.meta.name} ({names})"
    made = dataclasses.replace(design, fabric=new_fabric, meta=dataclasses.replace(design.meta, name=label))
    return Counterpart(made, (f"optics twin: {names}; the cluster, counts and ratios are unchanged",))


# `compare --counterpart ib-static`: the same InfiniBand fabric with adaptive routing off.
IB_STATIC = "ib-static"


def static_routing_twin(design: FabricDesign, catalog: Catalog, load_balance: float | None = None,
                        basis: str = "") -> Counterpart:
    """The same InfiniBand design with adaptive routing off (the subnet manager's static routes),
    to answer "do we need adaptive routing?" in dollars; raises SizingError for another family.

    `load_balance` is the hook for a figure measured outside the model (the share of balanced
    throughput the routes deliver, e.g. from OpenSM's ftree tables computed on this design), with
    `basis` saying where it comes from. Without it the model places each flow on one fixed path,
    as it does static ECMP: an approximation of destination-based routes, named in the notes.
    """
    source = resolve(design, catalog)
    if source.technology.family != "infiniband":
        raise SizingError(f"'{design.meta.name}' is on {source.technology.name}: static routing is the "
                          "InfiniBand twin of adaptive routing; compare an InfiniBand design")
    perf = dataclasses.replace(design.performance, adaptive_routing=False,
                               load_balance_efficiency=load_balance if load_balance is not None
                               else design.performance.load_balance_efficiency)
    name = f"{design.meta.name.rstrip()} \u2013 static routing"
    meta = dataclasses.replace(design.meta, name=name,
                               notes=f"'{design.meta.name}' with adaptive routing off (static routes).")
    if load_balance is not None:
        note = (f"static routing: {load_balance:.0%} of balanced throughput on the uplinks, "
                f"{basis or 'as given'}")
    else:
        note = ("static routing: each flow keeps one fixed path to the spines, placed on the design's uplinks as "
                "static hashing places it (the model's placement; the subnet manager's destination-based "
                "routes may balance a packed job better and a scattered one no better)")
    return Counterpart(dataclasses.replace(design, meta=meta, performance=perf), (note,))
