"""Fixture generator: the LLDP tables a design's switches would report, as `lldpctl -f json`
inside {hostname, data} records (the layout collection tools such as suzieq store).

Every switch reports each of its ports: the neighbour's chassis name, its system description
(naming the switch model as Cumulus does: "... running on Mellanox MSN5600"), its capabilities
(Bridge and Router for switches, Station for servers), its port and the operational MAU type of
that port, from which the reader takes the rate. Servers report nothing (no lldpd on them).
"""

from __future__ import annotations

import json

from designer.model.topology.derive import Derived

_MAU = {100: "100GbaseCR4", 200: "200GbaseCR4", 400: "400GbaseCR8", 800: "800GbaseCR8"}


def _port_name(g, node: str, port: int) -> str:
    return f"eth{g.nodes[node]['port']}" if g.nodes[node]["role"] == "nic" else f"swp{port}"


def _chassis(g, node: str, model: dict) -> tuple[str, str, list]:
    d = g.nodes[node]
    if d["role"] == "nic":
        return node.split(".nic-")[0], "Ubuntu 22.04.4 LTS Linux 5.15.0-101-generic", [
            {"type": "Station", "enabled": True}]
    return node, f"Cumulus Linux version 5.9.1 running on Mellanox M{model[d['role']]}", [
        {"type": "Bridge", "enabled": True}, {"type": "Router", "enabled": True}]


def lldp_capture(derived: Derived, degrade: dict[tuple[str, str], int] | None = None) -> str:
    """The capture as text. `degrade` maps (lower, upper) design node pairs to the rate their
    first link runs at instead of the designed one."""
    g = derived.graph
    r = derived.resolved
    model = {t: sw.name.split()[-1].upper() for t, sw in
             (("leaf", r.leaf_switch), ("spine", r.spine_switch), ("core", r.core_switch))}
    degrade = dict(degrade or {})
    slow = {}
    for u, v, k, d in g.edges(keys=True, data=True):
        pair = (d["a"], v if d["a"] == u else u)
        if pair in degrade:
            slow[(u, v, k)] = degrade.pop(pair)
    records = []
    for node in sorted(n for n in g if g.nodes[n]["role"] != "nic"):
        interfaces = []
        for u, v, k, d in sorted(g.edges(node, keys=True, data=True), key=lambda e: e[3]["pa"] if e[3]["a"] == node else e[3]["pb"]):
            peer = v if u == node else u
            own, other = (d["pa"], d["pb"]) if d["a"] == node else (d["pb"], d["pa"])
            gbps = slow.get((u, v, k), slow.get((v, u, k), d["gbps"]))
            name, descr, caps = _chassis(g, peer, model)
            interfaces.append({f"swp{own}": {
                "via": "LLDP",
                "chassis": {name: {"id": {"type": "mac", "value": "00:00:00:00:00:00"}, "descr": descr,
                                   "capability": caps}},
                "port": {"id": {"type": "ifname", "value": _port_name(g, peer, other)},
                         "auto-negotiation": {"supported": True, "enabled": True,
                                              "current": f"{_MAU.get(gbps, f'{gbps}GbaseR')} - {gbps}G link"}},
            }})
        records.append({"hostname": node, "cmd": "sudo lldpctl -f json", "devtype": "cumulus",
                        "data": json.dumps({"lldp": {"interface": interfaces}})})
    return json.dumps(records, indent=1)
