"""The palette: fabric templates and building blocks to drag onto the canvas.

Each entry carries its block id in a custom MIME type; the canvas turns a drop into one
undoable command. Double-click or Enter adds an entry without dragging (keyboard users).
The technology chooser on top decides what hardware a new fabric starts on.
"""

from __future__ import annotations

from PySide6.QtCore import QMimeData, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QPainter, QPen, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QLabel,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from designer.catalog import Catalog
from designer.model.topology.presets import default_server
from designer.ui.blocks import BLOCKS, MIME_TYPE
from designer.ui.theme import FAMILY_HUES, TIER_HUES

ICON_SIZE = 34
_ROLE_BLOCK = Qt.ItemDataRole.UserRole + 1


def _glyph(block_id: str, ratio: float) -> QPixmap:
    """A small drawing of the block: rows of boxes in tier colours, joined by links."""
    size = ICON_SIZE
    pm = QPixmap(int(size * ratio), int(size * ratio))
    pm.setDevicePixelRatio(ratio)
    pm.fill(Qt.GlobalColor.transparent)
    p = QPainter(pm)
    p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    link = QColor(FAMILY_HUES["infiniband"])
    link.setAlpha(170)

    def row(y: float, n: int, tier: str, w: float = 5.0, h: float = 5.0) -> list[QPointF]:
        color = QColor(TIER_HUES[tier])
        span = size - 6
        xs = [3 + span * (i + 0.5) / n for i in range(n)]
        p.setPen(QPen(color.darker(125), 0.8))
        p.setBrush(color)
        for x in xs:
            p.drawRoundedRect(QRectF(x - w / 2, y - h / 2, w, h), 1.2, 1.2)
        return [QPointF(x, y) for x in xs]

    def mesh(lower: list[QPointF], upper: list[QPointF]) -> None:
        p.setPen(QPen(link, 0.8))
        for a in lower:
            for b in upper:
                p.drawLine(QPointF(a.x(), a.y() - 2.5), QPointF(b.x(), b.y() + 2.5))

    name = block_id.partition(":")[2]
    # Links first, boxes on top of them.
    if name == "leaf-spine":
        leaves, spines = row(24, 4, "leaf"), row(9, 2, "spine")
        mesh(leaves, spines)
        row(24, 4, "leaf"), row(9, 2, "spine")
    elif name == "fat-tree":
        core, spine, leaf = row(5, 2, "core"), row(16, 4, "spine"), row(27, 4, "leaf")
        mesh(spine, core)
        mesh(leaf, spine)
        row(5, 2, "core"), row(16, 4, "spine"), row(27, 4, "leaf")
    elif name == "rail-optimized":
        servers, leaves = row(28, 4, "servers", 5, 4), row(14, 4, "leaf")
        mesh(servers, leaves)
        row(28, 4, "servers", 5, 4)
        rails = [QColor(TIER_HUES["leaf"]).darker(100 + 12 * k) for k in range(4)]
        for k, b in enumerate(leaves):  # one shade per rail
            p.setPen(QPen(rails[k].darker(130), 0.8))
            p.setBrush(rails[k])
            p.drawRoundedRect(QRectF(b.x() - 2.5, b.y() - 2.5, 5, 5), 1.2, 1.2)
    elif name == "servers":
        color = QColor(TIER_HUES["servers"])
        p.setPen(QPen(color.darker(130), 0.8))
        p.setBrush(color.lighter(130))
        for k in range(4):
            p.drawRoundedRect(QRectF(8, 6 + k * 6, size - 16, 4.5), 1, 1)
    else:
        row(size / 2, 4, name, 6, 8)
    p.end()
    return pm


