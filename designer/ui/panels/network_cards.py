"""The metric cards for a network other than the compute fabric, and the Whole cluster card.

When the canvas shows the storage, in-band or out-of-band network, the cards show that network's
switches, links, oversubscription, cables, cost and power; figures that belong to the compute
fabric alone (bisection, hops, all-reduce) say so instead of showing the fabric's numbers under
the other network's name. The Whole cluster card totals every network.
"""

from __future__ import annotations

from designer.model.common.units import power_label, ratio_label
from designer.model.intent.networks import ROLE_LABELS


def money(value: float, currency: str) -> str:
    symbol = {"USD": "$", "EUR": "€", "GBP": "£"}.get(currency, "")
    for factor, suffix in ((1e9, " B"), (1e6, " M"), (1e3, " k")):
        if abs(value) >= factor:
            return f"{symbol}{value / factor:,.1f}{suffix}" + ("" if symbol else f" {currency}")
    return f"{symbol}{value:,.0f}" + ("" if symbol else f" {currency}")


def cluster_totals(bom, sections) -> dict:
    """Switches, cables, transceivers, cost and power over the fabric and every other network."""
    parts = [bom.counts_by_category] + [s.counts_by_category() for s in sections]

    def total(category: str) -> int:
        return sum(int(p.get(category, 0)) for p in parts)

    return {
        "switches": total("Switches"),
        "cables": total("Copper cables") + total("Fiber"),
        "transceivers": total("Transceivers"),
        "cost": bom.total_cost + sum(s.total_cost for s in sections),
        "power_w": bom.total_power_w + sum(s.total_power_w for s in sections),
        "networks": 1 + len(sections),
    }


def show_cluster_card(card, result) -> None:
    bom = getattr(result, "bom", None)
    if result is None or bom is None:
        card.show_value("—" if result is None or not getattr(result, "bom_pending", False) else "…",
                        "with the bill of materials" if result is not None else "", "stale")
        return
    sections = tuple(getattr(result, "networks", ()))
    t = cluster_totals(bom, sections)
    names = ["compute"] + [ROLE_LABELS.get(s.size.role, s.size.label).lower() for s in sections]
    card.show_value(money(t["cost"], bom.currency),
                    f"{t['switches']:,} switches · {t['cables']:,} cables · {t['transceivers']:,} transceivers · "
                    f"{power_label(t['power_w'])} · over {', '.join(names)}")
    card.setToolTip(f"Every network of the cluster ({', '.join(names)}): {t['switches']:,} switches, "
                    f"{t['cables']:,} cables, {t['transceivers']:,} transceivers, "
                    f"{money(t['cost'], bom.currency)}, {power_label(t['power_w'])}")


def show_network_cards(panel, result, role: str) -> None:
    """The cards for network `role`; the compute fabric's stay when the result lacks it."""
    section = next((s for s in getattr(result, "networks", ()) if s.size.role == role), None)
    c = panel.cards
    label = ROLE_LABELS.get(role, role)
    if section is None:
        note = "being computed…" if getattr(result, "bom_pending", False) else f"{label}: not sized"
        for key in ("switches", "links", "cables", "cost", "power", "oversub"):
            c[key].show_value("…" if getattr(result, "bom_pending", False) else "—", note, "stale")
        panel.status.setText(f"Cards show the {label.lower()}; its figures come with the bill of materials")
        return
    size = section.size
    switches = sum(g.count for g in size.switches)
    c["switches"].show_value(f"{switches:,}", " · ".join(f"{g.tier} {g.count:,}" for g in size.switches), fit=True)
    links = sum(g.count for g in size.links)
    c["links"].show_value(f"{links:,}", " · ".join(f"{g.count:,} × {g.gbps:g}G {g.kind}" for g in size.links), fit=True,
                          shorter=" · ".join(f"{g.count:,} {g.kind}" for g in size.links))
    c["oversub"].show_value(ratio_label(size.oversubscription) if size.oversubscription else "—",
                            "leaf downlinks : uplinks" if size.oversubscription else "no uplink tier")
    counts = section.counts_by_category()
    c["cables"].show_value(f"{counts.get('Copper cables', 0) + counts.get('Fiber', 0):,}",
                           f"{counts.get('Transceivers', 0):,} transceivers")
    bom = result.bom
    currency = bom.currency if bom is not None else "USD"
    c["cost"].show_value(money(section.total_cost, currency),
                         f"{label.lower()} only" + (f" · {len(section.unpriced_parts)} parts unpriced"
                                                    if section.unpriced_parts else ""))
    if section.total_power_w:
        c["power"].show_value(power_label(section.total_power_w), f"{label.lower()} only")
    else:   # no part of it states its power: say so rather than show 0 W
        c["power"].show_value("—", "not stated for its parts", "stale")
    ports = size.storage_ports
    if ports:
        c["gpus"].title.setText("PORTS")
        c["gpus"].show_value(f"{ports:,}", f"endpoint ports at {size.storage_gbps:g} Gb/s")
    for key in ("bisection", "hops", "allreduce"):
        c[key].show_value("—", "compute fabric only", "stale")
    for key in ("switches", "links", "oversub", "cables", "cost", "power"):
        c[key].setToolTip(f"{label}: {c[key].toolTip()}")
    panel.status.setText(f"Cards show the {label.lower()} ({size.template}, {size.technology}); "
                         "choose Compute (east-west) in Network to see the fabric's")
