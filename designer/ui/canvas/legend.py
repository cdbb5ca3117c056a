"""Overlays on the canvas that stay put while it pans and zooms: the legend and the row headers."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QComboBox, QWidget

from designer.ui.canvas.layout import BOX_HEIGHT, TIER_LABEL, Layout
from designer.ui.canvas.tier_item import droplet, label_font
from designer.ui.theme import FAMILY_LABEL, Theme


def _speed(gbps: int) -> str:
    return f"{gbps / 1000:g}T" if gbps >= 1000 else f"{gbps}G"


class LegendWidget(QWidget):
    """What the colours mean: one swatch per tier present, the link technology, manual links;
    for a multi-plane fabric, which plane is drawn, with a box to draw another."""

    planeChosen = Signal(int)
    """The user picked a plane to draw (0-based)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.theme = Theme()
        self.layout_: Layout | None = None
        self.failure = None            # the LinkFailure shown on the canvas, if any
        self.setToolTip("What the colours on the canvas mean")
        self.plane_box = QComboBox(self)
        self.plane_box.setObjectName("planeBox")
        self.plane_box.setToolTip("The plane drawn on the canvas; edits in other planes show when you pick them")
        self.plane_box.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.plane_box.hide()
        self.plane_box.activated.connect(self.planeChosen.emit)
        self.hidden: list[str] = []
        self.problems = 0              # elements the Findings panel marks as errors or warnings
        self.audit_marks: list[tuple[str, list[str], QColor]] = []   # what the audit overlay draws

    def set_layout(self, layout: Layout | None) -> None:
        self.layout_ = layout
        planes = layout.planes if layout is not None else 1
        box = self.plane_box
        box.blockSignals(True)
        if layout is not None and planes > 1:
            edited = set(layout.differing)
            texts = [f"Plane {p + 1}" + (" (edited)" if p in edited else "") for p in range(planes)]
            if box.count() != planes:
                box.clear()
                box.addItems(texts)
            for p, text in enumerate(texts):
                box.setItemText(p, text)
            box.setCurrentIndex(layout.plane)
        else:
            box.clear()
        box.blockSignals(False)
        box.setVisible(planes > 1)
        self.place_box()
        self.update()

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.update()

    def set_problems(self, count: int) -> None:
        """How many elements the findings mark: the legend explains the mark only when one is drawn,
        so it never says "Has a problem" while Findings says there is none."""
        self.problems = count
        self.update()

    def set_audit_marks(self, marks: list[tuple[str, list[str], QColor]]) -> None:
        """The kinds of mark the audit overlay draws (none when no audit is shown)."""
        self.audit_marks = list(marks)
        self.update()

    def set_failure(self, failure) -> None:
        self.failure = failure
        self.update()

    def _failure_entries(self) -> list[tuple[str, list[str], QColor]]:
        f, t = self.failure, self.theme
        if f is None or f.layout is not self.layout_:
            return []
        if f.ghost:
            return [("ghost", ["Later phase (pale)", "Later phase"], t.muted)]
        rows = []
        if f.devices:
            rows.append(("cross", ["Failed switch", "Failed"], t.error))
        if f.any_links:
            rows.append(("faildash", ["Failed link", "Down"], t.error))
        if f.other_planes:
            drawn = self.layout_.plane + 1
            rows.append(("elsewhere", [f"Failed in another plane only (plane {drawn} drawn)",
                                       "Failed in another plane"], t.error))
        if f.cut_servers:
            rows.append(("cut", ["Server with GPUs cut off", "GPUs cut off"], QColor(110, 110, 110)))
        return rows

    def resizeEvent(self, event) -> None:
        self.place_box()
        super().resizeEvent(event)

    def place_box(self) -> None:
        box = self.plane_box
        hint = box.sizeHint()
        box.setGeometry(self.width() - hint.width() - 8, (self.HEIGHT - min(hint.height(), self.HEIGHT - 4)) // 2,
                        hint.width(), min(hint.height(), self.HEIGHT - 4))

    def entries(self) -> list[tuple[str, list[str], QColor]]:
        """(kind, label and its shorter forms, colour) rows: kind is 'box', 'line', 'dash', 'cross',
        'stack', 'problem', 'coolant' (liquid-cooled racks), or, while a failure is shown,
        'faildash', 'elsewhere', 'cut' and 'ghost'."""
        layout = self.layout_
        if layout is None:
            return []
        t = self.theme
        r = layout.resolved
        rows = [("box", [TIER_LABEL[tier]], t.tier(tier)) for tier in layout.tiers]
        family = r.family
        tech = r.technology
        label = f"{FAMILY_LABEL.get(family, family)} {tech.generation}"
        if r.link_gbps == r.uplink_gbps:
            texts = [f"{label} links, {_speed(r.link_gbps)}", f"{_speed(r.link_gbps)} links"]
        else:
            texts = [f"{label} links, {_speed(r.link_gbps)} to servers, {_speed(r.uplink_gbps)} between switches",
                     f"{label} links, {_speed(r.link_gbps)} / {_speed(r.uplink_gbps)}",
                     f"{_speed(r.link_gbps)} / {_speed(r.uplink_gbps)} links"]
        rows.append(("line", texts, t.family(family)))
        if any(row.liquid_cooled for row in layout.rows.values()):
            rows.append(("coolant", ["Liquid-cooled racks", "Liquid-cooled"], t.coolant))
        plan = layout.plan
        if plan.rail_su_size and r.rails >= 2:   # leaves drawn one by one take their rail's colour
            self._rail_groups = plan.rail_groups(r.rails)
            rows.append(("rails", [f"Rails 1–{r.rails}, one colour each", "Rails"], t.rail(0)))
        rows += self._failure_entries()
        if layout.manual_links:
            rows.append(("dash", ["Manual link", "Manual"], t.manual))
        if layout.edits and any(layout.edits.removed.values()):
            rows.append(("cross", ["Removed device", "Removed"], t.error))
        if r.planes > 1:
            drawn = layout.plane + 1
            if layout.differing:
                others = [p + 1 for p in layout.differing]
                which = ", ".join(str(p) for p in others)
                rows.append(("stack", [f"{r.planes} planes, plane {drawn} drawn; edits in plane {which}",
                                       f"{r.planes} planes; edits in plane {which}"], t.muted))
            else:
                rows.append(("stack", [f"{r.planes} identical planes (plane {drawn} drawn)",
                                       f"{r.planes} identical planes"], t.muted))
        rows += self.audit_marks
        if self.problems:
            rows.append(("problem", ["Has a problem (see Findings)", "Problem"], t.error))
        return rows

    HEIGHT = 28   # one line; a narrow canvas gets a second line rather than a cut entry

    def sizeHint(self) -> QSize:
        return QSize(400, self.HEIGHT)

    def needed_height(self, width: int) -> int:
        return self.HEIGHT * (1 + max(line for *_, line in self.arrange(width))) if self.entries() else self.HEIGHT

    def _fit_line(self, rows, x0: float, right: float, fm):
        """Entries on one line from x0: each takes its longest form that leaves room for the rest in
        their shortest; what cannot fit at all is returned as hidden (for a "+N more")."""
        def step(text):
            return 30 + fm.horizontalAdvance(text) + 2 + 22   # swatch, text, gap
        def more(n):
            return fm.horizontalAdvance(f"+{n} more") + 8
        room = right - x0
        chosen: list[str] = []
        hidden: list[str] = []
        for k, (_, texts, _) in enumerate(rows):
            rest = sum(step(t[-1]) for _, t, _ in rows[k + 1:])
            fits = [t for t in texts if step(t) + rest <= room]
            if fits:
                pick = fits[0]
            elif step(texts[-1]) + more(len(rows) - k - 1) <= room:
                pick = texts[-1]
            else:
                hidden = [t[0] for _, t, _ in rows[k:]]
                break
            chosen.append(pick)
            room -= step(pick)
        placed, x = [], x0
        for (kind, _, color), text in zip(rows, chosen, strict=False):
            placed.append((kind, text, color, x))
            x += step(text)
        return placed, hidden

    def arrange(self, width: int | None = None) -> list[tuple[str, str, QColor, float, int]]:
        """(kind, text, colour, x, line) of each entry drawn. One line if every entry fits, in its
        full or a shorter form; else two, the first filled with full forms. Whatever still cannot
        fit is counted in a last "+N more" entry, whose tooltip names it. Nothing is cut off."""
        rows = self.entries()
        width = self.width() if width is None else width
        fm = QFontMetricsF(label_font(8.5))
        box = self.plane_box.sizeHint().width() + 16 if self.plane_box.isVisibleTo(self) or (
            self.layout_ is not None and self.layout_.planes > 1) else 8
        first_right = width - box
        placed, hidden = self._fit_line(rows, 74.0, first_right, fm)
        if not hidden:
            self.hidden = []
            out = [(*p, 0) for p in placed]
        else:
            x, k = 74.0, 0
            while k < len(rows) and x + 30 + fm.horizontalAdvance(rows[k][1][0]) + 2 <= first_right:
                x += 30 + fm.horizontalAdvance(rows[k][1][0]) + 2 + 22
                k += 1
            line1, _ = self._fit_line(rows[:k], 74.0, first_right, fm)
            line2, hidden = self._fit_line(rows[k:], 74.0, width - 8, fm)
            self.hidden = hidden
            out = [(*p, 0) for p in line1] + [(*p, 1) for p in line2]
        self.setToolTip("What the colours on the canvas mean" +
                        ("; also: " + "; ".join(self.hidden) if self.hidden else ""))
        return out

    def paintEvent(self, event) -> None:
        t = self.theme
        p = QPainter(self)
        p.fillRect(self.rect(), t.window)
        p.setPen(QPen(t.grid.darker(115) if not t.dark else t.grid.lighter(150), 1))
        p.drawLine(0, 0, self.width(), 0)
        placed = self.arrange()
        if not placed:
            return
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        font = label_font(8.5)
        fm = QFontMetricsF(font)
        p.setFont(label_font(8.5, True))
        p.setPen(t.muted)
        p.drawText(QRectF(12, 0, 60, self.HEIGHT), int(Qt.AlignmentFlag.AlignVCenter), "Legend")
        p.setFont(font)
        for kind, text, color, x, line in placed:
            top = line * self.HEIGHT
            swatch = QRectF(x, top + self.HEIGHT / 2 - 5.5, 24, 11)
            if kind == "rails":   # the rails' colours side by side, rail 1 at the left
                groups = max(1, getattr(self, "_rail_groups", 1))
                step = swatch.width() / groups
                p.setPen(Qt.PenStyle.NoPen)
                for k in range(groups):
                    p.setBrush(t.rail(k))
                    p.drawRect(QRectF(swatch.left() + k * step, swatch.top(), step, swatch.height()))
            else:
                self._swatch(p, kind, swatch, color)
            p.setPen(t.text)
            p.drawText(QRectF(x + 30, top, fm.horizontalAdvance(text) + 2, self.HEIGHT),
                       int(Qt.AlignmentFlag.AlignVCenter), text)
        if self.hidden:
            kind, text, color, x, line = placed[-1]
            x += 30 + fm.horizontalAdvance(text) + 2 + 22
            p.setPen(t.muted)
            p.drawText(QRectF(x, line * self.HEIGHT, fm.horizontalAdvance(f"+{len(self.hidden)} more") + 4,
                              self.HEIGHT), int(Qt.AlignmentFlag.AlignVCenter), f"+{len(self.hidden)} more")

    @staticmethod
    def _swatch(p: QPainter, kind: str, swatch: QRectF, color: QColor) -> None:
        if kind == "box":
            p.setPen(QPen(color.darker(118), 1))
            fill = QColor(color)
            fill.setAlpha(120)
            p.setBrush(fill)
            p.drawRoundedRect(swatch, 3, 3)
        elif kind in ("line", "dash"):
            pen = QPen(color, 3 if kind == "line" else 2.2,
                       Qt.PenStyle.SolidLine if kind == "line" else Qt.PenStyle.DashLine)
            p.setPen(pen)
            p.drawLine(QPointF(swatch.left(), swatch.center().y()), QPointF(swatch.right(), swatch.center().y()))
        elif kind == "cross":
            box = swatch.adjusted(6, 0, -6, 0)
            p.setPen(QPen(color, 1.6))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRect(box)
            p.drawLine(box.topLeft(), box.bottomRight())
        elif kind == "faildash":
            pen = QPen(color, 2.2, Qt.PenStyle.DashLine)
            pen.setCapStyle(Qt.PenCapStyle.FlatCap)
            p.setPen(pen)
            p.drawLine(QPointF(swatch.left(), swatch.center().y()), QPointF(swatch.right(), swatch.center().y()))
        elif kind == "elsewhere":
            p.setPen(QPen(color, 1.4, Qt.PenStyle.DashLine))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRect(swatch.adjusted(6, 0, -6, 0))
        elif kind in ("cut", "ghost"):
            p.setPen(Qt.PenStyle.NoPen)
            fill = QColor(color)
            fill.setAlpha(150)
            p.setBrush(fill)
            p.drawRect(swatch.adjusted(6, 0, -6, 0))
        elif kind == "stack":
            p.setPen(QPen(color, 1))
            p.setBrush(Qt.BrushStyle.NoBrush)
            for k in (2, 1, 0):
                p.drawRoundedRect(swatch.adjusted(2 + k * 3, 2 - k * 2, -8 + k * 3, -k * 2), 2, 2)
        elif kind == "coolant":
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(color)
            p.drawPath(droplet(swatch.left() + 5, swatch.center().y() + 1.5, 3.6))
            p.drawRoundedRect(QRectF(swatch.left() + 11, swatch.bottom() - 3, swatch.width() - 11, 3), 1.5, 1.5)
        elif kind == "problem":
            p.setPen(QPen(color, 2))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRoundedRect(swatch, 3, 3)


