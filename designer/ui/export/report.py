"""The design report: a multi-page vector PDF for people who will never install the tool.

Pages: overview (title block, diagram, legend, key metrics); details of one SU or pod when
the overview draws the fabric aggregated (or the design's saved slides); the metrics summary;
the BOM by category; the collective curves; and, given a second design, the comparison.
Every page has a running header and a footer with the page number and date.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF
from PySide6.QtGui import QPainter

from designer.catalog import Catalog, default_catalog
from designer.io.atomic import write_atomic
from designer.model.intent.design import FabricDesign
from designer.model.networks.arrangements import Arrangement, arrangements
from designer.model.networks.bom import NetworkBom, compute_switch_count, network_boms
from designer.model.physical.prices import default_prices
from designer.ui.export import page
from designer.ui.export.comparison_pages import comparison_pages
from designer.ui.export.cost_page import cost_page
from designer.ui.export.diagram import Diagram, DiagramSource, View
from designer.ui.export.facts import Facts, today
from designer.ui.export.ink import Ink
from designer.ui.export.network_pages import arrangements_page, cluster_page, network_page
from designer.ui.export.pdf import pdf_writer
from designer.ui.export.report_pages import (
    bom_page,
    collectives_page,
    comparison_diagrams_page,
    metrics_page,
    resilience_page,
)

PAGE_SIZES = {"a4": (11.69, 8.27), "letter": (11.0, 8.5)}   # landscape, inches
MARGIN_PT = 36.0
MAX_DETAIL_PAGES = 6


@dataclass
class Page:
    section: str                     # running header, and what tests look for
    draw: Callable[[Ink, QRectF], None] | None = None
    # A section that takes as many pages as its content needs: laid out with the page's Ink and
    # body before anything is drawn (so every page knows the count), one drawing per page.
    split: Callable[[Ink, QRectF], list[Callable[[Ink, QRectF], None]]] | None = None

    def expand(self, ink: Ink, body: QRectF) -> list[Page]:
        """This page, or its section's pages: the first under its own name, then "(continued)"."""
        if self.split is None:
            return [self]
        return [Page(self.section if k == 0 else f"{self.section} (continued)", draw)
                for k, draw in enumerate(self.split(ink, body))]


