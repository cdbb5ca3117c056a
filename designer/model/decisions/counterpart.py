"""Counterpart designs: the same cluster on another fabric technology.

The servers, GPU count, template and oversubscription targets stay; the switches and link
speeds come from the target technology. A server's NICs never change: they are built in. Where
the same system ships with another network (the catalog lists such servers with one
`chassis`: DGX B300 with 8 x 800G XDR, or with 2 x 400GbE per GPU on two planes), the variant
that runs the target technology at its native speed is used. Where no variant can run it, the
counterpart is refused with the reason. Otherwise per-server injection bandwidth is kept where
the NIC allows it: a slower technology splits each port over parallel planes when the NIC has
the ports for it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from designer.catalog import Catalog, Server, Technology
from designer.model.intent.design import ClusterSpec, FabricDesign, FabricSpec, Meta, TierSpec
from designer.model.topology.sizing import SizingError, resolve, split_ports

# Technology ids offered by `fabric-designer counterpart --technology`.
COUNTERPART_TECHNOLOGIES = ("ib-ndr", "ib-xdr", "roce-400g", "roce-800g")


@dataclass(frozen=True)
class Counterpart:
    design: FabricDesign
    notes: tuple[str, ...]


def counterpart_name(name: str, old: Technology, new: Technology) -> str:
    """'DGX H100 SuperPOD, 1 SU (NDR)' -> 'DGX H100 SuperPOD, 1 SU - RoCE 400GbE (Spectrum-X)'."""
    base = name.rstrip()
    if base.endswith(")") and "(" in base:
        tag = base[base.rindex("(") + 1:-1]
        if any(word and word.lower() in tag.lower() for word in (old.generation, old.name, old.id)):
            base = base[:base.rindex("(")].rstrip()
    return f"{base} \u2013 {new.name}"


def _native(server: Server, catalog: Catalog, tech: Technology) -> bool:
    """Whether `server` as shipped runs `tech` at the technology's own port speed."""
    mode = catalog.nic(server.compute_nic).mode_for(tech.family)
    # The NIC's own port speed in that family is the server's: a DGX B300 built for 2 x 400GbE
    # is not an 8 x 400G InfiniBand server, though its ConnectX-8 could run InfiniBand.
    return mode is not None and mode.gbps == server.port_gbps == tech.link_gbps


def _variant(source, catalog: Catalog, tech: Technology) -> Server | None:
    """The variant of the source's system that runs `tech` natively, when the source does not."""
    own = source.server
    if not own.chassis or _native(own, catalog, tech) and source.nic.id == own.compute_nic:
        return None
    for other in catalog.servers.values():
        if other.chassis == own.chassis and other.id != own.id and _native(other, catalog, tech):
            return other
    return None


def make_counterpart(design: FabricDesign, technology: str, catalog: Catalog) -> Counterpart:
    """The same cluster built on `technology`; raises UnknownPartError or SizingError."""
    tech = catalog.technology(technology)
    source = resolve(design, catalog)
    server = source.server
    notes: list[str] = []
    switch = catalog.switch(tech.default_switch)

    variant = _variant(source, catalog, tech)
    if variant is not None:
        server, nic = variant, catalog.nic(variant.compute_nic)
        mode = nic.mode_for(tech.family)
        link, ports, planes = variant.port_gbps, variant.compute_ports, variant.planes_hint
        notes.append(f"servers become {variant.name}, the variant of {source.server.name} that runs "
                     f"{tech.name}: {ports} x {link}G per server on {planes} plane{'s' if planes > 1 else ''}")
        return _build(design, source, tech, switch, server, nic, link, ports, planes, notes)

    nic = source.nic
    mode = nic.mode_for(tech.family)
    if mode is None:
        raise SizingError(f"{server.name}'s {nic.name} does not run {tech.family}; {tech.name} needs servers "
                          f"with {catalog.nic(tech.default_nic).name} or another {tech.family} NIC")
    link = min(tech.link_gbps, mode.gbps)
    if link < tech.link_gbps and not switch.ports_at(link):
        raise SizingError(f"{server.name}'s {nic.name} runs at most {mode.gbps}G; {tech.name} needs "
                          f"{tech.link_gbps}G ports (servers with {catalog.nic(tech.default_nic).name})")

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

    return _build(design, source, tech, switch, server, nic, link, ports, planes, notes)


def _build(design: FabricDesign, source, tech: Technology, switch, server: Server, nic, link: int, ports: int,
           planes: int, notes: list[str]) -> Counterpart:
    uplink = tech.uplink_gbps if switch.ports_at(tech.uplink_gbps) else link
    nodes_per_su = design.fabric.nodes_per_su
    if design.fabric.template == "rail-optimized":
        d_max, _ = split_ports(switch.ports_at(link), switch.ports_at(uplink), link, uplink,
                               design.fabric.leaf.oversubscription)
        if nodes_per_su > d_max:
            notes.append(f"SUs shrink from {nodes_per_su} to {d_max} nodes: {switch.name} has "
                         f"{d_max} downlinks per leaf at {design.fabric.leaf.oversubscription:g}:1")
            nodes_per_su = d_max
    if design.edits:
        notes.append(f"{len(design.edits)} manual edit(s) of the original are not carried over")
    if any(design.fabric.tier(t).count for t in ("leaf", "spine", "core")):
        notes.append("switch counts are derived afresh for the new switches")

    fabric = FabricSpec(
        template=design.fabric.template, technology=tech.id, switch=switch.id,
        link_gbps=link if link != server.port_gbps else None,
        uplink_gbps=uplink if uplink != link else None,
        tiers=None, nodes_per_su=nodes_per_su, planes=planes,
        leaf=TierSpec(oversubscription=design.fabric.leaf.oversubscription),
        spine=TierSpec(oversubscription=design.fabric.spine.oversubscription))
    cluster = ClusterSpec(
        server=server.id, servers=design.cluster.servers, gpus_per_server=design.cluster.gpus_per_server,
        ports_per_server=ports if ports != server.compute_ports else None,
        port_gbps=link if link != server.port_gbps else None,
        nic=nic.id if nic.id != server.compute_nic else None)
    meta = Meta(name=counterpart_name(design.meta.name, source.technology, tech), author=design.meta.author,
                notes=f"Counterpart of '{design.meta.name}' on {tech.name}.")
    counterpart = dataclasses.replace(design, meta=meta, cluster=cluster, fabric=fabric, edits=())
    return Counterpart(counterpart, tuple(notes))
