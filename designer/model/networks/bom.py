"""Bill of materials of the cluster's other networks, one section per network.

Each section lists that network's switches, transceivers and cables as line items of the same
kind as the compute fabric's BOM (designer/model/physical/bom.py), whose figures, keys and JSON
stay as they are; `cluster_bom_json` adds the sections and a cluster total beside them.

Media are chosen by a stated rule (a heuristic): links between racks run optics (a transceiver at
each end and a multimode fiber); the two leaves of a pair sit side by side and their peer link is
one copper cable; 1GbE management ports take an RJ45 patch cable.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from designer.catalog import Catalog
from designer.model.intent.design import FabricDesign
from designer.model.networks.sizing import LinkGroup, NetworkSize, size_networks
from designer.model.physical.bom import (
    CATEGORIES,
    ILLUSTRATIVE,
    UNPRICED_NOTE,
    Bom,
    ItemTotals,
    LineItem,
)
from designer.model.physical.prices import PriceBook

# Transceiver per link speed: a catalog part where the catalog has one, else a generic part.
_OPTICS: dict[int, str] = {400: "qsfp112-400g-sr4", 200: "optic-200g-sr4", 100: "optic-100g-sr4",
                           800: "optic-800g-sr8"}
MEDIA_RULE = ("media by a stated rule (heuristic): links between racks run optics (a transceiver each "
              "end and an MPO fiber), leaf peer links one copper cable, 1GbE ports an RJ45 patch cable")


@dataclass(frozen=True)
class NetworkBom(ItemTotals):
    size: NetworkSize
    items: tuple[LineItem, ...]

    @property
    def unpriced_parts(self) -> list[str]:
        return sorted({i.part_number or i.description for i in self.items
                       if i.unit_price == 0 and UNPRICED_NOTE in i.notes})

    def counts_by_category(self) -> dict[str, int]:
        out = {c: 0 for c in CATEGORIES}
        for item in self.items:
            out[item.category] += item.quantity
        return out

    def to_json(self) -> dict[str, object]:
        s = self.size
        return {
            "role": s.role, "name": s.label, "template": s.template, "technology": s.technology,
            "switches": [asdict(g) for g in s.switches],
            "links": [asdict(g) for g in s.links],
            "oversubscription": s.oversubscription,
            "storage_ports": s.storage_ports, "storage_gbps": s.storage_gbps,
            "items": [i.to_json() for i in self.items],
            "total_cost": self.total_cost, "total_power_w": self.total_power_w,
            "counts_by_category": self.counts_by_category(),
            "unpriced_parts": self.unpriced_parts,
            "notes": list(s.notes) + [MEDIA_RULE], "errors": list(s.errors),
            "carried_by": s.carried_by, "shared_ports": s.shared_ports, "shared_gbps": s.shared_gbps,
        }


def _price(book: PriceBook, key: str) -> tuple[float, str]:
    price = book.get(key)
    if price is None:
        return 0.0, f"{UNPRICED_NOTE}: add '{key}' to your price book"
    if price.illustrative:
        return price.unit_price, f"price: {ILLUSTRATIVE}"
    return price.unit_price, f"price from {price.origin}" if price.origin else ""


def _line(category: str, part: str, description: str, qty: int, unit: float, power: float,
          notes: list[str], key: str) -> LineItem:
    kept = [n for n in notes if n]
    if not part:
        kept.insert(0, "ordering number not confirmed")
    return LineItem(category, part, description, int(qty), round(unit, 2), round(unit * qty, 2),
                    round(power, 3), round(power * qty, 2), "; ".join(kept), key)


def _optic(catalog: Catalog, gbps: int) -> tuple[str, str, str, float, str]:
    """(key, part number, description, power W, power note) of the transceiver for one end."""
    key = _OPTICS.get(gbps, f"optic-{gbps}g")
    entry = catalog.transceivers.get(key)
    if entry is not None:
        return key, entry.part_number, entry.name, entry.power_w, ""
    return key, "", f"{gbps}G short-reach transceiver (generic)", 0.0, "power not stated in the catalog"


def network_bom(size: NetworkSize, catalog: Catalog, book: PriceBook) -> NetworkBom:
    items: list[LineItem] = []
    by_switch: dict[str, list[tuple[str, int]]] = {}
    for group in size.switches:
        if group.count:
            by_switch.setdefault(group.switch, []).append((group.tier, group.count))
    for switch_id, tiers in by_switch.items():
        sw = catalog.switch(switch_id)
        unit, note = _price(book, sw.id)
        power_note = ("power not published here; left out of the totals" if sw.is_estimate("power_w")
                      and not sw.power_w else "power is an estimate (see catalog)" if sw.is_estimate("power_w") else "")
        items.append(_line("Switches", sw.part_number, f"{sw.name} ({sw.radix_label()})",
                           sum(n for _, n in tiers), unit, sw.power_w,
                           [", ".join(f"{n} {t}" for t, n in tiers), "power excludes optics", power_note, note], sw.id))
    optics: dict[int, list[LinkGroup]] = {}
    fibers = peer = copper = 0
    for link in size.links:
        if link.medium == "optic":
            optics.setdefault(link.gbps, []).append(link)
            fibers += link.count
        elif link.medium == "dac":
            peer += link.count
        else:
            copper += link.count
    for gbps, groups in sorted(optics.items()):
        key, part, name, power, power_note = _optic(catalog, gbps)
        unit, note = _price(book, key)
        qty = 2 * sum(g.count for g in groups)
        items.append(_line("Transceivers", part, name, qty, unit, power,
                           [", ".join(f"{g.count} {g.kind} links" for g in groups), "one at each end",
                            power_note, note], key))
    if fibers:
        unit, note = _price(book, "fiber-mpo-patch")
        items.append(_line("Fiber", "", "Multimode MPO patch cord", fibers, unit, 0.0,
                           ["one per optical link; length not planned", note], "fiber-mpo-patch"))
    if peer:
        unit, note = _price(book, "dac-peer-link")
        items.append(_line("Copper cables", "", "Direct-attach copper, leaf peer link", peer, unit, 0.0,
                           ["MLAG peer links between the two leaves of a pair", note], "dac-peer-link"))
    if copper:
        unit, note = _price(book, "cat6-patch")
        items.append(_line("Copper cables", "", "Cat6 RJ45 patch cable", copper, unit, 0.0,
                           ["1GbE management ports", note], "cat6-patch"))
    return NetworkBom(size, tuple(items))


def network_boms(design: FabricDesign, catalog: Catalog, book: PriceBook,
                 compute_switches: int) -> tuple[NetworkBom, ...]:
    return tuple(network_bom(s, catalog, book) for s in size_networks(design, catalog, compute_switches))


def compute_switch_count(bom: Bom) -> int:
    return sum(i.quantity for i in bom.by_category("Switches"))


def cluster_bom_json(bom: Bom, sections: tuple[NetworkBom, ...]) -> dict[str, Any]:
    """New keys beside the compute fabric's BOM JSON: one section per network and a cluster total."""
    cost = bom.total_cost + sum(s.total_cost for s in sections)
    power = bom.total_power_w + sum(s.total_power_w for s in sections)
    counts = dict(bom.counts_by_category)
    for section in sections:
        for cat, n in section.counts_by_category().items():
            counts[cat] += n
    return {
        "networks": [s.to_json() for s in sections],
        "cluster_total": {
            "networks": ["compute"] + [s.size.role for s in sections],
            "total_cost": round(cost, 2), "total_power_w": round(power, 2),
            "cost_per_gpu": round(cost / bom.gpus, 2) if bom.gpus else 0.0,
            "counts_by_category": counts,
            "unpriced_parts": sorted(set(bom.unpriced_parts).union(*(s.unpriced_parts for s in sections))),
        },
    }
