"""Links between two rows, drawn as bundles in one batched paint call, and manual links.

Zoomed out, a bundle joins a block of one row (a pod, an SU) to a block of the row above and
its width grows with the number of links it stands for. Zoomed in far enough that both rows
show single devices, each linked pair of devices gets its own line. Lines are gathered by
width and drawn with one drawLines call per width, so thousands of bundles stay cheap.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPainterPathStroker, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsObject

from designer.ui.canvas.layout import BOX_HEIGHT, Layout, parse_device_id
from designer.ui.canvas.lod import DEVICE, ROW, row_lod
from designer.ui.canvas.tier_item import label_font

if TYPE_CHECKING:
    from designer.ui.canvas.scene_state import SceneState

CLUSTERS = 16        # bundles of a row drawn as one box start from at most this many points
SMOOTH_LINES = 60    # slanted lines are antialiased up to this many per bundle
EACH_LINK_MAX = 20000  # "Show Each Link" draws one line per link up to this many in view, then one per pair


def bundle_width(links: int) -> float:
    """Pen width in pixels for a bundle of `links` links: grows with the logarithm of the count."""
    return max(1.0, min(12.0, 0.6 + 0.95 * math.log2(1 + links)))


def _clip_to_columns(x1, y1, x2, y2, left: float, right: float):
    """Clip segments to left <= x <= right (numpy); returns the kept, shortened segments."""
    dx = x2 - x1
    with np.errstate(divide="ignore", invalid="ignore"):
        t_left = np.where(dx != 0, (left - x1) / dx, -np.inf)
        t_right = np.where(dx != 0, (right - x1) / dx, np.inf)
    t0 = np.clip(np.maximum(0.0, np.minimum(t_left, t_right)), 0.0, 1.0)
    t1 = np.clip(np.minimum(1.0, np.maximum(t_left, t_right)), 0.0, 1.0)
    vertical_inside = (dx == 0) & (x1 >= left) & (x1 <= right)
    t0 = np.where(dx == 0, 0.0, t0)
    t1 = np.where(dx == 0, 1.0, t1)
    keep = np.where(dx == 0, vertical_inside, t1 > t0)
    dy = y2 - y1
    return (x1 + t0 * dx)[keep], (y1 + t0 * dy)[keep], (x1 + t1 * dx)[keep], (y1 + t1 * dy)[keep], keep


def _lines(x1, y1, x2, y2) -> list[QLineF]:
    return [QLineF(a, b, c, d) for a, b, c, d in zip(x1.tolist(), y1.tolist(), x2.tolist(), y2.tolist(), strict=True)]


def _spread_over_devices(lo, up, xa, xb, links):
    """Split each block-to-block bundle evenly over the devices of a row drawn device by device.

    `lo` / `up` are the rows to spread (None keeps that end at its anchor). Link counts become
    shares, so the pen widths still add up to what the bundle carries.
    """
    for row, ends in ((up, "b"), (lo, "a")):
        if row is None or not len(xa):
            continue
        anchors = xb if ends == "b" else xa
        out_a, out_b, out_n = [], [], []
        for a, b, n, anchor in zip(xa.tolist(), xb.tolist(), links.tolist(), anchors.tolist(), strict=True):
            block = min(row.blocks, key=lambda blk: abs(blk.center - anchor))
            k = max(1, block.count)
            xs = [block.device_x(i) for i in range(k)]
            out_a.extend(xs if ends == "a" else [a] * k)
            out_b.extend(xs if ends == "b" else [b] * k)
            out_n.extend([n / k] * k)
        xa, xb, links = np.array(out_a), np.array(out_b), np.array(out_n)
    return xa, xb, links


class BundleItem(QGraphicsObject):
    """All links between row `lower` and row `upper`."""

    if TYPE_CHECKING:   # these live only in the fabric scene and call what its state offers
        def scene(self) -> SceneState: ...

    def __init__(self, lower: str, upper: str):
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.layout: Layout | None = None
        self.links_drawn = 0   # links the last paint drew one line each ("Show Each Link"); 0 drawn as bundles
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption, True)
        self.setZValue(0)

    def set_layout(self, layout: Layout) -> None:
        self.prepareGeometryChange()
        self.layout = layout
        self.update()

    def boundingRect(self) -> QRectF:
        if self.layout is None or self.lower not in self.layout.rows or self.upper not in self.layout.rows:
            return QRectF()
        lo, up = self.layout.rows[self.lower], self.layout.rows[self.upper]
        x0, x1 = min(lo.x0, up.x0), max(lo.x1, up.x1)
        return QRectF(x0, up.y, x1 - x0, lo.y - up.y)

    def paint(self, painter: QPainter, option, widget=None) -> None:
        layout = self.layout
        ctx = self.scene()
        if layout is None or ctx is None:
            return
        lo, up = layout.rows.get(self.lower), layout.rows.get(self.upper)
        if lo is None or up is None:
            return
        t = painter.worldTransform()
        sx, dx = t.m11(), t.dx()
        y_lo = t.map(QPointF(0, lo.y - BOX_HEIGHT / 2)).y()
        y_up = t.map(QPointF(0, up.y + BOX_HEIGHT / 2)).y()
        view = t.mapRect(option.exposedRect)
        left, right = view.left() - 4, view.right() + 4
        painter.save()
        painter.resetTransform()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        family = layout.resolved.family
        failure = getattr(ctx, "link_failure", None)
        self.links_drawn = 0
        if failure is not None and failure.layout is layout and failure.touches(self.lower):
            self._paint_failure(painter, failure, lo, up, sx, dx, y_lo, y_up, left, right, family)
        elif ctx.each_link:
            self._paint_each(painter, layout, lo, up, sx, dx, y_lo, y_up, left, right, family)
        elif row_lod(lo, sx) == DEVICE and row_lod(up, sx) == DEVICE:
            self._paint_devices(painter, layout, lo, up, sx, dx, y_lo, y_up, left, right, family)
        else:
            self._paint_blocks(painter, layout, lo, up, sx, dx, y_lo, y_up, left, right, family)
        if failure is None and not ctx.each_link:
            self._paint_counts(painter, layout, lo, sx, dx, y_lo, left, right)
        painter.restore()

    def _paint_counts(self, painter, layout, lo, sx, dx, y_lo, left, right) -> None:
        """'16 × 400G to each spine' above each block (SU, pod) of the lower row, where it fits,
        as the exported diagram labels its bundles."""
        if len(lo.blocks) < 2:
            return
        texts = self._count_texts(layout)
        if not texts:
            return
        font = label_font(7.5)
        painter.setFont(font)
        fm = painter.fontMetrics()
        paper = QColor(self.scene().theme.background) if hasattr(self.scene(), "theme") else QColor("white")
        paper.setAlpha(225)
        ink = self.scene().theme.text if hasattr(self.scene(), "theme") else QColor("black")
        room = min(b.w * sx for b in lo.blocks) - 8
        # The longest form that fits every block, the same in each: "16 × 400G to each spine",
        # "16 × 400G each", "16 × 400G"; none when even that does not fit (the gutter has the total).
        level = next((k for k in range(3) if all(fm.horizontalAdvance(f[k]) <= room for f in texts.values())), None)
        if level is None:
            return
        for b in lo.blocks:
            forms = texts.get(b.index)
            text = forms[level] if forms else None
            cx = (b.x + b.w / 2) * sx + dx
            if text is None or cx < left or cx > right:
                continue
            w, h = fm.horizontalAdvance(text) + 6, fm.height()
            box = QRectF(cx - w / 2, y_lo - h - 10, w, h)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(paper)
            painter.drawRoundedRect(box, 2, 2)
            painter.setPen(ink)
            painter.drawText(box, int(Qt.AlignmentFlag.AlignCenter), text)

    def _count_texts(self, layout) -> dict[int, tuple[str, str, str]]:
        """Per lower block: how many links it has to each switch above, with their speed (cached)."""
        key = ("count-texts", self.lower, self.upper)
        if key in layout._cache:
            return layout._cache[key]
        lo = layout.rows[self.lower]
        a, b, n = layout.link_arrays(self.lower)
        out: dict[int, tuple[str, str, str]] = {}
        if len(a):
            firsts = np.array([blk.first for blk in lo.blocks], dtype=np.int64)
            block = np.clip(np.searchsorted(firsts, a, side="right") - 1, 0, len(firsts) - 1)
            keys, inverse = np.unique(block * (int(b.max()) + 1) + b, return_inverse=True)
            per = np.bincount(inverse.ravel(), weights=n)
            of_block = keys // (int(b.max()) + 1)
            r = layout.resolved
            gbps = r.link_gbps if self.lower == "servers" else r.uplink_gbps
            speed = f"{gbps / 1000:g}T" if gbps >= 1000 else f"{gbps}G"
            noun = {"leaf": "leaf", "spine": "spine", "core": "core switch"}.get(self.upper, self.upper)
            if self.upper == "leaf" and layout.plan.rail_su_size:
                noun = "rail leaf"
            for k in np.unique(of_block).tolist():
                counts = per[of_block == k]
                low, high = int(counts.min()), int(counts.max())
                each = f"{low:,}" if low == high else f"{low:,}–{high:,}"
                out[int(k)] = (f"{each} × {speed} to each {noun}", f"{each} × {speed} each", f"{each} × {speed}")
        layout._cache[key] = out
        return out

    def _paint_blocks(self, painter, layout, lo, up, sx, dx, y_lo, y_up, left, right, family) -> None:
        # A row drawn as one box shows no pods, so its bundles need not start at every pod:
        # they are gathered into at most CLUSTERS runs of neighbouring blocks.
        clusters_lo = CLUSTERS if row_lod(lo, sx) == ROW and len(lo.blocks) > CLUSTERS else 0
        clusters_up = CLUSTERS if row_lod(up, sx) == ROW and len(up.blocks) > CLUSTERS else 0
        # A row drawn switch by switch gets its bundles at its switches, not at its block centre:
        # otherwise every aggregated leaf block seems wired to one spine.
        spread_lo, spread_up = row_lod(lo, sx) == DEVICE, row_lod(up, sx) == DEVICE
        key = ("blocks", self.lower, self.upper, clusters_lo, clusters_up, spread_lo, spread_up)
        cached = layout._cache.get(key)
        if cached is None:
            cached = self._block_pairs(layout, lo, up, clusters_lo, clusters_up)
            if spread_lo or spread_up:
                cached = _spread_over_devices(lo if spread_lo else None, up if spread_up else None, *cached)
            layout._cache[key] = cached
        xa, xb, links = cached
        self._paint_pairs(painter, xa * sx + dx, xb * sx + dx, links, 1.0, y_lo, y_up, left, right, family,
                          squeeze_room=0.45 * max((lo.x1 - lo.x0) * sx, 1.0))

    def _block_pairs(self, layout, lo, up, clusters_lo: int, clusters_up: int):
        mine = [b for b in layout.bundles if b.lower == self.lower and b.upper == self.upper and b.links]
        if not mine:
            return np.zeros(0), np.zeros(0), np.zeros(0, np.int64)
        ka = np.array([b.lower_block for b in mine])
        kb = np.array([b.upper_block for b in mine])
        links = np.array([b.links for b in mine], dtype=np.int64)

        def anchors(row, keys, clusters):
            centers = np.array([blk.center for blk in row.blocks])
            if not clusters:
                return keys, centers
            group = keys * clusters // len(row.blocks)
            means = np.array([centers[np.arange(len(row.blocks)) * clusters // len(row.blocks) == g].mean()
                              for g in range(clusters)])
            return group, means

        ga, ca = anchors(lo, ka, clusters_lo)
        gb, cb = anchors(up, kb, clusters_up)
        pairs, inverse = np.unique(np.stack([ga, gb], axis=1), axis=0, return_inverse=True)
        summed = np.bincount(inverse.ravel(), weights=links).astype(np.int64)
        return ca[pairs[:, 0]], cb[pairs[:, 1]], summed

    def _paint_devices(self, painter, layout, lo, up, sx, dx, y_lo, y_up, left, right, family) -> None:
        a, b, links = layout.link_arrays(self.lower)
        key = ("xs", self.lower)
        if key not in layout._cache:
            sa, sb = lo.device_xs(a), up.device_xs(b)
            by_a, by_b = np.argsort(sa, kind="stable"), np.argsort(sb, kind="stable")
            layout._cache[key] = (sa, sb, by_a, sa[by_a], by_b, sb[by_b])
        sa, sb, by_a, sa_sorted, by_b, sb_sorted = layout._cache[key]
        # Only pairs with an end in (or near) view: found by binary search, not by a full scan.
        span = right - left
        lo_x, hi_x = (left - span - dx) / sx, (right + span - dx) / sx
        near_a = by_a[np.searchsorted(sa_sorted, lo_x):np.searchsorted(sa_sorted, hi_x, side="right")]
        near_b = by_b[np.searchsorted(sb_sorted, lo_x):np.searchsorted(sb_sorted, hi_x, side="right")]
        pick = np.union1d(near_a, near_b)
        self._paint_pairs(painter, sa[pick] * sx + dx, sb[pick] * sx + dx, links[pick], 0.7,
                          y_lo, y_up, left, right, family)

    def _paint_each(self, painter, layout, lo, up, sx, dx, y_lo, y_up, left, right, family) -> None:
        """View > Show Each Link: every link its own line, device to device, whatever the zoom.

        Parallel links of one pair of devices are fanned a few pixels apart so that each stays
        countable; past EACH_LINK_MAX links in view a pair is one line again (the level of detail
        that keeps a 16K-GPU fabric responsive), and zooming in brings the single links back.
        """
        a, b, links = layout.link_arrays(self.lower)
        if not len(a):
            return
        xa, xb = lo.device_xs(a) * sx + dx, up.device_xs(b) * sx + dx
        crossing = ~(((xa < left) & (xb < left)) | ((xa > right) & (xb > right)))
        xa, xb, links = xa[crossing], xb[crossing], links[crossing].astype(np.int64)
        total = int(links.sum())
        if total <= EACH_LINK_MAX:
            # Room per link: a fraction of the narrower row's device pitch, at most 3 px apart.
            gap = min(3.0, 0.6 * min(lo.pitch, up.pitch) * sx / max(int(links.max()), 1))
            k = np.repeat(links, links)
            offset = (np.arange(total) - np.repeat(np.cumsum(links) - links, links) - (k - 1) / 2) * gap
            xa, xb = np.repeat(xa, links) + offset, np.repeat(xb, links) + offset
            self.links_drawn = total
        count = len(xa)
        x1, y1, x2, y2, _ = _clip_to_columns(xa, np.full(count, y_lo), xb, np.full(count, y_up), left, right)
        self._draw_by_width(painter, x1, y1, x2, y2, np.ones(len(x1)),
                            ctx_color(self, family, 150 if count <= SMOOTH_LINES * 10 else 100))

    def _paint_failure(self, painter, failure, lo, up, sx, dx, y_lo, y_up, left, right, family) -> None:
        """The bundles with a failure shown: live links as usual, failed ones dashed in the
        error colour (pale, for the later parts of a build-out phase), at the detail each row
        is drawn with."""
        lod_lo, lod_up = row_lod(lo, sx), row_lod(up, sx)
        key = ("pairs", self.lower, lod_lo, lod_up)
        cached = failure._cache.get(key)
        if cached is None:
            cached = _failure_pairs(failure, self.lower, lo, up, lod_lo, lod_up)
            failure._cache[key] = cached
        xa, xb, live, failed = cached
        devices = lod_lo == DEVICE and lod_up == DEVICE
        scale = 0.7 if devices else 1.0
        xa, xb = xa * sx + dx, xb * sx + dx
        shown = live > 0
        if shown.any():
            room = None if devices else 0.45 * max((lo.x1 - lo.x0) * sx, 1.0)
            self._paint_pairs(painter, xa[shown], xb[shown], live[shown], scale, y_lo, y_up, left, right,
                              family, squeeze_room=room)
        down = failed > 0
        if not down.any():
            return
        count = int(down.sum())
        x1, y1, x2, y2, keep = _clip_to_columns(xa[down], np.full(count, y_lo), xb[down], np.full(count, y_up),
                                                left, right)
        if not len(x1):
            return
        theme = self.scene().theme
        if failure.ghost:
            color = ctx_color(self, family, 45)
        else:
            color = QColor(theme.error)
            color.setAlpha(200)
        # Dashes wider than a few pixels merge into blots: the width tells the count up to that.
        widths = np.minimum(np.array([bundle_width(n) for n in failed[down][keep].tolist()]) * scale, 4.0)
        if count > SMOOTH_LINES:
            widths = np.full(len(x1), 1.5)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, len(x1) <= SMOOTH_LINES)
        for width in np.unique(np.round(widths, 1)).tolist():
            pen = QPen(color, max(1.0, width), Qt.PenStyle.DashLine)
            pen.setCapStyle(Qt.PenCapStyle.FlatCap)
            painter.setPen(pen)
            sel = np.round(widths, 1) == width
            painter.drawLines(_lines(x1[sel], y1[sel], x2[sel], y2[sel]))
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)

    def _paint_pairs(self, painter, xa, xb, links, scale, y_lo, y_up, left, right, family,
                     squeeze_room: float | None = None) -> None:
        """Lines from x positions `xa` (lower row) to `xb` (upper row), in screen pixels.

        Pairs whose ends are more than half a view apart, one of them out of view, would cross
        the view as long, nearly flat lines that merge into a wall (every pod to every core
        group): they become short stubs at the ends in view, one per end and direction, as wide
        as the links they carry.
        """
        if not len(xa):
            return
        in_a = (xa >= left) & (xa <= right)
        in_b = (xb >= left) & (xb <= right)
        # Long pairs with an end out of view: those would cross the view nearly flat.
        far = (np.abs(xb - xa) > 0.5 * max(right - left, 1.0)) & ~(in_a & in_b)
        crossing = ~(((xa < left) & (xb < left)) | ((xa > right) & (xb > right)))
        near = ~far & crossing
        alpha = 150
        if near.any():
            widths = np.array([bundle_width(n) for n in links[near].tolist()]) * scale
            total = float(widths.sum())
            count = int(near.sum())
            if count > SMOOTH_LINES:
                # A dense fan: hairlines (the raster engine's fastest lines), still readable
                # as a mesh; the width no longer tells the link count, the tooltip does.
                widths = np.ones(count)
                alpha = 110
            elif squeeze_room is not None and total > squeeze_room:
                # Many crossing bundles would merge into a solid wall: thin them out.
                squeeze = squeeze_room / total
                alpha = int(max(45, 150 * squeeze ** 0.5))
                # below 1.6 px a line is drawn 1 px wide: the raster engine's fast path
                widths = np.where(widths * squeeze < 1.6, 1.0, widths * squeeze)
            x1, y1, x2, y2, keep = _clip_to_columns(xa[near], np.full(count, y_lo), xb[near],
                                                    np.full(count, y_up), left, right)
            self._draw_by_width(painter, x1, y1, x2, y2, np.round(widths[keep], 1),
                                ctx_color(self, family, alpha))
        gap = y_up - y_lo
        color = ctx_color(self, family, 120)
        for xs, y, toward, mask in ((xa, y_lo, 1, far & in_a), (xb, y_up, -1, far & in_b)):
            if not mask.any():
                continue
            direction = np.sign(xb[mask] - xa[mask]) * toward
            ends = np.stack([xs[mask], direction], axis=1)
            unique, inverse = np.unique(ends, axis=0, return_inverse=True)
            counts = np.bincount(inverse.ravel(), weights=links[mask])
            for (x, d), n in zip(unique.tolist(), counts.tolist(), strict=True):
                pen = QPen(color, max(1.0, bundle_width(int(n)) * 0.5 * scale), Qt.PenStyle.DashLine)
                pen.setCapStyle(Qt.PenCapStyle.FlatCap)
                painter.setPen(pen)
                painter.drawLine(QLineF(x, y, x + d * 0.25 * abs(gap), y + 0.25 * gap * toward))

    @staticmethod
    def _draw_by_width(painter: QPainter, x1, y1, x2, y2, widths, color: QColor) -> None:
        """Draw the segments, one pen per width.

        Antialiasing costs most on many lines and shows only on slanted ones: upright lines
        (most bundles at a fit-to-window zoom) and dense fans are drawn without it, which the
        raster engine does several times faster.
        """
        if not len(x1):
            return
        widths = np.asarray(widths, dtype=np.float64)
        upright = np.abs(x2 - x1) < 0.5
        smooth_slanted = int((~upright).sum()) <= SMOOTH_LINES
        for width in np.unique(widths).tolist():
            pen = QPen(color, width)
            pen.setCapStyle(Qt.PenCapStyle.FlatCap)
            pen.setCosmetic(width <= 1.0)  # hairlines take the fast line rasteriser, not the stroker
            painter.setPen(pen)
            for straight in (True, False):
                sel = (widths == width) & (upright if straight else ~upright)
                if sel.any():
                    painter.setRenderHint(QPainter.RenderHint.Antialiasing, not straight and smooth_slanted)
                    painter.drawLines(_lines(x1[sel], y1[sel], x2[sel], y2[sel]))
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)


def _row_ends(row, devices: np.ndarray, lod: int) -> tuple[np.ndarray, np.ndarray]:
    """(key, x) of each link end at the row's level of detail: the device itself, its block,
    or, for a row drawn as one box with many blocks, its run of blocks (as `_block_pairs`)."""
    if lod == DEVICE:
        return devices, row.device_xs(devices)
    firsts = np.array([b.first for b in row.blocks], dtype=np.int64)
    centers = np.array([b.center for b in row.blocks])
    k = np.clip(np.searchsorted(firsts, devices, side="right") - 1, 0, len(firsts) - 1)
    if lod == ROW and len(row.blocks) > CLUSTERS:
        n = len(row.blocks)
        group = k * CLUSTERS // n
        means = np.array([centers[np.arange(n) * CLUSTERS // n == g].mean() for g in range(CLUSTERS)])
        return group, means[group]
    return k, centers[k]


def _failure_pairs(failure, lower: str, lo, up, lod_lo: int, lod_up: int):
    """Scene x of both ends, live and failed links of each line drawn between two rows."""
    a, b, _ = failure.layout.link_arrays(lower)
    links, failed = failure.failed_links(lower)
    if not len(a):
        empty = np.zeros(0)
        return empty, empty, empty, empty
    ka, xa = _row_ends(lo, a, lod_lo)
    kb, xb = _row_ends(up, b, lod_up)
    pairs, first, inverse = np.unique(np.stack([ka, kb], axis=1), axis=0, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    total = np.bincount(inverse, weights=links, minlength=len(pairs))
    down = np.bincount(inverse, weights=failed, minlength=len(pairs))
    return xa[first], xb[first], total - down, down


def ctx_color(item: BundleItem | ManualLinksItem, family: str, alpha: int) -> QColor:
    """The link colour at `alpha` strength, premixed with the background into an opaque colour.

    Opaque lines draw about twice as fast as translucent ones in the raster engine, and
    crossings do not darken into blots."""
    return item.scene().theme.link_on_background(family, alpha)


class ManualLinksItem(QGraphicsObject):
    """Links added by hand (manual edits), drawn as dashed arcs above the template's links."""

    if TYPE_CHECKING:   # these live only in the fabric scene and call what its state offers
        def scene(self) -> SceneState: ...

    def __init__(self):
        super().__init__()
        self.layout: Layout | None = None
        self.setZValue(20)
        self.setAcceptHoverEvents(True)

    def set_layout(self, layout: Layout) -> None:
        self.prepareGeometryChange()
        self.layout = layout
        self.update()

    def _ends(self, a: str, b: str) -> tuple[QPointF, QPointF] | None:
        if self.layout is None:
            return None
        pa, pb = self.layout.device_position(a), self.layout.device_position(b)
        if pa is None or pb is None:
            return None
        (ta, xa, ya), (tb, xb, yb) = pa, pb
        if ya < yb:  # start at the lower device
            (ta, xa, ya), (tb, xb, yb) = (tb, xb, yb), (ta, xa, ya)
        return QPointF(xa, ya - BOX_HEIGHT / 2), QPointF(xb, yb + BOX_HEIGHT / 2 if yb < ya else yb)

    def path_of(self, a: str, b: str) -> QPainterPath | None:
        ends = self._ends(a, b)
        if ends is None:
            return None
        p, q = ends
        path = QPainterPath(p)
        bend = QPointF((p.x() + q.x()) / 2 + (q.y() - p.y()) * 0.25, (p.y() + q.y()) / 2)
        path.quadTo(bend, q)
        return path

    def boundingRect(self) -> QRectF:
        if self.layout is None or not self.layout.manual_links:
            return QRectF()
        rect = QRectF()
        for _, a, b, _ in self.layout.manual_links:
            path = self.path_of(a, b)
            if path is not None:
                rect = rect.united(path.boundingRect())
        return rect.adjusted(-40, -40, 40, 40)

    def edit_at(self, pos: QPointF, tolerance: float) -> int | None:
        """Index in design.edits of the manual link passing near `pos` (scene units), if any."""
        if self.layout is None:
            return None
        stroker = QPainterPathStroker()
        stroker.setWidth(max(tolerance, 1e-3))
        for index, a, b, _ in self.layout.manual_links:
            path = self.path_of(a, b)
            if path is not None and stroker.createStroke(path).contains(pos):
                return index
        return None

    def paint(self, painter: QPainter, option, widget=None) -> None:
        ctx = self.scene()
        if self.layout is None or ctx is None:
            return
        t = painter.worldTransform()
        painter.save()
        painter.resetTransform()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        for index, a, b, count in self.layout.manual_links:
            path = self.path_of(a, b)
            if path is None:
                continue
            selected = f"edit:{index}" in ctx.selected
            color = ctx.theme.highlight if selected else QColor(ctx.theme.manual)
            pen = QPen(color, 3.0 if selected else 2.2, Qt.PenStyle.DashLine)
            painter.setPen(pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            mapped = t.map(path)
            painter.drawPath(mapped)
            if count > 1:
                mid = mapped.pointAtPercent(0.5)
                painter.setFont(label_font(8, True))
                painter.drawText(QRectF(mid.x() + 4, mid.y() - 9, 40, 18),
                                 int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), f"×{count}")
        painter.restore()


__all__ = ["BundleItem", "ManualLinksItem", "bundle_width", "parse_device_id"]
