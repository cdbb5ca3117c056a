"""Line charts drawn with QPainter for the report: log-x message sizes, linear or log y.

Small and self-contained on purpose: a vector chart in the PDF, fonts and line widths in
points like the rest of the page, no plotting library in the headless path.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainterPath

from designer.ui.export.facts import size
from designer.ui.export.ink import Ink

LEFT = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


@dataclass(frozen=True)
class Series:
    label: str
    x: np.ndarray
    y: np.ndarray
    color: str
    dashed: bool = False


@dataclass(frozen=True)
class Marker:
    """A labelled point, e.g. the message size the design is judged at."""

    x: float
    y: float
    label: str
    color: str


def nice_step(span: float, ticks: int = 5) -> float:
    raw = span / max(ticks, 1)
    if raw <= 0:
        return 1.0
    power = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if m * power >= raw:
            return m * power
    return 10 * power


def _size_ticks(lo: float, hi: float) -> list[float]:
    """Powers of two every 32x: 8 B, 256 B, 8 KiB, ... within [lo, hi]."""
    out = []
    k = 3
    while 2 ** k <= hi:
        if 2 ** k >= lo:
            out.append(float(2 ** k))
        k += 5
    return out


def time_label(us: float) -> str:
    if us >= 1e6:
        return f"{us / 1e6:g} s"
    if us >= 1e3:
        return f"{us / 1e3:g} ms"
    return f"{us:g} µs"


def chart(ink: Ink, rect: QRectF, title: str, series: list[Series], y_label: str, *, log_y: bool = False,
          markers: Sequence[Marker] = (), note: str = "") -> None:
    """A chart in `rect`: title on top, y label at the left, message size (log) along x."""
    t = ink.theme
    title_h = ink.line_height(10, True)
    head = ink.text(QRectF(rect.left(), rect.top(), rect.width(), title_h), title, 10, t.text, bold=True, align=LEFT,
                    elide=True)
    if y_label:
        start = (head.right() if head is not None else rect.left()) + ink.pt(8)
        ink.text(QRectF(start, rect.top(), rect.right() - start, title_h), y_label, 8.5, t.muted,
                 align=LEFT | Qt.AlignmentFlag.AlignBottom, elide=True)
    tick = 7.0
    th = ink.line_height(tick)
    ylab_w = ink.pt(46)
    plot = QRectF(rect.left() + ylab_w, rect.top() + title_h + ink.pt(8), rect.width() - ylab_w - ink.pt(8),
                  rect.height() - title_h - ink.pt(8) - 2 * th - ink.pt(10) - (th if note else 0))
    xs = np.concatenate([s.x for s in series]) if series else np.array([1.0, 2.0])
    ys = np.concatenate([s.y for s in series]) if series else np.array([0.0, 1.0])
    ys = ys[np.isfinite(ys)]
    x0, x1 = math.log2(max(xs.min(), 1)), math.log2(max(xs.max(), 2))
    y0: float
    y1: float
    if log_y:
        positive = ys[ys > 0]
        y0 = math.floor(math.log10(positive.min())) if len(positive) else 0
        y1 = math.ceil(math.log10(positive.max())) if len(positive) else 1
        y1 = max(y1, y0 + 1)
    else:
        step = nice_step(float(ys.max()) if len(ys) else 1.0)
        y0, y1 = 0.0, step * math.ceil((float(ys.max()) if len(ys) else 1.0) * 1.05 / step)
        y1 = max(y1, step)

    def px(x):
        return plot.left() + (math.log2(max(x, 1e-12)) - x0) / (x1 - x0) * plot.width()

    def py(y):
        v = math.log10(max(y, 1e-12)) if log_y else y
        return plot.bottom() - (v - y0) / (y1 - y0) * plot.height()

    painter = ink.painter
    painter.save()
    grid = QColor(t.grid).darker(112)
    ink.box(plot, t.background, None, radius_pt=0)
    # y grid and ticks
    if log_y:
        values = [10.0 ** k for k in range(int(y0), int(y1) + 1)]
        fmt = time_label
    else:
        step = nice_step(y1)
        values = [k * step for k in range(int(round(y1 / step)) + 1)]

        def fmt(v):
            return f"{v:,.0f}" if step >= 1 else f"{v:,.1f}"
    for v in values:
        y = py(v)
        ink.hline(plot.left(), plot.right(), y, grid, 0.4)
        ink.text(QRectF(rect.left(), y - th / 2, ylab_w - ink.pt(4), th), fmt(v), tick, t.muted, align=RIGHT)
    for x in _size_ticks(2 ** x0, 2 ** x1):
        X = px(x)
        painter.setPen(ink.pen(grid, 0.4))
        painter.drawLine(QPointF(X, plot.top()), QPointF(X, plot.bottom()))
        text = size(int(x))
        w = ink.width(text, tick)
        # Labels stay under the plot: the first and last ones are pushed inward.
        left = min(max(X - w / 2, plot.left()), plot.right() - w)
        ink.text(QRectF(left, plot.bottom() + ink.pt(2), w + 1, th), text, tick, t.muted)
    painter.setPen(ink.pen(t.muted, 0.7))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawRect(plot)
    ink.text(QRectF(plot.left(), plot.bottom() + th + ink.pt(4), plot.width(), th), "message size per GPU (bytes)",
             tick, t.muted)
    if note:
        ink.text(QRectF(rect.left(), rect.bottom() - th, rect.width(), th), note, tick, t.muted, align=LEFT,
                 elide=True)
    painter.setClipRect(plot)
    for s in series:
        path = QPainterPath()
        first = True
        for x, y in zip(s.x.tolist(), s.y.tolist(), strict=True):
            if not math.isfinite(y) or (log_y and y <= 0):
                continue
            point = QPointF(px(x), py(y))
            if first:
                path.moveTo(point)
                first = False
            else:
                path.lineTo(point)
        painter.setPen(ink.pen(s.color, 1.6, Qt.PenStyle.DashLine if s.dashed else Qt.PenStyle.SolidLine))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawPath(path)
    for m in markers:
        c = QPointF(px(m.x), py(m.y))
        painter.setPen(ink.pen(t.background, 0.8))
        painter.setBrush(QColor(m.color))
        r = ink.pt(3.2)
        painter.drawEllipse(c, r, r)
    painter.setClipping(False)
    # Marker labels sit left of their point, inside the plot, clear of the legend at the top.
    for m in markers:
        c = QPointF(px(m.x), py(m.y))
        w = ink.width(m.label, tick) + ink.pt(2)
        box = QRectF(c.x() - w - ink.pt(6), c.y() + ink.pt(3), w, th)
        if box.left() < plot.left():
            box.moveLeft(c.x() + ink.pt(6))
        if box.bottom() > plot.bottom():
            box.moveBottom(c.y() - ink.pt(3))
        halo = QColor(t.background)
        halo.setAlpha(225)
        ink.box(box.adjusted(-ink.pt(1.5), 0, ink.pt(1.5), 0), halo, None, radius_pt=1.5)
        ink.text(box, m.label, tick, t.text, align=LEFT)
    # legend, top left inside the plot
    y = plot.top() + ink.pt(4)
    for s in series:
        x = plot.left() + ink.pt(6)
        painter.setPen(ink.pen(s.color, 1.8, Qt.PenStyle.DashLine if s.dashed else Qt.PenStyle.SolidLine))
        painter.drawLine(QPointF(x, y + th / 2), QPointF(x + ink.pt(16), y + th / 2))
        ink.text(QRectF(x + ink.pt(20), y, plot.width() * 0.6, th), s.label, tick, t.text, align=LEFT, elide=True)
        y += th + ink.pt(1)
    painter.restore()
