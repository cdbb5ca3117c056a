"""Inference: recover the intended design from a fabric as built.

Tiers come from distance to the endpoints (switches with hosts are leaves, switches above them
spines, then cores). Servers come from HCA descriptions (`host mlx5_N`) or, in LLDP captures,
from the host names and port names. Speeds are the most common rate per tier, so a few degraded
links do not change them. The switch model comes from part numbers or device ids (InfiniBand)
or from the system descriptions LLDP neighbours report (Ethernet, then a RoCE technology). The
template, oversubscription and tier sizes are found by sizing candidate designs and keeping the
one with the same switch and link counts as the capture. Every inference carries its
confidence and reason.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from designer.catalog import Catalog, default_catalog
from designer.catalog.device_ids import device_ids
from designer.model.intent.design import ClusterSpec, FabricDesign, FabricSpec, Meta, TierSpec
from designer.model.topology import closed_form
from designer.model.topology.asbuilt import AsBuilt, natural_key
from designer.model.topology.builders import leaf_assignment
from designer.model.topology.derive import Derived, derive, plan_only

ROLES = ("leaf", "spine", "core")


@dataclass(frozen=True)
class Inferred:
    subject: str
    value: str
    confidence: str          # "high", "medium" or "low"
    why: str


@dataclass
class Inference:
    design: FabricDesign | None
    derived: Derived | None
    roles: dict[str, str]                 # as-built device id -> leaf/spine/core/nic/aggregation/isolated
    mapping: dict[str, str] = field(default_factory=dict)   # as-built device id -> design node id
    facts: list[Inferred] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    exact: bool = False                   # the design's counts equal the capture's

    def to_json(self) -> dict:
        d = self.design
        return {
            "template": d.fabric.template if d else None,
            "exact_counts": self.exact,
            "facts": [dataclasses.asdict(f) for f in self.facts],
            "problems": list(self.problems),
        }


def _mode(values, default=0):
    counts = Counter(values)
    return counts.most_common(1)[0][0] if counts else default


def assign_roles(fabric: AsBuilt) -> dict[str, str]:
    adj: dict[str, set[str]] = defaultdict(set)
    for link in fabric.links:
        if link.a != link.b:
            adj[link.a].add(link.b)
            adj[link.b].add(link.a)
    roles: dict[str, str] = {}
    level: dict[str, int] = {}
    frontier = []
    for dev in fabric.devices.values():
        if dev.kind == "host":
            roles[dev.id] = "aggregation" if dev.aggregation else "nic"
            if not dev.aggregation:
                level[dev.id] = 0
                frontier.append(dev.id)
    depth = 0
    while frontier and depth < 3:
        depth += 1
        nxt = []
        for n in frontier:
            for m in adj[n]:
                if m not in level and fabric.devices[m].kind == "switch":
                    level[m] = depth
                    nxt.append(m)
        frontier = nxt
    for dev in fabric.switches():
        roles[dev.id] = ROLES[level[dev.id] - 1] if dev.id in level else "isolated"
    return roles


def infer_design(fabric: AsBuilt, catalog: Catalog | None = None, name: str = "As built") -> Inference:
    catalog = catalog or default_catalog()
    roles = assign_roles(fabric)
    inf = Inference(None, None, roles)
    facts = inf.facts
    devs = fabric.devices
    nics = [d for d in fabric.endpoints()]
    family = fabric.family
    if not nics or not any(roles[d.id] == "leaf" for d in devs.values()):
        inf.problems.append("the capture holds no host connected to a switch: there is no fabric to infer")
        return inf
    by_tier = {r: [d for d in devs.values() if roles[d.id] == r] for r in ROLES}
    tiers = 3 if by_tier["core"] else 2 if by_tier["spine"] else 1
    facts.append(Inferred("tiers", str(tiers), "high", "switch distance from the hosts: "
                          + ", ".join(f"{len(by_tier[r])} {r}" for r in ROLES if by_tier[r])))

    named = [d for d in nics if d.host]
    hosts = defaultdict(list)
    for d in named:
        hosts[d.host].append(d)
    ports = _mode(len(v) for v in hosts.values()) if hosts else 1
    # Default-named HCAs first fill the hosts that lack one, then make up whole servers.
    servers = max(len(hosts), (len(nics) + ports - 1) // ports)
    nic_word = "NIC ports" if family == "ethernet" else "HCAs"
    why = f"{len(hosts)} host names with {ports} {nic_word} each most often"
    if len(named) < len(nics):
        why += f"; {len(nics) - len(named)} default-named HCAs counted as {ports} per server"
    facts.append(Inferred("servers", str(servers), "high" if len(named) == len(nics) else "medium", why))

    host_links = [wire for wire in fabric.links if roles.get(wire.a) == "nic" or roles.get(wire.b) == "nic"]
    up_links = [wire for wire in fabric.links
                if {roles.get(wire.a), roles.get(wire.b)} in ({"leaf", "spine"}, {"spine", "core"})]
    # Links of unknown rate (0) say nothing about the designed speed.
    link = int(_mode(wire.gbps for wire in host_links if wire.gbps))
    uplink = int(_mode((wire.gbps for wire in up_links if wire.gbps), link))
    facts.append(Inferred("link speed", f"{link}G hosts, {uplink}G between switches", "high",
                          "most common rate per tier; slower links are reported as degraded"))

    if family == "ethernet":
        switch_id, conf, why, unknown = _ethernet_switch_model(by_tier["leaf"] + by_tier["spine"] + by_tier["core"],
                                                               catalog, max(link, uplink))
        if switch_id and unknown:
            inf.problems.append(f"switch model not recognised: {unknown}; the design assumes {switch_id}")
    else:
        switch_id, conf, why = _switch_model(by_tier["leaf"] + by_tier["spine"], catalog, max(link, uplink))
    facts.append(Inferred("switch model", switch_id or "unknown", conf, why))

    leaf_ids = {d.id for d in by_tier["leaf"]}
    rail_of_leaf = defaultdict(set)
    for wire in host_links:
        nic, leaf = (wire.a, wire.b) if roles.get(wire.a) == "nic" else (wire.b, wire.a)
        if devs[nic].hca >= 0 and leaf in leaf_ids:
            rail_of_leaf[leaf].add(devs[nic].hca)
    # Rail-optimized when nearly every leaf serves one HCA index (a few miswired cables allowed).
    single = sum(1 for v in rail_of_leaf.values() if len(v) == 1)
    rails_clean = ports > 1 and rail_of_leaf and single >= 0.75 * len(rail_of_leaf)
    hosts_per_leaf = Counter()
    for wire in host_links:
        leaf = wire.b if roles.get(wire.a) == "nic" else wire.a
        hosts_per_leaf[leaf] += 1
    nodes_per_su = max(hosts_per_leaf.values(), default=1)
    templates = ["rail-optimized"] if rails_clean else []
    templates += ["fat-tree", "leaf-spine"] if tiers == 3 else ["leaf-spine", "fat-tree"]
    if rails_clean:
        facts.append(Inferred("rails", str(ports), "high" if single == len(rail_of_leaf) else "medium",
                              f"{single} of {len(rail_of_leaf)} leaves serve one "
                              + ("port name (ethN) only" if family == "ethernet" else "HCA index (mlx5_N) only")))
        facts.append(Inferred("nodes per SU", str(nodes_per_su), "medium", "most hosts on one leaf"))

    if not link:
        inf.problems.append("the capture reports no link rates (LLDP neighbours without a MAU type, or a CSV "
                            "without speeds); the capture is audited on its own, without a design")
        return inf
    if switch_id is None:
        inf.problems.append(f"no catalog switch runs {link}G host links and {uplink}G uplinks; "
                            "the capture is audited on its own, without a design")
        return inf
    server = _server(catalog, ports, link)
    observed = (len(by_tier["leaf"]), len(by_tier["spine"]), len(by_tier["core"]),
                len(host_links), len([wire for wire in up_links if "leaf" in (roles.get(wire.a), roles.get(wire.b))]),
                len([wire for wire in up_links if "core" in (roles.get(wire.a), roles.get(wire.b))]))
    leaf_up = Counter()
    for wire in up_links:
        for end in (wire.a, wire.b):
            if roles.get(end) == "leaf":
                leaf_up[end] += 1
    up = _mode(leaf_up.values(), 1)
    seen_spread = sorted(hosts_per_leaf.get(d.id, 0) for d in by_tier["leaf"])
    ratio = round(nodes_per_su * link / (up * uplink), 3) if up else 1.0
    ratios = sorted({1.0, ratio, 1.5, 2.0, 3.0, 4.0}, key=lambda x: abs(x - ratio))
    scored = []              # (score, SU size off, order, candidate, template, ratio)
    for template in templates:
        for r, nps, counts in [(ratio, n, c) for ratio in ratios for c in (False, True)
                               for n in dict.fromkeys((nodes_per_su, int(up * ratio * uplink // link) or 1))]:
            # Sizing alone gives a candidate's counts; only the one kept is derived in full.
            try:
                cand = _candidate(name, server, ports, link, uplink, switch_id, template, tiers, nps,
                                  r, servers, counts, by_tier, family)
                resolved, plan = plan_only(cand, catalog)
            except (ValueError, KeyError):
                continue
            score = sum(abs(a - b) for a, b in zip(_planned_counts(resolved, plan), observed, strict=True))
            # Equal counts can come from another SU size (uplinks rounded up to spread evenly over
            # fewer spines): the SU size seen on the leaves breaks the tie.
            su_off = abs(plan.rail_su_size - nodes_per_su) if template == "rail-optimized" else 0
            # Equal counts can also come from another ratio that reserves more down ports per leaf
            # and so spreads the hosts differently: the hosts seen per leaf break that tie.
            spread_off = _spread_off(plan, resolved, seen_spread) if score == 0 else 0
            scored.append((score, su_off, spread_off, len(scored), cand, template, r))
            if score == 0 and su_off == 0 and spread_off == 0:
                break
        if scored and scored[-1][:3] == (0, 0, 0):
            break
    best = None
    for score, _, _, _, cand, template, r in sorted(scored, key=lambda c: c[:4]):
        try:
            best = (score, cand, derive(cand, catalog), template, r)
            break
        except (ValueError, KeyError):
            continue
    if best is None:
        inf.problems.append("no catalog design fits the capture's counts")
        return inf
    score, inf.design, inf.derived, template, r = best
    inf.exact = score == 0
    facts.append(Inferred("template", template, "high" if score == 0 else "low",
                          "the candidate whose switch and link counts equal the capture's" if score == 0 else
                          f"closest candidate; {score} switches or links differ from the capture"))
    facts.append(Inferred("leaf oversubscription", f"{r:g}:1", "medium",
                          f"{nodes_per_su} host ports and {up} uplinks on most leaves"))
    inf.mapping = map_devices(fabric, roles, inf.derived)
    return inf


def _spread_off(plan, resolved, seen: list[int]) -> int:
    """How far the candidate's hosts per leaf (sorted, all planes) are from the capture's."""
    per_leaf = Counter(leaf for leaf, _ in leaf_assignment(plan, resolved.rails))
    planned = sorted([per_leaf.get(i, 0) for i in range(plan.leaves)] * resolved.planes)
    if len(planned) != len(seen):
        return abs(len(planned) - len(seen)) * max(plan.leaf_down, 1)
    return sum(abs(a - b) for a, b in zip(planned, seen, strict=True))


def _planned_counts(resolved, plan) -> tuple[int, ...]:
    """(leaves, spines, cores, host links, leaf-spine links, spine-core links) of a sized design,
    all planes: the counts its metrics report, read off the plan without building anything."""
    p = resolved.planes
    links = closed_form.links_by_tier(plan, resolved)
    return (plan.leaves * p, plan.spines * p, plan.cores * p, links.get("node-leaf", 0),
            links.get("leaf-spine", 0), links.get("spine-core", 0))


def _switch_model(switches, catalog: Catalog, gbps: int):
    parts = Counter(d.part for d in switches if d.part)
    ib = [s for s in catalog.switches.values() if s.family == "infiniband"] if hasattr(catalog, "switches") else []
    for part, n in parts.most_common():
        for s in ib:
            pn = (s.part_number or "").upper()
            if pn and (pn.startswith(part.upper()) or part.upper().startswith(pn[:6])):
                exact = pn.split("-")[0] == part.upper()
                return s.id, "high" if exact else "medium", (
                    f"{n} switch descriptions name part {part}" + ("" if exact else f", nearest catalog part {pn}"))
    # Without a part number, the chip's PCI device id names the switch family.
    ids = device_ids()
    for devid, n in Counter(d.devid for d in switches if d.devid).most_common():
        known = ids.by_devid(devid)
        on_chip = known.catalog if known and known.kind == "switch" else ()
        parts = [c for c in on_chip if c in getattr(catalog, "switches", {})]
        if parts:
            return parts[0], "medium", (f"{n} switches report devid 0x{devid:04x} ({known.name}); catalog parts "
                                        f"on that chip: {', '.join(parts)}")
    fits = [s for s in ib if s.ports_at(gbps)]
    if fits:
        s = max(fits, key=lambda s: s.ports_at(gbps))
        return s.id, "low", f"no known part number in the switch descriptions; the largest {gbps}G catalog switch"
    return None, "low", f"no catalog InfiniBand switch offers {gbps}G ports"


def _server(catalog: Catalog, ports: int, gbps: int) -> ClusterSpec:
    servers = getattr(catalog, "servers", {})
    for sid in ["dgx-h100"] + sorted(servers):
        s = servers.get(sid)
        if s and s.compute_ports == ports and s.port_gbps == gbps:
            return ClusterSpec(server=s.id)
    return ClusterSpec(server="generic-8gpu", ports_per_server=ports, port_gbps=gbps,
                       gpus_per_server=max(1, ports))


def _candidate(name, server, ports, link, uplink, switch_id, template, tiers, nodes_per_su, ratio, servers,
               counts, by_tier, family="infiniband") -> FabricDesign:
    cluster = dataclasses.replace(server, servers=max(1, servers))
    tier = lambda r, over=1.0: TierSpec(count=len(by_tier[r]) if counts and by_tier[r] else None,  # noqa: E731
                                        oversubscription=over)
    fabric = FabricSpec(template=template, technology=_technology(link, uplink, family), switch=switch_id,
                        link_gbps=None, uplink_gbps=uplink if uplink != link else None, tiers=tiers,
                        nodes_per_su=max(1, nodes_per_su),
                        leaf=TierSpec(count=len(by_tier["leaf"]) if counts and template != "rail-optimized" else None,
                                      oversubscription=ratio),
                        spine=tier("spine"), core=tier("core") if tiers == 3 else TierSpec())
    if server.port_gbps is None and link:
        fabric = dataclasses.replace(fabric, link_gbps=None)
    return FabricDesign(meta=Meta(name=name), cluster=cluster, fabric=fabric)


def _technology(gbps: int, uplink: int = 0, family: str = "infiniband") -> str:
    if family == "ethernet":
        return "roce-800g" if gbps == 400 and uplink == 800 else "roce-400g"
    return {800: "ib-xdr", 400: "ib-ndr", 200: "ib-ndr"}.get(gbps, "ib-ndr")


_MODEL = re.compile(r"\b[A-Z]{1,4}\d{3,5}[A-Z]?\b")


def _model_names(switch) -> set[str]:
    """Model names a system description may carry for a catalog switch (SN5600, QM9700)."""
    text = f"{switch.name} {switch.part_number or ''} {switch.id}".upper()
    return set(_MODEL.findall(text))


def _ethernet_switch_model(switches, catalog: Catalog, gbps: int):
    """(catalog id, confidence, why, unrecognised descriptions) from the system descriptions that
    LLDP neighbours report (`... running on Mellanox SN5600`, `HwSku: Mellanox-SN5600-...`)."""
    eth = [s for s in getattr(catalog, "switches", {}).values() if s.family == "ethernet"]
    found, unknown = Counter(), Counter()
    for d in switches:
        text = (d.description or "").upper()
        hits = [s.id for s in eth for m in _model_names(s) if re.search(rf"(?<![A-Z0-9])M?{m}(?![0-9])", text)]
        if hits:
            found[hits[0]] += 1
        else:
            unknown[d.description.strip() or "no system description"] += 1
    named = ", ".join(f"{n} x '{t[:80]}'" for t, n in unknown.most_common(3))
    if found:
        sid, n = found.most_common(1)[0]
        why = f"{n} of {len(switches)} switches describe themselves as {sid} (LLDP system description)"
        why += f"; unrecognised: {named}" if unknown else ""
        return sid, "high" if n == len(switches) else "medium", why, ""
    fits = [s for s in eth if s.ports_at(gbps)]
    if not fits:
        return None, "low", f"no catalog Ethernet switch offers {gbps}G ports; switches report {named}", named
    s = max(fits, key=lambda s: s.ports_at(gbps))
    return s.id, "low", (f"no catalog model in the LLDP system descriptions ({named}); "
                         f"assumed the largest {gbps}G catalog Ethernet switch"), named


def map_devices(fabric: AsBuilt, roles: dict[str, str], derived: Derived) -> dict[str, str]:
    """As-built device id -> design node id: switches by name order per tier, NICs by host name
    order and HCA index; default-named NICs by the leaf port they are plugged into."""
    g = derived.graph
    mapping: dict[str, str] = {}
    devs = fabric.devices
    hosts = sorted({d.host for d in fabric.endpoints() if d.host}, key=natural_key)
    server_of = {h: i for i, h in enumerate(hosts)}
    # HCA indices ranked, so that a server whose compute HCAs are mlx5_0-3 and mlx5_6-9 (the
    # others serve storage) still has NIC ports 1-8.
    rank = {h: i for i, h in enumerate(sorted({d.hca for d in fabric.endpoints() if d.hca >= 0}))}
    # Leaves sort by the first server and HCA they serve (SU, then rail), then by name.
    first_server: dict[str, int] = {}
    rails: dict[str, Counter] = defaultdict(Counter)
    for link in fabric.links:
        for nic, sw in ((link.a, link.b), (link.b, link.a)):
            d = devs.get(nic)
            if d is not None and d.host and roles.get(nic) == "nic":
                first_server[sw] = min(first_server.get(sw, 1 << 30), server_of[d.host])
                rails[sw][rank.get(d.hca, 0)] += 1
    # A miswired cable or two do not move a leaf: its rail is the one most of its hosts use.
    served = {sw: (first_server[sw], rails[sw].most_common(1)[0][0]) for sw in first_server}
    for role in ROLES:
        built = sorted((d for d in devs.values() if roles.get(d.id) == role),
                       key=lambda d: (served.get(d.id, (1 << 30,)), natural_key(d.name)))
        design = sorted((n for n, d in g.nodes(data=True) if d["role"] == role),
                        key=lambda n: (g.nodes[n]["plane"], g.nodes[n]["index"]))
        # A device named as a design device is that device; the rest pair up in name order.
        same = {d.id: d.name for d in built if d.name in g and g.nodes[d.name]["role"] == role}
        mapping.update(same)
        rest = [n for n in design if n not in set(same.values())]
        mapping.update(zip((d.id for d in built if d.id not in same), rest, strict=False))
    for d in fabric.endpoints():
        if d.host and d.hca >= 0:
            nid = f"srv-{server_of[d.host] + 1}.nic-{rank[d.hca] + 1}"
            if nid in g:
                mapping[d.id] = nid
    # Default-named NICs: the designed NIC at the leaf port they use.
    at_port = {}
    for n, leaf, data in g.edges(data=True):
        if data["tier"] == "node-leaf":
            nic, lf = (n, leaf) if g.nodes[n]["role"] == "nic" else (leaf, n)
            at_port[(lf, data["pb"])] = nic
    taken = set(mapping.values())
    for link in fabric.links:
        for nic, sw, port in ((link.a, link.b, link.pb), (link.b, link.a, link.pa)):
            if nic in devs and roles.get(nic) == "nic" and nic not in mapping and sw in mapping:
                target = at_port.get((mapping[sw], port))
                if target and target not in taken:
                    mapping[nic] = target
                    taken.add(target)
    return mapping
