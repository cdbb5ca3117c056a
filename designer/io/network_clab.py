"""The cluster's Ethernet networks beside the compute fabric, as containerlab nodes and links.

Added to the compute fabric's lab for the whole-fabric view: the switches of every Ethernet
network (converged, in-band, customer) of the chosen profile, their peer links and leaf-spine
links, and with --clab-servers the servers' ports of each role (numbered after their compute
NIC ports). InfiniBand networks cannot be emulated and out-of-band management is containerlab's
own management network: both are left out, and the lab says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from designer.io.export_source import ExportSource, safe_id
from designer.io.network_netbox import network_inventory

Endpoint = tuple[str, int, bool]     # (node, port number, whether the node is a switch)


@dataclass
class NetworkLab:
    comments: list[str] = field(default_factory=list)
    switches: list[tuple[str, str, str, str]] = field(default_factory=list)   # name, role, model, network
    links: list[tuple[Endpoint, Endpoint]] = field(default_factory=list)


def network_lab(src: ExportSource) -> NetworkLab:
    """The other networks' switches and links; a switch port is its design port number, a server
    port its NIC number (after the compute NIC ports)."""
    if not src.design.networks or src.members is not None:
        return NetworkLab()
    catalog = src.catalog
    devices, links = network_inventory(src)
    emulated = {d.network for d in devices
                if d.switch and d.network != "oob" and catalog.switch(d.switch).family == "ethernet"}
    segments = sorted(n.role for n in src.design.networks if n.template == "segment")
    left_out = sorted({n.role for n in src.design.networks} - emulated - set(segments))
    lab = NetworkLab()
    if segments:
        lab.comments.append(f"# Segments (VLAN/VRF) riding another network's switches, with none of their own: "
                            f"{', '.join(segments)}.")
    if left_out:
        lab.comments.append(f"# Networks left out of the lab (InfiniBand, or out-of-band management): "
                            f"{', '.join(left_out)}.")
    switch_names = {d.name for d in devices if d.switch and d.network in emulated}
    lab.switches = [(safe_id(d.name), d.tier, d.switch, d.network) for d in devices if d.name in switch_names]
    first_port = src.resolved.ports_per_server
    server_ports: dict[str, int] = {}
    for link in links:
        if link.network not in emulated:
            continue
        ends: list[Endpoint] = []
        for device, port in ((link.a, link.a_port), (link.b, link.b_port)):
            if device in switch_names:
                ends.append((safe_id(device), int(port.removeprefix("port")), True))
            elif src.options.clab_servers:
                server_ports[device] = server_ports.get(device, first_port) + 1
                ends.append((device, server_ports[device], False))
        if len(ends) == 2:
            lab.links.append((ends[0], ends[1]))
    return lab
