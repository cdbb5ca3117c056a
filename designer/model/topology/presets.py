"""Making new designs from a few choices: shared by `fabric-designer new` and the palette."""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Any, TypeGuard

from designer.catalog import Catalog, Server, Switch, Technology, UnknownPartError
from designer.model.intent.design import ClusterSpec, FabricDesign, FabricSpec, Meta, Template, TierSpec
from designer.model.intent.floorplan import FloorPlan
from designer.model.topology.bounds import plan_totals
from designer.model.topology.hall import longest_reach_m, reachable_floorplan
from designer.model.topology.rail_layout import DEFAULT_NODES_PER_SU, pareto, rail_layouts, reference_su
from designer.model.topology.rail_only import rail_only_by_default
from designer.model.topology.sizing import Plan, Resolved, SizingError, plan_fabric, rack_size, resolve, split_ports
from designer.model.topology.switch_choice import FabricBound, FabricCost, SwitchChoice, choose_switch

TEMPLATES = ("leaf-spine", "fat-tree", "rail-optimized", "rail-only")


def is_template(name: str) -> TypeGuard[Template]:
    return name in TEMPLATES
DEFAULT_SERVER = "dgx-h100"
__all__ = ["DEFAULT_NODES_PER_SU", "TEMPLATES", "new_design", "new_design_choice", "sizing_notes"]


def pick_technology(catalog: Catalog, switch_id: str, gbps: int) -> str:
    """The technology whose default switch this is, else the first of the switch's family and speed."""
    switch = catalog.switch(switch_id)
    for tech in catalog.technologies.values():
        if tech.default_switch == switch_id and tech.link_gbps == gbps:
            return tech.id
    family = switch.family if switch.family != "any" else "infiniband"
    for tech in catalog.technologies.values():
        if tech.family == family and tech.link_gbps == gbps:
            return tech.id
    for tech in catalog.technologies.values():   # a fabric of that speed (800GbE switch-to-switch)
        if tech.family == family and tech.uplink_gbps == gbps:
            return tech.id
    for tech in catalog.technologies.values():
        if tech.family == family:
            return tech.id
    raise UnknownPartError(f"no technology in the catalog fits switch '{switch_id}'")


def _server_for_speed(catalog: Catalog, srv: Server, asked: str | None, switch: Switch, gbps: int) -> Server:
    """The server to pair with a switch that runs only `gbps`: the one asked for if its NIC can,
    else (when none was asked for) the first catalog server built for that speed."""
    family = switch.family if switch.family != "any" else None

    def runs(s: Server) -> bool:
        nic = catalog.nic(s.compute_nic)
        return any(m.gbps >= gbps and (family is None or m.family == family) for m in nic.modes)

    if runs(srv):
        return srv
    if asked is None:
        for other in catalog.servers.values():
            if other.port_gbps == gbps and runs(other) and (
                    family is None or not other.fabric_families or family in other.fabric_families):
                return other
    nic = catalog.nic(srv.compute_nic)
    top = max((m.gbps for m in nic.modes), default=0)
    raise SizingError(f"{srv.name}'s {nic.name.split(' ')[0]} runs at most {top}G; {switch.name} "
                      f"has only {gbps}G ports (it offers {switch.radix_label()})")


def check_server_runs(catalog: Catalog, srv: Server, tech: Technology) -> None:
    """Refuse a server variant built for another fabric family than the technology's (the DGX
    B300 Ethernet variant on an InfiniBand switch), naming the variant that fits if the catalog
    has one. The counterpart and the window's inspector apply the same rule."""
    if not srv.fabric_families or tech.family in srv.fabric_families:
        return
    fits = [o for o in catalog.servers.values() if srv.chassis and o.chassis == srv.chassis
            and o.id != srv.id and (not o.fabric_families or tech.family in o.fabric_families)]
    techs = [t.id for t in catalog.technologies.values()
             if t.family in srv.fabric_families and t.link_gbps == srv.port_gbps]
    hint = (f"; for {tech.family} use --server {fits[0].id}" if fits
            else f"; use an {srv.fabric_families[0]} technology such as {techs[0]}" if techs else "")
    raise SizingError(f"{srv.name} ({srv.id}) is built for {', '.join(srv.fabric_families)}, and "
                      f"{tech.name} is {tech.family}{hint}")


