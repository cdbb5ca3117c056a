"""The report's pages about the cluster's other networks: one per network, and the arrangements.

Each function fills the body rectangle of one page (device units) through `Ink`, as the pages of
report_pages.py do; the figures come from designer/model/networks.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF

from designer.model.intent.networks import ROLE_LABELS
from designer.model.networks.arrangements import Arrangement
from designer.model.networks.bom import MEDIA_RULE, NetworkBom
from designer.ui.export import page
from designer.ui.export.facts import money_exact, power
from designer.ui.export.ink import Ink
from designer.ui.export.page import LEFT, RIGHT, Column


def _sub_title(ink: Ink, rect: QRectF, text: str) -> float:
    h = ink.line_height(10.5, True)
    ink.text(QRectF(rect.left(), rect.top(), rect.width(), h), text, 10.5, ink.theme.text, bold=True, align=LEFT)
    return h + ink.pt(4)


def network_page(ink: Ink, rect: QRectF, section: NetworkBom, currency: str) -> None:
    s = section.size
    y = rect.top() + page.section_title(ink, rect, f"Network: {s.label}",
                                        f"{s.template}, {s.technology}; sized in closed form")
    t = ink.theme
    for error in s.errors:
        y += ink.paragraph(QRectF(rect.left(), y, rect.width(), rect.bottom() - y), f"Error: {error}", 9, t.error)
    gap = ink.pt(18)
    half = (rect.width() - gap) / 2
    left = QRectF(rect.left(), y, half, rect.bottom() - y)
    right = QRectF(rect.left() + half + gap, y, half, rect.bottom() - y)
    yy = left.top() + _sub_title(ink, left, "Switches")
    rows: list[tuple[str, ...]] = [(g.tier, g.switch, f"{g.count:,}") for g in s.switches] or [("none", "", "")]
    yy += page.table(ink, QRectF(left.left(), yy, left.width(), left.bottom() - yy),
                     [Column("Tier", 1.6), Column("Switch", 1.0), Column("Count", 0.6, RIGHT)], rows, 8.5)
    yy += ink.pt(10)
    yy += _sub_title(ink, QRectF(left.left(), yy, left.width(), 20), "Links")
    rows = [(g.kind, f"{g.gbps}G", g.medium, f"{g.count:,}") for g in s.links] or [("none of its own", "", "", "")]
    yy += page.table(ink, QRectF(left.left(), yy, left.width(), left.bottom() - yy),
                     [Column("Link", 1.6), Column("Speed", 0.6, RIGHT), Column("Medium", 0.7),
                      Column("Count", 0.6, RIGHT)], rows, 8.5)
    ry = right.top() + _sub_title(ink, right, "Totals")
    totals = [("Cost", money_exact(section.total_cost, currency)
               + (" (incomplete)" if section.unpriced_parts else "")),
              ("Power", power(section.total_power_w) if section.total_power_w else "not stated"),
              ("Switches", f"{s.switch_count:,}"), ("Links", f"{s.link_count:,}")]
    if s.template == "segment" and s.carried_by:
        totals.append(("Carried by", ROLE_LABELS.get(s.carried_by, s.carried_by)))
        totals.append(("Server ports shared", f"{s.shared_ports:,} x {s.shared_gbps}G"))
    if s.oversubscription is not None:
        totals.append(("Leaf oversubscription", f"{s.oversubscription:g}:1"))
    if s.storage_ports:
        totals.append(("Storage appliance ports", f"{s.storage_ports:,} ({s.storage_gbps:,.0f} Gb/s)"))
    ry += page.table(ink, QRectF(right.left(), ry, right.width(), right.bottom() - ry),
                     [Column("Item", 1.0), Column("Value", 1.6, RIGHT)], totals, 8.5)
    ry += ink.pt(10)
    ry += _sub_title(ink, QRectF(right.left(), ry, right.width(), 20), "Line items")
    rows = [(i.description, f"{i.quantity:,}", money_exact(i.extended_price, currency) if i.extended_price else "—")
            for i in section.items]
    ry += page.table(ink, QRectF(right.left(), ry, right.width(), right.bottom() - ry),
                     [Column("Part", 2.2), Column("Qty", 0.5, RIGHT), Column("Extended", 0.9, RIGHT)], rows, 8)
    y = max(yy, ry) + ink.pt(12)
    for note in (*s.notes, MEDIA_RULE):
        if y >= rect.bottom():
            break
        y += ink.paragraph(QRectF(rect.left(), y, rect.width(), rect.bottom() - y), note, 7.5, t.muted)


def arrangements_page(ink: Ink, rect: QRectF, options: tuple[Arrangement, ...], currency: str) -> None:
    y = rect.top() + page.section_title(ink, rect, "Network arrangements",
                                        "capex and power of each arrangement; prices per the price book")
    rows = [(a.label, money_exact(a.compute_cost, currency), money_exact(a.networks_cost, currency),
             money_exact(a.total_cost, currency), power(a.total_power_w), f"{a.switches:,}")
            if a.available else (a.label, "—", "—", "—", "—", "—") for a in options]
    y += page.table(ink, QRectF(rect.left(), y, rect.width(), rect.bottom() - y),
                    [Column("Arrangement", 3.2), Column("Compute", 1.0, RIGHT), Column("Other networks", 1.0, RIGHT),
                     Column("Capex", 1.0, RIGHT), Column("Power", 0.8, RIGHT), Column("Switches", 0.6, RIGHT)],
                    rows, 8.5) + ink.pt(10)
    for a in options:
        for note in a.notes:
            if y >= rect.bottom():
                return
            y += ink.paragraph(QRectF(rect.left(), y, rect.width(), rect.bottom() - y), f"{a.label}: {note}", 7.5,
                               ink.theme.muted)


def cluster_page(ink: Ink, rect: QRectF, bom, sections: tuple[NetworkBom, ...]) -> None:
    """Every network of the cluster side by side, with the total: switches, cables, transceivers,
    cost and power (the window's Whole cluster card gives the same totals)."""
    currency = bom.currency
    y = rect.top() + page.section_title(ink, rect, "Whole cluster",
                                        "every network together; prices per the price book")

    def row(name: str, counts: dict, cost: float, watts: float, incomplete: bool) -> tuple[str, ...]:
        cables = counts.get("Copper cables", 0) + counts.get("Fiber", 0)
        return (name, f"{counts.get('Switches', 0):,}", f"{cables:,}", f"{counts.get('Transceivers', 0):,}",
                money_exact(cost, currency) + (" (incomplete)" if incomplete else ""),
                power(watts) if watts else "not stated")

    rows = [row(ROLE_LABELS["compute"], bom.counts_by_category, bom.total_cost, bom.total_power_w,
                bool(bom.unpriced_parts))]
    rows += [row(s.size.label, s.counts_by_category(), s.total_cost, s.total_power_w, bool(s.unpriced_parts))
             for s in sections]
    totals: dict[str, int] = {}
    for counts in [bom.counts_by_category] + [s.counts_by_category() for s in sections]:
        for key, n in counts.items():
            totals[key] = totals.get(key, 0) + int(n)
    cost = bom.total_cost + sum(s.total_cost for s in sections)
    watts = bom.total_power_w + sum(s.total_power_w for s in sections)
    incomplete = bool(bom.unpriced_parts) or any(s.unpriced_parts for s in sections)
    rows.append(row("Whole cluster", totals, cost, watts, incomplete))
    y += page.table(ink, QRectF(rect.left(), y, rect.width(), rect.bottom() - y),
                    [Column("Network", 2.6), Column("Switches", 0.7, RIGHT), Column("Cables", 0.7, RIGHT),
                     Column("Transceivers", 0.9, RIGHT), Column("Cost", 1.2, RIGHT), Column("Power", 0.8, RIGHT)],
                    rows, 9) + ink.pt(10)
    if incomplete and y < rect.bottom():
        ink.paragraph(QRectF(rect.left(), y, rect.width(), rect.bottom() - y),
                      "Incomplete: some parts have no price in the price book and count as 0; the total is a "
                      "lower bound.", 8, ink.theme.warning)
