"""The Compare window's cluster networks: each design's capex and power with its other networks
(converged/storage, in-band, out-of-band), and the baseline's arrangements (hybrid, all-Ethernet,
merged) priced side by side, as `compare --arrangements` prints them.

Hidden while no compared design has networks beside its compute fabric.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem

from designer.model.networks.arrangements import Arrangement

HEADERS = ("Design / arrangement", "Compute", "Other networks", "Capex", "Power", "Switches")


def _money(value: float) -> str:
    return f"${value:,.0f}"


def arrangement_rows(names: Sequence[str],
                     options: Sequence[Sequence[Arrangement]]) -> list[tuple[tuple[str, ...], str]]:
    """(cells, tooltip) per row: each design as designed, then the baseline's other arrangements."""
    rows: list[tuple[tuple[str, ...], str]] = []
    for i, (name, opts) in enumerate(zip(names, options, strict=True)):
        for a in opts:
            label = f"[{i + 1}] {name}" if a.key == "design" else f"[{i + 1}] {a.label}"
            tip = "; ".join(a.notes)
            if a.available:
                cells = (label, _money(a.compute_cost), _money(a.networks_cost), _money(a.total_cost),
                         f"{a.total_power_w / 1000:,.1f} kW", f"{a.switches:,}")
            else:
                cells = (label, "—", "—", "—", "—", "—")
                tip = tip or "not available for this design"
            rows.append((cells, tip))
    return rows


class NetworkCostsTable(QTableWidget):
    def __init__(self, parent=None):
        super().__init__(0, len(HEADERS), parent)
        self.setObjectName("compareNetworks")
        self.setHorizontalHeaderLabels(HEADERS)
        self.setToolTip("Capex and power of each compared cluster with its other networks (converged/"
                        "storage, in-band, out-of-band), and the baseline's network arrangements; "
                        "illustrative prices unless a price book is loaded")
        self.verticalHeader().setVisible(False)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        header = self.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for col in range(1, len(HEADERS)):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        self.setVisible(False)

    def show_arrangements(self, names: Sequence[str], options: Sequence[Sequence[Arrangement]]) -> None:
        rows = arrangement_rows(names, options) if options else []
        self.setRowCount(len(rows))
        for r, (cells, tip) in enumerate(rows):
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if tip:
                    item.setToolTip(tip)
                self.setItem(r, c, item)
        self.setVisible(bool(rows))
        # As tall as its rows (a few), so the comparison table above keeps the room.
        height = self.horizontalHeader().height() + sum(self.rowHeight(r) for r in range(len(rows))) + 4
        self.setFixedHeight(max(height, 0))
