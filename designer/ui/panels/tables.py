"""A read-only table of rows to pick from, as the window's panels and tool windows show them."""

from __future__ import annotations

from PySide6.QtWidgets import QAbstractItemView, QTableWidget


def pick_table(columns) -> QTableWidget:
    """Whole rows selected one at a time, nothing editable, no row numbers."""
    table = QTableWidget(0, len(columns))
    table.setHorizontalHeaderLabels(list(columns))
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.verticalHeader().setVisible(False)
    return table
