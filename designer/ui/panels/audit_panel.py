"""The Audit panel: what a capture says about the fabric as built, in the order a technician works.

Top to bottom: the summary (the same lines `fabric-designer audit` prints, each with its count;
clicking one shows only its findings), the impact as cards (designed -> as built, written as the
metrics are), then every finding in a table that sorts by any column and filters by text and
kind, with CSV export. Choosing a row emits `findingChosen` so the canvas shows that one.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, QSortFilterProxyModel, Qt, Signal
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from designer.model.decisions.audit import FINDINGS, AuditReport, impact_lines
from designer.model.decisions.audit_summary import (
    SECTIONS,
    describe,
    detail_groups,
    inferred_lines,
    summary_counts,
    summary_lines,
)

COLUMNS = ("SU", "Device", "Port", "Kind", "Finding")
DEVICE_EMS = 16       # the Device column's widest, in the width of so many letters M
WRAPPED_ROWS = 500     # up to this many findings, each row grows to show its text whole
KIND_LABEL = {"missing_devices": "Absent device", "missing_links": "Missing link", "swapped": "Swapped or crossed",
              "miswired": "Miswired", "extra_links": "Extra link", "degraded_links": "Degraded",
              "unnamed_devices": "Unnamed device"}
# Which finding kinds each summary line is about (its row in the summary list filters to them).
SECTION_KINDS = {"absent_switches": ("missing_devices",), "absent_servers": ("missing_devices",),
                 "missing_uplinks_by_leaf": ("missing_links",), "host_ports_down_by_server": ("missing_links",),
                 "swapped": ("swapped",), "miswired": ("miswired",), "extra_links": ("extra_links",),
                 "degraded_links": ("degraded_links",), "unnamed_devices": ("unnamed_devices",)}
ENTRY_ROLE = Qt.ItemDataRole.UserRole + 1
KIND_ROLE = Qt.ItemDataRole.UserRole + 2
SORT_ROLE = Qt.ItemDataRole.UserRole + 3


RANK = {kind: i for i, kind in enumerate(FINDINGS)}   # the Kind column sorts in this order

class _FindingFilter(QSortFilterProxyModel):
    """Text in any column, and one kind (or all)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.kinds: tuple[str, ...] = ()
        self.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.setFilterKeyColumn(-1)
        self.setSortRole(SORT_ROLE)

    def set_kinds(self, kinds: tuple[str, ...]) -> None:
        self.beginFilterChange()
        self.kinds = kinds
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, row: int, parent: QModelIndex | QPersistentModelIndex) -> bool:
        if self.kinds:
            kind = self.sourceModel().index(row, 0, parent).data(KIND_ROLE)
            if kind not in self.kinds:
                return False
        return super().filterAcceptsRow(row, parent)


def _card(title: str, value: str) -> QFrame:
    card = QFrame()
    card.setObjectName("auditImpactCard")
    card.setFrameShape(QFrame.Shape.StyledPanel)
    box = QVBoxLayout(card)
    box.setContentsMargins(8, 4, 8, 4)
    head = QLabel(title)
    head.setStyleSheet("color: palette(mid); font-size: 8pt;")
    body = QLabel(value)
    body.setStyleSheet("font-weight: 600;")
    box.addWidget(head)
    box.addWidget(body)
    return card


