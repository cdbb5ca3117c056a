"""The canvas view: zoom, pan, fit, level of detail, and routing gestures to interactions.

Wide fabrics are far wider than tall (a 32K-GPU fabric has a thousand leaves in a row), so
zoom is horizontal first: the x scale follows the wheel, while the y scale stays within a
band that keeps every row readable and the whole height in view. Items draw text and lines
in screen pixels, so the unequal scales never distort them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRect, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPen, QTransform
from PySide6.QtWidgets import QFrame, QGraphicsView, QLabel

from designer.ui.canvas.interactions import PRESS_INTERACTIONS, DropInteraction, Interaction
from designer.ui.canvas.layout import BOX_HEIGHT, parse_device_id
from designer.ui.canvas.legend import LegendWidget, RowHeaderWidget
from designer.ui.canvas.lod import DEVICE, DEVICE_MIN_PX, row_lod
from designer.ui.canvas.scene import FabricScene
from designer.ui.canvas.tier_item import label_font
from designer.ui.theme import Theme

MARGIN_PX = 36.0      # around the fabric after fit
HANDLE_PX = 48.0      # room right of the rows for the resize handles
MAX_SCALE = 4.0
Y_MAX = 1.5
WHEEL_STEP = 1.25     # zoom factor per wheel notch


class FabricView(QGraphicsView):
    """Shows the fabric scene; every mouse gesture is handled by one Interaction class."""

    if TYPE_CHECKING:   # it shows only the fabric scene, whose own methods it calls
        def scene(self) -> FabricScene: ...

    zoomChanged = Signal(float)
    """The horizontal zoom changed; carries the scale (1.0 = one scene unit per pixel)."""

    contextMenuRequested = Signal(object, object)
    """A context menu is wanted; carries the element id under the pointer (or None) and the global QPoint."""

    def __init__(self, scene: FabricScene, parent=None):
        super().__init__(scene, parent)
        self.controller = scene.controller
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        # Labels are placed relative to the visible part of a row, so redraw the whole viewport.
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.FullViewportUpdate)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.NoAnchor)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setDragMode(QGraphicsView.DragMode.NoDrag)
        self.setAcceptDrops(True)
        self.setMouseTracking(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setToolTip("")
        self.theme = scene.theme
        self._sx = 1.0
        self._fit_pending = True
        self._zoomed = False   # the user zoomed since the last fit: the view stays as they left it
        self.space_held = False
        self._active: Interaction | None = None
        self._drop = DropInteraction(self)
        self._drop_hint: str | None = None
        self.header = RowHeaderWidget(self)
        self.legend = LegendWidget(self)
        self.legend.planeChosen.connect(lambda plane: self.scene().controller.set_plane(plane))
        self._legend_wanted = True
        self.setViewportMargins(RowHeaderWidget.WIDTH, 0, 0, LegendWidget.HEIGHT)
        self.drag_label = QLabel(self.viewport())
        self.drag_label.setObjectName("dragCountLabel")
        self.drag_label.hide()
        self.drag_label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, True)
        scene.layoutChanged.connect(self._on_layout)
        scene.failureChanged.connect(self.legend.set_failure)
        scene.failureChanged.connect(lambda _failure: self._place_overlays())   # the legend may need a second line
        self.controller.displayChanged.connect(self._on_display)
        self.controller.focusRequested.connect(self.focus_element)
        self.horizontalScrollBar().valueChanged.connect(self.header.update)
        self.verticalScrollBar().valueChanged.connect(self.header.update)
        self._on_layout(scene.layout)

    # --- zoom --------------------------------------------------------------------------------

    @property
    def sx(self) -> float:
        return self._sx

    def _content(self) -> QRectF:
        return self.scene().content_rect()

    def _sy_for(self, sx: float) -> float:
        height = max(self._content().height() + 2 * MARGIN_PX, 1.0)
        fit_y = max(0.05, (self.viewport().height() - 2 * MARGIN_PX) / height)
        # Zoomed out, rows spread to fill the height (up to one unit per pixel); zoomed in,
        # both axes scale together up to Y_MAX.
        low = min(1.0, fit_y)
        return min(max(sx, low), max(low, Y_MAX))

    def min_scale(self) -> float:
        width = max(self._content().width(), 1.0)
        return min(0.2, 0.5 * (self.viewport().width() - 2 * MARGIN_PX - HANDLE_PX) / width)

    def set_zoom(self, sx: float, anchor: QPointF | None = None) -> None:
        """Set the horizontal scale, keeping the scene point under `anchor` (viewport pixels) still."""
        self._zoomed = True
        self._apply_zoom(sx, anchor)

    def _apply_zoom(self, sx: float, anchor: QPointF | None = None) -> None:
        sx = max(self.min_scale(), min(MAX_SCALE, sx))
        if anchor is None:
            anchor = QPointF(self.viewport().width() / 2, self.viewport().height() / 2)
        fixed = self.mapToScene(anchor.toPoint())
        sy = self._sy_for(sx)
        self._sx = sx
        self.setTransform(QTransform.fromScale(sx, sy))
        self._update_scene_rect()
        # Scroll so that `fixed` is under `anchor` again.
        center = QPointF(fixed.x() - (anchor.x() - self.viewport().width() / 2) / sx,
                         fixed.y() - (anchor.y() - self.viewport().height() / 2) / sy)
        self.centerOn(center)
        self.header.update()
        self.zoomChanged.emit(sx)

    def zoom_by(self, factor: float, anchor: QPointF | None = None) -> None:
        self.set_zoom(self._sx * factor, anchor)

    def fit(self) -> None:
        """Fit the whole fabric into the window (F)."""
        content = self._content()
        vw = max(self.viewport().width() - 2 * MARGIN_PX - HANDLE_PX, 50)
        sx = max(self.min_scale(), min(MAX_SCALE, 1.6, vw / max(content.width(), 1.0)))
        self._sx = sx
        sy = self._sy_for(sx)
        self.setTransform(QTransform.fromScale(sx, sy))
        self._update_scene_rect()
        self.centerOn(QPointF(content.center().x() + HANDLE_PX / 2 / sx, content.center().y()))
        self._fit_pending = False
        self._zoomed = False
        self.header.update()
        self.zoomChanged.emit(sx)

    def _update_scene_rect(self) -> None:
        content = self._content()
        sy = self.transform().m22() or 1.0
        sx = self._sx
        self.setSceneRect(content.adjusted(-MARGIN_PX / sx, -MARGIN_PX / sy,
                                           (MARGIN_PX + HANDLE_PX) / sx, MARGIN_PX / sy))

    def scroll_by(self, dx: float, dy: float) -> None:
        h, v = self.horizontalScrollBar(), self.verticalScrollBar()
        h.setValue(h.value() + round(dx))
        v.setValue(v.value() + round(dy))

    def focus_element(self, element: str) -> None:
        """Bring an element into view, zooming in far enough to see it on its own if it is a device;
        a switch of another plane brings its plane up first."""
        parsed = parse_device_id(element)
        layout = self.scene().layout
        if parsed is not None and layout is not None and parsed[0] != "servers" and parsed[2] != layout.plane:
            self.scene().controller.set_plane(parsed[2])
        pos = self.scene().element_position(element)
        if pos is None:
            return
        layout = self.scene().layout
        if parsed is not None and layout is not None and parsed[0] in layout.rows:
            row = layout.rows[parsed[0]]
            if row_lod(row, self._sx) != DEVICE:
                self.set_zoom(max(self._sx, (DEVICE_MIN_PX + 14) / row.pitch))
        self.centerOn(pos)
        self.header.update()

    # --- following the scene -------------------------------------------------------------------

    def _on_layout(self, layout) -> None:
        self.legend.set_layout(layout)
        self._place_overlays()
        if layout is None:
            self.setSceneRect(self.scene().content_rect())
        elif not self._fit_pending:
            self._update_scene_rect()
        self.header.update()
        self.viewport().update()

    def _on_display(self, display) -> None:
        if display.reset_view:
            self._fit_pending = True
        if self._fit_pending and display.layout is not None and self.isVisible():
            self.fit()
        elif (not display.preview and not self._zoomed and display.layout is not None and self.isVisible()
              and self._outgrown()):
            # The fabric grew past the window (an edit, not a drag in progress): show it whole again.
            self.fit()

    def _outgrown(self) -> bool:
        room = self.viewport().width() - 2 * MARGIN_PX - HANDLE_PX
        return self._content().width() * self._sx > room + 1

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.legend.set_theme(theme)
        self.header.set_theme(theme)
        self.setBackgroundBrush(theme.background)
        self.viewport().update()

    def set_legend_visible(self, visible: bool) -> None:
        self._legend_wanted = visible
        self.legend.setVisible(visible)
        self._place_overlays()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._place_overlays()
        if (self._fit_pending or not self._zoomed) and self.scene().layout is not None:
            self.fit()   # a view the user has not zoomed stays fitted to the window as it changes size
        else:
            self._apply_zoom(self._sx)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._fit_pending and self.scene().layout is not None:
            self.fit()

    def _place_overlays(self) -> None:
        vp = self.viewport()
        width = vp.width() + RowHeaderWidget.WIDTH
        # The legend takes a second line on a narrow canvas rather than cut an entry short.
        height = self.legend.needed_height(width) if self._legend_wanted else 0
        if self.viewportMargins().bottom() != height:
            self.setViewportMargins(RowHeaderWidget.WIDTH, 0, 0, height)
            vp = self.viewport()
        self.header.setGeometry(vp.x() - RowHeaderWidget.WIDTH, vp.y(), RowHeaderWidget.WIDTH, vp.height())
        self.legend.setGeometry(vp.x() - RowHeaderWidget.WIDTH, vp.y() + vp.height(), width, max(height, 1))
        self.legend.place_box()

    # --- hit testing used by interactions -----------------------------------------------------------

    def element_at(self, view_pos: QPointF) -> str | None:
        return self.scene().element_at(self.mapToScene(view_pos.toPoint()), self._sx)

    def device_at(self, scene_pos: QPointF) -> str | None:
        """The device the pointer aims at in a row, even where the row is drawn aggregated."""
        row = self.scene().row_at(scene_pos)
        if row is None or row.row is None:
            return None
        return self.scene().device_id(row.tier, row.row.nearest_device(scene_pos.x()))

    # --- mouse and keyboard -----------------------------------------------------------------------

    def mousePressEvent(self, event) -> None:
        if self._active is not None:
            return
        self.setFocus()
        if event.button() == Qt.MouseButton.RightButton:
            super().mousePressEvent(event)
            return
        for kind in PRESS_INTERACTIONS:
            gesture = kind.start(self, event)
            if gesture is not None:
                self._active = gesture
                event.accept()
                return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:
        if self._active is not None:
            self._active.move(event)
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event) -> None:
        if self._active is not None:
            gesture, self._active = self._active, None
            gesture.release(event)
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def cancel_gesture(self) -> None:
        if self._active is not None:
            gesture, self._active = self._active, None
            gesture.cancel()

    def focusOutEvent(self, event) -> None:
        self.space_held = False
        super().focusOutEvent(event)

    def keyPressEvent(self, event) -> None:
        key = event.key()
        if key == Qt.Key.Key_Escape and self._active is not None:
            self.cancel_gesture()
            return
        if key == Qt.Key.Key_Space and not event.isAutoRepeat():
            self.space_held = True
            self.viewport().setCursor(Qt.CursorShape.OpenHandCursor)
            return
        super().keyPressEvent(event)

    def keyReleaseEvent(self, event) -> None:
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat():
            self.space_held = False
            self.viewport().unsetCursor()
            return
        super().keyReleaseEvent(event)

    def wheelEvent(self, event) -> None:
        delta = event.angleDelta().y() or event.angleDelta().x()
        if not delta:
            return
        self.zoom_by(WHEEL_STEP ** (delta / 120), event.position())
        event.accept()

    def contextMenuEvent(self, event) -> None:
        element = self.element_at(QPointF(event.pos()))
        if element is not None and element not in self.controller.selection.elements:
            self.controller.selection.set([element])
        self.contextMenuRequested.emit(element, event.globalPos())

    # --- drag and drop from the palette ----------------------------------------------------------

    def dragEnterEvent(self, event) -> None:
        if not self._drop.enter(event):
            event.ignore()

    def dragMoveEvent(self, event) -> None:
        if not self._drop.move(event):
            event.ignore()

    def dragLeaveEvent(self, event) -> None:
        self._drop.leave()

    def dropEvent(self, event) -> None:
        self._drop.drop(event)

    def set_drop_hint(self, text: str | None) -> None:
        self._drop_hint = text
        self.viewport().update()

    # --- the floating count shown while resizing --------------------------------------------------

    def show_drag_label(self, text: str, pos: QPointF, error: bool = False) -> None:
        color = self.theme.error if error else self.theme.highlight
        self.drag_label.setStyleSheet(
            f"QLabel#dragCountLabel {{ background: {self.theme.window.name()}; color: {self.theme.text.name()};"
            f" border: 2px solid {color.name()}; border-radius: 5px; padding: 3px 7px; font-weight: 600; }}")
        self.drag_label.setText(text)
        self.drag_label.adjustSize()
        self.move_drag_label(pos)
        self.drag_label.show()
        self.drag_label.raise_()

    def move_drag_label(self, pos: QPointF) -> None:
        x = min(pos.x() + 18, self.viewport().width() - self.drag_label.width() - 4)
        self.drag_label.move(int(max(4, x)), int(max(4, pos.y() - self.drag_label.height() - 12)))

    def hide_drag_label(self) -> None:
        self.drag_label.hide()

    # --- background and messages ------------------------------------------------------------------

    def drawBackground(self, painter: QPainter, rect: QRectF | QRect) -> None:
        painter.fillRect(rect, self.theme.background)
        layout = self.scene().layout
        if layout is None:
            return
        # A faint band behind each row helps the eye follow a tier across a wide fabric.
        for tier in layout.tiers:
            row = layout.rows[tier]
            band = self.theme.tint(tier, 0.063 if not self.theme.dark else 0.086)  # opaque: fills faster
            painter.fillRect(QRectF(rect.left(), row.y - BOX_HEIGHT * 0.85, rect.width(), BOX_HEIGHT * 1.7), band)

    def drawForeground(self, painter: QPainter, rect: QRectF | QRect) -> None:
        scene = self.scene()
        message = None
        error = False
        if self._drop_hint:
            message = self._drop_hint
        elif scene.error:
            message, error = f"This design cannot be sized:\n{scene.error}", True
        elif scene.layout is None:
            message = "Drag a fabric template from the palette onto the canvas\n" \
                      "(leaf-spine, fat-tree or a rail-optimized SU) to start a design."
        if not message:
            return
        painter.save()
        painter.resetTransform()
        vp = QRectF(self.viewport().rect())
        font = label_font(11, False)
        fm = QFontMetricsF(font)
        lines = message.split("\n")
        width = min(vp.width() - 40, max(fm.horizontalAdvance(line) for line in lines) + 40)
        height = fm.lineSpacing() * len(lines) + 28
        box = QRectF(vp.center().x() - width / 2, vp.center().y() - height / 2, width, height)
        if self._drop_hint:
            box.moveTop(vp.top() + 16)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setPen(QPen(self.theme.error if error else self.theme.highlight, 1.5))
        back = QColor(self.theme.window)
        back.setAlpha(240)
        painter.setBrush(back)
        painter.drawRoundedRect(box, 8, 8)
        painter.setFont(font)
        painter.setPen(self.theme.text)
        painter.drawText(box.adjusted(14, 8, -14, -8), int(Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap),
                         message)
        painter.restore()
