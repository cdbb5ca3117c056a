"""Making new designs from a few choices: shared by `fabric-designer new` and the palette."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, TypeGuard

from designer.catalog import Catalog, Server, Switch, Technology, UnknownPartError
from designer.model.intent.design import ClusterSpec, FabricDesign, FabricSpec, Meta, Template, TierSpec
from designer.model.intent.floorplan import FloorPlan
from designer.model.topology.sizing import SizingError, rack_group, split_ports
from designer.model.topology.switch_choice import FabricCost, SwitchChoice, choose_switch

TEMPLATES = ("leaf-spine", "fat-tree", "rail-optimized")


def is_template(name: str) -> TypeGuard[Template]:
    return name in TEMPLATES
DEFAULT_SERVER = "dgx-h100"
DEFAULT_NODES_PER_SU = 32


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


def default_nodes_per_su(srv: Server, sw: Switch, link: int, uplink: int, oversubscription: float) -> int:
    """The server's reference-architecture SU where the catalog has one (GB200 NVL72: 8 racks,
    each rail spread over one leaf per rack group); else 32 servers per SU (the DGX SuperPOD SU);
    else for a rack-scale system, the most whole racks whose trays one leaf can take at the
    requested ratio (at least one rack)."""
    if srv.su_servers:
        try:
            d_max, _ = split_ports(sw.ports_at(link), sw.ports_at(uplink), link, uplink, oversubscription)
        except SizingError:
            d_max = 0
        if srv.su_servers <= d_max or rack_group(srv, srv.su_servers, d_max):
            return srv.su_servers
    domain = srv.nvlink_domain_gpus
    if not (srv.gpus and domain > srv.gpus and domain % srv.gpus == 0):
        return DEFAULT_NODES_PER_SU
    per_rack = domain // srv.gpus
    try:
        d_max, _ = split_ports(sw.ports_at(link), sw.ports_at(uplink), link, uplink, oversubscription)
    except SizingError:
        return per_rack
    return per_rack * max(1, d_max // per_rack)


def new_design(catalog: Catalog, template: str = "leaf-spine", **choices: Any) -> FabricDesign:
    """A design from the choices of `fabric-designer new`; raises SizingError on impossible counts."""
    return new_design_choice(catalog, template, **choices).design


def new_design_choice(catalog: Catalog, template: str = "leaf-spine", *, gpus: int | None = None,
                      nodes: int | None = None, gpus_per_node: int | None = None, server: str | None = None,
                      switch: str | None = None, radix: int | None = None, speed: int | None = None,
                      oversubscription: float = 1.0, spine_oversubscription: float = 1.0,
                      tiers: int | None = None, nodes_per_su: int | None = None, planes: int | None = None,
                      technology: str | None = None, name: str | None = None,
                      cost: FabricCost | None = None) -> SwitchChoice:
    """`new_design`, with the switch choice and its notes.

    Without a switch (or radix), the technology's switches are compared and the fabric of least
    `cost` that meets the requested oversubscription wins (see switch_choice; the physical layer's
    fabric_cost prices the bill of materials); without one the fewest switches win. A named
    switch is the only candidate.
    """
    if not is_template(template):
        raise SizingError(f"unknown template '{template}' (choose from {', '.join(TEMPLATES)})")
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
            tech_id = next((t.id for fam in families for t in catalog.technologies.values()
                            if t.link_gbps == link and t.family == fam), None)
            tech_id = tech_id or next((t.id for t in catalog.technologies.values() if t.link_gbps == link), None)
            if tech_id is None:
                raise SizingError(f"no technology in the catalog runs at {link}G")
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

    def build(sw: Switch) -> FabricDesign:
        if not sw.ports_at(link):
            raise SizingError(f"switch {sw.name} has no {link}G ports (it offers {sw.radix_label()})")
        # Switch-to-switch links run at the technology's uplink speed where the switch offers it
        # (800G leaf-spine for RoCE 800G), exactly as a counterpart does.
        uplink = tech.uplink_gbps if tech.uplink_gbps > link and sw.ports_at(tech.uplink_gbps) else link
        su = nodes_per_su if nodes_per_su is not None else \
            default_nodes_per_su(srv, sw, link, uplink, oversubscription)
        label = name or f"{nodes * per_node:,} GPU {template} on {sw.name}"
        return FabricDesign(
            meta=Meta(name=label),
            # A rack-scale system's rack holds the trays its RA gives (18 per NVL72 rack), so the
            # floor plan, cable lengths and rack counts follow the rack the SU is built from.
            floorplan=FloorPlan(servers_per_rack=srv.servers_per_rack) if srv.servers_per_rack else FloorPlan(),
            cluster=ClusterSpec(server=srv.id, servers=nodes,
                                gpus_per_server=gpus_per_node if gpus_per_node != srv.gpus else None,
                                ports_per_server=ports, port_gbps=link if link != srv.port_gbps else None),
            fabric=FabricSpec(template=template, technology=tech.id, switch=sw.id,
                              link_gbps=link if link != srv.port_gbps else None,
                              uplink_gbps=uplink if uplink != link else None, tiers=tiers,
                              nodes_per_su=su, planes=n_planes,
                              leaf=TierSpec(oversubscription=oversubscription),
                              spine=TierSpec(oversubscription=spine_oversubscription)),
        )

    if switch or radix or switch_id != tech.default_switch:
        return SwitchChoice(build(chosen), notes=variant_notes)  # a named switch is not compared
    made = choose_switch(catalog, tech, build, cost)
    return replace(made, notes=variant_notes + made.notes) if variant_notes else made


def chassis_variant(catalog: Catalog, srv: Server, tech: Technology) -> Server:
    """The server itself when it is built for the technology's family, else the first variant
    of its chassis that is; the server itself when there is none (then refused by the caller)."""
    if not srv.fabric_families or tech.family in srv.fabric_families or not srv.chassis:
        return srv
    return next((o for o in catalog.servers.values() if o.chassis == srv.chassis and o.id != srv.id
                 and (not o.fabric_families or tech.family in o.fabric_families)), srv)

