"""The arrangements of a cluster's networks, priced side by side: capex and power of each.

- as designed: the design's own networks;
- hybrid: the design's compute fabric (InfiniBand where it is) and one converged Ethernet network
  for storage, in-band and customer traffic, plus out-of-band management;
- all-Ethernet: the compute fabric's Ethernet counterpart (designer/model/decisions/counterpart.py)
  and the same converged Ethernet network;
- merged: as the Enterprise RAs do at small design points, the converged ports ride on an Ethernet
  compute fabric (leaf-spine), whose ports per server grow by the converged ports; out-of-band
  stays its own network.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from designer.catalog import Catalog
from designer.limits import InputError
from designer.model.decisions.counterpart import make_counterpart
from designer.model.intent.design import FabricDesign
from designer.model.intent.networks import NetworkSpec
from designer.model.networks.bom import compute_switch_count, network_boms
from designer.model.networks.defaults import ARRANGEMENT_LABELS, OOB, converged_networks, inband_segment
from designer.model.physical.bom import build_bom
from designer.model.physical.prices import PriceBook
from designer.model.topology.derive import derive
from designer.model.topology.sizing import SizingError

ETHERNET = "roce-400g"


@dataclass(frozen=True)
class Arrangement:
    key: str
    label: str
    compute_cost: float = 0.0
    compute_power_w: float = 0.0
    networks_cost: float = 0.0
    networks_power_w: float = 0.0
    switches: int = 0
    notes: tuple[str, ...] = ()
    available: bool = True

    @property
    def total_cost(self) -> float:
        return round(self.compute_cost + self.networks_cost, 2)

    @property
    def total_power_w(self) -> float:
        return round(self.compute_power_w + self.networks_power_w, 2)

    def to_json(self) -> dict[str, object]:
        return {"key": self.key, "label": self.label, "available": self.available,
                "compute_cost": self.compute_cost, "compute_power_w": self.compute_power_w,
                "networks_cost": self.networks_cost, "networks_power_w": self.networks_power_w,
                "total_cost": self.total_cost, "total_power_w": self.total_power_w,
                "switches": self.switches, "notes": list(self.notes)}


def price_arrangement(key: str, label: str, design: FabricDesign, catalog: Catalog, book: PriceBook,
                      notes: tuple[str, ...] = (), fabric_of: FabricDesign | None = None) -> Arrangement:
    """`design` priced; `fabric_of`, a design with the same compute fabric (only its other networks
    differ: sizing, metrics and the fabric's bill read none of them), is derived in its place, so
    an arrangement that changes only the networks reuses the fabric already derived."""
    derived = derive(fabric_of if fabric_of is not None else design, catalog)
    if derived.metrics.errors:
        return Arrangement(key, label, notes=notes + (derived.metrics.errors[0].message,), available=False)
    bom = build_bom(derived, catalog, book)
    sections = network_boms(design, catalog, book, compute_switch_count(bom))
    errors = tuple(e for s in sections for e in s.size.errors)
    unpriced = sorted(set(bom.unpriced_parts).union(*(s.unpriced_parts for s in sections)))
    extra = ((f"incomplete: no price for {', '.join(unpriced[:3])}",) if unpriced else ()) + errors
    return Arrangement(key, label, bom.total_cost, bom.total_power_w,
                       round(sum(s.total_cost for s in sections), 2),
                       round(sum(s.total_power_w for s in sections), 2),
                       compute_switch_count(bom) + sum(s.size.switch_count for s in sections),
                       notes + extra, not errors)


def _merged(design: FabricDesign, catalog: Catalog) -> tuple[FabricDesign, tuple[str, ...]]:
    server = catalog.server(design.cluster.server)
    stated = server.ports_for("converged") or server.ports_for("storage")
    if stated is None:
        raise SizingError(f"the server model '{server.id}' states no converged or storage ports")
    eth = design if catalog.technology(design.fabric.technology).family == "ethernet" else \
        make_counterpart(design, ETHERNET, catalog).design
    compute_ports = eth.cluster.ports_per_server or catalog.server(eth.cluster.server).compute_ports
    cluster = dataclasses.replace(eth.cluster, ports_per_server=compute_ports + stated.count)
    fabric = dataclasses.replace(eth.fabric, template="leaf-spine")
    # In-band rides the converged ports, which now sit on the compute fabric: a segment of it.
    nets = (*inband_segment(server, "compute", any_inband=True), OOB)
    merged = dataclasses.replace(eth, cluster=cluster, fabric=fabric, networks=nets)
    return merged, ((f"{stated.count} converged ports per server on the compute fabric's switches, "
                    f"counted at the compute link speed (heuristic; {stated.gbps}G on the server)"),)


def arrangements(design: FabricDesign, catalog: Catalog, book: PriceBook) -> tuple[Arrangement, ...]:
    server = catalog.server(design.cluster.server)
    out = [price_arrangement("design", "as designed", design, catalog, book)]
    converged = converged_networks(server)
    if not converged:
        return tuple(out)
    hybrid = dataclasses.replace(design, networks=converged)
    out.append(price_arrangement("hybrid", ARRANGEMENT_LABELS["hybrid"], hybrid, catalog, book,
                                 (f"compute on {design.fabric.technology}",), fabric_of=design))
    # Each arrangement's design, its notes and the design its compute fabric is (None: its own),
    # built on demand.
    tried: list[tuple[str, Callable[[], tuple[FabricDesign, tuple[str, ...], FabricDesign | None]]]]
    tried = [("ethernet", lambda: _ethernet(design, converged, catalog)),
             ("merged", lambda: (*_merged(design, catalog), None))]
    for key, make in tried:
        try:
            variant, notes, fabric_of = make()
        except (InputError, SizingError, ValueError, KeyError) as exc:
            out.append(Arrangement(key, ARRANGEMENT_LABELS[key], notes=(str(exc),), available=False))
            continue
        out.append(price_arrangement(key, ARRANGEMENT_LABELS[key], variant, catalog, book, notes, fabric_of))
    return tuple(out)


def _ethernet(design: FabricDesign, converged: tuple[NetworkSpec, ...],
              catalog: Catalog) -> tuple[FabricDesign, tuple[str, ...], FabricDesign]:
    """The all-Ethernet arrangement: the counterpart (its fabric derived when it was chosen) with
    the converged networks."""
    counterpart = make_counterpart(design, ETHERNET, catalog).design
    return dataclasses.replace(counterpart, networks=converged), (), counterpart
