"""Links between two rows, drawn as bundles in one batched paint call, and manual links.

Zoomed out, a bundle joins a block of one row (a pod, an SU) to a block of the row above and
its width grows with the number of links it stands for. Zoomed in far enough that both rows
show single devices, each linked pair of devices gets its own line. Lines are gathered by
width and drawn with one drawLines call per width, so thousands of bundles stay cheap.
"""

from __future__ import annotations

import math
from collections import defaultdict

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPainterPathStroker, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsObject

from designer.ui.canvas.layout import BOX_HEIGHT, Layout, parse_device_id
from designer.ui.canvas.lod import DEVICE, row_lod
from designer.ui.canvas.tier_item import label_font

MAX_DEVICE_LINES = 60_000   # beyond this many device pairs in reach, keep drawing block bundles


def bundle_width(links: int) -> float:
    """Pen width in pixels for a bundle of `links` links: grows with the logarithm of the count."""
    return max(1.0, min(12.0, 0.6 + 0.95 * math.log2(1 + links)))


class BundleItem(QGraphicsObject):
    """All links between row `lower` and row `upper`."""

    def __init__(self, lower: str, upper: str):
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.layout: Layout | None = None
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption, True)
        self.setZValue(0)

    def set_layout(self, layout: Layout) -> None:
        self.prepareGeometryChange()
        self.layout = layout
        self.update()

    def boundingRect(self) -> QRectF:
        if self.layout is None or self.lower not in self.layout.rows or self.upper not in self.layout.rows:
            return QRectF()
        lo, up = self.layout.rows[self.lower], self.layout.rows[self.upper]
        x0, x1 = min(lo.x0, up.x0), max(lo.x1, up.x1)
        return QRectF(x0, up.y, x1 - x0, lo.y - up.y)

    def paint(self, painter: QPainter, option, widget=None) -> None:
        layout = self.layout
        ctx = self.scene()
        if layout is None or ctx is None:
            return
        lo, up = layout.rows.get(self.lower), layout.rows.get(self.upper)
        if lo is None or up is None:
            return
        t = painter.worldTransform()
        sx = t.m11()
        y_lo = t.map(QPointF(0, lo.y - BOX_HEIGHT / 2)).y()
        y_up = t.map(QPointF(0, up.y + BOX_HEIGHT / 2)).y()
        exposed = option.exposedRect
        groups: dict[float, list[QLineF]] = defaultdict(list)
        stubs: list[QLineF] = []
        done = False
        if row_lod(lo, sx) == DEVICE and row_lod(up, sx) == DEVICE:
            done = self._device_lines(layout, lo, up, exposed, t, y_lo, y_up, groups, stubs,
                                      t.mapRect(exposed).width())
        alpha = 150
        if not done:
            span_lo = lo.x1 - lo.x0
            total = 0.0
            for b in layout.bundles:
                if b.lower != self.lower or b.upper != self.upper or not b.links:
                    continue
                x_a = t.map(QPointF(lo.blocks[b.lower_block].center, 0)).x()
                x_b = t.map(QPointF(up.blocks[b.upper_block].center, 0)).x()
                width = bundle_width(b.links)
                total += width
                groups[round(width, 1)].append(QLineF(x_a, y_lo, x_b, y_up))
            # Many crossing bundles (every pod to every core group) would merge into a solid
            # wall: thin them and let them through, so the structure stays legible.
            room = 0.45 * max(span_lo * sx, 1.0)
            if total > room:
                squeeze = room / total
                alpha = int(max(45, 150 * squeeze ** 0.5))
                groups = {max(0.8, round(w * squeeze, 1)): lines for w, lines in groups.items()}
        painter.save()
        painter.resetTransform()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        family = layout.resolved.family
        color = ctx.theme.link(family, alpha)
        for width, lines in sorted(groups.items()):
            pen = QPen(color, width)
            pen.setCapStyle(Qt.PenCapStyle.FlatCap)
            painter.setPen(pen)
            painter.drawLines(lines)
        if stubs:
            faint = ctx.theme.link(family, 110)
            pen = QPen(faint, 1.0)
            painter.setPen(pen)
            painter.drawLines(stubs)
        painter.restore()

    def _device_lines(self, layout, lo, up, exposed, t, y_lo, y_up, groups, stubs, view_width) -> bool:
        """Lines per linked device pair; pairs far apart get short stubs pointing at each other."""
        margin = exposed.width()
        lower_visible = lo.devices_between(exposed.left() - margin, exposed.right() + margin)
        upper_visible = up.devices_between(exposed.left() - margin, exposed.right() + margin)
        devices = layout.lower_devices_in_reach(self.lower, lower_visible, upper_visible)
        if len(devices) * 8 > MAX_DEVICE_LINES:
            return False
        far = 0.5 * max(view_width, 1.0)
        for a, b, links in layout.device_links(self.lower, devices):
            x_a = t.map(QPointF(lo.device_x(a), 0)).x()
            x_b = t.map(QPointF(up.device_x(b), 0)).x()
            if abs(x_b - x_a) > far:
                # Short stubs, slanted toward the far end, say "this goes over there".
                dx = 0.25 * abs(y_up - y_lo) * (1 if x_b > x_a else -1)
                stubs.append(QLineF(x_a, y_lo, x_a + dx, y_lo + (y_up - y_lo) * 0.25))
                stubs.append(QLineF(x_b, y_up, x_b - dx, y_up - (y_up - y_lo) * 0.25))
                continue
            groups[round(bundle_width(links) * 0.7, 1)].append(QLineF(x_a, y_lo, x_b, y_up))
        return True


