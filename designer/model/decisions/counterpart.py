"""Counterpart designs: the same cluster on another fabric technology.

The servers, GPU count, template and oversubscription targets stay; the switches, NICs and link
speeds come from the target technology. Per-server injection bandwidth is kept where the NIC
allows it: a faster NIC port count shrinks onto fewer, faster ports only when the rail count
stays, and a slower technology splits each port over parallel planes (as DGX B300 does with
2 x 400GbE per GPU).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from designer.catalog import Catalog, Technology
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


def make_counterpart(design: FabricDesign, technology: str, catalog: Catalog) -> Counterpart:
    """The same cluster built on `technology`; raises UnknownPartError or SizingError."""
    tech = catalog.technology(technology)
    source = resolve(design, catalog)
    server = source.server
    notes: list[str] = []

    nic = source.nic
    mode = nic.mode_for(tech.family)
    if mode is None or mode.gbps < tech.link_gbps and nic.id != tech.default_nic:
        new_nic = catalog.nic(tech.default_nic)
        notes.append(f"NICs change from {nic.name} to {new_nic.name}"
                     + ("" if mode else f" ({nic.name} does not run {tech.family})"))
        nic = new_nic
        mode = nic.mode_for(tech.family)
    if mode is None:
        raise SizingError(f"no NIC in the catalog runs {tech.name}")
    link = min(tech.link_gbps, mode.gbps)

    old_bw = source.ports_per_server * source.link_gbps
    ports, planes = source.ports_per_server, source.planes
    if link < source.link_gbps and source.link_gbps % link == 0:
        factor = source.link_gbps // link
        if mode.ports >= factor or nic.id != source.nic.id:
            ports, planes = ports * factor, planes * factor
            notes.append(f"each {source.link_gbps}G port becomes {factor} x {link}G on {planes} planes, "
                         f"keeping {old_bw:,} Gb/s per server")
        else:
            notes.append(f"ports run at {link}G instead of {source.link_gbps}G: "
                         f"{ports * link:,} Gb/s per server instead of {old_bw:,}")
    elif link > source.link_gbps:
        notes.append(f"ports run at {link}G instead of {source.link_gbps}G: "
                     f"{ports * link:,} Gb/s per server instead of {old_bw:,}")

    switch = catalog.switch(tech.default_switch)
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
