"""The diagram as reference architectures draw it: SUs as labelled blocks, rails in colour, and
the links between two tiers as bundles, one per block and switch above, labelled with their count
and speed ("16 × 400G to each spine").

A bundle joins a block of the lower row (an SU, a pod, or a box of several when the row is
gathered) to one drawn box of the row above. Its lower ends fan out across the block, so the
bundles of one block read as a fan, not a knot; its width grows with the links it carries.
The link-by-link drawing (one line per pair of drawn boxes) stays in diagram.py, one option away.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QLineF, QRectF, Qt
from PySide6.QtGui import QColor

from designer.ui.canvas.bundle_item import bundle_width
from designer.ui.export.ink import Ink

DEVICE = 2   # diagram.DEVICE (a row drawn switch by switch); repeated here to avoid a cycle

UPPER_NOUN = {"leaf": "leaf", "spine": "spine", "core": "core switch"}


@dataclass(frozen=True)
class Bundle:
    lower_unit: int     # block (or gathered box) of the lower row
    upper_cell: int     # drawn box of the row above
    links: int


@dataclass(frozen=True)
class BundleLabel:
    lower_unit: int
    text: str           # "16 × 400G to each spine"


def rail_groups_of_leaves(source) -> np.ndarray | None:
    """Per leaf, its rail group in a rail-optimized SU (rail index when one rail per leaf); None
    when the fabric has no rails."""
    plan, r = source.plan, source.resolved
    if not plan.rail_su_size or r.rails < 2:
        return None
    leaves = np.arange(plan.leaves, dtype=np.int64)
    return (leaves // max(plan.rail_leaves, 1)) % plan.rail_groups(r.rails)


def rail_names(source) -> list[str]:
    """'Rail 1'... or 'Rails 1–2'... for each rail group, in order."""
    plan, r = source.plan, source.resolved
    k = max(1, plan.rails_per_leaf)
    groups = plan.rail_groups(r.rails)
    return [f"Rail {g + 1}" if k == 1 else f"Rails {g * k + 1}–{min(r.rails, g * k + k)}" for g in range(groups)]


def units(row_drawing, blocks_of_devices, by_block: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                                          list[str]]:
    """Per device of a drawn row: the unit it belongs to (-1 when not drawn), and each unit's
    left and right edge and label. A unit is a block (SU, pod) when the row is drawn switch by
    switch, else a drawn box (itself a block or a gathering of blocks)."""
    r = row_drawing
    blocks = r.row.blocks
    if by_block and r.lod == DEVICE and len(blocks) > 1:
        of_device = blocks_of_devices(r.row)
        drawn = r.cell_of >= 0
        unit = np.where(drawn, of_device, -1)
        x0 = np.full(len(blocks), np.inf)
        x1 = np.full(len(blocks), -np.inf)
        np.minimum.at(x0, of_device[drawn], r.x0[r.cell_of[drawn]])
        np.maximum.at(x1, of_device[drawn], r.x1[r.cell_of[drawn]])
        return unit, x0, x1, [b.label for b in blocks]
    labels = list(r.labels)
    if len(blocks) == 1 and not any(labels):
        labels = [""] * len(r.x0)
    return r.cell_of, r.x0, r.x1, labels


def _per_switch_range(lower_unit: np.ndarray, upper_device: np.ndarray, n: np.ndarray, units_count: int,
                      upper_count: int) -> tuple[np.ndarray, np.ndarray]:
    """Per lower unit: the fewest and most links it has to any one switch above it reaches."""
    key = lower_unit * upper_count + upper_device
    keys, inverse = np.unique(key, return_inverse=True)
    per = np.bincount(inverse.ravel(), weights=n)
    unit_of = keys // upper_count
    low = np.full(units_count, np.inf)
    high = np.zeros(units_count)
    np.minimum.at(low, unit_of, per)
    np.maximum.at(high, unit_of, per)
    return low, high


def draw_bundles(diagram, ink: Ink, lo, up, area: QRectF, clip: bool, blocks_of_devices,
                 pending: list[tuple[int, QRectF, str, float]]) -> tuple[int, list[Bundle]]:
    """Draw the links from row `lo` up to row `up` as bundles; returns the links they carry and
    the bundles. Their labels are queued in `pending`."""
    source = diagram.source
    layout = source.layout
    a, b, n = layout.link_arrays(lo.tier)
    if not len(a):
        return 0, []
    # One SU on its own: each switch's bundles start at that switch (the SU is the whole drawing).
    unit_of, ux0, ux1, _ = units(lo, blocks_of_devices, by_block=diagram.view.kind != "su")
    ua, cb = unit_of[a], up.cell_of[b]
    keep = (ua >= 0) & (cb >= 0) & ~diagram._removed(lo)[a] & ~diagram._removed(up)[b]
    if not keep.any():
        return 0, []
    ua, cb, bk, nk = ua[keep], cb[keep], b[keep], n[keep]
    drawn = int(nk.sum())
    ncb = len(up.x0)
    keys, inverse = np.unique(ua * ncb + cb, return_inverse=True)
    links = np.bincount(inverse.ravel(), weights=nk).astype(np.int64)
    lower, upper = keys // ncb, keys % ncb
    bundles = [Bundle(int(u), int(c), int(k)) for u, c, k in zip(lower, upper, links, strict=True)]
    # The lower ends fan out over the block, in the order of the boxes above.
    xb = up.centers[upper]
    xa = np.empty(len(keys))
    for u in sorted(set(lower.tolist())):   # np.unique of one array loads numpy.ma (tens of ms)
        sel = np.nonzero(lower == u)[0]
        order = sel[np.argsort(xb[sel], kind="stable")]
        width = ux1[u] - ux0[u]
        inset = min(width * 0.08, ink.pt(4))
        slots = (np.arange(len(order)) + 0.5) / len(order)
        xa[order] = ux0[u] + inset + slots * max(width - 2 * inset, 0.0)
    widths = np.array([bundle_width(int(v)) for v in links.tolist()]) * ink.pt(0.42 * diagram.ts)
    alpha = 170
    room = 0.45 * area.width()
    total = float(widths.sum())
    if total > room:   # many bundles: thinner and paler, never a solid wall
        squeeze = room / total
        alpha = int(max(60, 170 * squeeze ** 0.5))
        widths = np.maximum(widths * squeeze, ink.pt(0.35))
    if clip:
        inside = ~(((xa < area.left()) & (xb < area.left())) | ((xa > area.right()) & (xb > area.right())))
    else:
        inside = np.ones(len(xa), dtype=bool)
    rails = rail_groups_of_leaves(source) if up.tier == "leaf" and lo.tier == "servers" else None
    family = source.resolved.family
    y_lo, y_up = lo.y - lo.h / 2, up.y + up.h / 2
    painter = ink.painter
    # A bundle to a leaf takes its rail's colour where the leaves are drawn one by one.
    rail_of_bundle = None
    if rails is not None and up.lod == DEVICE:
        rail_of_bundle = rails[up.first[upper]]
    for i in np.argsort(-widths, kind="stable").tolist():   # thick bundles behind thin ones
        if not inside[i]:
            continue
        if rail_of_bundle is not None:
            color = QColor(ink.theme.rail(int(rail_of_bundle[i])))
            color.setAlpha(max(alpha, 190))
        else:
            color = ink.theme.link(family, alpha)
        painter.setPen(ink.pen(color, float(widths[i]) / ink.u))
        painter.drawLine(QLineF(float(xa[i]), y_lo, float(xb[i]), y_up))
    _labels(diagram, ink, lo, up, ua, bk, nk, ux0, ux1, y_lo, area, pending)
    return drawn, bundles


def _labels(diagram, ink: Ink, lo, up, ua, bk, nk, ux0, ux1, y_lo: float, area: QRectF,
            pending: list[tuple[int, QRectF, str, float]]) -> None:
    """'16 × 400G to each spine' above each lower block, in the form that fits every block; the
    labels are queued in `pending`, drawn once the boxes are (draw_labels)."""
    source = diagram.source
    r = source.resolved
    gbps = r.link_gbps if lo.tier == "servers" else r.uplink_gbps
    speed = f"{gbps / 1000:g}T" if gbps >= 1000 else f"{gbps}G"
    count = len(ux0)
    low, high = _per_switch_range(ua, bk, nk.astype(np.float64), count, up.row.count)
    noun = UPPER_NOUN.get(up.tier, up.tier)
    if up.tier == "leaf" and rail_groups_of_leaves(source) is not None:
        noun = "rail leaf"
    forms_of: list[tuple[int, list[str]]] = []
    for u in range(count):
        if not np.isfinite(low[u]) or high[u] <= 0:
            continue
        lo_n, hi_n = int(low[u]), int(high[u])
        each = f"{lo_n:,}" if lo_n == hi_n else f"{lo_n:,}–{hi_n:,}"
        forms = [f"{each} × {speed} to each {noun}", f"{each} × {speed} each", f"{each} × {speed}"]
        forms_of.append((u, forms))
    if not forms_of:
        return
    size = 6.5 * diagram.ts
    room = min(float(ux1[u] - ux0[u]) for u, _ in forms_of)
    depth = len(forms_of[0][1])
    level = next((k for k in range(depth) if all(ink.width(f[k], size) + ink.pt(4) <= room for _, f in forms_of)),
                 None)
    lh = ink.line_height(size)
    if level is None:
        # No block is wide enough: one line for all of them when they agree, at the lane's left.
        texts = {f[0] for _, f in forms_of}
        if len(texts) == 1:
            if len(lo.row.blocks) > 1 and diagram.view.kind != "su":
                unit = source.column_noun
            elif lo.lod == DEVICE:
                unit = "server" if lo.tier == "servers" else UPPER_NOUN.get(lo.tier, lo.tier)
            else:
                unit = "box"
            label = f"each {unit}: {texts.pop()}"
            w = ink.width(label, size) + ink.pt(4)
            pending.append((-1, QRectF(area.left() + ink.pt(2), y_lo - lh - ink.pt(4), w, lh), label, size))
        return
    for u, forms in forms_of:
        text = forms[level]
        w = ink.width(text, size) + ink.pt(4)
        cx = float(ux0[u] + ux1[u]) / 2
        box = QRectF(cx - w / 2, y_lo - lh - ink.pt(4), w, lh)
        if box.right() < area.left() or box.left() > area.right():
            continue
        pending.append((u, box, text, size))


def draw_labels(ink: Ink, pending: list[tuple[int, QRectF, str, float]]) -> list[BundleLabel]:
    """Draw the bundle labels on a paper ground, after the boxes and their notes: a label that
    would cover any text already drawn is left out (the gutter still gives the tier's total)."""
    theme = ink.theme
    paper = QColor(theme.background)
    paper.setAlpha(225)
    drawn: list[BundleLabel] = []
    for unit, box, text, size in pending:
        inner = box.adjusted(ink.pt(1), 0, -ink.pt(1), 0)
        if any(inner.intersects(other.adjusted(-ink.pt(0.5), 0, ink.pt(0.5), 0)) for other, _ in ink.texts):
            continue
        ink.box(box, paper, None, radius_pt=1.5)
        ink.text(box, text, size, theme.text)
        drawn.append(BundleLabel(unit, text))
    return drawn


def draw_block_frames(diagram, ink: Ink, blocks_of_devices) -> list[str]:
    """A labelled frame around each SU or pod: its leaves and servers (and its spines where the
    pod has its own); returns the labels drawn."""
    rows = diagram.rows
    if "leaf" not in rows or "servers" not in rows:
        return []
    leaf, servers = rows["leaf"], rows["servers"]
    if len(leaf.row.blocks) < 2 or len(servers.row.blocks) != len(leaf.row.blocks):
        return []
    lu, lx0, lx1, labels = units(leaf, blocks_of_devices)
    su, sx0, sx1, _ = units(servers, blocks_of_devices)
    if len(lx0) != len(sx0) or not any(labels):
        return []
    members = [leaf, servers]
    spine = rows.get("spine")
    if spine is not None and len(spine.row.blocks) == len(leaf.row.blocks) and len(rows) == 4:
        _, px0, px1, _ = units(spine, blocks_of_devices)
        if len(px0) == len(lx0):
            lx0, lx1 = np.minimum(lx0, px0), np.maximum(lx1, px1)
            members.append(spine)
    top = min(m.y - m.h / 2 for m in members) - ink.pt(2.5)
    bottom = servers.y + servers.h / 2 + ink.pt(2)
    theme = ink.theme
    size = 7.0 * diagram.ts
    lh = ink.line_height(size, True)
    edge = QColor(theme.muted)
    edge.setAlpha(150)
    fill = QColor(theme.text)
    fill.setAlpha(8)
    drawn = []
    left, right = np.minimum(lx0, sx0), np.maximum(lx1, sx1)
    gaps = left[1:] - right[:-1]
    gaps = gaps[np.isfinite(gaps)]
    # Frames never touch: at most half the gap between two blocks on each side.
    pad = max(0.0, min(ink.pt(3), float(gaps.min()) / 2 - ink.pt(0.5))) if len(gaps) else ink.pt(3)
    for u in range(len(lx0)):
        x0, x1 = float(left[u]), float(right[u])
        if not (np.isfinite(x0) and np.isfinite(x1)):
            continue
        frame = QRectF(x0 - pad, top, x1 - x0 + 2 * pad, bottom - top + lh + ink.pt(2))
        ink.painter.setPen(ink.pen(edge, 0.7, Qt.PenStyle.DashLine))
        ink.painter.setBrush(fill)
        ink.painter.drawRoundedRect(frame, ink.pt(4), ink.pt(4))
        label = labels[u] if u < len(labels) else ""
        if label:
            forms = [label, label.replace("Core group", "Group")]
            if ink.text(QRectF(x0, bottom, x1 - x0, lh), forms, size, theme.text, bold=True) is not None:
                drawn.append(label)
    return drawn
