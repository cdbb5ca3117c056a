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
from designer.model.networks.diagram import Bundle, Row, network_diagram
from designer.model.networks.sizing import (
    NetworkSize,
    size_networks,
    template_switch_count,
)
from designer.ui.services.compute_job import SIZING_ERRORS
from designer.ui.theme import Theme

ROW_GAP = 210.0
BOX_H = 58.0
TEXT_SCALE = 1.5          # the view fits the network to the window, which scales text down
MAX_BOXES = 24            # racks drawn one box each up to this many
FEW_BOXES = 8             # a row of up to this many devices is drawn device by device
WIDTH = 900.0             # narrow enough that Fit to Window keeps the text readable at 1280x800
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
        self.drawn_bundles: list[tuple[int, str]] = []   # (lines drawn, label) per bundle, for the tests
        self.rack_labels: list[list[str]] = []           # per bundle: the count on each rack's line
        self._label_bottom: dict[float, float] = {}   # per row reached: where the next bundle label may start
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
        self.drawn_bundles = []
        self.rack_labels = []
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
        rows, bundles = network_diagram(self.size, design.cluster.servers)
        self.rows = rows
        self.drawn_bundles = []
        self._label_bottom = {}
        racks = self.size.racks
        spans: list[list[tuple[float, float]]] = []     # per row: each box's left and right edge
        for i, row in enumerate(rows):
            y = i * ROW_GAP
            caption = self.addText(f"{row.title}: {row.count:,}" + (f" · {row.detail}" if row.detail else "")
                                   if row.count else row.title + (f" ({row.detail})" if row.detail else ""))
            caption.setTextWidth(WIDTH)
            caption.setDefaultTextColor(t.text)
            caption.setPos(0, y - caption.boundingRect().height() - 2)
            boxes = self._boxes_of(row, racks)
            step = WIDTH / max(len(boxes), 1)
            hue = ROW_HUES.get(row.key, "servers")
            # A row of none (a segment's carrier, merged leaves) is a dashed stand-in, not a switch.
            pen = QPen(t.tier_border(hue), 1.4, Qt.PenStyle.SolidLine if row.count else Qt.PenStyle.DashLine)
            row_spans = []
            for k, text in enumerate(boxes):
                x0, x1 = step * k + step * 0.06, step * (k + 1) - step * 0.06
                fill = QBrush(t.tier_fill(hue) if row.count else QColor(t.grid))
                self.addRect(QRectF(x0, y, x1 - x0, BOX_H), pen, fill)
                label = self.addText(text)
                label.setDefaultTextColor(t.text)
                label.setTextWidth(x1 - x0)
                doc = label.document()
                doc.setDefaultTextOption(_centred())
                label.setPos(x0, y + (BOX_H - label.boundingRect().height()) / 2)
                row_spans.append((x0, x1))
            spans.append(row_spans)
        family = "infiniband" if self.size.technology.startswith("ib-") else "ethernet"
        for bundle in bundles:
            upper, lower = bundle.upper, bundle.lower
            self._bundle(spans[upper], spans[lower], upper * ROW_GAP + BOX_H, lower * ROW_GAP,
                         bundle.text or self._implied(rows[upper], rows[lower]), family, bundle)
        # Notes wrap to the drawing's width: a long source line must not widen the scene, which
        # the view fits to the window and would shrink the whole network to fit it.
        y = (len(rows) - 1) * ROW_GAP + BOX_H + 24
        for k, note in enumerate((*self.size.errors, *self.size.notes[:3])):
            item = self.addText(note)
            item.setTextWidth(WIDTH)
            item.setDefaultTextColor(t.error if k < len(self.size.errors) else t.muted)
            item.setPos(0, y)
            y += item.boundingRect().height() + 4

    @staticmethod
    def _boxes_of(row: Row, racks: int) -> list[str]:
        """The boxes of a row: one per rack where the row splits evenly over the racks, else one
        per device up to a few, else one box for the whole row; each with the text it holds."""
        if not row.count:
            return ["none of its own"]
        noun = "switch" if row.key not in ("servers", "endpoints", "storage") else row.key.rstrip("s")
        if racks > 1 and row.count >= racks and row.count % racks == 0 and racks <= MAX_BOXES:
            per = row.count // racks
            plural = noun if per == 1 else ("switches" if noun == "switch" else noun + "s")
            return [f"Rack {k + 1}\n{per:,} {plural}" for k in range(racks)]
        if row.count <= FEW_BOXES:
            return [f"{noun} {k + 1}" for k in range(row.count)]
        return [f"{row.count:,} {'switches' if noun == 'switch' else noun + 's'}"]

    @staticmethod
    def _implied(upper: Row, lower: Row) -> str:
        """A bundle the model leaves unlabelled: what it joins."""
        return f"{upper.title} to {lower.title}"

    def _bundle(self, top: list[tuple[float, float]], bottom: list[tuple[float, float]], y0: float, y1: float,
                text: str, family: str, bundle: Bundle | None = None) -> None:
        """One line per pair of boxes that face each other: box to box where both rows have as
        many boxes (rack to rack), else each box of the smaller row to every box of the other,
        fanned over the wide box when one row is a single box; labelled once with its count."""
        pen = QPen(self.theme.link(family, 170), 3.0)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)

        def centre(span):
            return (span[0] + span[1]) / 2

        pairs: list[tuple[float, float]] = []
        if len(top) == len(bottom):
            pairs = [(centre(a), centre(b)) for a, b in zip(top, bottom, strict=True)]
        elif len(bottom) == 1:
            b0, b1 = bottom[0]
            pairs = [(centre(a), min(max(centre(a), b0 + 8), b1 - 8)) for a in top]
        elif len(top) == 1:
            a0, a1 = top[0]
            pairs = [(min(max(centre(b), a0 + 8), a1 - 8), centre(b)) for b in bottom]
        else:
            pairs = [(centre(a), centre(b)) for a in top for b in bottom]
        for xa, xb in pairs:
            line = self.addLine(xa, y0, xb, y1, pen)
            line.setZValue(-1)   # behind the boxes of a row the bundle passes
        self.drawn_bundles.append((len(pairs), text))
        per_rack = bundle.per_rack if bundle is not None else ()
        # A line per rack (a row drawn rack by rack at either end): each carries its rack's count,
        # near its rack's box.
        racks_at = top if len(top) == len(pairs) else bottom
        by_rack = len(per_rack) == len(pairs) == len(racks_at) and len(pairs) > 1
        self.rack_labels.append([bundle.rack_label(k) for k in range(len(pairs))] if by_rack and bundle else [])
        # Within the gap next to the racks' row; below the bundle's own label, above the caption
        # of the row it reaches.
        near = 0.35 * (ROW_GAP - BOX_H) / max(y1 - y0, 1.0)
        at = near if racks_at is top else 1 - 0.45 * (ROW_GAP - BOX_H) / max(y1 - y0, 1.0)
        for (xa, xb), rack_text in zip(pairs, self.rack_labels[-1], strict=False):
            self._rack_count(xa + (xb - xa) * at, y0 + (y1 - y0) * at, rack_text)
        if bundle is not None and bundle.per_rack and not by_rack:
            text = f"{text}; {bundle.racks_summary()}" if text else bundle.racks_summary()
        if text:
            label = self.addText(text)
            label.setDefaultTextColor(self.theme.text)
            label.setTextWidth(WIDTH * 0.5)
            box = label.boundingRect()
            # Just above the row it reaches, under any label already there (two bundles into one row).
            # (a label may wrap to two lines: the next starts below its actual height)
            x, y = 4, self._label_bottom.get(y1, y1 - ROW_GAP * 0.66)
            self._label_bottom[y1] = y + box.height() + 2
            paper = QColor(self.theme.background)
            paper.setAlpha(230)
            back = self.addRect(QRectF(x, y, box.width(), box.height()), QPen(Qt.PenStyle.NoPen), QBrush(paper))
            back.setZValue(1)
            label.setZValue(2)
            label.setPos(x, y)

    def _rack_count(self, x: float, y: float, text: str) -> None:
        """One rack's count on its line ('29 x 1G'), on one line centred on it, on the paper colour."""
        label = self.addText(text)
        label.setDefaultTextColor(self.theme.text)
        box = label.boundingRect()
        paper = QColor(self.theme.background)
        paper.setAlpha(230)
        back = self.addRect(QRectF(x - box.width() / 2, y - box.height() / 2, box.width(), box.height()),
                            QPen(Qt.PenStyle.NoPen), QBrush(paper))
        back.setZValue(1)
        label.setZValue(2)
        label.setPos(x - box.width() / 2, y - box.height() / 2)


def _centred():
    from PySide6.QtGui import QTextOption

    option = QTextOption()
    option.setAlignment(Qt.AlignmentFlag.AlignHCenter)
    option.setWrapMode(QTextOption.WrapMode.WordWrap)
    return option


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
