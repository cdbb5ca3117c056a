"""Page furniture shared by the report, the exported figures and presentation mode.

Title block, legend, key-metrics strip, tables, page header and footer. Each piece draws into
the rectangle it is given (device units, sizes in points through `Ink`) and returns the
height it used, so pages stack them without overlap.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor

from designer import __version__
from designer.model.intent.design import FabricDesign
from designer.ui.canvas.tier_item import droplet
from designer.ui.export.facts import Card
from designer.ui.export.ink import Ink

LEFT = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
CENTER = Qt.AlignmentFlag.AlignCenter

TEMPLATE_LABEL = {"leaf-spine": "Leaf-spine", "fat-tree": "Fat-tree", "rail-optimized": "Rail-optimized",
                  "rail-only": "Rail-only"}


def describe(design: FabricDesign, derived) -> str:
    """One line: template, tiers, planes, GPUs."""
    m = derived.metrics
    parts = [f"{TEMPLATE_LABEL.get(m.template, m.template)}, {m.tiers} tiers"]
    if m.planes > 1:
        parts.append(f"{m.planes} planes")
    parts.append(f"{m.gpus:,} GPUs on {m.servers:,} × {derived.resolved.server.name}")
    return " · ".join(parts)


def title_block(ink: Ink, rect: QRectF, design: FabricDesign, derived, date: str, scale: float = 1.0,
                caption: str = "", alert: bool = False) -> float:
    """Design name and description on the left; author, date and technology on the right."""
    t = ink.theme
    s = scale
    right_w = min(rect.width() * 0.36, ink.pt(230 * s))
    left = QRectF(rect.left(), rect.top(), rect.width() - right_w - ink.pt(12 * s), rect.height())
    name = design.meta.name or "Untitled fabric"
    size = 18 * s
    while size > 13 * s and ink.width(name, size, True) > left.width():
        size -= 0.5 * s  # a long name gets a little smaller before it is shortened
    name_h = ink.line_height(18 * s, True)
    ink.text(QRectF(left.left(), left.top(), left.width(), name_h), name, size, t.text, bold=True, align=LEFT,
             elide=True)
    y = left.top() + name_h + ink.pt(2 * s)
    lh = ink.line_height(9.5 * s)
    ink.text(QRectF(left.left(), y, left.width(), lh), describe(design, derived), 9.5 * s, t.muted,
             align=LEFT, elide=True)
    y += lh
    if caption:
        ch = ink.line_height(9.5 * s, True)
        ink.text(QRectF(left.left(), y + ink.pt(2 * s), left.width(), ch), caption, 9.5 * s,
                 ink.theme.error if alert else ink.theme.highlight, bold=True, align=LEFT, elide=True)
        y += ch + ink.pt(2 * s)
    rows = [("Author", design.meta.author or "—"), ("Date", date),
            ("Technology", derived.resolved.technology.name)]
    x = rect.right() - right_w
    ry = rect.top() + ink.pt(2 * s)
    key_w = ink.pt(62 * s)
    rh = ink.line_height(9 * s)
    box = QRectF(x - ink.pt(8 * s), rect.top(), right_w + ink.pt(8 * s),
                 len(rows) * (rh + ink.pt(2 * s)) + ink.pt(6 * s))
    ink.box(box, t.window, None, radius_pt=3 * s)
    room = right_w - key_w - ink.pt(4 * s)
    for key, value in rows:
        ink.text(QRectF(x, ry + ink.pt(1 * s), key_w, rh), key, 8 * s, t.muted, align=LEFT)
        size = 9 * s
        while size > 7 * s and ink.width(value, size, True) > room:
            size -= 0.5 * s
        ink.text(QRectF(x + key_w, ry, room, rh), value, size, t.text, bold=True, align=LEFT, elide=True)
        ry += rh + ink.pt(2 * s)
    return max(y, box.bottom()) - rect.top()


def _swatch(ink: Ink, kind: str, r: QRectF, color: QColor) -> None:
    p = ink.painter
    if kind == "box":
        fill = QColor(color)
        fill.setAlpha(110)
        ink.box(r, fill, QColor(color).darker(118), 0.6, 2)
    elif kind in ("line", "dash"):
        style = Qt.PenStyle.SolidLine if kind == "line" else Qt.PenStyle.DashLine
        p.setPen(ink.pen(color, 2.2 if kind == "line" else 1.4, style))
        p.drawLine(QPointF(r.left(), r.center().y()), QPointF(r.right(), r.center().y()))
    elif kind == "cross":
        b = r.adjusted(r.width() * 0.25, 0, -r.width() * 0.25, 0)
        p.setPen(ink.pen(color, 1.0))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRect(b)
        p.drawLine(b.topLeft(), b.bottomRight())
    elif kind == "coolant":   # the canvas's liquid-cooling mark: a droplet and a band
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(color)
        p.drawPath(droplet(r.left() + r.height() * 0.3, r.center().y() + r.height() * 0.1, r.height() * 0.22))
        p.drawRect(QRectF(r.left() + r.height() * 0.7, r.bottom() - r.height() * 0.2, r.width() - r.height() * 0.7,
                          r.height() * 0.18))
    elif kind == "rails":   # the rails' colours side by side, rail 1 at the left
        hues = list(color) if isinstance(color, (tuple, list)) else [color]
        step = r.width() / max(len(hues), 1)
        p.setPen(Qt.PenStyle.NoPen)
        for k, hue in enumerate(hues):
            p.setBrush(QColor(hue))
            p.drawRect(QRectF(r.left() + k * step, r.top(), step, r.height()))
    elif kind == "stack":
        step = r.height() * 0.2
        for k in (2, 1, 0):
            ink.box(QRectF(r.left() + k * step, r.top() + (2 - k) * step, r.width() * 0.6, r.height() * 0.6),
                    ink.theme.background, color, 0.6, 1.5)


def legend(ink: Ink, rect: QRectF, entries, scale: float = 1.0) -> float:
    """Swatches with labels, flowing left to right and onto a second line when needed."""
    t = ink.theme
    size = 8 * scale
    lh = max(ink.line_height(size), ink.pt(10 * scale))
    gap = ink.pt(14 * scale)
    head = "Legend"
    head_w = ink.width(head, size, True) + ink.pt(10 * scale)
    x, y = rect.left() + head_w, rect.top()
    ink.text(QRectF(rect.left(), y, head_w, lh), head, size, t.muted, bold=True, align=LEFT)
    for kind, text, color in entries:
        sw = ink.pt((36 if kind == "rails" else 18) * scale)   # the rails' many colours get more room
        w = sw + ink.pt(5 * scale) + ink.width(text, size)
        if x + w > rect.right() and x > rect.left() + head_w:
            x, y = rect.left() + head_w, y + lh + ink.pt(3 * scale)
        if y + lh > rect.bottom() + 0.5:
            break
        _swatch(ink, kind, QRectF(x, y + lh / 2 - ink.pt(4 * scale), sw, ink.pt(8 * scale)), color)
        ink.text(QRectF(x + sw + ink.pt(5 * scale), y, rect.right() - x - sw - ink.pt(5 * scale), lh), text, size,
                 t.text, align=LEFT, elide=True)
        x += w + gap
    return y + lh - rect.top()


def legend_height(ink: Ink, width: float, entries, scale: float = 1.0) -> float:
    """The height `legend` will use in `width`."""
    size = 8 * scale
    lh = max(ink.line_height(size), ink.pt(10 * scale))
    gap = ink.pt(14 * scale)
    head_w = ink.width("Legend", size, True) + ink.pt(10 * scale)
    x, lines = head_w, 1
    for kind, text, _ in entries:
        sw = ink.pt((36 if kind == "rails" else 18) * scale)
        w = sw + ink.pt(5 * scale) + ink.width(text, size)
        if x + w > width and x > head_w:
            x, lines = head_w, lines + 1
        x += w + gap
    return lines * lh + (lines - 1) * ink.pt(3 * scale)


CARD_MIN_PT = 104.0   # narrower cards would cut their titles and details short


def card_rows(ink: Ink, count: int, width: float, scale: float = 1.0) -> int:
    """How many rows `count` cards need in `width` so that none is narrower than CARD_MIN_PT."""
    if count == 0:
        return 0
    gap = ink.pt(6 * scale)
    per_row = max(1, int((width + gap) // (ink.pt(CARD_MIN_PT * scale) + gap)))
    return -(-count // per_row)


def _card_parts(ink: Ink, scale: float) -> tuple[float, float, float, float]:
    pad = ink.pt(6 * scale)
    return pad, ink.line_height(6.8 * scale, True), ink.line_height(15 * scale, True), ink.line_height(7 * scale)


def cards_height(ink: Ink, scale: float = 1.0, count: int = 1, width: float = 0.0) -> float:
    """Height of the strip: one row, or as many as `card_rows` needs for `count` cards in `width`."""
    pad, title_h, value_h, detail_h = _card_parts(ink, scale)
    rows = card_rows(ink, count, width, scale) if width else 1
    one = title_h + value_h + detail_h + 2 * pad
    return rows * one + (rows - 1) * ink.pt(6 * scale)


def cards(ink: Ink, rect: QRectF, items: list[Card], scale: float = 1.0) -> float:
    """The key-metrics strip: equal cards side by side (in balanced rows when many), values
    as large as they all fit."""
    if not items:
        return 0.0
    t = ink.theme
    gap = ink.pt(6 * scale)
    rows = card_rows(ink, len(items), rect.width(), scale)
    per_row = -(-len(items) // rows)
    w = (rect.width() - gap * (per_row - 1)) / per_row
    pad, title_h, _, detail_h = _card_parts(ink, scale)
    inner = w - 2 * pad
    value_size = 15 * scale
    while value_size > 7 * scale and any(ink.width(c.value, value_size, True) > inner for c in items):
        value_size -= 0.5 * scale
    value_h = ink.line_height(value_size, True)
    h = title_h + ink.line_height(15 * scale, True) + detail_h + 2 * pad
    for k, card in enumerate(items):
        row, col = divmod(k, per_row)
        box = QRectF(rect.left() + col * (w + gap), rect.top() + row * (h + gap), w, h)
        ink.box(box, t.window, QColor(t.grid).darker(108), 0.5, 3 * scale)
        y = box.top() + pad
        ink.text(QRectF(box.left() + pad, y, inner, title_h), card.title.upper(), 6.8 * scale, t.muted, bold=True,
                 align=LEFT, elide=True)
        y += title_h
        ink.text(QRectF(box.left() + pad, y, inner, value_h), card.value, value_size, t.text, bold=True, align=LEFT)
        y = box.bottom() - pad - detail_h
        ink.text(QRectF(box.left() + pad, y, inner, detail_h), card.detail, 7 * scale, t.muted, align=LEFT, elide=True)
    return rows * h + (rows - 1) * gap


@dataclass(frozen=True)
class Column:
    header: str
    width: float           # share of the table width
    align: Qt.AlignmentFlag = LEFT
    wrap: bool = False     # long text wraps onto more lines (the row grows) instead of ending in '…'


def table(ink: Ink, rect: QRectF, columns: list[Column], rows: list[tuple], size: float = 8.5,
          styles: list[str] | None = None) -> float:
    """Rows of cells under a header; a style per row: '' (plain), 'bold', 'group' (a heading
    across the table), 'muted'. Cell text that does not fit is shortened with '…', except in a
    column that wraps, whose row grows to hold it.
    Returns the height used; rows past the bottom of `rect` are left out."""
    t = ink.theme
    total = sum(c.width for c in columns)
    widths = [rect.width() * c.width / total for c in columns]
    pad = ink.pt(4)
    lh = ink.line_height(size) + ink.pt(4)
    y = rect.top()
    ink.box(QRectF(rect.left(), y, rect.width(), lh), t.window, None, radius_pt=0)
    x = rect.left()
    for c, w in zip(columns, widths, strict=True):
        ink.text(QRectF(x + pad, y, w - 2 * pad, lh), c.header, size - 0.5, t.muted, bold=True, align=c.align,
                 elide=True)
        x += w
    y += lh
    ink.hline(rect.left(), rect.right(), y, t.muted, 0.6)
    styles = styles or [""] * len(rows)
    stripe = QColor(t.window)
    stripe.setAlpha(120)
    shaded = False
    heights = row_heights(ink, rect.width(), columns, rows, size, styles)
    for row, style, row_h in zip(rows, styles, heights, strict=True):
        if y + row_h > rect.bottom() + 0.5:
            break
        if style == "group":
            ink.text(QRectF(rect.left() + pad, y + ink.pt(2), rect.width() - 2 * pad, lh), str(row[0]), size,
                     t.text, bold=True, align=LEFT, elide=True)
            y += lh
            ink.hline(rect.left(), rect.right(), y, t.grid.darker(115), 0.4)
            shaded = False
            continue
        if shaded:
            ink.box(QRectF(rect.left(), y, rect.width(), row_h), stripe, None, radius_pt=0)
        shaded = not shaded
        if style == "bold":
            ink.hline(rect.left(), rect.right(), y, t.muted, 0.6)
        x = rect.left()
        for c, w, cell in zip(columns, widths, row, strict=False):
            color = t.muted if style == "muted" else t.text
            if c.wrap and cell and row_h > lh:
                ink.paragraph(QRectF(x + pad, y + ink.pt(2), w - 2 * pad, row_h), str(cell), size, color,
                              bold=style == "bold")
            else:
                ink.text(QRectF(x + pad, y, w - 2 * pad, lh), "" if cell is None else str(cell), size, color,
                         bold=style == "bold", align=c.align, elide=True)
            x += w
        y += row_h
    return y - rect.top()


def row_heights(ink: Ink, width: float, columns: list[Column], rows: list[tuple], size: float = 8.5,
                styles: list[str] | None = None) -> list[float]:
    """The height `table` gives each row in `width`: one line, or a wrapping cell's lines."""
    total = sum(c.width for c in columns)
    widths = [width * c.width / total for c in columns]
    pad = ink.pt(4)
    lh = ink.line_height(size) + ink.pt(4)
    out = []
    for row, style in zip(rows, styles or [""] * len(rows), strict=True):
        row_h = lh
        if style != "group":
            for c, w, cell in zip(columns, widths, row, strict=False):
                if c.wrap and cell:
                    row_h = max(row_h, ink.paragraph_height(w - 2 * pad, str(cell), size) + ink.pt(4))
        out.append(row_h)
    return out


