"""Overlays on the canvas that stay put while it pans and zooms: the legend and the row headers."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QWidget

from designer.ui.canvas.layout import BOX_HEIGHT, TIER_LABEL, Layout
from designer.ui.canvas.tier_item import label_font
from designer.ui.theme import FAMILY_LABEL, Theme


def _speed(gbps: int) -> str:
    return f"{gbps / 1000:g}T" if gbps >= 1000 else f"{gbps}G"


class LegendWidget(QWidget):
    """What the colours mean: one swatch per tier present, the link technology, manual links."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.theme = Theme()
        self.layout_: Layout | None = None
        self.failure = None            # the LinkFailure shown on the canvas, if any
        self.setToolTip("What the colours on the canvas mean")

    def set_layout(self, layout: Layout | None) -> None:
        self.layout_ = layout
        self.update()

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.update()

    def set_failure(self, failure) -> None:
        self.failure = failure
        self.update()

    def _failure_entries(self) -> list[tuple[str, str, QColor]]:
        f, t = self.failure, self.theme
        if f is None or f.layout is not self.layout_:
            return []
        if f.ghost:
            return [("ghost", "Later phase (pale)", t.muted)]
        rows = []
        if f.devices:
            rows.append(("cross", "Failed switch", t.error))
        if f.any_links:
            rows.append(("faildash", "Failed link", t.error))
        if f.other_planes:
            rows.append(("elsewhere", "Failed in another plane only (plane 1 drawn)", t.error))
        if f.cut_servers:
            rows.append(("cut", "Server with GPUs cut off", QColor(110, 110, 110)))
        return rows

    def entries(self) -> list[tuple[str, str, QColor]]:
        """(kind, label, colour) rows: kind is 'box', 'line', 'dash', 'cross', 'stack', 'problem',
        or, while a failure is shown, 'faildash', 'elsewhere', 'cut' and 'ghost'."""
        layout = self.layout_
        if layout is None:
            return []
        t = self.theme
        r = layout.resolved
        rows = [("box", TIER_LABEL[tier], t.tier(tier)) for tier in layout.tiers]
        family = r.family
        tech = r.technology
        speeds = _speed(r.link_gbps) if r.link_gbps == r.uplink_gbps else \
            f"{_speed(r.link_gbps)} to servers, {_speed(r.uplink_gbps)} between switches"
        rows.append(("line", f"{FAMILY_LABEL.get(family, family)} {tech.generation} links, {speeds}",
                     t.family(family)))
        rows += self._failure_entries()
        if layout.manual_links:
            rows.append(("dash", "Manual link", t.manual))
        if layout.removed:
            rows.append(("cross", "Removed device", t.error))
        if r.planes > 1:
            rows.append(("stack", f"{r.planes} identical planes (plane 1 drawn)", t.muted))
        rows.append(("problem", "Has a problem (see Findings)", t.error))
        return rows

    HEIGHT = 28

    def sizeHint(self) -> QSize:
        return QSize(400, self.HEIGHT)

    def paintEvent(self, event) -> None:
        t = self.theme
        p = QPainter(self)
        p.fillRect(self.rect(), t.window)
        p.setPen(QPen(t.grid.darker(115) if not t.dark else t.grid.lighter(150), 1))
        p.drawLine(0, 0, self.width(), 0)
        rows = self.entries()
        if not rows:
            return
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        font = label_font(8.5)
        fm = QFontMetricsF(font)
        p.setFont(label_font(8.5, True))
        p.setPen(t.muted)
        x = 12.0
        p.drawText(QRectF(x, 0, 60, self.height()), int(Qt.AlignmentFlag.AlignVCenter), "Legend")
        x += 62
        p.setFont(font)
        mid = self.height() / 2
        for kind, text, color in rows:
            if x > self.width() - 40:
                break
            swatch = QRectF(x, mid - 5.5, 24, 11)
            self._swatch(p, kind, swatch, color)
            p.setPen(t.text)
            width = fm.horizontalAdvance(text) + 2
            p.drawText(QRectF(x + 30, 0, width, self.height()), int(Qt.AlignmentFlag.AlignVCenter), text)
            x += 30 + width + 22

    @staticmethod
    def _swatch(p: QPainter, kind: str, swatch: QRectF, color: QColor) -> None:
        if kind == "box":
            p.setPen(QPen(color.darker(118), 1))
            fill = QColor(color)
            fill.setAlpha(120)
            p.setBrush(fill)
            p.drawRoundedRect(swatch, 3, 3)
        elif kind in ("line", "dash"):
            pen = QPen(color, 3 if kind == "line" else 2.2,
                       Qt.PenStyle.SolidLine if kind == "line" else Qt.PenStyle.DashLine)
            p.setPen(pen)
            p.drawLine(QPointF(swatch.left(), swatch.center().y()), QPointF(swatch.right(), swatch.center().y()))
        elif kind == "cross":
            box = swatch.adjusted(6, 0, -6, 0)
            p.setPen(QPen(color, 1.6))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRect(box)
            p.drawLine(box.topLeft(), box.bottomRight())
        elif kind == "faildash":
            pen = QPen(color, 2.2, Qt.PenStyle.DashLine)
            pen.setCapStyle(Qt.PenCapStyle.FlatCap)
            p.setPen(pen)
            p.drawLine(QPointF(swatch.left(), swatch.center().y()), QPointF(swatch.right(), swatch.center().y()))
        elif kind == "elsewhere":
            p.setPen(QPen(color, 1.4, Qt.PenStyle.DashLine))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRect(swatch.adjusted(6, 0, -6, 0))
        elif kind in ("cut", "ghost"):
            p.setPen(Qt.PenStyle.NoPen)
            fill = QColor(color)
            fill.setAlpha(150)
            p.setBrush(fill)
            p.drawRect(swatch.adjusted(6, 0, -6, 0))
        elif kind == "stack":
            p.setPen(QPen(color, 1))
            p.setBrush(Qt.BrushStyle.NoBrush)
            for k in (2, 1, 0):
                p.drawRoundedRect(swatch.adjusted(2 + k * 3, 2 - k * 2, -8 + k * 3, -k * 2), 2, 2)
        elif kind == "problem":
            p.setPen(QPen(color, 2))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRoundedRect(swatch, 3, 3)


