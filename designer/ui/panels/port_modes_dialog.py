"""Port Modes: every (switch, mode) the design's technology offers, with its fabric's price.

Opened from the Inspector's Port mode row. Each mode is the open design with another switch or
switch-to-switch speed, sized and priced by the model (decisions/port_modes.py: the whole bill,
optics and breakouts included); the one sizing takes is marked and the line above the table says
why; a mode that cannot be built says why in its row. Pricing every mode of a large fabric takes
seconds, so it runs off the UI thread: the design is snapshotted, an edit restarts a short
debounce, and a result for an older design is dropped. Choosing a mode is one edit on the undo
stack (its switch and uplink speed together).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QBrush
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from designer.catalog import Catalog, UnknownPartError
from designer.model.common.units import power_label
from designer.model.decisions.port_modes import ModeRow, ModeTable, in_mode, mode_table
from designer.model.intent.design import FabricDesign
from designer.model.physical.prices import PriceBookError, default_prices
from designer.model.topology.sizing import SizingError
from designer.ui.panels.tables import pick_table
from designer.ui.services.background import Latest
from designer.ui.theme import ERROR_HUE

COLUMNS = ("Switch", "To servers", "Between switches", "Tiers", "Switches", "Transceivers", "Breakout cables",
           "Power", "Fabric price", "")
STATUS = COLUMNS.index("")
PRICE = COLUMNS.index("Fabric price")
# An edit restarts this wait before the modes are priced again: a spin box's arrows held down
# make one pricing, not one per step.
DEBOUNCE_MS = 400


def _price(row: ModeRow) -> str:
    if row.cost is None:
        return "not priced"
    return f"{row.cost_text} {row.cost:,.0f}"


def _status(row: ModeRow) -> str:
    if not row.feasible:
        return f"cannot be built: {row.why_not}"
    marks = (["this design"] if row.current else []) + (["sizing's choice"] if row.chosen else [])
    if row.cost is None:
        marks.append(row.cost_text)
    return ", ".join(marks)


class PortModesDialog(QDialog):
    """The table of port modes of the open design; `modeChosen(design, text)` asks for the edit."""

    modeChosen = Signal(object, str)

    def __init__(self, catalog: Catalog, synchronous: bool = False, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Port Modes")
        self.setObjectName("portModesDialog")
        self.catalog = catalog
        self.design: FabricDesign | None = None
        self.table_data: ModeTable | None = None
        self._work = Latest(self, "port-modes", synchronous)
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(DEBOUNCE_MS)
        self._debounce.timeout.connect(self.compute)
        self.heading = QLabel("")
        self.heading.setWordWrap(True)
        self.heading.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.table = pick_table(COLUMNS)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(STATUS, QHeaderView.ResizeMode.Stretch)
        self.table.setWordWrap(True)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.itemSelectionChanged.connect(self._update_buttons)
        self.table.cellDoubleClicked.connect(lambda *_: self.use_selected())
        basis = QLabel("Each mode is this design with another switch or switch-to-switch speed, sized by the same "
                       "rules and priced from its whole bill of materials (switches, NICs, optics, breakout "
                       "cables, racks) at price-book estimates. Power: switches, NICs and optics.")
        basis.setWordWrap(True)
        basis.setEnabled(False)
        buttons = QDialogButtonBox()
        self.use_button = QPushButton("Use Selected Mode")
        self.use_button.setToolTip("Run the design's switches in the selected mode (one step on Undo)")
        self.use_button.clicked.connect(self.use_selected)
        buttons.addButton(self.use_button, QDialogButtonBox.ButtonRole.ActionRole)
        close = buttons.addButton(QDialogButtonBox.StandardButton.Close)
        close.clicked.connect(self.close)
        box = QVBoxLayout(self)
        box.addWidget(self.heading)
        box.addWidget(self.table, 1)
        box.addWidget(basis)
        box.addWidget(buttons)
        # Wide enough for every column and a line of the status at 1280 pixels; taller rows wrap it.
        self.resize(1180, 500)
        self._fill()

    # --- following the design -------------------------------------------------------------------

    def set_design(self, design: FabricDesign | None) -> None:
        """Follow the open design: the shown table is for an older one at once, and pricing waits
        for the edits to settle (the debounce); only while the dialog is open."""
        if design is self.design:
            return
        self.design = design
        self._work.drop()
        self.table_data = None
        self._fill()
        if design is not None and self.isVisible():
            self._debounce.start()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self.table_data is None and self.design is not None:
            self._debounce.stop()
            self.compute()

    def compute(self) -> None:
        """Price every mode of the design now, off the UI thread (inline when synchronous)."""
        self._debounce.stop()
        design, catalog = self.design, self.catalog
        if design is None:
            return
        self.heading.setText("Sizing and pricing every port mode of this design…")

        def work() -> ModeTable | str:
            try:
                return mode_table(design, catalog, default_prices())
            except (SizingError, UnknownPartError, PriceBookError, ValueError) as exc:
                return str(exc)

        def done(result: ModeTable | str) -> None:
            if design is not self.design:
                return          # the design changed while this was priced
            if isinstance(result, str):
                self.table_data = None
                self._fill(problem=result)
            else:
                self.table_data = result
                self._fill()
        self._work.run(work, done)

    # --- the table ------------------------------------------------------------------------------

    def _fill(self, problem: str = "") -> None:
        data = self.table_data
        self.table.setRowCount(0)
        if problem:
            self.heading.setText(f"<span style='color:{ERROR_HUE}'>&#9888; The modes cannot be priced: "
                                 f"{problem}</span>")
        elif data is None:
            self.heading.setText("Sizing and pricing every port mode of this design…" if self.design else
                                 "No design is open.")
        else:
            self.heading.setText(data.why + ".")
            self.table.setRowCount(len(data.rows))
            for i, row in enumerate(data.rows):
                self._fill_row(i, row)
        self._update_buttons()

    def _fill_row(self, i: int, row: ModeRow) -> None:
        down = f"{row.switch.ports_at(row.link_gbps)} x {row.link_gbps}G"
        up = (f"{row.switch.ports_at(row.uplink_gbps)} x {row.uplink_gbps}G" if row.uplink_gbps != row.link_gbps
              else "the same")
        if row.feasible and row.tiers == 1:
            up = "none (one tier)"
        if row.feasible and not row.priced:
            cells = [row.switch.name, down, up, str(row.tiers), f"{row.switches:,}", "—", "—", "—", _price(row),
                     _status(row)]
        elif row.feasible:
            cells = [row.switch.name, down, up, str(row.tiers), f"{row.switches:,}", f"{row.transceivers:,}",
                     f"{row.breakouts:,}", power_label(row.power_w), _price(row), _status(row)]
        else:
            cells = [row.switch.name, down, up, "", "", "", "", "", "", _status(row)]
        numeric = {3, 4, 5, 6, 7, PRICE}
        for col, text in enumerate(cells):
            item = QTableWidgetItem(text)
            item.setData(Qt.ItemDataRole.UserRole, i)
            if col in numeric:
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if col == STATUS:
                # The reason's first clause in the cell (a row stays two lines high), all of it in the tooltip.
                item.setText(text.split("; ")[0])
                item.setToolTip(f"{row.switch.name} in {row.modes_text}: {text}")
            else:
                item.setToolTip(row.modes_text)
            if not row.feasible:
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsSelectable)
                item.setForeground(QBrush(self.palette().color(self.palette().ColorGroup.Disabled,
                                                               self.palette().ColorRole.Text)))
            if row.current or row.chosen:
                font = item.font()
                font.setBold(row.chosen)
                font.setItalic(row.current and not row.chosen)
                item.setFont(font)
            self.table.setItem(i, col, item)

    def selected_row(self) -> ModeRow | None:
        data = self.table_data
        items = self.table.selectedItems()
        if data is None or not items:
            return None
        return data.rows[items[0].data(Qt.ItemDataRole.UserRole)]

    def _update_buttons(self) -> None:
        row = self.selected_row()
        self.use_button.setEnabled(row is not None and row.feasible and not row.current)

    def select(self, switch_id: str, uplink_gbps: int) -> bool:
        """Select the row of a (switch, mode); False when the table has none."""
        data = self.table_data
        if data is None:
            return False
        for i, row in enumerate(data.rows):
            if row.switch.id == switch_id and row.uplink_gbps == uplink_gbps and row.feasible:
                self.table.selectRow(i)
                return True
        return False

    def use_selected(self) -> None:
        """Ask for the open design in the selected mode: its switch and uplink speed, one edit."""
        row = self.selected_row()
        if row is None or not row.feasible or row.current or self.design is None:
            return
        new = in_mode(self.design, row.switch.id, row.link_gbps, row.uplink_gbps)
        self.modeChosen.emit(new, f"Run {row.switch.name} in {row.modes_text}")
