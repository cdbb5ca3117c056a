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

import numpy as np

from designer.model.networks.sizing import NetworkSize, SwitchGroup

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


class LinkRun(NamedTuple):
    """Links of one kind in a row, as columns: the writers of a large cluster's networks read
    them a column at a time instead of a tuple per link."""
    a: list[str]
    a_port: list[str]
    b: list[str]
    b_port: list[str]
    gbps: int
    medium: str
    kind: str
    network: str

    def links(self) -> list[NetLink]:
        rest = (self.gbps, self.medium, self.kind, self.network)
        return [NetLink(*ends, *rest) for ends in zip(self.a, self.a_port, self.b, self.b_port, strict=True)]


class _Ports:
    """Port names per device, numbered in the order they are taken."""

    def __init__(self) -> None:
        self.used: dict[str, int] = {}

    def take(self, device: str, stem: str = "port") -> str:
        self.used[device] = n = self.used.get(device, 0) + 1
        return f"{stem}{n}"

    def taken(self, devices: list[str]) -> list[str]:
        """`take` for each device in turn. A long list (36,000 leaf uplinks at 131,072 GPUs) is
        numbered as arrays: each device's count so far, plus the entry's rank among its own."""
        used = self.used
        if len(devices) < 256:
            out = []
            for device in devices:
                used[device] = n = used.get(device, 0) + 1
                out.append(f"port{n}")
            return out
        distinct = list(dict.fromkeys(devices))
        code_of = {device: code for code, device in enumerate(distinct)}
        codes = np.fromiter(map(code_of.__getitem__, devices), dtype=np.int64, count=len(devices))
        before = np.fromiter((used.get(device, 0) for device in distinct), dtype=np.int64, count=len(distinct))
        order = np.argsort(codes, kind="stable")
        counts = np.bincount(codes, minlength=len(distinct))
        starts = np.cumsum(counts) - counts
        number = np.empty(len(devices), dtype=np.int64)
        number[order] = np.arange(len(devices), dtype=np.int64) - np.repeat(starts, counts) + 1
        number += before[codes]
        used.update(zip(distinct, (before + counts).tolist(), strict=True))
        names = np.array([f"port{n}" for n in range(int(number.max()) + 1)], dtype=object)
        out_names: list[str] = names[number].tolist()
        return out_names


def _group(size: NetworkSize, servers: int) -> int:
    """Servers per leaf pair (whole racks), as the sizing chose them."""
    if "servers_per_pair" in size.extra:
        return max(1, int(size.extra["servers_per_pair"]))
    pairs = next((g.count for g in size.switches if g.tier == "leaf"), 0) // 2
    return math.ceil(servers / pairs) if pairs else servers


def expand(size: NetworkSize, servers: int, servers_per_rack: int, server_name: Callable[[int], str],
           other_switches: Sequence[str] = ()) -> tuple[list[NetDevice], list[NetLink]]:
    """The devices and links of one sized network."""
    devices, runs = expand_runs(size, servers, servers_per_rack, server_name, other_switches)
    return devices, [link for run in runs for link in run.links()]


def expand_runs(size: NetworkSize, servers: int, servers_per_rack: int, server_name: Callable[[int], str],
                other_switches: Sequence[str] = ()) -> tuple[list[NetDevice], list[LinkRun]]:
    """The devices of one sized network and its links, in the same order as runs of one kind."""
    if size.errors or size.template in ("merged", "segment"):   # no devices or cables of their own
        return [], []
    if size.template == "per-rack":
        return _expand_oob(size, servers, servers_per_rack, server_name, other_switches)
    return _expand_pairs(size, servers, server_name)


def switch_devices(size: NetworkSize) -> list[NetDevice]:
    """The switches of one sized network, named and ordered as `expand` gives them, without
    their links or endpoints (failing named switches reads only these)."""
    if size.errors or size.template in ("merged", "segment"):
        return []
    if size.template == "per-rack":
        group, racks, per_rack = _rack_switch_group(size)
        return [NetDevice(name, "management", group.switch, "oob")
                for r in range(racks) for name in _rack_switch_names(r, per_rack)]
    return _pair_switches(size)[0]


def _pair_switches(size: NetworkSize) -> tuple[list[NetDevice], list[str], list[str]]:
    """A leaf-pair network's switches (its leaves, storage leaves and spines, in that order), and
    the names of its leaves (storage leaves included) and of its spines."""
    p, net = PREFIX[size.role], size.role
    tiers = {g.tier: g for g in size.switches}
    devices: list[NetDevice] = []
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
    return devices, leaves, spines


def _rack_switch_group(size: NetworkSize) -> tuple[SwitchGroup, int, int]:
    """An out-of-band network's switches in server racks: their group, the racks, and per rack."""
    group = {g.tier: g for g in size.switches}["management (server racks)"]
    racks = max(1, size.racks)
    return group, racks, group.count // racks


def _rack_switch_names(rack: int, per_rack: int) -> list[str]:
    return [f"oob-r{rack + 1:03d}-{k + 1}" for k in range(per_rack)]


