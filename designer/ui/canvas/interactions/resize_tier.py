"""Growing or shrinking a tier by dragging the handle at the end of its row.

The count follows the pointer and shows beside it; the canvas and the metrics show a
preview design while the drag lasts; one command is pushed when the button is released.
"""

from __future__ import annotations

from PySide6.QtCore import Qt

from designer.ui.canvas.interactions.base import Interaction
from designer.ui.canvas.tier_item import HandleItem

MIN_PX_PER_DEVICE = 3.0    # a very long row still changes by one device per few pixels
MAX_PX_PER_DEVICE = 36.0   # ... and a stretched one does not need huge moves


class ResizeTierInteraction(Interaction):
    def __init__(self, view, event, handle: HandleItem):
        super().__init__(view)
        controller = view.controller
        self.handle = handle
        self.tier = handle.tier
        self.base = controller.design
        self.start_x = event.position().x()
        self.start_count = controller.tier_count(self.tier) or 1
        self.step = controller.count_step(self.tier)
        row = view.scene().layout.rows[self.tier]
        self.px_per_device = min(MAX_PX_PER_DEVICE, max(MIN_PX_PER_DEVICE, row.pitch * view.transform().m11()))
        self.count = self.start_count
        self.valid_count = self.start_count
        handle.active = True
        view.viewport().setCursor(Qt.CursorShape.SizeHorCursor)
        view.show_drag_label(self._text(self.start_count, None), event.position())

    @classmethod
    def start(cls, view, event):
        if event.button() != Qt.MouseButton.LeftButton or view.controller.design is None:
            return None
        item = view.itemAt(event.position().toPoint())
        if isinstance(item, HandleItem) and view.scene().layout is not None:
            return cls(view, event, item)
        return None

    def _noun(self, n: int) -> str:
        if self.tier == "servers":
            return "server" if n == 1 else "servers"
        return f"{self.tier} switch" if n == 1 else f"{self.tier} switches"

    def _text(self, count: int, problem: str | None) -> str:
        was = f"  (was {self.start_count:,})" if count != self.start_count else ""
        text = f"{count:,} {self._noun(count)}{was}"
        return f"{text}\n{problem}" if problem else text

    def move(self, event) -> None:
        steps = round((event.position().x() - self.start_x) / (self.px_per_device * self.step))
        count = max(self.step, self.start_count + steps * self.step)
        if count == self.count:
            self.view.move_drag_label(event.position())
            return
        self.count = count
        design, actual, problem = self.view.controller.resized_design(self.base, self.tier, count)
        if design is None:
            self.view.show_drag_label(self._text(count, problem), event.position(), error=True)
            return
        self.valid_count = count
        self.view.controller.preview(design)
        self.view.show_drag_label(self._text(actual, None), event.position())

    def release(self, event) -> None:
        self._finish()
        if self.valid_count != self.start_count:
            self.view.controller.commit_resize(self.base, self.tier, self.valid_count)
        else:
            self.view.controller.end_preview()

    def cancel(self) -> None:
        self._finish()
        self.view.controller.end_preview()

    def _finish(self) -> None:
        self.handle.active = False
        self.handle.update()
        self.view.hide_drag_label()
        self.view.viewport().unsetCursor()
