"""The Expected Interruptions panel: how often parts of the fabric are expected to fail, from
computed counts and the sourced failure-rate table, and whether one failure stops a job here
and on the same cluster with the other plane count.

Every figure is the model's (designer.model.decisions.interruptions), labelled as it labels
it: counts and "stops a job" are computed, expectations are estimates, and a kind without a
published rate says so and is not estimated. Computed off the UI thread; a result for an
older design is dropped.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from designer.catalog import default_catalog
from designer.io.interruptions_csv import NOT_PUBLISHED, per_year
from designer.model.common.units import rate_label
from designer.model.decisions.interruptions import RateTableError, interruptions, unit_name
from designer.model.networks.resilience import design_resilience
from designer.model.topology.derive import derive
from designer.model.topology.sizing import SizingError
from designer.ui.panels.tables import pick_table
from designer.ui.services.background import Latest

EXPECTED_COLUMNS = ("Kind", "Count", "Rate / unit / day", "Per day", "Per month", "Per year", "Source")
STOP_COLUMNS = ("One failure of", "This design")
SHARE_ROW = "Share that stops a job (estimated)"
STOPS_TAB = "Does one failure stop a job?"
SHARE_TIP = ("Of the expected link and NIC failures (weighted by their rates), the share whose single "
             "failure cuts a GPU off; the rest leave the job running at reduced bandwidth")




UNPUBLISHED_MARK = "—"   # in the table; the heading says what it means, the row's tooltip says it again


def _figure(value: float | None) -> str:
    return rate_label(value, UNPUBLISHED_MARK)


class InterruptionsPanel(QWidget):
    exportRequested = Signal(object)       # the Interruptions report shown
    def __init__(self, catalog=None, synchronous: bool = False, parent=None):
        super().__init__(parent)
        self.catalog = catalog
        self.synchronous = synchronous
        self.design = None
        self.report = None
        self.networks = ()   # the other networks' failures (designer/model/networks/resilience.py)
        self._work = Latest(self, "interruptions", synchronous)
        self.heading = QLabel("")
        self.heading.setWordWrap(True)
        self.expected = pick_table(EXPECTED_COLUMNS)
        self.stops = pick_table(STOP_COLUMNS)
        # Columns as wide as their text, so no header or figure is cut; the Source column takes
        # what is left and wraps its long titles onto more lines, its row growing to fit them.
        for table in (self.expected, self.stops):
            table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
            table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
            table.setWordWrap(True)
        source = EXPECTED_COLUMNS.index("Source")
        self.expected.horizontalHeader().setSectionResizeMode(source, QHeaderView.ResizeMode.Stretch)
        self.expected.horizontalHeader().setMinimumSectionSize(60)
        self.counts = QLabel("")
        self.counts.setWordWrap(True)
        self.notes = QLabel("")
        self.notes.setWordWrap(True)
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.setToolTip("Estimate again for the open design")
        self.refresh_button.clicked.connect(self.compute)
        self.export_button = QPushButton("Export CSV…")
        self.export_button.setToolTip("Save the expected failures, the stop shares and the counts as a CSV sheet")
        self.export_button.clicked.connect(lambda: self.report is not None and self.exportRequested.emit(self.report))
        buttons = QHBoxLayout()
        buttons.addWidget(self.refresh_button)
        buttons.addWidget(self.export_button)
        buttons.addStretch(1)
        # Wide and low, as the bottom of the window gives it: each table gets the full width on a
        # tab of its own, so every column shows whole at 1280 pixels.
        expected_page, stops_page = QWidget(), QWidget()
        left = QVBoxLayout(expected_page)
        left.setContentsMargins(4, 4, 4, 4)
        left.addWidget(self.heading)
        left.addWidget(self.expected, 1)
        left.addWidget(self.counts)
        right = QVBoxLayout(stops_page)
        right.setContentsMargins(4, 4, 4, 4)
        right.addWidget(QLabel("Does one failure stop a job on every GPU? (computed on the graph)"))
        right.addWidget(self.stops, 1)
        right.addWidget(self.notes)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(expected_page, "Expected failures")
        self.tabs.addTab(stops_page, STOPS_TAB)
        box = QVBoxLayout(self)
        box.setContentsMargins(2, 2, 2, 2)
        box.addWidget(self.tabs, 1)
        box.addLayout(buttons)
        self._fill()

    def set_design(self, design) -> None:
        """Follow the open design: a report for an older design is dropped, and estimated again
        when the panel is on screen."""
        self.design = design
        self._work.drop()
        self.report = None
        self._fill()
        if design is not None and self.isVisible():
            self.compute()

    def compute(self) -> None:
        if self.design is None:
            return
        design, catalog = self.design, self.catalog
        self.heading.setText("Estimating expected interruptions…")

        def work():
            try:
                derived = derive(design, catalog)
                report = interruptions(derived)
                return report, design_resilience(derived, catalog or default_catalog())
            except (RateTableError, SizingError, ValueError) as exc:
                return str(exc)
        self._work.run(work, self._on_finished)

    def _on_finished(self, payload) -> None:
        payload, self.networks = payload if isinstance(payload, tuple) else (payload, ())
        if not hasattr(payload, "expected"):
            self.report = None
            self._fill()
            self.heading.setText(f"Cannot estimate: {payload}")
            return
        self.report = payload
        self._fill()

    def _fill(self) -> None:
        report = self.report
        self.expected.setRowCount(0)
        self.stops.setRowCount(0)
        self.export_button.setEnabled(report is not None)
        self.refresh_button.setEnabled(self.design is not None)
        if report is None:
            self.tabs.setTabText(1, STOPS_TAB)
            self.heading.setText("" if self.design is None else
                                 "What If > Expected Interruptions (or Refresh) estimates them for this design.")
            self.counts.setText("")
            self.notes.setText("")
            return
        self.heading.setText(f"Estimated from the computed counts and published rates, extrapolated to this design; "
                             f"{UNPUBLISHED_MARK} {NOT_PUBLISHED}, not estimated. Hover a row for what was measured.")
        for e in report.expected:
            r = e.rate
            cells = [r.label, f"{e.units:,} {unit_name(r.applies_to)}", _figure(r.per_unit_day), _figure(e.per_day),
                     _figure(e.per_month), _figure(per_year(e.per_day)), r.source or "—"]
            row = self.expected.rowCount()
            self.expected.insertRow(row)
            tip = f"Measured: {r.measured}\nExtrapolated: {r.extrapolated}"
            tip += f"\nSource: {r.source}" if r.source else f"\n{NOT_PUBLISHED.capitalize()}: not estimated"
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(tip)
                self.expected.setItem(row, column, item)
        for net in self.networks:   # the cluster's other networks, after the compute fabric's rows
            for e in net.expected:
                r = e.rate
                cells = [f"{net.size.label}: {r.label}", f"{e.units:,} {unit_name(r.applies_to)}",
                         _figure(r.per_unit_day), _figure(e.per_day), _figure(e.per_month),
                         _figure(per_year(e.per_day)), r.source or "—"]
                row = self.expected.rowCount()
                self.expected.insertRow(row)
                for column, text in enumerate(cells):
                    self.expected.setItem(row, column, QTableWidgetItem(text))
        shares = [s for s in (report.design_share, report.other_share) if s is not None]
        self.stops.setColumnCount(1 + len(shares))
        self.stops.setHorizontalHeaderLabels(["One failure of"] + [
            "This design" if s is report.design_share else s.label[:1].upper() + s.label[1:] for s in shares])
        kinds = list(dict.fromkeys(k for s in shares for k in s.stops_by_kind))
        lines = [(kind, [("stops a job" if s.stops_by_kind[kind] else "job continues")
                         if kind in s.stops_by_kind else "—" for s in shares]) for kind in kinds]
        lines.append((SHARE_ROW,
                      ["—" if s.share is None else f"{s.share:.0%}" for s in shares]))
        for net in self.networks:
            lines += [(f"{net.size.label}: {f.component}",
                       ["stops a job" if f.stops_jobs else "job continues"] + ["—"] * (len(shares) - 1))
                      for f in net.failures]
        for kind, values in lines:
            row = self.stops.rowCount()
            self.stops.insertRow(row)
            for column, text in enumerate([kind, *values]):
                item = QTableWidgetItem(text)
                if kind == SHARE_ROW:
                    item.setToolTip(SHARE_TIP)
                self.stops.setItem(row, column, item)
        self.stops.resizeColumnsToContents()
        share = report.design_share.share if report.design_share is not None else None
        self.tabs.setTabText(1, STOPS_TAB + (f" ({share:.0%} of expected failures do)" if share is not None else ""))
        self.counts.setText("Counted (computed): " + ", ".join(f"{n:,} {unit_name(name)}"
                                                              for name, n in report.counts.items()))
        self.notes.setText("\n".join(f"Note: {n}" for n in report.notes)
                           + "".join(f"\n{net.size.label}: " + "; ".join(f"one {f.component} down: {f.effect}"
                                                                          for f in net.failures)
                                     for net in self.networks))