class RowHeaderWidget(QWidget):
    """The strip left of the canvas naming each row, with its count and the links between rows."""

    WIDTH = 148

    def __init__(self, view):
        super().__init__(view)
        self.view = view
        self.theme = Theme()
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, True)

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.update()

    def paintEvent(self, event) -> None:
        scene = self.view.scene()
        layout = scene.layout if scene is not None else None
        t = self.theme
        p = QPainter(self)
        p.fillRect(self.rect(), t.window)
        p.setPen(QPen(t.grid.darker(115) if not t.dark else t.grid.lighter(150), 1))
        p.drawLine(self.width() - 1, 0, self.width() - 1, self.height())
        if layout is None:
            return
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        viewport_top = self.view.viewport().geometry().top() - self.geometry().top()
        r = layout.resolved
        metrics = scene.controller.compute.latest
        links = (metrics.metrics.links_by_tier if metrics is not None and metrics.metrics is not None
                 and metrics.design is layout.design else None)
        tiers = layout.tiers
        for k, tier in enumerate(tiers):
            row = layout.rows[tier]
            y = self.view.mapFromScene(QPointF(row.x0, row.y)).y() + viewport_top
            color = t.tier(tier)
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(color)
            p.drawRoundedRect(QRectF(10, y - 17, 5, 34), 2, 2)
            p.setPen(t.text)
            p.setFont(label_font(10, True))
            p.drawText(QRectF(22, y - 20, self.WIDTH - 26, 18), int(Qt.AlignmentFlag.AlignLeft), TIER_LABEL[tier])
            p.setFont(label_font(8.5))
            p.setPen(t.muted)
            count = f"{row.count:,}"
            if tier != "servers" and r.planes > 1:
                count += f" × {r.planes} planes"
            elif tier == "servers":
                count += f" · {row.count * r.gpus_per_server:,} GPUs"
            p.drawText(QRectF(22, y - 1, self.WIDTH - 26, 16), int(Qt.AlignmentFlag.AlignLeft), count)
            if k + 1 < len(tiers):
                below = layout.rows[tiers[k + 1]]
                y2 = self.view.mapFromScene(QPointF(below.x0, below.y)).y() + viewport_top
                mid = (y + y2) / 2
                if y2 - y > 3 * BOX_HEIGHT * 0.6:
                    key = {"spine": "spine-core", "leaf": "leaf-spine", "servers": "node-leaf"}[tiers[k + 1]]
                    speed = r.link_gbps if key == "node-leaf" else r.uplink_gbps
                    text = f"{_speed(speed)} links"
                    if links and key in links:
                        text = f"{links[key]:,} × {_speed(speed)}"
                    p.setFont(label_font(8))
                    p.setPen(t.family(r.family).darker(110) if not t.dark else t.family(r.family).lighter(120))
                    p.drawText(QRectF(22, mid - 8, self.WIDTH - 26, 16),
                               int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), text)
