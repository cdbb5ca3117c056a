"""Tools > Run on the Routing Stack: the open Ethernet design on FRR in network namespaces.

The run (designer.twin.routing) happens on a worker thread started through
`services.background`; its progress lines come back through a queued signal and the report is
shown in a window of its own, as text, with Copy as JSON. Stop asks the run to end: it removes
every namespace and daemon it made on its way out. Closing the designer window stops a run and
waits for that clean-up (a few seconds), so that nothing it made outlives the window.
"""

from __future__ import annotations

import json
import threading

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
)

from designer.ui.services.background import background

CLEANUP_WAIT_S = 30.0


class _Relay(QObject):
    """Carries the worker's progress lines to the UI thread (a queued connection)."""

    line = Signal(str)


class RoutingTwinDialog(QDialog):
    """Options, progress and the report of one run at a time."""

    def __init__(self, main):
        super().__init__(main)
        self.main = main
        self.setObjectName("routingTwinDialog")
        self.setWindowTitle("Run on the Routing Stack")
        self.resize(900, 640)
        self.twin = None
        self.report = None
        self.cancel = threading.Event()
        self.finished_run = threading.Event()
        self.finished_run.set()
        self.relay = _Relay(self)
        self.relay.line.connect(self._progress)

        intro = QLabel("Brings the design up on FRR (zebra and bgpd) in a Linux network namespace per switch, "
                       "with the configuration the frr export writes, and reports what the routers did. "
                       "Needs root and the Debian packages frr and iproute2.")
        intro.setWordWrap(True)
        self.flows = QCheckBox("Place NCCL-like flows with the kernel's hash (--flows)")
        self.flows.setChecked(True)
        self.every_link = QCheckBox("A veth pair for every design link (otherwise one per switch pair)")
        self.faults = QLineEdit()
        self.faults.setObjectName("twinFaults")
        self.faults.setPlaceholderText("Faults after convergence, e.g. switch:spine-3 link:leaf-1--spine-2")
        self.status = QLabel("Ready.")
        self.status.setObjectName("twinStatus")
        self.status.setWordWrap(True)
        self.text = QPlainTextEdit()
        self.text.setObjectName("twinReport")
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.run_button = QPushButton("Run")
        self.run_button.setObjectName("twinRun")
        self.run_button.setDefault(True)
        self.stop_button = QPushButton("Stop")
        self.stop_button.setObjectName("twinStop")
        self.stop_button.setEnabled(False)
        self.copy_button = QPushButton("Copy as JSON")
        self.copy_button.setEnabled(False)
        close = QPushButton("Close")
        self.run_button.clicked.connect(self.start)
        self.stop_button.clicked.connect(self.stop)
        self.copy_button.clicked.connect(self._copy_json)
        close.clicked.connect(self.close)

        buttons = QHBoxLayout()
        for b in (self.run_button, self.stop_button, self.copy_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        buttons.addWidget(close)
        layout = QVBoxLayout(self)
        for w in (intro, self.flows, self.every_link, self.faults, self.status, self.text):
            layout.addWidget(w)
        layout.addLayout(buttons)

    @property
    def running(self) -> bool:
        return not self.finished_run.is_set()

    def start(self) -> None:
        if self.running:
            return
        design = self.main.document.design        # immutable: the worker reads this snapshot
        catalog = self.main.catalog
        every_link, flows = self.every_link.isChecked(), self.flows.isChecked()
        faults = tuple(self.faults.text().split())
        self.twin, self.report = None, None
        self.cancel = threading.Event()
        self.finished_run.clear()
        self.text.clear()
        self.copy_button.setEnabled(False)
        self.run_button.setEnabled(False)
        self.stop_button.setEnabled(True)
        self.status.setText("Starting…")
        done, cancel, emit = self.finished_run, self.cancel, self.relay.line.emit

        def work():
            # Everything, the fabric's graph and routing plan included, is made off the UI thread.
            from designer.twin.namespaces import CommandFailed, TwinUnavailable
            from designer.twin.routing import RoutingTwin, TwinCancelled

            try:
                twin = RoutingTwin(design, catalog, every_link=every_link, faults=faults, flows=flows,
                                   progress=emit)
                twin.cancel = cancel
                self.twin = twin
                return twin.run()
            except (TwinUnavailable, CommandFailed, TwinCancelled, ValueError, OSError) as exc:
                return exc
            finally:
                done.set()

        background().start(self, work, self._finished, name="routing-twin")

    def _progress(self, line: str) -> None:
        self.status.setText(line[:1].upper() + line[1:] + "…")

    def _finished(self, result) -> None:
        from designer.twin.routing import TwinCancelled, TwinReport
        from designer.twin.routing_text import report_lines

        self.run_button.setEnabled(True)
        self.stop_button.setEnabled(False)
        if isinstance(result, TwinReport):
            self.report = result
            converged = result.before.converged and (result.after is None or result.after.converged)
            self.status.setText("Converged; every namespace and daemon of the run removed." if converged else
                                "The fabric did not converge in time; see the report.")
            self.text.setPlainText("\n".join(report_lines(result)))
            self.copy_button.setEnabled(True)
        elif isinstance(result, TwinCancelled):
            self.status.setText("Stopped; every namespace and daemon of the run removed.")
        else:
            self._show_error(str(result))

    def _show_error(self, message: str) -> None:
        self.status.setText(message)
        self.text.setPlainText(message)

    def _copy_json(self) -> None:
        if self.report is not None:
            QGuiApplication.clipboard().setText(json.dumps(self.report.to_json(), indent=2))

    def stop(self) -> None:
        if self.running:
            self.cancel.set()
            self.status.setText("Stopping: removing the namespaces and daemons…")
            self.stop_button.setEnabled(False)

    def shutdown(self) -> None:
        """Stop a run and wait for its clean-up: the window is closing."""
        if self.running:
            self.cancel.set()
            self.finished_run.wait(CLEANUP_WAIT_S)


class RoutingTwinActions:
    """Tools > Run on the Routing Stack… of one designer window."""

    def __init__(self, window, menu):
        self.main = window
        self.dialog: RoutingTwinDialog | None = None
        self.action = menu.addAction("Run on the &Routing Stack…")
        self.action.setObjectName("routingTwinAction")
        self.action.setStatusTip("Bring the Ethernet design up on FRR in network namespaces: sessions, "
                                 "convergence, ECMP widths, the kernel's flow placement, faults")
        self.action.triggered.connect(lambda _=False: self.show())
        menu.aboutToShow.connect(self._enable)

    def _enable(self) -> None:
        try:
            tech = self.main.catalog.technology(self.main.document.design.fabric.technology)
            self.action.setEnabled(tech.family == "ethernet")
        except Exception:     # an unknown technology: the run itself says so
            self.action.setEnabled(True)

    def show(self) -> RoutingTwinDialog:
        if self.dialog is None:
            self.dialog = RoutingTwinDialog(self.main)
            self.dialog.setWindowModality(Qt.WindowModality.NonModal)
        self.dialog.show()
        self.dialog.raise_()
        self.dialog.activateWindow()
        return self.dialog

    def shutdown(self) -> None:
        if self.dialog is not None:
            self.dialog.shutdown()
