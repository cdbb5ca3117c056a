"""The fabric's headline metrics and findings, as one serialisable record."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from designer.model.common.units import ratio_label
from designer.model.intent.design import FabricDesign
from designer.model.topology import closed_form
from designer.model.topology.sizing import Plan, Resolved, capacity_servers

if TYPE_CHECKING:   # networkx loads only where a graph is built or walked
    import networkx as nx

    from designer.catalog import Server


TIERS = ("leaf", "spine", "core")


@dataclass(frozen=True)
class Finding:
    severity: str          # "error" | "warning" | "info"
    code: str              # stable machine-readable kind, e.g. "ports-beyond-radix"
    message: str
    element: str = ""      # device id or tier name the finding is about


@dataclass(frozen=True)
class TierPorts:
    switches: int
    ports_total: int       # logical ports at the uplink speed, all switches of the tier
    # ports_used / ports_free count in the same unit: a slower port takes its share of a cage
    ports_used: int
    ports_free: int
    oversubscription_worst: float | None
    oversubscription_mean: float | None
    port_gbps: int = 0     # the speed ports are counted at (the tier's uplink speed)


@dataclass(frozen=True)
class Metrics:
    name: str
    template: str
    technology: str
    tiers: int
    planes: int
    servers: int
    gpus: int
    endpoints: int
    rails: int
    link_gbps: int
    uplink_gbps: int
    switches_total: int
    switches_by_tier: dict[str, int]
    switches_by_model: dict[str, int]
    links_total: int
    links_by_tier: dict[str, int]
    ports_by_tier: dict[str, TierPorts]
    bisection_gbps: float
    full_bisection_gbps: float
    bisection_ratio: float
    bisection_method: str  # "closed-form" for templates, "max-flow" for edited graphs
    max_hops: int
    max_hops_same_rail: int
    headroom_gpus: int
    headroom_limit: str
    findings: tuple[Finding, ...] = field(default_factory=tuple)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    @property
    def gbps_per_gpu(self) -> float:
        """Scale-out bandwidth per GPU: every NIC port of every plane at its link speed."""
        return self.endpoints * self.link_gbps / self.gpus if self.gpus else 0.0

    def oversubscription(self, tier: str) -> float | None:
        tp = self.ports_by_tier.get(tier)
        return tp.oversubscription_worst if tp else None

    def to_json(self) -> dict[str, Any]:
        """The documented JSON shape of `fabric-designer metrics --json` (keep key names stable)."""
        return {
            "name": self.name,
            "template": self.template,
            "technology": self.technology,
            "tiers": self.tiers,
            "planes": self.planes,
            "servers": self.servers,
            "gpus": self.gpus,
            "endpoints": self.endpoints,
            "rails": self.rails,
            "link_gbps": self.link_gbps,
            "uplink_gbps": self.uplink_gbps,
            "gbps_per_gpu": self.gbps_per_gpu,
            "switches": {"total": self.switches_total, "by_tier": dict(self.switches_by_tier),
                         "by_model": dict(self.switches_by_model)},
            "links": {"total": self.links_total, "by_tier": dict(self.links_by_tier)},
            "ports": {t: asdict(p) for t, p in self.ports_by_tier.items()},
            "oversubscription": {t: self.oversubscription(t) for t in ("leaf", "spine")},
            "oversubscription_mean": {t: p.oversubscription_mean for t, p in self.ports_by_tier.items()},
            "bisection_gbps": self.bisection_gbps,
            "full_bisection_gbps": self.full_bisection_gbps,
            "bisection_ratio": self.bisection_ratio,
            "bisection_method": self.bisection_method,
            "max_hops": self.max_hops,
            "max_hops_same_rail": self.max_hops_same_rail,
            "headroom": {"gpus": self.headroom_gpus, "limit": self.headroom_limit},
            "findings": [asdict(f) for f in self.findings],
        }


def _port_use_from_graph(g: nx.MultiGraph[str]) -> dict[str, list[tuple[str, int, int, float, float]]]:
    """Per switch: (id, downlinks, uplinks, down Gb/s, up Gb/s), by tier."""
    out: dict[str, list[tuple[str, int, int, float, float]]] = {t: [] for t in TIERS}
    import networkx as nx
    level = nx.get_node_attributes(g, "level")
    for node, data in g.nodes(data=True):
        role = data["role"]
        if role == "nic":
            continue
        mine = level[node]
        dn = up = 0
        dbw = ubw = 0.0
        gbps: float
        for _, nbr, gbps in g.edges(node, data="gbps"):
            if level[nbr] < mine:
                dn += 1
                dbw += gbps
            else:
                up += 1
                ubw += gbps
        out[role].append((node, dn, up, dbw, ubw))
    return out


def _port_use_from_plan(plan: Plan, r: Resolved) -> dict[str, list[tuple[str, int, int, float, float]]]:
    out: dict[str, list[tuple[str, int, int, float, float]]] = {t: [] for t in TIERS}
    per_plane = closed_form.ports_per_switch(plan, r)
    # each switch's figures are the same on every plane: worked out once, named plane by plane
    figures = {tier: [(dn, up, dn * (r.link_gbps if tier == "leaf" else r.uplink_gbps), up * r.uplink_gbps)
                      for dn, up in rows] for tier, rows in per_plane.items()}
    for plane in range(r.planes):
        pre = f"p{plane + 1}." if r.planes > 1 else ""
        for tier, rows in figures.items():
            out[tier].extend((f"{pre}{tier}-{i}", *row) for i, row in enumerate(rows, 1))
    return out


@dataclass(frozen=True)
class EditedFabric:
    """What an edited fabric's metrics are read from, however it was measured (see `assemble`)."""

    use: dict[str, list[tuple[str, int, int, float, float]]]   # `_port_use_from_graph` rows
    links_by_tier: dict[str, int]
    bisection_gbps: float
    max_hops: tuple[int, int]
    disconnected: list[str]          # endpoints left without a link, in graph order
    problems: tuple[str, ...] = ()   # edits that could not be applied