def _quarter(entry: Server) -> tuple[int, int]:
    year, _, q = entry.available.partition("-Q")
    return (int(year), int(q)) if year.isdigit() and q.isdigit() else (0, 0)


def default_server(catalog: Catalog, tech: Technology, like: Server | None = None) -> Server:
    """The server a new design on `tech` starts with: the newest shipping one of its family.

    The family is the kind of server `like` is (default DGX H100: an 8-GPU server, not a
    rack-scale tray) built around the technology's own NIC and running its port speed; among
    them the newest `available` quarter wins, catalog order breaking ties. Falls back to `like`
    when no shipping server of the family runs the technology.
    """
    base: Server = like or catalog.server(DEFAULT_SERVER)

    def family(s: Server) -> bool:
        return s.gpus == base.gpus and s.nvlink_domain_gpus == base.nvlink_domain_gpus

    def runs(s: Server) -> bool:
        nic = catalog.nic(s.compute_nic)
        mode = nic.mode_for(tech.family)
        return (mode is not None and s.port_gbps == tech.link_gbps and mode.gbps >= tech.link_gbps
                and (not s.fabric_families or tech.family in s.fabric_families))

    shipping = [s for s in catalog.servers.values() if s.status == "shipping" and family(s) and runs(s)]
    own = [s for s in shipping if s.compute_nic == tech.default_nic] or shipping
    if not own:
        return base
    newest = max(_quarter(s) for s in own)
    return next(s for s in own if _quarter(s) == newest)


def leaf_downlinks(sw: Switch, link: int, uplink: int, oversubscription: float) -> int:
    """Most downlinks one leaf of `sw` takes at the ratio (0 when none fit)."""
    try:
        d_max, _ = split_ports(sw.ports_at(link), sw.ports_at(uplink), link, uplink, oversubscription)
    except SizingError:
        return 0
    return d_max


def new_design(catalog: Catalog, template: str = "leaf-spine", **choices: Any) -> FabricDesign:
    """A design from the choices of `fabric-designer new`; raises SizingError on impossible counts."""
    return new_design_choice(catalog, template, **choices).design


def new_design_choice(catalog: Catalog, template: str = "leaf-spine", *, gpus: int | None = None,
                      nodes: int | None = None, gpus_per_node: int | None = None, server: str | None = None,
                      switch: str | None = None, radix: int | None = None, speed: int | None = None,
                      oversubscription: float = 1.0, spine_oversubscription: float = 1.0,
                      tiers: int | None = None, nodes_per_su: int | None = None, planes: int | None = None,
                      technology: str | None = None, name: str | None = None,
                      cost: FabricCost | None = None, bound: FabricBound | None = None,
                      rail_only_default: bool | None = False, uplink_speed: int | None = None) -> SwitchChoice:
    """`new_design`, with the switch choice and its notes.

    With `rail_only_default` True (as `fabric-designer new` asks when no template is named), a
    rail-optimized request with no tier count or SU size is built rail-only where every rail fits
    one switch (rail_only.py); with None (the template named) it stays rail-optimized and a note
    prices the rail-only alternative.

    Without a switch (or radix), the technology's switches are compared and the fabric of least
    `cost` that meets the requested oversubscription wins (see switch_choice; the physical layer's
    fabric_cost prices the bill of materials); without one the fewest switches win. A named
    switch is the only candidate. `bound`, a floor under `cost` (physical/cost_bound.py), lets
    layouts that cannot be chosen go unpriced, to the same choice.
    """
    if not is_template(template):
        raise SizingError(f"unknown template '{template}' (choose from {', '.join(TEMPLATES)})")
    sized = functools.partial(
        _new_choice, catalog, gpus=gpus, nodes=nodes, gpus_per_node=gpus_per_node, server=server, switch=switch,
        radix=radix, speed=speed, oversubscription=oversubscription, spine_oversubscription=spine_oversubscription,
        nodes_per_su=nodes_per_su, planes=planes, technology=technology, name=name, cost=cost, bound=bound,
        uplink_speed=uplink_speed)
    choice = sized(template, tiers=tiers)
    if rail_only_default is False or template != "rail-optimized" or tiers is not None or nodes_per_su is not None:
        return choice
    return rail_only_by_default(catalog, choice, lambda: sized("rail-only", tiers=1), take=bool(rail_only_default))