def manual_between(layout: Layout, upper: str, lower: str) -> int:
    """Manual links drawn between two rows (in the plane drawn)."""
    total = 0
    for _, a, b, count in layout.manual_links:
        tiers = {a.rpartition(".")[2].rpartition("-")[0], b.rpartition(".")[2].rpartition("-")[0]}
        if tiers == {upper, lower}:
            total += count
    return total


class RowHeaderWidget(QWidget):
    """The strip left of the canvas naming each row, with its count and the links between rows."""

    WIDTH = 148

    def __init__(self, view):
        super().__init__(view)
        self.view = view
        self.theme = Theme()
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, True)

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.update()

    def paintEvent(self, event) -> None:
        scene = self.view.scene()
        layout = scene.layout if scene is not None else None
        t = self.theme
        p = QPainter(self)
        p.fillRect(self.rect(), t.window)
        p.setPen(QPen(t.grid.darker(115) if not t.dark else t.grid.lighter(150), 1))
        p.drawLine(self.width() - 1, 0, self.width() - 1, self.height())
        if layout is None:
            return
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        viewport_top = self.view.viewport().geometry().top() - self.geometry().top()
        r = layout.resolved
        metrics = scene.controller.compute.latest
        links = (metrics.metrics.links_by_tier if metrics is not None and metrics.metrics is not None
                 and metrics.design is layout.design else None)
        tiers = layout.tiers
        for k, tier in enumerate(tiers):
            row = layout.rows[tier]
            y = self.view.mapFromScene(QPointF(row.x0, row.y)).y() + viewport_top
            color = t.tier(tier)
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(color)
            p.drawRoundedRect(QRectF(10, y - 17, 5, 34), 2, 2)
            p.setPen(t.text)
            p.setFont(label_font(10, True))
            p.drawText(QRectF(22, y - 20, self.WIDTH - 26, 18), int(Qt.AlignmentFlag.AlignLeft), TIER_LABEL[tier])
            p.setFont(label_font(8.5))
            p.setPen(t.muted)
            count = f"{row.count:,}"
            if tier != "servers" and r.planes > 1:
                count += f" × {r.planes} planes"
            elif tier == "servers":
                count += f" · {row.count * r.gpus_per_server:,} GPUs"
            p.drawText(QRectF(22, y - 1, self.WIDTH - 26, 16), int(Qt.AlignmentFlag.AlignLeft), count)
            gone = layout.removed_in(tier)
            if gone:
                where = f" in plane {layout.plane + 1}" if r.planes > 1 else ""
                p.setPen(t.error)
                p.drawText(QRectF(22, y + 13, self.WIDTH - 26, 16), int(Qt.AlignmentFlag.AlignLeft),
                           f"{gone:,} removed{where}")
            if row.liquid_cooled:
                line = y + (27 if gone else 13)
                p.setPen(Qt.PenStyle.NoPen)
                p.setBrush(t.coolant)
                p.drawPath(droplet(27, line + 8, 3.2))
                p.setPen(t.coolant.darker(125) if not t.dark else t.coolant)
                p.drawText(QRectF(35, line, self.WIDTH - 39, 16), int(Qt.AlignmentFlag.AlignLeft), "liquid-cooled")
            if k + 1 < len(tiers):
                below = layout.rows[tiers[k + 1]]
                y2 = self.view.mapFromScene(QPointF(below.x0, below.y)).y() + viewport_top
                mid = (y + y2) / 2
                if y2 - y > 3 * BOX_HEIGHT * 0.6:
                    key = {"spine": "spine-core", "leaf": "leaf-spine", "servers": "node-leaf"}[tiers[k + 1]]
                    speed = r.link_gbps if key == "node-leaf" else r.uplink_gbps
                    texts = [f"{_speed(speed)} links"]
                    if links and key in links:
                        texts = [f"{links[key]:,} × {_speed(speed)}"]
                        manual = manual_between(layout, tiers[k], tiers[k + 1])
                        if manual:
                            texts = [f"{texts[0]} + {manual:,} manual", f"{texts[0]} + {manual:,}", texts[0]]
                    fm = QFontMetricsF(label_font(8))
                    text = next((x for x in texts if fm.horizontalAdvance(x) <= self.WIDTH - 28), texts[-1])
                    p.setFont(label_font(8))
                    p.setPen(t.family(r.family).darker(110) if not t.dark else t.family(r.family).lighter(120))
                    p.drawText(QRectF(22, mid - 8, self.WIDTH - 26, 16),
                               int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), text)