def measure_graph(g: nx.MultiGraph[str], problems: tuple[str, ...] = ()) -> EditedFabric:
    """An edited fabric measured on its device graph (the reference for faster methods)."""
    from designer.model.topology import graph_metrics  # networkx: only where a graph is measured

    return EditedFabric(
        use=_port_use_from_graph(g),
        links_by_tier=dict(Counter(d["tier"] for _, _, d in g.edges(data=True))),
        bisection_gbps=graph_metrics.bisection_maxflow(g),
        max_hops=graph_metrics.max_hops_graph(g),
        disconnected=[n for n, data in g.nodes(data=True) if data["role"] == "nic" and g.degree(n) == 0],
        problems=problems)


def compute_metrics(design: FabricDesign, r: Resolved, plan: Plan, g: nx.MultiGraph[str] | None,
                    edit_problems: tuple[str, ...] = ()) -> Metrics:
    """Metrics of a design: from the graph when it is edited (g given), else in closed form."""
    return assemble(design, r, plan, measure_graph(g, edit_problems) if g is not None else None)


def assemble(design: FabricDesign, r: Resolved, plan: Plan, edited_fabric: EditedFabric | None) -> Metrics:
    """Metrics from a measured edited fabric, or in closed form from the plan (None)."""
    problems = edited_fabric.problems if edited_fabric is not None else ()
    findings: list[Finding] = [Finding("warning", "edit-not-applied", p) for p in problems]
    use = edited_fabric.use if edited_fabric is not None else _port_use_from_plan(plan, r)
    switch_of = {"leaf": r.leaf_switch, "spine": r.spine_switch, "core": r.core_switch}

    ports_by_tier: dict[str, TierPorts] = {}
    by_model: Counter[str] = Counter()
    for tier in TIERS:
        rows = use[tier]
        if not rows:
            continue
        sw = switch_of[tier]
        by_model[sw.id] += len(rows)
        n_up = sw.ports_at(r.uplink_gbps) or sw.ports_at(sw.max_gbps)
        n_down = sw.ports_at(r.link_gbps if tier == "leaf" else r.uplink_gbps) or n_up
        ratios = []
        used_total = 0
        free_total = 0
        # a tier's switches are alike but for a few (a million GPUs have 160K rows): each
        # distinct row's reading is worked out once
        read: dict[tuple[Any, ...], tuple[int, bool, float | None, bool]] = {}
        for node, dn, up, dbw, ubw in rows:
            reading = read.get((dn, up, dbw, ubw))
            if reading is None:
                fraction = dn / n_down + up / n_up
                # Counted in ports at the uplink speed, so mixed speeds share the same cages: two
                # 400G downlinks take one 800G port's lanes. A switch never uses more than it has.
                counted = bool(tier != "core" and (up or dn))
                reading = read[(dn, up, dbw, ubw)] = (
                    min(n_up, math.ceil(fraction * n_up - 1e-9)), fraction > 1 + 1e-9,
                    dbw / ubw if counted and ubw > 0 else None,
                    counted and not ubw > 0 and ((tier == "leaf" and plan.tiers > 1) or plan.tiers == 3))
            used, beyond_radix, ratio, no_uplinks = reading
            used_total += used
            if beyond_radix:
                findings.append(Finding(
                    "error", "ports-beyond-radix",
                    f"{node} needs {dn + up} ports ({dn} down, {up} up) but {sw.name} has "
                    f"{n_down if n_down == n_up else f'{n_down} at {r.link_gbps}G / {n_up} at {r.uplink_gbps}G'}",
                    node))
            free_total += n_up - used
            if ratio is not None:
                ratios.append(ratio)
            elif no_uplinks:
                findings.append(Finding("error", "no-uplinks", f"{node} has no uplinks", node))
        if (tier == "spine" and plan.tiers == 2) or (tier == "leaf" and plan.tiers == 1):
            ratios = [1.0] * len(rows)  # the top tier has no uplinks to oversubscribe
        worst = max(ratios) if ratios else None
        mean = sum(ratios) / len(ratios) if ratios else None
        unit = r.uplink_gbps if sw.ports_at(r.uplink_gbps) else sw.max_gbps
        ports_by_tier[tier] = TierPorts(len(rows), n_up * len(rows), used_total, free_total, worst, mean, unit)
        target = design.fabric.tier(tier).oversubscription if tier != "core" else 1.0
        if worst is not None and worst > target * 1.001 and tier != "core":
            findings.append(Finding("warning", "oversubscription-above-target",
                                    f"{tier} oversubscription reaches {ratio_label(worst)}, above the "
                                    f"{target:g}:1 target", tier))

    findings.extend(_structural_findings(design, r, plan,
                                         edited_fabric.disconnected if edited_fabric is not None else ()))
    if edited_fabric is not None:
        links_by_tier = dict(edited_fabric.links_by_tier)
        bisection = edited_fabric.bisection_gbps
        hops, hops_rail = edited_fabric.max_hops
        method = "max-flow"
    else:
        links_by_tier = closed_form.links_by_tier(plan, r)
        bisection = closed_form.bisection_gbps(plan, r)
        hops, hops_rail = closed_form.max_hops(plan)
        method = "closed-form"
    # With fewer than two endpoints in a plane (one server on a rail-only fabric: a rail of one
    # port) there is no pair to cut apart, so nothing is short of full (ratio 1).
    full = closed_form.full_bisection_gbps(plan, r)
    gpus = design.cluster.servers * r.gpus_per_server
    capacity = capacity_servers(design, r, plan.tiers) * r.gpus_per_server
    limit = ("another tier" if plan.tiers < 3 else "a larger switch or another plane")
    return Metrics(
        name=design.meta.name, template=plan.template, technology=r.technology.id, tiers=plan.tiers,
        planes=r.planes, servers=design.cluster.servers, gpus=gpus, endpoints=plan.endpoints * r.planes,
        rails=r.rails, link_gbps=r.link_gbps, uplink_gbps=r.uplink_gbps,
        switches_total=sum(tp.switches for tp in ports_by_tier.values()),
        switches_by_tier={t: (ports_by_tier[t].switches if t in ports_by_tier else 0) for t in TIERS},
        switches_by_model=dict(by_model), links_total=sum(links_by_tier.values()),
        links_by_tier=links_by_tier, ports_by_tier=ports_by_tier, bisection_gbps=bisection,
        full_bisection_gbps=full, bisection_ratio=(bisection / full if full else 1.0),
        bisection_method=method, max_hops=hops, max_hops_same_rail=hops_rail,
        headroom_gpus=max(0, capacity - gpus), headroom_limit=limit, findings=tuple(findings))


