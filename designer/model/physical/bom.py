"""Bill of materials: every switch, NIC, transceiver and cable of a design, priced and powered.

Counts come from the physical layer (designer/model/physical/media.py), which walks the device graph
once, link by link, so nothing is counted twice: each link has two ends, each end is a port of
a transceiver or a connector of a cable, and a twin-port transceiver is one module for its two
ports. Prices come from a price book (designer/model/physical/prices.py); the built-in one holds
illustrative estimates, and every such price is labelled so, never as a quote.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from designer.catalog import Catalog, default_catalog
from designer.catalog.entries import Switch, _Entry
from designer.model.physical.closed_form_bom import PhysicalCounts
from designer.model.physical.edited_bom import physical_counts
from designer.model.physical.media import Physical, physical_layer
from designer.model.physical.orderable_parts import cable_part, module_part
from designer.model.physical.prices import PriceBook, default_prices
from designer.model.topology.metrics import Finding

if TYPE_CHECKING:
    from designer.model.topology.derive import Derived

CATEGORIES = ("Switches", "NICs", "Transceivers", "Copper cables", "Fiber", "Accessories")
ILLUSTRATIVE = "illustrative estimate, not a quote"


UNPRICED_NOTE = "not priced"  # marks a part the price book lacks (not one included with a server)

@dataclass(frozen=True)
class LineItem:
    category: str
    part_number: str
    description: str
    quantity: int
    unit_price: float
    extended_price: float
    unit_power_w: float
    total_power_w: float
    notes: str = ""
    key: str = ""              # catalog id the item comes from (price-book key)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class ItemTotals:
    """Totals of a list of line items: the whole BOM, or one network's."""

    items: tuple[LineItem, ...]

    @property
    def total_cost(self) -> float:
        return round(sum(i.extended_price for i in self.items), 2)

    @property
    def total_power_w(self) -> float:
        return round(sum(i.total_power_w for i in self.items), 2)


@dataclass(frozen=True)
class Bom(ItemTotals):
    name: str
    gpus: int
    currency: str
    items: tuple[LineItem, ...]
    counts: dict[str, Any] = field(default_factory=dict)
    findings: tuple[Finding, ...] = ()
    price_sources: tuple[str, ...] = ()
    illustrative_prices: bool = True

    @property
    def cost_per_gpu(self) -> float:
        return round(self.total_cost / self.gpus, 2) if self.gpus else 0.0

    @property
    def power_per_gpu_w(self) -> float:
        return round(self.total_power_w / self.gpus, 2) if self.gpus else 0.0

    @property
    def counts_by_category(self) -> dict[str, int]:
        out = {c: 0 for c in CATEGORIES}
        for item in self.items:
            out[item.category] += item.quantity
        return out

    @property
    def optics_count(self) -> int:
        """Transceiver modules, both ends."""
        return self.counts_by_category["Transceivers"]

    @property
    def cable_count(self) -> int:
        """Copper cables, active optical cables and fibers."""
        c = self.counts_by_category
        return c["Copper cables"] + c["Fiber"]

    @property
    def unpriced(self) -> list[LineItem]:
        return [i for i in self.items if i.unit_price == 0 and UNPRICED_NOTE in i.notes]

    @property
    def unpriced_parts(self) -> list[str]:
        """The parts the price book lacks, by part number (else description): the totals leave them out."""
        return sorted({i.part_number or i.description for i in self.unpriced})

    @property
    def incomplete(self) -> bool:
        """True when some part has no price, so the cost totals are lower bounds."""
        return bool(self.unpriced)

    def incomplete_note(self) -> str:
        """'' or 'incomplete: no price for A, B' for every cost total."""
        parts = self.unpriced_parts
        if not parts:
            return ""
        shown = ", ".join(parts[:4]) + (f" and {len(parts) - 4} more" if len(parts) > 4 else "")
        return f"incomplete: no price for {shown}"

    def by_category(self, category: str) -> list[LineItem]:
        return [i for i in self.items if i.category == category]

    def to_json(self) -> dict[str, Any]:
        """The documented JSON shape of `fabric-designer bom --json` (keep key names stable)."""
        return {
            "name": self.name,
            "currency": self.currency,
            "prices": ILLUSTRATIVE if self.illustrative_prices else "from the price book",
            "price_sources": list(self.price_sources),
            "gpus": self.gpus,
            "items": [i.to_json() for i in self.items],
            "total_cost": self.total_cost,
            "total_power_w": self.total_power_w,
            "cost_per_gpu": self.cost_per_gpu,
            "power_per_gpu_w": self.power_per_gpu_w,
            "counts_by_category": self.counts_by_category,
            "counts": self.counts,
            "findings": [asdict(f) for f in self.findings],
            "incomplete": self.incomplete,
            "unpriced_parts": self.unpriced_parts,
        }