def table_pages(ink: Ink, width: float, heights: list[float], columns: list[Column], rows: list[tuple],
                size: float = 8.5, styles: list[str] | None = None) -> list[tuple[int, int]]:
    """Split rows over pages whose table heights are `heights` (the last repeats): (first, end) per page.

    Each page repeats the header row. A group heading goes with its rows: a group that fits on a
    page starts on a fresh one rather than be split, and a heading never ends a page.
    """
    styles = styles or [""] * len(rows)
    own = row_heights(ink, width, columns, rows, size, styles)
    header = ink.line_height(size) + ink.pt(4)
    groups: list[tuple[int, int]] = []      # (first, end) of each heading and its rows
    for i, style in enumerate(styles):
        if style == "group" or not groups:
            groups.append((i, i + 1))
        else:
            groups[-1] = (groups[-1][0], i + 1)
    pages: list[tuple[int, int]] = []
    start, used = 0, header

    def room() -> float:
        return heights[min(len(pages), len(heights) - 1)]

    for first, end in groups:
        need = sum(own[first:end])
        if used + need <= room() + 0.5:
            used += need
            continue
        if used > header and header + need <= heights[-1] + 0.5:
            pages.append((start, first))     # the whole group fits a fresh page: start one
            start, used = first, header + need
            continue
        for i in range(first, end):          # longer than a page: split it row by row
            # A heading needs its first row beside it on the same page.
            h = own[i] + (own[i + 1] if styles[i] == "group" and i + 1 < end else 0)
            if used + h > room() + 0.5 and i > start:
                pages.append((start, i))
                start, used = i, header
            used += own[i]
    pages.append((start, len(rows)))
    return pages


