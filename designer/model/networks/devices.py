"""Every device and cable of the cluster's other networks, one by one, for the exports.

The sizing (sizing.py) counts them; this expands the counts into named switches and links, with
servers cabled once per role: server i's ports of a role go half to each leaf of its pair, the
pair serving servers in rack order; leaf uplinks are spread round-robin over the spines; each
leaf pair has its peer link; out-of-band switches take their rack's BMCs, other management
ports and PDUs in order, and the network-rack management switches take the management port of
every switch of the cluster.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import NamedTuple

from designer.model.networks.sizing import NetworkSize

PREFIX = {"converged": "conv", "storage": "stor", "inband": "inb", "oob": "oob", "customer": "cust"}


# Named tuples rather than frozen dataclasses: a 131,072-GPU design expands to 174,000 links,
# and a named tuple is made several times faster.
class NetDevice(NamedTuple):
    name: str
    tier: str            # "leaf", "spine", "storage leaf", "management", or an endpoint kind
    switch: str          # catalog id; "" for an endpoint that is not a switch (PDU, appliance)
    network: str         # the network's role


class NetLink(NamedTuple):
    a: str
    a_port: str
    b: str
    b_port: str
    gbps: int
    medium: str
    kind: str
    network: str


class _Ports:
    """Port names per device, numbered in the order they are taken."""

    def __init__(self) -> None:
        self.used: dict[str, int] = {}

    def take(self, device: str, stem: str = "port") -> str:
        self.used[device] = n = self.used.get(device, 0) + 1
        return f"{stem}{n}"


def _group(size: NetworkSize, servers: int) -> int:
    """Servers per leaf pair (whole racks), as the sizing chose them."""
    if "servers_per_pair" in size.extra:
        return max(1, int(size.extra["servers_per_pair"]))
    pairs = next((g.count for g in size.switches if g.tier == "leaf"), 0) // 2
    return math.ceil(servers / pairs) if pairs else servers


def expand(size: NetworkSize, servers: int, servers_per_rack: int, server_name: Callable[[int], str],
           other_switches: Sequence[str] = ()) -> tuple[list[NetDevice], list[NetLink]]:
    """The devices and links of one sized network."""
    if size.errors or size.template in ("merged", "segment"):   # no devices or cables of their own
        return [], []
    if size.template == "per-rack":
        return _expand_oob(size, servers, servers_per_rack, server_name, other_switches)
    return _expand_pairs(size, servers, server_name)


def _expand_pairs(size: NetworkSize, servers: int,
                  server_name: Callable[[int], str]) -> tuple[list[NetDevice], list[NetLink]]:
    p, net = PREFIX[size.role], size.role
    tiers = {g.tier: g for g in size.switches}
    links = {g.kind: g for g in size.links}
    ports = _Ports()
    devices: list[NetDevice] = []
    out: list[NetLink] = []
    leaves: list[str] = []
    for tier, stem in (("leaf", "leaf"), ("storage leaf", "sleaf")):
        group = tiers.get(tier)
        for k in range(group.count if group else 0):
            name = f"{p}-{stem}-{k // 2 + 1:02d}{'ab'[k % 2]}"
            devices.append(NetDevice(name, tier, group.switch if group else "", net))
            leaves.append(name)
    spine = tiers.get("spine")
    spines = [f"{p}-spine-{k + 1:02d}" for k in range(spine.count if spine else 0)]
    devices += [NetDevice(s, "spine", spine.switch if spine else "", net) for s in spines]
    server_links = links["server-leaf"]
    per_server = server_links.count // servers if servers else 0
    per_pair = _group(size, servers)
    pair_leaves = [d.name for d in devices if d.tier == "leaf"]
    used, gbps, medium = ports.used, server_links.gbps, server_links.medium
    server_ports = [f"{net}{k + 1}" for k in range(per_server)]
    for i in range(servers):
        pair = i // per_pair
        server = server_name(i)
        for k in range(per_server):
            leaf = pair_leaves[2 * pair + k % 2]
            used[leaf] = n = used.get(leaf, 0) + 1   # ports.take(leaf), inlined: one call per server port
            out.append(NetLink(server, server_ports[k], leaf, f"port{n}", gbps, medium, "server-leaf", net))
    if "storage-leaf" in links:
        s = links["storage-leaf"]
        storage_leaves = [d.name for d in devices if d.tier == "storage leaf"]
        appliance = f"{p}-storage-appliances"
        devices.append(NetDevice(appliance, "storage appliance", "", net))
        for k in range(s.count):
            leaf = storage_leaves[k % len(storage_leaves)]
            out.append(NetLink(appliance, f"port{k + 1}", leaf, ports.take(leaf), s.gbps, s.medium, "storage-leaf",
                               net))
    if "leaf peer link" in links:
        peer = links["leaf peer link"]
        per_pair = peer.count // max(1, len(leaves) // 2)
        for k in range(0, len(leaves), 2):
            for _ in range(per_pair):
                a, b = leaves[k], leaves[k + 1]
                out.append(NetLink(a, ports.take(a), b, ports.take(b), peer.gbps, peer.medium, "leaf peer link", net))
    if spines and "leaf-spine" in links:
        up = links["leaf-spine"]
        per_leaf = up.count // len(leaves)
        turn = 0   # one round-robin over every uplink, so the spines fill evenly
        for leaf in leaves:
            for _ in range(per_leaf):
                spine_name = spines[turn % len(spines)]
                turn += 1
                out.append(NetLink(leaf, ports.take(leaf), spine_name, ports.take(spine_name), up.gbps, up.medium,
                                   "leaf-spine", net))
    return devices, out


def _expand_oob(size: NetworkSize, servers: int, servers_per_rack: int, server_name: Callable[[int], str],
                other_switches: Sequence[str]) -> tuple[list[NetDevice], list[NetLink]]:
    net = "oob"
    tiers = {g.tier: g for g in size.switches}
    links = {g.kind: g for g in size.links}
    ports = _Ports()
    devices: list[NetDevice] = []
    out: list[NetLink] = []
    racks = max(1, size.racks)
    rack_group = tiers["management (server racks)"]
    per_rack = rack_group.count // racks
    bmc = links.get("BMC")
    per_server = bmc.count // servers if bmc and servers else 0
    gbps = bmc.gbps if bmc else 1
    rack_mgmt = links["rack management ports"].count // racks if "rack management ports" in links else 0
    pdus = links["PDU"].count // racks if "PDU" in links else 0
    bmc_ports = ["bmc" if per_server == 1 else f"bmc{k + 1}" for k in range(per_server)]
    for r in range(racks):
        switches = [f"oob-r{r + 1:03d}-{k + 1}" for k in range(per_rack)]
        devices += [NetDevice(s, "management", rack_group.switch, net) for s in switches]
        ends: list[tuple[str, str, str]] = []
        for i in range(r * servers_per_rack, min(servers, (r + 1) * servers_per_rack)):
            ends += [(server, bmc_port, "BMC") for server in (server_name(i),) for bmc_port in bmc_ports]
        for k in range(rack_mgmt):
            name = f"rack-{r + 1:03d}-mgmt-{k + 1}"
            devices.append(NetDevice(name, "rack management port", "", net))
            ends.append((name, "mgmt", "rack management ports"))
        for k in range(pdus):
            name = f"rack-{r + 1:03d}-pdu-{'ab'[k] if k < 2 else k + 1}"
            devices.append(NetDevice(name, "PDU", "", net))
            ends.append((name, "mgmt", "PDU"))
        used = ports.used
        for k, (device, port, kind) in enumerate(ends):
            switch = switches[k * len(switches) // len(ends)] if ends else switches[0]
            used[switch] = n = used.get(switch, 0) + 1   # ports.take(switch), inlined
            out.append(NetLink(device, port, switch, f"port{n}", gbps, "copper", kind, net))
    network_group = tiers.get("management (network racks)")
    if network_group and other_switches:
        names = [f"oob-net-{k + 1:02d}" for k in range(network_group.count)]
        devices += [NetDevice(s, "management", network_group.switch, net) for s in names]
        for k, device in enumerate(other_switches):
            switch = names[k * len(names) // len(other_switches)]
            out.append(NetLink(device, "mgmt0", switch, ports.take(switch), gbps, "copper", "switch management", net))
    return devices, out
