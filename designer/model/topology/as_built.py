"""A fabric as it was built (from a capture), and the design inferred from it.

Importers in designer.io turn a capture (ibnetdiscover, LLDP) into an AsBuilt: switches,
host ports (one per HCA port or NIC) and links with their measured speed. `infer` recovers the
intended design from it: template, tiers, switch model, link speed, servers and GPUs, and for
rail-optimized fabrics the SUs and rails; each inference says how sure it is and why.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import networkx as nx

from designer.catalog import Catalog
from designer.model.intent.design import FabricDesign
from designer.model.topology.presets import new_design


@dataclass(frozen=True)
class Device:
    name: str                 # switch host name, or "<host> <port>" for a host port
    kind: str                 # "switch" or "port"
    description: str = ""
    model: str = ""           # the switch model as reported (MQM9700), if any
    host: str = ""            # for a port: the host it belongs to
    port_index: int = -1      # for a port: mlx5_N -> N
    default_named: bool = False


@dataclass(frozen=True)
class AsBuiltLink:
    a: str
    pa: int
    b: str
    pb: int
    gbps: float
    label: str = ""           # "4xNDR"


@dataclass
class AsBuilt:
    devices: dict[str, Device] = field(default_factory=dict)
    links: list[AsBuiltLink] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    source: str = ""

    def graph(self) -> nx.MultiGraph:
        g = nx.MultiGraph()
        for name, dev in self.devices.items():
            g.add_node(name, kind=dev.kind)
        for link in self.links:
            g.add_edge(link.a, link.b, pa=link.pa, pb=link.pb, gbps=link.gbps)
        return g

    def hosts(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = defaultdict(list)
        for name, dev in self.devices.items():
            if dev.kind == "port":
                out[dev.host].append(name)
        return dict(out)


DEFAULT_HCA = re.compile(r"^(MT\d+|localhost\b|ConnectX)|Mellanox Technologies$", re.I)
SWITCH_DESC = re.compile(r"^MF0;(?P<host>[^:]+):(?P<model>[^/]+)(?:/U\d+)?$")
HOST_PORT = re.compile(r"^(?P<host>\S+)\s+(?:mlx5_|HCA-)(?P<n>\d+)$")


class InferenceError(ValueError):
    """No catalog design fits the capture; `facts` holds what was inferred on the way."""

    def __init__(self, message: str, facts=()):
        super().__init__(message)
        self.facts = tuple(facts)


@dataclass(frozen=True)
class Inference:
    design: FabricDesign
    roles: dict[str, str]                 # device -> "leaf" / "spine" / "core" / "nic"
    facts: tuple[tuple[str, str, str, str], ...]   # (what, value, confidence, why)

    def to_json(self) -> dict:
        return {"template": self.design.fabric.template, "tiers": self.design.fabric.tiers,
                "switch": self.design.fabric.switch, "server": self.design.cluster.server,
                "servers": self.design.cluster.servers, "link_gbps": self.design.fabric.link_gbps,
                "facts": [{"what": w, "value": v, "confidence": c, "why": y} for w, v, c, y in self.facts]}


def roles_of(asb: AsBuilt) -> dict[str, str]:
    """Leaves touch host ports; spines touch leaves; cores are switches above the spines."""
    g = asb.graph()
    roles = {v: "nic" for v, d in asb.devices.items() if d.kind == "port"}
    switches = {v for v, d in asb.devices.items() if d.kind == "switch"}
    leaves = {v for v in switches if any(asb.devices[u].kind == "port" for u in g[v])}
    roles.update({v: "leaf" for v in leaves})
    spines = {v for v in switches - leaves if any(u in leaves for u in g[v])}
    roles.update({v: "spine" for v in spines})
    roles.update({v: "core" for v in switches - leaves - spines})
    return roles


def _switch_model(catalog: Catalog, reported: Counter) -> tuple[str, str, str]:
    """(catalog switch id, confidence, why) from the models the switches report."""
    for model, count in reported.most_common():
        key = model.lower()
        for sw in catalog.switches.values():
            names = {sw.id.lower(), (sw.part_number or "").lower().split("-")[0]} | \
                {w.lower() for w in sw.name.split()}
            if key in names or key.split("-")[0] in names:
                total = sum(reported.values())
                return sw.id, "high" if count == total else "medium", \
                    f"{count} of {total} switches report model {model} ({sw.name})"
    return "", "low", "no switch reports a model the catalog knows"


def infer(asb: AsBuilt, catalog: Catalog) -> Inference:
    """The design the as-built fabric was most likely built from."""
    roles = roles_of(asb)
    facts = []
    hosts = asb.hosts()
    if not hosts:
        raise ValueError(f"{asb.source}: the capture holds no host ports (HCAs or NICs): nothing to infer")
    g = asb.graph()
    speeds = Counter(int(l.gbps) for l in asb.links if roles.get(l.a) == "nic" or roles.get(l.b) == "nic")
    link = speeds.most_common(1)[0][0] if speeds else 0
    facts.append(("link speed", f"{link}G", "high" if len(speeds) == 1 else "medium",
                  f"{speeds[link]} of {sum(speeds.values())} host links run at {link}G"))
    counts = Counter(len(ports) for ports in hosts.values())
    per_host = counts.most_common(1)[0][0]
    facts.append(("ports per server", str(per_host), "high" if len(counts) == 1 else "medium",
                  f"{counts[per_host]} of {len(hosts)} hosts have {per_host} fabric ports"))
    candidates = [s for s in catalog.servers.values() if s.compute_ports == per_host and s.port_gbps == link]
    server = candidates[0] if candidates else None
    facts.append(("server", server.id if server else "unknown", "medium" if server else "low",
                  f"{server.name} has {per_host} x {link}G" if server else
                  f"no catalog server has {per_host} ports at {link}G"))
    reported = Counter(d.model for d in asb.devices.values() if d.kind == "switch" and d.model)
    switch, conf, why = _switch_model(catalog, reported)
    facts.append(("switch model", switch or "unknown", conf, why))
    leaves = [v for v, r in roles.items() if r == "leaf"]
    tiers = 3 if any(r == "core" for r in roles.values()) else 2
    facts.append(("tiers", str(tiers), "high", f"{len(leaves)} leaves, "
                  f"{sum(r == 'spine' for r in roles.values())} spines, "
                  f"{sum(r == 'core' for r in roles.values())} cores by distance from the hosts"))
    leaves_per_host = Counter(len({u for p in ports for u in g[p] if roles.get(u) == "leaf"}) for ports in hosts.values())
    spread = leaves_per_host.most_common(1)[0][0]
    rail = spread > 1 and spread == per_host
    template = "rail-optimized" if rail else ("fat-tree" if tiers == 3 else "leaf-spine")
    facts.append(("template", template, "high" if rail or spread == 1 else "medium",
                  f"each host's {per_host} ports reach {spread} different leaves"
                  + (" (one per rail)" if rail else "")))
    nodes_per_su = 32
    if rail and leaves:
        served = Counter(len({asb.devices[u].host for u in g[leaf] if roles.get(u) == "nic"}) for leaf in leaves)
        nodes_per_su = served.most_common(1)[0][0]
    up = [sum(g.number_of_edges(leaf, u) for u in g[leaf] if roles.get(u) == "spine") for leaf in leaves]
    down = [sum(g.number_of_edges(leaf, u) for u in g[leaf] if roles.get(u) == "nic") for leaf in leaves]
    if not switch or server is None:
        raise InferenceError(f"{asb.source}: no catalog design fits ({why if not switch else facts[2][3]})", facts)
    observed_switches = Counter(r for r in roles.values() if r != "nic")
    observed_links = Counter(tuple(sorted((roles.get(l.a, "?"), roles.get(l.b, "?")))) for l in asb.links)
    observed = sum(down) / sum(up) if up and sum(up) else 1.0
    ratios = sorted({max(1.0, round(observed * 4) / 4), 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0})
    su_sizes = sorted({nodes_per_su, round(sum(up) / len(up)) if up else nodes_per_su, 16, 18, 32, 64, 72} - {0}) \
        if rail else [nodes_per_su]

    def score(candidate) -> int:
        from designer.model.topology.derive import derive

        m = derive(candidate, catalog).metrics
        tiers_of = {"leaf": "leaf", "spine": "spine", "core": "core"}
        miss = sum(abs(m.switches_by_tier.get(t, 0) - observed_switches.get(tiers_of[t], 0)) for t in tiers_of)
        links = {"node-leaf": ("leaf", "nic"), "leaf-spine": ("leaf", "spine"), "spine-core": ("core", "spine")}
        miss += sum(abs(m.links_by_tier.get(k, 0) - observed_links.get(v, 0)) for k, v in links.items())
        return miss

    best = None
    for ratio in ratios:
        for su in su_sizes:
            try:
                candidate = new_design(catalog, template, nodes=len(hosts), server=server.id, switch=switch, speed=link,
                                       oversubscription=ratio, tiers=tiers, nodes_per_su=su,
                                       name=f"As built: {asb.source}")
                s = score(candidate)
            except (ValueError, KeyError):
                continue
            if best is None or s < best[0]:
                best = (s, ratio, su, candidate)
            if s == 0:
                break
        if best and best[0] == 0:
            break
    if best is None:
        raise InferenceError(f"{asb.source}: no design of {len(hosts)} {server.name} on {switch} fits this capture",
                             facts)
    miss, ratio, su, design = best
    facts.append(("oversubscription", f"{ratio:g}:1", "high" if miss == 0 else "low",
                  f"{sum(down)} host links over {sum(up)} uplinks on {len(leaves)} leaves; the design that "
                  + ("reproduces every switch and link count" if miss == 0 else
                     f"comes closest differs by {miss} switches and links")))
    if rail:
        facts.append(("servers per SU", str(su), "high" if miss == 0 else "low", "fits the leaves' counts"))
    return Inference(design, roles, tuple(facts))
