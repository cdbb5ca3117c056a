"""A tier (core, spine, leaf or servers) drawn as one row, and the handle that resizes it.

The row paints itself at the level of detail its zoom allows (see lod.py): one box with the
count, one box per pod or scalable unit, or every device with its name. Everything is
painted in device pixels after mapping the scene geometry, so text and lines stay crisp and
readable at any zoom. Items hold no state of their own: they draw the scene's current layout.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsObject, QStyleOptionGraphicsItem

from designer.ui.canvas.layout import BLOCK_GAP, BOX_HEIGHT, TIER_LABEL, Row
from designer.ui.canvas.lod import BLOCK, DEVICE, LABEL_MIN_PX, ROW, row_lod

if TYPE_CHECKING:
    from designer.ui.canvas.scene_state import SceneState

PLANE_OFFSET_PX = 5.0   # stacked copies behind a row show further planes
MAX_DEVICE_PX = 66.0    # a device box never gets wider than this on screen


@lru_cache(maxsize=32)
def label_font(point_size: float = 8.5, bold: bool = False) -> QFont:
    """The canvas label font (cached: painting asks for it for every label)."""
    font = QFont()
    font.setPointSizeF(point_size)
    font.setBold(bold)
    return font


@lru_cache(maxsize=32)
def label_metrics(point_size: float = 8.5, bold: bool = False) -> QFontMetricsF:
    return QFontMetricsF(label_font(point_size, bold))


def droplet(cx: float, cy: float, r: float) -> QPainterPath:
    """A drop of coolant centred at (cx, cy), `r` its round part's radius: the liquid-cooling mark
    of the canvas and its legend."""
    path = QPainterPath(QPointF(cx, cy - 2.1 * r))
    path.cubicTo(QPointF(cx + 0.4 * r, cy - 1.2 * r), QPointF(cx + r, cy - 0.6 * r), QPointF(cx + r, cy + 0.1 * r))
    path.arcTo(QRectF(cx - r, cy - 0.9 * r, 2 * r, 2 * r), 0, -180)
    path.cubicTo(QPointF(cx - r, cy - 0.6 * r), QPointF(cx - 0.4 * r, cy - 1.2 * r), QPointF(cx, cy - 2.1 * r))
    return path


def paint_coolant(painter: QPainter, rect: QRectF, color: QColor, unit: float = 1.0) -> None:
    """Mark a box (row, block or device) as liquid-cooled: a band along its foot and, where there
    is room, a droplet in its top-right corner. Sizes are in device pixels times `unit` (the
    exported diagram, drawn in its own units, passes the size of a pixel there)."""
    u = unit
    if rect.width() < 10 * u:
        return
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(color)
    painter.drawRoundedRect(QRectF(rect.left() + 3 * u, rect.bottom() - 4.5 * u, rect.width() - 6 * u, 3 * u),
                            1.5 * u, 1.5 * u)
    if rect.width() >= 28 * u and rect.height() >= 20 * u:
        painter.drawPath(droplet(rect.right() - 9 * u, rect.top() + 10 * u, 3.2 * u))


def _plural(tier: str, n: int) -> str:
    if tier == "servers":
        return "server" if n == 1 else "servers"
    return tier


class TierRowItem(QGraphicsObject):
    """One tier of the fabric as a row of boxes."""

    if TYPE_CHECKING:   # these live only in the fabric scene and call what its state offers
        def scene(self) -> SceneState: ...

    def __init__(self, tier: str):
        super().__init__()
        self.tier = tier
        self.row: Row | None = None
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption, True)
        self.setAcceptHoverEvents(True)
        self.setZValue(10)
        self._hover: str | None = None

    # --- data ------------------------------------------------------------------------------

    def set_row(self, row: Row) -> None:
        self.prepareGeometryChange()
        self.row = row
        self.update()

    def boundingRect(self) -> QRectF:
        if self.row is None:
            return QRectF()
        r = self.row
        # Room for the stacked plane copies and the selection outline (a few device pixels;
        # the scene keeps at least one scene unit per pixel at the smallest zoom it allows).
        pad = 60.0
        return QRectF(r.x0 - pad, r.y - BOX_HEIGHT / 2 - pad, (r.x1 - r.x0) + 2 * pad, BOX_HEIGHT + 2 * pad)

    def _laid_row(self) -> Row:
        """The row drawn: painting and hit tests run only once the scene has set it."""
        assert self.row is not None
        return self.row

    def box_rect(self, x0: float, x1: float) -> QRectF:
        return QRectF(x0, self._laid_row().y - BOX_HEIGHT / 2, x1 - x0, BOX_HEIGHT)

    def contains_y(self, y: float) -> bool:
        return self.row is not None and abs(y - self.row.y) <= BOX_HEIGHT / 2 + 6

    # --- hit testing -------------------------------------------------------------------------

    def element_at(self, x: float, sx: float) -> str | None:
        """The element under x at this zoom: a device id, 'block:<tier>:<k>' or 'tier:<tier>'."""
        r = self.row
        if r is None or x < r.x0 - 4 / sx or x > r.x1 + 4 / sx:
            return None
        lod = row_lod(r, sx)
        if lod == DEVICE:
            index = r.device_at(x)
            return self.scene().device_id(self.tier, index) if index is not None else f"tier:{self.tier}"
        if lod == BLOCK:
            block = r.block_at(x)
            return f"block:{self.tier}:{block.index}" if block is not None else f"tier:{self.tier}"
        return f"tier:{self.tier}"

    def elements_in(self, x0: float, x1: float, sx: float) -> set[str]:
        r = self.row
        if r is None or x1 < r.x0 or x0 > r.x1:
            return set()
        lod = row_lod(r, sx)
        if lod == DEVICE:
            return {self.scene().device_id(self.tier, i) for i in r.devices_between(x0, x1)}
        if lod == BLOCK:
            return {f"block:{self.tier}:{b.index}" for b in r.blocks if b.x <= x1 and b.x + b.w >= x0}
        return {f"tier:{self.tier}"}

    def hoverMoveEvent(self, event) -> None:
        sx = self._view_scale()
        element = self.element_at(event.pos().x(), sx)
        if element != self._hover:
            self._hover = element
            self.setToolTip(self._tooltip(element))
            self.update()

    def hoverLeaveEvent(self, event) -> None:
        self._hover = None
        self.update()

    def _view_scale(self) -> float:
        views = self.scene().views() if self.scene() else []
        return views[0].transform().m11() if views else 1.0

    def _tooltip(self, element: str | None) -> str:
        ctx = self.scene()
        if element is None or self.row is None or ctx is None:
            return ""
        return ctx.describe(element)

    # --- painting ----------------------------------------------------------------------------

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget=None) -> None:
        ctx = self.scene()
        r = self.row
        if r is None or ctx is None or not r.blocks:
            return
        theme = ctx.theme
        t = painter.worldTransform()
        sx = t.m11()
        exposed = option.exposedRect
        lod = row_lod(r, sx)
        painter.save()
        painter.resetTransform()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        fill, border = theme.tier_fill(self.tier), theme.tier_border(self.tier)
        selected = ctx.selected
        problem = ctx.problem_color(f"tier:{self.tier}")
        planes = ctx.layout.planes if ctx.layout else 1

        def device_rect(x0: float, x1: float) -> QRectF:
            return t.mapRect(self.box_rect(x0, x1))

        if lod == ROW:
            rect = device_rect(r.x0, r.x1)
            self._stack(painter, rect, planes, fill, border)
            painter.setPen(QPen(border, 1.2))
            painter.setBrush(fill)
            painter.drawRoundedRect(rect, 6, 6)
            if r.liquid_cooled:
                paint_coolant(painter, rect, theme.coolant)
            self._block_ticks(painter, t, rect, theme)
            self._outline(painter, rect, theme, f"tier:{self.tier}" in selected, self._hover == f"tier:{self.tier}")
            if problem is not None:
                self._outline_problem(painter, rect, problem)
            self._row_label(painter, rect, exposed, t, theme)
        elif lod == BLOCK:
            for block in r.blocks:
                if block.x > exposed.right() or block.x + block.w < exposed.left():
                    continue
                rect = device_rect(block.x, block.x + block.w)
                element = f"block:{self.tier}:{block.index}"
                self._stack(painter, rect, planes, fill, border)
                painter.setPen(QPen(border, 1.0))
                painter.setBrush(fill)
                painter.drawRoundedRect(rect, 5, 5)
                if r.liquid_cooled:
                    paint_coolant(painter, rect, theme.coolant)
                in_block = element in selected or f"tier:{self.tier}" in selected
                self._outline(painter, rect, theme, in_block, self._hover == element)
                self._block_label(painter, rect, block, theme)
            if problem is not None:
                self._outline_problem(painter, device_rect(r.x0, r.x1), problem, dashed=True)
        else:
            self._paint_devices(painter, t, exposed, sx, theme, fill, border, selected, planes)
        self._marks(painter, t, lod, theme)
        painter.restore()

    def _stack(self, painter: QPainter, rect: QRectF, planes: int, fill: QColor, border: QColor) -> None:
        """Copies behind the box, one per further plane (at most three drawn)."""
        if planes <= 1:
            return
        painter.setPen(QPen(border, 0.8))
        back = QColor(fill).darker(106)
        painter.setBrush(back)
        for k in range(min(planes - 1, 3), 0, -1):
            painter.drawRoundedRect(rect.translated(k * PLANE_OFFSET_PX, -k * PLANE_OFFSET_PX), 5, 5)

    def _outline(self, painter: QPainter, rect: QRectF, theme, selected: bool, hovered: bool) -> None:
        if selected:
            painter.setPen(QPen(theme.highlight, 2.6))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(rect.adjusted(-2, -2, 2, 2), 7, 7)
        elif hovered:
            color = QColor(theme.highlight)
            color.setAlpha(120)
            painter.setPen(QPen(color, 1.6))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(rect.adjusted(-1.5, -1.5, 1.5, 1.5), 7, 7)

    def _outline_problem(self, painter: QPainter, rect: QRectF, color: QColor, dashed: bool = False) -> None:
        pen = QPen(color, 2.0)
        if dashed:
            pen.setStyle(Qt.PenStyle.DashLine)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRoundedRect(rect.adjusted(-4, -4, 4, 4), 8, 8)

    def _block_ticks(self, painter: QPainter, t, rect: QRectF, theme) -> None:
        """Faint separators where pods or scalable units meet, when there is room for them."""
        r = self._laid_row()
        if len(r.blocks) < 2:
            return
        spacing = (r.blocks[1].x - r.blocks[0].x) * t.m11()
        if spacing < 5:
            return
        color = theme.tier_fill(self.tier).darker(112 if not theme.dark else 80)  # opaque: draws faster
        painter.setPen(QPen(color, 0))
        for block in r.blocks[1:]:
            x = t.map(QPointF(block.x - BLOCK_GAP / 2, r.y)).x()
            painter.drawLine(QPointF(x, rect.top() + 6), QPointF(x, rect.bottom() - 6))

    def _row_label(self, painter: QPainter, rect: QRectF, exposed: QRectF, t, theme) -> None:
        r = self._laid_row()
        # Centre the label on the part of the row in view, so a long row keeps its label visible.
        visible = rect.intersected(t.mapRect(exposed)) if exposed.isValid() else rect
        if visible.width() < 30:
            return
        name = r.model
        kind = {"servers": "servers"}.get(self.tier, self.tier)
        blocks = len(r.blocks)
        detail = ""
        if blocks > 1:
            unit = r.blocks[0].label.split(" ")[0]
            unit = {"SU": "SUs", "Pod": "pods", "Core": "core groups"}.get(unit, "groups")
            detail = f"  ·  {blocks} {unit} × {r.blocks[0].count}" if len({b.count for b in r.blocks}) == 1 \
                else f"  ·  {blocks} {unit}"
        text = [f"{r.count:,} × {kind}  ·  {name}{detail}", f"{r.count:,} × {kind}  ·  {name}",
                f"{r.count:,} × {kind}", f"{r.count:,}"]
        self._text(painter, visible, text, theme.text, bold=True, size=9.0)

    def _block_label(self, painter: QPainter, rect: QRectF, block, theme) -> None:
        if rect.width() < 26:
            return
        count = self._fitting(rect.width(), [f"{block.count} × {_plural(self.tier, block.count)}",
                                             f"{block.count} × {'srv' if self.tier == 'servers' else self.tier}",
                                             f"{block.count}"])
        if block.label and rect.height() >= 30:
            top = QRectF(rect.left(), rect.top() + 2, rect.width(), rect.height() / 2 - 1)
            bottom = QRectF(rect.left(), rect.center().y() - 1, rect.width(), rect.height() / 2 - 1)
            self._text(painter, top, short_block_label(block.label), theme.muted, size=7.5)
            self._text(painter, bottom, count, theme.text, bold=True, size=8.5)
        else:
            self._text(painter, rect, count, theme.text, bold=True, size=8.5)

    def _paint_devices(self, painter, t, exposed, sx, theme, fill, border, selected, planes) -> None:
        r = self._laid_row()
        ctx = self.scene()
        tier = self.tier
        # Faint outline of each block keeps pods and SUs recognisable between the devices.
        group_pen = QPen(theme.tier_border(tier), 1.0, Qt.PenStyle.DashLine)
        group_color = QColor(theme.tier_border(tier))
        group_color.setAlpha(110)
        group_pen.setColor(group_color)
        for block in r.blocks:
            if block.x > exposed.right() or block.x + block.w < exposed.left():
                continue
            rect = t.mapRect(self.box_rect(block.x, block.x + block.w)).adjusted(-3, -5, 3, 5)
            if len(r.blocks) > 1 or tier == "core":
                painter.setPen(group_pen)
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRoundedRect(rect, 6, 6)
                if block.label:
                    self._text(painter, QRectF(rect.left() + 4, rect.top() - 15, rect.width() - 8, 14),
                               short_block_label(block.label), theme.muted, size=7.5,
                               align=Qt.AlignmentFlag.AlignLeft)
        tier_selected = f"tier:{tier}" in selected
        devices = r.devices_between(exposed.left(), exposed.right())
        removed = ctx.layout.removed if ctx.layout else frozenset()
        rails = self._rail_groups() if tier == "leaf" else None
        for i in devices:
            x = r.device_x(i)
            pitch = r.block_of(i).pitch
            w_px = min(pitch * sx * 0.82, MAX_DEVICE_PX)
            cx = t.map(QPointF(x, r.y)).x()
            top = t.map(QPointF(x, r.y - BOX_HEIGHT / 2)).y()
            bottom = t.map(QPointF(x, r.y + BOX_HEIGHT / 2)).y()
            h = bottom - top
            if tier == "servers":
                h *= 0.86
                top += (bottom - top - h) / 2
            rect = QRectF(cx - w_px / 2, top, w_px, h)
            ident = ctx.device_id(tier, i)
            block_id = f"block:{tier}:{r.block_of(i).index}"
            self._stack(painter, rect, planes if tier != "servers" else 1, fill, border)
            if rails is not None:   # each rail in its colour, as the exported diagram and its legend
                rail = rails(i)
                painter.setPen(QPen(theme.rail(rail).darker(115), 1.2))
                painter.setBrush(theme.rail_fill(rail))
            else:
                painter.setPen(QPen(border, 1.0))
                painter.setBrush(fill)
            painter.drawRoundedRect(rect, 4, 4)
            if r.liquid_cooled:
                paint_coolant(painter, rect, theme.coolant)
            problem = ctx.problem_color(ident)
            if problem is not None:
                self._outline_problem(painter, rect, problem)
            sel = ident in selected or tier_selected or block_id in selected
            self._outline(painter, rect, theme, sel, self._hover == ident)
            if ident in removed:
                painter.setPen(QPen(theme.error, 1.6))
                painter.drawLine(rect.topLeft(), rect.bottomRight())
                painter.drawLine(rect.bottomLeft(), rect.topRight())
            if w_px >= LABEL_MIN_PX:
                # Plane 1 is the one drawn; its prefix ("p1.") would only crowd the label.
                name = f"{i + 1}" if tier == "servers" and w_px < 60 else ident.rpartition(".")[2]
                self._text(painter, rect, [name, f"{i + 1}"], theme.text, size=7.5)
            elif w_px >= 18:
                self._text(painter, rect, f"{i + 1}", theme.text, size=7.0)

    def _rail_groups(self):
        """leaf index -> its rail group in a rail-optimized SU, or None when the fabric has no rails."""
        layout = getattr(self.scene(), "layout", None)
        plan = getattr(layout, "plan", None)
        resolved = getattr(layout, "resolved", None)
        if plan is None or resolved is None or not plan.rail_su_size or resolved.rails < 2:
            return None
        per, groups = max(plan.rail_leaves, 1), plan.rail_groups(resolved.rails)
        return lambda leaf: (leaf // per) % groups

    def _marks(self, painter: QPainter, t, lod: int, theme) -> None:
        """Selected devices that are drawn aggregated get a marker at their position."""
        if lod == DEVICE:
            return
        ctx = self.scene()
        for element in ctx.selected_devices(self.tier):
            x = self._laid_row().device_x(element)
            p = t.map(QPointF(x, self._laid_row().y + BOX_HEIGHT / 2))
            painter.setPen(QPen(theme.highlight, 2.0))
            painter.setBrush(theme.highlight)
            painter.drawPolygon([QPointF(p.x(), p.y() - 4), QPointF(p.x() - 6, p.y() + 7),
                                 QPointF(p.x() + 6, p.y() + 7)])

    @staticmethod
    def _fitting(width: float, texts: list[str], size: float = 8.5) -> str:
        """The first text that fits `width` pixels in the bold label font, else the last."""
        metrics = label_metrics(size, True)
        for text in texts:
            if metrics.horizontalAdvance(text) + 8 <= width:
                return text
        return texts[-1]

    @staticmethod
    def _text(painter: QPainter, rect: QRectF, text: str | list[str], color: QColor, *, size: float = 8.5,
              bold: bool = False, align=Qt.AlignmentFlag.AlignCenter) -> None:
        """The first of `text`'s variants (longest first) that fits `rect` whole; none if none fits.

        A label is never cut short ("Core grou…"): a shorter form says the same, or nothing is
        drawn and the tooltip still tells.
        """
        metrics = label_metrics(size, bold)
        room = rect.width() - 6
        shown = next((t for t in ([text] if isinstance(text, str) else text)
                      if t and metrics.horizontalAdvance(t) <= room), None)
        if shown is None:
            return
        painter.setFont(label_font(size, bold))
        painter.setPen(color)
        painter.drawText(rect, int(align | Qt.AlignmentFlag.AlignVCenter), shown)


def short_block_label(label: str) -> list[str]:
    """A block's label and its shorter forms: "Core group 3", "Group 3", "G3"."""
    words = label.split()
    if len(words) < 2 or not words[-1].isdigit():
        return [label]
    out = [label]
    if len(words) > 2:
        out.append(f"{words[-2].capitalize()} {words[-1]}")
    out.append(f"{words[-2][0].upper()}{words[-1]}" if words[0] != "SU" else f"SU{words[-1]}")
    return out


