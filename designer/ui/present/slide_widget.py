"""The presentation surface: one slide at a time, drawn like a page of the report.

A slide is laid out on a 540-point-high page as wide as the screen's proportions, then
scaled to the screen: labels are as large on a projector as on a laptop. It shows the
title block, the slide's view of the fabric (or two fabrics side by side for a comparison),
the legend and a strip of key metrics, in the light paper theme.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QRectF, Qt, Signal
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QWidget

from designer.model.intent.slides import Slide
from designer.ui.export import page
from designer.ui.export.diagram import Diagram, DiagramSource, View
from designer.ui.export.facts import Facts
from designer.ui.export.ink import Ink, paper_theme
from designer.ui.export.report_pages import side_by_side

if TYPE_CHECKING:
    from designer.model.decisions.comparison import Comparison

PAGE_HEIGHT_PT = 540.0        # a 16:9 slide is 960 x 540 points
TEXT_SCALE = 1.2              # diagram labels on slides: larger than on paper
SLIDE_CARDS = ("GPUs", "Switches", "Bisection", "Max hops", "Network cost", "Network power", "All-reduce busbw")

NEXT_KEYS = {Qt.Key.Key_Right, Qt.Key.Key_Down, Qt.Key.Key_PageDown, Qt.Key.Key_Space, Qt.Key.Key_Return,
             Qt.Key.Key_Enter}
PREVIOUS_KEYS = {Qt.Key.Key_Left, Qt.Key.Key_Up, Qt.Key.Key_PageUp, Qt.Key.Key_Backspace}
LEAVE_KEYS = {Qt.Key.Key_Escape, Qt.Key.Key_F5}


@dataclass
class SlideContent:
    """Everything one slide shows; `other`/`comparison` only for a comparison slide."""

    slide: Slide
    facts: Facts | None
    source: DiagramSource | None
    other: Facts | None = None
    comparison: Comparison | None = None
    error: str = ""          # why the slide cannot show its content
    pending: bool = False    # the content is being computed


class SlideWidget(QWidget):
    """Paints the current slide full-window and turns keys into navigation requests."""

    nextRequested = Signal()
    """The presenter asked for the next slide (Right, Down, Page Down, Space, Enter, a left click)."""

    previousRequested = Signal()
    """The presenter asked for the previous slide (Left, Up, Page Up, Backspace, a right click)."""

    leaveRequested = Signal()
    """The presenter asked to leave presentation mode (Esc or F5)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("presentationSlide")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setAutoFillBackground(False)
        self.theme = paper_theme()
        self.content: SlideContent | None = None
        self.position = (0, 0)         # (index, count)
        self.date = ""
        self.catalog = None
        self.last_ink: Ink | None = None

    def show_slide(self, content: SlideContent, index: int, count: int) -> None:
        self.content = content
        self.position = (index, count)
        self.update()

    # --- keys: every key is ours while presenting, so no window shortcut (Delete, Ctrl+Z) fires --

    def event(self, event) -> bool:
        if event.type() == QEvent.Type.ShortcutOverride:
            event.accept()
            return True
        return super().event(event)

    def keyPressEvent(self, event) -> None:
        key = event.key()
        if key in NEXT_KEYS:
            self.nextRequested.emit()
        elif key in PREVIOUS_KEYS:
            self.previousRequested.emit()
        elif key in LEAVE_KEYS:
            self.leaveRequested.emit()
        event.accept()

    def mousePressEvent(self, event) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.nextRequested.emit()
        elif event.button() == Qt.MouseButton.RightButton:
            self.previousRequested.emit()
        event.accept()

    # --- painting --------------------------------------------------------------------------------

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        try:
            self.paint_slide(painter, QRectF(self.rect()))
        finally:
            painter.end()

    def paint_slide(self, painter: QPainter, area: QRectF) -> Ink:
        u = max(area.height(), 1.0) / PAGE_HEIGHT_PT
        ink = Ink(painter, units_per_point=u, theme=self.theme)
        self.last_ink = ink
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        painter.fillRect(area, self.theme.background)
        margin = ink.pt(26)
        body = area.adjusted(margin, margin * 0.8, -margin, -margin * 0.7)
        footer_h = ink.line_height(8)
        self._footer(ink, QRectF(body.left(), body.bottom() - footer_h, body.width(), footer_h))
        body.setBottom(body.bottom() - footer_h - ink.pt(6))
        c = self.content
        if c is None:
            return ink
        if c.facts is None:
            self._message(ink, body, c.error or "Nothing to show.")
            return ink
        y = body.top()
        caption = c.slide.title or (Diagram(c.source, View.of(c.slide)).title() if c.source else "")
        y += page.title_block(ink, body, c.facts.design, c.facts.derived, self.date, 1.1, caption) + ink.pt(8)
        rest = QRectF(body.left(), y, body.width(), body.bottom() - y)
        if c.slide.kind == "comparison":
            self._comparison(ink, rest, c)
        else:
            self._fabric(ink, rest, c)
        return ink

    def _fabric(self, ink: Ink, rect: QRectF, c: SlideContent) -> None:
        s = 1.1
        assert c.facts is not None and c.source is not None   # a fabric slide is drawn only with both
        cards = [card for card in c.facts.cards() if card.title in SLIDE_CARDS]
        cards_h = page.cards_height(ink, s, len(cards), rect.width())
        entries = c.source.legend_entries(ink.theme)
        legend_h = page.legend_height(ink, rect.width(), entries, s)
        bottom = rect.bottom() - cards_h - legend_h - ink.pt(16)
        Diagram(c.source, View.of(c.slide), text_scale=TEXT_SCALE).paint(
            ink, QRectF(rect.left(), rect.top(), rect.width(), bottom - rect.top()))
        page.legend(ink, QRectF(rect.left(), bottom + ink.pt(8), rect.width(), legend_h), entries, s)
        page.cards(ink, QRectF(rect.left(), rect.bottom() - cards_h, rect.width(), cards_h), cards, s)

    def _comparison(self, ink: Ink, rect: QRectF, c: SlideContent) -> None:
        if c.pending:
            self._message(ink, rect, "Comparing the designs…")
            return
        if c.other is None:
            self._message(ink, rect, c.error or "No design to compare with.")
            return
        assert c.facts is not None   # checked before a slide's body is drawn
        verdict = ""
        if c.comparison is not None:
            verdict = "Recommendation (heuristic): " + c.comparison.recommendation.verdict
        verdict_h = ink.paragraph_height(rect.width(), verdict, 10, True) if verdict else 0.0
        side_by_side(ink, QRectF(rect.left(), rect.top(), rect.width(), rect.height() - verdict_h - ink.pt(8)),
                     c.facts, c.other, self.catalog, 1.05)
        if verdict:
            ink.paragraph(QRectF(rect.left(), rect.bottom() - verdict_h, rect.width(), verdict_h), verdict, 10,
                          ink.theme.text, bold=True)

    def _message(self, ink: Ink, rect: QRectF, text: str) -> None:
        width = min(rect.width(), ink.pt(520))
        height = ink.paragraph_height(width, text, 14) + ink.pt(4)
        ink.paragraph(QRectF(rect.center().x() - width / 2, rect.center().y() - height / 2, width, height), text, 14,
                      ink.theme.muted)

    def _footer(self, ink: Ink, rect: QRectF) -> None:
        index, count = self.position
        t = ink.theme
        ink.text(QRectF(rect.left(), rect.top(), rect.width() * 0.5, rect.height()),
                 "← → or Page Up / Page Down: slides · Esc: leave", 8, t.muted, align=page.LEFT)
        if count:
            ink.text(QRectF(rect.left() + rect.width() * 0.5, rect.top(), rect.width() * 0.5, rect.height()),
                     f"Slide {index + 1} / {count}", 8, t.muted, align=page.RIGHT)
