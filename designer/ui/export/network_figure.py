"""One network of the cluster as a picture for SVG, PDF or PNG: the network canvas's drawing,
fitted to the page, so the exported file shows what the window's network view shows.

It stands where the exporters take a `Figure` (svg.py, pdf.py, png.py): a design, a spec with the
page size, `describe()` and `paint(painter)`.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QGraphicsScene

from designer.catalog import Catalog
from designer.model.intent.design import FabricDesign
from designer.ui.canvas.network_view import NetworkDrawing
from designer.ui.export.figure import FigureSpec
from designer.ui.theme import Theme

MARGIN = 0.03      # of the page's shorter side, around the drawing


class NetworkRefused(ValueError):
    """The design has no such network; the message says which it has."""


class NetworkFigure:
    def __init__(self, design: FabricDesign, role: str, catalog: Catalog, spec: FigureSpec | None = None,
                 theme: Theme | None = None):
        if design.network(role) is None:
            have = ", ".join(n.role for n in design.networks) or "none"
            raise NetworkRefused(f"the design has no network '{role}' (its networks: {have})")
        self.design = design
        self.role = role
        self.spec = spec or FigureSpec()
        self.drawing = NetworkDrawing(catalog, theme or Theme())
        # Off the UI thread a scene's index would need timers the worker has no event loop for:
        # a picture of a few dozen items is drawn without one.
        self.drawing.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.NoIndex)
        self.drawing.draw(design, role)

    def describe(self) -> str:
        size = self.drawing.size
        label = size.label if size is not None else self.role
        return f"{label} of {self.design.meta.name or 'an untitled design'}: its switches, racks and link bundles"

    def paint(self, painter: QPainter) -> None:
        """Fill the painter's device with the page colour and the network, fitted and centred."""
        device = painter.device()
        page = QRectF(0, 0, device.width(), device.height())
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        painter.fillRect(page, QColor(self.drawing.theme.background))
        margin = MARGIN * min(page.width(), page.height())
        source = self.drawing.itemsBoundingRect().adjusted(-10, -10, 10, 10)
        room = page.adjusted(margin, margin, -margin, -margin)
        scale = min(room.width() / source.width(), room.height() / source.height())
        target = QRectF(0, 0, source.width() * scale, source.height() * scale)
        target.moveCenter(room.center())
        self.drawing.render(painter, target, source, Qt.AspectRatioMode.KeepAspectRatio)