def trays_per_rack(server: Server) -> int:
    """Servers (compute trays) per rack-scale NVLink domain, e.g. 18 for GB200 NVL72; 0 otherwise."""
    domain, gpus = server.nvlink_domain_gpus, server.gpus
    if gpus and domain > gpus and domain % gpus == 0:
        return domain // gpus
    return 0


def rack_findings(design: FabricDesign, r: Resolved) -> list[Finding]:
    """A partial rack, or an SU boundary through a rack, of a rack-scale system is a finding:
    the reference architectures build SUs of whole racks (8 NVL72 racks for GB200)."""
    per_rack = trays_per_rack(r.server)
    if not per_rack or design.cluster.gpus_per_server not in (None, r.server.gpus):
        return []
    out: list[Finding] = []
    servers = design.cluster.servers
    domain = r.server.nvlink_domain_gpus
    if servers % per_rack:
        out.append(Finding("warning", "partial-rack",
                           f"{servers} {r.server.name}s are {servers / per_rack:.2f} racks of {per_rack}: "
                           f"the last NVLink domain of {domain} GPUs is partial", "servers"))
    su = design.fabric.nodes_per_su
    if design.fabric.template == "rail-optimized" and su % per_rack:
        out.append(Finding("warning", "split-rack",
                           f"SUs of {su} servers split the {per_rack}-tray racks across SUs; use a "
                           f"multiple of {per_rack} servers per SU", "servers"))
    return out