class HandleItem(QGraphicsObject):
    """The grip at the right end of a row: drag it to grow or shrink the tier."""

    if TYPE_CHECKING:   # these live only in the fabric scene and call what its state offers
        def scene(self) -> SceneState: ...

    hovered = Signal(str)
    """The pointer entered the handle; carries the tier name (for the status bar)."""

    SIZE = 18.0
    OFFSET = 16.0

    def __init__(self, tier: str):
        super().__init__()
        self.tier = tier
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations, True)
        self.setAcceptHoverEvents(True)
        self.setCursor(Qt.CursorShape.SizeHorCursor)
        self.setZValue(30)
        noun = "servers" if tier == "servers" else f"{tier} switches"
        self.setToolTip(f"Drag to change the number of {noun}")
        self._hover = False
        self.active = False

    def boundingRect(self) -> QRectF:
        s = self.SIZE
        return QRectF(self.OFFSET - 2, -s / 2 - 2, s + 4, s + 4)

    def grip_rect(self) -> QRectF:
        s = self.SIZE
        return QRectF(self.OFFSET, -s / 2, s, s)

    def hoverEnterEvent(self, event) -> None:
        self._hover = True
        self.hovered.emit(self.tier)
        self.update()

    def hoverLeaveEvent(self, event) -> None:
        self._hover = False
        self.update()

    def paint(self, painter: QPainter, option, widget=None) -> None:
        theme = self.scene().theme
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        rect = self.grip_rect()
        color = theme.highlight if (self._hover or self.active) else theme.tier_border(self.tier)
        painter.setPen(QPen(color, 1.4))
        painter.setBrush(theme.background)
        painter.drawEllipse(rect)
        painter.setPen(QPen(color, 1.6))
        c = rect.center()
        for dx in (-2.5, 2.5):
            painter.drawLine(QPointF(c.x() + dx, c.y() - 4.5), QPointF(c.x() + dx, c.y() + 4.5))
        # a thin stem joining the grip to the row
        painter.setPen(QPen(color, 1.0))
        painter.drawLine(QPointF(2, 0), QPointF(self.OFFSET, 0))


__all__ = ["HandleItem", "TierRowItem", "droplet", "label_font", "paint_coolant", "TIER_LABEL", "ROW", "BLOCK",
           "DEVICE"]
