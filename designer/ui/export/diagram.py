"""The fabric diagram for paper, images and presentation: read-only, headless, readable at any size.

It draws the canvas's layout (designer/ui/canvas/layout.py) with its own painter code, sized
in points through `Ink`, so the same picture comes out on a PDF page, in an SVG, in a PNG at
any DPI and on a projector. Each row is drawn device by device when a device gets enough
room, else one box per block (SU, pod, core group), else blocks gathered into groups wide
enough for a label: a 64K-GPU fabric stays a clean, aggregated picture. Links are summed per
pair of drawn boxes from the layout's link arrays, so a bundle's width tells how many links it
carries at every level of aggregation. Labels are drawn only inside their own box or lane,
never over another.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QColor

from designer.catalog import Catalog, default_catalog
from designer.model.intent.design import FabricDesign
from designer.model.intent.slides import Slide, block_noun
from designer.model.topology.derive import plan_only
from designer.ui.canvas.bundle_item import bundle_width
from designer.ui.canvas.layout import TIER_LABEL, Layout, Row, compute_layout, device_id, parse_device_id
from designer.ui.canvas.tier_item import paint_coolant
from designer.ui.export.bundles import (
    Bundle,
    BundleLabel,
    draw_block_frames,
    draw_bundles,
    draw_labels,
    rail_groups_of_leaves,
    rail_names,
)
from designer.ui.export.ink import Ink
from designer.ui.theme import FAMILY_LABEL

GROUP, BLOCK, DEVICE = 0, 1, 2

SWITCH_MIN_PT = 15.0    # a switch is drawn on its own from this pitch (points)
SERVER_MIN_PT = 5.5     # a server (drawn narrow, labelled only when roomy) from this pitch
BLOCK_MIN_PT = 34.0     # a block gets its own box from this width
MAX_BOX_PT = 62.0       # a device box never gets wider
GUTTER_PT = 118.0       # the row names left of the drawing
PLANE_STEP_PT = 2.2     # stacked copies behind a switch box show further planes

LINK_KEYS = {"spine": "spine-core", "leaf": "leaf-spine", "servers": "node-leaf"}


def speed_label(gbps: int) -> str:
    return f"{gbps / 1000:g}T" if gbps >= 1000 else f"{gbps}G"


@dataclass(frozen=True)
class View:
    """What part of the fabric to draw (a Slide's picture, without its title)."""

    kind: str = "fabric"         # fabric | su | plane
    su: int | None = None        # 0-based column for "su"
    plane: int = 0               # 0-based plane whose device names are shown
    left: float = 0.0
    right: float = 1.0
    # "bundles": links between tiers as one labelled bundle per block and switch above, SUs as
    # framed blocks, rails in colour (as reference architectures draw them); "each": one line
    # per pair of drawn boxes, the link-by-link view.
    links: str = "bundles"

    @classmethod
    def of(cls, slide: Slide | None) -> View:
        if slide is None or slide.kind == "comparison":
            return cls()
        if slide.kind == "su":
            return cls("su", su=(slide.su or 1) - 1)
        if slide.kind == "plane":
            return cls("plane", plane=(slide.plane or 1) - 1)
        return cls("fabric", left=slide.left, right=slide.right)


class DiagramSource:
    """A design with its layout, and its metrics when derived; raises SizingError if it cannot be sized."""

    def __init__(self, design: FabricDesign, catalog: Catalog | None = None, derived=None):
        self.design = design
        self.derived = derived
        if derived is not None:
            self.resolved, self.plan = derived.resolved, derived.plan
        else:
            self.resolved, self.plan = plan_only(design, catalog or default_catalog())
        self.layout: Layout = compute_layout(design, self.resolved, self.plan)

    @property
    def planes(self) -> int:
        return self.resolved.planes

    @property
    def columns(self) -> int:
        """SUs or pods drawn side by side (1 when the fabric has no columns)."""
        return len(self.layout.rows["leaf"].blocks)

    @property
    def column_noun(self) -> str:
        return block_noun(self.plan.template, self.plan.tiers, self.plan.sus) or "Column"

    def links_per_plane(self, key: str) -> int:
        """Links of one tier in one plane (from the metrics when known, else from the plan)."""
        metrics = getattr(self.derived, "metrics", None)
        if metrics is not None and key in metrics.links_by_tier:
            return metrics.links_by_tier[key] // max(1, self.planes)
        plan = self.plan
        if key == "node-leaf":
            return plan.servers * self.resolved.rails
        if key == "leaf-spine":
            return plan.leaves * plan.leaf_up
        return plan.spines * plan.spine_up if plan.tiers == 3 else 0

    def legend_entries(self, theme) -> list[tuple[str, str, QColor]]:
        """(kind, label, colour): kind is box, line, dash, cross, stack or coolant."""
        r = self.resolved
        rows = [("box", TIER_LABEL[tier], theme.tier(tier)) for tier in self.layout.tiers]
        speeds = speed_label(r.link_gbps) if r.link_gbps == r.uplink_gbps else \
            f"{speed_label(r.link_gbps)} to servers, {speed_label(r.uplink_gbps)} between switches"
        family = FAMILY_LABEL.get(r.family, r.family)
        rows.append(("line", f"{family} {r.technology.generation} links, {speeds}; width grows with the count",
                     theme.family(r.family)))
        if self.layout.manual_links:
            rows.append(("dash", "Link added by hand", theme.manual))
        if self.layout.removed:
            rows.append(("cross", "Removed device", theme.error))
        if r.planes > 1:
            rows.append(("stack", f"{r.planes} identical planes, one drawn", theme.muted))
        if any(row.liquid_cooled for row in self.layout.rows.values()):
            rows.append(("coolant", "Liquid-cooled racks", theme.coolant))
        if rail_groups_of_leaves(self) is not None:
            names = rail_names(self)
            first, last = names[0].split(" ", 1)[1], names[-1].split(" ", 1)[1]
            span = f"{first.split('–')[0]}–{last.split('–')[-1]}"
            rows.append(("rails", f"Rails {span}: leaves drawn one by one and their server links, one colour per rail",
                         tuple(theme.rail(k) for k in range(len(names)))))
        return rows


@dataclass
class RowDrawing:
    """How one row is drawn: its boxes ('cells') and which cell each device falls in."""

    tier: str
    row: Row
    y: float                  # centre (device units)
    h: float                  # box height
    lod: int
    cell_of: np.ndarray       # device index -> cell, -1 when the device is not drawn
    x0: np.ndarray            # cell left edges
    x1: np.ndarray            # cell right edges
    first: np.ndarray         # first device of each cell
    count: np.ndarray         # devices in each cell
    labels: list[str]         # block / group label of each cell ('' for devices)

    @property
    def centers(self) -> np.ndarray:
        return (self.x0 + self.x1) / 2


def _block_of_devices(row: Row) -> np.ndarray:
    firsts = np.array([b.first for b in row.blocks], dtype=np.int64)
    return np.clip(np.searchsorted(firsts, np.arange(row.count), side="right") - 1, 0, len(firsts) - 1)


def _group_size(blocks: int, needed: int) -> int:
    """Blocks per group: at least `needed`, preferring a size that divides the blocks evenly."""
    needed = max(1, needed)
    for g in range(needed, min(blocks, 2 * needed) + 1):
        if blocks % g == 0:
            return g
    return min(needed, blocks)


def _range_label(noun: str, a: int, b: int) -> str:
    plural = {"SU": "SUs", "Pod": "Pods", "Core group": "Core groups"}.get(noun, noun)
    return f"{noun} {a}" if a == b else f"{plural} {a}–{b}"


def _short_label(label: str) -> str:
    """'Core group 3' -> 'Group 3', 'Core groups 1–4' -> 'Groups 1–4'; others unchanged."""
    return label.replace("Core group", "Group")


class Diagram:
    """Draws one view of a DiagramSource into a rectangle; keeps what it drew for inspection."""

    def __init__(self, source: DiagramSource, view: View | None = None, text_scale: float = 1.0):
        self.source = source
        self.view = view or View()
        self.ts = text_scale
        self.rows: dict[str, RowDrawing] = {}
        self.bundles: dict[str, list[Bundle]] = {}          # lower tier -> bundles drawn up from it
        self.bundle_labels: dict[str, list[BundleLabel]] = {}
        self.frames: list[str] = []                          # labels of the SU / pod frames drawn

    # --- geometry ------------------------------------------------------------------------------

    def _ranges(self) -> dict[str, tuple[float, float, int, int]]:
        """Per row: the layout x-range mapped to the drawing, and the device range drawn."""
        layout = self.source.layout
        view = self.view
        out = {}
        if view.kind == "su":
            k = min(max(view.su or 0, 0), self.source.columns - 1)
            for tier in layout.tiers:
                row = layout.rows[tier]
                if tier in ("leaf", "servers") or (tier == "spine" and len(row.blocks) > 1):
                    b = row.blocks[min(k, len(row.blocks) - 1)]
                    out[tier] = (b.x, b.x + b.w, b.first, b.first + b.count)
                else:  # the spines of two tiers and the cores: every one is in reach of the SU
                    out[tier] = (row.x0, row.x1, 0, row.count)
            return out
        x0 = min(layout.rows[t].x0 for t in layout.tiers)
        x1 = max(layout.rows[t].x1 for t in layout.tiers)
        s0, s1 = x0 + (x1 - x0) * view.left, x0 + (x1 - x0) * view.right
        for tier in layout.tiers:
            out[tier] = (s0, s1, 0, layout.rows[tier].count)
        return out

    def _row(self, ink: Ink, tier: str, y: float, h: float, s0: float, s1: float, d0: int, d1: int,
             p0: float, p1: float) -> RowDrawing:
        row = self.source.layout.rows[tier]
        sc = (p1 - p0) / max(s1 - s0, 1e-9)
        ts = self.ts

        def x(v):
            return p0 + (np.asarray(v, dtype=np.float64) - s0) * sc

        blocks = [b for b in row.blocks if b.first + b.count > d0 and b.first < d1] or list(row.blocks)
        pitch = min((b.pitch for b in blocks if b.count), default=row.pitch) * sc
        minimum = (SERVER_MIN_PT if tier == "servers" else SWITCH_MIN_PT) * ts
        block_w = min(b.w for b in blocks) * sc
        if pitch >= ink.pt(minimum):
            lod = DEVICE
        elif len(blocks) > 1 and block_w >= ink.pt(BLOCK_MIN_PT * ts):
            lod = BLOCK
        else:
            lod = GROUP
        cell_of = np.full(row.count, -1, dtype=np.int64)
        if lod == DEVICE:
            devices = np.arange(d0, d1, dtype=np.int64)
            centers = x(row.device_xs(devices))
            block_index = _block_of_devices(row)[devices]
            pitches = np.array([b.pitch for b in row.blocks])[block_index] * sc
            half = np.minimum(pitches * (0.8 if tier == "servers" else 0.82), ink.pt(MAX_BOX_PT * ts)) / 2
            cell_of[d0:d1] = np.arange(len(devices))
            return RowDrawing(tier, row, y, h, lod, cell_of, centers - half, centers + half, devices,
                              np.ones(len(devices), np.int64), [""] * len(devices))
        of_device = _block_of_devices(row)
        if lod == BLOCK:
            groups = [[b] for b in blocks]
        else:
            step = (blocks[1].x - blocks[0].x) * sc if len(blocks) > 1 else block_w
            needed = math.ceil(ink.pt(BLOCK_MIN_PT * ts) / max(step, 1e-9)) if len(blocks) > 1 else 1
            g = _group_size(len(blocks), needed)
            groups = [blocks[i:i + g] for i in range(0, len(blocks), g)]
        gap = ink.pt(0.8)
        x0s, x1s, firsts, counts, labels = [], [], [], [], []
        block_cell = np.full(len(row.blocks), -1, dtype=np.int64)
        noun = blocks[0].label.rsplit(" ", 1)[0] if blocks[0].label else ""
        for c, members in enumerate(groups):
            a, b = members[0], members[-1]
            left, right = float(x(a.x)), float(x(b.x + b.w))
            # A hairline of paper between touching boxes keeps them apart when the gap is tiny.
            x0s.append(left + gap / 2)
            x1s.append(max(right - gap / 2, left + gap))
            firsts.append(a.first)
            counts.append(sum(m.count for m in members))
            if noun and a.label:
                labels.append(_range_label(noun, int(a.label.rsplit(" ", 1)[1]), int(b.label.rsplit(" ", 1)[1])))
            else:
                labels.append("")
            block_cell[[m.index for m in members]] = c
        cell_of = block_cell[of_device]
        # Only the devices in the drawn range belong to a cell.
        cell_of[:d0] = -1
        cell_of[d1:] = -1
        return RowDrawing(tier, row, y, h, lod, cell_of, np.array(x0s), np.array(x1s),
                          np.array(firsts, np.int64), np.array(counts, np.int64), labels)

    # --- painting -------------------------------------------------------------------------------

    def paint(self, ink: Ink, rect: QRectF) -> None:
        """Draw into `rect` (device units): row names on the left, the fabric on the right."""
        src = self.source
        layout = src.layout
        theme = ink.theme
        ts = self.ts
        tiers = layout.tiers
        gutter = ink.pt(GUTTER_PT * ts)
        area = QRectF(rect.left() + gutter, rect.top(), rect.width() - gutter, rect.height())
        pad = ink.pt(6)
        p0, p1 = area.left() + pad + ink.pt(PLANE_STEP_PT * 3), area.right() - pad - ink.pt(PLANE_STEP_PT * 3)
        # Rows from top to bottom, the outer ones near the edges: the links get the height.
        h = max(ink.pt(12 * ts), min(ink.pt(30 * ts), rect.height() / len(tiers) * 0.3))
        edge = h * 0.95 + ink.pt(2)
        pitch = (rect.height() - 2 * edge) / max(len(tiers) - 1, 1)
        ranges = self._ranges()
        self.rows = {}
        for k, tier in enumerate(tiers):
            s0, s1, d0, d1 = ranges[tier]
            y = rect.top() + edge + pitch * k
            self.rows[tier] = self._row(ink, tier, y, h, s0, s1, d0, d1, p0, p1)
        painter = ink.painter
        painter.save()
        painter.setRenderHint(painter.RenderHint.Antialiasing, True)
        # Faint bands behind the rows help the eye follow a tier across a wide fabric.
        for tier in tiers:
            band = QColor(theme.tier(tier))
            band.setAlpha(18)
            r = self.rows[tier]
            painter.fillRect(QRectF(rect.left(), r.y - r.h * 0.95, rect.width(), r.h * 1.9), band)
        painter.setClipRect(area)
        clip = self.view.kind != "su"
        bundled = self.view.links == "bundles"
        self.drawn_links = {}
        self.bundles, self.bundle_labels = {}, {}
        self.frames = draw_block_frames(self, ink, _block_of_devices) if bundled else []
        pending: dict[str, list] = {}
        for k in range(len(tiers) - 1):
            lower, upper = self.rows[tiers[k + 1]], self.rows[tiers[k]]
            if bundled:
                pending[lower.tier] = []
                drawn, bundles = draw_bundles(self, ink, lower, upper, area, clip, _block_of_devices,
                                              pending[lower.tier])
                self.drawn_links[lower.tier] = drawn
                self.bundles[lower.tier] = bundles
            else:
                self.drawn_links[lower.tier] = self._links(ink, lower, upper, area, clip)
        self._manual(ink)
        for tier in tiers:
            self._boxes(ink, self.rows[tier], area)
        for tier, queued in pending.items():
            self.bundle_labels[tier] = draw_labels(ink, queued)
        painter.setClipping(False)
        self._gutter(ink, QRectF(rect.left(), rect.top(), gutter - ink.pt(6), rect.height()), pitch)
        painter.restore()

    def _links(self, ink: Ink, lo: RowDrawing, up: RowDrawing, area: QRectF, clip: bool) -> int:
        """Draw the links between two rows as one line per pair of boxes; returns how many links."""
        layout = self.source.layout
        a, b, n = layout.link_arrays(lo.tier)
        if not len(a):
            return 0
        ca, cb = lo.cell_of[a], up.cell_of[b]
        keep = (ca >= 0) & (cb >= 0) & ~self._removed(lo)[a] & ~self._removed(up)[b]
        if not keep.any():
            return 0
        drawn = int(n[keep].sum())
        ncb = len(up.x0)
        keys, inverse = np.unique(ca[keep] * ncb + cb[keep], return_inverse=True)
        links = np.bincount(inverse.ravel(), weights=n[keep])
        xa, xb = lo.centers[keys // ncb], up.centers[keys % ncb]
        if clip:  # in a partial view, only lines that cross the visible part
            inside = ~(((xa < area.left()) & (xb < area.left())) | ((xa > area.right()) & (xb > area.right())))
            xa, xb, links = xa[inside], xb[inside], links[inside]
        if not len(xa):
            return drawn
        widths = np.array([bundle_width(int(v)) for v in links.tolist()]) * ink.pt(0.42 * self.ts)
        alpha = 150
        room = 0.45 * area.width()
        total = float(widths.sum())
        if total > room:
            # Many crossing bundles would merge into a solid wall: thin them and let them through.
            squeeze = room / total
            alpha = int(max(45, 150 * squeeze ** 0.5))
            widths = np.maximum(widths * squeeze, ink.pt(0.35))
        color = ink.theme.link(self.source.resolved.family, alpha)
        y_lo, y_up = lo.y - lo.h / 2, up.y + up.h / 2
        painter = ink.painter
        widths = np.round(widths / ink.pt(0.05)) * ink.pt(0.05)
        for width in sorted(set(widths.tolist())):   # np.unique of one array loads numpy.ma (tens of ms)
            sel = widths == width
            pen = ink.pen(color, width / ink.u)
            painter.setPen(pen)
            painter.drawLines([QLineF(float(p), y_lo, float(q), y_up) for p, q in zip(xa[sel], xb[sel], strict=True)])
        return drawn

    def _removed(self, r: RowDrawing) -> np.ndarray:
        """Which devices of a row were taken out by hand (in the plane on view): their links are gone."""
        mask = np.zeros(r.row.count, dtype=bool)
        for ident in self.source.layout.removed:
            parsed = parse_device_id(ident)
            if parsed is not None and parsed[0] == r.tier and parsed[2] == self.view.plane and parsed[1] < len(mask):
                mask[parsed[1]] = True
        return mask

    def _manual(self, ink: Ink) -> None:
        """Links added by hand: dashed, between the boxes that hold their ends."""
        layout = self.source.layout
        if not layout.manual_links:
            return
        painter = ink.painter
        painter.setPen(ink.pen(ink.theme.manual, 1.4 * self.ts, Qt.PenStyle.DashLine))
        for _, a, b, _ in layout.manual_links:
            ends = []
            for ident in (a, b):
                parsed = parse_device_id(ident)
                if parsed is None or parsed[0] not in self.rows or parsed[2] != self.view.plane:
                    break
                r = self.rows[parsed[0]]
                if parsed[1] >= len(r.cell_of) or r.cell_of[parsed[1]] < 0:
                    break
                ends.append((r, float(r.centers[r.cell_of[parsed[1]]])))
            if len(ends) != 2 or ends[0][0] is ends[1][0]:
                continue
            (ra, xa), (rb, xb) = sorted(ends, key=lambda e: -e[0].y)
            painter.drawLine(QPointF(xa, ra.y - ra.h / 2), QPointF(xb, rb.y + rb.h / 2))

    def _boxes(self, ink: Ink, r: RowDrawing, area: QRectF) -> None:
        theme = ink.theme
        fill, border = theme.tier_fill(r.tier), theme.tier_border(r.tier)
        planes = self.source.planes if r.tier != "servers" else 1
        top = r.y - r.h / 2
        height = r.h if r.tier != "servers" or r.lod != DEVICE else r.h * 0.86
        if height != r.h:
            top += (r.h - height) / 2
        visible = (r.x1 >= area.left()) & (r.x0 <= area.right())
        stacked = min(planes - 1, 3)
        step = ink.pt(PLANE_STEP_PT)
        back = QColor(fill).darker(106)
        removed = self.source.layout.removed
        # Leaves drawn one by one take their rail's colour, as the legend lists them.
        rails = rail_groups_of_leaves(self.source) if r.tier == "leaf" and r.lod == DEVICE else None
        labelled: list[tuple[int, QRectF]] = []
        for c in np.nonzero(visible)[0].tolist():
            box = QRectF(float(r.x0[c]), top, float(r.x1[c] - r.x0[c]), height)
            for k in range(stacked, 0, -1):
                ink.box(box.translated(k * step, -k * step), back, border, 0.4, 2)
            if rails is not None:
                rail = int(rails[int(r.first[c])])
                ink.box(box, theme.rail_fill(rail), theme.rail(rail).darker(115), 0.8, 2)
            else:
                ink.box(box, fill, border, 0.6 if r.lod == DEVICE else 0.8, 2 if r.lod == DEVICE else 3)
            if r.row.liquid_cooled:   # the canvas's mark: a band and a droplet (a pixel is 0.75 pt)
                paint_coolant(ink.painter, box, theme.coolant, ink.pt(0.75))
            if r.lod == DEVICE and device_id(r.tier, int(r.first[c]), self.view.plane, self.source.planes) in removed:
                ink.painter.setPen(ink.pen(theme.error, 1.0))
                ink.painter.drawLine(box.topLeft(), box.bottomRight())
                ink.painter.drawLine(box.bottomLeft(), box.topRight())
            if box.left() >= area.left() - 0.5 and box.right() <= area.right() + 0.5:
                labelled.append((c, box.adjusted(ink.pt(1.5), ink.pt(1), -ink.pt(1.5), -ink.pt(1))))
        if labelled:
            self._labels(ink, r, labelled)

    def _cell_texts(self, r: RowDrawing, c: int) -> tuple[list[str], list[str]]:
        """(heading forms, count forms) of a cell, longest first; heading forms may be empty."""
        if r.lod == DEVICE:
            i = int(r.first[c])
            ident = device_id(r.tier, i, self.view.plane, self.source.planes)
            return [], ([f"{i + 1}"] if r.tier == "servers" else [ident, f"{i + 1}"])
        count = int(r.count[c])
        noun = {"servers": ("servers", "srv")}.get(r.tier, (r.tier, r.tier))
        counts = [f"{count:,} × {noun[0]}", f"{count:,} × {noun[1]}", f"{count:,}"]
        label = r.labels[c]
        if len(r.x0) == 1 and not label:
            counts.insert(0, f"{count:,} × {noun[0]}  ·  {r.row.model}")
        return ([label, _short_label(label)] if label else []), counts

    def _labels(self, ink: Ink, r: RowDrawing, cells: list[tuple[int, QRectF]]) -> None:
        """Label a row's boxes with the same form of text in every box (the longest form that
        fits all of them), so a row never mixes '8 × core' with a bare '8'."""
        ts = self.ts
        theme = ink.theme
        texts = [self._cell_texts(r, c) for c, _ in cells]
        room = min(box.width() for _, box in cells)
        inner_h = min(box.height() for _, box in cells)

        def level(forms_of, size, bold):
            depth = max((len(f) for f in forms_of), default=0)
            for k in range(depth):
                if all(not f or ink.width(f[min(k, len(f) - 1)], size, bold) <= room for f in forms_of):
                    return k
            return None

        size_head, size_count = (6.5 * ts, 6.5 * ts) if r.lod == DEVICE else (6.5 * ts, 7.5 * ts)
        bold = r.lod != DEVICE
        count_level = level([t[1] for t in texts], size_count, bold)
        heads = [t[0] for t in texts]
        two_lines = any(heads) and ink.line_height(size_head) + ink.line_height(size_count, bold) <= inner_h
        head_level = level(heads, size_head, False) if two_lines else None
        bare = (count_level is not None and r.lod != DEVICE
                and all(len(t[1]) > 1 and count_level >= len(t[1]) - 1 for t in texts))
        if bare:
            # Only the number fits in the boxes: one line above the row says what they count.
            sizes = {int(r.count[c]) for c, _ in cells}
            noun = {"servers": "servers"}.get(r.tier, "switches")
            note = (f"each box: {sizes.pop():,} {noun}" if len(sizes) == 1 else f"boxes count {noun}")
            first = min(box.left() for _, box in cells)
            top = min(box.top() for _, box in cells)
            lh = ink.line_height(6.5 * ts)
            ink.text(QRectF(first, top - lh - ink.pt(1), max(box.right() for _, box in cells) - first, lh),
                     note, 6.5 * ts, theme.muted, align=Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignBottom)
        for (_c, box), (head, counts) in zip(cells, texts, strict=True):
            count = counts[min(count_level, len(counts) - 1)] if count_level is not None else None
            if head_level is not None and head:
                half = box.height() / 2
                ink.text(QRectF(box.left(), box.top(), box.width(), half), head[min(head_level, len(head) - 1)],
                         size_head, theme.muted, align=Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignBottom)
                if count:
                    ink.text(QRectF(box.left(), box.top() + half, box.width(), half), count, size_count, bold=bold,
                             align=Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
            elif count:
                ink.text(box, count, size_count, bold=bold)

    def _gutter(self, ink: Ink, rect: QRectF, pitch: float) -> None:
        """Row names with counts and models, and the link count between each pair of rows."""
        src = self.source
        theme = ink.theme
        ts = self.ts
        tiers = src.layout.tiers
        r = src.resolved
        x = rect.left() + ink.pt(9)
        width = rect.right() - x
        for k, tier in enumerate(tiers):
            row = self.rows[tier]
            lines: list[tuple[str | list[str], float, bool, QColor]] = [(TIER_LABEL[tier], 10.0 * ts, True, theme.text)]
            drawn = self._drawn_count(tier)
            n = row.row.count
            # Boxes that stand for groups of devices: the heading says how many each holds, so a
            # box whose only room is for its count ("128") still says what it counts.
            sizes = set(row.count.tolist()) if row.lod != DEVICE and len(row.count) > 1 else set()
            boxes = f" in {len(row.count)} boxes of {sizes.pop():,}" if len(sizes) == 1 else ""
            models = [row.row.model, row.row.model_id]
            if tier == "servers":
                gpus = (int(drawn.replace(",", "")) if drawn else n) * r.gpus_per_server
                count = f"{drawn} of {n:,} servers" if drawn else f"{n:,} servers"
                lines.append(([count + boxes, count], 7.5 * ts, False, theme.muted))
                lines.append(([f"{gpus:,} GPUs · {m}" for m in models] + [f"{gpus:,} GPUs"], 7.5 * ts, False,
                              theme.muted))
            else:
                noun = "switch" if n == 1 else "switches"
                per = f"{n:,} {noun}" + (f" × {src.planes} planes" if src.planes > 1 else "")
                gone = int(self._removed(row).sum())
                per += f", {gone:,} removed" if gone else ""
                count = f"{drawn} of {per}" if drawn else per
                lines.append(([count + boxes, count], 7.5 * ts, False, theme.muted))
                lines.append((models, 7.5 * ts, False, theme.muted))
            band = QRectF(x, row.y - pitch * 0.3, width, pitch * 0.6)
            while lines and sum(ink.line_height(s, b) for _, s, b, _ in lines) > band.height():
                lines.pop()
            total = sum(ink.line_height(s, b) for _, s, b, _ in lines)
            y = row.y - total / 2
            bar = QColor(theme.tier(tier))
            ink.box(QRectF(rect.left() + ink.pt(2), row.y - min(total, row.h) / 2, ink.pt(3.5), min(total, row.h)),
                    bar, None, radius_pt=1.5)
            for text, size, bold, color in lines:
                lh = ink.line_height(size, bold)
                ink.text(QRectF(x, y, width, lh), text, size, color, bold=bold,
                         align=Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, elide=True)
                y += lh
            if k + 1 < len(tiers):
                below = tiers[k + 1]
                key = LINK_KEYS[below]
                speed = r.link_gbps if key == "node-leaf" else r.uplink_gbps
                n = src.links_per_plane(key)
                per = " per plane" if src.planes > 1 else ""
                sp = speed_label(speed)
                forms = [f"{n:,} links × {sp}{per}", f"{n:,} × {sp}{per}", f"{n:,} × {sp}"]
                shown = self.drawn_links.get(below, n)
                if self.view.kind == "su" and shown != n:
                    forms = [f"{shown:,} of {n:,} links × {sp}", f"{shown:,} of {n:,} × {sp}", f"{shown:,} × {sp}"]
                mid = row.y + pitch / 2
                color = QColor(theme.family(r.family)).darker(125)
                ink.text(QRectF(x, mid - pitch * 0.2, width, pitch * 0.4), forms, 7.0 * ts, color,
                         align=Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)

    def _drawn_count(self, tier: str) -> str:
        """'8' when a view shows part of a row (an SU), else ''."""
        if self.view.kind != "su":
            return ""
        r = self.rows[tier]
        shown = int((r.cell_of >= 0).sum())
        return "" if shown == r.row.count else f"{shown:,}"

    # --- what was drawn ----------------------------------------------------------------------------

    def lods(self) -> dict[str, int]:
        return {tier: r.lod for tier, r in self.rows.items()}

    def title(self) -> str:
        """A caption for this view: 'Whole fabric', 'SU 3', 'Plane 2 of 4', 'Part of the fabric'."""
        v, src = self.view, self.source
        if v.kind == "su":
            return f"{src.column_noun} {min(v.su or 0, src.columns - 1) + 1} of {src.columns}"
        if v.kind == "plane":
            return f"Plane {v.plane + 1} of {src.planes}"
        if v.left > 0 or v.right < 1:
            return f"Part of the fabric ({v.left:.0%} to {v.right:.0%} of its width)"
        return "Whole fabric" + (f", plane 1 of {src.planes} drawn" if src.planes > 1 else "")
