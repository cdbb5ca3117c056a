"""Panning: drag with the middle button, or with the left button while Space is held."""

from __future__ import annotations

from PySide6.QtCore import Qt

from designer.ui.canvas.interactions.base import Interaction


class PanInteraction(Interaction):
    def __init__(self, view, event):
        super().__init__(view)
        self.last = event.position()
        view.viewport().setCursor(Qt.CursorShape.ClosedHandCursor)

    @classmethod
    def start(cls, view, event):
        middle = event.button() == Qt.MouseButton.MiddleButton
        space = event.button() == Qt.MouseButton.LeftButton and view.space_held
        return cls(view, event) if middle or space else None

    def move(self, event) -> None:
        delta = event.position() - self.last
        self.last = event.position()
        self.view.scroll_by(-delta.x(), -delta.y())

    def release(self, event) -> None:
        self.cancel()

    def cancel(self) -> None:
        self.view.viewport().setCursor(Qt.CursorShape.OpenHandCursor if self.view.space_held
                                       else Qt.CursorShape.ArrowCursor)