class ManualLinksItem(QGraphicsObject):
    """Links added by hand (manual edits), drawn as dashed arcs above the template's links."""

    def __init__(self):
        super().__init__()
        self.layout: Layout | None = None
        self.setZValue(20)
        self.setAcceptHoverEvents(True)

    def set_layout(self, layout: Layout) -> None:
        self.prepareGeometryChange()
        self.layout = layout
        self.update()

    def _ends(self, a: str, b: str) -> tuple[QPointF, QPointF] | None:
        pa, pb = self.layout.device_position(a), self.layout.device_position(b)
        if pa is None or pb is None:
            return None
        (ta, xa, ya), (tb, xb, yb) = pa, pb
        if ya < yb:  # start at the lower device
            (ta, xa, ya), (tb, xb, yb) = (tb, xb, yb), (ta, xa, ya)
        return QPointF(xa, ya - BOX_HEIGHT / 2), QPointF(xb, yb + BOX_HEIGHT / 2 if yb < ya else yb)

    def path_of(self, a: str, b: str) -> QPainterPath | None:
        ends = self._ends(a, b)
        if ends is None:
            return None
        p, q = ends
        path = QPainterPath(p)
        bend = QPointF((p.x() + q.x()) / 2 + (q.y() - p.y()) * 0.25, (p.y() + q.y()) / 2)
        path.quadTo(bend, q)
        return path

    def boundingRect(self) -> QRectF:
        if self.layout is None or not self.layout.manual_links:
            return QRectF()
        rect = QRectF()
        for _, a, b, _ in self.layout.manual_links:
            path = self.path_of(a, b)
            if path is not None:
                rect = rect.united(path.boundingRect())
        return rect.adjusted(-40, -40, 40, 40)

    def edit_at(self, pos: QPointF, tolerance: float) -> int | None:
        """Index in design.edits of the manual link passing near `pos` (scene units), if any."""
        if self.layout is None:
            return None
        stroker = QPainterPathStroker()
        stroker.setWidth(max(tolerance, 1e-3))
        for index, a, b, _ in self.layout.manual_links:
            path = self.path_of(a, b)
            if path is not None and stroker.createStroke(path).contains(pos):
                return index
        return None

    def paint(self, painter: QPainter, option, widget=None) -> None:
        ctx = self.scene()
        if self.layout is None or ctx is None:
            return
        t = painter.worldTransform()
        painter.save()
        painter.resetTransform()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        for index, a, b, count in self.layout.manual_links:
            path = self.path_of(a, b)
            if path is None:
                continue
            selected = f"edit:{index}" in ctx.selected
            color = ctx.theme.highlight if selected else QColor(ctx.theme.manual)
            pen = QPen(color, 3.0 if selected else 2.2, Qt.PenStyle.DashLine)
            painter.setPen(pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            mapped = t.map(path)
            painter.drawPath(mapped)
            if count > 1:
                mid = mapped.pointAtPercent(0.5)
                painter.setFont(label_font(8, True))
                painter.drawText(QRectF(mid.x() + 4, mid.y() - 9, 40, 18),
                                 int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), f"×{count}")
        painter.restore()


__all__ = ["BundleItem", "ManualLinksItem", "bundle_width", "parse_device_id"]
