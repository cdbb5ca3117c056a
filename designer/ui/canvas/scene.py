"""The canvas scene: rows, bundles and manual links, redrawn from the design on display.

The scene owns no design state. It follows the controller's `displayChanged` (the document's
design, or a preview during a drag) and the selection, and answers questions about what lies
where. Items read the theme, layout, selection and problems from the scene when they paint
(`scene_state.py`).
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Signal
from PySide6.QtWidgets import QGraphicsScene

from designer.ui.canvas.bundle_item import BundleItem, ManualLinksItem
from designer.ui.canvas.layout import BOX_HEIGHT, ROWS, parse_device_id
from designer.ui.canvas.scene_state import SceneState
from designer.ui.canvas.tier_item import HandleItem, TierRowItem
from designer.ui.theme import Theme

_SEVERITY_RANK = {"error": 3, "warning": 2, "info": 1}


class FabricScene(SceneState):
    """Draws the design the controller has on display."""

    layoutChanged = Signal(object)
    """The drawn layout changed (edit, undo, preview); carries the Layout or None."""

    failureChanged = Signal(object)
    problemsChanged = Signal(int)
    """How many elements findings mark as errors or warnings (the legend explains the mark)."""
    """A failure (or a later build-out phase) is shown or cleared; carries its LinkFailure or None."""

    def __init__(self, controller, theme: Theme | None = None, parent=None):
        super().__init__(controller, theme, parent)
        self.error: str | None = None
        self._findings = ()
        self.link_failure = None      # the failed devices and cables the bundles draw as down
        self.rows: dict[str, TierRowItem] = {}
        self.handles: dict[str, HandleItem] = {}
        self.bundles: dict[tuple[str, str], BundleItem] = {}
        self.manual = ManualLinksItem()
        self.addItem(self.manual)
        self.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.NoIndex)  # a handful of large items
        controller.displayChanged.connect(self.show_display)
        controller.selection.changed.connect(self._on_selection)
        self.show_display(controller.display)

    # --- following the controller ------------------------------------------------------------

    def show_display(self, display) -> None:
        plane_before = self.layout.plane if self.layout is not None else 0
        self.layout = display.layout
        if self.layout is not None and self.layout.plane != plane_before:
            self.set_findings(self._findings)   # tier marks follow the plane drawn
        self.error = display.error
        layout = self.layout
        present = set(layout.rows) if layout else set()
        for tier in ROWS:
            if tier in present:
                if tier not in self.rows:
                    item = TierRowItem(tier)
                    handle = HandleItem(tier)
                    handle.hovered.connect(self._on_handle_hovered)
                    self.addItem(item)
                    self.addItem(handle)
                    self.rows[tier], self.handles[tier] = item, handle
                row = layout.rows[tier]
                self.rows[tier].set_row(row)
                self.handles[tier].setPos(QPointF(row.x1, row.y))
            elif tier in self.rows:
                self.removeItem(self.rows.pop(tier))
                self.removeItem(self.handles.pop(tier))
        pairs = set()
        if layout:
            tiers = layout.tiers
            pairs = {(tiers[i + 1], tiers[i]) for i in range(len(tiers) - 1)}
        for pair in list(self.bundles):
            if pair not in pairs:
                self.removeItem(self.bundles.pop(pair))
        for pair in pairs:
            if pair not in self.bundles:
                self.bundles[pair] = BundleItem(*pair)
                self.addItem(self.bundles[pair])
            self.bundles[pair].set_layout(layout)
        if layout is not None:
            self.manual.set_layout(layout)
        self.manual.setVisible(layout is not None)
        self.setSceneRect(self.content_rect())
        self.layoutChanged.emit(layout)
        self.update()

    def _on_handle_hovered(self, tier: str) -> None:
        noun = "servers" if tier == "servers" else f"{tier} switches"
        step = self.controller.count_step(tier)
        per = f" in steps of {step}" if step > 1 else ""
        self.controller.message.emit(f"Drag the handle to change the number of {noun}{per}; Esc cancels")

    def _on_selection(self) -> None:
        self.selected = frozenset(self.controller.selection.elements)
        self.update()

    def set_findings(self, findings) -> None:
        """Mark the elements that findings are about (worst severity wins)."""
        self._findings = findings
        problems: dict[str, str] = {}
        for f in findings or ():
            element = f.element
            if not element:
                continue
            key = f"tier:{element}" if element in ROWS else element
            if _SEVERITY_RANK.get(f.severity, 0) > _SEVERITY_RANK.get(problems.get(key, ""), 0):
                problems[key] = f.severity
            parsed = parse_device_id(element)
            drawn = self.layout.plane if self.layout is not None else 0
            if parsed is not None and (parsed[2] == drawn or parsed[0] == "servers"):
                # A device's problem also marks its tier when drawn aggregated (in its own plane).
                tier_key = f"tier:{parsed[0]}"
                if _SEVERITY_RANK.get(f.severity, 0) > _SEVERITY_RANK.get(problems.get(tier_key, ""), 0):
                    problems[tier_key] = f.severity
        if problems != self._problems:
            self._problems = problems
            self.update()
        self.problemsChanged.emit(sum(1 for k, v in problems.items() if v in ("error", "warning")
                                      and not k.startswith("tier:")))

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.update()

    def set_each_link(self, on: bool) -> None:
        """Draw every link as its own line (True) or the links between blocks as bundles (False).

        A way of looking, like the zoom: the design is untouched and nothing goes on the undo stack.
        """
        if on != self.each_link:
            self.each_link = on
            self.controller.message.emit(
                "Each link drawn as its own line; View > Show Each Link again for bundles with counts" if on
                else "Links drawn as bundles with their counts")
            self.update()

    def set_link_failure(self, failure) -> None:
        """Draw the links a failure takes down as failed (None: every link live again)."""
        self.link_failure = failure
        self.failureChanged.emit(failure)
        self.update()

    # --- what items ask --------------------------------------------------------------------

    def content_rect(self) -> QRectF:
        if self.layout is None:
            return QRectF(0, 0, 10, 10)  # nothing to scroll to
        return QRectF(0, -BOX_HEIGHT / 2, self.layout.width, self.layout.height)

    # --- where things are -------------------------------------------------------------------

    def row_at(self, pos: QPointF) -> TierRowItem | None:
        for item in self.rows.values():
            if item.contains_y(pos.y()):
                return item
        return None

    def element_at(self, pos: QPointF, sx: float) -> str | None:
        """The element under a scene position at horizontal scale `sx`, or None for background."""
        if self.layout is None:
            return None
        edit = self.manual.edit_at(pos, 6 / max(sx, 1e-6)) if self.manual.isVisible() else None
        if edit is not None:
            return f"edit:{edit}"
        row = self.row_at(pos)
        return row.element_at(pos.x(), sx) if row is not None else None

    def elements_in(self, rect: QRectF, sx: float) -> set[str]:
        found: set[str] = set()
        for item in self.rows.values():
            r = item.row
            if r is None or rect.bottom() < r.y - BOX_HEIGHT / 2 or rect.top() > r.y + BOX_HEIGHT / 2:
                continue
            found |= item.elements_in(rect.left(), rect.right(), sx)
        return found

    def element_position(self, element: str) -> QPointF | None:
        """Scene position of an element (for centring the view on it)."""
        if self.layout is None:
            return None
        if element.startswith("tier:"):
            row = self.layout.rows.get(element[5:])
            return QPointF((row.x0 + row.x1) / 2, row.y) if row else None
        if element.startswith("block:"):
            _, tier, k = element.split(":")
            row = self.layout.rows.get(tier)
            if row is None or int(k) >= len(row.blocks):
                return None
            return QPointF(row.blocks[int(k)].center, row.y)
        where = self.layout.device_position(element)
        if where is not None:
            return QPointF(where[1], where[2])
        return None
