"""Closed-form sizing of the converged/storage, in-band, customer and out-of-band networks.

Leaf-pair networks (converged, storage, in-band, customer): every server reaches two leaves of one
pair (MLAG-style), half its ports to each; a pair serves whole racks (a rack group). Each leaf
keeps two ports for the peer link, splits the rest between servers and uplinks by the asked
oversubscription, and uplinks to spines when there is more than one pair. Storage appliance ports
come from the storage bandwidth asked per GPU and sit on their own leaf pairs.

Segment networks (the RAs' in-band management on the converged network): a VLAN/VRF of the
network that carries them, on its ports and switches; they have no switches or cables of their
own, and their sizing states so with the ports they share and the source that says so.

Out-of-band (per-rack): management switches in every server rack for every BMC, the rack's other
management ports (e.g. NVL72 switch trays) and its PDUs; switches in the network racks get their
own management switches for the management port of every switch of the cluster.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

from designer.catalog import Catalog
from designer.catalog.entries import Server, Switch
from designer.model.intent.design import FabricDesign
from designer.model.intent.networks import ROLE_LABELS, NetworkSpec

PEER_LINK_PORTS = 2          # heuristic: two ports of each leaf form the MLAG peer link
MIN_SPINES = 2               # heuristic: two spines at least, so one can fail
PDUS_PER_RACK = 2            # heuristic: an A and a B feed; each PDU has one management port
MGMT_PORTS_PER_SWITCH = 1    # every switch has one out-of-band management port


@dataclass(frozen=True)
class SwitchGroup:
    tier: str                # "leaf", "storage leaf", "spine", "management", ...
    switch: str              # catalog id
    count: int


@dataclass(frozen=True)
class LinkGroup:
    """`count` links of one kind; medium is "optic" (a transceiver each end and a fiber), "dac"
    (one copper cable) or "copper" (one RJ45 patch cable)."""

    kind: str
    count: int
    gbps: int
    medium: str


@dataclass(frozen=True)
class NetworkSize:
    role: str
    label: str
    template: str
    technology: str
    switches: tuple[SwitchGroup, ...] = ()
    links: tuple[LinkGroup, ...] = ()
    oversubscription: float | None = None
    storage_ports: int = 0
    storage_gbps: float = 0.0
    notes: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    racks: int = 0
    extra: dict[str, float] = field(default_factory=dict)
    # segment template: the role carrying this network, and the server ports it shares there
    # (servers x ports per server at that speed); none of them is this network's own cable.
    carried_by: str = ""
    shared_ports: int = 0
    shared_gbps: int = 0
    # Per server rack, in rack order: the links its servers (and, out of band, its other
    # management ports and PDUs) have to this network; the last rack may be partly filled.
    rack_links: tuple[int, ...] = ()
    # Leaf-pair networks: per server leaf pair, in order, the racks it serves as (rack index from 0,
    # servers of that rack on the pair). A pair serves whole racks unless a rack outgrows a leaf.
    pair_racks: tuple[tuple[tuple[int, int], ...], ...] = ()

    @property
    def switch_count(self) -> int:
        return sum(g.count for g in self.switches)

    @property
    def link_count(self) -> int:
        return sum(g.count for g in self.links)


def servers_per_rack(design: FabricDesign, server: Server) -> int:
    """Servers per rack: the RA's figure from the server entry, else the floor plan's."""
    return server.servers_per_rack or design.floorplan.servers_per_rack


def server_ports(net: NetworkSpec, server: Server) -> tuple[int, int, str]:
    """(ports per server, Gb/s, where the figure comes from) for this network's role."""
    stated = server.ports_for(net.role)
    if stated is None and net.role == "converged":  # a converged network carries storage and in-band
        stated = server.ports_for("storage")
    count = net.ports_per_server or (stated.count if stated else 0)
    gbps = net.port_gbps or (stated.gbps if stated else 0)
    basis = "set in the design" if net.ports_per_server or net.port_gbps else (stated.source if stated else "")
    return count, gbps, basis


def _mgmt_switch_basis(server: Server) -> str:
    """The clauses of the server's source that state its management switches per rack and the RA
    they come from, rather than the source's first clause, which describes the tray."""
    clauses = [c.strip(" ()") for c in server.source.split(";")]
    stated = [c for c in clauses if "management switch" in c]
    named = [c.split(",")[0] for c in clauses if " RA" in c and c not in stated]
    return ", ".join(stated[:1] + named[:1]) or "the server's catalog source"


