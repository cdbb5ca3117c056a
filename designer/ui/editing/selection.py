"""What is selected on the canvas, as element ids.

Ids: 'tier:<tier>' for a whole row, 'block:<tier>:<k>' for a pod, scalable unit or core group,
a device id such as 'leaf-3' or 'p1.spine-2' (the graph's own ids), 'srv-5' for a server,
and 'edit:<i>' for the manual link at position i of design.edits.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal


class SelectionModel(QObject):
    """The set of selected elements; UI state, not part of the design."""

    changed = Signal()
    """The selection changed."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._elements: frozenset[str] = frozenset()

    @property
    def elements(self) -> frozenset[str]:
        return self._elements

    def set(self, elements) -> None:
        new = frozenset(elements)
        if new != self._elements:
            self._elements = new
            self.changed.emit()

    def add(self, elements) -> None:
        self.set(self._elements | frozenset(elements))

    def toggle(self, element: str) -> None:
        self.set(self._elements ^ {element})

    def clear(self) -> None:
        self.set(())

    def tiers(self) -> list[str]:
        """The tiers that selected elements belong to, top-down."""
        from designer.ui.canvas.layout import ROWS, parse_device_id

        found = set()
        for element in self._elements:
            if element.startswith("tier:"):
                found.add(element[5:])
            elif element.startswith("block:"):
                found.add(element.split(":")[1])
            else:
                parsed = parse_device_id(element)
                if parsed is not None:
                    found.add(parsed[0])
        return [t for t in ROWS if t in found]
