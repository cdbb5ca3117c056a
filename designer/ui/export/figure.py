"""One picture of a design for SVG, PDF or PNG: a title line, the diagram and its legend.

The exporters differ only in their paint device; this module lays out the picture on a page
of a given size in points and paints it with `Ink`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QPainter

from designer.catalog import Catalog
from designer.model.intent.design import FabricDesign
from designer.model.intent.slides import Slide
from designer.model.topology.derive import derive
from designer.ui.export import page
from designer.ui.export.diagram import Diagram, DiagramSource, View
from designer.ui.export.ink import Ink

DEFAULT_WIDTH_IN = 13.333    # a 16:9 slide, as presentation software makes them
DEFAULT_HEIGHT_IN = 7.5
MIN_SIDE_IN = 2.0
MAX_SIDE_IN = 100.0


@dataclass(frozen=True)
class FigureSpec:
    """What to draw and how large: the page size in inches, the view, whether to add a title line."""

    width_in: float = DEFAULT_WIDTH_IN
    height_in: float = DEFAULT_HEIGHT_IN
    slide: Slide | None = None
    title: bool = True
    links: str = "bundles"       # "each": the link-by-link drawing instead of labelled bundles

    def __post_init__(self):
        for name in ("width_in", "height_in"):
            value = getattr(self, name)
            if not MIN_SIDE_IN <= value <= MAX_SIDE_IN:
                raise ValueError(f"figure {name.split('_')[0]} must be {MIN_SIDE_IN:g} to {MAX_SIDE_IN:g} inches, "
                                 f"got {value:g}")

    @property
    def width_pt(self) -> float:
        return self.width_in * 72

    @property
    def height_pt(self) -> float:
        return self.height_in * 72


class Figure:
    """A design's picture; `paint` draws it on any device whose painter is active."""

    def __init__(self, design: FabricDesign, spec: FigureSpec | None = None, catalog: Catalog | None = None):
        self.design = design
        self.spec = spec or FigureSpec()
        derived = derive(design, catalog)
        self.derived = derived
        self.source = DiagramSource(design, catalog, derived)
        self.diagram = Diagram(self.source, dataclasses.replace(View.of(self.spec.slide), links=self.spec.links))
        self.ink: Ink | None = None

    def describe(self) -> str:
        """A one-line description (SVG <desc>, PDF subject)."""
        return f"{page.describe(self.design, self.derived)}; {self.derived.resolved.technology.name}; " \
               f"{self.diagram.title()}"

    def paint(self, painter: QPainter) -> Ink:
        """Paint the figure filling the painter's device (its size taken from the spec)."""
        ink = Ink(painter)
        self.ink = ink
        spec = self.spec
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        full = ink.rect(0, 0, spec.width_pt, spec.height_pt)
        painter.fillRect(full, ink.theme.background)
        # Margins and type grow a little with the page, so a poster is not all diagram and hairlines.
        scale = max(0.8, min(2.0, spec.height_pt / 540))
        margin = ink.pt(24 * scale)
        body = full.adjusted(margin, margin * 0.8, -margin, -margin * 0.8)
        y = body.top()
        if spec.title:
            name_h = ink.line_height(14 * scale, True)
            left = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
            ink.text(QRectF(body.left(), y, body.width() * 0.62, name_h), self.design.meta.name or "Untitled fabric",
                     14 * scale, ink.theme.text, bold=True, align=left, elide=True)
            right = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
            ink.text(QRectF(body.left() + body.width() * 0.62, y, body.width() * 0.38, name_h),
                     [f"{self.derived.resolved.technology.name} · {self.diagram.title()}", self.diagram.title()],
                     9 * scale, ink.theme.muted, align=right, elide=True)
            y += name_h
            sub_h = ink.line_height(8.5 * scale)
            ink.text(QRectF(body.left(), y, body.width(), sub_h), page.describe(self.design, self.derived),
                     8.5 * scale, ink.theme.muted, align=left, elide=True)
            y += sub_h + ink.pt(8 * scale)
        entries = self.source.legend_entries(ink.theme)
        legend_h = page.legend_height(ink, body.width(), entries, scale)
        diagram_rect = QRectF(body.left(), y, body.width(), body.bottom() - y - legend_h - ink.pt(10 * scale))
        self.diagram.ts = scale
        self.diagram.paint(ink, diagram_rect)
        page.legend(ink, QRectF(body.left(), body.bottom() - legend_h, body.width(), legend_h), entries, scale)
        return ink