class _Pricer:
    """Looks prices up and writes the note that says where each one came from."""

    def __init__(self, book: PriceBook) -> None:
        self.book = book
        self.illustrative = False
        self.missing: list[str] = []

    def __call__(self, key: str, length_m: float | None = None) -> tuple[float, str]:
        price = self.book.get(key)
        if price is None:
            self.missing.append(key)
            return 0.0, f"{UNPRICED_NOTE}: add '{key}' to your price book"
        if price.illustrative:
            self.illustrative = True
            basis = f" ({price.basis})" if price.basis else ""
            return price.for_length(length_m), f"price: {ILLUSTRATIVE}{basis}"
        return price.for_length(length_m), f"price from {price.origin}" if price.origin else ""


def _item(category: str, part: str, description: str, qty: int, unit_price: float, unit_power: float,
          notes: list[str], key: str) -> LineItem:
    notes = [n for n in notes if n]
    if not part:
        notes.insert(0, "ordering number not confirmed")
    return LineItem(category, part, description, int(qty), round(unit_price, 2), round(unit_price * qty, 2),
                    round(unit_power, 3), round(unit_power * qty, 2), "; ".join(notes), key)


def _power_note(entry: _Entry, field_name: str = "power_w") -> str:
    if not entry.is_estimate(field_name):
        return ""
    # An estimate of 0 W is no figure at all (a generic module nobody publishes a rating for).
    return "power not published" if not getattr(entry, field_name, 0) else "power is an estimate (see catalog)"


def _switch_items(derived: Derived, catalog: Catalog, price: _Pricer) -> list[LineItem]:
    m, r = derived.metrics, derived.resolved
    tier_model = {"leaf": r.leaf_switch, "spine": r.spine_switch, "core": r.core_switch}
    models: dict[str, list[tuple[str, int]]] = {}
    for tier, n in m.switches_by_tier.items():
        if n:
            models.setdefault(tier_model[tier].id, []).append((tier, n))
    out = []
    for model, tiers in models.items():
        sw = catalog.switch(model)
        qty = sum(n for _, n in tiers)
        spare = sum(m.ports_by_tier[t].ports_free for t, _ in tiers if t in m.ports_by_tier)
        unit, price_note = price(sw.id)
        notes = [", ".join(f"{n} {t}" for t, n in tiers),
                 f"{spare} spare ports at {r.uplink_gbps}G", "power excludes optics", _power_note(sw), price_note]
        description = f"{sw.name} ({sw.radix_label()})"
        out.append(_item("Switches", sw.part_number, description, qty, unit, sw.power_w, notes, sw.id))
    return out


def nic_cards_per_server(derived: Derived) -> int:
    r = derived.resolved
    mode = r.nic.mode_for(r.technology.family, r.port_gbps)
    per_card = mode.ports if mode else 1
    return math.ceil(r.ports_per_server / per_card)


def _nic_items(derived: Derived, catalog: Catalog, price: _Pricer) -> list[LineItem]:
    r = derived.resolved
    qty = derived.design.cluster.servers * nic_cards_per_server(derived)
    host = catalog.host_ports.get(r.server.id)
    if host and host.nics_included and r.nic.id == r.server.compute_nic:
        unit, price_note = 0.0, f"included with the {r.server.name}, so without a separate price"
    else:
        unit, price_note = price(r.nic.id)
    mode = r.nic.mode_for(r.technology.family, r.port_gbps)
    speed = f"{mode.ports} x {mode.gbps}G {r.technology.family}" if mode else r.technology.family
    notes = [f"{nic_cards_per_server(derived)} per server", _power_note(r.nic), price_note]
    return [_item("NICs", r.nic.part_number, f"{r.nic.name} ({speed})", qty, unit, r.nic.power_w, notes, r.nic.id)]


def _transceiver_items(phys: Physical | PhysicalCounts, catalog: Catalog, price: _Pricer) -> list[LineItem]:
    out = []
    for (tid, side), qty in sorted(phys.transceivers.items(), key=lambda kv: (kv[0][1] != "switch", kv[0][0])):
        t = catalog.transceivers[tid]
        unit, price_note = price(tid)
        served = phys.transceiver_ends[(tid, side)]
        # The part for this end's cage: finned-top in a switch, flat-top in a server or adapter.
        part = module_part(t, side)
        notes = [f"twin-port: {qty} modules serve {served} ports" if t.connectors > 1 else "",
                 part.note, _power_note(t), price_note]
        where = "switch side" if side == "switch" else "server side"
        out.append(_item("Transceivers", part.part_number, f"{t.name}, {where}", qty, unit, t.power_w, notes, tid))
    return out