def _structural_findings(design: FabricDesign, r: Resolved, plan: Plan, disconnected: Sequence[str]) -> list[Finding]:
    out: list[Finding] = []
    out.extend(rack_findings(design, r))
    fam = r.technology.family
    for tier, sw in (("leaf", r.leaf_switch), ("spine", r.spine_switch), ("core", r.core_switch)):
        if tier == "core" and plan.tiers < 3:
            continue
        if sw.family not in (fam, "any"):
            out.append(Finding("error", "technology-mismatch",
                               f"{tier} switch {sw.name} is {sw.family}, the design is {fam}", tier))
    mode = r.nic.mode_for(fam)
    if mode is None:
        out.append(Finding("error", "technology-mismatch",
                           f"NIC {r.nic.name} does not support {fam}", "servers"))
    elif mode.gbps < r.link_gbps:
        out.append(Finding("error", "speed-mismatch",
                           f"NIC {r.nic.name} runs {fam} at {mode.gbps}G, below the {r.link_gbps}G server links",
                           "servers"))
    if r.port_gbps != r.link_gbps:
        out.append(Finding("warning", "speed-mismatch",
                           f"server ports run at {r.port_gbps}G but the leaf links at {r.link_gbps}G", "leaf"))
    if plan.leaf_up and plan.spines_per_pod and plan.leaf_up % plan.spines_per_pod:
        out.append(Finding("warning", "unequal-uplinks",
                           f"{plan.leaf_up} leaf uplinks do not divide evenly over {plan.spines_per_pod} "
                           "spines: some paths carry more links than others", "spine"))
    if plan.tiers == 3 and plan.spine_up % plan.core_groups_size:
        out.append(Finding("warning", "unequal-uplinks",
                           f"{plan.spine_up} spine uplinks do not divide evenly over "
                           f"{plan.core_groups_size} cores", "core"))
    for node in disconnected:
        out.append(Finding("error", "disconnected-endpoint", f"{node} has no link", node))
    if plan.rail_su_size and design.cluster.servers % plan.rail_su_size:
        out.append(Finding("info", "partial-su",
                           f"the last SU holds {design.cluster.servers % plan.rail_su_size} of "
                           f"{plan.rail_su_size} servers", "leaf"))
    return out