class PaletteTree(QTreeWidget):
    """The list of blocks; dragging an entry carries its id in the palette MIME type."""

    activatedBlock = Signal(str)
    """An entry was double-clicked or activated with Enter; carries its block id."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setHeaderHidden(True)
        self.setRootIsDecorated(False)
        self.setDragEnabled(True)
        self.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setIconSize(QSize(ICON_SIZE, ICON_SIZE))
        self.setIndentation(6)
        self.setUniformRowHeights(False)
        self.setWordWrap(True)
        self.itemActivated.connect(self._activated)
        ratio = self.devicePixelRatioF() or 1.0
        sections: dict[str, QTreeWidgetItem] = {}
        for block in BLOCKS:
            section = sections.get(block.section)
            if section is None:
                section = QTreeWidgetItem(self, [block.section])
                font = section.font(0)
                font.setBold(True)
                section.setFont(0, font)
                section.setFlags(Qt.ItemFlag.ItemIsEnabled)
                section.setExpanded(True)
                sections[block.section] = section
            item = QTreeWidgetItem(section, [block.title])
            item.setData(0, _ROLE_BLOCK, block.id)
            item.setIcon(0, QIcon(_glyph(block.id, ratio)))
            item.setToolTip(0,
                            f"<b>{block.title}</b><br>{block.detail}<br><i>Drag onto the canvas, or double-click.</i>")
            item.setStatusTip(0, block.detail)
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsDragEnabled)
        self.expandAll()

    def mimeTypes(self) -> list[str]:
        return [MIME_TYPE]

    def mimeData(self, items) -> QMimeData:
        mime = QMimeData()
        for item in items:
            block_id = item.data(0, _ROLE_BLOCK)
            if block_id:
                mime.setData(MIME_TYPE, block_id.encode("utf-8"))
                mime.setText(block_id)
                break
        return mime

    def item_for(self, block_id: str) -> QTreeWidgetItem | None:
        for i in range(self.topLevelItemCount()):
            section = self.topLevelItem(i)
            if section is None:
                continue
            for k in range(section.childCount()):
                child = section.child(k)
                if child is not None and child.data(0, _ROLE_BLOCK) == block_id:
                    return child
        return None

    def _activated(self, item: QTreeWidgetItem, column: int) -> None:
        block_id = item.data(0, _ROLE_BLOCK)
        if block_id:
            self.activatedBlock.emit(block_id)


class PaletteWidget(QWidget):
    """Palette dock contents: the technology for new fabrics and the block list."""

    technologyChosen = Signal(str)
    """The technology for new fabrics was changed; carries the technology id."""

    def __init__(self, catalog: Catalog, parent=None):
        super().__init__(parent)
        self.catalog = catalog
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        caption = QLabel("New fabrics use")
        caption.setToolTip("The hardware a dropped template starts with; change it later in the inspector")
        self.technology = QComboBox()
        self.technology.setToolTip(caption.toolTip())
        # Long technology names must not widen the dock: the popup shows them in full.
        self.technology.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.technology.setMinimumContentsLength(14)
        # New fabrics start on hardware one can buy: the older generations (end-of-life switches)
        # are there to read real captures, and an imported one leaves this choice as it was.
        for tech in catalog.technologies.values():
            default = catalog.switches.get(tech.default_switch)
            if default is None or default.status != "end-of-life":
                self.technology.addItem(tech.name, tech.id)
        self.technology.currentIndexChanged.connect(
            lambda _: self.technologyChosen.emit(self.technology.currentData()))
        caption.setBuddy(self.technology)
        # Which server a dropped template starts with, and how current it is (catalog currency).
        self.server_note = QLabel()
        self.server_note.setWordWrap(True)
        self.server_note.setEnabled(False)
        self.technology.currentIndexChanged.connect(lambda _: self._show_default_server())
        self.tree = PaletteTree()
        hint = QLabel("Drag onto the canvas")
        hint.setEnabled(False)
        layout.addWidget(caption)
        layout.addWidget(self.technology)
        layout.addWidget(self.server_note)
        self._show_default_server()
        layout.addSpacing(4)
        layout.addWidget(self.tree, 1)
        layout.addWidget(hint)

    def set_technology(self, tech_id: str, server_id: str | None = None) -> None:
        """Follow the open design: its technology, and its server (a template dropped on it keeps
        the design's server); `server_id` None when no design is open."""
        self._design_server = server_id
        index = self.technology.findData(tech_id)
        if index >= 0 and index != self.technology.currentIndex():
            self.technology.blockSignals(True)
            self.technology.setCurrentIndex(index)
            self.technology.blockSignals(False)
        self._show_default_server()

    def _show_default_server(self) -> None:
        tech_id = self.technology.currentData()
        if tech_id is None:
            self.server_note.clear()
            return
        design_server = getattr(self, "_design_server", None)
        server = self.catalog.servers.get(design_server) if design_server else None
        if server is None:
            server = default_server(self.catalog, self.catalog.technology(tech_id))
        self.server_note.setText(f"on {server.name_with_currency()}")
        self.server_note.setToolTip(server.currency_note())
