"""Selecting by dragging a rectangle over the background; a plain click clears the selection."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QRectF, QSize, Qt
from PySide6.QtWidgets import QApplication, QRubberBand

from designer.ui.canvas.interactions.base import Interaction

ADD_MODIFIERS = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


class RubberBandInteraction(Interaction):
    def __init__(self, view, event):
        super().__init__(view)
        self.origin = event.position().toPoint()
        self.modifiers = event.modifiers()
        self.band: QRubberBand | None = None

    @classmethod
    def start(cls, view, event):
        if event.button() != Qt.MouseButton.LeftButton:
            return None
        return cls(view, event)

    def move(self, event) -> None:
        point = event.position().toPoint()
        if self.band is None:
            if (point - self.origin).manhattanLength() < QApplication.startDragDistance():
                return
            self.band = QRubberBand(QRubberBand.Shape.Rectangle, self.view.viewport())
            self.band.setGeometry(QRect(self.origin, QSize()))
            self.band.show()
        self.band.setGeometry(QRect(self.origin, point).normalized())

    def release(self, event) -> None:
        selection = self.view.controller.selection
        add = bool(self.modifiers & ADD_MODIFIERS)
        if self.band is None:
            if not add:
                selection.clear()
            return
        rect = self.band.geometry()
        self.cancel()
        scene_rect = QRectF(self.view.mapToScene(rect.topLeft()),
                            self.view.mapToScene(rect.bottomRight() + QPoint(1, 1))).normalized()
        found = self.view.scene().elements_in(scene_rect, self.view.transform().m11())
        if add:
            selection.add(found)
        else:
            selection.set(found)

    def cancel(self) -> None:
        if self.band is not None:
            self.band.hide()
            self.band.deleteLater()
            self.band = None
