"""What one failure does to each of the cluster's other networks, and how often their links fail.

Single failures follow from the templates: a server's ports of a role go to two leaves of a pair,
so a leaf, or one of its server links, halves that role's bandwidth for the servers it serves and
stops nothing (with one port per server, the servers lose the role). A spine takes its share of
the leaf uplinks. An out-of-band switch leaves its rack's BMCs and PDUs unreachable, which stops
no job. Expected failures use the compute fabric's rate table (designer/model/decisions/
interruptions.py, resources/reliability/failure_rates.toml) on this network's counts: estimates,
with the table's own statement of what was measured and what is extrapolated.
"""

from __future__ import annotations

from dataclasses import dataclass

from designer.catalog import Catalog
from designer.model.decisions.interruptions import Expected, Rate, load_rates
from designer.model.intent.networks import ROLE_LABELS
from designer.model.networks.sizing import NetworkSize, size_networks
from designer.model.topology.derive import Derived


@dataclass(frozen=True)
class SingleFailure:
    component: str
    units: int
    effect: str
    stops_jobs: bool

    def to_json(self) -> dict[str, object]:
        return {"component": self.component, "units": self.units, "effect": self.effect,
                "stops_jobs": self.stops_jobs}


@dataclass(frozen=True)
class NetworkResilience:
    size: NetworkSize
    failures: tuple[SingleFailure, ...]
    expected: tuple[Expected, ...]

    def to_json(self) -> dict[str, object]:
        return {"role": self.size.role, "name": self.size.label,
                "single_failures": [f.to_json() for f in self.failures],
                "expected": [e.to_json() for e in self.expected]}


def single_failures(size: NetworkSize, servers: int) -> tuple[SingleFailure, ...]:
    tiers = {g.tier: g for g in size.switches}
    links = {g.kind: g for g in size.links}
    out: list[SingleFailure] = []
    if size.template == "per-rack":
        for tier in ("management (server racks)", "management (network racks)"):
            if tier in tiers:
                out.append(SingleFailure(f"{tier} switch", tiers[tier].count,
                                         "the BMCs, PDUs and management ports it serves are unreachable "
                                         "until it is replaced; running jobs go on", False))
        return tuple(out)
    if size.template == "segment":
        carrier = ROLE_LABELS.get(size.carried_by, size.carried_by)
        return (SingleFailure(f"{carrier} leaf or link", 0,
                              f"as for {carrier}: {size.label.lower()} rides its ports and switches, so it "
                              "shares that network's failures and has none of its own", False),)
    if size.template == "merged":
        return (SingleFailure("compute fabric leaf", 0, "as the compute fabric's own failure model gives it "
                              "(`whatif --n-1`)", True),)
    per_server = links["server-leaf"].count // servers if servers and "server-leaf" in links else 0
    redundant = per_server >= 2
    if "leaf" in tiers:
        served = min(servers, int(size.extra.get("servers_per_pair", servers)))
        out.append(SingleFailure("leaf", tiers["leaf"].count,
                                 (f"up to {served:,} servers keep their port to the other leaf of the pair: "
                                  f"half their {size.label.lower()} bandwidth, no outage") if redundant else
                                 f"up to {served:,} servers lose this network", not redundant))
    if "server-leaf" in links:
        out.append(SingleFailure("server link", links["server-leaf"].count,
                                 "one server runs on its other port, at half bandwidth on this network"
                                 if redundant else "one server loses this network", not redundant))
    if "spine" in tiers:
        spines = tiers["spine"].count
        out.append(SingleFailure("spine", spines, f"leaf uplink bandwidth drops by 1/{spines}; traffic "
                                 "between leaf pairs reroutes over the other spines", False))
    if "storage leaf" in tiers:
        out.append(SingleFailure("storage leaf", tiers["storage leaf"].count,
                                 "its storage appliance ports go dark; the appliances' other ports, on the "
                                 "other leaf of the pair, carry on", False))
    return tuple(out)


def expected_failures(size: NetworkSize, rates: tuple[Rate, ...]) -> tuple[Expected, ...]:
    """This network's share of the rate table's per-unit rates (links, transceivers, switches);
    none for a segment, whose links and switches are its carrier's and counted there."""
    if size.template == "segment":
        return ()
    optical = sum(g.count for g in size.links if g.medium == "optic")
    units = {"links": size.link_count, "transceivers": 2 * optical, "switches": size.switch_count}
    return tuple(Expected(rate, units[rate.applies_to]) for rate in rates if rate.applies_to in units)


def network_resilience(sizes: tuple[NetworkSize, ...], servers: int,
                       rates: tuple[Rate, ...]) -> tuple[NetworkResilience, ...]:
    return tuple(NetworkResilience(s, single_failures(s, servers), expected_failures(s, rates)) for s in sizes)


def design_resilience(derived: Derived, catalog: Catalog,
                      rates: tuple[Rate, ...] | None = None) -> tuple[NetworkResilience, ...]:
    """Every other network of a derived design (none for a compute-only design)."""
    design = derived.design
    if not design.networks:
        return ()
    sizes = size_networks(design, catalog, derived.metrics.switches_total)
    return network_resilience(sizes, design.cluster.servers, rates or load_rates())
