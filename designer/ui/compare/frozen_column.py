"""A table's first column kept in place while the rest scrolls sideways (Qt's frozen-column
recipe): the metric names stay beside whichever designs are in view on a laptop screen."""

from __future__ import annotations

import contextlib

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractItemView, QFrame, QHeaderView, QTableView


class FrozenFirstColumn(QObject):
    """Lays a second view over `table`'s first column: same model, same selection, same rows."""

    def __init__(self, table: QTableView):
        super().__init__(table)
        self.table = table
        view = QTableView(table)
        view.setObjectName("frozenMetricColumn")
        view.setModel(table.model())
        view.setSelectionModel(table.selectionModel())
        view.setFocusPolicy(table.focusPolicy())
        view.verticalHeader().hide()
        view.setFrameShape(QFrame.Shape.NoFrame)
        view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        view.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        view.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        view.setShowGrid(table.showGrid())
        view.setWordWrap(False)
        view.setSelectionBehavior(table.selectionBehavior())
        view.setSelectionMode(table.selectionMode())
        view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        view.setContextMenuPolicy(table.contextMenuPolicy())
        view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        view.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        view.verticalHeader().setDefaultSectionSize(table.verticalHeader().defaultSectionSize())
        view.setStyleSheet(table.styleSheet())
        self.view = view
        table.viewport().stackUnder(view)
        table.horizontalHeader().sectionResized.connect(self._column_resized)
        table.verticalScrollBar().valueChanged.connect(view.verticalScrollBar().setValue)
        view.verticalScrollBar().valueChanged.connect(table.verticalScrollBar().setValue)
        table.model().modelReset.connect(self.refresh)
        table.model().layoutChanged.connect(self.refresh)
        self.header = table.horizontalHeader()
        table.installEventFilter(self)
        self.header.installEventFilter(self)
        self.refresh()

    def refresh(self) -> None:
        """Show only the first column, with the table's spans and widths, and place the overlay."""
        table, view = self.table, self.view
        model = table.model()
        view.clearSpans()
        for column in range(model.columnCount()):
            view.setColumnHidden(column, column != 0)
        for row in range(model.rowCount()):
            view.setRowHeight(row, table.rowHeight(row))
        view.setColumnWidth(0, table.columnWidth(0))
        view.setVisible(model.columnCount() > 0)
        self._place()



    def _column_resized(self, index: int, _old: int, new: int) -> None:
        if index == 0:
            self.view.setColumnWidth(0, new)
            self._place()

    def _place(self) -> None:
        table = self.table
        # Rows line up only when both headers are as tall (the table's carries two-line names).
        self.view.horizontalHeader().setFixedHeight(table.horizontalHeader().height())
        frame = table.frameWidth()
        self.view.setGeometry(frame, frame, table.columnWidth(0),
                              table.viewport().height() + table.horizontalHeader().height())
        self.view.verticalScrollBar().setValue(table.verticalScrollBar().value())

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt's name)
        # Compared by identity: while the window is torn down, asking the table for its header
        # would reach a deleted C++ object.
        watching = (getattr(self, "table", None), getattr(self, "header", None))
        if event.type() in (QEvent.Type.Resize, QEvent.Type.Show) and any(
                watched is w for w in watching if w is not None):
            with contextlib.suppress(RuntimeError):   # the table went away with its window
                self._place()
        return False