def table_height(ink: Ink, rows: int, size: float = 8.5) -> float:
    return (rows + 1) * (ink.line_height(size) + ink.pt(4))


def section_title(ink: Ink, rect: QRectF, text: str, note: str = "") -> float:
    """A page's heading, with an optional muted note on its right."""
    h = ink.line_height(15, True)
    ink.text(QRectF(rect.left(), rect.top(), rect.width() * 0.6, h), text, 15, ink.theme.text, bold=True, align=LEFT,
             elide=True)
    if note:
        ink.text(QRectF(rect.left() + rect.width() * 0.6, rect.top(), rect.width() * 0.4, h), note, 8,
                 ink.theme.muted, align=RIGHT | Qt.AlignmentFlag.AlignBottom, elide=True)
    ink.hline(rect.left(), rect.right(), rect.top() + h + ink.pt(3), ink.theme.highlight, 1.2)
    return h + ink.pt(10)


def header_footer(ink: Ink, page: QRectF, margin: float, design_name: str, section: str, number: int,
                  pages: int, date: str) -> None:
    """Running header (design name, section) and footer (tool, date, page x / y)."""
    t = ink.theme
    size = 7.5
    lh = ink.line_height(size)
    top = page.top() + margin * 0.45
    inner = page.adjusted(margin, 0, -margin, 0)
    ink.text(QRectF(inner.left(), top, inner.width() * 0.65, lh), design_name, size, t.muted, align=LEFT, elide=True)
    ink.text(QRectF(inner.left() + inner.width() * 0.65, top, inner.width() * 0.35, lh), section, size, t.muted,
             align=RIGHT, elide=True)
    ink.hline(inner.left(), inner.right(), top + lh + ink.pt(2), t.grid.darker(120), 0.4)
    bottom = page.bottom() - margin * 0.45 - lh
    ink.hline(inner.left(), inner.right(), bottom - ink.pt(2), t.grid.darker(120), 0.4)
    ink.text(QRectF(inner.left(), bottom, inner.width() * 0.5, lh), f"Fabric Designer {__version__} · {date}",
             size, t.muted, align=LEFT)
    ink.text(QRectF(inner.left() + inner.width() * 0.5, bottom, inner.width() * 0.5, lh), f"Page {number} / {pages}",
             size, t.muted, align=RIGHT)
