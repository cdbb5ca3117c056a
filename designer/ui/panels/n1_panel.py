"""The N-1 panel: every single switch failure, the worst of each tier, as a table.

The same rows as the report's resilience page and `fabric-designer whatif --n-1`
(designer.model.decisions.whatif.n1_rows). Picking a row shows that tier's worst failure on the
canvas; the worst of all is shown first.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHeaderView, QLabel, QTableWidgetItem, QVBoxLayout, QWidget

from designer.model.decisions.whatif import N1_COLUMNS, NMinusOne, n1_rows
from designer.ui.panels.tables import pick_table


class NMinusOnePanel(QWidget):
    tierPicked = Signal(str)
    """A row was picked: carries its tier, whose worst failure the canvas should show."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.report: NMinusOne | None = None
        self.heading = QLabel("What If > Fail Any One Switch (N-1) fails every switch in turn and lists the "
                              "worst failure of each tier here.")
        self.heading.setWordWrap(True)
        self.table = pick_table(N1_COLUMNS)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.table.verticalHeader().setDefaultSectionSize(self.table.fontMetrics().height() + 6)
        self.table.itemSelectionChanged.connect(self._picked)
        box = QVBoxLayout(self)
        box.addWidget(self.heading)
        box.addWidget(self.table, 1)

    def show_report(self, report: NMinusOne | None, shown_tier: str | None = None) -> None:
        """Fill the table from `report` (None empties it); `shown_tier`'s row is selected."""
        self.report = report
        self.table.blockSignals(True)
        self.table.setRowCount(0)
        if report is not None:
            self.heading.setText(f"N-1: every single switch failure, the worst of each tier (computed, "
                                 f"{report.method}). Pick a row to see its failure on the canvas.")
            for row, cells in enumerate(n1_rows(report)):
                self.table.insertRow(row)
                for column, text in enumerate(cells):
                    self.table.setItem(row, column, QTableWidgetItem(text))
            tiers = list(report.worst)
            if shown_tier in tiers:
                self.table.selectRow(tiers.index(shown_tier))
        self.table.resizeColumnsToContents()
        self.table.blockSignals(False)

    def _picked(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        if rows and self.report is not None:
            self.tierPicked.emit(list(self.report.worst)[rows[0].row()])