class AuditPanel(QWidget):
    findingChosen = Signal(str, object)      # kind, finding entry
    exportRequested = Signal()
    correctRequested = Signal()              # the Inferred design dialog

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.report: AuditReport | None = None
        # Summary and impact on the left, the findings on the right: a bottom dock is wide, not tall.
        outer = QHBoxLayout(self)
        outer.setContentsMargins(6, 6, 6, 6)
        split = QSplitter(Qt.Orientation.Horizontal)
        outer.addWidget(split)
        left, right = QWidget(), QWidget()
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        layout = QVBoxLayout(left)
        layout.setContentsMargins(0, 0, 0, 0)
        self.title = QLabel("No audit yet: Tools > Audit Against... compares a capture with this design.")
        self.title.setObjectName("auditTitle")
        self.title.setWordWrap(True)
        layout.addWidget(self.title)
        self.summary = QListWidget()
        self.summary.setObjectName("auditSummary")
        self.summary.setToolTip("The audit's summary; click a line to list only its findings")
        self.summary.itemClicked.connect(self._section_chosen)
        # A line such as "Audited on its own, without a design: no catalog switch runs ..." wraps
        # in the dock's width instead of running off under a sideways scroll bar.
        self.summary.setWordWrap(True)
        self.summary.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.summary.setResizeMode(QListWidget.ResizeMode.Adjust)
        layout.addWidget(self.summary, 1)
        # Two impact cards a row: four side by side made the dock wider than a 1280-pixel
        # window leaves it, and the findings ran on under the Inspector.
        self.cards = QGridLayout()
        layout.addLayout(self.cards)
        layout = QVBoxLayout(right)
        layout.setContentsMargins(0, 0, 0, 0)
        bar = QHBoxLayout()
        self.filter = QLineEdit()
        self.filter.setObjectName("auditFilter")
        self.filter.setPlaceholderText("Filter findings (device, port, text)")
        self.filter.setClearButtonEnabled(True)
        self.kind = QComboBox()
        self.kind.setObjectName("auditKind")
        self.kind.addItem("All findings", ())
        self.kind.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.kind.setMinimumContentsLength(12)
        for key, label in KIND_LABEL.items():
            self.kind.addItem(label, (key,))
        self.export = QPushButton("Export CSV...")
        self.export.setObjectName("auditExport")
        self.export.setEnabled(False)
        self.export.clicked.connect(self.exportRequested.emit)
        self.correct = QPushButton("Inferred Design...")
        self.correct.setObjectName("auditCorrect")
        self.correct.setToolTip("Each inferred figure with its evidence; correct one and the audit runs again")
        self.correct.setEnabled(False)
        self.correct.clicked.connect(self.correctRequested.emit)
        bar.addWidget(self.filter, 1)
        bar.addWidget(self.kind)
        bar.addWidget(self.correct)
        bar.addWidget(self.export)
        layout.addLayout(bar)
        self.model = QStandardItemModel(0, len(COLUMNS), self)
        self.model.setHorizontalHeaderLabels(list(COLUMNS))
        self.proxy = _FindingFilter(self)
        self.proxy.setSourceModel(self.model)
        self.table = QTableView()
        self.table.setObjectName("auditFindings")
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(len(COLUMNS) - 1, QHeaderView.ResizeMode.Stretch)
        self.table.setWordWrap(True)
        self.table.selectionModel().currentRowChanged.connect(self._row_chosen)
        layout.addWidget(self.table, 1)
        # The chosen finding in full, whatever the width of its column.
        self.detail = QLabel()
        self.detail.setObjectName("auditDetail")
        self.detail.setWordWrap(True)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.detail)
        self.filter.textChanged.connect(self.proxy.setFilterFixedString)
        self.kind.currentIndexChanged.connect(lambda _i: self.proxy.set_kinds(tuple(self.kind.currentData() or ())))

    # --- filling ---------------------------------------------------------------------------

    def set_report(self, report: AuditReport | None, source: str = "") -> None:
        self.report = report
        self.summary.clear()
        self.model.removeRows(0, self.model.rowCount())
        while self.cards.count():
            taken = self.cards.takeAt(0)
            widget = taken.widget() if taken is not None else None
            if widget is not None:
                widget.deleteLater()
        self.export.setEnabled(report is not None)
        self.detail.clear()
        if report is None:
            self.title.setText("No audit yet: Tools > Audit Against... compares a capture with this design.")
            return
        rows = report.rows()
        self.title.setText(f"Audit of {source or 'the capture'}: {len(rows):,} finding(s)"
                           if rows else f"Audit of {source or 'the capture'}: built as designed, no findings")
        # What the audit rests on, as `fabric-designer audit` prints it above its summary.
        for line in inferred_lines(report) + [f"note: {p}" for p in report.inferred.get("problems", [])]:
            head = QListWidgetItem(line.strip())
            head.setToolTip("\n".join(f"{f['subject']}: {f['value']} ({f['confidence']}): {f['why']}"
                                       for f in report.inferred.get("facts", [])))
            self.summary.addItem(head)
        counts = {key: n for key, _, n in summary_counts(report.summary)}
        for key, line in zip([k for k, _ in SECTIONS], summary_lines(report), strict=False):
            entry = QListWidgetItem(line)
            entry.setToolTip(line)
            entry.setData(Qt.ItemDataRole.UserRole, SECTION_KINDS.get(key, ()))
            if counts.get(key):
                font = entry.font()
                font.setBold(True)
                entry.setFont(font)
            self.summary.addItem(entry)
        for line in summary_lines(report)[len(SECTIONS):]:
            self.summary.addItem(QListWidgetItem(line))
        for i, line in enumerate(impact_lines(report.impact)):
            title, _, value = line.partition(": ")
            self.cards.addWidget(_card(title, value.replace(" -> ", " \u2192 ")), i // 2, i % 2)
        self.table.setSortingEnabled(False)
        for device, entries in detail_groups(report):
            for kind, e in entries:
                a = e.get("a", e)
                su = a.get("su") or 0
                port = a.get("port") if isinstance(a.get("port"), int) else e.get("port")
                cells = [str(su) if su else "", device.split(" \u00b7 ")[-1],
                         str(port) if isinstance(port, int) else "", KIND_LABEL.get(kind, kind), describe(kind, e)]
                sort_keys: list[object] = [su, device.split(" \u00b7 ")[-1].lower(),
                                           port if isinstance(port, int) else -1, RANK.get(kind, len(RANK)), cells[-1]]
                row: list[QStandardItem] = []
                for text, sort_key in zip(cells, sort_keys, strict=True):
                    cell = QStandardItem(text)
                    cell.setToolTip(text)
                    cell.setData(sort_key, SORT_ROLE)
                    row.append(cell)
                row[0].setData(kind, KIND_ROLE)
                row[0].setData(e, ENTRY_ROLE)
                self.model.appendRow(row)
        self.table.setSortingEnabled(True)
        # In the order a technician acts (absent devices, missing links, swaps, miswires, extra,
        # degraded, unnamed), by SU, device and port within each kind (the sort is stable).
        self.table.sortByColumn(3, Qt.SortOrder.AscendingOrder)
        self.table.resizeColumnsToContents()
        # A long device description ("SwitchIB Mellanox Technologies (e41d2d030003e470)") wraps
        # rather than take the width the finding's own text needs.
        device_width = self.table.fontMetrics().horizontalAdvance("M" * DEVICE_EMS)
        self.table.setColumnWidth(1, min(self.table.columnWidth(1), device_width))
        # Each finding's text wraps whole in its row. Rows follow their text only while there are
        # few of them: measuring every row of a damaged capture's thousands of findings at each
        # resize would stall the window, so there each row keeps one height, its text in the
        # tooltip and in the line under the table.
        rows_fit = self.model.rowCount() <= WRAPPED_ROWS
        self.table.verticalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents if rows_fit else QHeaderView.ResizeMode.Interactive)

    # --- choosing --------------------------------------------------------------------------

    def _section_chosen(self, item: QListWidgetItem) -> None:
        kinds = tuple(item.data(Qt.ItemDataRole.UserRole) or ())
        index = next((i for i in range(self.kind.count()) if tuple(self.kind.itemData(i) or ()) == kinds), 0)
        self.kind.setCurrentIndex(index)

    def _row_chosen(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if not current.isValid():
            return
        first = self.proxy.mapToSource(current.siblingAtColumn(0))
        item = self.model.item(first.row(), 0)
        if item is not None:
            text = self.model.item(first.row(), len(COLUMNS) - 1)
            device = self.model.item(first.row(), 1)
            entry = item.data(ENTRY_ROLE) or {}
            # How sure the audit is of this finding, and why (the JSON's confidence and why).
            sure = f" (confidence {entry['confidence']}: {entry.get('why', '')})" if entry.get("confidence") else ""
            self.detail.setText(f"{device.text() if device else ''}: {text.text() if text else ''}{sure}")
            self.findingChosen.emit(item.data(KIND_ROLE), item.data(ENTRY_ROLE))

    def visible_rows(self) -> int:
        return self.proxy.rowCount()