def _switch(catalog: Catalog, switch_id: str, errors: list[str], label: str) -> Switch | None:
    try:
        return catalog.switch(switch_id)
    except KeyError as exc:
        message = f"{label}: {exc}"
        if message not in errors:
            errors.append(message)
        return None


def size_network(design: FabricDesign, net: NetworkSpec, catalog: Catalog,
                 other_switches: int = 0) -> NetworkSize:
    """The switches and links of one network. `other_switches`: switches of every other network
    of the cluster (the compute fabric's included), for the out-of-band management ports."""
    server = catalog.server(design.cluster.server)
    if net.technology not in catalog.technologies and net.technology not in ("ethernet", "infiniband"):
        return NetworkSize(net.role, net.label, net.template, net.technology, errors=(
            (f"{net.label}: unknown technology '{net.technology}' (a catalog technology id, or ethernet "
            f"or infiniband)"),))
    if net.template == "per-rack":
        return _size_oob(design, net, catalog, server, other_switches)
    if net.template == "segment":
        return _size_segment(design, net, server)
    if net.template == "merged":
        if catalog.technology(design.fabric.technology).family != "ethernet":
            return NetworkSize(net.role, net.label, net.template, net.technology, errors=(
                (f"{net.label}: merged into the compute fabric needs an Ethernet compute fabric "
                f"(this one is {design.fabric.technology})"),))
        return _size_merged(design, net, server)
    return _size_leaf_pairs(design, net, catalog, server)


def _rack_servers(servers: int, per_rack: int) -> list[int]:
    """Servers in each rack, in order: full racks, then the remainder (if any) in the last."""
    per_rack = max(per_rack, 1)
    full, rest = divmod(servers, per_rack)
    return [per_rack] * full + ([rest] if rest else [])


