"""The Phases panel: a build-out in phases, what each buys, where recabling begins, and the
alternative that avoids it. Computed off the UI thread; each phase can be drawn (later parts
ghosted) or exported as the BOM it buys.

The target and the phases are the design's own (design.growth): the panel shows them and, when
the user commits a change (Enter, leaving the field, or Plan), asks for it with `planEdited`;
the window makes that an undoable edit, so the plan is saved with the project.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from designer.model.decisions.growth import GrowthError, grow
from designer.model.intent.design import FabricDesign
from designer.model.intent.growth_plan import MAX_TARGET_GPUS, GrowthPlan
from designer.model.intent.serde import DesignValidationError
from designer.model.topology.sizing import SizingError
from designer.ui.panels.tables import pick_table
from designer.ui.services.background import Latest

COLUMNS = ("Path", "Phase", "Size", "Leaf/spine/core", "Links", "Ports reserved", "Bought (est.)", "Links moved")


class PhasesPanel(QWidget):
    drawRequested = Signal(object, object)      # (Growth path, phase number)
    exportRequested = Signal(object, str)       # (Phase, currency)
    planEdited = Signal(object)                 # the GrowthPlan the user asks the design to hold
    def __init__(self, catalog=None, synchronous: bool = False, parent=None):
        super().__init__(parent)
        self.catalog = catalog
        self.synchronous = synchronous
        self.design: FabricDesign | None = None
        self.growth = None
        self._work = Latest(self, "phases", synchronous)
        self._rows: list[tuple] = []          # (path, phase) per table row
        self.target = QSpinBox()
        self.target.setRange(1, MAX_TARGET_GPUS)
        self.target.setSingleStep(256)
        self.target.setToolTip("GPUs at the end of the build-out")
        self.phases = QLineEdit()
        self.phases.setPlaceholderText("e.g. 4,8,16 (SUs; GPUs for other templates)")
        self.phases.setToolTip("Phase sizes: SUs for rail-optimized designs, GPUs otherwise")
        self.target.editingFinished.connect(self.commit)
        self.phases.editingFinished.connect(self.commit)
        self.compute_button = QPushButton("Plan")
        self.compute_button.setToolTip("Store the target and phases with the design and plan the build-out")
        self.compute_button.clicked.connect(self.compute)
        self.stored_label = QLabel("")
        top = QHBoxLayout()
        top.addWidget(QLabel("Target GPUs"))
        top.addWidget(self.target)
        top.addWidget(QLabel("Phases"))
        top.addWidget(self.phases, 1)
        top.addWidget(self.compute_button)
        self.table = pick_table(COLUMNS)
        self.summary = QLabel("")
        self.summary.setWordWrap(True)
        self.draw_button = QPushButton("Draw Phase")
        self.draw_button.setToolTip("Open the final fabric with the parts of later phases ghosted")
        self.draw_button.clicked.connect(self._draw)
        self.export_button = QPushButton("Export Phase BOM…")
        self.export_button.clicked.connect(self._export)
        buttons = QHBoxLayout()
        buttons.addWidget(self.draw_button)
        buttons.addWidget(self.export_button)
        buttons.addStretch(1)
        box = QVBoxLayout(self)
        box.addLayout(top)
        box.addWidget(self.stored_label)
        box.addWidget(self.table, 1)
        box.addWidget(self.summary)
        box.addLayout(buttons)
        self._enable()

    def set_design(self, design) -> None:
        """Follow the open design: show its stored plan; a computed plan for an older design is dropped,
        and the panel, when on screen, plans the new one at once."""
        self.design = design
        self._work.drop()
        self.growth = None
        self._fill()
        self._show_plan()
        if design is not None and self.isVisible():
            self.preview()

    def preview(self) -> None:
        """Plan the fields' target and phases without storing them: the stored plan, or a first
        proposal (the suggested target, phases chosen by the planner) until Plan stores one."""
        if self.design is None:
            return
        plan = self.edited_plan()
        if isinstance(plan, str):
            self.summary.setText(plan)
            return
        self._plan(self.design, plan.target_gpus, list(plan.phases) or None)

    def _suggested_target(self) -> int:
        assert self.design is not None   # asked only with a design open
        cluster = self.design.cluster
        return min(MAX_TARGET_GPUS, cluster.servers * (cluster.gpus_per_server or 8) * 4)

    def _show_plan(self) -> None:
        """The design's stored target and phases in the fields (a suggested target when none is stored)."""
        design = self.design
        plan = design.growth if design is not None else GrowthPlan()
        for widget in (self.target, self.phases):
            widget.blockSignals(True)
        if design is not None:
            self.target.setValue(plan.target_gpus if plan.target_gpus is not None else self._suggested_target())
        self.phases.setText(plan.phases_text())
        for widget in (self.target, self.phases):
            widget.blockSignals(False)
        self.stored_label.setText("Target and phases are stored with the design" if plan.stored else
                                  "Suggested target: Plan (or Enter) stores it with the design")

    def edited_plan(self) -> GrowthPlan | str:
        """The plan in the fields, or why it cannot be one."""
        try:
            phases = tuple(int(v) for v in self.phases.text().split(",") if v.strip())
        except ValueError:
            return "Phases are whole numbers separated by commas, e.g. 4,8,16"
        try:
            return GrowthPlan(self.target.value(), phases)
        except DesignValidationError as exc:
            return f"Not stored: {exc.message}"

    def commit(self, force: bool = False) -> bool:
        """Ask for the fields' plan to be stored with the design; False when the fields are invalid.

        A suggested target the user only passed through is not stored unless `force` (Plan).
        """
        if self.design is None:
            return False
        plan = self.edited_plan()
        if isinstance(plan, str):
            self.summary.setText(plan)
            return False
        current = self.design.growth
        untouched = (not current.stored and not plan.phases
                     and plan.target_gpus == self._suggested_target())
        if plan != current and (force or not untouched):
            self.planEdited.emit(plan)
        return True

    def compute(self) -> None:
        if self.design is None or not self.commit(force=True):
            return
        plan = self.edited_plan()      # the design holds it now, unless the edit was refused
        if isinstance(plan, str):      # refused: commit said so
            return
        self._plan(self.design, plan.target_gpus, list(plan.phases) or None)

    def _plan(self, design: FabricDesign, target: int | None, phases: list[int] | None) -> None:
        self.summary.setText("Planning the build-out…")

        def work():
            try:
                return grow(design, target, phases, self.catalog)
            except (GrowthError, SizingError, ValueError) as exc:
                return str(exc)
        self._work.run(work, self._on_finished)

    def _on_finished(self, payload) -> None:
        if isinstance(payload, str):
            self.growth = None
            self._fill()
            self.summary.setText(f"Cannot plan: {payload}")
            return
        self.growth = payload
        self._fill()

    def _fill(self) -> None:
        g = self.growth
        self._rows = []
        self.table.setRowCount(0)
        if g is None:
            self.summary.setText("")
            self._enable()
            return
        for path in (g.path, g.alternative):
            if path is None:
                continue
            for p in path.phases:
                self._rows.append((path, p))
                size = f"{p.sus} SU" if g.unit == "SU" else f"{p.gpus:,} GPUs"
                cells = ["as sized" if path is g.path else "alternative", str(p.number), size,
                         "/".join(str(p.switches.get(t, 0)) for t in ("leaf", "spine", "core")),
                         f"{sum(p.links.values()):,}",
                         ", ".join(f"{n:,} {t}" for t, n in p.reserved_ports.items()) or "—",
                         f"{g.currency} {p.cost_delta:,.0f}", f"{p.recabled_links:,}"]
                row = self.table.rowCount()
                self.table.insertRow(row)
                for column, text in enumerate(cells):
                    item = QTableWidgetItem(text)
                    if column == 7 and p.recabling:
                        item.setToolTip("\n".join(p.recabling))
                    self.table.setItem(row, column, item)
        self.table.resizeColumnsToContents()
        lines = [f"As sized: {'needs recabling' if g.path.needs_recabling else 'no recabling'}, "
                 f"day one {g.currency} {g.path.day_one_cost:,.0f}."]
        lines += [r for p in g.path.phases for r in p.recabling]
        if g.alternative:
            lines.append(f"Alternative ({g.alternative.label}): "
                         f"{'needs recabling' if g.alternative.needs_recabling else 'no recabling'}, "
                         f"day one {g.currency} {g.alternative.day_one_cost:,.0f}.")
        # The notes are clauses shared with the CLI's "note:" lines: each starts a sentence here.
        notes = " ".join(f"{n[:1].upper()}{n[1:]}{'' if n.endswith('.') else '.'}" for n in g.notes)
        lines.append(f"Counts and recabling computed; prices {g.prices_note}. {notes}".rstrip())
        if self.design is not None and not self.design.growth.stored:
            lines.insert(0, "A first proposal for the suggested target; Plan stores a target and phases "
                            "with the design.")
        self.summary.setText("\n".join(lines))
        self._enable()

    def _selected(self):
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        if rows and rows[0].row() < len(self._rows):
            return self._rows[rows[0].row()]
        return self._rows[0] if self._rows else None

    def _enable(self) -> None:
        has = bool(self._rows)
        self.draw_button.setEnabled(has)
        self.export_button.setEnabled(has)

    def _draw(self) -> None:
        chosen = self._selected()
        if chosen is not None:
            self.drawRequested.emit(chosen[0], chosen[1].number)

    def _export(self) -> None:
        chosen = self._selected()
        if chosen is not None and self.growth is not None:
            self.exportRequested.emit(chosen[1], self.growth.currency)
