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


class NetworkDrawing(QGraphicsScene):
    """Draws one network of a design: the window's network canvas, and its exports, which draw it
    the same way off the UI thread."""

    def __init__(self, catalog: Catalog, theme: Theme | None = None, parent=None):
        super().__init__(parent)
        self.catalog = catalog
        self.theme = theme or Theme()
        self.size: NetworkSize | None = None
        self.rows: list[Row] = []
        self.drawn_bundles: list[tuple[int, str]] = []   # (lines drawn, label) per bundle, for the tests
        self.rack_labels: list[list[str]] = []           # per bundle: the count on each rack's line
        self.pair_lines: list[int] = []                  # lines drawn from each leaf pair, in pair order
        self._label_bottom: dict[float, float] = {}   # per row reached: where the next bundle label may start

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self._redraw()

    def _redraw(self, *_: object) -> None:
        """Draw again what is shown (the canvas follows its controller)."""

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

    def draw(self, design: FabricDesign | None, role: str) -> None:
        """Draw network `role` of `design` (nothing for the compute fabric or a network it lacks)."""
        self.clear()
        self.size = self._sized(design, role) if design is not None and role != "compute" else None
        self.rows = []
        self.drawn_bundles = []
        self.rack_labels = []
        self.pair_lines = []
        if self.size is None or design is None:
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
        self.pair_lines = []
        self._label_bottom = {}
        racks = self.size.racks
        # Leaf pairs drawn one box each, joined to the racks the model gives them.
        by_pair = next((b for b in bundles if b.by_pair and len(b.by_pair) <= MAX_BOXES), None)
        spans: list[list[tuple[float, float]]] = []     # per row: each box's left and right edge
        rack_rows: set[int] = set()                      # rows drawn one box per rack
        for i, row in enumerate(rows):
            y = i * ROW_GAP
            if by_pair is not None and i == by_pair.upper:
                boxes = [f"Leaf pair {p + 1}\n{by_pair.pair_racks_label(p)}" for p in range(len(by_pair.by_pair))]
                pairs = len(by_pair.by_pair)
                text = (f"leaves: {row.count:,} in {pairs:,} pair{'s' if pairs != 1 else ''}"
                        + (f" · {row.detail}" if row.detail else ""))
            elif by_pair is not None and i == by_pair.lower:
                boxes, racked = self._served_boxes(self.size, by_pair)
                if racked:
                    rack_rows.add(i)
                text = f"{row.title}: {row.count:,}" + (f" · {row.detail}" if row.detail else "")
            else:
                boxes = self._boxes_of(row, racks)
                if racks > 1 and len(boxes) == racks and boxes[0].startswith("Rack "):
                    rack_rows.add(i)
                text = (f"{row.title}: {row.count:,}" + (f" · {row.detail}" if row.detail else "")
                        if row.count else row.title + (f" ({row.detail})" if row.detail else ""))
            caption = self.addText(text)
            caption.setTextWidth(WIDTH)
            caption.setDefaultTextColor(t.text)
            caption.setPos(0, y - caption.boundingRect().height() - 2)
            step = WIDTH / max(len(boxes), 1)
            hue = ROW_HUES.get(row.key, "servers")
            # A row of none (a segment's carrier, merged leaves) is a dashed stand-in, not a switch.
            pen = QPen(t.tier_border(hue), 1.4, Qt.PenStyle.SolidLine if row.count else Qt.PenStyle.DashLine)
            row_spans = []
            for k, box_text in enumerate(boxes):
                x0, x1 = step * k + step * 0.06, step * (k + 1) - step * 0.06
                fill = QBrush(t.tier_fill(hue) if row.count else QColor(t.grid))
                self.addRect(QRectF(x0, y, x1 - x0, BOX_H), pen, fill)
                label = self.addText(box_text)
                label.setDefaultTextColor(t.text)
                label.setTextWidth(x1 - x0)
                doc = label.document()
                doc.setDefaultTextOption(_centred())
                # A narrow box (a rack of many) wraps to three lines: the text shrinks a little to fit.
                base = label.font().pointSizeF()
                while label.boundingRect().height() > BOX_H and label.font().pointSizeF() > 0.8 * base:
                    smaller = QFont(label.font())
                    smaller.setPointSizeF(smaller.pointSizeF() * 0.95)
                    label.setFont(smaller)
                label.setPos(x0, y + (BOX_H - label.boundingRect().height()) / 2)
                row_spans.append((x0, x1))
            spans.append(row_spans)
        family = "infiniband" if self.size.technology.startswith("ib-") else "ethernet"
        for bundle in bundles:
            upper, lower = bundle.upper, bundle.lower
            edges = self._pair_edges(bundle, upper in rack_rows or lower in rack_rows) \
                if bundle is by_pair else None
            self._bundle(spans[upper], spans[lower], upper * ROW_GAP + BOX_H, lower * ROW_GAP,
                         bundle.text or self._implied(rows[upper], rows[lower]), family, bundle,
                         one_to_one=upper in rack_rows and lower in rack_rows, edges=edges)
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
        noun = "spine" if row.key == "spine" else \
            "switch" if row.key not in ("servers", "endpoints", "storage") else row.key.rstrip("s")
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

    @staticmethod
    def _served_boxes(size: NetworkSize, bundle: Bundle) -> tuple[list[str], bool]:
        """The servers' row under leaf pairs: a box per rack where racks are few (True), else a
        box per leaf pair's group of racks (False); each with its servers."""
        if size.racks <= MAX_BOXES:
            servers = [0] * size.racks
            for served in size.pair_racks:
                for rack, n in served:
                    servers[rack] += n
            return [f"Rack {k + 1}\n{n:,} server{'s' if n != 1 else ''}" for k, n in enumerate(servers)], True
        return [f"{bundle.pair_racks_label(p).capitalize()}\n{sum(n for _, n in served):,} servers"
                for p, served in enumerate(size.pair_racks)], False

    @staticmethod
    def _pair_edges(bundle: Bundle, to_racks: bool) -> list[tuple[int, int, str]]:
        """(leaf pair box, box below, its links) for each line: a pair to each rack it serves, or
        to its own group of racks."""
        if to_racks:
            return [(p, rack, f"{links:,} x {bundle.gbps:g}G")
                    for p, served in enumerate(bundle.by_pair) for rack, links in served]
        return [(p, p, f"{sum(n for _, n in served):,} x {bundle.gbps:g}G")
                for p, served in enumerate(bundle.by_pair)]

    def _bundle(self, top: list[tuple[float, float]], bottom: list[tuple[float, float]], y0: float, y1: float,
                text: str, family: str, bundle: Bundle | None = None, one_to_one: bool = False,
                edges: list[tuple[int, int, str]] | None = None) -> None:
        """One line per pair of boxes that face each other: box to box where both rows are drawn
        rack by rack, the given `edges` where the model says which box serves which (leaf pairs
        to their racks), else each box of the smaller row to every box of the other, fanned over
        the wide box when one row is a single box; labelled once with its count."""
        pen = QPen(self.theme.link(family, 170), 3.0)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)

        def centre(span):
            return (span[0] + span[1]) / 2

        pairs: list[tuple[float, float]] = []
        line_labels: list[str] = []
        if edges is not None:
            pairs = [(centre(top[a]), centre(bottom[b])) for a, b, _ in edges]
            line_labels = [label for _, _, label in edges]
            self.pair_lines = [sum(1 for a, _, _ in edges if a == p) for p in range(len(top))]
        elif one_to_one and len(top) == len(bottom):
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
        if edges is not None:
            racks_at = bottom
            self.rack_labels.append(line_labels if len(bottom) == len(per_rack) else [])
        else:
            self.rack_labels.append([bundle.rack_label(k) for k in range(len(pairs))]
                                    if by_rack and bundle else [])
        # Within the gap next to the racks' row; below the bundle's own label, above the caption
        # of the row it reaches.
        near = 0.35 * (ROW_GAP - BOX_H) / max(y1 - y0, 1.0)
        at = near if racks_at is top else 1 - 0.45 * (ROW_GAP - BOX_H) / max(y1 - y0, 1.0)
        for (xa, xb), rack_text in zip(pairs, line_labels or self.rack_labels[-1], strict=False):
            # Lines from a leaf pair converge on it: each count sits above its own rack instead.
            x = xb if edges is not None else xa + (xb - xa) * at
            self._rack_count(x, y0 + (y1 - y0) * at, rack_text)
        if edges is not None and bundle is not None:
            text = "; ".join(t for t in (text, bundle.pair_summary()) if t)
        elif bundle is not None and bundle.per_rack and not by_rack:
            text = "; ".join(t for t in (text, bundle.racks_summary(), bundle.pair_summary()) if t)
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


class NetworkScene(NetworkDrawing):
    """Draws the network `controller.network` of the design the controller shows."""

    def __init__(self, controller, theme: Theme | None = None, parent=None):
        super().__init__(controller.catalog, theme, parent)
        self.controller = controller
        controller.displayChanged.connect(self._redraw)
        controller.networkChanged.connect(self._redraw)
        self._redraw()

    def _redraw(self, *_: object) -> None:
        self.draw(self.controller.display.design, self.controller.network)


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
