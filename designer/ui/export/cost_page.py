"""The report's page of the verdict in dollars: cost per token of each design over the seeded
price and efficiency draws, as step histograms, with each design's share of wins."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QPainterPath

from designer.model.common.units import figure_text
from designer.ui.export import page
from designer.ui.export.ink import Ink
from designer.ui.export.page import RIGHT
from designer.ui.theme import FAMILY_HUES, TIER_HUES

# One colour per design, in column order (distinct from one another on paper).
DESIGN_COLOURS = (FAMILY_HUES["infiniband"], FAMILY_HUES["ethernet"], TIER_HUES["leaf"], TIER_HUES["core"],
                  TIER_HUES["spine"])


def _money(v: float) -> str:
    return f"${v:,.2f}" if abs(v) < 100 else f"${v:,.0f}"


def cost_distribution(ink: Ink, rect: QRectF, c: Any) -> None:
    """Step histograms of the draws in `rect`, a legend line per design under them."""
    t = ink.theme
    conf = c.confidence
    # Each design's line wraps under its swatch rather than lose its figures at the margin.
    lines = [f"[{i + 1}] {name}: cheapest in {conf.win_share[i]:.0%} of draws; median {_money(p50)} "
             f"(p10 {_money(p10)}, p90 {_money(p90)})"
             for i, (name, (p10, p50, p90)) in enumerate(zip(c.names, conf.cost_per_mtok, strict=True))]
    text_w = rect.width() - ink.pt(18)
    legend_h = sum(ink.paragraph_height(text_w, line, 8.5) for line in lines) + ink.pt(4)
    tick_h = ink.line_height(7)
    plot = QRectF(rect.left() + ink.pt(30), rect.top(), rect.width() - ink.pt(34),
                  rect.height() - legend_h - tick_h - ink.pt(6))
    ink.box(plot, None, t.muted, 0.5, 0)
    edges = conf.hist_edges
    lo, hi = edges[0], edges[-1]
    top = max(max(h) for h in conf.hist_counts) or 1
    span = (hi - lo) or 1.0

    def px(x: float) -> float:
        return float(plot.left() + (x - lo) / span * plot.width())

    def py(y: float) -> float:
        return plot.bottom() - y / (top * 1.1) * plot.height()

    for k in range(5):
        x = lo + span * k / 4
        ink.text(QRectF(px(x) - ink.pt(30), plot.bottom() + ink.pt(2), ink.pt(60), tick_h), _money(x), 7, t.muted)
    ink.text(QRectF(rect.left(), plot.top(), ink.pt(28), tick_h), f"{top:,}", 7, t.muted, align=RIGHT)
    ink.text(QRectF(rect.left(), plot.bottom() - tick_h, ink.pt(28), tick_h), "0", 7, t.muted, align=RIGHT)
    painter = ink.painter
    for i, counts in enumerate(conf.hist_counts):
        colour = DESIGN_COLOURS[i % len(DESIGN_COLOURS)]
        path = QPainterPath(QPointF(px(edges[0]), py(0)))
        for j, n in enumerate(counts):
            path.lineTo(QPointF(px(edges[j]), py(n)))
            path.lineTo(QPointF(px(edges[j + 1]), py(n)))
        path.lineTo(QPointF(px(edges[-1]), py(0)))
        painter.setPen(ink.pen(colour, 1.4))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawPath(path)
    y = plot.bottom() + tick_h + ink.pt(6)
    lh = ink.line_height(8.5)
    for i, line in enumerate(lines):
        colour = DESIGN_COLOURS[i % len(DESIGN_COLOURS)]
        ink.hline(rect.left(), rect.left() + ink.pt(14), y + lh / 2, colour, 2.0)
        y += ink.paragraph(QRectF(rect.left() + ink.pt(18), y, text_w, rect.bottom() - y), line, 8.5, t.text)


def cost_page(ink: Ink, rect: QRectF, c: Any) -> None:
    """Cost of the same training work on each design, and how sure the verdict is."""
    unit = c.confidence.unit if c.confidence is not None else "USD"
    y = rect.top() + page.section_title(ink, rect, "Verdict in dollars of training", unit)
    t = ink.theme
    y += ink.paragraph(QRectF(rect.left(), y, rect.width(), rect.bottom() - y), c.recommendation.verdict, 9.5,
                       t.text, bold=True) + ink.pt(6)
    for key in ("cost_per_step_usd", "cost_per_mtok_usd", "train_days"):
        row = next((r for r in c.rows if r.key == key), None)
        if row is None:
            continue
        values = "; ".join(f"[{i + 1}] " + ("—" if v is None else figure_text(v, row.unit) + f" {row.unit}")
                           for i, v in enumerate(row.values))
        y += ink.paragraph(QRectF(rect.left(), y, rect.width(), rect.bottom() - y), f"{row.label}: {values}", 8.5,
                           t.text) + ink.pt(3)
    if c.confidence is None:
        ink.paragraph(QRectF(rect.left(), y, rect.width(), rect.bottom() - y),
                      "No distribution: the price book has no price for a design's GPU servers.", 8.5, t.muted)
        return
    note = ("Each of the draws varies every price within its class band and every efficiency within its stated "
            "range: " + "; ".join(c.confidence.varied) + ".")
    y += ink.paragraph(QRectF(rect.left(), y, rect.width(), rect.bottom() - y), note, 8, t.muted) + ink.pt(8)
    cost_distribution(ink, QRectF(rect.left(), y, rect.width(), min(rect.bottom() - y, rect.height() * 0.55)), c)
