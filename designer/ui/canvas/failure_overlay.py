"""Greys what a failure takes away (failed switches crossed out, cut-off servers dimmed), or
ghosts the parts a later build-out phase adds.

An overlay over the tier rows, so the rows themselves stay as they are; it follows the
scene's layout and draws nothing when nothing is shown.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem

from designer.ui.canvas.layout import BOX_HEIGHT, SERVER_PITCH, SWITCH_PITCH, parse_device_id


class FailureOverlay(QGraphicsItem):
    def __init__(self, scene):
        super().__init__()
        self._scene = scene
        self.failed: tuple[str, ...] = ()
        self.cut_servers: tuple[int, ...] = ()
        self.ghost = False          # True: later-phase parts, drawn pale and not crossed out
        self.setZValue(25)          # over the rows and links, under the resize handles
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setVisible(False)      # hidden, it is never the item under the pointer
        scene.addItem(self)
        scene.layoutChanged.connect(self._relayout)

    def show_failure(self, failed, cut_servers, ghost: bool = False) -> None:
        self.prepareGeometryChange()
        self.ghost = ghost
        self.failed = tuple(failed)
        self.cut_servers = tuple(cut_servers)
        self.setVisible(self.active)
        self.update()

    def clear(self) -> None:
        self.show_failure((), ())

    @property
    def active(self) -> bool:
        return bool(self.failed or self.cut_servers)

    def _relayout(self, _layout) -> None:
        self.prepareGeometryChange()
        self.update()

    def boundingRect(self) -> QRectF:
        return self._scene.content_rect().adjusted(-SWITCH_PITCH, -BOX_HEIGHT, SWITCH_PITCH, BOX_HEIGHT)

    def shape(self) -> QPainterPath:
        path = QPainterPath()      # only the greyed boxes, so the canvas stays usable around them
        for rect, _ in self._boxes():
            path.addRect(rect)
        return path

    def _boxes(self):
        layout = self._scene.layout
        if layout is None:
            return
        for device in self.failed:
            parsed = parse_device_id(device)
            row = layout.rows.get(parsed[0]) if parsed else None
            if row is None or parsed[1] >= row.count or parsed[2] != layout.plane:
                continue   # not a device of the plane drawn
            w = min(row.block_of(parsed[1]).pitch * 0.9, SWITCH_PITCH * 0.84)
            yield QRectF(row.device_x(parsed[1]) - w / 2, row.y - BOX_HEIGHT / 2, w, BOX_HEIGHT), True
        row = layout.rows.get("servers")
        if row is not None:
            for server in self.cut_servers:
                if server < row.count:
                    w = min(row.block_of(server).pitch, SERVER_PITCH) * 0.9
                    yield QRectF(row.device_x(server) - w / 2, row.y - BOX_HEIGHT / 2, w, BOX_HEIGHT), False

    def paint(self, painter: QPainter, option, widget=None) -> None:
        if not self.failed and not self.cut_servers:
            return
        if self.ghost:
            pale = QColor(255, 255, 255, 190)
            for rect, _ in self._boxes():
                painter.fillRect(rect, pale)
            return
        grey = QColor(110, 110, 110, 170)
        cross = QPen(QColor(200, 40, 40), 0)
        cross.setCosmetic(True)
        cross.setWidthF(2.0)
        for rect, failed in self._boxes():
            painter.fillRect(rect, grey if failed else QColor(110, 110, 110, 120))
            if failed:
                painter.setPen(cross)
                painter.drawLine(rect.topLeft(), rect.bottomRight())
                painter.drawLine(rect.topRight(), rect.bottomLeft())