def _cable_items(phys: Physical | PhysicalCounts, catalog: Catalog, price: _Pricer) -> list[LineItem]:
    out = []
    for (cid, length), qty in sorted(phys.cables.items()):
        c = catalog.cables[cid]
        unit, price_note = price(cid, length)
        watts = phys.cable_power_w.get((cid, length), 0.0) / qty if qty else 0.0
        notes = ["custom length" if (cid, length) in phys.custom_lengths else "",
                 "power is an estimate (see catalog)" if c.kind != "fiber" and c.is_estimate("power_w") else "",
                 price_note]
        category = "Copper cables" if c.kind in ("dac", "acc") else "Fiber"
        part = cable_part(c, length)   # the length in the ordering number, where the vendor puts it
        notes.insert(1, part.note)
        out.append(_item(category, part.part_number, f"{c.name}, {length:g} m", qty, unit, watts, notes, cid))
    return out


def switch_models(derived: Derived) -> list[Switch]:
    """The switch models of the design's tiers, each once (leaf, spine, and core where there is one)."""
    r = derived.resolved
    models = {sw.id: sw for sw in (r.leaf_switch, r.spine_switch)}
    if derived.metrics.tiers == 3:
        models[r.core_switch.id] = r.core_switch
    return list(models.values())


def liquid_cooling(derived: Derived, server_racks: int, network_racks: int) -> dict[str, object]:
    """Racks that need liquid cooling, as the catalog marks servers and switches (a rack
    attribute: a GB300 NVL72 rack, a rack of co-packaged-optics switches). Network racks count
    as liquid-cooled when every switch model of the fabric is; `parts` names what is."""
    server = derived.resolved.server
    switches = switch_models(derived)
    cooled = [sw for sw in switches if sw.liquid_cooled]
    parts = ([server.name] if server.liquid_cooled else []) + sorted({sw.name for sw in cooled})
    return {"server_racks": server_racks if server.liquid_cooled else 0,
            "network_racks": network_racks if cooled and len(cooled) == len(switches) else 0,
            "parts": parts}


def build_bom(derived: Derived, catalog: Catalog | None = None, prices: PriceBook | None = None,
              link_by_link: bool = False, physical: PhysicalCounts | None = None) -> Bom:
    """The design's bill of materials, with totals and counts that reconcile with its metrics.

    A template design's counts come in closed form (closed_form_bom.py, equal to the link-by-link
    result), and an edited one's from the template's arrays with its edits replayed
    (edited_bom.py); `link_by_link=True`, or an edit that names a server's NIC, walks every link.
    `physical` holds this design's physical counts when the caller has them already (sizing shares
    them between candidates whose physical layer is the same, fabric_cost.py).
    """
    catalog = catalog or default_catalog()
    price = _Pricer(prices or default_prices())
    counted = None if link_by_link else physical if physical is not None else physical_counts(derived, catalog)
    phys = counted if counted is not None else physical_layer(derived, catalog)
    items = (_switch_items(derived, catalog, price) + _nic_items(derived, catalog, price)
             + _transceiver_items(phys, catalog, price) + _cable_items(phys, catalog, price))
    if phys.layout.network_racks:
        unit, price_note = price("network-rack")
        items.append(_item("Accessories", "", "Network rack for switches (from the floor plan)",
                           phys.layout.network_racks, unit, 0.0, [price_note], "network-rack"))
    items.sort(key=lambda i: CATEGORIES.index(i.category))
    findings = list(phys.findings)
    for key in sorted(set(price.missing)):
        findings.append(Finding("warning", "not-priced", f"no price for '{key}' in the price book", key))
    m = derived.metrics
    sides: Counter[str] = Counter()
    for (_, side), n in phys.transceivers.items():
        sides[side] += n
    counts = {
        "links_by_tier": phys.links_by_tier(),
        "links_total": sum(phys.links_by_tier().values()),
        "switches_by_tier": dict(m.switches_by_tier),
        "switches_total": m.switches_total,
        "nics": sum(i.quantity for i in items if i.category == "NICs"),
        "transceivers": {"switch_side": sides["switch"], "server_side": sides["host"],
                         "total": sides["switch"] + sides["host"]},
        "spare_ports_by_tier": {t: p.ports_free for t, p in m.ports_by_tier.items()},
        "media_by_tier": phys.media_by_tier(),
        "server_racks": phys.layout.server_racks,
        "network_racks": phys.layout.network_racks,
        "liquid_cooled": liquid_cooling(derived, phys.layout.server_racks, phys.layout.network_racks),
        "co_packaged_optics": sorted({sw.name for sw in switch_models(derived) if sw.co_packaged_optics}),
    }
    book = prices or default_prices()
    return Bom(derived.design.meta.name, m.gpus, book.currency, tuple(items), counts, tuple(findings),
               book.sources, price.illustrative)