def _pair_racks(servers: int, per_rack: int, per_pair: int) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Per leaf pair, the racks its servers sit in: servers are given to pairs in order, `per_pair`
    each, as racks are filled in order, `per_rack` each."""
    per_rack, per_pair = max(per_rack, 1), max(per_pair, 1)
    pairs = []
    for first in range(0, servers, per_pair):
        last = min(first + per_pair, servers)          # this pair's servers: first .. last - 1
        racks = []
        for rack in range(first // per_rack, (last - 1) // per_rack + 1):
            low, high = max(first, rack * per_rack), min(last, (rack + 1) * per_rack)
            racks.append((rack, high - low))
        pairs.append(tuple(racks))
    return tuple(pairs)


def _gpus(design: FabricDesign, server: Server) -> int:
    return design.cluster.servers * (design.cluster.gpus_per_server or server.gpus)


def _size_merged(design: FabricDesign, net: NetworkSpec, server: Server) -> NetworkSize:
    ports, gbps, basis = server_ports(net, server)
    note = (f"merged with the compute fabric: {ports} x {gbps}G per server ride on the compute "
            f"fabric's switches (the Enterprise RAs do so at small design points); the compute "
            f"fabric's own sizing counts them only when the design's ports per server include them")
    return NetworkSize(net.role, net.label, net.template, net.technology,
                       links=(LinkGroup("server-leaf", design.cluster.servers * ports, gbps, "optic"),),
                       notes=(note,) + ((f"server ports: {basis}",) if basis else ()))


def _carrier_ports(design: FabricDesign, carrier: str, server: Server) -> tuple[int, int]:
    """(ports per server, Gb/s) of the network that carries a segment."""
    if carrier == "compute":
        return (design.cluster.ports_per_server or server.compute_ports,
                design.cluster.port_gbps or server.port_gbps)
    spec = design.network(carrier)
    if spec is None:
        return 0, 0
    count, gbps, _basis = server_ports(spec, server)
    return count, gbps


def _size_segment(design: FabricDesign, net: NetworkSpec, server: Server) -> NetworkSize:
    carrier = net.carrier
    carrier_label = ROLE_LABELS[carrier]
    if carrier != "compute":
        spec = design.network(carrier)
        if spec is None:
            return NetworkSize(net.role, net.label, net.template, net.technology, carried_by=carrier, errors=(
                (f"{net.label}: rides on the {carrier_label.lower()} network, which this design does not "
                 f"have; add it, or give {net.label.lower()} switches of its own (template leaf-pair-spine)"),))
        carrier_label = spec.label
    ports, gbps = _carrier_ports(design, carrier, server)
    stated = server.ports_for(net.role)
    notes = [f"a segment (VLAN/VRF) of {carrier_label}: no switches or cables of its own; its traffic "
             f"shares that network's {ports} x {gbps}G ports per server and its switches, which "
             f"{carrier_label} counts and prices"]
    if stated is not None and stated.carried_by:
        notes.append(f"as the RA gives it: {stated.source}")
        if stated.carried_by != carrier:
            notes.append(f"the RA's {stated.carried_by} ports ride on the {ROLE_LABELS[carrier].lower()} "
                         f"in this design")
    elif stated is not None:
        notes.append(f"the server model's RA gives {ROLE_LABELS[net.role].lower()} {stated.count} x "
                     f"{stated.gbps}G ports of their own ({stated.source}); this design carries it on "
                     f"{carrier_label} instead")
    else:
        notes.append(f"set in the design: the server model states no {net.role} ports")
    return NetworkSize(net.role, net.label, net.template, net.technology, notes=tuple(notes),
                       racks=math.ceil(design.cluster.servers / servers_per_rack(design, server)),
                       carried_by=carrier, shared_ports=design.cluster.servers * ports, shared_gbps=gbps,
                       rack_links=tuple(n * ports for n in _rack_servers(design.cluster.servers,
                                                                         servers_per_rack(design, server))))


def _peer_ports(leaf: Switch) -> int:
    """MLAG peer-link ports: Ethernet leaf pairs only (InfiniBand has no MLAG; both leaves are
    reached through the subnet manager's routing)."""
    return PEER_LINK_PORTS if leaf.family == "ethernet" else 0


def _leaf_split(leaf: Switch, gbps: int, uplink: int, ratio: float) -> tuple[int, int]:
    """(downlinks, uplinks) of one leaf at `gbps` down and `uplink` up, at most `ratio` down:up."""
    ports = leaf.ports_at(gbps) - _peer_ports(leaf)
    if ports <= 1:
        return 0, 0
    # An uplink at `uplink` Gb/s takes uplink/gbps ports of the down speed's budget.
    per_up = max(1.0, uplink / gbps)
    down = int(ports * ratio / (ratio + 1))
    while down > 0:
        up = math.ceil(down * gbps / (ratio * uplink))
        if down + up * per_up <= ports:
            return down, up
        down -= 1
    return 0, 0


def _size_leaf_pairs(design: FabricDesign, net: NetworkSpec, catalog: Catalog, server: Server) -> NetworkSize:
    errors: list[str] = []
    notes: list[str] = []
    ports, gbps, basis = server_ports(net, server)
    if not ports or not gbps:
        return NetworkSize(net.role, net.label, net.template, net.technology, errors=(
            (f"{net.label}: the server model '{server.id}' states no ports for this role; set the "
            f"network's ports per server and port speed"),))
    if basis:
        notes.append(f"server ports {ports} x {gbps}G: {basis}")
    leaf = _switch(catalog, net.switch, errors, net.label)
    spine = _switch(catalog, net.spine_switch or net.switch, errors, net.label)
    if leaf is None or spine is None:
        return NetworkSize(net.role, net.label, net.template, net.technology, errors=tuple(errors))
    if not leaf.ports_at(gbps):
        return NetworkSize(net.role, net.label, net.template, net.technology, errors=(
            f"{net.label}: {leaf.name} has no {gbps}G ports ({leaf.radix_label()})",))
    uplink = net.uplink_gbps or leaf.max_gbps
    if not spine.ports_at(uplink):
        return NetworkSize(net.role, net.label, net.template, net.technology, errors=(
            f"{net.label}: {spine.name} has no {uplink}G ports for the leaf uplinks",))
    down, up = _leaf_split(leaf, gbps, uplink, net.oversubscription)
    per_leaf = ports // 2 or 1            # ports of one server on each leaf of its pair
    servers_per_leaf = down // per_leaf
    if servers_per_leaf <= 0:
        return NetworkSize(net.role, net.label, net.template, net.technology, errors=(
            f"{net.label}: a {leaf.name} leaf has no room for a server's {per_leaf} ports",))
    rack = servers_per_rack(design, server)
    racks_per_pair = servers_per_leaf // rack
    group = racks_per_pair * rack if racks_per_pair else servers_per_leaf
    if not racks_per_pair:
        notes.append(f"a rack of {rack} servers needs more ports than one leaf has; pairs split racks")
    servers = design.cluster.servers
    pairs = math.ceil(servers / group)
    notes.append(f"one leaf pair per {group} servers ({racks_per_pair or 'part of a'} rack(s) of {rack})")
    storage_gbps = net.storage_GBps_per_gpu * 8 * _gpus(design, server)
    storage_ports = math.ceil(storage_gbps / net.storage_port_gbps) if storage_gbps else 0
    storage_pairs = 0
    if storage_ports:
        s_down, _s_up = _leaf_split(leaf, net.storage_port_gbps, uplink, net.oversubscription)
        if s_down <= 0:
            errors.append(f"{net.label}: {leaf.name} has no {net.storage_port_gbps}G ports for storage")
        else:
            # Storage appliance ports are spread over both leaves of a pair, like servers' ports.
            storage_pairs = math.ceil(storage_ports / (2 * s_down))
            notes.append(f"storage: {net.storage_GBps_per_gpu:g} GB/s per GPU = {storage_gbps:,.0f} Gb/s, "
                         f"{storage_ports} appliance ports at {net.storage_port_gbps}G on "
                         f"{storage_pairs} storage leaf pair(s)")
    leaves = 2 * pairs
    storage_leaves = 2 * storage_pairs
    groups = [SwitchGroup("leaf", leaf.id, leaves)]
    if storage_leaves:
        groups.append(SwitchGroup("storage leaf", leaf.id, storage_leaves))
    links = [LinkGroup("server-leaf", servers * ports, gbps, "optic")]
    if _peer_ports(leaf):
        links.append(LinkGroup("leaf peer link", (leaves + storage_leaves) // 2 * _peer_ports(leaf), gbps, "dac"))
    if storage_ports:
        links.append(LinkGroup("storage-leaf", storage_ports, net.storage_port_gbps, "optic"))
    all_leaves = leaves + storage_leaves
    if all_leaves > 2:
        spines = max(MIN_SPINES, math.ceil(all_leaves * up / spine.ports_at(uplink)))
        groups.append(SwitchGroup("spine", spine.id, spines))
        links.append(LinkGroup("leaf-spine", all_leaves * up, uplink, "optic"))
    else:
        notes.append("one leaf pair: no spine tier (the pair uplinks to the site network)")
    return NetworkSize(net.role, net.label, net.template, net.technology, switches=tuple(groups),
                       links=tuple(links), oversubscription=net.oversubscription,
                       storage_ports=storage_ports, storage_gbps=storage_gbps, notes=tuple(notes),
                       errors=tuple(errors), racks=math.ceil(servers / rack),
                       extra={"servers_per_pair": float(group)},
                       rack_links=tuple(n * ports for n in _rack_servers(servers, rack)),
                       pair_racks=_pair_racks(servers, rack, group))


def _size_oob(design: FabricDesign, net: NetworkSpec, catalog: Catalog, server: Server,
              other_switches: int) -> NetworkSize:
    errors: list[str] = []
    notes: list[str] = []
    switch = _switch(catalog, net.switch, errors, net.label)
    if switch is None:
        return NetworkSize(net.role, net.label, net.template, net.technology, errors=tuple(errors))
    bmc, gbps, basis = server_ports(net, server)
    gbps = gbps or 1
    bmc = bmc or 1
    if basis:
        notes.append(f"BMC ports {bmc} x {gbps}G: {basis}")
    access = switch.ports_at(gbps) or switch.ports_at(min(switch.speeds))
    rack = servers_per_rack(design, server)
    servers = design.cluster.servers
    racks = math.ceil(servers / rack)
    per_rack = rack * bmc + server.rack_mgmt_ports + PDUS_PER_RACK
    by_ports = math.ceil(per_rack / access)
    if net.switches_per_rack:
        per_rack_switches, why = net.switches_per_rack, "set in the design"
    elif server.mgmt_switches_per_rack:
        per_rack_switches, why = server.mgmt_switches_per_rack, f"as the RA gives it: {_mgmt_switch_basis(server)}"
    else:
        per_rack_switches, why = by_ports, "by port count"
    if per_rack_switches < by_ports:
        errors.append(f"{net.label}: {per_rack_switches} management switch(es) per rack have "
                      f"{per_rack_switches * access} ports; a rack needs {per_rack}")
    notes.append(f"{per_rack_switches} {switch.name} per server rack ({why}): {rack} servers x {bmc} BMC"
                 + (f" + {server.rack_mgmt_ports} other management ports" if server.rack_mgmt_ports else "")
                 + f" + {PDUS_PER_RACK} PDUs (heuristic) = {per_rack} ports")
    mgmt_in_network_racks = math.ceil(other_switches * MGMT_PORTS_PER_SWITCH / access) if other_switches else 0
    if other_switches:
        notes.append(f"{mgmt_in_network_racks} more in the network racks for the management ports of "
                     f"{other_switches:,} switches of the other networks")
    rack_switches = racks * per_rack_switches
    total = rack_switches + mgmt_in_network_racks
    groups = [SwitchGroup("management (server racks)", switch.id, rack_switches)]
    if mgmt_in_network_racks:
        groups.append(SwitchGroup("management (network racks)", switch.id, mgmt_in_network_racks))
    uplink_gbps = switch.max_gbps
    links = [LinkGroup("BMC", servers * bmc, gbps, "copper"),
             LinkGroup("rack management ports", racks * server.rack_mgmt_ports, gbps, "copper"),
             LinkGroup("PDU", racks * PDUS_PER_RACK, gbps, "copper"),
             LinkGroup("switch management", other_switches * MGMT_PORTS_PER_SWITCH, gbps, "copper"),
             LinkGroup("management uplink", total * net.uplinks_per_switch, uplink_gbps, "optic")]
    notes.append(f"{net.uplinks_per_switch} uplinks per management switch at {uplink_gbps}G to the "
                 f"site's management aggregation (not sized here)")
    return NetworkSize(net.role, net.label, net.template, net.technology, switches=tuple(groups),
                       links=tuple(g for g in links if g.count), notes=tuple(notes),
                       errors=tuple(errors), racks=racks,
                       rack_links=tuple(n * bmc + server.rack_mgmt_ports + PDUS_PER_RACK
                                        for n in _rack_servers(servers, rack)))


def size_networks(design: FabricDesign, catalog: Catalog, compute_switches: int) -> tuple[NetworkSize, ...]:
    """Every network of the design, out-of-band last (it manages every other network's switches)."""
    sized = [size_network(design, n, catalog) for n in design.networks if n.role != "oob"]
    # A carrier says which segments ride it, so its page and section name them too.
    for seg in [s for s in sized if s.template == "segment" and not s.errors]:
        for i, carrier in enumerate(sized):
            if carrier.role == seg.carried_by:
                sized[i] = dataclasses.replace(carrier, notes=carrier.notes + (
                    f"also carries {seg.label} as a segment (VLAN/VRF) on these ports and switches",))
    oob = design.network("oob")
    if oob is not None:
        others = compute_switches + sum(s.switch_count for s in sized)
        sized.append(size_network(design, oob, catalog, others))
    return tuple(sized)


def checkpoint_seconds(model_state_bytes: float, storage_gbps: float) -> float | None:
    """Time to write one checkpoint: model state / storage bandwidth (None without storage)."""
    if storage_gbps <= 0:
        return None
    return model_state_bytes * 8 / (storage_gbps * 1e9)


__all__ = [
    "ROLE_LABELS",
    "LinkGroup",
    "NetworkSize",
    "SwitchGroup",
    "checkpoint_seconds",
    "server_ports",
    "servers_per_rack",
    "size_network",
    "size_networks",
]


def template_switch_count(design: FabricDesign, catalog: Catalog) -> int:
    """The compute fabric's switches from its closed-form plan, without building the graph (cheap
    enough for the window on every change); manual edits are not counted."""
    from designer.model.topology.derive import plan_only

    resolved, plan = plan_only(design, catalog)
    return resolved.planes * (plan.leaves + plan.pods * plan.spines_per_pod + plan.cores)