def _new_choice(catalog: Catalog, template: Template, *, gpus: int | None, nodes: int | None,
                gpus_per_node: int | None, server: str | None, switch: str | None, radix: int | None,
                speed: int | None, oversubscription: float, spine_oversubscription: float,
                tiers: int | None, nodes_per_su: int | None, planes: int | None, technology: str | None,
                name: str | None, cost: FabricCost | None, bound: FabricBound | None,
                uplink_speed: int | None = None) -> SwitchChoice:
    srv = catalog.server(server or DEFAULT_SERVER)
    if server is None and technology and not switch and not radix:
        # DGX H100 stays the default where it runs the technology (400G); on a technology it
        # cannot run (XDR, 800G Ethernet), the newest shipping server of its family that can.
        tech0 = catalog.technology(technology)
        nic0 = catalog.nic(srv.compute_nic).mode_for(tech0.family)
        if nic0 is None or srv.port_gbps != tech0.link_gbps:
            srv = default_server(catalog, tech0, srv)
    per_node = gpus_per_node or srv.gpus
    if (gpus is None) == (nodes is None):
        raise SizingError("give either a GPU count or a node count")
    if gpus is not None:
        if gpus <= 0:
            raise SizingError(f"GPU count must be positive, got {gpus}")
        if gpus % per_node:
            raise SizingError(f"{gpus} GPUs is not a whole number of {per_node}-GPU nodes")
        nodes = gpus // per_node
    if nodes is None or nodes <= 0:
        raise SizingError(f"node count must be positive, got {nodes}")
    ports = None
    if gpus_per_node and gpus_per_node != srv.gpus:
        # One NIC per GPU unless the server model says otherwise.
        ports = max(1, round(srv.compute_ports * gpus_per_node / srv.gpus))
    if switch and not radix:
        switch = catalog.switch(switch).id  # the vendor's spelling names the catalog entry
    if technology:
        technology = catalog.technology(technology).id
    link = speed or srv.port_gbps
    if switch and not speed and not catalog.switch(switch).ports_at(link):
        # Without --speed the switch's native speed is the default, on a server that runs it.
        sw0 = catalog.switch(switch)
        link = max(m.gbps for m in sw0.port_modes)
        srv = _server_for_speed(catalog, srv, server, sw0, link)
        per_node = gpus_per_node or srv.gpus
        if gpus is not None:
            if gpus % per_node:
                raise SizingError(f"{gpus} GPUs is not a whole number of {per_node}-GPU nodes")
            nodes = gpus // per_node
    switch_id: str | None
    if technology:
        tech = catalog.technology(technology)
        switch_id = switch or (f"generic-{radix}x{link}g" if radix else tech.default_switch)
    else:
        switch_id = switch or (f"generic-{radix}x{link}g" if radix else None)
        if switch_id is None:
            families = srv.fabric_families or ("infiniband", "ethernet")
            techs = [t for fam in families for t in catalog.technologies.values() if t.family == fam]
            tech_id = next((t.id for t in techs if t.link_gbps == link), None)
            # A server whose NICs run a speed no technology names as its own (200G planes of a
            # ConnectX-8) is cabled to a switch of its own family with ports at that speed (a
            # 102.4T switch in 512 x 200G mode), never to another family's switch.
            tech_id = tech_id or next((t.id for t in techs for sid in (t.default_switch, *t.switches)
                                       if sid in catalog.switches and catalog.switch(sid).ports_at(link)), None)
            if tech_id is None:
                raise SizingError(f"no {' or '.join(families)} technology in the catalog runs at {link}G; "
                                  f"name a switch with {link}G ports (--switch)")
            switch_id = catalog.technology(tech_id).default_switch
        catalog.switch(switch_id)
        technology = pick_technology(catalog, switch_id, link)
    if radix and switch and not switch.startswith("generic-"):
        raise SizingError("give either --switch or --radix, not both")
    tech = catalog.technology(technology)
    variant_notes: tuple[str, ...] = ()
    if not switch and not radix:
        # The technology names the fabric: a chassis built in network variants (GB300 NVL72,
        # B300) takes the variant for it, as a counterpart does; a named switch is not guessed at.
        variant = chassis_variant(catalog, srv, tech)
        if variant is not srv:
            variant_notes = (f"{srv.id} on {tech.family} is its {variant.id} variant ({variant.name})",)
            srv, link = variant, speed or variant.port_gbps
            per_node = gpus_per_node or srv.gpus
            if gpus is not None:
                if gpus % per_node:
                    raise SizingError(f"{gpus} GPUs is not a whole number of {per_node}-GPU nodes")
                nodes = gpus // per_node
    check_server_runs(catalog, srv, tech)
    chosen = catalog.switch(switch_id)
    if not chosen.ports_at(link):
        raise SizingError(f"switch {chosen.name} has no {link}G ports (it offers {chosen.radix_label()})")
    n_planes = planes or srv.planes_hint
    # A rack-scale system's rack holds the trays its RA gives (18 per NVL72 rack), so the floor
    # plan, cable lengths and rack counts follow the rack the SU is built from; a hall too long
    # for the optics gets longer rows (hall.py).
    floorplan = FloorPlan(servers_per_rack=srv.servers_per_rack) if srv.servers_per_rack else FloorPlan()
    hall = reachable_floorplan(floorplan, nodes, longest_reach_m(catalog, tech.family))
    if hall is not None:
        floorplan = hall[0]

    def design_for(sw: Switch, uplink: int, su: int, rails_per_leaf: int | None) -> FabricDesign:
        label = name or f"{nodes * per_node:,} GPU {template} on {sw.name}"
        return FabricDesign(
            meta=Meta(name=label),
            floorplan=floorplan,
            cluster=ClusterSpec(server=srv.id, servers=nodes,
                                gpus_per_server=gpus_per_node if gpus_per_node != srv.gpus else None,
                                ports_per_server=ports, port_gbps=link if link != srv.port_gbps else None),
            fabric=FabricSpec(template=template, technology=tech.id, switch=sw.id,
                              link_gbps=link if link != srv.port_gbps else None,
                              uplink_gbps=uplink if uplink != link else None, tiers=tiers,
                              nodes_per_su=su, planes=n_planes,
                              leaf=TierSpec(oversubscription=oversubscription),
                              spine=TierSpec(oversubscription=spine_oversubscription),
                              rails_per_leaf=rails_per_leaf),
        )

    def build(sw: Switch) -> list[FabricDesign]:
        if not sw.ports_at(link):
            raise SizingError(f"switch {sw.name} has no {link}G ports (it offers {sw.radix_label()})")
        # Switch-to-switch links run at the technology's uplink speed where the switch offers it
        # (800G leaf-spine for RoCE 800G), exactly as a counterpart does.
        uplink = tech.uplink_gbps if tech.uplink_gbps > link and sw.ports_at(tech.uplink_gbps) else link
        if uplink_speed:
            # Speed-asymmetric uplinks (200G down, 800G up): the switch's modes share its cages.
            if not sw.ports_at(uplink_speed):
                raise SizingError(f"switch {sw.name} has no {uplink_speed}G ports for uplinks "
                                  f"(it offers {sw.radix_label()})")
            uplink = uplink_speed
        d_max = leaf_downlinks(sw, link, uplink, oversubscription)
        ref = reference_su(srv, tech, d_max)
        # An uplink speed asked for is built as asked: its twin at the servers' speed (fewer tiers)
        # is a candidate only when the speed is the technology's default.
        split = (lambda designs: designs) if uplink_speed else functools.partial(split_uplink_variants, catalog)
        if template != "rail-optimized":
            return split([design_for(sw, uplink, nodes_per_su or ref.nodes, None)])
        rails = max(1, (ports or srv.compute_ports) // n_planes)
        layouts = rail_layouts(nodes, rails, d_max, ref.nodes, nodes_per_su, bool(rack_size(srv)))
        designs = [design_for(sw, uplink, lay.nodes_per_su, lay.rails_per_leaf if lay.rails_per_leaf > 1 else None)
                   for lay in layouts]
        # With a price book every layout is priced (a price does not follow the counts alone:
        # cable lengths and media move it); without one, the counts decide, so the front will do.
        return split(designs if cost is not None else front(catalog, designs))

    named = bool(switch or radix or switch_id != tech.default_switch)
    choice = choose_switch(catalog, tech, build, cost, switches=(chosen,) if named else None, bound=bound,
                           modes=not uplink_speed)
    notes = (sizing_notes(catalog, choice.design, nodes_per_su, layout_by_counts=choice.layout_by_counts)
             + ((hall[1],) if hall is not None else ()))
    return SwitchChoice(choice.design, choice.options, variant_notes + tuple(choice.notes) + notes,
                        choice.layout_by_counts)


def chassis_variant(catalog: Catalog, srv: Server, tech: Technology) -> Server:
    """The server itself when it is built for the technology's family, else the first variant
    of its chassis that is; the server itself when there is none (then refused by the caller)."""
    if not srv.fabric_families or tech.family in srv.fabric_families or not srv.chassis:
        return srv
    return next((o for o in catalog.servers.values() if o.chassis == srv.chassis and o.id != srv.id
                 and (not o.fabric_families or tech.family in o.fabric_families)), srv)


def front(catalog: Catalog, designs: list[FabricDesign]) -> list[FabricDesign]:
    """The first design (the published layout) and those no other matches or beats on both
    switch and link counts (rail_layout.pareto): all that a choice by counts can take."""
    if len(designs) <= 1:
        return designs
    counts: list[tuple[int, int]] = []
    sized: list[FabricDesign] = []
    for d in designs:
        try:
            r = resolve(d, catalog)
            totals = plan_totals(d, r, plan_fabric(d, r))
        except (SizingError, UnknownPartError, ValueError):
            continue
        sized.append(d)
        counts.append((totals["switches"], totals["links"]))
    keep = set(pareto(counts))
    return [designs[0]] + [d for i, d in enumerate(sized) if i in keep and d is not designs[0]]


def split_uplink_variants(catalog: Catalog, designs: list[FabricDesign]) -> list[FabricDesign]:
    """`designs`, each followed by its twin with switch-to-switch links at the NIC-facing speed
    where that keeps the fabric in fewer tiers: a spine's 800G cages run as 2 x 400G, so one
    spine reaches twice the leaves (the DGX B300 Spectrum-X RA's 16 SU: 256 leaves and 128 spines
    in two tiers). Both are priced; the design's own uplink speed comes first."""
    out: list[FabricDesign] = []
    for d in designs:
        out.append(d)
        f = d.fabric
        if not f.uplink_gbps or f.tiers is not None:
            continue
        split = dataclasses.replace(d, fabric=dataclasses.replace(f, uplink_gbps=None))
        try:
            wide = plan_fabric(d, resolve(d, catalog)).tiers
            narrow = plan_fabric(split, resolve(split, catalog)).tiers
        except (SizingError, UnknownPartError, ValueError):
            continue
        if narrow < wide:
            out.append(split)
    return out


def _group_layout_note(catalog: Catalog, design: FabricDesign, r: Resolved, plan: Plan) -> list[str]:
    """What growing a flat two-tier rack-scale SU (GB200 NVL72 at 1-2 SU) into the reference
    architecture's spine-leaf groups would recable, and how to build the groups now."""
    grouped = dataclasses.replace(design, fabric=dataclasses.replace(design.fabric, tiers=3))
    try:
        g = plan_fabric(grouped, resolve(grouped, catalog))
    except (SizingError, UnknownPartError, ValueError):
        return []
    links = plan.leaves * plan.leaf_up * r.planes
    return [f"growth: these {plan.spines * r.planes} spines are flat (each leaf spreads its {plan.leaf_up} uplinks "
            f"over all of them); the reference architecture's spine-leaf groups ({g.leaves_per_pod} leaves and "
            f"{g.spines_per_pod} spines per rail of an SU, joined by a core tier) take over once the leaves "
            f"outgrow one spine's ports, and that growth re-terminates all {links:,} leaf-spine links on group "
            f"spines and adds the cores; --tiers 3 builds the groups now ({g.spines * r.planes} spines and "
            f"{g.cores * r.planes} cores here), so that growth only adds groups"]


def _mode_note(r: Resolved) -> list[str]:
    """Which port mode the leaf runs and why, when it is a breakout of faster cages."""
    sw = r.leaf_switch
    if len(sw.port_modes) < 2 or r.link_gbps >= sw.max_gbps:
        return []
    others = ", ".join(f"{m.count} x {m.gbps}G" for m in sw.port_modes if m.gbps not in (r.link_gbps, r.uplink_gbps))
    up = (f" and its uplinks {sw.ports_at(r.uplink_gbps)} x {r.uplink_gbps}G in the same cages"
          if r.uplink_gbps != r.link_gbps else "")
    return [f"port mode: {sw.name} in {sw.ports_at(r.link_gbps)} x {r.link_gbps}G mode, the speed of the "
            f"{r.server.name}'s {r.ports_per_server} NIC ports{up}: each {sw.max_gbps}G cage broken out to "
            f"{sw.max_gbps // r.link_gbps} ports" + (f" (its other modes: {others})" if others else "")]


def sizing_notes(catalog: Catalog, design: FabricDesign, given_su: int | None = None,
                 layout_by_counts: bool = False) -> tuple[str, ...]:
    """Which rule chose the tiers, the SU and the rail grouping of a sized design, one line each.
    `layout_by_counts`: the SU and rail grouping were chosen by switch and port counts
    (switch_choice.LAYOUTS_BY_COUNT_LINKS), not priced: the notes say so, not "the cheapest"."""
    try:
        r = resolve(design, catalog)
        plan = plan_fabric(design, r)
    except (SizingError, UnknownPartError, ValueError):
        return ()
    f = design.fabric
    out: list[str] = []
    out.extend(_mode_note(r))
    if plan.tiers > 1 and r.uplink_gbps > r.link_gbps and plan.leaf_up:
        # Speed-asymmetric uplinks: the same leaf bandwidth up over fewer, faster links.
        same = math.ceil(plan.leaf_up * r.uplink_gbps / r.link_gbps)
        out.append(f"uplinks: {plan.leaf_down} x {r.link_gbps}G down and {plan.leaf_up} x {r.uplink_gbps}G up per "
                   f"leaf ({r.leaf_switch.name}'s modes share its cages): {plan.leaf_up * plan.leaves * r.planes:,} "
                   f"leaf uplinks instead of {same * plan.leaves * r.planes:,} at {r.link_gbps}G for the same "
                   "bandwidth")
    if plan.tiers == 1 and f.template == "rail-only":
        out.append(f"tiers: one {r.leaf_switch.name} per rail takes the rail's {plan.endpoints} endpoints; no "
                   "spine joins the rails (cross-rail traffic crosses NVLink); give --tiers 2 to build each "
                   "rail as a leaf-spine fabric for growth")
        return tuple(out)
    if plan.tiers == 1:
        out.append(f"tiers: one {r.leaf_switch.name} per plane takes all {plan.endpoints} endpoints "
                   "(rule of the single switch: a spine tier would join nothing); give --tiers 2 to "
                   "build a leaf-spine fabric for growth")
        return tuple(out)
    if f.template != "rail-optimized":
        return tuple(out)
    d_max = leaf_downlinks(r.leaf_switch, r.link_gbps, r.uplink_gbps, f.leaf.oversubscription)
    ref = reference_su(r.server, r.technology, d_max)
    if given_su:
        out.append(f"SU: {f.nodes_per_su} nodes, as given (--nodes-per-su)")
    elif f.nodes_per_su == ref.nodes:
        out.append(f"SU: {f.nodes_per_su} nodes, {ref.why}")
    else:
        chosen = ("the layout with the fewest switches, then switch ports (chosen by counts, not priced)"
                  if layout_by_counts else "the cheapest layout")
        out.append(f"SU: {f.nodes_per_su} nodes instead of {ref.nodes} ({ref.why}): {chosen} "
                   f"for {design.cluster.servers} nodes; --nodes-per-su {ref.nodes} builds the reference SU")
    if plan.tiers == 2 and plan.rail_leaves > 1:
        out.extend(_group_layout_note(catalog, design, r, plan))
    tech = r.technology
    if r.uplink_gbps < tech.uplink_gbps and r.link_gbps == r.uplink_gbps and r.leaf_switch.ports_at(tech.uplink_gbps):
        out.append(f"uplinks: the {tech.uplink_gbps}G cages run as {tech.uplink_gbps // r.link_gbps} x "
                   f"{r.link_gbps}G, so each spine takes {r.spine_switch.ports_at(r.link_gbps)} leaves and the "
                   f"fabric stays in {plan.tiers} tiers (at {tech.uplink_gbps}G it would need another tier)")
    k = plan.rails_per_leaf
    if k > 1:
        out.append(f"rail grouping: {k} rails of an SU share each {r.leaf_switch.name} leaf "
                   f"({plan.leaf_down} of its {d_max} downlinks at {f.leaf.oversubscription:g}:1), "
                   f"{plan.rail_groups(r.rails)} leaves per SU instead of {r.rails}: "
                   + ("the grouping of that layout (chosen by counts, not priced)" if layout_by_counts
                      else "the cheapest grouping"))
    return tuple(out)