def _expand_pairs(size: NetworkSize, servers: int,
                  server_name: Callable[[int], str]) -> tuple[list[NetDevice], list[LinkRun]]:
    p, net = PREFIX[size.role], size.role
    links = {g.kind: g for g in size.links}
    ports = _Ports()
    devices, leaves, spines = _pair_switches(size)
    out: list[LinkRun] = []
    server_links = links["server-leaf"]
    per_server = server_links.count // servers if servers else 0
    per_pair = _group(size, servers)
    pair_leaves = [d.name for d in devices if d.tier == "leaf"]
    server_ports = [f"{net}{k + 1}" for k in range(per_server)]
    names = [server_name(i) for i in range(servers)]
    # each server's ports in turn, port k to the leaf of its pair on side k % 2
    to_leaf = [pair_leaves[2 * (i // per_pair) + k % 2] for i in range(servers) for k in range(per_server)]
    out.append(LinkRun([name for name in names for _ in server_ports], server_ports * servers, to_leaf,
                       ports.taken(to_leaf), server_links.gbps, server_links.medium, "server-leaf", net))
    if "storage-leaf" in links:
        s = links["storage-leaf"]
        storage_leaves = [d.name for d in devices if d.tier == "storage leaf"]
        appliance = f"{p}-storage-appliances"
        devices.append(NetDevice(appliance, "storage appliance", "", net))
        to_storage = [storage_leaves[k % len(storage_leaves)] for k in range(s.count)]
        out.append(LinkRun([appliance] * s.count, [f"port{k + 1}" for k in range(s.count)], to_storage,
                           ports.taken(to_storage), s.gbps, s.medium, "storage-leaf", net))
    if "leaf peer link" in links:
        peer = links["leaf peer link"]
        per_pair = peer.count // max(1, len(leaves) // 2)
        sides = [leaves[k] for k in range(0, len(leaves) - 1, 2) for _ in range(per_pair)]
        others = [leaves[k + 1] for k in range(0, len(leaves) - 1, 2) for _ in range(per_pair)]
        out.append(LinkRun(sides, ports.taken(sides), others, ports.taken(others), peer.gbps, peer.medium,
                           "leaf peer link", net))
    if spines and "leaf-spine" in links:
        up = links["leaf-spine"]
        per_leaf = up.count // len(leaves)
        lower = [leaf for leaf in leaves for _ in range(per_leaf)]
        upper = [spines[turn % len(spines)] for turn in range(len(lower))]   # one round-robin: spines fill evenly
        out.append(LinkRun(lower, ports.taken(lower), upper, ports.taken(upper), up.gbps, up.medium, "leaf-spine",
                           net))
    return devices, [run for run in out if run.a]


def _expand_oob(size: NetworkSize, servers: int, servers_per_rack: int, server_name: Callable[[int], str],
                other_switches: Sequence[str]) -> tuple[list[NetDevice], list[LinkRun]]:
    net = "oob"
    tiers = {g.tier: g for g in size.switches}
    links = {g.kind: g for g in size.links}
    ports = _Ports()
    devices: list[NetDevice] = []
    out: list[LinkRun] = []
    rack_group, racks, per_rack = _rack_switch_group(size)
    bmc = links.get("BMC")
    per_server = bmc.count // servers if bmc and servers else 0
    gbps = bmc.gbps if bmc else 1
    rack_mgmt = links["rack management ports"].count // racks if "rack management ports" in links else 0
    pdus = links["PDU"].count // racks if "PDU" in links else 0
    bmc_ports = ["bmc" if per_server == 1 else f"bmc{k + 1}" for k in range(per_server)]
    # Racks alike in their ends share how those ends spread over the rack's switches and which
    # port each takes (every full rack; the last may hold fewer servers): worked out once each.
    shapes: dict[tuple[int, ...], list[tuple[list[int], list[str]]]] = {}
    for r in range(racks):
        switches = _rack_switch_names(r, per_rack)
        devices += [NetDevice(s, "management", rack_group.switch, net) for s in switches]
        # the rack's ends in order, a run per kind: its BMCs, management ports and PDUs
        bmcs = [server_name(i) for i in range(r * servers_per_rack, min(servers, (r + 1) * servers_per_rack))]
        kinds: list[tuple[str, list[str], list[str]]] = [
            ("BMC", [server for server in bmcs for _ in bmc_ports], bmc_ports * len(bmcs))]
        for kind, tier, named in (
                ("rack management ports", "rack management port",
                 [f"rack-{r + 1:03d}-mgmt-{k + 1}" for k in range(rack_mgmt)]),
                ("PDU", "PDU", [f"rack-{r + 1:03d}-pdu-{'ab'[k] if k < 2 else k + 1}" for k in range(pdus)])):
            devices += [NetDevice(name, tier, "", net) for name in named]
            kinds.append((kind, named, ["mgmt"] * len(named)))
        shape = tuple(len(devices_of) for _, devices_of, _ in kinds)
        if shape not in shapes:
            shapes[shape] = _rack_spread(shape, len(switches))
        for (kind, devices_of, port_of), (to, taken) in zip(kinds, shapes[shape], strict=True):
            if devices_of:
                out.append(LinkRun(devices_of, port_of, [switches[j] for j in to], list(taken), gbps, "copper",
                                   kind, net))
    network_group = tiers.get("management (network racks)")
    if network_group and other_switches:
        names = [f"oob-net-{k + 1:02d}" for k in range(network_group.count)]
        devices += [NetDevice(s, "management", network_group.switch, net) for s in names]
        managed = list(other_switches)
        to_switch = [names[k * len(names) // len(managed)] for k in range(len(managed))]
        out.append(LinkRun(managed, ["mgmt0"] * len(managed), to_switch, ports.taken(to_switch), gbps, "copper",
                           "switch management", net))
    return devices, out


def _rack_spread(ends: tuple[int, ...], switches: int) -> list[tuple[list[int], list[str]]]:
    """For a rack's runs of `ends` ends in turn, spread in order over its `switches` switches:
    each end's switch (by index) and the port it takes there (numbered per switch in turn)."""
    total = sum(ends)
    used = [0] * switches
    out: list[tuple[list[int], list[str]]] = []
    first = 0
    for count in ends:
        to = [k * switches // total for k in range(first, first + count)]
        first += count
        taken = []
        for j in to:
            used[j] += 1
            taken.append(f"port{used[j]}")
        out.append((to, taken))
    return out
