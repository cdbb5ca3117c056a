"""The canvas of one network beside the compute fabric: its tiers as rows and its links as bundles.

The compute fabric keeps its own canvas (scene.py, view.py) and stays the default view; this one
draws the network the controller's `network` names, from the same model signal: every design the
controller shows (an edit, an undo, a drag preview) redraws it. The sizing is closed-form
arithmetic per network (no graph), so it runs here on the design the signal carries.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPen
from PySide6.QtWidgets import QFrame, QGraphicsScene, QGraphicsTextItem, QGraphicsView

from designer.catalog import Catalog
from designer.model.intent.design import FabricDesign
from designer.model.networks.diagram import Row, network_rows
from designer.model.networks.sizing import (
    NetworkSize,
    size_networks,
    template_switch_count,
)
from designer.ui.services.compute_job import SIZING_ERRORS
from designer.ui.theme import Theme

ROW_GAP = 110.0
BOX_W, BOX_H = 46.0, 26.0
TEXT_SCALE = 1.5          # the view fits the network to the window, which scales text down
MAX_BOXES = 24            # boxes drawn per row; the rest is said in the row's label
WIDTH = 1100.0
NOTE_MARGIN = 500.0       # notes may run under the row captions to the right of the boxes
ROW_HUES = {"spine": "spine", "leaf": "leaf", "storage leaf": "core", "servers": "servers",
            "storage": "core", "management (server racks)": "leaf", "management (network racks)": "spine",
            "endpoints": "servers"}


class NetworkScene(QGraphicsScene):
    """Draws the network `controller.network` of the design the controller shows."""

    def __init__(self, controller, theme: Theme | None = None, parent=None):
        super().__init__(parent)
        self.controller = controller
        self.catalog: Catalog = controller.catalog
        self.theme = theme or Theme()
        self.size: NetworkSize | None = None
        self.rows: list[Row] = []
        controller.displayChanged.connect(self._redraw)
        controller.networkChanged.connect(self._redraw)
        self._redraw()

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self._redraw()

    def _sized(self, design: FabricDesign, role: str) -> NetworkSize | None:
        if design.network(role) is None:
            return None
        try:
            compute = template_switch_count(design, self.catalog)
        except SIZING_ERRORS:  # a design that cannot be sized: its compute switches are unknown
            compute = 0
        return next((s for s in size_networks(design, self.catalog, compute) if s.role == role), None)

    def addText(self, text: str, font: QFont | str | Sequence[str] | None = None) -> QGraphicsTextItem:
        """Text a size larger than the default: the view fits the whole network, which scales it down."""
        item = super().addText(text)
        big = QFont(item.font())
        big.setPointSizeF(big.pointSizeF() * TEXT_SCALE)
        item.setFont(big if font is None else QFont(font))
        return item

    def _redraw(self, *_: object) -> None:
        self.clear()
        design = self.controller.display.design
        role = self.controller.network
        self.size = self._sized(design, role) if design is not None and role != "compute" else None
        self.rows = []
        if self.size is None:
            return
        t = self.theme
        title = self.addText(f"{self.size.label}  ({self.size.template}, {self.size.technology})")
        font = QFont(title.font())
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.2)
        title.setFont(font)
        title.setDefaultTextColor(t.text)
        title.setPos(0, -70)
        rows, bundles = network_rows(self.size, design.cluster.servers)
        self.rows = rows
        centres: list[list[float]] = []
        for i, row in enumerate(rows):
            y = i * ROW_GAP
            shown = min(row.count, MAX_BOXES) if row.count else 1
            step = WIDTH / max(shown, 1)
            xs = [step * (k + 0.5) for k in range(shown)]
            centres.append(xs)
            hue = ROW_HUES.get(row.key, "servers")
            # A row of none (a segment's carrier, merged leaves) is a dashed stand-in, not a switch.
            pen = QPen(t.tier_border(hue), 1.2, Qt.PenStyle.SolidLine if row.count else Qt.PenStyle.DashLine)
            for x in xs:
                self.addRect(QRectF(x - BOX_W / 2, y, BOX_W, BOX_H), pen,
                             QBrush(t.tier_fill(hue) if row.count else QColor(t.grid)))
            more = f" (first {MAX_BOXES} drawn)" if row.count > MAX_BOXES else ""
            text = (f"{row.title}: {row.count:,}{more}" + (f" - {row.detail}" if row.detail else "")
                    if row.count else f"{row.title}" + (f" ({row.detail})" if row.detail else ""))
            caption = self.addText(text)
            caption.setDefaultTextColor(t.text)
            caption.setPos(WIDTH + 20, y - 4)
        for upper, lower, text in bundles:
            y0, y1 = upper * ROW_GAP + BOX_H, lower * ROW_GAP
            pen = QPen(t.link("infiniband" if self.size.technology.startswith("ib-") else "ethernet", 140), 1.0)
            for x0 in centres[upper][:MAX_BOXES]:
                for x1 in centres[lower][:: max(1, len(centres[lower]) // 6)]:
                    self.addLine(x0, y0, x1, y1, pen)
            if text:
                label = self.addText(text)
                label.setDefaultTextColor(t.muted)
                label.setPos(WIDTH + 20, (y0 + y1) / 2 - 10)
        # Notes wrap to the drawing's width: a long source line must not widen the scene, which
        # the view fits to the window and would shrink the whole network to fit it.
        y = len(rows) * ROW_GAP + 10
        for k, note in enumerate((*self.size.errors, *self.size.notes[:3])):
            item = self.addText(note)
            item.setTextWidth(WIDTH + NOTE_MARGIN)
            item.setDefaultTextColor(t.error if k < len(self.size.errors) else t.muted)
            item.setPos(0, y)
            y += item.boundingRect().height() + 4


class NetworkView(QGraphicsView):
    """Shows a NetworkScene, fitted to the window."""

    def __init__(self, scene: NetworkScene, parent=None):
        super().__init__(scene, parent)
        self.setObjectName("networkCanvas")
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setFrameShape(QFrame.Shape.NoFrame)
        scene.changed.connect(self._fit)

    def _fit(self, *_: object) -> None:
        rect = self.scene().itemsBoundingRect().adjusted(-30, -30, 30, 30)
        if not rect.isEmpty():
            self.fitInView(rect, Qt.AspectRatioMode.KeepAspectRatio)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit()
