"""What the canvas items read from their scene when they paint.

The theme, the layout drawn, the selection and the elements findings mark. `FabricScene`
(`scene.py`) builds on it: it creates the items and follows the controller. The items name this
class, not the fabric scene, as their scene's type, so that no item imports the module that
imports it.
"""

from __future__ import annotations

from PySide6.QtGui import QColor
from PySide6.QtWidgets import QGraphicsScene

from designer.ui.canvas.layout import Layout, device_id, parse_device_id
from designer.ui.theme import Theme


class SceneState(QGraphicsScene):
    """The scene's state its items read: theme, layout, selection, problems."""

    def __init__(self, controller, theme: Theme | None = None, parent=None):
        super().__init__(parent)
        self.controller = controller
        self.theme = theme or Theme()
        self.layout: Layout | None = None
        self.selected: frozenset[str] = frozenset()
        self._problems: dict[str, str] = {}
        self.each_link = False   # View > Show Each Link: a view setting of this window, not an edit

    def device_id(self, tier: str, index: int) -> str:
        if self.layout is None:
            return device_id(tier, index)
        return device_id(tier, index, self.layout.plane, self.layout.planes)

    def problem_color(self, element: str) -> QColor | None:
        severity = self._problems.get(element)
        if severity in ("error", "warning"):
            return self.theme.severity(severity)
        return None

    def selected_devices(self, tier: str) -> list[int]:
        out = []
        for element in self.selected:
            parsed = parse_device_id(element)
            plane = self.layout.plane if self.layout else 0
            if parsed is not None and parsed[0] == tier and (parsed[2] == plane or tier == "servers"):
                out.append(parsed[1])
        return out

    def describe(self, element: str) -> str:
        """A tooltip for an element."""
        return self.controller.describe(element)
