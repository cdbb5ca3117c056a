"""A press on an element: a click selects it, a drag onto another tier connects the two.

The pointer picks a device even where the row is drawn aggregated: the position along the
row (or group) maps to the device there, and the status bar names both ends while dragging.
"""

from __future__ import annotations

from PySide6.QtCore import QLineF, Qt
from PySide6.QtGui import QPen
from PySide6.QtWidgets import QApplication, QGraphicsLineItem

from designer.ui.canvas.interactions.base import Interaction
from designer.ui.canvas.layout import parse_device_id

SELECT_MODIFIERS = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


class ConnectInteraction(Interaction):
    def __init__(self, view, event, element: str):
        super().__init__(view)
        self.element = element
        self.press = event.position()
        self.modifiers = event.modifiers()
        self.scene_start = view.mapToScene(event.position().toPoint())
        self.source = view.device_at(self.scene_start)
        self.target: str | None = None
        self.line: QGraphicsLineItem | None = None

    @classmethod
    def start(cls, view, event):
        if event.button() != Qt.MouseButton.LeftButton:
            return None
        element = view.element_at(event.position())
        return cls(view, event, element) if element is not None else None

    def _dragging(self, event) -> bool:
        if self.line is not None:
            return True
        distance = (event.position() - self.press).manhattanLength()
        return distance >= QApplication.startDragDistance() and self.source is not None

    def move(self, event) -> None:
        if not self._dragging(event):
            return
        view = self.view
        scene_pos = view.mapToScene(event.position().toPoint())
        if self.line is None:
            self.line = QGraphicsLineItem()
            self.line.setZValue(50)
            view.scene().addItem(self.line)
        start = view.scene().element_position(self.source) or self.scene_start
        self.line.setLine(QLineF(start, scene_pos))
        self.target = view.device_at(scene_pos) if view.element_at(event.position()) else None
        problem = view.controller.can_connect(self.source, self.target) if self.target else None
        color = view.scene().theme.error if problem else view.scene().theme.manual
        pen = QPen(color, 2.0, Qt.PenStyle.DashLine)
        pen.setCosmetic(True)
        self.line.setPen(pen)
        if self.target is None:
            view.controller.message.emit(f"Connect {self.source} to … (release over a switch of another tier)")
        elif problem:
            view.controller.message.emit(f"Cannot connect {self.source} and {self.target}: {problem}")
        else:
            view.controller.message.emit(f"Connect {self.source} to {self.target}: release to add a link")

    def release(self, event) -> None:
        if self.line is None:
            self._select()
            return
        self._remove_line()
        if self.target and self.target != self.source:
            self.view.controller.connect_devices(self.source, self.target)

    def _select(self) -> None:
        selection = self.view.controller.selection
        if self.modifiers & SELECT_MODIFIERS:
            selection.toggle(self.element)
        else:
            selection.set([self.element])
        parsed = parse_device_id(self.element)
        if parsed is not None or self.element.startswith(("tier:", "block:", "edit:")):
            self.view.controller.message.emit(self.view.controller.describe(self.element).replace("\n", " · "))

    def cancel(self) -> None:
        self._remove_line()

    def _remove_line(self) -> None:
        if self.line is not None:
            self.view.scene().removeItem(self.line)
            self.line = None
            # The "release to add a link" hint described the drag; it must not outlive it.
            self.view.controller.message.emit("")