@dataclass
class Report:
    """A report about `design`, optionally compared with `other`."""

    design: FabricDesign
    other: FabricDesign | None = None
    catalog: Catalog | None = None
    date: str = field(default_factory=today)
    page_size: str = "a4"
    # Further designs for the comparison (after `other`), e.g. every Ethernet counterpart.
    extra: tuple[FabricDesign, ...] = ()

    def __post_init__(self):
        if self.page_size not in PAGE_SIZES:
            raise ValueError(f"page size must be one of {', '.join(PAGE_SIZES)}, got '{self.page_size}'")
        self.catalog = self.catalog or default_catalog()
        self.facts = Facts.gather(self.design, self.catalog)
        self.source = DiagramSource(self.design, self.catalog, self.facts.derived)
        self.other_facts = Facts.gather(self.other, self.catalog) if self.other is not None else None
        self.comparison = None
        self.sections: list[str] = []        # every page's section once rendered
        self._sections: tuple[NetworkBom, ...] | None = None
        if self.other is not None:
            from designer.model.decisions.comparison import compare

            self.comparison = compare([self.design, self.other, *self.extra], catalog=self.catalog)

    # --- pages -----------------------------------------------------------------------------

    def detail_views(self) -> list[tuple[str, View]]:
        """Extra diagram pages: the saved slides, else SU (or pod) 1 when the overview aggregates."""
        saved = [s for s in self.design.slides if s.kind != "comparison" and not (s.kind == "fabric" and s.whole)]
        if saved:
            return [(s.title or Diagram(self.source, View.of(s)).title(), View.of(s)) for s in saved][:MAX_DETAIL_PAGES]
        if self.source.columns > 1:
            noun = self.source.column_noun
            return [(f"{noun} 1 in detail", View("su", su=0))]
        return []

    def network_sections(self) -> tuple[NetworkBom, ...]:
        """The BOM of every network beside the compute fabric (none for a compute-only design)."""
        if not self.design.networks or self.facts.bom is None:
            return ()
        if self._sections is None:
            self._sections = network_boms(self.design, self.catalog or default_catalog(), default_prices(),
                                          compute_switch_count(self.facts.bom))
        return self._sections

    def network_arrangements(self) -> tuple[Arrangement, ...]:
        return arrangements(self.design, self.catalog or default_catalog(), default_prices())

    def pages(self) -> list[Page]:
        out = [Page("Overview", self._overview)]
        for title, view in self.detail_views():
            out.append(Page(f"Diagram: {title}", partial(self._detail, title=title, view=view)))
        out.append(Page("Metrics summary", lambda ink, rect: metrics_page(ink, rect, self.facts)))
        out.append(Page("Bill of materials", lambda ink, rect: bom_page(ink, rect, self.facts)))
        for section in self.network_sections():
            out.append(Page(f"Network: {section.size.label}",
                            partial(network_page, section=section, currency=self.facts.bom.currency)))
        if self.network_sections():
            out.append(Page("Whole cluster", lambda ink, rect: cluster_page(
                ink, rect, self.facts.bom, self.network_sections())))
        if self.design.networks and self.facts.bom is not None:
            out.append(Page("Network arrangements", lambda ink, rect: arrangements_page(
                ink, rect, self.network_arrangements(), self.facts.bom.currency)))
        out.append(Page("Collective performance (estimate)", lambda ink, rect: collectives_page(ink, rect, self.facts)))
        if self.comparison is not None:
            out.append(Page("Comparison", split=lambda ink, rect: comparison_pages(ink, rect, self.comparison)))
            if self.comparison.costs:
                out.append(Page("Comparison: cost per token", lambda ink, rect: cost_page(ink, rect, self.comparison)))
            out.append(Page("Comparison: diagrams", lambda ink, rect: comparison_diagrams_page(
                ink, rect, self.facts, self.other_facts, self.catalog)))
        out.append(Page("Resilience and growth", lambda ink, rect: resilience_page(ink, rect, self.facts)))
        return out

    def _overview(self, ink: Ink, rect: QRectF) -> None:
        f = self.facts
        y = rect.top()
        errors = f.metrics.errors
        caption = f"{len(errors)} error{'s' if len(errors) != 1 else ''} in this design: see the metrics summary" \
            if errors else ""
        y += page.title_block(ink, rect, self.design, f.derived, self.date, caption=caption, alert=bool(errors))
        y += ink.pt(10)
        cards = f.cards()
        cards_h = page.cards_height(ink, count=len(cards), width=rect.width())
        entries = self.source.legend_entries(ink.theme)
        legend_h = page.legend_height(ink, rect.width(), entries)
        bottom = rect.bottom() - cards_h - ink.pt(10) - legend_h - ink.pt(8)
        diagram = Diagram(self.source, View())
        diagram.paint(ink, QRectF(rect.left(), y, rect.width(), bottom - y))
        page.legend(ink, QRectF(rect.left(), bottom + ink.pt(8), rect.width(), legend_h), entries)
        page.cards(ink, QRectF(rect.left(), rect.bottom() - cards_h, rect.width(), cards_h), cards)
        self.overview_lods = diagram.lods()

    def _detail(self, ink: Ink, rect: QRectF, title: str, view: View) -> None:
        y = rect.top() + page.section_title(ink, rect, title, self.design.meta.name)
        entries = self.source.legend_entries(ink.theme)
        legend_h = page.legend_height(ink, rect.width(), entries)
        diagram = Diagram(self.source, view)
        diagram.paint(ink, QRectF(rect.left(), y, rect.width(), rect.bottom() - y - legend_h - ink.pt(10)))
        page.legend(ink, QRectF(rect.left(), rect.bottom() - legend_h, rect.width(), legend_h), entries)

    # --- output ----------------------------------------------------------------------------

    def render(self) -> tuple[bytes, list[Ink]]:
        """The PDF's bytes, and the Ink of each page (what was drawn, for checks).

        Sets `sections`, the running header of every page as drawn (a section may take several).
        """
        width_in, height_in = PAGE_SIZES[self.page_size]
        data = QByteArray()
        buffer = QBuffer(data)
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        writer = pdf_writer(buffer, width_in, height_in, f"{self.design.meta.name}: fabric design report")
        painter = QPainter(writer)
        inks = []

        def body_of(ink: Ink) -> QRectF:
            margin = ink.pt(MARGIN_PT)
            return ink.rect(0, 0, width_in * 72, height_in * 72).adjusted(margin, margin * 1.05, -margin,
                                                                          -margin * 1.05)

        try:
            measure = Ink(painter)
            pages = [one for p in self.pages() for one in p.expand(measure, body_of(measure))]
            self.sections = [p.section for p in pages]
            for number, p in enumerate(pages, 1):
                if number > 1:
                    writer.newPage()
                ink = Ink(painter, like=measure)   # one set of fonts and measured widths for every page
                painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
                full = ink.rect(0, 0, width_in * 72, height_in * 72)
                page.header_footer(ink, full, ink.pt(MARGIN_PT), self.design.meta.name, p.section, number,
                                   len(pages), self.date)
                assert p.draw is not None    # expanded above
                p.draw(ink, body_of(ink))
                inks.append(ink)
        finally:
            painter.end()
        buffer.close()
        return bytes(data.data()), inks


def export_report(design: FabricDesign, path: str | os.PathLike, other: FabricDesign | None = None,
                  catalog: Catalog | None = None, page_size: str = "a4", date: str | None = None,
                  extra: tuple[FabricDesign, ...] = ()) -> Report:
    """Write the report as PDF, atomically; returns the Report (its pages, for a summary)."""
    report = Report(design, other, catalog, date or today(), page_size, extra)
    data, _ = report.render()
    write_atomic(path, data)
    return report
