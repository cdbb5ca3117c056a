"""Greys what a failure takes away (failed switches crossed out, cut-off servers dimmed), or
ghosts the parts a later build-out phase adds.

An overlay over the tier rows, so the rows themselves stay as they are; it follows the
scene's layout and draws nothing when nothing is shown. The links the failure takes down are
drawn failed by the bundles themselves: the overlay hands the scene a LinkFailure for them.
The canvas draws one plane of a multi-plane fabric; a switch that failed only in another plane
keeps its box and links in the plane drawn, and is marked with the planes it failed in.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem

from designer.ui.canvas.layout import BOX_HEIGHT, SERVER_PITCH, SWITCH_PITCH, parse_device_id
from designer.ui.canvas.link_failure import LinkFailure
from designer.ui.canvas.tier_item import MAX_DEVICE_PX, label_font


class FailureOverlay(QGraphicsItem):
    def __init__(self, scene):
        super().__init__()
        self._scene = scene
        self.failed: tuple[str, ...] = ()
        self.cut_servers: tuple[int, ...] = ()
        self.cables: tuple[tuple[str, str], ...] = ()
        self.ghost = False          # True: later-phase parts, drawn pale and not crossed out
        self.setZValue(25)          # over the rows and links, under the resize handles
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setVisible(False)      # hidden, it is never the item under the pointer
        scene.addItem(self)
        scene.layoutChanged.connect(self._relayout)

    def show_failure(self, failed, cut_servers, ghost: bool = False, cables=()) -> None:
        self.prepareGeometryChange()
        self.ghost = ghost
        self.failed = tuple(failed)
        self.cut_servers = tuple(cut_servers)
        self.cables = tuple(cables)
        self.setVisible(self.active)
        self._publish()
        self.update()

    def clear(self) -> None:
        self.show_failure((), ())

    @property
    def active(self) -> bool:
        return bool(self.failed or self.cut_servers or self.cables)

    def _publish(self) -> None:
        layout = self._scene.layout
        shown = self.active and layout is not None
        self._scene.set_link_failure(LinkFailure.build(layout, self.failed, self.cables, self.ghost,
                                                                 self.cut_servers)
                                     if shown else None)

    def _relayout(self, _layout) -> None:
        self.prepareGeometryChange()
        if self.active:
            self._publish()
        self.update()

    def boundingRect(self) -> QRectF:
        return self._scene.content_rect().adjusted(-SWITCH_PITCH, -BOX_HEIGHT, SWITCH_PITCH, BOX_HEIGHT)

    def shape(self) -> QPainterPath:
        path = QPainterPath()      # only the greyed boxes, so the canvas stays usable around them
        for rect, _, _ in self._boxes():
            path.addRect(rect)
        return path

    def _boxes(self):
        layout = self._scene.layout
        if layout is None:
            return
        drawn: dict[tuple[str, int], list[int]] = {}     # (row, index) -> failed planes
        for device in self.failed:
            parsed = parse_device_id(device)
            row = layout.rows.get(parsed[0]) if parsed else None
            if row is None or parsed[1] >= row.count:
                continue
            drawn.setdefault(parsed[:2], []).append(parsed[2])
        for (tier, index), planes in drawn.items():
            row = layout.rows[tier]
            w = min(row.block_of(index).pitch * 0.9, SWITCH_PITCH * 0.84)
            rect = QRectF(row.device_x(index) - w / 2, row.y - BOX_HEIGHT / 2, w, BOX_HEIGHT)
            shown = True if layout.plane in planes else tuple(sorted(p + 1 for p in planes))
            yield rect, shown, row.block_of(index).pitch
        row = layout.rows.get("servers")
        if row is not None:
            for server in self.cut_servers:
                if server < row.count:
                    w = min(row.block_of(server).pitch, SERVER_PITCH) * 0.9
                    yield (QRectF(row.device_x(server) - w / 2, row.y - BOX_HEIGHT / 2, w, BOX_HEIGHT), False,
                           row.block_of(server).pitch)

    def _pixel_boxes(self, t):
        """The boxes in screen pixels, as wide as the rows draw their devices (tier_item)."""
        sx = t.m11()
        for rect, kind, pitch in self._boxes():
            box = t.mapRect(rect)
            w = max(3.0, min(pitch * sx * 0.82, MAX_DEVICE_PX))
            h = box.height() * (0.86 if kind is False else 1.0)
            yield QRectF(box.center().x() - w / 2, box.center().y() - h / 2, w, h), kind

    def paint(self, painter: QPainter, option, widget=None) -> None:
        if not self.failed and not self.cut_servers:
            return
        t = painter.worldTransform()
        painter.save()
        painter.resetTransform()
        if self.ghost:
            pale = QColor(255, 255, 255, 190)
            for rect, _ in self._pixel_boxes(t):
                painter.fillRect(rect, pale)
            painter.restore()
            return
        grey = QColor(110, 110, 110, 170)
        cross = QPen(QColor(200, 40, 40), 2.0)
        elsewhere = QPen(QColor(200, 40, 40), 1.6, Qt.PenStyle.DashLine)
        for rect, failed in self._pixel_boxes(t):
            if isinstance(failed, tuple):
                # Failed in other planes only: the plane drawn keeps this switch and its links.
                painter.setPen(elsewhere)
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRect(rect)
                painter.setFont(label_font(7.5, True))
                painter.setPen(QColor(200, 40, 40))
                painter.drawText(QRectF(rect.left(), rect.bottom() + 1, max(rect.width(), 60), 14),
                                 int(Qt.AlignmentFlag.AlignLeft), "plane " + ",".join(map(str, failed)))
                continue
            painter.fillRect(rect, grey if failed else QColor(110, 110, 110, 120))
            if failed:
                painter.setPen(cross)
                painter.drawLine(rect.topLeft(), rect.bottomRight())
                painter.drawLine(rect.topRight(), rect.bottomLeft())
        painter.restore()
