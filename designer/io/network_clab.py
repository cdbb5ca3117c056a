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
from designer.io.markup import yaml_str
from designer.io.network_netbox import network_inventory


@dataclass
class NetworkLab:
    comments: list[str] = field(default_factory=list)
    nodes: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)


def network_lab(src: ExportSource, kind: str, image: str, interface: str) -> NetworkLab:
    if not src.design.networks or src.members is not None:
        return NetworkLab()
    catalog = src.catalog
    devices, links = network_inventory(src)
    emulated = {d.network for d in devices
                if d.switch and d.network != "oob" and catalog.switch(d.switch).family == "ethernet"}
    left_out = sorted({n.role for n in src.design.networks} - emulated)
    lab = NetworkLab()
    if left_out:
        lab.comments.append(f"# Networks left out of the lab (InfiniBand, or out-of-band management): "
                            f"{', '.join(left_out)}.")
    switch_names = {d.name for d in devices if d.switch and d.network in emulated}
    for d in devices:
        if d.name in switch_names:
            lab.nodes += [f"    {yaml_str(safe_id(d.name))}:", f"      kind: {yaml_str(kind)}",
                          f"      image: {yaml_str(image)}",
                          (f"      labels: {{role: {yaml_str(d.tier)}, model: {yaml_str(d.switch)}, "
                          f"network: {yaml_str(d.network)}}}")]
    first_port = src.resolved.ports_per_server
    server_ports: dict[str, int] = {}
    for link in links:
        if link.network not in emulated:
            continue
        ends = []
        for device, port in ((link.a, link.a_port), (link.b, link.b_port)):
            if device in switch_names:
                ends.append(f"{safe_id(device)}:{interface}{port.removeprefix('port')}")
            elif src.options.clab_servers:
                server_ports[device] = server_ports.get(device, first_port) + 1
                ends.append(f"{device}:eth{server_ports[device]}")
        if len(ends) == 2:
            lab.links.append(f"    - endpoints: [{yaml_str(ends[0])}, {yaml_str(ends[1])}]")
    return lab
